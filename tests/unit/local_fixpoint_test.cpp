// passes/LocalFixpoint: which do loops are monotone propagations (their
// rounds may settle to a local fixed point) and which are not, with the
// reason. The backends' results are checked against the evaluator by the
// e2e matrix (tests/e2e/Loops.cpp, the settle_* programs).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "frontend/Frontend.h"
#include "passes/LocalFixpoint.h"

namespace formac {
namespace {

passes::LocalFixpoint analyse(const std::string& text) {
  SourceFile f{"test.idsl", text};
  Warnings w;
  SourceFiles imported;
  ir::Pipeline p = checkedPipeline(f, "test", w, imported, {});
  for (const auto& s : p.stages)
    if (s.kind == ir::Stage::LoopResult && s.loopIndex == 0) return passes::analyseLocalFixpoint(p, s);
  ADD_FAILURE() << "no loop";
  return {};
}

// A loop over s of type T: s<0> = INIT, s<i> = f(s<i-1>:MODE, img), stopping
// when nothing changes (unless COND is given).
std::string loop(const std::string& f, const std::string& init = "cast<int8>(X > 200 ? 2 : (X > 100 ? 1 : 0))",
                 const std::string& mode = "constant(0)", const std::string& cond = "any(c<i>)") {
  return "stencil init(vector#2 int8 X) { return " + init + "; }\n"
         "stencil f(vector#2 int8 S, vector#2 int8 X, int8 t) { return cast<int8>(" + f + "); }\n"
         "stencil differs(vector#2 int8 A, vector#2 int8 B) { return A != B; }\n"
         "parameter M, N, R;\nvector#2 int8 img[M,N];\nint8 t;\n"
         "s<0> = init(img);\n"
         "do i = 1..R\n  s<i> = f(s<i-1>:" + mode + ", img, t);\n  c<i> = differs(s<i>, s<i-1>);\nwhile (" + cond +
         ");\nreturn s<i>;\n";
}

const char* const kHysteresis =
    "S + (S == 1) * (max(max(S@[-1,0], S@[1,0]), max(S@[0,-1], S@[0,1])) == 2)";

TEST(LocalFixpoint, HysteresisIsProvedByTryingItsValues) {
  auto lf = analyse(loop(kHysteresis));
  EXPECT_TRUE(lf.ok) << lf.why;
  EXPECT_NE(lf.why.find("{0, 1, 2}"), std::string::npos) << lf.why;
  EXPECT_EQ(lf.radius, 1);
  EXPECT_EQ(lf.taps.size(), 5u);
  EXPECT_EQ(lf.mode, BoundaryMode::Constant);
  // 0 and 2 stay whatever the neighbours hold: only a weak edge (1) changes.
  EXPECT_EQ(lf.stable, (std::vector<long long>{0, 2}));
}

TEST(LocalFixpoint, ReconstructionIsProvedByPolarity) {
  auto lf = analyse(loop("min(max(max(S@[-1,0], S@[1,0]), max(S, S@[0,2])), X)", "cast<int8>(0)", "clamped"));
  EXPECT_TRUE(lf.ok) << lf.why;
  EXPECT_NE(lf.why.find("polarity"), std::string::npos) << lf.why;
  EXPECT_TRUE(lf.stable.empty());  // found by enumeration only
  EXPECT_EQ(lf.radius, 2);
  EXPECT_EQ(lf.mode, BoundaryMode::Clamped);
  // A scalar and a comparison of unchanging values keep the order too.
  EXPECT_TRUE(analyse(loop("max(S, (X > t) * S@[0,1])", "X", "mirror")).ok);
}

TEST(LocalFixpoint, RefusesWhatItCannotProve) {
  auto why = [](const std::string& program) {
    auto lf = analyse(program);
    EXPECT_FALSE(lf.ok) << program;
    return lf.why;
  };
  // Not monotone: 255 - S reverses the order, and 1 -> 2 -> 0 is not monotone.
  EXPECT_NE(why(loop("255 - S@[0,1]", "X")).find("cannot show"), std::string::npos);
  EXPECT_NE(why(loop("S == 1 ? 2 : 0")).find("not monotone"), std::string::npos);
  // S + 1 wraps in int8: its values are not ordered.
  EXPECT_NE(why(loop("S@[0,1] + 1", "X")).find("cannot show"), std::string::npos);
  // A body that does not read X stops after round 2 anyway (progfuzz seed 5010).
  EXPECT_NE(why(loop("X + t")).find("does not read"), std::string::npos);
  // A wrapped read reaches the other side of the image.
  EXPECT_NE(why(loop("max(S, S@[0,1])", "X", "wrap")).find("constant offsets"), std::string::npos);
  // The condition must be the change test.
  EXPECT_NE(why(loop("max(S, S@[0,1])", "X", "clamped", "any(s<i>)")).find("condition"), std::string::npos);
  EXPECT_NE(why(loop("max(S, S@[0,1])", "X", "clamped", "all(c<i>)")).find("condition"), std::string::npos);
}

// A body stage that X<i> reads at the point is inlined into the step; one
// read at an offset is not.
std::string withHelper(const std::string& read) {
  return "stencil near(vector#2 int S) { return max(S@[-1,0], S@[1,0]); }\n"
         "stencil f(vector#2 int S, vector#2 int H) { return max(S, " + read + "); }\n"
         "stencil differs(vector#2 int A, vector#2 int B) { return A != B; }\n"
         "parameter M, N;\nvector#2 int img[M,N];\ns<0> = img;\n"
         "do i = 1..10\n  h<i> = near(s<i-1>:clamped);\n  s<i> = f(s<i-1>, h<i>:clamped);\n"
         "  c<i> = differs(s<i>, s<i-1>);\nwhile (any(c<i>));\nreturn s<i>;\n";
}

TEST(LocalFixpoint, InlinesTheStagesOfTheStep) {
  auto lf = analyse(withHelper("H"));
  EXPECT_TRUE(lf.ok) << lf.why;
  EXPECT_EQ(lf.taps.size(), 3u);  // S itself, and near's two through the inlined stage
  lf = analyse(withHelper("H@[0,1]"));
  EXPECT_FALSE(lf.ok);
  EXPECT_NE(lf.why.find("at the point"), std::string::npos) << lf.why;
}

TEST(LocalFixpoint, RefusesTwoCarriedImages) {
  auto lf = analyse(
      "stencil f(vector#2 int S) { return max(S, S@[0,1]); }\n"
      "stencil inc(vector#2 int C) { return C + 1; }\n"
      "stencil differs(vector#2 int A, vector#2 int B) { return A != B; }\n"
      "parameter M, N;\nvector#2 int img[M,N];\n"
      "s<0> = img;\nn<0> = img;\n"
      "do i = 1..10\n  s<i> = f(s<i-1>:clamped);\n  n<i> = inc(n<i-1>);\n  c<i> = differs(s<i>, s<i-1>);\n"
      "while (any(c<i>));\nreturn s<i>;\n");
  EXPECT_FALSE(lf.ok);
  EXPECT_NE(lf.why.find("several"), std::string::npos) << lf.why;
}

}  // namespace
}  // namespace formac
