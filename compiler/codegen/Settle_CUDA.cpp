#include "codegen/Settle_CUDA.h"

#include <algorithm>
#include <set>

#include "codegen/ExprPrinter.h"
#include "codegen/SettleBody.h"
#include "codegen/Naming.h"
#include "codegen/Stmt.h"
#include "ir/Edges.h"

namespace formac::codegen {
namespace {

// Whether `e` reads the carried image at a constant offset {dy, dx} from the
// point (the tile holds it), and the offset.
bool tileRead(const ir::Expr& e, int carried, std::pair<int, int>* offset) {
  if (e.kind != ir::Expr::ImageRead || e.producer != carried || !e.origin.empty() || e.axes.size() != 2 ||
      e.axes[0].scale != 1 || e.axes[1].scale != 1)
    return false;
  *offset = {e.axes[0].offset, e.axes[1].offset};
  return true;
}

// The offsets of the body's tile reads, each once, in the body's order.
std::vector<std::pair<int, int>> tileReads(const ir::Body& b, int carried) {
  std::vector<std::pair<int, int>> out;
  ir::forEachExpr(b, [&](const ir::Expr& e) {
    std::pair<int, int> o;
    if (tileRead(e, carried, &o) && std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  });
  return out;
}

}  // namespace

SettleCuda settleKernelCuda(const ir::Loop& loop, const passes::LocalFixpoint& lf, const std::string& name) {
  const ir::Pipeline& body = *loop.body;
  const Names bn = assignNames(body, name);
  const std::string T = cType(body.stages[static_cast<size_t>(lf.carried)].type);
  auto extent = [&](int id, int d) {
    return "(" + ir::printSize(body.stages[static_cast<size_t>(id)].extent[static_cast<size_t>(d)], bn.param) + ")";
  };

  // X<i-1> is read from the tile in shared memory (its reads resolved to
  // points inside the image, or the boundary constant); the rest from memory.
  ExprContext ctx;
  ctx.pipeline = &body;
  ctx.params = bn.param;
  ctx.q = {"formac_i", "formac_j"};
  ctx.checked = true;
  ctx.cuda = true;
  ctx.extent = extent;
  ctx.buffer = [&](int id) { return bn.stage[static_cast<size_t>(id)]; };
  ctx.scalar = [&](int i) { return bn.scalar[static_cast<size_t>(i)]; };
  ctx.resolved = [&](int id) { return id == lf.carried; };  // the halo holds the boundary's values
  ctx.access = [&](int id, const std::vector<std::string>& idx) {
    if (id == lf.carried)
      return "formac_t[((" + idx[0] + ") - formac_i0 + FORMAC_R) * FORMAC_W + (" + idx[1] + ") - formac_j0 + FORMAC_R]";
    std::string lin = "(long long)(" + idx[0] + ")";
    for (size_t d = 1; d < idx.size(); ++d) lin = "(" + lin + " * " + extent(id, static_cast<int>(d)) + " + (" + idx[d] + "))";
    return bn.stage[static_cast<size_t>(id)] + "[" + lin + "]";
  };
  // Each point of the neighbourhood is loaded once (the tile is volatile:
  // a read printed twice would load twice), the point itself as formac_old.
  const std::vector<std::pair<int, int>> near = tileReads(lf.body, lf.carried);
  auto local = [&](const std::pair<int, int>& o) {
    if (o.first == 0 && o.second == 0) return std::string("formac_old");
    return "formac_n" + std::to_string(std::find(near.begin(), near.end(), o) - near.begin());
  };
  ctx.preloaded = [&](const ir::Expr& e) {
    std::pair<int, int> o;
    return tileRead(e, lf.carried, &o) ? local(o) : std::string();
  };
  std::vector<Stmt> loads = {decl("int", "formac_here", "(formac_py + FORMAC_R) * FORMAC_W + formac_px + FORMAC_R"),
                             decl(T, "formac_old", "formac_t[formac_here]")};
  for (const auto& o : near)
    if (o.first != 0 || o.second != 0)
      loads.push_back(decl(T, local(o), "formac_t[formac_here + (" + std::to_string(o.first) + ") * FORMAC_W + (" +
                                            std::to_string(o.second) + ")]"));
  loads.push_back(declOnly(T, "formac_v"));
  const std::string valueText = printSettleValue(lf.body, ctx, "        ");
  const std::string rows = extent(lf.carried, 0), cols = extent(lf.carried, 1);

  SettleCuda s;
  s.takes = settleParameters(loop, bn, printerFor(true).print(loads, "        ") + valueText + rows + cols, true);
  // A tile at a border whose reads land inside the image reads its own
  // points through the border: it is marked again when it changes.
  const bool self = lf.mode != BoundaryMode::Constant && lf.radius > 0;
  const std::string tile = std::to_string(kSettleTile), threads = std::to_string(kSettleThreads);
  const std::string perThread = std::to_string(kSettleTile * kSettleTile / kSettleThreads);
  const std::string step = std::to_string(kSettleThreads / kSettleTile);
  const std::string run = std::to_string(kSettleTile * kSettleTile / kSettleThreads);  // points a thread sweeps
  const std::string& runs = step;  // runs a row (a column) holds
  // A halo point outside the image holds what a read there gives: the
  // boundary constant, or the point it resolves to (clamped, extend, mirror:
  // read now, stale while the tile changes it, hence the tile's own mark).
  std::string halo = "formac_li >= 0 && formac_li < formac_rows && formac_lj >= 0 && formac_lj < formac_cols ? formac_x[formac_li * formac_cols + formac_lj] : ";
  if (lf.mode == BoundaryMode::Constant)
    halo += "(" + T + ")(" + std::to_string(static_cast<long long>(lf.constant)) + ")";
  else {
    const std::string fix = lf.mode == BoundaryMode::Mirror ? "formac_mirror" : "formac_clamp";
    halo += "formac_rows > 0 && formac_cols > 0 ? formac_x[" + fix + "(formac_li, formac_rows) * formac_cols + " + fix +
            "(formac_lj, formac_cols)] : (" + T + ")0";
  }
  const std::string mark = "formac_marks[formac_parity * formac_tiles + formac_at]";
  // A sweep: each thread's run of points, recomputed in place.
  Stmt sweep = forLoop("int formac_kk = 0", "formac_kk < " + run, "++formac_kk", {
      decl("int", "formac_k", "formac_back ? " + run + " - 1 - formac_kk : formac_kk"),
      decl("int", "formac_py", "formac_ry + (formac_along ? 0 : formac_k)"),
      decl("int", "formac_px", "formac_rx + (formac_along ? formac_k : 0)"),
      ifThen("formac_py < formac_ylim && formac_px < formac_xlim", {
          decl("long long", "formac_i", "formac_i0 + formac_py"),
          decl("long long", "formac_j", "formac_j0 + formac_px"),
          eval("(void)formac_i"),
          eval("(void)formac_j"),
          seq(loads),
          text(valueText),
          ifThen("formac_v != formac_old", {
              lf.selective ? seq({comment("a first change"),
                                  eval("formac_moved += formac_old == formac_x0[formac_i * formac_cols + formac_j]")})
                           : eval("formac_moved += formac_v > formac_old ? (unsigned long long)formac_v - (unsigned long long)formac_old"
                                  " : (unsigned long long)formac_old - (unsigned long long)formac_v"),
              assign("formac_t[formac_here]", "formac_v"),
              assign("formac_swept", "1"),
              eval("formac_sides |= formac_settle_sides(formac_py, formac_px, FORMAC_R)"),
          }),
      }),
  });
  std::vector<Stmt> pass = {
      eval("enum { FORMAC_TILE = " + tile + ", FORMAC_R = " + std::to_string(lf.radius) +
           ", FORMAC_W = FORMAC_TILE + 2 * FORMAC_R }"),
      declOnly("__shared__ " + T, "formac_tile[(FORMAC_TILE + 2 * FORMAC_R) * FORMAC_W]"),
      declOnly("__shared__ unsigned long long", "formac_block_moved"),
      comment("points change while neighbours read them"),
      decl("volatile " + T + "*", "formac_t", "formac_tile", false),
      decl("long long", "formac_rows", rows),
      decl("long long", "formac_cols", cols),
      decl("long long", "formac_tiles", "(long long)gridDim.x * gridDim.y"),
      decl("long long", "formac_at", "(long long)blockIdx.y * gridDim.x + blockIdx.x"),
      decl("long long", "formac_i0", "(long long)blockIdx.y * FORMAC_TILE"),
      decl("long long", "formac_j0", "(long long)blockIdx.x * FORMAC_TILE"),
      decl("int", "formac_parity", "formac_st->parity"),
      decl("int", "formac_lx", "threadIdx.x % FORMAC_TILE"),
      decl("int", "formac_ly", "threadIdx.x / FORMAC_TILE"),
      comment("the tile's rows and columns inside the image"),
      decl("int", "formac_ylim", "(int)(formac_rows - formac_i0 < FORMAC_TILE ? formac_rows - formac_i0 : FORMAC_TILE)"),
      decl("int", "formac_xlim", "(int)(formac_cols - formac_j0 < FORMAC_TILE ? formac_cols - formac_j0 : FORMAC_TILE)"),
      comment("loads and stores: 4 rows of 64 at a time"),
      decl("long long", "formac_col", "formac_j0 + formac_lx"),
      decl("unsigned long long", "formac_moved", "0", false),
      decl("int", "formac_sweeps", "0", false),
      decl("int", "formac_changed", "0", false),
      comment("1 2 4 8: a change within the reach of the top, bottom, left, right side"),
      decl("unsigned", "formac_sides", "0", false),
      comment("every thread reads the mark before one clears it, and all leave or none"),
      decl("bool", "formac_take", mark),
      eval("__syncthreads()"),
      ifThen("!formac_take", {eval("return")}),
      ifThen("threadIdx.x == 0", {assign(mark, "0"), assign("formac_block_moved", "0")}),
      comment("the tile and its halo: every load issued before the first is stored (a tile's time is the loads' latency)"),
      eval("enum { FORMAC_HALO = (FORMAC_TILE + 2 * FORMAC_R) * FORMAC_W, FORMAC_LOADS = (FORMAC_HALO + " + threads +
           " - 1) / " + threads + " }"),
      declOnly(T, "formac_h[FORMAC_LOADS]"),
      unrolledLoop("int formac_u = 0", "formac_u < FORMAC_LOADS", "++formac_u",
                   {decl("int", "formac_k", "threadIdx.x + formac_u * " + threads),
                    decl("long long", "formac_li", "formac_i0 - FORMAC_R + formac_k / FORMAC_W"),
                    decl("long long", "formac_lj", "formac_j0 - FORMAC_R + formac_k % FORMAC_W"),
                    ifThen("formac_k < FORMAC_HALO", {assign("formac_h[formac_u]", halo)})}),
      unrolledLoop("int formac_u = 0", "formac_u < FORMAC_LOADS", "++formac_u",
                   {ifThen("threadIdx.x + formac_u * " + threads + " < FORMAC_HALO",
                           {assign("formac_t[threadIdx.x + formac_u * " + threads + "]", "formac_h[formac_u]")})}),
      eval("__syncthreads()"),
      comment("sweeps to the tile's fixed point: runs of " + run + " along rows, then columns, forwards, then back"),
      forLoop("", "", "", {
          decl("int", "formac_swept", "0", false),
          decl("bool", "formac_along", "(formac_sweeps & 1) == 0"),
          decl("bool", "formac_back", "(formac_sweeps & 2) != 0"),
          decl("int", "formac_ry", "formac_along ? (int)threadIdx.x / " + runs + " : (int)threadIdx.x / FORMAC_TILE * " + run),
          decl("int", "formac_rx", "formac_along ? (int)threadIdx.x % " + runs + " * " + run + " : (int)threadIdx.x % FORMAC_TILE"),
          sweep,
          eval("++formac_sweeps"),
          ifThen("!__syncthreads_or(formac_swept)", {eval("break")}),
          assign("formac_changed", "1"),
      }),
      comment("formac_changed is uniform: from __syncthreads_or"),
      ifThen("formac_changed", {
          ifThen("formac_col < formac_cols",
                 {forLoop("int formac_k = 0", "formac_k < " + perThread, "++formac_k",
                          {decl("long long", "formac_i", "formac_i0 + formac_ly + " + step + " * formac_k"),
                           ifThen("formac_i < formac_rows",
                                  {assign("formac_x[formac_i * formac_cols + formac_col]",
                                          "formac_t[(formac_ly + " + step + " * formac_k + FORMAC_R) * FORMAC_W + formac_lx + FORMAC_R]")})})}),
          eval("formac_settle_mark(formac_marks + (1 - formac_parity) * formac_tiles, __syncthreads_or(formac_sides & 1) | "
               "__syncthreads_or(formac_sides & 2) << 1 | __syncthreads_or(formac_sides & 4) << 2 | "
               "__syncthreads_or(formac_sides & 8) << 3, " +
               std::string(self ? "blockIdx.x == 0 || blockIdx.y == 0 || blockIdx.x + 1 == gridDim.x || blockIdx.y + 1 == gridDim.y" : "0") + ")"),
          ifThen("threadIdx.x == 0", {assign("formac_st->changed", "1")}),
      }),
      ifThen("formac_moved", {eval("atomicAdd(&formac_block_moved, formac_moved)")}),
      eval("__syncthreads()"),
      ifThen("threadIdx.x == 0", {ifThen("formac_block_moved", {eval("atomicAdd(&formac_st->moved, formac_block_moved)")})}),
  };
  std::vector<Param> params = {{T + "*", "formac_x"}};
  if (lf.selective) params.push_back({T, "formac_x0", true, true});
  params.insert(params.end(), s.takes.list.begin(), s.takes.list.end());
  params.push_back({"struct formac_settle_state*", "formac_st"});
  params.push_back({"unsigned char*", "formac_marks"});
  Stmt kernel = function("static __global__", "void", name, params, pass);
  kernel.attributes = "__launch_bounds__(" + threads + ")";
  s.kernel = seq({comment("One pass of settling the do loop over '" + loop.iterator + "' (line " +
                          std::to_string(loop.loc.line) + ") in place (Settle_CUDA.h):\n" + lf.why + "."),
                  kernel});
  return s;
}

}  // namespace formac::codegen
