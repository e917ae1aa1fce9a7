// The parser's top level: the items of a program or module, the definitions
// (struct, stencil, vector function) and the declarations, and parse().
#include "parse/ParserImpl.h"
#include "parse/Recovery.h"

namespace formac {
namespace parse_detail {

// program := (import | struct_def | stencil_def | vector_def | declaration | statement)*
//            'return' vexpr (',' vexpr)* ';'
// module  := the same with the 'return' part optional
Program Parser::program() {
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

// One definition, declaration or statement, or the final return.
void Parser::item(Program& p) {
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
      } else if (t.kind == Tok::Ident && t.text == "import" && peek(1).kind == Tok::Ident) {
        // `import stdlib;`, `import lib/blur.idsl;`: no statement starts with two names.
        std::string written;
        for (int k = 1; k < 16 && peek(k).kind != Tok::Semi && peek(k).kind != Tok::End; ++k) written += peek(k).text;
        if (written.find('.') == std::string::npos) written += "/NAME.idsl";
        userError(peek(1).loc, "an import names its file in quotes: import \"" + written + "\";");
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
Import Parser::importDecl() {
  Import i;
  i.loc = next().loc;
  const Token& path = next();
  i.path = path.text.substr(1, path.text.size() - 2);
  if (i.path.empty()) userError(path.loc, "the import path is empty");
  expect(Tok::Semi, "after the import");
  return i;
}

// ------------------------------------------------------------ definitions
// type := basic_type | ID
TypeName Parser::typeName(const std::string& context) {
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
StructDef Parser::structDef() {
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
StencilDef Parser::stencilDef() {
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
std::vector<StencilParam> Parser::functionParams(const std::string& closing) {
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
int Parser::vectorRank() {
  expect(Tok::KwVector, "");
  expect(Tok::Hash, "after 'vector'");
  const Token& n = expect(Tok::IntLit, "as the rank after 'vector#'");
  if (n.intValue < 1 || n.intValue > 8)
    userError(n.loc, "rank must be between 1 and 8, found " + n.text);
  return static_cast<int>(n.intValue);
}

// vector_def := 'vector' ID '(' [vparam (',' vparam)*] ')' '{' statement*
//               'return' vexpr ';' '}'
VectorFnDef Parser::vectorDef() {
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
void Parser::paramDecls(std::vector<ParamDecl>& out) {
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
InputDecl Parser::imageDecl() {
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
InputDecl Parser::scalarDecl() {
  InputDecl d;
  d.loc = cur().loc;
  d.type = typeName("");
  d.name = identifier("as the scalar input name");
  expect(Tok::Semi, "after the scalar declaration");
  return d;
}

}  // namespace parse_detail

ast::Program parse(const std::vector<Token>& tokens, ParseAs as) {
  return parse_detail::Parser(tokens, as).program();
}

}  // namespace formac
