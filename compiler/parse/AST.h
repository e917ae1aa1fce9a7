// The Forma abstract syntax tree, as written (LANGUAGE.md, grammar/forma.ebnf).
//
// Every node carries the location of its first token. Nothing here is
// resolved or typed: names are strings, sizes are unevaluated expressions.
// Sema (compiler/sema) turns a Program into the pipeline IR.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/BoundaryMode.h"
#include "ir/Types.h"
#include "support/Diagnostics.h"

namespace formac::ast {

// A type as written: a basic type or a struct name.
struct TypeName {
  SourceLoc loc;
  std::optional<ScalarKind> basic;
  std::string structName;  // when !basic
  std::string spelling() const { return basic ? scalarName(*basic) : structName; }
};

// One axis of `@[...]`: reads index scale*i + offset. A plain offset has scale 1.
struct OffsetAxis {
  int offset = 0;
  int scale = 1;
};

// ---------------------------------------------------------------- sizes
// pexpr := pexpr ('+'|'-'|'*') pexpr | pexpr '/' INT | INT | ID | '(' pexpr ')'
struct SizeExpr {
  enum Kind { Int, Param, Add, Sub, Mul, Div } kind = Int;
  SourceLoc loc;
  long long value = 0;  // Int, and the divisor of Div
  std::string name;     // Param
  std::unique_ptr<SizeExpr> lhs, rhs;
};

// One axis of a domain `[lo..hi, ..]`; absent bounds mean the default.
struct Range {
  SourceLoc loc;
  std::unique_ptr<SizeExpr> lo, hi;
  bool isRange = false;  // written with '..'; otherwise `lo` is a single index
};
struct Domain {
  SourceLoc loc;
  std::vector<Range> axes;
};

// ---------------------------------------------------------------- stencil-body expressions
struct Expr {
  enum Kind {
    IntLit, FloatLit, DoubleLit,
    Name,        // X, t, k
    OffsetRead,  // X@[...]
    IndexRead,   // m[e1, e2]
    Field,       // e.r
    Unary,       // - !
    Binary,      // + - * / % ^ < > <= >= == != && ||
    Ternary,     // (c ? a : b)
    Call,        // sqrt(e)
    Cast,        // cast<int8>(e)
    MakeStruct,  // struct rgb(e1, e2, e3)
  } kind = IntLit;
  SourceLoc loc;
  long long intValue = 0;
  double floatValue = 0.0;
  std::string name;  // Name/OffsetRead/IndexRead: the variable; Field: field; Call: function;
                     // MakeStruct: struct; Unary/Binary: operator spelling
  std::vector<OffsetAxis> offsets;
  TypeName castType;
  std::vector<std::unique_ptr<Expr>> args;  // operands, indices, call args
};

// `t = expr;` inside a stencil.
struct LocalAssign {
  SourceLoc loc;
  std::string name;
  std::unique_ptr<Expr> value;
};

struct StencilParam {
  SourceLoc loc;
  std::string name;
  int rank = 0;  // 0: a scalar parameter
  TypeName type;
};

struct StencilDef {
  SourceLoc loc;
  std::string name;
  std::vector<StencilParam> params;
  std::vector<LocalAssign> body;
  std::unique_ptr<Expr> result;
};

// ---------------------------------------------------------------- vector expressions
// `g<i>`, `g<i-1>`, `g<3>`: an indexed name inside (or naming an element of) a for loop.
struct IndexedName {
  bool present = false;
  std::string iterator;  // empty: a constant index
  long long delta = 0;   // g<i-1>: iterator "i", delta -1; g<3>: delta 3
};

using formac::BoundaryMode;
using formac::boundaryName;

struct Boundary {
  SourceLoc loc;
  BoundaryMode mode = BoundaryMode::None;
  double constant = 0.0;
  bool constantIsInt = true;
  SourceLoc constantLoc;  // where the constant's literal is
};

struct VExpr;

// One argument of a call: an image expression with its boundary, or a literal.
struct CallArg {
  SourceLoc loc;
  std::unique_ptr<VExpr> value;  // null for a literal
  std::unique_ptr<Expr> literal; // numeric literal argument
  std::optional<ScalarKind> typeArg;  // a type name (`sat(img, float)`); value and literal null
  Boundary boundary;
};

// One part of a compose: `@[(0,2),(0,1)] = f(X);` or `[0..M-1, 3] = 5;`.
struct ComposePart {
  SourceLoc loc;
  bool byOffsets = false;
  std::vector<OffsetAxis> offsets;
  Domain domain;
  std::unique_ptr<VExpr> value;   // or
  std::unique_ptr<Expr> literal;
};

struct VExpr {
  enum Kind {
    Ref,         // input, g, g<i-1>
    Call,        // f(a:mirror, b, 3.0)
    MakeStruct,  // struct rgb(R, G, B)
    Field,       // v.r
    SubDomain,   // v[1..M-2, ..]
    Sample,      // v@[(a,s), ...]
    Compose,     // ( @[...] = e; ... )
  } kind = Ref;
  SourceLoc loc;
  std::string name;  // Ref: image; Call: function; MakeStruct: struct; Field: field
  IndexedName index;
  std::vector<CallArg> args;                 // Call, MakeStruct
  std::unique_ptr<VExpr> base;               // Field, SubDomain, Sample
  Domain domain;                             // SubDomain
  std::vector<OffsetAxis> offsets;           // Sample
  std::vector<ComposePart> parts;            // Compose
};

// ---------------------------------------------------------------- statements
struct Stmt {
  enum Kind { Assign, For, DoWhile } kind = Assign;
  SourceLoc loc;
  // Assign: target[<index>][domain | @[offsets]] = value;
  std::string target;
  IndexedName targetIndex;
  bool hasDomain = false;
  Domain domain;
  bool hasOffsets = false;
  std::vector<OffsetAxis> offsets;
  std::unique_ptr<VExpr> value;
  // For / DoWhile: iterator = from..to, body; DoWhile also `while (cond)`.
  std::string iterator;
  long long from = 0, to = 0;
  std::string toParam;  // DoWhile: the last round is this parameter (to unused)
  SourceLoc toLoc;
  std::vector<std::unique_ptr<Stmt>> body;
  std::unique_ptr<VExpr> condition;
};

// A vector function's parameters are written like a stencil's.
using VectorParam = StencilParam;

struct VectorFnDef {
  SourceLoc loc;
  std::string name;
  std::vector<VectorParam> params;
  std::vector<std::unique_ptr<Stmt>> body;
  std::unique_ptr<VExpr> result;
};

struct StructDef {
  SourceLoc loc;
  std::string name;
  bool builtinCuda = false;  // `struct float4;`
  std::vector<StructField> fields;
};

struct ParamDecl {
  SourceLoc loc;
  std::string name;
  std::optional<long long> defaultValue;
};

// `vector#2 float input[M,N];` (rank > 0) or `float threshold;` (rank 0).
struct InputDecl {
  SourceLoc loc;
  std::string name;
  int rank = 0;
  TypeName type;
  std::vector<std::unique_ptr<SizeExpr>> extent;
};

// `import "stdlib/gaussian3x3.idsl";` (LANGUAGE.md §7); path without the quotes.
struct Import {
  SourceLoc loc;
  std::string path;
};

struct Program {
  std::vector<Import> imports;  // as written; parse/Modules.h merges what they define
  std::vector<StructDef> structs;
  std::vector<StencilDef> stencils;
  std::vector<VectorFnDef> vectorFns;
  std::vector<ParamDecl> params;
  std::vector<InputDecl> inputs;
  std::vector<std::unique_ptr<Stmt>> stmts;
  SourceLoc returnLoc;
  std::vector<std::unique_ptr<VExpr>> results;  // `return a;` (ext: `return a, b;`)
};

}  // namespace formac::ast
