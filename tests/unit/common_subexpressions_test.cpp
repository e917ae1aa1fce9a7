// Common subexpressions of point bodies (compiler/codegen/CommonSubexpressions):
// what is hoisted into a let, and what must stay where the program put it.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "codegen/CodeGen_C.h"
#include "codegen/CodeGen_CUDA.h"
#include "codegen/CommonSubexpressions.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "sema/Sema.h"

namespace formac {
namespace {

using codegen::bindReadIndices;
using codegen::hoistCommonSubexpressions;

ir::Pipeline pipelineOf(const std::string& text) {
  SourceFile file{"cse.idsl", text};
  Warnings warnings;
  return buildPipeline(parse(lex(file)), "k", warnings);
}

// The body of the stage computed by the pipeline's last statement.
ir::Body lastBody(const std::string& text) { return pipelineOf(text).stages.back().pieces.at(0).body; }

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

// W[cast<int>(W[cast<int>(W[...]) % 3, 1]) % 3, 1] nested `depth` deep.
std::string nestedIndexReads(int depth) {
  std::string e = "X";
  for (int i = 0; i < depth; ++i) e = "W[cast<int>(" + e + ") % 3, 1]";
  return "stencil f(vector#2 float X, vector#2 float W) {\n  return " + e +
         " + X@[0,1];\n}\nparameter M, N;\nvector#2 float x[M,N];\nvector#2 float w[M,N];\nreturn f(x, w);\n";
}

TEST(BindReadIndices, EachCompoundIndexOfAGuardedReadBecomesALetInnermostFirst) {
  ir::Body b = lastBody(nestedIndexReads(3));
  ASSERT_TRUE(b.lets.empty());
  EXPECT_EQ(bindReadIndices(b), 3);
  ASSERT_EQ(b.lets.size(), 3u);
  // Let k indexes the read of let k + 1: each let reads W at most once, at a
  // Local that names an earlier let, and the result reads W once.
  auto reads = [](const ir::Expr& e) { return e.kind == ir::Expr::IndexRead; };
  EXPECT_EQ(count(*b.lets[0].value, reads), 0);
  for (size_t k = 1; k < b.lets.size(); ++k) {
    EXPECT_EQ(count(*b.lets[k].value, reads), 1);
    EXPECT_EQ(count(*b.lets[k].value, [&](const ir::Expr& e) {
                return e.kind == ir::Expr::Local && e.local == static_cast<int>(k) - 1;
              }), 1);
  }
  EXPECT_EQ(count(*b.result, reads), 1);
  // Constant indices (1) stay where they are; a second pass adds nothing.
  EXPECT_EQ(bindReadIndices(b), 0);
}

TEST(BindReadIndices, ExistingLetsKeepTheirOrderAndTheirReaders) {
  ir::Body b = lastBody(R"(stencil f(vector#2 float X, vector#2 int I) {
  a = X@[0,1] + 1;
  b = X[I + 1, I@[1,0] * 2] + a;
  return b * a;
}
parameter M, N;
vector#2 float x[M,N];
vector#2 int i[M,N];
return f(x, i);
)");
  ASSERT_EQ(b.lets.size(), 2u);
  EXPECT_EQ(bindReadIndices(b), 2);
  ASSERT_EQ(b.lets.size(), 4u);
  EXPECT_EQ(b.lets[0].name, "a");
  EXPECT_EQ(b.lets[1].name, "index");
  EXPECT_EQ(b.lets[2].name, "index");
  EXPECT_EQ(b.lets[3].name, "b");
  // b reads a (now let 0) and the two indices; the result reads b and a.
  auto local = [](int n) { return [n](const ir::Expr& e) { return e.kind == ir::Expr::Local && e.local == n; }; };
  EXPECT_EQ(count(*b.lets[3].value, local(0)), 1);
  EXPECT_EQ(count(*b.lets[3].value, local(1)), 1);
  EXPECT_EQ(count(*b.lets[3].value, local(2)), 1);
  EXPECT_EQ(count(*b.result, local(3)), 1);
  EXPECT_EQ(count(*b.result, local(0)), 1);
}

// Without the lets each level printed its index twice: 2^14 copies of X, over
// 600 KB of C.
TEST(BindReadIndices, NestedIndexedReadsGiveCodeLinearInTheirDepth) {
  for (bool fuse : {true, false}) {
    ir::Pipeline p = pipelineOf(nestedIndexReads(14));
    codegen::COptions co;
    co.kernelName = "k";
    co.fuse = fuse;
    EXPECT_LT(codegen::generateC(p, co).source.size(), 200000u) << (fuse ? "fused" : "unfused");
    codegen::CudaOptions cu;
    cu.kernelName = "k";
    cu.fuse = fuse;
    EXPECT_LT(codegen::generateCuda(p, cu).source.size(), 200000u) << (fuse ? "fused" : "unfused");
  }
}

// min and max of two 8- or 16-bit values (promoted to int in the IR) print
// in C as the narrow type's own helper, so that gcc vectorizes them on bytes
// or halfwords; mixed types, int and CUDA keep the int helper.
TEST(NarrowMinMax, CPrintsTheNarrowTypesHelper) {
  ir::Pipeline p = pipelineOf(
      "stencil e(vector#2 int8 X) { return min(min(X@[-1,0], X), X@[1,0]); }\n"
      "stencil d(vector#2 uint16 W, vector#2 int16 S) { return max(W, W@[0,1]) + min(S, S@[1,0]) + max(S, W); }\n"
      "parameter M, N;\nvector#2 int8 img[M,N];\nvector#2 uint16 w[M,N];\nvector#2 int16 s[M,N];\n"
      "return e(img:clamped), d(w:clamped, s:clamped);\n");
  codegen::COptions co;
  co.kernelName = "k";
  std::string c = codegen::generateC(p, co).source;
  EXPECT_NE(c.find("formac_min_uc("), std::string::npos);
  EXPECT_NE(c.find("formac_max_us("), std::string::npos);
  EXPECT_NE(c.find("formac_min_s("), std::string::npos);
  EXPECT_NE(c.find("formac_max_i("), std::string::npos);  // max(S, W): int16 and uint16
  EXPECT_EQ(c.find("formac_min_i("), std::string::npos);
  codegen::CudaOptions cu;
  cu.kernelName = "k";
  std::string g = codegen::generateCuda(p, cu).source;
  EXPECT_EQ(g.find("formac_min_uc"), std::string::npos);
  EXPECT_NE(g.find("formac_min_i("), std::string::npos);
}

}  // namespace
}  // namespace formac
