// The builder's record of a program (internal to compiler/builder): one Node
// per operation, in creation order, owned by the State; Scopes say where a
// node may be used (the pipeline, a loop's body, a stencil being traced).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "builder/Builder.h"

namespace formac::builder {

struct Scope {
  enum Kind { Pipeline, LoopBody, StencilTrace } kind = Pipeline;
  Scope* parent = nullptr;  // a loop body's is the pipeline; a trace has none
  std::string stencil;      // StencilTrace: the stencil's name, for messages
  // Whether a value of `inner` may be used where `this` is current.
  bool sees(const Scope* inner) const {
    for (const Scope* s = this; s; s = s->parent)
      if (s == inner) return true;
    return false;
  }
};

struct LoopInfo;

struct Node {
  enum Kind {
    // point-wise: computed where they are used, or as a stencil of their own
    Literal, Read, Unary, Binary, Select, Call, Cast,
    // leaves and statements of the pipeline
    Input, ScalarInput, StencilParam, Apply, Reduce, Histogram, Selection, Scan,
    Carried,     // a carried image in a loop's body: X<i-1>
    LoopResult,  // a carried image after its loop: X<i>
    Alias,       // another name for args[0]: `name = other;`
  } kind = Literal;
  int id = 0;
  SourceLoc loc;
  Type type = Type::Int;
  int rank = 0;
  Scope* scope = nullptr;      // nullptr: a literal, usable anywhere
  std::string userName;        // .named(); a point-wise node named in a trace is a local
  ir::ExprPtr shadow;          // a typed IR expression of the node's type (sema's rules)
  std::vector<Node*> args;     // operands; Read: the image read; Apply: one per parameter
  // Literal
  ast::Expr::Kind literal = ast::Expr::IntLit;
  double number = 0;
  // Read
  std::vector<ast::OffsetAxis> offsets;
  ast::Boundary boundary;
  // Unary / Binary: the operator's Forma spelling; Call: the function
  std::string op;
  // Apply: the stencil; StencilParam: its index
  int stencil = -1;
  int index = -1;
  // Reduce / Histogram / Selection / Scan
  ir::ReduceOp reduceOp = ir::ReduceOp::Sum;
  int dim = -1;
  long long count = 0;  // histogram bins, where/topk k
  double lo = 0, hi = 0;
  std::optional<Type> resultType;  // Scan's named result type
  // Carried / LoopResult: the loop and the carried image's index
  LoopInfo* loop = nullptr;

  bool pointwise() const { return kind <= Cast; }
};

struct StencilInfo {
  std::string name;
  std::vector<Param> params;  // names and declared types
  size_t arity = 0;
  StencilBody body;
  SourceLoc loc;
  bool traced = false;
  std::vector<Node*> paramNodes;  // StencilParam nodes
  Node* result = nullptr;
  std::unique_ptr<Scope> scope;
};

struct LoopInfo {
  SourceLoc loc;
  int rounds = 0;
  std::string roundsParam;
  std::vector<Node*> init, carried, next, results;
  Node* condition = nullptr;
  std::unique_ptr<Scope> scope;
  int id = 0;  // its place among the pipeline's statements (after its body's nodes)
};

struct State {
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<std::unique_ptr<StencilInfo>> stencils;
  std::vector<std::unique_ptr<LoopInfo>> loops;
  Scope pipeline;
  Scope* current = &pipeline;
  std::vector<std::string> paramNames;  // size parameters, in order of first use
  std::vector<Node*> inputs;            // images and scalars, in declaration order
  std::map<Node*, std::vector<std::string>> extents;  // per image input
  std::vector<Node*> outputs;
  SourceLoc outputsLoc;
  std::shared_ptr<SourceFiles> files = std::make_shared<SourceFiles>();
  std::map<std::string, const SourceFile*> filesByPath;

  SourceLoc locate(const Site& site);
  Node* add(Node::Kind kind, const SourceLoc& loc);
  Value value(Node* n) { return Value(this, n); }
};

// The node of an operand: its value's, or a new Literal.
Node* operandNode(State& s, const Operand& o);
// A builder error at `loc` (the same form as the language's).
[[noreturn]] void fail(const SourceLoc& loc, const std::string& message);
// How messages name a value: "'gx'", else what made it ("a 'sum'").
std::string describe(const Node* n);
// The scope a value made of `args` belongs to (the innermost; they must nest),
// checked against the current one.
Scope* scopeOf(State& s, const std::vector<Node*>& args, const SourceLoc& loc);
// A typed IR leaf of `t` (for sema's typing of the operations built on it).
ir::ExprPtr shadowLeaf(Type t);
// Requires `name` to be a Forma identifier, not a keyword.
void requireIdentifier(const std::string& name, const std::string& what, const SourceLoc& loc);
// Requires an image (rank >= 1) for `what` at `loc`.
void requireImage(const Node* n, const std::string& what, const SourceLoc& loc);

}  // namespace formac::builder
