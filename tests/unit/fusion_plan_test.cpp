// The fusion planner (compiler/passes/FusionPlan): which stages join a group,
// which members the CUDA backend inlines, how tiles shrink to fit, and which
// inputs its kernels stage in shared memory.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "Flat.h"
#include "codegen/CodeGen_C.h"
#include "codegen/CodeGen_CUDA.h"
#include "ir/Edges.h"
#include "lex/Lexer.h"
#include "parse/Modules.h"
#include "parse/Parser.h"
#include "passes/FusionPlan.h"
#include "passes/Target.h"
#include "sema/Sema.h"

namespace formac {
namespace {

ir::Pipeline compileText(const std::string& path, const std::string& text) {
  SourceFile file{path, text};
  SourceFiles imported;  // examples/harris imports stdlib stencils
  Warnings warnings;
  return buildPipeline(parseProgram(file, imported, defaultImportPath()), "k", warnings);
}

ir::Pipeline compile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return compileText(path, text.str());
}

std::string example(const std::string& name) {
  return std::string(FORMAC_SOURCE_DIR) + "/examples/" + name + "/" + name + ".idsl";
}

// How many times `what` occurs in `text` (overlaps counted), both flat().
size_t occurrences(const std::string& code, const std::string& needle) {
  std::string text = flat(code), what = flat(needle);
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The kernels with their source flat() (tests look for token sequences).
codegen::CudaKernels flatKernels(const ir::Pipeline& p, const codegen::CudaOptions& o) {
  codegen::CudaKernels k = codegen::generateCudaKernels(p, o);
  k.source = flat(k.source);
  return k;
}

// "ix ix2" style summary: tiled members, then "|", then inlined members.
std::string members(const ir::Pipeline& p, const passes::FusionGroup& g) {
  std::string tiled, inl;
  for (const auto& m : g.members) {
    std::string& to = m.inlined ? inl : tiled;
    to += (to.empty() ? "" : " ") + p.stages[static_cast<size_t>(m.stage)].origin;
  }
  return tiled + " | " + inl;
}

passes::FusionOptions cudaOptions() {
  passes::FusionOptions o;
  o.preferredTile = {32, 64};
  o.onChipBudget = 227 * 1024;
  o.shrinkTo = 48 * 1024;
  o.inlineCheap = true;
  return o;
}

TEST(FusionPlan, HarrisKeepsGradientsInTilesAndInlinesTheRest) {
  ir::Pipeline p = compile(example("harris"));
  auto groups = passes::planFusion(p, cudaOptions());
  ASSERT_EQ(groups.size(), 1u);
  // Products are pointwise and cheap; each gaussian3x3 is read once per point of the sink.
  EXPECT_EQ(members(p, groups[0]),
            "sobel_x(img:mirror) sobel_y(img:mirror) | product(ix, ix) product(iy, iy) product(ix, iy) "
            "gaussian3x3(ixx:mirror) gaussian3x3(iyy:mirror) gaussian3x3(ixy:mirror)");
  EXPECT_EQ(groups[0].tile, (std::vector<int>{32, 64}));
  // Mirror reads make the halos symmetric; the gradients feed a 3x3 window.
  EXPECT_EQ(groups[0].members[0].haloLo, (std::vector<int>{1, 1}));
  EXPECT_EQ(groups[0].members[0].haloHi, (std::vector<int>{1, 1}));
  EXPECT_EQ(groups[0].onChipBytes(p), 2 * 34 * 66 * 4);
}

TEST(FusionPlan, CannyTilesStagesReadByTwoRoots) {
  ir::Pipeline p = compile(example("canny"));
  auto groups = passes::planFusion(p, cudaOptions());
  ASSERT_EQ(groups.size(), 1u);
  // gx and gy are read by mag (tiled) and by thin (inlined into the sink):
  // inlining them would compute them twice. thin is read once per sink point.
  EXPECT_EQ(members(p, groups[0]),
            "gauss5(img:mirror) sobel_x(smooth:mirror) sobel_y(smooth:mirror) magnitude(gx, gy) | "
            "thin(gx, gy, mag:mirror)");
}

// Canny's Gaussian reads img at 25 offsets: interior blocks copy img to
// shared memory first, over the tiles of gx, gy and mag (written only in the
// next loop), so the kernel needs no more shared memory than its tiles.
// Harris reads img at 8 offsets: through L1, as before.
TEST(FusionPlan, CudaStagesInputsReadAtManyOffsetsOverLaterTiles) {
  codegen::CudaOptions o;
  o.kernelName = "k";
  ir::Pipeline canny = compile(example("canny"));
  codegen::CudaKernels k = flatKernels(canny, o);
  ASSERT_EQ(k.schedule.kernels.size(), 1u);
  EXPECT_EQ(k.schedule.kernels[0].sharedBytes, (36 * 68 + 3 * 34 * 66) * 4);
  EXPECT_NE(k.source.find(flat("/* 40 x 72: img from (t0 - 4), (t1 - 4), staged */\n"
                               "  float* const formac_in_img = reinterpret_cast<float*>(formac_smem + 9792);")),
            std::string::npos);
  // 40 rows of 18 pieces of 16 bytes: thread t copies piece t % 18 of rows
  // t / 18, + 14 and + 28 (252 threads; rows 40 and up do not exist).
  EXPECT_NE(k.source.find(flat("const int formac_cr_img = formac_tid / 18;\n"
                               "    const int formac_cc_img = (formac_tid % 18) * 4;\n"
                               "    if (formac_tid < 252) {\n"
                               "      formac_copy16(formac_in_img + formac_cr_img * 72 + formac_cc_img, img + (((t0 - 4) + "
                               "formac_cr_img) * (N) + ((t1 - 4) + formac_cc_img)));\n"
                               "      formac_copy16(formac_in_img + (formac_cr_img + 14) * 72 + formac_cc_img, img + (((t0 - 4) + "
                               "(formac_cr_img + 14)) * (N) + ((t1 - 4) + formac_cc_img)));\n"
                               "      if (formac_cr_img < 12) {\n        formac_copy16(formac_in_img + (formac_cr_img + 28) * 72 + "
                               "formac_cc_img, img + (((t0 - 4) + (formac_cr_img + 28)) * (N) + ((t1 - 4) + formac_cc_img)));\n"
                               "      }\n    }\n    formac_copy_wait();\n")),
            std::string::npos);
  ir::Pipeline harris = compile(example("harris"));
  EXPECT_EQ(flatKernels(harris, o).source.find("formac_in_img"), std::string::npos);
  // 25 offsets, but at twice the scale: the copy serves q + offset reads only.
  std::string taps;
  for (int i = -2; i <= 2; ++i)
    for (int j = -2; j <= 2; ++j)
      taps += (taps.empty() ? "" : " + ") + std::to_string(i + 3) + " * X@[(" + std::to_string(i) + ",2),(" +
              std::to_string(j) + ",2)]";
  ir::Pipeline scaled = compileText("scaled.idsl", "stencil w(vector#2 float X) { return " + taps +
                                                       "; }\nstencil d(vector#2 float S) { return S@[0,1] * S@[1,0] - "
                                                       "S@[-1,-1] * 2 + S@[0,-1] / 3; }\nparameter M, N;\n"
                                                       "vector#2 float img[M,N];\nreturn d(w(img:mirror):mirror);\n");
  codegen::CudaKernels ks = flatKernels(scaled, o);
  ASSERT_FALSE(ks.schedule.kernels.empty());
  EXPECT_FALSE(ks.schedule.kernels.back().tightBlocks.empty());  // a heavy group, which could stage
  EXPECT_EQ(ks.source.find("formac_in_img"), std::string::npos);
}

// Staged reads times 2^k (0 <= k <= 20) added to or subtracted from a sum
// become one fma each, in a second copy of the staged loop that blocks take
// when no staged value reaches 2^100 (2^1000 for double): 2^k * x is then
// exact, and s + 2^k * x rounds once either way. Other weights, int inputs and
// tiles (not checked) keep the product and the sum.
TEST(FusionPlan, CudaStagedPowerOfTwoTapsBecomeFmasInBoundedBlocks) {
  codegen::CudaOptions o;
  o.kernelName = "k";
  std::string canny = flatKernels(compile(example("canny")), o).source;
  // Each thread checks the pieces it copied.
  EXPECT_NE(canny.find(flat("if (formac_cr_img < 12) {\n m = fmaxf(m, formac_max_abs16(reinterpret_cast<const "
                            "float4*>(formac_in_img)[(formac_cr_img + 28) * 18 + formac_cc_img / 4]));\n }\n      }\n"
                            "      formac_wide = formac_wide || !(m < 1.26765060e30f);\n    }\n"
                            "    if (__syncthreads_or(formac_wide) == 0) {")),
            std::string::npos);
  // The Gaussian's 2s and 4s (11 of its 25 taps: the first term stays a
  // product) in the bounded copy; the product and the sum in the other.
  EXPECT_EQ(occurrences(canny, "__fmaf_rn(2.0f, formac_in_img[") + occurrences(canny, "__fmaf_rn(4.0f, formac_in_img["),
            8u * 11u);
  EXPECT_EQ(occurrences(canny, "__fmul_rn(4.0f, formac_in_img["), 8u * 8u);  // the other copy: 8 points, 8 fours
  EXPECT_NE(canny.find("+ __fmul_rn(4.0f, formac_in_img["), std::string::npos);
  EXPECT_EQ(canny.find("__fmaf_rn(2.0f, tile_"), std::string::npos);

  auto source = [&](const std::string& type, const std::string& body) {
    std::string taps;
    for (int i = -2; i <= 2; ++i)
      for (int j = -2; j <= 1; ++j)
        taps += (taps.empty() ? "" : " + ") + std::to_string(i + 4) + " * X@[" + std::to_string(i) + "," +
                std::to_string(j) + "]";
    return flatKernels(
               compileText("taps.idsl", "stencil w(vector#2 " + type + " X) { return " + taps + body +
                                            "; }\nstencil d(vector#2 " + type + " S) { return S@[0,1] + S@[1,0] * 2; }\n"
                                            "parameter M, N;\nvector#2 " + type + " img[M,N];\nreturn d(w(img:mirror):mirror);\n"),
               o)
        .source;
  };
  std::string f = source("float", " - 8 * X@[-2,-2] + 2 * X@[2,1] * (X + 1) - (X@[1,1] * 16 - X)");
  // s - 8 x, s + 2 x (weight 2 = 2^1; 3, 5, 6 are not powers of two), 16 x - s
  EXPECT_NE(f.find("__fmaf_rn((-8.0f), formac_in_img["), std::string::npos);
  EXPECT_NE(f.find("__fmaf_rn(2.0f, formac_in_img["), std::string::npos);
  EXPECT_NE(f.find("__fmaf_rn(16.0f, formac_in_img[(int)((q0 + 1) - "), std::string::npos);
  EXPECT_EQ(f.find("__fmaf_rn(6.0f"), std::string::npos);
  std::string d = source("double", "");
  EXPECT_EQ(d.find("__fma_rn(4.0f"), std::string::npos);
  EXPECT_NE(d.find("__fma_rn(4.0, formac_in_img["), std::string::npos);
  EXPECT_NE(d.find("formac_wide = formac_wide || !(m < 1.0715086071862673e301);"), std::string::npos);
  std::string i = source("int", "");
  EXPECT_NE(i.find("formac_in_img"), std::string::npos);  // staged, but integer products stay
  EXPECT_EQ(i.find("formac_wide"), std::string::npos);
  // A struct of one float is staged (4 bytes), but its values are not checked,
  // so its reads keep the product and the sum (an fma of 2 * FLT_MAX would not
  // overflow as the program's product does).
  std::string taps;
  for (int r = -2; r <= 2; ++r)
    for (int c = -2; c <= 1; ++c) taps += " + 2 * X@[" + std::to_string(r) + "," + std::to_string(c) + "].v";
  std::string st = flatKernels(
                       compileText("one.idsl", "struct one { float v; }\nstencil w(vector#2 one X) { return X.v" +
                                                   taps + "; }\nstencil d(vector#2 float S) { return S@[0,1] + "
                                                   "S@[1,0] * 2; }\nparameter M, N;\nvector#2 one img[M,N];\n"
                                                   "return d(w(img:mirror):mirror);\n"),
                       o)
                       .source;
  EXPECT_NE(st.find("formac_copy16(formac_in_img"), std::string::npos);
  EXPECT_NE(st.find(" + __fmul_rn(2.0f, formac_in_img["), std::string::npos);
  EXPECT_EQ(st.find("__fmaf_rn(2.0f"), std::string::npos);
  EXPECT_EQ(st.find("formac_wide"), std::string::npos);
}

// In the bounded copy of the staged loop, a sum of staged reads times
// constants is finite (|x| < 2^100 each): dividing it by an odd constant drops
// formac_div_odd_f's guards for an infinite x and a zero's sign
// (formac_div_odd_finite_f; x / -c as -(x / c)). A numerator with anything
// else (a square root, a tile) keeps formac_div_odd_f, as does the plain loop.
TEST(FusionPlan, CudaBoundedSumsDivideByOddConstantsWithoutGuards) {
  codegen::CudaOptions o;
  o.kernelName = "k";
  std::string canny = flatKernels(compile(example("canny")), o).source;
  EXPECT_EQ(occurrences(canny, "= formac_div_odd_finite_f(__fmaf_rn(2.0f, formac_in_img["), 8u);  // the Gaussian / 159
  EXPECT_NE(canny.find("formac_div_odd_f(((((((((((((((((((((((((__fmul_rn(2.0f, formac_in_img["),
            std::string::npos);  // the plain copy
  std::string taps;
  for (int i = -2; i <= 2; ++i)
    for (int j = -2; j <= 1; ++j) taps += " + X@[" + std::to_string(i) + "," + std::to_string(j) + "]";
  std::string f = flatKernels(
                      compileText("div.idsl", "stencil w(vector#2 float X) {\n  a = (2 * X" + taps +
                                                  ") / -7.0f;\n  b = (X@[1,1] + sqrt(X)) / 3;\n  return a + b; }\n"
                                                  "stencil d(vector#2 float S) { return S@[0,1] + S@[1,0] * 2; }\n"
                                                  "parameter M, N;\nvector#2 float img[M,N];\n"
                                                  "return d(w(img:mirror):mirror);\n"),
                      o)
                      .source;
  EXPECT_EQ(occurrences(f, "(-formac_div_odd_finite_f(((((("), 8u);
  EXPECT_EQ(occurrences(f, ", 7.0f, 0.142857149f))"), 8u);
  EXPECT_NE(f.find("formac_div_odd_f(((((((((((((((((((((__fmul_rn(2.0f, formac_in_img["), std::string::npos);
  EXPECT_NE(f.find(", (-7.0f), (-0.142857149f))"), std::string::npos);
  EXPECT_EQ(occurrences(f, "formac_div_odd_finite_f((formac_in_img"), 0u);  // b: a square root
  EXPECT_NE(f.find(" + __fsqrt_rn(formac_in_img["), std::string::npos);
}

// A negated literal is a constant in the IR (sema folds it), so negative
// divisors take the same shortcuts as positive ones: a product by the exact
// reciprocal, or formac_div_odd_f, also for an int literal made float.
TEST(FusionPlan, CudaNegatedLiteralDivisorsAreConstants) {
  codegen::CudaOptions o;
  o.kernelName = "k";
  std::string f = flatKernels(
                      compileText("neg.idsl", "stencil w(vector#2 float X) {\n"
                                              "  return X / -2.0f + X@[0,1] / -7 + X@[1,0] / -(3.0f) + X@[1,1] / -6;\n}\n"
                                              "parameter M, N;\nvector#2 float img[M,N];\nreturn w(img:mirror);\n"),
                      o)
                      .source;
  EXPECT_NE(f.find(", (-0.5f))"), std::string::npos);
  EXPECT_NE(f.find(", (-7.0f), (-0.142857149f))"), std::string::npos);
  EXPECT_NE(f.find(", (-3.0f), (-0.333333343f))"), std::string::npos);
  EXPECT_NE(f.find(", (-6.0f))"), std::string::npos);  // even: __fdiv_rn
  EXPECT_EQ(f.find("formac_neg_i(7)"), std::string::npos);
  EXPECT_EQ(f.find("-(2.0f)"), std::string::npos);
}

// Kernels take the extents in their index type I (int below 2^31 points) and
// an int64 scalar input as long long, fused and not: the extents were once
// retyped by replacing "const long long " in the parameter text, which
// truncated an int64 scalar to int (the GPU e2e matrix found it).
TEST(FusionPlan, CudaKernelsKeepInt64ScalarsLongLong) {
  const std::string text = "stencil f(vector#2 int64 W, int64 k) { return W@[0,1] + W + k; }\n"
                           "parameter M, N;\nvector#2 int64 w[M,N];\nint64 big;\nreturn f(f(w:mirror, big), big);\n";
  for (bool fuse : {true, false}) {
    codegen::CudaOptions o;
    o.kernelName = "k";
    o.fuse = fuse;
    std::string f = flatKernels(compileText("wide.idsl", text), o).source;
    EXPECT_NE(f.find("const long long big, "), std::string::npos) << "fuse " << fuse;
    EXPECT_EQ(f.find("const I big"), std::string::npos) << "fuse " << fuse;
    EXPECT_NE(f.find("const I M, const I N)"), std::string::npos) << "fuse " << fuse;
  }
}

// A block is interior when its tile's row and column lie in one folded range
// per dimension: canny's largest region (smooth, 36 x 68 from t - 2) must lie
// in its exact box [2, M - 3] x [2, N - 3]; harris's gradients (34 x 66 from
// t - 1) in [1, M - 2], as must the products and windows inlined into its sink.
TEST(FusionPlan, CudaInteriorTestIsFoldedPerDimension) {
  codegen::CudaOptions o;
  o.kernelName = "k";
  std::string canny = flatKernels(compile(example("canny")), o).source;
  EXPECT_NE(canny.find(flat("const bool formac_interior =\n      t0 >= (I)(4) && t0 <= (I)((M) - 36) &&\n"
                       "      t1 >= (I)(4) && t1 <= (I)((N) - 68);")),
            std::string::npos);
  std::string harris = flatKernels(compile(example("harris")), o).source;
  EXPECT_NE(harris.find(flat("const bool formac_interior =\n      t0 >= (I)(2) && t0 <= (I)((M) - 34) &&\n"
                        "      t1 >= (I)(2) && t1 <= (I)((N) - 66);")),
            std::string::npos);
}

// Light groups are computed in one pass (memory-bound), heavy ones swept.
TEST(FusionPlan, OnePassForLightGroupsOnly) {
  ir::Pipeline blur = compile(example("blur"));
  auto groups = passes::planFusion(blur, cudaOptions());
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(groups[0].fused());
  EXPECT_TRUE(groups[0].onePass);  // 7 + 7 operations per point
  for (const char* heavy : {"harris", "canny"}) {
    ir::Pipeline p = compile(example(heavy));
    for (const auto& g : passes::planFusion(p, cudaOptions())) EXPECT_FALSE(g.onePass) << heavy;
  }
}

TEST(FusionPlan, PointOperationsCountReadsOperationsAndCalls) {
  ir::Pipeline p = compile(example("blur"));
  // blurx: (X@[-1,0] + X + X@[1,0]) / 3.0: three reads, two additions, the
  // sum's promotion to double and a division
  EXPECT_EQ(passes::pointOperations(p.stages[1].pieces[0]), 7);
}

TEST(FusionPlan, NothingInlinedWithoutTheOption) {
  ir::Pipeline p = compile(example("harris"));
  passes::FusionOptions o = cudaOptions();
  o.inlineCheap = false;
  auto groups = passes::planFusion(p, o);
  ASSERT_EQ(groups.size(), 1u);
  for (const auto& m : groups[0].members) EXPECT_FALSE(m.inlined);
  // Eight tiles at 32x64 exceed 48 KB: the tile is halved, rows first.
  EXPECT_EQ(groups[0].tile, (std::vector<int>{16, 64}));
  EXPECT_LE(groups[0].onChipBytes(p), 48 * 1024);
}

TEST(FusionPlan, ShrinkingStopsAtTheHalo) {
  ir::Pipeline p = compile(example("canny"));
  passes::FusionOptions o = cudaOptions();
  o.shrinkTo = 1;  // nothing fits: halve as far as the halos allow
  o.keepHalfTile = false;
  auto groups = passes::planFusion(p, o);
  ASSERT_EQ(groups.size(), 1u);
  for (size_t d = 0; d < 2; ++d)
    for (const auto& m : groups[0].members) {
      EXPECT_GT(groups[0].tile[d], m.haloLo[d]);
      EXPECT_GT(groups[0].tile[d], m.haloHi[d]);
    }
  EXPECT_EQ(groups[0].tile, (std::vector<int>{4, 4}));
}

// The C target fuses chains of every rank (row bands in rank 2, planes in 3
// and 4, chunks in 1); a target fusing rank 2 only says why it leaves one.
TEST(FusionPlan, CFusesEveryRankOthersSayWhichRanksTheyFuse) {
  const std::string chains[] = {
      "stencil f(vector#1 float X) { return X@[-1] + X@[1]; }\nparameter A;\nvector#1 float v[A];\n"
      "a = f(v:mirror);\nb = f(a:clamped);\nreturn f(b);\n",
      "stencil f(vector#3 float X) { return X@[-1,0,0] + X@[0,1,-1]; }\nparameter A, B, C;\n"
      "vector#3 float v[A,B,C];\na = f(v:mirror);\nb = f(a:clamped);\nreturn f(b);\n",
      "stencil f(vector#4 float X) { return X@[-1,0,0,1] + X@[0,1,-1,0]; }\nparameter A, B, C, D;\n"
      "vector#4 float v[A,B,C,D];\na = f(v:mirror);\nb = f(a:clamped);\nreturn f(b);\n"};
  const std::vector<std::vector<int>> tiles = {{512}, {64, 64, 512}, {64, 64, 64, 512}};
  for (size_t i = 0; i < 3; ++i) {
    ir::Pipeline p = compileText("chain.idsl", chains[i]);
    auto groups = passes::planFusion(p, passes::Target::c().fusionOptions());
    ASSERT_EQ(groups.size(), 1u) << chains[i];
    EXPECT_EQ(members(p, groups[0]), "f(v:mirror) f(a:clamped) | ") << chains[i];
    EXPECT_EQ(groups[0].tile, tiles[i]);
    std::vector<std::string> why;
    groups = passes::planFusion(p, cudaOptions(), &why);
    EXPECT_EQ(groups.size(), 3u);
    EXPECT_EQ(why[2], "rank " + std::to_string(i ? i + 2 : 1) + ": fused code is generated for rank 2 only");
  }
  passes::FusionOptions o = cudaOptions();
  o.fusedRanks = {2, 3};
  std::vector<std::string> why;
  passes::planFusion(compileText("chain.idsl", chains[0]), o, &why);
  EXPECT_EQ(why[2], "rank 1: fused code is generated for ranks 2, 3 only");
}

// A chain whose every read wraps is one periodic group for CUDA in every rank
// (its regions reach past the image), not in C; a stage read without wrap
// stays out, and says why.
TEST(FusionPlan, CudaFusesChainsThatWrapEverywhereAsPeriodicGroups) {
  const std::string rank1 =
      "stencil f(vector#1 float X) { return X@[-1] + X@[2]; }\nstencil g(vector#1 float X) { return X * 2.0f; }\n"
      "parameter A;\nvector#1 float v[A];\na = f(v:wrap);\nb = g(a:wrap);\nc = f(b:wrap);\nd = f(v:clamped);\n"
      "return f(c:wrap), f(d:wrap);\n";
  ir::Pipeline p = compileText("ring.idsl", rank1);
  std::vector<std::string> why;
  auto groups = passes::planFusion(p, passes::Target::cuda().fusionOptions(), &why);
  const passes::FusionGroup* chain = nullptr;
  for (const auto& g : groups)
    if (g.fused()) chain = &g;
  ASSERT_NE(chain, nullptr);
  EXPECT_TRUE(chain->periodic);
  EXPECT_EQ(members(p, *chain), "f(v:wrap) f(b:wrap) | g(a:wrap)");
  EXPECT_EQ(why[4], "not fused into f(d:wrap): the group is periodic (every read wraps) and it reads without wrap");
  for (const auto& g : passes::planFusion(p, passes::Target::c().fusionOptions())) EXPECT_FALSE(g.periodic);

  ir::Pipeline torus = compileText("torus.idsl",
                                   "stencil f(vector#2 float X) { return X@[-1,0] + X@[0,2]; }\nparameter M, N;\n"
                                   "vector#2 float v[M,N];\na = f(v:wrap);\nreturn f(a:wrap);\n");
  groups = passes::planFusion(torus, passes::Target::cuda().fusionOptions());
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(groups[0].periodic);
  EXPECT_EQ(groups[0].tile, std::vector<int>({32, 64}));
}

// Issue 25's readability of the fused C: only the helpers the code calls,
// check-free bounds folded, row functions taking only the sizes they use.
TEST(FusionPlan, FusedCCarriesOnlyWhatItUses) {
  codegen::COptions o;
  o.kernelName = "harris";
  std::string c = flat(codegen::generateC(compile(example("harris")), o).source);
  EXPECT_NE(c.find("FORMAC_HELPER long long formac_mirror("), std::string::npos);
  EXPECT_EQ(c.find("formac_idiv"), std::string::npos);   // harris divides no integers
  EXPECT_EQ(c.find("formac_wrap("), std::string::npos);  // nor reads with wrap
  EXPECT_NE(c.find("const long long fast_lo0 = 1;"), std::string::npos);
  EXPECT_EQ(c.find("formac_maxll(lo0"), std::string::npos);
  EXPECT_EQ(c.find("  (void)N;\n}"), std::string::npos);  // a row function's last line
}

// The reads of each stage's body, in order, as readsOwnPoint sees them.
std::vector<bool> ownPointReads(const ir::Pipeline& p, const std::string& origin) {
  std::vector<bool> out;
  for (const auto& s : p.stages)
    if (s.origin == origin)
      ir::forEachExpr(s.pieces[0].body, [&](const ir::Expr& e) {
        if (e.kind == ir::Expr::ImageRead) out.push_back(passes::readsOwnPoint(e));
      });
  return out;
}

TEST(FusionPlan, ReadsOwnPointOnlyAtOffsetZeroAndScaleOne) {
  SourceFile file{"own.idsl", R"(stencil mix(vector#2 float A, vector#2 float B) { return A * 3 - B@[0,1]; }
stencil half(vector#2 float A) { return A@[(0,2),(0,1)]; }
parameter M, N;
vector#2 float x[M,N];
vector#2 float y[M,N];
m = mix(x, y);
return half(m);
)"};
  Warnings warnings;
  ir::Pipeline p = buildPipeline(parse(lex(file)), "k", warnings);
  EXPECT_EQ(ownPointReads(p, "mix(x, y)"), (std::vector<bool>{true, false}));
  EXPECT_EQ(ownPointReads(p, "half(m)"), (std::vector<bool>{false}));
}

// A reduction is a group of its own; its CUDA combines on the device (one
// kernel: a warp per chunk, then its last block combines the partials level
// by level) and the value reaches the stencil that reads it without a copy
// to the host.
TEST(FusionPlan, CudaReductionsStayOnTheDevice) {
  ir::Pipeline p = compileText("red.idsl", R"(stencil scale(vector#2 float X, float m) { return X / m; }
parameter M, N;
vector#2 float img[M,N];
m = max(img);
rows = sum(img, 1);
return scale(img:mirror, m), rows;
)");
  codegen::CudaOptions o;
  o.kernelName = "k";
  std::string raw = codegen::generateCuda(p, o).source, cu = flat(raw);
  EXPECT_EQ(occurrences(cu, "__global__ void __launch_bounds__(256, 4) k_stage1_m_chunks("), 1u);
  EXPECT_EQ(occurrences(cu, "k_stage1_m_chunks<int><<<"), 1u);
  EXPECT_EQ(occurrences(cu, "formac_last = atomicAdd(formac_ticket, 1u) == gridDim.x - 1;"), 1u);
  // max(img) reads its image at each point: 16 bytes a lane.
  EXPECT_EQ(occurrences(cu, "__ldg((const uint4*)(img + formac_at + formac_b * 128))"), 1u);
  EXPECT_EQ(occurrences(cu, "k_stage2_rows_2_combine<<<"), 1u);
  EXPECT_GE(occurrences(cu, "__shfl_down_sync(0xffffffffu, formac_acc, formac_s)"), 2u);
  size_t begin = raw.find("static int k_enqueue("), end = raw.find("\n}\n", begin);
  ASSERT_NE(begin, std::string::npos);
  std::string enqueue = flat(raw.substr(begin, end - begin));
  EXPECT_EQ(enqueue.find("DeviceToHost"), std::string::npos) << enqueue;
  EXPECT_EQ(enqueue.find("Synchronize"), std::string::npos) << enqueue;
  EXPECT_EQ(enqueue.find("_level"), std::string::npos) << enqueue;
  EXPECT_LT(enqueue.find("k_stage1_m_chunks<int><<<"), enqueue.find("k_stage3_"));
}

}  // namespace
}  // namespace formac
