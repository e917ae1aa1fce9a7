// CUDA fusion in every rank (issue 26): the planner fuses rank 1, 3 and 4
// chains with tiles chosen from the members' reach (passes/TileShape.h),
// tiles lone rank-2 stencils that read neighbours, caps a group's operations
// (nvcc's time), and the rank-N kernel (codegen/FusedKernelND_CUDA.cpp) takes
// the sink's tiles in turn. The programs are tests/gpu/rankfusion/*.idsl,
// which tests/gpu/rankfusion.sh runs on the GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "Flat.h"
#include "codegen/CodeGen_CUDA.h"
#include "codegen/CudaLaunches.h"
#include "codegen/FusedKernel_CUDA.h"
#include "codegen/StageKernel_CUDA.h"
#include "parse/Modules.h"
#include "parse/Parser.h"
#include "passes/Target.h"
#include "passes/TileShape.h"
#include "sema/Sema.h"

namespace formac {
namespace {

ir::Pipeline compileText(const std::string& text) {
  SourceFile file{"test.idsl", text};
  SourceFiles imported;
  Warnings warnings;
  return buildPipeline(parseProgram(file, imported, defaultImportPath()), "k", warnings);
}

ir::Pipeline program(const std::string& name) {
  std::ifstream in(std::string(FORMAC_SOURCE_DIR) + "/tests/gpu/rankfusion/" + name + ".idsl");
  std::stringstream text;
  text << in.rdbuf();
  return compileText(text.str());
}

std::vector<passes::FusionGroup> cudaPlan(const ir::Pipeline& p, std::vector<std::string>* why = nullptr) {
  return passes::planFusion(p, passes::Target::cuda().fusionOptions(), why);
}

// Whether one of the planner's reasons (why a stage is in memory) contains `text`.
bool says(const std::vector<std::string>& why, const std::string& text) {
  for (const auto& w : why)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

// `steps` applications of stencil `name` (defined in `stencil`) to a float
// image, each read with the clamped border: u<t> = name(u<t-1>:clamped).
std::string chain(const std::string& stencil, const std::string& name, int steps) {
  std::string k = std::to_string(steps);
  return stencil + "parameter M, N;\nvector#2 float img[M,N];\nu<0> = img;\nfor t = 1.." + k + "\n  u<t> = " + name +
         "(u<t-1>:clamped);\nendfor\nreturn u<" + k + ">;\n";
}

std::string cudaKernels(const ir::Pipeline& p) {
  codegen::CudaOptions o;
  o.kernelName = "k";
  return flat(codegen::generateCudaKernels(p, o).source);
}

// Four 7-point steps: one group of three tiled members. The tile that
// computes the fewest points per point within 48 KB is 8 x 8 x 16: regions of
// 10x10x18, 12x12x20 and 14x14x22 (36 KB), 9.8 points per point of the sink
// (4 x 16 x 16 would compute 10.8, 8 x 8 x 32 needs 62 KB).
TEST(RankFusion, Heat3dFusesWithTheTileOfItsReach) {
  ir::Pipeline p = program("heat3d");
  auto groups = cudaPlan(p);
  ASSERT_EQ(groups.size(), 1u);
  const auto& g = groups[0];
  ASSERT_EQ(g.members.size(), 3u);
  for (const auto& m : g.members) EXPECT_FALSE(m.inlined);
  EXPECT_EQ(g.tile, (std::vector<int>{8, 8, 16}));
  EXPECT_EQ(g.onChipBytes(p), 4 * (10 * 10 * 18 + 12 * 12 * 20 + 14 * 14 * 22));
  EXPECT_EQ(codegen::fusedSharedBytes(p, g), g.onChipBytes(p));  // every tile a multiple of 16 bytes
  EXPECT_EQ(g.members[0].haloLo, (std::vector<int>{3, 3, 3}));
}

// Rank 1: the five stages in one group (the pointwise gain inlined), the
// longest tile whose regions fit 48 KB; rank 4: the three stages of chain4d.
TEST(RankFusion, Rank1And4ChainsFuse) {
  ir::Pipeline p1 = program("chain1d");
  auto g1 = cudaPlan(p1);
  ASSERT_EQ(g1.size(), 1u);
  ASSERT_EQ(g1[0].members.size(), 4u);
  EXPECT_TRUE(g1[0].members[2].inlined);  // gain: X * 1.5f - 0.25f
  ASSERT_EQ(g1[0].tile.size(), 1u);
  EXPECT_EQ(g1[0].tile[0], 2048);
  EXPECT_LE(g1[0].onChipBytes(p1), passes::kCudaDefaultSharedBytes);
  ir::Pipeline p4 = program("chain4d");
  auto g4 = cudaPlan(p4);
  ASSERT_EQ(g4.size(), 1u);
  EXPECT_EQ(g4[0].members.size(), 2u);
  ASSERT_EQ(g4[0].tile.size(), 4u);
  for (size_t d = 0; d < 4; ++d) EXPECT_GT(g4[0].tile[d], g4[0].members[0].haloHi[d]);
}

// The C target fuses the 3-D chain too (FusedTiles_C slides planes down bands).
TEST(RankFusion, TheCTargetFusesRank3Too) {
  ir::Pipeline p = program("heat3d");
  auto groups = passes::planFusion(p, passes::Target::c().fusionOptions());
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].members.size(), 3u);
}

// A chain whose halos grow past what a tile can carry is split: no tile keeps
// 7 members' recomputation (halos of 1 to 7 along every dimension) within
// kMaxRecompute points per point needed.
TEST(RankFusion, DeepChainsSplitWhereRecomputationGrows) {
  std::string text = "stencil s(vector#3 float U) { return (U@[-1,-1,-1] + U@[1,1,1]) * 0.5f; }\n"
                     "parameter L, M, N;\nvector#3 float img[L,M,N];\na0 = s(img:clamped);\n";
  for (int i = 1; i < 8; ++i) text += "a" + std::to_string(i) + " = s(a" + std::to_string(i - 1) + ":clamped);\n";
  text += "return a7;\n";
  ir::Pipeline p = compileText(text);
  std::vector<std::string> why;
  auto groups = cudaPlan(p, &why);
  EXPECT_GT(groups.size(), 1u);
  EXPECT_TRUE(says(why, "points per point the group needs (its halos)"));
  for (const auto& g : groups) {
    if (g.fused()) {
      EXPECT_FALSE(passes::tileFromReach(p, g, 48 * 1024, 227 * 1024).empty());
    }
  }
}

// A lone 3x3 stencil is tiled (check-free interior blocks, several points a
// thread); a pointwise one is not, nor on the C target. Lone stencils of
// ranks 1, 3 and 4 are tiled with the tile of their reach.
TEST(RankFusion, LoneStencilsThatReadNeighboursAreTiled) {
  ir::Pipeline grow = program("grow8");
  auto groups = cudaPlan(grow);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(groups[0].tiledAlone);
  EXPECT_TRUE(groups[0].tiledKernel());
  EXPECT_FALSE(groups[0].onePass);  // 7 max calls: heavy, swept (the 4 x 2 points of a thread share their taps)
  EXPECT_FALSE(passes::planFusion(grow, passes::Target::c().fusionOptions())[0].tiledAlone);
  std::string kernels = cudaKernels(grow);
  EXPECT_NE(kernels.find("__global__ void __launch_bounds__(256, formac_blocks) k_fused1_"), std::string::npos);
  EXPECT_NE(kernels.find("const bool formac_interior ="), std::string::npos);
  ir::Pipeline pointwise = compileText(
      "stencil twice(vector#2 float X) { return X * 2.0f; }\nparameter M, N;\nvector#2 float img[M,N];\n"
      "return twice(img);\n");
  EXPECT_FALSE(cudaPlan(pointwise)[0].tiledAlone);
  ir::Pipeline rank1 = compileText(
      "stencil s(vector#1 float X) { return X@[-1] + X@[1]; }\nparameter N;\nvector#1 float img[N];\n"
      "return s(img:clamped);\n");
  auto one = cudaPlan(rank1);
  EXPECT_TRUE(one[0].tiledAlone);
  EXPECT_EQ(one[0].tile.size(), 1u);
  EXPECT_NE(cudaKernels(rank1).find("k_fused1_"), std::string::npos);
  ir::Pipeline rank3 = compileText(
      "stencil s(vector#3 float X) { return X@[-1,0,0] + X@[0,1,0] + X@[0,0,-1]; }\nparameter D, M, N;\n"
      "vector#3 float img[D,M,N];\nreturn s(img:mirror);\n");
  auto three = cudaPlan(rank3);
  EXPECT_TRUE(three[0].tiledAlone);
  EXPECT_FALSE(three[0].fused());
  EXPECT_EQ(three[0].tile.size(), 3u);
  EXPECT_FALSE(passes::planFusion(rank3, passes::Target::c().fusionOptions())[0].tiledAlone);
}

// 20 Perona-Malik steps: every step fused, groups of at most
// kCudaMaxGroupOperations operations a point; those above
// kCudaCompactOperations, or with kCudaCompactCostly divisions and math calls,
// get compact kernels (nvcc's time), canny's and harris's do not. A chain of
// heavy steps without divisions stops at the operation cap.
TEST(RankFusion, GroupsStopAtTheOperationCap) {
  ir::Pipeline p = program("perona_malik");
  auto groups = cudaPlan(p);
  EXPECT_GT(groups.size(), 2u);
  for (const auto& g : groups) {
    int operations = passes::pointOperations(p.stages[static_cast<size_t>(g.sink)].pieces[0]);
    int costly = passes::costlyOperations(p.stages[static_cast<size_t>(g.sink)].pieces[0]);
    for (const auto& m : g.members) {
      operations += passes::pointOperations(p.stages[static_cast<size_t>(m.stage)].pieces[0]);
      costly += passes::costlyOperations(p.stages[static_cast<size_t>(m.stage)].pieces[0]);
    }
    EXPECT_LE(operations, passes::kCudaMaxGroupOperations);
    EXPECT_TRUE(g.fused());
    EXPECT_EQ(g.compact, operations > passes::kCudaCompactOperations || costly >= passes::kCudaCompactCostly);
  }
  // Compact kernels: one column a thread, border blocks point by point, no
  // forms for fewer registers.
  for (const auto& g : groups) EXPECT_EQ(codegen::cudaHasTightForm(g), !g.compact);
  std::string k = cudaKernels(p);
  EXPECT_NE(k.find(flat("int formac_ra;\n int formac_rb;\n int formac_ca;\n int formac_cb;\n formac_ra = 32;\n "
                        "formac_rb = 31;\n formac_ca = 0;\n formac_cb = 63;\n")),
            std::string::npos);
  for (const char* heavy : {"canny", "harris"}) {
    std::ifstream in(std::string(FORMAC_SOURCE_DIR) + "/bench/gpu/" + heavy + ".idsl");
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& g : cudaPlan(compileText(text.str()))) EXPECT_FALSE(g.compact) << heavy;
  }
  std::string poly = "stencil q(vector#2 float U) {\n  a = U@[-1,0] - U;\n  b = U@[1,0] - U;\n  c = U@[0,1] - U;\n"
                     "  d = U@[0,-1] - U;\n  s = a * a + b * b + c * c + d * d;\n"
                     "  t = s * s * 0.5f + s * a * b - c * d * s + a * b * c * d;\n"
                     "  v = t * t * 0.25f + t * s * 0.125f - a * t + b * t - c * t + d * t;\n"
                     "  w = v * v * 0.5f + v * t - s * v + a * b * v - c * d * v + a * c * v;\n"
                     "  return U + 0.001f * (w * w + w * v + v * t + t * s + a * b * c * d * w);\n}\n";
  std::vector<std::string> why;
  auto capped = cudaPlan(compileText(chain(poly, "q", 12)), &why);
  EXPECT_GT(capped.size(), 2u);
  EXPECT_TRUE(says(why, "that keep its kernel quick to compile"));
}

// A 32-stage chain of 3-tap stages: a group stops growing where its tiles
// would shrink under half the preferred tile (16 x 16 tiles recomputed the
// halos of 19 stages: 2.2x the time of groups of 8 on the H100).
TEST(RankFusion, GroupsKeepHalfThePreferredTile) {
  std::string text =
      "stencil sv(vector#2 float X) { return 0.25f * X@[-1,0] + 0.5f * X + 0.25f * X@[1,0]; }\n"
      "stencil sh(vector#2 float X) { return 0.25f * X@[0,-1] + 0.5f * X + 0.25f * X@[0,1]; }\n"
      "parameter M, N;\nvector#2 float img[M,N];\nh<0> = img;\nfor t = 1..16\n"
      "  v<t> = sv(h<t-1>:mirror);\n  h<t> = sh(v<t>:mirror);\nendfor\nreturn h<16>;\n";
  std::vector<std::string> why;
  auto groups = cudaPlan(compileText(text), &why);
  EXPECT_GE(groups.size(), 4u);
  for (const auto& g : groups) EXPECT_GE(g.tile[0] * g.tile[1], 32 * 64 / 2);
  EXPECT_TRUE(says(why, "under half of [32, 64]"));
}

// Perona-Malik steps (4 divisions a point each): a group stops where its
// members' halos would compute a division a point again (a 32 x 64 tile: one
// member, halo 1, computes 1.09 times its points; two, 1.19 and 1.09: 1.16
// divisions), so groups of 2 steps on full tiles, compact for their
// divisions (H100: 6.82 -> 4.37 ms for 20 steps). A light chain (divisions
// nowhere) keeps its deep groups.
TEST(RankFusion, DivisionHeavyChainsStayShallow) {
  std::string text =
      "stencil d(vector#2 float U) {\n  n = U@[-1,0] - U;\n  s = U@[1,0] - U;\n  e = U@[0,1] - U;\n"
      "  w = U@[0,-1] - U;\n  return U + 0.2f * (n / (1.0f + n * n) + s / (1.0f + s * s) + e / (1.0f + e * e) + "
      "w / (1.0f + w * w));\n}\n";
  std::vector<std::string> why;
  auto groups = cudaPlan(compileText(chain(text, "d", 8)), &why);
  ASSERT_EQ(groups.size(), 4u);
  for (const auto& g : groups) {
    EXPECT_EQ(g.members.size(), 1u);
    EXPECT_EQ(g.tile, (std::vector<int>{32, 64}));
    EXPECT_TRUE(g.compact);
  }
  EXPECT_TRUE(says(why, "divisions and math calls a point again"));
  std::string light = text;
  for (const char* from : {"n / (1.0f + n * n)", "s / (1.0f + s * s)", "e / (1.0f + e * e)", "w / (1.0f + w * w)"})
    light.replace(light.find(from), std::string(from).size(), std::string(from).substr(0, 1));
  EXPECT_LT(cudaPlan(compileText(chain(light, "d", 8))).size(), 4u);
}

// The rank-N kernel: blocks take the tiles in turn, the tile's origin from
// the block's tile number, interior tiles check-free, regions row-major.
TEST(RankFusion, RankNKernelsTakeTheTilesInTurn) {
  std::string k = cudaKernels(program("heat3d"));
  for (const char* text : {
           "const long long formac_tiles = (long long)1 * formac_n0 * formac_n1 * formac_n2;",
           "for (long long formac_b = blockIdx.x; formac_b < formac_tiles; formac_b += gridDim.x) {",
           "const I t2 = (I)(formac_rest % formac_n2) * 16;",
           "/* 14 x 14 x 22 */ float* const tile_h0 = reinterpret_cast<float*>(formac_smem + 0);",
           "for (int i = formac_tid; i < 4312; i += 256) {",
           "const I q0 = (t0 - 3) + ((i / 22) / 14);",
           "tile_h0[i] = v;",
           "h3[(((q0) * (M) + (q1)) * (N) + (q2))] = v;"})
    EXPECT_NE(k.find(flat(text)), std::string::npos) << text;
}

// The four parity pieces of an up-sampled image are one kernel over the
// lattice (StageKernel_CUDA.h: neighbouring stores of a warp fill each
// sector), launched once over the union of the pieces' boxes; pieces that
// are not residues of one lattice keep a kernel each.
TEST(RankFusion, LatticePiecesAreOneKernel) {
  ir::Pipeline up = compileText(
      "stencil half(vector#2 float X) { return 0.5f * X; }\n"
      "vector expand(vector#2 float C) {\n"
      "  return ( @[(0,2),(0,2)] = C; @[(1,2),(0,2)] = half(C); @[(0,2),(1,2)] = half(C);\n"
      "           @[(1,2),(1,2)] = C; );\n}\n"
      "parameter M, N;\nvector#2 float img[M,N];\nreturn expand(img);\n");
  const ir::Stage& composed = up.stages[up.outputs[0]];
  ASSERT_EQ(composed.pieces.size(), 4u);
  EXPECT_TRUE(codegen::latticeComposite(composed));
  std::string kernels = cudaKernels(up);
  EXPECT_NE(kernels.find("/* The lattice's box: the union of the pieces'"), std::string::npos);
  EXPECT_NE(kernels.find("{ /* piece 3 */"), std::string::npos);
  EXPECT_NE(kernels.find("_p0("), std::string::npos);
  EXPECT_EQ(kernels.find("_p1("), std::string::npos);  // no kernel of piece 1
  // A placement at an offset that is not a residue of its step: a kernel a piece.
  ir::Pipeline shifted = compileText(
      "vector place(vector#2 float C) {\n"
      "  return ( @[(0,2),(0,1)] = C; @[(3,2),(0,1)] = C; );\n}\n"
      "parameter M, N;\nvector#2 float img[M,N];\nreturn place(img);\n");
  EXPECT_FALSE(codegen::latticeComposite(shifted.stages[shifted.outputs[0]]));
}

}  // namespace
}  // namespace formac
