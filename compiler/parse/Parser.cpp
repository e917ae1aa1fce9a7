#include "parse/Parser.h"

#include <set>

#include "parse/Recovery.h"

namespace formac {
namespace {

using namespace ast;

// Deeper nesting than this is rejected rather than risking the stack.
constexpr int kMaxNesting = 1000;

bool isBasicType(Tok t) {
  return t == Tok::KwFloat || t == Tok::KwDouble || t == Tok::KwInt || t == Tok::KwInt16 ||
         t == Tok::KwInt8 || t == Tok::KwUint16 || t == Tok::KwInt64;
}

ScalarKind basicType(Tok t) {
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

  // program := (import | struct_def | stencil_def | vector_def | declaration | statement)*
  //            'return' vexpr (',' vexpr)* ';'
  // module  := the same with the 'return' part optional
  Program program() {
    Program p;
    while (!finished_) {
      size_t start = pos_;
      try {
        item(p);
      } catch (const UserError& e) {
        errors_.add(e);
        if (finished_) break;  // an error in the final 'return': nothing follows
        pos_ = nextItemAfterError(toks_, start, pos_);
        finished_ = cur().kind == Tok::End;  // no "expected 'return'" after an error
      }
    }
    errors_.throwIfAny();
    return p;
  }

 private:
  // One definition, declaration or statement, or the final return.
  void item(Program& p) {
    const Token& t = cur();
    switch (t.kind) {
      case Tok::KwStruct: p.structs.push_back(structDef()); break;
      case Tok::KwStencil: p.stencils.push_back(stencilDef()); break;
      case Tok::KwVector:
        if (peek(1).kind == Tok::Hash) p.inputs.push_back(imageDecl());
        else p.vectorFns.push_back(vectorDef());
        break;
      case Tok::KwParameter: paramDecls(p.params); break;
      case Tok::KwReturn: {
        finished_ = true;
        p.returnLoc = t.loc;
        next();
        p.results.push_back(vexpr());
        while (accept(Tok::Comma)) p.results.push_back(vexpr());
        expect(Tok::Semi, "after the returned image");
        if (cur().kind != Tok::End) fail("expected end of file after the final 'return'");
        break;
      }
      case Tok::End:
        finished_ = true;
        if (as_ == ParseAs::Program) fail("expected 'return' at the end of the program");
        break;
      default:
        if (t.kind == Tok::Ident && t.text == "import" && peek(1).kind == Tok::StringLit) {
          p.imports.push_back(importDecl());
        } else if (isBasicType(t.kind)) {
          p.inputs.push_back(scalarDecl());
        } else if (t.kind == Tok::Ident || t.kind == Tok::KwFor || t.kind == Tok::KwDo) {
          p.stmts.push_back(statement());
        } else {
          fail(std::string("expected a definition, declaration or statement, found ") +
               describe(t));
        }
    }
  }

  // import := 'import' STRING ';'   ('import' is a keyword only before a string)
  Import importDecl() {
    Import i;
    i.loc = next().loc;
    const Token& path = next();
    i.path = path.text.substr(1, path.text.size() - 2);
    if (i.path.empty()) userError(path.loc, "the import path is empty");
    expect(Tok::Semi, "after the import");
    return i;
  }

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

  // ------------------------------------------------------------ definitions
  // type := basic_type | ID
  TypeName typeName(const std::string& context) {
    TypeName t;
    t.loc = cur().loc;
    if (isBasicType(cur().kind)) {
      t.basic = basicType(next().kind);
    } else if (cur().kind == Tok::Ident) {
      t.structName = next().text;
    } else {
      fail("expected a type " + context + ", found " + describe(cur()));
    }
    return t;
  }

  // struct_def := 'struct' ID '{' (basic_type ID ';')+ '}' | 'struct' ID ';'
  StructDef structDef() {
    StructDef s;
    s.loc = next().loc;
    s.name = identifier("after 'struct'");
    if (accept(Tok::Semi)) {
      s.builtinCuda = true;
      return s;
    }
    expect(Tok::LBrace, "after the struct name");
    while (!accept(Tok::RBrace)) {
      if (!isBasicType(cur().kind))
        fail("expected a field type (int8, int16, uint16, int, int64, float or double) in struct '" + s.name +
             "', found " + describe(cur()));
      StructField f;
      f.type = basicType(next().kind);
      f.name = identifier("as a field name");
      expect(Tok::Semi, "after the field");
      s.fields.push_back(f);
    }
    accept(Tok::Semi);  // `struct rgb {...};` is accepted too
    if (s.fields.empty()) userError(s.loc, "struct '" + s.name + "' has no fields");
    return s;
  }

  // stencil_def := 'stencil' ID '(' [sparam (',' sparam)*] ')' '{'
  //                (ID '=' expr ';')* 'return' expr ';' '}'
  // sparam := 'vector' '#' INT type ID | basic_type ID
  StencilDef stencilDef() {
    StencilDef s;
    s.loc = next().loc;
    s.name = identifier("after 'stencil'");
    expect(Tok::LParen, "after the stencil name");
    s.params = functionParams("after the stencil parameters");
    expect(Tok::LBrace, "to open the stencil body");
    while (cur().kind == Tok::Ident) {
      LocalAssign a;
      a.loc = cur().loc;
      a.name = next().text;
      expect(Tok::Assign, "after '" + a.name + "' (a stencil body holds 'name = expr;' lines)");
      a.value = expr();
      expect(Tok::Semi, "after the expression");
      s.body.push_back(std::move(a));
    }
    expect(Tok::KwReturn, "in the stencil body");
    s.result = expr();
    expect(Tok::Semi, "after the returned expression");
    expect(Tok::RBrace, "to close the stencil body");
    return s;
  }

  // The parameter list after '(' of a stencil or vector function, with its ')'.
  // params := [sparam (',' sparam)*] ')'
  // sparam := 'vector' '#' INT type ID | basic_type ID
  std::vector<StencilParam> functionParams(const std::string& closing) {
    std::vector<StencilParam> params;
    if (accept(Tok::RParen)) return params;
    do {
      StencilParam p;
      p.loc = cur().loc;
      if (cur().kind == Tok::KwVector) {
        p.rank = vectorRank();
        p.type = typeName("after the rank");
      } else if (isBasicType(cur().kind)) {
        p.type = typeName("");
      } else {
        fail("expected a parameter ('vector#N type name' or 'type name'), found " + describe(cur()));
      }
      p.name = identifier("as the parameter name");
      params.push_back(p);
    } while (accept(Tok::Comma));
    expect(Tok::RParen, closing);
    return params;
  }

  // 'vector' '#' INT
  int vectorRank() {
    expect(Tok::KwVector, "");
    expect(Tok::Hash, "after 'vector'");
    const Token& n = expect(Tok::IntLit, "as the rank after 'vector#'");
    if (n.intValue < 1 || n.intValue > 8)
      userError(n.loc, "rank must be between 1 and 8, found " + n.text);
    return static_cast<int>(n.intValue);
  }

  // vector_def := 'vector' ID '(' [vparam (',' vparam)*] ')' '{' statement*
  //               'return' vexpr ';' '}'
  VectorFnDef vectorDef() {
    VectorFnDef f;
    f.loc = next().loc;
    f.name = identifier("after 'vector' (or '#' for an image declaration)");
    expect(Tok::LParen, "after the vector function name");
    f.params = functionParams("after the parameters");
    expect(Tok::LBrace, "to open the vector function body");
    while (cur().kind == Tok::Ident || cur().kind == Tok::KwFor || cur().kind == Tok::KwDo)
      f.body.push_back(statement());
    expect(Tok::KwReturn, "in the vector function body");
    f.result = vexpr();
    expect(Tok::Semi, "after the returned image");
    expect(Tok::RBrace, "to close the vector function body");
    return f;
  }

  // param_decl := 'parameter' ID ['=' INT] (',' ID ['=' INT])* ';'
  void paramDecls(std::vector<ParamDecl>& out) {
    next();
    do {
      ParamDecl p;
      p.loc = cur().loc;
      p.name = identifier("as a parameter name");
      if (accept(Tok::Assign)) {
        bool neg = accept(Tok::Minus);
        const Token& v = expect(Tok::IntLit, "as the parameter's default value");
        p.defaultValue = neg ? -v.intValue : v.intValue;
      }
      out.push_back(p);
    } while (accept(Tok::Comma));
    expect(Tok::Semi, "after the parameter list");
  }

  // image_decl := 'vector' '#' INT type ID '[' pexpr (',' pexpr)* ']' ';'
  InputDecl imageDecl() {
    InputDecl d;
    d.loc = cur().loc;
    d.rank = vectorRank();
    d.type = typeName("after the rank");
    d.name = identifier("as the image name");
    expect(Tok::LBracket, "before the extent of '" + d.name + "'");
    do d.extent.push_back(sizeExpr()); while (accept(Tok::Comma));
    expect(Tok::RBracket, "after the extent");
    expect(Tok::Semi, "after the image declaration");
    return d;
  }

  // scalar_decl := basic_type ID ';'
  InputDecl scalarDecl() {
    InputDecl d;
    d.loc = cur().loc;
    d.type = typeName("");
    d.name = identifier("as the scalar input name");
    expect(Tok::Semi, "after the scalar declaration");
    return d;
  }

  // ------------------------------------------------------------ sizes
  // pexpr := pterm (('+'|'-') pterm)*
  std::unique_ptr<SizeExpr> sizeExpr() {
    DepthGuard g(*this);
    auto lhs = sizeTerm();
    while (cur().kind == Tok::Plus || cur().kind == Tok::Minus) {
      auto e = std::make_unique<SizeExpr>();
      e->loc = cur().loc;
      e->kind = next().kind == Tok::Plus ? SizeExpr::Add : SizeExpr::Sub;
      e->lhs = std::move(lhs);
      e->rhs = sizeTerm();
      lhs = std::move(e);
    }
    return lhs;
  }
  // pterm := patom (('*' patom) | ('/' INT))*
  std::unique_ptr<SizeExpr> sizeTerm() {
    auto lhs = sizeAtom();
    while (cur().kind == Tok::Star || cur().kind == Tok::Slash) {
      auto e = std::make_unique<SizeExpr>();
      e->loc = cur().loc;
      if (next().kind == Tok::Star) {
        e->kind = SizeExpr::Mul;
        e->rhs = sizeAtom();
      } else {
        e->kind = SizeExpr::Div;
        const Token& d = expect(Tok::IntLit, "as the divisor (sizes divide by an integer)");
        if (d.intValue == 0) userError(d.loc, "division of a size by zero");
        e->value = d.intValue;
      }
      e->lhs = std::move(lhs);
      lhs = std::move(e);
    }
    return lhs;
  }
  // patom := INT | ID | '-' patom | '(' pexpr ')'
  std::unique_ptr<SizeExpr> sizeAtom() {
    auto e = std::make_unique<SizeExpr>();
    e->loc = cur().loc;
    if (cur().kind == Tok::IntLit) {
      e->value = next().intValue;
    } else if (cur().kind == Tok::Ident) {
      e->kind = SizeExpr::Param;
      e->name = next().text;
    } else if (accept(Tok::Minus)) {
      DepthGuard g(*this);
      e->kind = SizeExpr::Sub;
      e->lhs = std::make_unique<SizeExpr>();
      e->lhs->loc = e->loc;
      e->rhs = sizeAtom();
    } else if (accept(Tok::LParen)) {
      e = sizeExpr();
      expect(Tok::RParen, "to close the size expression");
    } else {
      fail("expected a size (an integer or a parameter), found " + describe(cur()));
    }
    return e;
  }

  // domain := '[' range (',' range)* ']'
  // range  := pexpr '..' pexpr | pexpr '..' | '..' pexpr | '..' | pexpr
  Domain domain() {
    Domain d;
    d.loc = expect(Tok::LBracket, "to open a domain").loc;
    do {
      Range r;
      r.loc = cur().loc;
      if (cur().kind != Tok::DotDot) r.lo = sizeExpr();
      if (accept(Tok::DotDot)) {
        r.isRange = true;
        if (cur().kind != Tok::Comma && cur().kind != Tok::RBracket) r.hi = sizeExpr();
      }
      d.axes.push_back(std::move(r));
    } while (accept(Tok::Comma));
    expect(Tok::RBracket, "to close the domain");
    return d;
  }

  // offsets := '@' '[' offset (',' offset)* ']'
  // offset  := sint | '(' sint ',' INT ')'
  std::vector<OffsetAxis> offsets() {
    expect(Tok::At, "");
    expect(Tok::LBracket, "after '@'");
    std::vector<OffsetAxis> out;
    do {
      OffsetAxis a;
      if (accept(Tok::LParen)) {
        a.offset = signedInt("as the offset (offsets are integer constants)");
        expect(Tok::Comma, "between offset and scale in '(offset, scale)'");
        SourceLoc sl = cur().loc;
        int s = signedInt("as the scale (scales are positive integer constants)");
        if (s <= 0) userError(sl, "scale must be a positive integer, found " + std::to_string(s));
        a.scale = s;
        expect(Tok::RParen, "after the scale");
      } else {
        a.offset = signedInt("as an offset (offsets are integer constants)");
      }
      out.push_back(a);
    } while (accept(Tok::Comma));
    expect(Tok::RBracket, "to close the offsets");
    return out;
  }
  int signedInt(const std::string& context) {
    bool neg = accept(Tok::Minus);
    if (!neg) accept(Tok::Plus);
    const Token& t = expect(Tok::IntLit, context);
    return static_cast<int>(neg ? -t.intValue : t.intValue);
  }

  // ------------------------------------------------------------ stencil expressions
  // expr := orexpr ['?' expr ':' expr]
  std::unique_ptr<Expr> expr() {
    DepthGuard g(*this);
    auto c = binary(0);
    if (cur().kind != Tok::Question) return c;
    auto e = node(Expr::Ternary, cur().loc);
    next();
    e->args.push_back(std::move(c));
    e->args.push_back(expr());
    expect(Tok::Colon, "in the conditional expression");
    e->args.push_back(expr());
    return e;
  }

  // Binary levels, loosest first: || ; && ; == != ; < > <= >= ; + - ; * / % .
  static int levelOf(Tok t) {
    switch (t) {
      case Tok::OrOr: return 0;
      case Tok::AndAnd: return 1;
      case Tok::EqEq: case Tok::NotEq: return 2;
      case Tok::Less: case Tok::Greater: case Tok::LessEq: case Tok::GreaterEq: return 3;
      case Tok::Plus: case Tok::Minus: return 4;
      case Tok::Star: case Tok::Slash: case Tok::Percent: return 5;
      default: return -1;
    }
  }
  std::unique_ptr<Expr> binary(int level) {
    if (level > 5) return unary();
    auto lhs = binary(level + 1);
    while (levelOf(cur().kind) == level) {
      auto e = node(Expr::Binary, cur().loc);
      e->name = next().text;
      e->args.push_back(std::move(lhs));
      e->args.push_back(binary(level + 1));
      lhs = std::move(e);
    }
    return lhs;
  }
  // unary := ('-' | '!' | '+') unary | power
  std::unique_ptr<Expr> unary() {
    if (cur().kind == Tok::Minus || cur().kind == Tok::Bang || cur().kind == Tok::Plus) {
      DepthGuard g(*this);
      SourceLoc loc = cur().loc;
      std::string op = next().text;
      auto operand = unary();
      if (op == "+") return operand;
      auto e = node(Expr::Unary, loc);
      e->name = op;
      e->args.push_back(std::move(operand));
      return e;
    }
    return power();
  }
  // power := postfix ['^' unary]     (right associative, binds tighter than unary minus)
  std::unique_ptr<Expr> power() {
    auto base = postfix();
    if (cur().kind != Tok::Caret) return base;
    DepthGuard g(*this);
    auto e = node(Expr::Binary, cur().loc);
    e->name = next().text;
    e->args.push_back(std::move(base));
    e->args.push_back(unary());
    return e;
  }
  // postfix := primary ('.' ID)*
  std::unique_ptr<Expr> postfix() {
    auto e = primary();
    while (cur().kind == Tok::Dot) {
      auto f = node(Expr::Field, cur().loc);
      next();
      f->name = identifier("as a field name after '.'");
      f->args.push_back(std::move(e));
      e = std::move(f);
    }
    return e;
  }
  // primary := INT | FLOAT | DOUBLE | '(' expr ')'
  //          | ID | ID offsets | ID '[' expr (',' expr)* ']' | ID '(' [expr (',' expr)*] ')'
  //          | 'cast' '<' basic_type '>' '(' expr ')' | 'struct' ID '(' expr (',' expr)* ')'
  std::unique_ptr<Expr> primary() {
    const Token& t = cur();
    switch (t.kind) {
      case Tok::IntLit: {
        auto e = node(Expr::IntLit, t.loc);
        e->intValue = next().intValue;
        return e;
      }
      case Tok::FloatLit:
      case Tok::DoubleLit: {
        auto e = node(t.kind == Tok::FloatLit ? Expr::FloatLit : Expr::DoubleLit, t.loc);
        e->floatValue = next().floatValue;
        return e;
      }
      case Tok::LParen: {  // expr() counts the nesting level
        next();
        auto e = expr();
        expect(Tok::RParen, "to close '('");
        return e;
      }
      case Tok::KwCast: {
        auto e = node(Expr::Cast, t.loc);
        next();
        expect(Tok::Less, "after 'cast'");
        if (!isBasicType(cur().kind))
          fail("expected a basic type in cast<...>, found " + describe(cur()));
        e->castType = typeName("");
        expect(Tok::Greater, "after the cast type");
        expect(Tok::LParen, "after cast<...>");
        e->args.push_back(expr());
        expect(Tok::RParen, "to close the cast");
        return e;
      }
      case Tok::KwStruct: {
        auto e = node(Expr::MakeStruct, t.loc);
        next();
        e->name = identifier("after 'struct'");
        expect(Tok::LParen, "after the struct name");
        do e->args.push_back(expr()); while (accept(Tok::Comma));
        expect(Tok::RParen, "to close the struct value");
        return e;
      }
      case Tok::Ident: {
        std::string name = next().text;
        if (cur().kind == Tok::At) {
          auto e = node(Expr::OffsetRead, t.loc);
          e->name = name;
          e->offsets = offsets();
          return e;
        }
        if (accept(Tok::LBracket)) {
          auto e = node(Expr::IndexRead, t.loc);
          e->name = name;
          do e->args.push_back(expr()); while (accept(Tok::Comma));
          expect(Tok::RBracket, "to close the index");
          return e;
        }
        if (accept(Tok::LParen)) {  // expr() counts the nesting level of each argument
          auto e = node(Expr::Call, t.loc);
          e->name = name;
          if (!accept(Tok::RParen)) {
            do e->args.push_back(expr()); while (accept(Tok::Comma));
            expect(Tok::RParen, "to close the call of '" + name + "'");
          }
          return e;
        }
        auto e = node(Expr::Name, t.loc);
        e->name = name;
        return e;
      }
      default:
        fail("expected an expression, found " + describe(t));
    }
  }
  static std::unique_ptr<Expr> node(Expr::Kind k, SourceLoc loc) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->loc = loc;
    return e;
  }

  // ------------------------------------------------------------ vector expressions
  // vexpr := vprimary (domain | offsets | '.' ID)*
  std::unique_ptr<VExpr> vexpr() {
    DepthGuard g(*this);
    auto e = vprimary();
    for (;;) {
      if (cur().kind == Tok::LBracket) {
        auto s = vnode(VExpr::SubDomain, cur().loc);
        s->domain = domain();
        s->base = std::move(e);
        e = std::move(s);
      } else if (cur().kind == Tok::At) {
        auto s = vnode(VExpr::Sample, cur().loc);
        s->offsets = offsets();
        s->base = std::move(e);
        e = std::move(s);
      } else if (cur().kind == Tok::Dot) {
        auto s = vnode(VExpr::Field, cur().loc);
        next();
        s->name = identifier("as a field name after '.'");
        s->base = std::move(e);
        e = std::move(s);
      } else {
        return e;
      }
    }
  }

  // vprimary := ID ['<' index '>'] | ID '(' [arg (',' arg)*] ')'
  //           | 'struct' ID '(' vexpr (',' vexpr)* ')' | '(' compose ')' | '(' vexpr ')'
  std::unique_ptr<VExpr> vprimary() {
    const Token& t = cur();
    if (t.kind == Tok::KwStruct) {
      auto e = vnode(VExpr::MakeStruct, t.loc);
      next();
      e->name = identifier("after 'struct'");
      expect(Tok::LParen, "after the struct name");
      do {
        CallArg a;
        a.loc = cur().loc;
        a.value = vexpr();
        e->args.push_back(std::move(a));
      } while (accept(Tok::Comma));
      expect(Tok::RParen, "to close the struct image");
      return e;
    }
    if (t.kind == Tok::LParen) {
      next();
      if (cur().kind == Tok::At || cur().kind == Tok::LBracket || cur().kind == Tok::RParen) {
        auto e = compose(t.loc);
        expect(Tok::RParen, "to close the compose");
        return e;
      }
      auto e = vexpr();
      expect(Tok::RParen, "to close '('");
      return e;
    }
    if (t.kind != Tok::Ident) fail("expected an image expression, found " + describe(t));
    std::string name = next().text;
    if (accept(Tok::LParen)) {
      auto e = vnode(VExpr::Call, t.loc);
      e->name = name;
      if (!accept(Tok::RParen)) {
        do e->args.push_back(callArg()); while (accept(Tok::Comma));
        expect(Tok::RParen, "to close the call of '" + name + "'");
      }
      return e;
    }
    auto e = vnode(VExpr::Ref, t.loc);
    e->name = name;
    if (cur().kind == Tok::Less) e->index = indexedName();
    return e;
  }

  // index := '<' (INT | ID | ID '+' INT | ID '-' INT) '>'
  IndexedName indexedName() {
    expect(Tok::Less, "");
    IndexedName n;
    n.present = true;
    if (cur().kind == Tok::IntLit) {
      n.delta = next().intValue;
    } else {
      n.iterator = identifier("or an integer as the index in '<...>'");
      if (cur().kind == Tok::Plus || cur().kind == Tok::Minus) {
        bool neg = next().kind == Tok::Minus;
        long long v = expect(Tok::IntLit, "after the iterator").intValue;
        n.delta = neg ? -v : v;
      }
    }
    expect(Tok::Greater, "to close the index");
    return n;
  }

  // arg := vexpr [':' boundary] | number | basic_type
  // boundary := 'clamped' | 'extend' | 'mirror' | 'wrap' | 'constant' '(' number ')'
  CallArg callArg() {
    CallArg a;
    a.loc = cur().loc;
    bool neg = cur().kind == Tok::Minus &&
               (peek(1).kind == Tok::IntLit || peek(1).kind == Tok::FloatLit ||
                peek(1).kind == Tok::DoubleLit);
    if (neg || cur().kind == Tok::IntLit || cur().kind == Tok::FloatLit ||
        cur().kind == Tok::DoubleLit) {
      a.literal = numberLiteral();
      return a;
    }
    if (isBasicType(cur().kind)) {
      a.typeArg = basicType(next().kind);
      return a;
    }
    a.value = vexpr();
    if (accept(Tok::Colon)) a.boundary = boundary();
    return a;
  }
  std::unique_ptr<Expr> numberLiteral() {
    SourceLoc loc = cur().loc;
    bool neg = accept(Tok::Minus);
    const Token& t = cur();
    std::unique_ptr<Expr> e;
    if (t.kind == Tok::IntLit) {
      e = node(Expr::IntLit, loc);
      e->intValue = neg ? -t.intValue : t.intValue;
    } else if (t.kind == Tok::FloatLit || t.kind == Tok::DoubleLit) {
      e = node(t.kind == Tok::FloatLit ? Expr::FloatLit : Expr::DoubleLit, loc);
      e->floatValue = neg ? -t.floatValue : t.floatValue;
    } else {
      fail("expected a number, found " + describe(t));
    }
    next();
    return e;
  }
  Boundary boundary() {
    Boundary b;
    b.loc = cur().loc;
    switch (cur().kind) {
      case Tok::KwClamped: b.mode = BoundaryMode::Clamped; break;
      case Tok::KwExtend: b.mode = BoundaryMode::Extend; break;
      case Tok::KwMirror: b.mode = BoundaryMode::Mirror; break;
      case Tok::KwWrap: b.mode = BoundaryMode::Wrap; break;
      case Tok::KwConstant: {
        b.mode = BoundaryMode::Constant;
        next();
        expect(Tok::LParen, "after 'constant'");
        b.constantLoc = cur().loc;
        auto v = numberLiteral();
        b.constantIsInt = v->kind == Expr::IntLit;
        b.constant = b.constantIsInt ? static_cast<double>(v->intValue) : v->floatValue;
        expect(Tok::RParen, "after the constant value");
        return b;
      }
      default:
        fail("expected a boundary mode (clamped, extend, mirror, wrap or constant(c)), found " +
             describe(cur()));
    }
    next();
    return b;
  }

  // compose := (compose_part)*
  // compose_part := (offsets | domain) '=' (vexpr | number) ';'
  std::unique_ptr<VExpr> compose(SourceLoc loc) {
    auto e = vnode(VExpr::Compose, loc);
    while (cur().kind == Tok::At || cur().kind == Tok::LBracket) {
      ComposePart p;
      p.loc = cur().loc;
      if (cur().kind == Tok::At) {
        p.byOffsets = true;
        p.offsets = offsets();
      } else {
        p.domain = domain();
      }
      expect(Tok::Assign, "in the compose part");
      bool number = cur().kind == Tok::IntLit || cur().kind == Tok::FloatLit ||
                    cur().kind == Tok::DoubleLit || cur().kind == Tok::Minus;
      if (number) p.literal = numberLiteral();
      else p.value = vexpr();
      // Without its ';' a part swallows the next part's '@[...]' as a sample
      // and stops at its '='; say where the ';' is missing.
      if (cur().kind == Tok::Assign && p.value && p.value->kind == VExpr::Sample)
        userError(p.value->loc, "expected ';' after the compose part, before the next part's "
                                "'@[...]'");
      expect(Tok::Semi, "after the compose part");
      e->parts.push_back(std::move(p));
    }
    if (e->parts.empty()) userError(loc, "empty compose: expected '@[...] = image;' parts");
    return e;
  }

  static std::unique_ptr<VExpr> vnode(VExpr::Kind k, SourceLoc loc) {
    auto e = std::make_unique<VExpr>();
    e->kind = k;
    e->loc = loc;
    return e;
  }

  // ------------------------------------------------------------ statements
  // statement := ID ['<' index '>'] [domain | offsets] '=' vexpr ';'
  //            | 'for' ID '=' sint '..' sint statement+ 'endfor'
  //            | 'do' ID '=' sint '..' (sint | ID) statement+ 'while' '(' vexpr ')' ';'
  std::unique_ptr<Stmt> statement() {
    DepthGuard g(*this, "loops");
    auto s = std::make_unique<Stmt>();
    s->loc = cur().loc;
    if (cur().kind == Tok::KwFor || cur().kind == Tok::KwDo) {
      bool isDo = next().kind == Tok::KwDo;
      s->kind = isDo ? Stmt::DoWhile : Stmt::For;
      s->iterator = identifier("as the loop iterator");
      expect(Tok::Assign, "after the iterator");
      s->from = signedInt("as the first iteration (loop bounds are integer constants)");
      expect(Tok::DotDot, "in the iteration range");
      s->toLoc = cur().loc;
      if (isDo && cur().kind == Tok::Ident)
        s->toParam = next().text;
      else
        s->to = signedInt(isDo ? "or a parameter as the last round" : "as the last iteration (loop bounds are integer constants)");
      while (cur().kind == Tok::Ident || cur().kind == Tok::KwFor || cur().kind == Tok::KwDo)
        s->body.push_back(statement());
      if (s->body.empty()) fail("expected a statement in the loop body");
      if (isDo) {
        expect(Tok::KwWhile, "to end the 'do' loop");
        expect(Tok::LParen, "after 'while'");
        s->condition = vexpr();
        expect(Tok::RParen, "after the loop condition");
        expect(Tok::Semi, "after 'while (...)'");
      } else {
        expect(Tok::KwEndfor, "to end the 'for' loop");
      }
      return s;
    }
    s->target = identifier("at the start of a statement");
    if (cur().kind == Tok::Less) s->targetIndex = indexedName();
    if (cur().kind == Tok::LBracket) {
      s->hasDomain = true;
      s->domain = domain();
    } else if (cur().kind == Tok::At) {
      s->hasOffsets = true;
      s->offsets = offsets();
    }
    expect(Tok::Assign, "after '" + s->target + "'");
    s->value = vexpr();
    expect(Tok::Semi, "after the statement");
    return s;
  }

  const std::vector<Token>& toks_;
  ParseAs as_;
  ErrorLog errors_;
  bool finished_ = false;  // past the final 'return' (or the end of a module)
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

ast::Program parse(const std::vector<Token>& tokens, ParseAs as) {
  return Parser(tokens, as).program();
}

}  // namespace formac
