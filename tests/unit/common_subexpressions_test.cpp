// Common subexpressions of point bodies (compiler/codegen/CommonSubexpressions):
// what is hoisted into a let, and what must stay where the program put it.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "codegen/CommonSubexpressions.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "sema/Sema.h"

namespace formac {
namespace {

using codegen::hoistCommonSubexpressions;

// The body of the stage computed by the pipeline's last statement.
ir::Body lastBody(const std::string& text) {
  SourceFile file{"cse.idsl", text};
  Warnings warnings;
  ir::Pipeline p = buildPipeline(parse(lex(file)), "k", warnings);
  return p.stages.back().pieces.at(0).body;
}

int count(const ir::Expr& e, const std::function<bool(const ir::Expr&)>& f) {
  int n = f(e) ? 1 : 0;
  for (const auto& a : e.args) n += count(*a, f);
  return n;
}

int countInBody(const ir::Body& b, const std::function<bool(const ir::Expr&)>& f) {
  int n = count(*b.result, f);
  for (const auto& l : b.lets) n += count(*l.value, f);
  return n;
}

bool isBinary(const ir::Expr& e, ir::BinOp op) { return e.kind == ir::Expr::Binary && e.binOp == op; }

TEST(CommonSubexpressions, RepeatedTestsUnderNestedSelectsBecomeLets) {
  ir::Body b = lastBody(R"(stencil thin(vector#2 float X, vector#2 float Y) {
  ax = fabs(X);
  ay = fabs(Y);
  a = (ay <= 0.5f * ax ? Y@[0,-1] : (ax * ay > 1 ? Y@[-1,-1] : Y@[-1,1]));
  b = (ay <= 0.5f * ax ? Y@[0,1] : (ax * ay > 1 ? Y@[1,1] : Y@[1,-1]));
  return a + b;
}
parameter M, N;
vector#2 float x[M,N];
vector#2 float y[M,N];
return thin(x, y);
)");
  ASSERT_EQ(b.lets.size(), 4u);
  EXPECT_EQ(countInBody(b, [](const ir::Expr& e) { return isBinary(e, ir::BinOp::Le); }), 2);
  EXPECT_EQ(hoistCommonSubexpressions(b), 2);
  ASSERT_EQ(b.lets.size(), 6u);
  // Each test now appears once, in its own let before a and b; the second
  // one (under a branch) is speculated: float arithmetic on lets. (A test
  // of reads under a branch would not be: CUDA's interior code loads those
  // reads first, as lets, and its tests of them are then hoisted.)
  EXPECT_EQ(countInBody(b, [](const ir::Expr& e) { return isBinary(e, ir::BinOp::Le); }), 1);
  EXPECT_EQ(countInBody(b, [](const ir::Expr& e) { return isBinary(e, ir::BinOp::Gt); }), 1);
  EXPECT_EQ(b.lets[2].name, "common");
  EXPECT_EQ(b.lets[3].name, "common");
  EXPECT_EQ(b.lets[4].name, "a");
  EXPECT_EQ(b.lets[4].value->args[0]->kind, ir::Expr::Local);
  // Lets only name earlier lets.
  for (size_t i = 0; i < b.lets.size(); ++i)
    EXPECT_EQ(count(*b.lets[i].value, [&](const ir::Expr& e) {
                return e.kind == ir::Expr::Local && e.local >= static_cast<int>(i);
              }), 0);
}

TEST(CommonSubexpressions, GuardedIntegerDivisionStaysUnderItsGuard) {
  ir::Body b = lastBody(R"(stencil guard(vector#2 int Z) {
  d = Z@[0,1] % 4;
  return (d != 0 ? Z / d : 0) + (d != 0 ? Z / d : 7);
}
parameter M, N;
vector#2 int z[M,N];
return guard(z);
)");
  EXPECT_EQ(hoistCommonSubexpressions(b), 1);  // d != 0, evaluated anyway
  EXPECT_EQ(countInBody(b, [](const ir::Expr& e) { return isBinary(e, ir::BinOp::Div); }), 2);
  for (const auto& l : b.lets) EXPECT_FALSE(isBinary(*l.value, ir::BinOp::Div));
}

TEST(CommonSubexpressions, ReadsAreHoistedOnlyWhereTheyAreReadAnyway) {
  ir::Body unconditional = lastBody(R"(stencil f(vector#2 float X) {
  return (X@[0,1] - X) * (X@[0,1] - X);
}
parameter M, N;
vector#2 float x[M,N];
return f(x);
)");
  EXPECT_EQ(hoistCommonSubexpressions(unconditional), 1);
  ir::Body underBranches = lastBody(R"(stencil f(vector#2 float X) {
  return (X > 0 ? X@[0,1] * 2 : 1) + (X < 0 ? X@[0,1] * 2 : 3);
}
parameter M, N;
vector#2 float x[M,N];
return f(x);
)");
  EXPECT_EQ(hoistCommonSubexpressions(underBranches), 0);
}

// Bodies of 20000 operations stay fast: tests/errors' long_sum_20k (through
// formac, whose deep recursion needs its 1 GB stack).

}  // namespace
}  // namespace formac
