// Statements (assignments, `for` and `do` loops) and the sizes, domains and
// offsets that extents, sub-domains and placements are written with.
#include "parse/ParserImpl.h"

namespace formac::parse_detail {

// ------------------------------------------------------------ statements
// statement := ID ['<' index '>'] [domain | offsets] '=' vexpr ';'
//            | 'for' ID '=' sint '..' sint statement+ 'endfor'
//            | 'do' ID '=' sint '..' (sint | ID) statement+ 'while' '(' vexpr ')' ';'
std::unique_ptr<Stmt> Parser::statement() {
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

// ------------------------------------------------------------ sizes
// pexpr := pterm (('+'|'-') pterm)*
std::unique_ptr<SizeExpr> Parser::sizeExpr() {
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
std::unique_ptr<SizeExpr> Parser::sizeTerm() {
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
std::unique_ptr<SizeExpr> Parser::sizeAtom() {
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
Domain Parser::domain() {
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
std::vector<OffsetAxis> Parser::offsets() {
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

int Parser::signedInt(const std::string& context) {
  bool neg = accept(Tok::Minus);
  if (!neg) accept(Tok::Plus);
  const Token& t = expect(Tok::IntLit, context);
  return static_cast<int>(neg ? -t.intValue : t.intValue);
}

}  // namespace formac::parse_detail
