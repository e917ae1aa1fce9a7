// The parser's class (private to compiler/parse; Parser.h is its interface):
// recursive descent over the tokens, each parse function defined under its
// grammar rule in the file its section names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lex/Token.h"
#include "parse/AST.h"
#include "parse/Parser.h"
#include "support/Diagnostics.h"

namespace formac::parse_detail {

using namespace ast;

// Deeper nesting than this is rejected rather than risking the stack.
constexpr int kMaxNesting = 1000;

inline bool isBasicType(Tok t) {
  return t == Tok::KwFloat || t == Tok::KwDouble || t == Tok::KwInt || t == Tok::KwInt16 ||
         t == Tok::KwInt8 || t == Tok::KwUint16 || t == Tok::KwInt64;
}

inline ScalarKind basicType(Tok t) {
  switch (t) {
    case Tok::KwFloat: return ScalarKind::Float;
    case Tok::KwDouble: return ScalarKind::Double;
    case Tok::KwInt16: return ScalarKind::Int16;
    case Tok::KwInt8: return ScalarKind::Int8;
    case Tok::KwUint16: return ScalarKind::Uint16;
    case Tok::KwInt64: return ScalarKind::Int64;
    default: return ScalarKind::Int;
  }
}

class Parser {
 public:
  Parser(const std::vector<Token>& toks, ParseAs as) : toks_(toks), as_(as) {}

  Program program();

 private:
  // ------------------------------------------------------------ top level (Parser.cpp)
  void item(Program& p);
  Import importDecl();

  // ------------------------------------------------------------ token helpers
  const Token& cur() const { return toks_[pos_]; }
  const Token& peek(size_t k) const {
    return pos_ + k < toks_.size() ? toks_[pos_ + k] : toks_.back();
  }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (cur().kind != k) return false;
    next();
    return true;
  }
  static std::string describe(const Token& t) {
    if (t.kind == Tok::End) return "end of file";
    return "'" + t.text + "'";
  }
  [[noreturn]] void fail(const std::string& msg) { userError(cur().loc, msg); }
  const Token& expect(Tok k, const std::string& context) {
    if (cur().kind != k)
      fail(std::string("expected ") + tokenSpelling(k) + " " + context + ", found " +
           describe(cur()));
    return next();
  }
  std::string identifier(const std::string& context) {
    return expect(Tok::Ident, context).text;
  }

  // Counts one level of nesting; `what` names it in the error.
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser, const char* what = "expression") : p(parser) {
      if (++p.depth_ > kMaxNesting)
        p.fail(std::string(what) + " nested more than " + std::to_string(kMaxNesting) +
               " levels deep");
    }
    ~DepthGuard() { --p.depth_; }
  };

  // ------------------------------------------------------------ definitions (Parser.cpp)
  TypeName typeName(const std::string& context);
  StructDef structDef();
  StencilDef stencilDef();
  std::vector<StencilParam> functionParams(const std::string& closing);
  int vectorRank();
  VectorFnDef vectorDef();
  void paramDecls(std::vector<ParamDecl>& out);
  InputDecl imageDecl();
  InputDecl scalarDecl();

  // ------------------------------------------------------------ statements (ParseStatements.cpp)
  std::unique_ptr<Stmt> statement();

  // ------------------------------------------------------------ sizes (ParseStatements.cpp)
  std::unique_ptr<SizeExpr> sizeExpr();
  std::unique_ptr<SizeExpr> sizeTerm();
  std::unique_ptr<SizeExpr> sizeAtom();
  Domain domain();
  std::vector<OffsetAxis> offsets();
  int signedInt(const std::string& context);

  // ------------------------------------------------------------ stencil expressions (ParseExpressions.cpp)
  std::unique_ptr<Expr> expr();
  std::unique_ptr<Expr> binary(int level);
  std::unique_ptr<Expr> unary();
  std::unique_ptr<Expr> power();
  std::unique_ptr<Expr> postfix();
  std::unique_ptr<Expr> primary();

  // ------------------------------------------------------------ vector expressions (ParseExpressions.cpp)
  std::unique_ptr<VExpr> vexpr();
  std::unique_ptr<VExpr> vprimary();
  IndexedName indexedName();
  CallArg callArg();
  std::unique_ptr<Expr> numberLiteral();
  Boundary boundary();
  std::unique_ptr<VExpr> compose(SourceLoc loc);

  const std::vector<Token>& toks_;
  ParseAs as_;
  ErrorLog errors_;
  bool finished_ = false;  // past the final 'return' (or the end of a module)
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace formac::parse_detail
