// The embedded builder: Forma pipelines written in C++, without program text
// (seed 004, Accelerator; docs/builder.md).
//
//   formac::builder::Builder b;
//   Value img = b.input("img", Type::Float, 2);
//   Stencil blurx = b.stencil("blurx", [](Value X) { return (X.at(-1, 0) + X + X.at(1, 0)) / 3.0f; });
//   Value out = blurx(img.mirror()).named("out");
//   b.outputs({out, max(out)});
//   formac::CompiledPipeline p = compile(b);
//
// Values are lazy: each operation records a node, and compile() turns the
// nodes the outputs need into the front end's AST (ast::Program), which the
// same sema -> verify -> ir::Pipeline path checks as a parsed program. So
// every rule and message of the language applies, and an error points at
// the C++ line of the call that made the offending value (file:line:col,
// the line and a caret). Errors the builder finds itself (a reduction used
// as an image, values of two stencils mixed) are UserErrors at that line too.
//
// A Value is an image (rank >= 1) or a scalar (rank 0); `Image` and `Scalar`
// name the same class for readability, and the rank is checked at run time
// (the Python face shares these checks). Arithmetic on images is point-wise:
// `a.at(-1, 0) + a * k` becomes a stencil of its own when an image is needed.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/Pipeline.h"
#include "parse/AST.h"
#include "parse/Modules.h"
#include "run/Pipeline.h"

namespace formac::builder {

using Type = ScalarKind;  // Type::Float, Type::Int8, ...

// Where the host program made a value: the default arguments take the
// caller's file, line and column.
struct Site {
  struct Here {};  // so that no number or string converts to a Site
#if defined(__has_builtin)
#if __has_builtin(__builtin_COLUMN)
#define FORMAC_BUILDER_COLUMN __builtin_COLUMN()
#endif
#endif
#ifndef FORMAC_BUILDER_COLUMN
#define FORMAC_BUILDER_COLUMN 0
#endif
  Site(Here = {}, const char* f = __builtin_FILE(), int l = __builtin_LINE(), int c = FORMAC_BUILDER_COLUMN)
      : file(f), line(l), col(c) {}
  std::string file;
  int line = 0;
  int col = 0;
};

struct Node;
struct State;
class Value;

// One axis of an offset read: index scale*i + offset (Forma's `(a,s)`).
struct Offset {
  Offset(int o) : offset(o) {}  // NOLINT: a plain offset reads as an int
  Offset(int o, int s) : offset(o), scale(s) {}
  int offset = 0;
  int scale = 1;
};

class Value {
 public:
  Value() = default;
  Value(State* s, Node* n) : s_(s), n_(n) {}

  int rank() const;         // 0: a scalar
  Type type() const;        // the element type
  std::string name() const; // the given or generated name
  bool valid() const { return n_ != nullptr; }

  // Gives the value a name: its stage is then named so in messages and
  // outputs, a name inside a stencil is a local value (`t = ...;`).
  Value named(const std::string& name, Site site = {}) const;

  // The image read at an offset per dimension (`X@[-1, 0]`).
  Value at(Offset a, Site site = {}) const { return atAxes({a}, site); }
  Value at(Offset a, Offset b, Site site = {}) const { return atAxes({a, b}, site); }
  Value at(Offset a, Offset b, Offset c, Site site = {}) const { return atAxes({a, b, c}, site); }
  Value at(Offset a, Offset b, Offset c, Offset d, Site site = {}) const { return atAxes({a, b, c, d}, site); }
  Value atAxes(const std::vector<Offset>& axes, Site site = {}) const;

  // The image with a boundary condition (LANGUAGE.md §5) for reads outside it.
  Value clamped(Site site = {}) const;
  Value extend(Site site = {}) const;
  Value mirror(Site site = {}) const;
  Value wrap(Site site = {}) const;
  Value constant(double c, Site site = {}) const;
  Value withBoundary(BoundaryMode mode, double constant, bool constantIsInt, Site site) const;

  State* state() const { return s_; }
  Node* node() const { return n_; }

 private:
  State* s_ = nullptr;
  Node* n_ = nullptr;
};

using Image = Value;
using Scalar = Value;

// An operand: a Value or a number literal (int: `int`, double: `double`,
// float: `float`), with the site that wrote it.
struct Operand {
  Operand(const Value& v, Site s = {}) : value(v), site(s) {}  // NOLINT
  Operand(int v, Site s = {});                                  // NOLINT
  Operand(double v, Site s = {});                               // NOLINT
  Operand(float v, Site s = {});                                // NOLINT
  Value value;
  Site site;
  ast::Expr::Kind literal = ast::Expr::Name;  // IntLit / DoubleLit / FloatLit for a number
  double number = 0;
};

Value operator+(const Operand& a, const Operand& b);
Value operator-(const Operand& a, const Operand& b);
Value operator*(const Operand& a, const Operand& b);
Value operator/(const Operand& a, const Operand& b);
Value operator%(const Operand& a, const Operand& b);
Value operator<(const Operand& a, const Operand& b);
Value operator>(const Operand& a, const Operand& b);
Value operator<=(const Operand& a, const Operand& b);
Value operator>=(const Operand& a, const Operand& b);
Value operator==(const Operand& a, const Operand& b);
Value operator!=(const Operand& a, const Operand& b);
Value operator&&(const Operand& a, const Operand& b);
Value operator||(const Operand& a, const Operand& b);
Value operator-(const Operand& a);
Value operator!(const Operand& a);

// `(c ? a : b)`, `cast<T>(e)` and the built-in math functions (LANGUAGE.md §3).
Value select(const Operand& c, const Operand& a, const Operand& b);
Value cast(Type t, const Operand& e);
Value call(const std::string& fn, const std::vector<Operand>& args);
Value sqrt(const Operand& a);
Value exp(const Operand& a);
Value log(const Operand& a);
Value sin(const Operand& a);
Value cos(const Operand& a);
Value tan(const Operand& a);
Value atan(const Operand& a);
Value fabs(const Operand& a);
Value abs(const Operand& a);
Value floor(const Operand& a);
Value ceil(const Operand& a);
Value round(const Operand& a);
Value pow(const Operand& a, const Operand& b);
Value atan2(const Operand& a, const Operand& b);
Value absd(const Operand& a, const Operand& b);
Value min(const Operand& a, const Operand& b);  // point-wise; min(img) is the reduction
Value max(const Operand& a, const Operand& b);

// Global operations (LANGUAGE.md §7): statements of the pipeline.
// dim -1: the whole image, a scalar; else along that dimension.
Value reduce(ir::ReduceOp op, const Value& img, int dim = -1, Site site = {});
Value sum(const Value& img, int dim = -1, Site site = {});
Value count(const Value& img, int dim = -1, Site site = {});
Value any(const Value& img, int dim = -1, Site site = {});
Value all(const Value& img, int dim = -1, Site site = {});
Value min(const Value& img, Site site = {});
Value max(const Value& img, Site site = {});
Value histogram(const Value& img, long long bins, double lo, double hi, Site site = {});
Value where(const Value& mask, long long k, Site site = {});
Value topk(const Value& img, long long k, Site site = {});
// Prefix sums along `dim`, or along every dimension (sat); `type`, when
// given, is the result's element type.
Value scan(const Value& img, int dim, Site site = {});
Value scan(const Value& img, int dim, Type type, Site site = {});
Value sat(const Value& img, Site site = {});
Value sat(const Value& img, Type type, Site site = {});

// A stencil: a C++ function of symbolic parameters, traced once (at its
// first application, with that application's element types and ranks) into
// a `stencil` definition, and applied like Forma's `f(a:mirror, b, k)`.
class Stencil {
 public:
  Stencil() = default;
  Stencil(State* s, int index) : s_(s), index_(index) {}
  Value operator()(const Operand& a) const { return apply({a}); }
  Value operator()(const Operand& a, const Operand& b) const { return apply({a, b}); }
  Value operator()(const Operand& a, const Operand& b, const Operand& c) const { return apply({a, b, c}); }
  Value operator()(const Operand& a, const Operand& b, const Operand& c, const Operand& d) const {
    return apply({a, b, c, d});
  }
  Value operator()(const Operand& a, const Operand& b, const Operand& c, const Operand& d,
                   const Operand& e) const {
    return apply({a, b, c, d, e});
  }
  Value operator()(const Operand& a, const Operand& b, const Operand& c, const Operand& d, const Operand& e,
                   const Operand& f) const {
    return apply({a, b, c, d, e, f});
  }
  Value apply(const std::vector<Operand>& args) const;

 private:
  State* s_ = nullptr;
  int index_ = -1;
};

// The function of a stencil: it returns a Value or a number.
using StencilBody = std::function<Operand(const std::vector<Value>&)>;

// A parameter of a stencil: its name and, when given, its declared element
// type (a scalar parameter converts its argument to it; without one, the
// type is the first application's argument's).
struct Param {
  Param(const char* n) : name(n) {}                 // NOLINT
  Param(std::string n) : name(std::move(n)) {}      // NOLINT
  Param(std::string n, Type t) : name(std::move(n)), type(t) {}
  std::string name;
  std::optional<Type> type;
};

// What a `do` loop's body returns for one round: the next values of the
// carried images and the condition (a scalar computed in the round: the loop
// goes on while it is non-zero).
struct Round {
  std::vector<Value> next;
  Value condition;
};
using LoopBody = std::function<Round(const std::vector<Value>&)>;

namespace detail {
template <class F>
struct Arity : Arity<decltype(&F::operator())> {};
template <class C, class R, class... A>
struct Arity<R (C::*)(A...) const> {
  static constexpr size_t value = sizeof...(A);
};
template <class F, size_t... I>
Operand callSpread(const F& f, const std::vector<Value>& a, std::index_sequence<I...>) {
  return Operand(f(a[I]...));
}
}  // namespace detail

class Builder {
 public:
  Builder();
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // `vector#R T name[extents];`: without extents, the dimensions are the
  // parameters M, N (rank 2; N for rank 1, L, M, N for 3, K, L, M, N for 4),
  // shared by every input of that rank.
  Value input(const std::string& name, Type type, int rank, Site site = {});
  Value input(const std::string& name, Type type, const std::vector<std::string>& extents, Site site = {});
  // `T name;`: a scalar input, given at each run.
  Value scalar(const std::string& name, Type type, Site site = {});

  // A stencil of `fn`, a function of Values (one per parameter) returning a
  // Value or a number; `params` names its parameters (default X for one,
  // else X0, X1, ...) and may declare their types.
  template <class F>
  Stencil stencil(const std::string& name, F fn, Site site = {}) {
    return stencil(name, std::vector<Param>{}, fn, site);
  }
  template <class F>
  Stencil stencil(const std::string& name, const std::vector<Param>& params, F fn, Site site = {}) {
    constexpr size_t n = detail::Arity<F>::value;
    StencilBody body = [fn](const std::vector<Value>& a) { return detail::callSpread(fn, a, std::make_index_sequence<n>()); };
    return makeStencil(name, params, n, std::move(body), site);
  }
  Stencil makeStencil(const std::string& name, const std::vector<Param>& params, size_t arity,
                      StencilBody body, const Site& site);

  // A `do` loop: at most `rounds` rounds (a literal, or the parameter
  // `roundsParam` when not empty); `body` takes the carried images' values
  // before a round and returns their values after it and the condition.
  // Returns the carried images after the last round.
  std::vector<Value> loop(int rounds, const std::vector<Value>& init, const LoopBody& body, Site site = {});
  std::vector<Value> loop(const std::string& roundsParam, const std::vector<Value>& init, const LoopBody& body,
                          Site site = {});

  // The results, in order: `return a, b;`.
  void outputs(const std::vector<Value>& results, Site site = {});

  // The program as the front end's AST, and the host files its locations
  // point into (they must outlive anything made from it).
  struct Program {
    std::unique_ptr<ast::Program> ast;
    std::shared_ptr<const SourceFiles> files;
  };
  Program program() const;

 private:
  std::vector<Value> loopImpl(int rounds, const std::string& param, const std::vector<Value>& init,
                              const LoopBody& body, const Site& site);
  std::unique_ptr<State> s_;
};

// Checks and compiles the builder's program: the same options and result as
// formac::compile of program text.
CompiledPipeline compile(const Builder& b, const CompileOptions& options = {});
// The checked pipeline IR (for `--emit=dag`'s print, ir/Printer.h).
ir::Pipeline checkedPipeline(const Builder& b, Warnings& warnings);

}  // namespace formac::builder
