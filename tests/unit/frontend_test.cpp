// Unit tests of the front end: the lexer (compiler/lex) and the parser
// (compiler/parse). Whole programs and their diagnostics are tested through
// the CLI in tests/errors and tests/golden; here the parts are tested alone.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "lex/Lexer.h"
#include "parse/AstPrinter.h"
#include "parse/Parser.h"

namespace formac {
namespace {

// Sources must outlive their tokens and AST (locations point at them).
class FrontEnd : public ::testing::Test {
 protected:
  const SourceFile& source(const std::string& text) {
    files_.push_back(std::make_unique<SourceFile>(SourceFile{"test.idsl", text}));
    return *files_.back();
  }
  std::vector<Token> tokens(const std::string& text) { return lex(source(text)); }
  std::vector<Tok> kinds(const std::string& text) {
    std::vector<Tok> out;
    for (const auto& t : tokens(text)) out.push_back(t.kind);
    return out;
  }
  ast::Program program(const std::string& text) { return parse(tokens(text)); }
  // The user error `text` raises when lexed and parsed ("" when none).
  UserError errorOf(const std::string& text) {
    try {
      program(text);
    } catch (const UserError& e) {
      return e;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return UserError("none");
  }
  // The stencil body expression of `return EXPR;`, as --emit=ast prints it.
  std::string exprDump(const std::string& expr) {
    ast::Program p = program("stencil f(vector#1 float X, float a, float b, float c) { return " +
                             expr + "; }\nparameter M;\nvector#1 float in[M];\nreturn f(in, 1, 2, 3);\n");
    std::string all = ast::printProgram(p);
    // Keep only the lines under "  return" of the stencil, unindented by 4.
    size_t from = all.find("  return\n") + 9;
    size_t to = all.find("parameter M");
    std::string body = all.substr(from, to - from), out;
    size_t pos = 0;
    while (pos < body.size()) {
      size_t nl = body.find('\n', pos);
      out += body.substr(pos + 4, nl - pos - 4) + "\n";
      pos = nl + 1;
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

// ------------------------------------------------------------------ lexer

TEST_F(FrontEnd, LexesKeywordsIdentifiersAndPunctuation) {
  EXPECT_EQ(kinds("stencil vector parameter return struct cast for endfor do while"),
            (std::vector<Tok>{Tok::KwStencil, Tok::KwVector, Tok::KwParameter, Tok::KwReturn,
                              Tok::KwStruct, Tok::KwCast, Tok::KwFor, Tok::KwEndfor, Tok::KwDo,
                              Tok::KwWhile, Tok::End}));
  EXPECT_EQ(kinds("float double int int16 int8 mirror clamped extend wrap constant"),
            (std::vector<Tok>{Tok::KwFloat, Tok::KwDouble, Tok::KwInt, Tok::KwInt16, Tok::KwInt8,
                              Tok::KwMirror, Tok::KwClamped, Tok::KwExtend, Tok::KwWrap,
                              Tok::KwConstant, Tok::End}));
  EXPECT_EQ(kinds("stencils _x x9 Int"),
            (std::vector<Tok>{Tok::Ident, Tok::Ident, Tok::Ident, Tok::Ident, Tok::End}));
  EXPECT_EQ(kinds("( ) [ ] { } , ; : ? @ # . .. = + - * / % ^"),
            (std::vector<Tok>{Tok::LParen, Tok::RParen, Tok::LBracket, Tok::RBracket,
                              Tok::LBrace, Tok::RBrace, Tok::Comma, Tok::Semi, Tok::Colon,
                              Tok::Question, Tok::At, Tok::Hash, Tok::Dot, Tok::DotDot,
                              Tok::Assign, Tok::Plus, Tok::Minus, Tok::Star, Tok::Slash,
                              Tok::Percent, Tok::Caret, Tok::End}));
  EXPECT_EQ(kinds("< > <= >= == != && || !"),
            (std::vector<Tok>{Tok::Less, Tok::Greater, Tok::LessEq, Tok::GreaterEq, Tok::EqEq,
                              Tok::NotEq, Tok::AndAnd, Tok::OrOr, Tok::Bang, Tok::End}));
}

TEST_F(FrontEnd, LexesNumbers) {
  auto t = tokens("3 3.0 3.0f 1e-3 .5 2.5e2f 0 2147483647");
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].kind, Tok::IntLit);
  EXPECT_EQ(t[0].intValue, 3);
  EXPECT_EQ(t[1].kind, Tok::DoubleLit);
  EXPECT_DOUBLE_EQ(t[1].floatValue, 3.0);
  EXPECT_EQ(t[2].kind, Tok::FloatLit);
  EXPECT_EQ(t[2].text, "3.0f");
  EXPECT_EQ(t[3].kind, Tok::DoubleLit);
  EXPECT_DOUBLE_EQ(t[3].floatValue, 1e-3);
  EXPECT_EQ(t[4].kind, Tok::DoubleLit);
  EXPECT_DOUBLE_EQ(t[4].floatValue, 0.5);
  EXPECT_EQ(t[5].kind, Tok::FloatLit);
  EXPECT_DOUBLE_EQ(t[5].floatValue, 250.0);
  EXPECT_EQ(t[6].intValue, 0);
  EXPECT_EQ(t[7].intValue, 2147483647);
}

TEST_F(FrontEnd, RangeIsNotAFraction) {
  // "1..4" is INT DOTDOT INT, and "1.." keeps its integer.
  EXPECT_EQ(kinds("1..4"), (std::vector<Tok>{Tok::IntLit, Tok::DotDot, Tok::IntLit, Tok::End}));
  EXPECT_EQ(kinds("[1..]"),
            (std::vector<Tok>{Tok::LBracket, Tok::IntLit, Tok::DotDot, Tok::RBracket, Tok::End}));
}

TEST_F(FrontEnd, LexesOffsets) {
  EXPECT_EQ(kinds("X@[-1,0]"),
            (std::vector<Tok>{Tok::Ident, Tok::At, Tok::LBracket, Tok::Minus, Tok::IntLit,
                              Tok::Comma, Tok::IntLit, Tok::RBracket, Tok::End}));
}

TEST_F(FrontEnd, TracksLinesAndColumnsThroughComments) {
  auto t = tokens("a // one\n  /* two\n three */ b\n\tc");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].loc.line, 1);
  EXPECT_EQ(t[0].loc.col, 1);
  EXPECT_EQ(t[1].text, "b");
  EXPECT_EQ(t[1].loc.line, 3);
  EXPECT_EQ(t[1].loc.col, 11);
  EXPECT_EQ(t[2].loc.line, 4);
  EXPECT_EQ(t[2].loc.col, 2);
  EXPECT_EQ(t[3].kind, Tok::End);
}

TEST_F(FrontEnd, EmptyInputIsOneEndToken) {
  auto t = tokens("");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].kind, Tok::End);
  EXPECT_EQ(kinds("  // only a comment"), (std::vector<Tok>{Tok::End}));
}

TEST_F(FrontEnd, LexErrorsSayWhatAndWhere) {
  struct Case {
    const char* text;
    int line, col;
    const char* message;
  };
  const Case cases[] = {
      {"a $", 1, 3, "unexpected character '$'"},
      {"a\n\x01", 2, 1, "unexpected character byte 0x01"},
      {"a & b", 1, 3, "unexpected character '&'"},
      {"a\n  /* open", 2, 3, "unterminated comment: '/*' has no matching '*/'"},
      {"2147483648", 1, 1, "integer literal '2147483648' does not fit in 'int'"},
      {"99999999999999999999999", 1, 1, "does not fit in 'int'"},
      {"1e999", 1, 1, "floating literal '1e999' is out of range"},
      {"12abc", 1, 3, "unexpected character 'a' after number '12'"},
      {"3f", 1, 2, "unexpected character 'f' after number '3'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      tokens(c.text);
      ADD_FAILURE() << "no error";
    } catch (const UserError& e) {
      EXPECT_EQ(e.loc().line, c.line);
      EXPECT_EQ(e.loc().col, c.col);
      EXPECT_NE(e.message().find(c.message), std::string::npos) << e.message();
      // The rendered form: file:line:col: error: message, source line, caret.
      std::string what = e.what();
      EXPECT_EQ(what.rfind("test.idsl:" + std::to_string(c.line) + ":" + std::to_string(c.col) +
                               ": error: ", 0),
                0u)
          << what;
      EXPECT_NE(what.find("^\n"), std::string::npos) << what;
    }
  }
}

// ------------------------------------------------------------------ parser

TEST_F(FrontEnd, ParsesAProgram) {
  ast::Program p = program(
      "struct rgb { float r; float g; float b; }\n"
      "stencil blur(vector#2 float X, float k) {\n"
      "  t = X@[-1,0] + X;\n"
      "  return t * k;\n"
      "}\n"
      "vector twice(vector#2 float A) { b = blur(A:mirror, 0.5); return blur(b, 0.5); }\n"
      "parameter M, N = 16;\n"
      "vector#2 float in[M, N / 2 + 1];\n"
      "float gain;\n"
      "out = twice(in);\n"
      "return out;\n");
  ASSERT_EQ(p.structs.size(), 1u);
  EXPECT_EQ(p.structs[0].name, "rgb");
  ASSERT_EQ(p.structs[0].fields.size(), 3u);
  EXPECT_EQ(p.structs[0].fields[2].name, "b");

  ASSERT_EQ(p.stencils.size(), 1u);
  const ast::StencilDef& s = p.stencils[0];
  EXPECT_EQ(s.name, "blur");
  EXPECT_EQ(s.loc.line, 2);
  ASSERT_EQ(s.params.size(), 2u);
  EXPECT_EQ(s.params[0].rank, 2);
  EXPECT_EQ(s.params[0].name, "X");
  EXPECT_EQ(s.params[1].rank, 0);
  ASSERT_EQ(s.body.size(), 1u);
  EXPECT_EQ(s.body[0].name, "t");
  EXPECT_EQ(s.result->kind, ast::Expr::Binary);
  EXPECT_EQ(s.result->name, "*");

  ASSERT_EQ(p.vectorFns.size(), 1u);
  EXPECT_EQ(p.vectorFns[0].name, "twice");
  ASSERT_EQ(p.vectorFns[0].body.size(), 1u);
  const ast::VExpr& call = *p.vectorFns[0].body[0]->value;
  EXPECT_EQ(call.kind, ast::VExpr::Call);
  ASSERT_EQ(call.args.size(), 2u);
  EXPECT_EQ(call.args[0].boundary.mode, ast::BoundaryMode::Mirror);
  ASSERT_TRUE(call.args[1].literal);
  EXPECT_DOUBLE_EQ(call.args[1].literal->floatValue, 0.5);

  ASSERT_EQ(p.params.size(), 2u);
  EXPECT_FALSE(p.params[0].defaultValue.has_value());
  EXPECT_EQ(p.params[1].defaultValue.value_or(0), 16);
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_EQ(p.inputs[0].rank, 2);
  ASSERT_EQ(p.inputs[0].extent.size(), 2u);
  EXPECT_EQ(p.inputs[0].extent[1]->kind, ast::SizeExpr::Add);
  EXPECT_EQ(p.inputs[0].extent[1]->lhs->kind, ast::SizeExpr::Div);
  EXPECT_EQ(p.inputs[1].rank, 0);
  ASSERT_EQ(p.stmts.size(), 1u);
  EXPECT_EQ(p.stmts[0]->target, "out");
  ASSERT_EQ(p.results.size(), 1u);
  EXPECT_EQ(p.results[0]->name, "out");
  EXPECT_EQ(p.returnLoc.line, 11);
}

TEST_F(FrontEnd, ExpressionPrecedence) {
  EXPECT_EQ(exprDump("a + b * c"), "binary +\n  name a\n  binary *\n    name b\n    name c\n");
  EXPECT_EQ(exprDump("a - b - c"), "binary -\n  binary -\n    name a\n    name b\n  name c\n");
  // '^' is power, right associative, and binds tighter than unary minus.
  EXPECT_EQ(exprDump("-a ^ b ^ c"),
            "unary -\n  binary ^\n    name a\n    binary ^\n      name b\n      name c\n");
  EXPECT_EQ(exprDump("a < b + c && b == c || !a"),
            "binary ||\n  binary &&\n    binary <\n      name a\n      binary +\n        name b\n"
            "        name c\n    binary ==\n      name b\n      name c\n  unary !\n    name a\n");
  EXPECT_EQ(exprDump("(a > 0 ? b : c % 2)"),
            "ternary\n  binary >\n    name a\n    int 0\n  name b\n  binary %\n    name c\n"
            "    int 2\n");
  EXPECT_EQ(exprDump("+a"), "name a\n");
}

TEST_F(FrontEnd, ExpressionForms) {
  EXPECT_EQ(exprDump("X@[(1,2)] + X"), "binary +\n  read X@[(1,2)]\n  name X\n");
  EXPECT_EQ(exprDump("cast<int8>(a)"), "cast int8\n  name a\n");
  EXPECT_EQ(exprDump("max(a, sqrt(b))"), "call max\n  name a\n  call sqrt\n    name b\n");
  EXPECT_EQ(exprDump("X[0] * 2.5f"), "binary *\n  index X\n    int 0\n  float 2.5\n");
  EXPECT_EQ(exprDump("a.r.g"), "field .g\n  field .r\n    name a\n");
  EXPECT_EQ(exprDump("0.1"), "double 0.1\n");
}

TEST_F(FrontEnd, ParsesOffsetsAndScales) {
  ast::Program p = program(
      "stencil f(vector#2 float X) { return X@[(-1,2),+3]; }\n"
      "parameter M, N;\nvector#2 float in[M,N];\nreturn f(in);\n");
  const ast::Expr& r = *p.stencils[0].result;
  ASSERT_EQ(r.kind, ast::Expr::OffsetRead);
  ASSERT_EQ(r.offsets.size(), 2u);
  EXPECT_EQ(r.offsets[0].offset, -1);
  EXPECT_EQ(r.offsets[0].scale, 2);
  EXPECT_EQ(r.offsets[1].offset, 3);
  EXPECT_EQ(r.offsets[1].scale, 1);
}

TEST_F(FrontEnd, ParsesBoundaryModes) {
  ast::Program p = program(
      "stencil f(vector#1 float A, vector#1 float B, vector#1 float C, vector#1 float D,"
      " vector#1 float E, vector#1 float F) { return A + B + C + D + E + F; }\n"
      "parameter M;\nvector#1 float in[M];\n"
      "return f(in:clamped, in:extend, in:mirror, in:wrap, in:constant(-1.5), in:constant(7));\n");
  const auto& args = p.results[0]->args;
  ASSERT_EQ(args.size(), 6u);
  EXPECT_EQ(args[0].boundary.mode, ast::BoundaryMode::Clamped);
  EXPECT_EQ(args[1].boundary.mode, ast::BoundaryMode::Extend);
  EXPECT_EQ(args[2].boundary.mode, ast::BoundaryMode::Mirror);
  EXPECT_EQ(args[3].boundary.mode, ast::BoundaryMode::Wrap);
  EXPECT_EQ(args[4].boundary.mode, ast::BoundaryMode::Constant);
  EXPECT_DOUBLE_EQ(args[4].boundary.constant, -1.5);
  EXPECT_FALSE(args[4].boundary.constantIsInt);
  EXPECT_DOUBLE_EQ(args[5].boundary.constant, 7.0);
  EXPECT_TRUE(args[5].boundary.constantIsInt);
}

TEST_F(FrontEnd, ParsesComposeSubDomainsScatterAndLoops) {
  ast::Program p = program(
      "parameter M, N;\nvector#2 float in[M,N];\n"
      "c = ( @[(0,2),(0,1)] = in; @[(1,2),0] = in; );\n"
      "s = in[1..M-2, ..];\n"
      "o[1.., 2..] = s;\n"
      "w@[(-7,3),(5,2)] = in;\n"
      "g<0> = in;\n"
      "for i = 1..4\n  g<i> = g<i-1>;\nendfor\n"
      "return c, g<4>;\n");
  ASSERT_EQ(p.stmts.size(), 6u);
  const ast::VExpr& c = *p.stmts[0]->value;
  ASSERT_EQ(c.kind, ast::VExpr::Compose);
  ASSERT_EQ(c.parts.size(), 2u);
  EXPECT_TRUE(c.parts[1].byOffsets);
  EXPECT_EQ(c.parts[1].offsets[0].offset, 1);
  EXPECT_EQ(c.parts[1].offsets[0].scale, 2);

  const ast::VExpr& s = *p.stmts[1]->value;
  ASSERT_EQ(s.kind, ast::VExpr::SubDomain);
  ASSERT_EQ(s.domain.axes.size(), 2u);
  EXPECT_TRUE(s.domain.axes[0].isRange);
  ASSERT_TRUE(s.domain.axes[0].hi);
  EXPECT_EQ(s.domain.axes[0].hi->kind, ast::SizeExpr::Sub);
  EXPECT_TRUE(s.domain.axes[1].isRange);
  EXPECT_FALSE(s.domain.axes[1].lo);
  EXPECT_FALSE(s.domain.axes[1].hi);

  EXPECT_TRUE(p.stmts[2]->hasDomain);
  EXPECT_TRUE(p.stmts[3]->hasOffsets);
  EXPECT_EQ(p.stmts[3]->offsets[0].offset, -7);

  EXPECT_TRUE(p.stmts[4]->targetIndex.present);
  EXPECT_TRUE(p.stmts[4]->targetIndex.iterator.empty());
  const ast::Stmt& loop = *p.stmts[5];
  ASSERT_EQ(loop.kind, ast::Stmt::For);
  EXPECT_EQ(loop.iterator, "i");
  EXPECT_EQ(loop.from, 1);
  EXPECT_EQ(loop.to, 4);
  ASSERT_EQ(loop.body.size(), 1u);
  const ast::IndexedName& read = loop.body[0]->value->index;
  EXPECT_EQ(read.iterator, "i");
  EXPECT_EQ(read.delta, -1);
  ASSERT_EQ(p.results.size(), 2u);
  EXPECT_EQ(p.results[1]->index.delta, 4);
}

TEST_F(FrontEnd, ParseErrorsSayWhatWasExpectedAndFound) {
  struct Case {
    const char* text;
    int line, col;
    const char* message;
  };
  const Case cases[] = {
      {"parameter M\nvector#1 float a[M];\nreturn a;", 2, 1,
       "expected ';' after the parameter list, found 'vector'"},
      {"parameter M;\nvector#1 float a[M];\n", 3, 1, "expected 'return' at the end of the program"},
      {"", 1, 1, "expected 'return' at the end of the program"},
      {"stencil f(vector#1 float X) { return (X; }\nreturn a;", 1, 40,
       "expected ')' to close '(', found ';'"},
      {"stencil f(vector#1 float X) { t = X; }\nreturn a;", 1, 38,
       "expected 'return' in the stencil body, found '}'"},
      {"stencil f(vector#1 float X) { return X@[a]; }\nreturn a;", 1, 41,
       "expected integer literal as an offset (offsets are integer constants), found 'a'"},
      {"b = a@[(0,0)];\nreturn b;", 1, 11, "scale must be a positive integer, found 0"},
      {"b = f(a:reflect);\nreturn b;", 1, 9,
       "expected a boundary mode (clamped, extend, mirror, wrap or constant(c)), found 'reflect'"},
      {"return ();", 1, 8, "empty compose"},
      {"for i = 1 to 3 b<i> = a; endfor\nreturn a;", 1, 11,
       "expected '..' in the iteration range, found 'to'"},
      {"for i = 1..3 endfor\nreturn a;", 1, 14, "expected a statement in the loop body"},
      {"return a; b = a;", 1, 11, "expected end of file after the final 'return'"},
      {"vector#9 float a[M];\nreturn a;", 1, 8, "rank must be between 1 and 8, found 9"},
      {"vector#1 float a[M/0];\nreturn a;", 1, 20, "division of a size by zero"},
      {"struct s { }\nreturn a;", 1, 1, "struct 's' has no fields"},
      {"return ( @[(0,2)] = a\n @[(1,2)] = a; );", 2, 2,
       "expected ';' after the compose part, before the next part's '@[...]'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    UserError e = errorOf(c.text);
    EXPECT_EQ(e.loc().line, c.line);
    EXPECT_EQ(e.loc().col, c.col);
    EXPECT_NE(e.message().find(c.message), std::string::npos) << e.message();
  }
}

TEST_F(FrontEnd, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string(5000, '(') + "X" + std::string(5000, ')');
  UserError e = errorOf("stencil f(vector#1 float X) { return " + deep + "; }\nreturn a;");
  EXPECT_NE(e.message().find("expression nested more than 1000 levels deep"), std::string::npos);
  e = errorOf("return " + std::string(5000, '(') + "a" + std::string(5000, ')') + ";");
  EXPECT_NE(e.message().find("nested more than"), std::string::npos);
  e = errorOf("stencil f(vector#1 float X) { return " + std::string(5000, '-') + "X; }\nreturn a;");
  EXPECT_NE(e.message().find("nested more than"), std::string::npos);
  // Below the limit: 900 parentheses parse.
  std::string ok = std::string(900, '(') + "X" + std::string(900, ')');
  EXPECT_NO_THROW(program("stencil f(vector#1 float X) { return " + ok + "; }\nreturn a;"));
}

TEST_F(FrontEnd, LongFlatExpressionsParse) {
  // A flat chain is not nesting: 20,000 terms parse (into a left-deep tree).
  std::string sum = "X";
  for (int i = 0; i < 20000; ++i) sum += " + X";
  ast::Program p = program("stencil f(vector#1 float X) { return " + sum + "; }\nreturn a;");
  EXPECT_EQ(p.stencils[0].result->kind, ast::Expr::Binary);
  // Its dump stays linear: past 40 levels the depth is written as a number.
  std::string dump = ast::printProgram(p);
  EXPECT_LT(dump.size(), 100u * 40003u);  // ~40,000 nodes, each a line of < 100 bytes
  EXPECT_NE(dump.find("<20000> binary +"), std::string::npos);
}

}  // namespace
}  // namespace formac
