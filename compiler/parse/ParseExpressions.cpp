// Expressions: a stencil body's scalar expressions, and the image
// expressions of statements (calls, samples, sub-domains, compositions).
#include "parse/ParserImpl.h"

namespace formac::parse_detail {
namespace {

std::unique_ptr<Expr> node(Expr::Kind k, SourceLoc loc) {
  auto e = std::make_unique<Expr>();
  e->kind = k;
  e->loc = loc;
  return e;
}

std::unique_ptr<VExpr> vnode(VExpr::Kind k, SourceLoc loc) {
  auto e = std::make_unique<VExpr>();
  e->kind = k;
  e->loc = loc;
  return e;
}

}  // namespace

// ------------------------------------------------------------ stencil expressions
// expr := orexpr ['?' expr ':' expr]
std::unique_ptr<Expr> Parser::expr() {
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

namespace {

// Binary levels, loosest first: || ; && ; == != ; < > <= >= ; + - ; * / % .
int levelOf(Tok t) {
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

}  // namespace

std::unique_ptr<Expr> Parser::binary(int level) {
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
std::unique_ptr<Expr> Parser::unary() {
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
std::unique_ptr<Expr> Parser::power() {
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
std::unique_ptr<Expr> Parser::postfix() {
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
std::unique_ptr<Expr> Parser::primary() {
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

// ------------------------------------------------------------ vector expressions
// vexpr := vprimary (domain | offsets | '.' ID)*
std::unique_ptr<VExpr> Parser::vexpr() {
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
std::unique_ptr<VExpr> Parser::vprimary() {
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
IndexedName Parser::indexedName() {
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
CallArg Parser::callArg() {
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

std::unique_ptr<Expr> Parser::numberLiteral() {
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

Boundary Parser::boundary() {
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
std::unique_ptr<VExpr> Parser::compose(SourceLoc loc) {
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

}  // namespace formac::parse_detail
