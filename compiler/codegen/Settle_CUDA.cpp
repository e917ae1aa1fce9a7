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
  std::string loads = "        const int formac_here = (formac_py + FORMAC_R) * FORMAC_W + formac_px + FORMAC_R;\n"
                      "        const " + T + " formac_old = formac_t[formac_here];\n";
  for (const auto& o : near)
    if (o.first != 0 || o.second != 0)
      loads += "        const " + T + " " + local(o) + " = formac_t[formac_here + (" + std::to_string(o.first) +
               ") * FORMAC_W + (" + std::to_string(o.second) + ")];\n";
  const std::string value = loads + "        " + T + " formac_v;\n" + printSettleValue(lf.body, ctx, "        ");
  const std::string rows = extent(lf.carried, 0), cols = extent(lf.carried, 1);

  SettleCuda s;
  s.takes = settleParameters(loop, bn, value + rows + cols, true);
  const std::string params = s.takes.list.empty() ? "" : ", " + printerFor(true).params(s.takes.list);
  // A tile at a border whose reads land inside the image reads its own
  // points through the border: it is marked again when it changes.
  const bool self = lf.mode != BoundaryMode::Constant && lf.radius > 0;
  const std::string tile = std::to_string(kSettleTile), threads = std::to_string(kSettleThreads);
  const std::string perThread = std::to_string(kSettleTile * kSettleTile / kSettleThreads);
  const std::string step = std::to_string(kSettleThreads / kSettleTile);
  const std::string run = std::to_string(kSettleTile * kSettleTile / kSettleThreads);  // points a thread sweeps
  const std::string& runs = step;
  // A halo point outside the image holds what a read there gives: the
  // boundary constant, or the point it resolves to (clamped, extend, mirror:
  // read now, stale while the tile changes it, hence the tile's own mark).
  std::string haloLoad = "formac_h[formac_u] = formac_li >= 0 && formac_li < formac_rows && formac_lj >= 0 && formac_lj < formac_cols ? formac_x[formac_li * formac_cols + formac_lj] : ";
  if (lf.mode == BoundaryMode::Constant)
    haloLoad += "(" + T + ")(" + std::to_string(static_cast<long long>(lf.constant)) + ");";
  else {
    const std::string fix = lf.mode == BoundaryMode::Mirror ? "formac_mirror" : "formac_clamp";
    haloLoad += "formac_rows > 0 && formac_cols > 0 ? formac_x[" + fix + "(formac_li, formac_rows) * formac_cols + " + fix +
                "(formac_lj, formac_cols)] : (" + T + ")0;";
  }  // runs a row (a column) holds
  s.kernel =
      "/* One pass of settling the do loop over '" + loop.iterator + "' (line " + std::to_string(loop.loc.line) +
      ") in place (Settle_CUDA.h):\n   " + lf.why + ". */\n"
      "static __global__ void __launch_bounds__(" + threads + ") " + name + "(" + T + "* formac_x" + (lf.selective ? ", const " + T + "* __restrict__ formac_x0" : std::string()) + params +
      ",\n    struct formac_settle_state* formac_st, unsigned char* formac_marks) {\n"
      "  enum { FORMAC_TILE = " + tile + ", FORMAC_R = " + std::to_string(lf.radius) +
      ", FORMAC_W = FORMAC_TILE + 2 * FORMAC_R };\n"
      "  __shared__ " + T + " formac_tile[(FORMAC_TILE + 2 * FORMAC_R) * FORMAC_W];\n"
      "  __shared__ unsigned long long formac_block_moved;\n"

      "  volatile " + T + "* formac_t = formac_tile;  /* points change while neighbours read them */\n"
      "  const long long formac_rows = " + rows + ", formac_cols = " + cols + ";\n"
      "  const long long formac_tiles = (long long)gridDim.x * gridDim.y;\n"
      "  const long long formac_at = (long long)blockIdx.y * gridDim.x + blockIdx.x;\n"
      "  const long long formac_i0 = (long long)blockIdx.y * FORMAC_TILE, formac_j0 = (long long)blockIdx.x * FORMAC_TILE;\n"
      "  const int formac_parity = formac_st->parity;\n"
      "  const int formac_lx = threadIdx.x % FORMAC_TILE, formac_ly = threadIdx.x / FORMAC_TILE;\n"
      "  /* the tile's rows and columns inside the image */\n"
      "  const int formac_ylim = (int)(formac_rows - formac_i0 < FORMAC_TILE ? formac_rows - formac_i0 : FORMAC_TILE);\n"
      "  const int formac_xlim = (int)(formac_cols - formac_j0 < FORMAC_TILE ? formac_cols - formac_j0 : FORMAC_TILE);\n"
      "  const long long formac_col = formac_j0 + formac_lx;  /* loads and stores: 4 rows of 64 at a time */\n"
      "  unsigned long long formac_moved = 0;\n"
      "  int formac_sweeps = 0, formac_changed = 0;\n"
      "  unsigned formac_sides = 0;  /* 1 2 4 8: a change within the reach of the top, bottom, left, right side */\n"
      "  /* every thread reads the mark before one clears it, and all leave or none */\n"
      "  const bool formac_take = formac_marks[formac_parity * formac_tiles + formac_at];\n"
      "  __syncthreads();\n"
      "  if (!formac_take) return;\n"
      "  if (threadIdx.x == 0) {\n"
      "    formac_marks[formac_parity * formac_tiles + formac_at] = 0;\n"
      "    formac_block_moved = 0;\n"

      "  }\n"
      "  /* the tile and its halo: every load issued before the first is stored (a tile's time is the loads' latency) */\n"
      "  enum { FORMAC_HALO = (FORMAC_TILE + 2 * FORMAC_R) * FORMAC_W, FORMAC_LOADS = (FORMAC_HALO + " + threads + " - 1) / " + threads + " };\n"
      "  " + T + " formac_h[FORMAC_LOADS];\n"
      "#pragma unroll\n"
      "  for (int formac_u = 0; formac_u < FORMAC_LOADS; ++formac_u) {\n"
      "    const int formac_k = threadIdx.x + formac_u * " + threads + ";\n"
      "    const long long formac_li = formac_i0 - FORMAC_R + formac_k / FORMAC_W, formac_lj = formac_j0 - FORMAC_R + formac_k % FORMAC_W;\n"
      "    if (formac_k < FORMAC_HALO) " + haloLoad + "\n"
      "  }\n"
      "#pragma unroll\n"
      "  for (int formac_u = 0; formac_u < FORMAC_LOADS; ++formac_u)\n"
      "    if (threadIdx.x + formac_u * " + threads + " < FORMAC_HALO) formac_t[threadIdx.x + formac_u * " + threads + "] = formac_h[formac_u];\n"
      "  __syncthreads();\n"
      "  for (;;) {  /* sweeps to the tile's fixed point: runs of " + run + " along rows, then columns, forwards, then back */\n"
      "    int formac_swept = 0;\n"


      "    const bool formac_along = (formac_sweeps & 1) == 0, formac_back = (formac_sweeps & 2) != 0;\n"
      "    const int formac_ry = formac_along ? (int)threadIdx.x / " + runs + " : (int)threadIdx.x / FORMAC_TILE * " + run + ";\n"
      "    const int formac_rx = formac_along ? (int)threadIdx.x % " + runs + " * " + run + " : (int)threadIdx.x % FORMAC_TILE;\n"
      "    for (int formac_kk = 0; formac_kk < " + run + "; ++formac_kk) {\n"
      "      const int formac_k = formac_back ? " + run + " - 1 - formac_kk : formac_kk;\n"
      "      const int formac_py = formac_ry + (formac_along ? 0 : formac_k), formac_px = formac_rx + (formac_along ? formac_k : 0);\n"
      "      if (formac_py < formac_ylim && formac_px < formac_xlim) {\n"
      "        const long long formac_i = formac_i0 + formac_py, formac_j = formac_j0 + formac_px;\n"
      "        (void)formac_i;\n        (void)formac_j;\n" + value +
      "        if (formac_v != formac_old) {\n"
      + std::string(lf.selective
            ? "          formac_moved += formac_old == formac_x0[formac_i * formac_cols + formac_j];  /* a first change */\n"
            : "          formac_moved += formac_v > formac_old ? (unsigned long long)formac_v - (unsigned long long)formac_old\n"
              "                                                : (unsigned long long)formac_old - (unsigned long long)formac_v;\n") +
      "          formac_t[formac_here] = formac_v;\n"
      "          formac_swept = 1;\n"
      "          formac_sides |= formac_settle_sides(formac_py, formac_px, FORMAC_R);\n"

      "        }\n"
      "      }\n"
      "    }\n"

      "    ++formac_sweeps;\n"
      "    if (!__syncthreads_or(formac_swept)) break;\n"
      "    formac_changed = 1;\n"
      "  }\n"
      "  if (formac_changed) {  /* (uniform: from __syncthreads_or) */\n"
      "    if (formac_col < formac_cols)\n"
      "      for (int formac_k = 0; formac_k < " + perThread + "; ++formac_k) {\n"
      "        const long long formac_i = formac_i0 + formac_ly + " + step + " * formac_k;\n"
      "        if (formac_i < formac_rows)\n"
      "          formac_x[formac_i * formac_cols + formac_col] =\n"
      "              formac_t[(formac_ly + " + step + " * formac_k + FORMAC_R) * FORMAC_W + formac_lx + FORMAC_R];\n"
      "      }\n"
      "    formac_settle_mark(formac_marks + (1 - formac_parity) * formac_tiles, __syncthreads_or(formac_sides & 1) | \n"
      "                       __syncthreads_or(formac_sides & 2) << 1 | __syncthreads_or(formac_sides & 4) << 2 |\n"
      "                       __syncthreads_or(formac_sides & 8) << 3,\n"
      "                       " + (self ? "blockIdx.x == 0 || blockIdx.y == 0 || blockIdx.x + 1 == gridDim.x || blockIdx.y + 1 == gridDim.y" : "0") + ");\n"
      "    if (threadIdx.x == 0) formac_st->changed = 1;\n"
      "  }\n"
      "  if (formac_moved) atomicAdd(&formac_block_moved, formac_moved);\n"

      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) {\n"
      "    if (formac_block_moved) atomicAdd(&formac_st->moved, formac_block_moved);\n"

      "  }\n"
      "}\n\n";
  return s;
}

}  // namespace formac::codegen
