// Stmt: the statements of generated code as a small tree (declarations,
// assignments, loops, branches, blocks, comments, functions), built by the
// code generators and printed by StmtPrinter, whose C and CUDA printers are
// siblings: what differs between the two (OpenMP loops, restrict, function
// qualifiers) is a printer's choice, not a generator's. Expressions inside
// statements are C text from ExprPrinter, which parenthesises by precedence.
//
// Generators that still build text splice it in as Text statements; the tree
// grows as they move onto it (issue 25).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace formac::codegen {

struct Stmt;

// The statements nested in a statement: built once, then shared by the
// copies of it (a subtree placed in a larger one is not copied again).
class Stmts {
 public:
  Stmts() = default;
  Stmts(std::vector<Stmt> list);  // NOLINT: a list of statements is their nesting
  const std::vector<Stmt>& list() const;
  std::vector<Stmt>::const_iterator begin() const { return list().begin(); }
  std::vector<Stmt>::const_iterator end() const { return list().end(); }
  size_t size() const { return list().size(); }
  bool empty() const { return size() == 0; }
  const Stmt& operator[](size_t i) const { return list()[i]; }

 private:
  std::shared_ptr<const std::vector<Stmt>> list_;
};

// A function parameter: `[const ]type[* restrict] name`.
struct Param {
  std::string type;
  std::string name;
  bool pointer = false;   // a buffer: printed with the dialect's restrict
  bool readOnly = false;  // `const` before the type
};

struct Stmt {
  enum Kind {
    Seq,       // body, spliced into the enclosing statements (no braces)
    Block,     // { body }, with `text` as a comment after the brace when not empty
    Decl,      // [const ]type name[ = value];
    Assign,    // name = value;
    Eval,      // value;  (an expression for its effect: `rest /= n`)
    For,       // for (init; cond; step) { body }, across threads when `parallel`
    While,     // while (cond) { body }
    If,        // if (cond) { body } [else { orElse }]
    Comment,   // /* text */, each line of text after the first under the first
    Text,      // text as it is, indented already (a generator's not yet on the tree)
    Function,  // a function: see `function`
    Lambda,    // auto name = [&](params) -> returns { body };  (C++: the CUDA printer's)
    Record,    // name { body };  (a struct: `name` is "struct NAME", the body its members)
  } kind = Seq;
  std::string type, name, value;  // Decl; Assign (name = value)
  bool isConst = false;           // Decl
  std::string init, cond, step;   // For (init may be empty: `for (; ...)`); While, If: cond
  // For, when not empty: the loop's iterations are shared among threads with
  // these OpenMP clauses ("schedule(static) if (...)"); a CUDA printer rejects it.
  std::string parallel;
  bool unroll = false;  // For: the loop is to be unrolled (a CUDA `#pragma unroll`)
  std::string text;  // Comment, Text
  Stmts body, orElse;
  // Function: `[template <templateParams>] qualifiers returns attributes
  // name(params) { body }`; the parameters in `quietIfUnused` the body does
  // not read get a `(void)name;` line first.
  std::string templateParams, qualifiers, returns, attributes;
  std::vector<Param> params;
  std::vector<std::string> quietIfUnused;
};

Stmt seq(std::vector<Stmt> body);
Stmt block(std::vector<Stmt> body, const std::string& braceComment = "");
// `const type name = value;` (isConst: not for a pointer type ending in `*`,
// whose own const is written in `type`, `float* const`).
Stmt decl(const std::string& type, const std::string& name, const std::string& value, bool isConst = true);
// `type name;`, assigned later.
Stmt declOnly(const std::string& type, const std::string& name);
Stmt assign(const std::string& name, const std::string& value);
Stmt eval(const std::string& value);
Stmt forLoop(const std::string& init, const std::string& cond, const std::string& step, std::vector<Stmt> body,
             const std::string& parallel = "");
Stmt unrolledLoop(const std::string& init, const std::string& cond, const std::string& step, std::vector<Stmt> body);
Stmt whileLoop(const std::string& cond, std::vector<Stmt> body);
Stmt ifThen(const std::string& cond, std::vector<Stmt> body, std::vector<Stmt> orElse = {});
Stmt comment(const std::string& text);
Stmt text(const std::string& lines);
Stmt function(const std::string& qualifiers, const std::string& returns, const std::string& name,
              std::vector<Param> params, std::vector<Stmt> body, std::vector<std::string> quietIfUnused = {});

Stmt lambda(const std::string& name, std::vector<Param> params, const std::string& returns, std::vector<Stmt> body);
Stmt record(const std::string& name, std::vector<Stmt> members);

// Prints statements, each line at `indent` plus two spaces a level of nesting.
class StmtPrinter {
 public:
  virtual ~StmtPrinter() = default;
  std::string print(const Stmt& s, const std::string& indent = "") const;
  std::string print(const std::vector<Stmt>& body, const std::string& indent = "") const;
  // A parameter list: "const float* restrict a, float* restrict b"; none
  // is C's `void` and C++'s empty list.
  std::string params(const std::vector<Param>& ps) const;
  // `[&](params) [-> returns] { body }`, a lambda as an expression (C++), its body at `indent` plus two spaces.
  std::string lambdaExpr(const std::vector<Param>& ps, const std::vector<Stmt>& body, const std::string& indent,
                         const std::string& returns = "") const;

 protected:
  // The dialect's spelling of a pointer parameter's restrict qualifier.
  virtual std::string restrictQualifier() const = 0;
  // The line before a loop whose iterations threads share.
  virtual std::string parallelLoop(const Stmt& loop) const = 0;
  // The line before a loop to unroll, at `indent`.
  virtual std::string unrollPragma(const std::string& indent) const = 0;
  // Whether the dialect has lambdas (C++).
  virtual bool lambdas() const = 0;
  // The parameter list of a function that takes none.
  virtual std::string noParams() const = 0;

 private:
  void printTo(std::string& out, const Stmt& s, const std::string& indent) const;
};

// C with OpenMP: restrict, FORMAC_PRAGMA(omp parallel for ...) at column 0.
class CPrinter : public StmtPrinter {
 protected:
  std::string restrictQualifier() const override;
  std::string parallelLoop(const Stmt& loop) const override;
  std::string unrollPragma(const std::string& indent) const override;
  bool lambdas() const override { return false; }
  std::string noParams() const override { return "void"; }
};

// CUDA C++: __restrict__; threads are the launch's, so no parallel loops.
class CudaPrinter : public StmtPrinter {
 protected:
  std::string restrictQualifier() const override;
  std::string parallelLoop(const Stmt& loop) const override;
  std::string unrollPragma(const std::string& indent) const override;
  bool lambdas() const override { return true; }
  std::string noParams() const override { return ""; }
};

// The printer of a dialect: `cuda` picks CudaPrinter.
const StmtPrinter& printerFor(bool cuda);

}  // namespace formac::codegen
