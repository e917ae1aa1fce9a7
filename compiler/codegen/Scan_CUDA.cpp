#include "codegen/Scan_CUDA.h"

#include <vector>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedKernel_CUDA.h"
#include "codegen/Reduce_CUDA.h"

namespace formac::codegen {
namespace {

std::string str(long long v) { return std::to_string(v); }
// Values a run adds sequentially (ir's floating Scan order).
const std::string kRun = str(ir::kScanRun);
// Along the last dimension: a thread per run, a tile of kRowRuns runs.
constexpr int kRowRuns = kCudaThreads;
// Along an earlier dimension: kColumns x kColumnRuns threads, a run each.
constexpr int kColumns = 32;
constexpr int kColumnRuns = kCudaThreads / kColumns;

int rankOf(const ir::Stage& s) { return static_cast<int>(s.scan.input.axes.size()); }
std::string q(int d) { return "q" + str(d); }
std::string n(int d) { return "formac_n" + str(d); }
bool floating(const ir::Stage& s) { return s.scan.accumulate == ScalarKind::Double; }

// The dimensions scanned, in order: d, or for sat the last down to 0.
std::vector<int> passDims(const ir::Stage& s) {
  if (s.scan.dim >= 0) return {s.scan.dim};
  std::vector<int> dims;
  for (int d = rankOf(s) - 1; d >= 0; --d) dims.push_back(d);
  return dims;
}

// In a kernel: the product of the extents [from, to) (formac_n0 ...) as
// long long; "1" when empty.
std::string product(int from, int to) {
  std::string t;
  for (int d = from; d < to; ++d) t += (t.empty() ? "" : " * ") + std::string("(long long)") + n(d);
  return t.empty() ? "1" : t;
}

// One pass of a stage: the dimension it scans, where its values come from
// and go.
struct Pass {
  int dim = 0;
  bool first = true;  // reads the input piece (else the values scratch)
  bool last = true;   // writes the stage (else the values scratch)
  std::string kernel;
};

std::vector<Pass> passesOf(const ScanCuda& c) {
  std::vector<int> dims = passDims(*c.stage);
  std::vector<Pass> out;
  for (size_t i = 0; i < dims.size(); ++i)
    out.push_back({dims[i], i == 0, i + 1 == dims.size(), c.name + "_dim" + str(dims[i])});
  return out;
}

// `formac_x` (the accumulation type), the pass's value at q0.. (linear index
// `at`): the input piece's body, fused, or the previous pass's value.
std::string loadValue(const ScanCuda& c, const Pass& p, const std::string& at, const std::string& in) {
  std::string A = scanAccumulationType(*c.stage);
  if (!p.first) return in + "const " + A + " formac_x = formac_values[" + at + "];\n";
  std::string convert = floating(*c.stage) ? "(double)formac_v" : "(unsigned long long)(long long)formac_v";
  return reduce_cuda::pointValueOf(*c.pipeline, *c.stage, *c.names, in) + in + "const " + A + " formac_x = " + convert +
         ";\n";
}

// The statement storing the sum `e` at linear index `at`: in the accumulation
// type between passes, converted as cast<T> converts on the last.
std::string storeValue(const ScanCuda& c, const Pass& p, const std::string& at, const std::string& e) {
  if (!p.last) return "formac_values[" + at + "] = " + e + ";";
  ScalarKind T = c.stage->type.scalar;
  std::string t = cType(c.stage->type), v;
  if (floating(*c.stage)) {
    if (T == ScalarKind::Double) v = e;
    else if (T == ScalarKind::Float) v = "(float)(" + e + ")";
    else if (T == ScalarKind::Int64) v = "formac_ftoi_l(" + e + ")";
    else v = "(" + t + ")formac_ftoi(" + e + ")";
  } else {
    v = "(" + t + ")(long long)(" + e + ")";
  }
  return "formac_out[" + at + "] = " + v + ";";
}

std::string header(const ScanCuda& c, const Pass& p, const std::string& what) {
  std::string A = scanAccumulationType(*c.stage), params;
  auto add = [&](const std::string& x) { params += (params.empty() ? "" : ", ") + x; };
  if (p.first && !c.inputParams.empty()) add(c.inputParams);
  if (!p.first || !p.last) add(A + "* formac_values");  // read and written in place: not restrict
  if (p.last) add(cType(c.stage->type) + "* __restrict__ formac_out");
  add(A + "* __restrict__ formac_groups");
  add("unsigned long long* __restrict__ formac_flags");
  for (const auto& prm : c.names->param) add("const I " + prm);
  std::string t = "/* " + c.stage->name + ", dimension " + str(p.dim) + ": " + what + " */\n" +
                  "template <typename I>\n__global__ void __launch_bounds__(" + str(kCudaThreads) + ") " + p.kernel +
                  "(" + params + ") {\n";
  for (const auto& prm : c.names->param) t += "  (void)" + prm + ";\n";
  for (int d = 0; d < rankOf(*c.stage); ++d)
    t += "  const I " + n(d) + " = (I)(" +
         ir::printSize(c.stage->scan.input.axes[static_cast<size_t>(d)].count, c.names->param) + ");\n";
  return t;
}

// Declares the lattice indices of dimensions [from, to) (row-major) from
// formac_rest, at indentation `in`.
std::string indicesFrom(int from, int to, const std::string& in) {
  std::string t;
  for (int d = to - 1; d >= from; --d) {
    if (d == from) t += in + "const I " + q(d) + " = (I)formac_rest;\n";
    else t += in + "const I " + q(d) + " = (I)(formac_rest % " + n(d) + ");\n" + in + "formac_rest /= " + n(d) + ";\n";
  }
  return t;
}

// The tile loop's head: the next tile from the counter, in order.
std::string nextTile(const std::string& first) {
  return "  for (;;) {\n"
         "    /* The next tile, in order: every earlier tile is running or done. */\n"
         "    if (" + first + ") formac_tile_at = (long long)atomicAdd(formac_flags, 1ULL);\n"
         "    __syncthreads();\n"
         "    const long long formac_tile = formac_tile_at;\n"
         "    if (formac_tile >= formac_tiles) break;\n";
}

// The run's prefixes formac_l[u] (from +0.0, ir's order) and its total
// formac_acc, the run's values at the lattice index `qd` = run * 8 + u.
std::string runPrefixes(const ScanCuda& c, const Pass& p, const std::string& at) {
  std::string A = scanAccumulationType(*c.stage), in = "          ";
  return "    " + A + " formac_l[" + kRun + "];\n" +
         "    " + A + " formac_acc = (" + A + ")0;\n" +
         "    if (formac_live) {\n"
         "#pragma unroll\n"
         "      for (int formac_u = 0; formac_u < " + kRun + "; ++formac_u) {\n"
         "        const I " + q(p.dim) + " = (I)(formac_r * " + kRun + " + formac_u);\n"
         "        if (" + q(p.dim) + " < " + n(p.dim) + ") {\n" +
         loadValue(c, p, at, in) +
         in + "formac_acc = formac_acc + formac_x;\n"
         "        }\n"
         "        formac_l[formac_u] = formac_acc;\n"
         "      }\n"
         "    }\n";
}

// Each value E + l[u] stored (or converted and stored).
std::string runStores(const ScanCuda& c, const Pass& p, const std::string& at) {
  return "    if (formac_live) {\n"
         "#pragma unroll\n"
         "      for (int formac_u = 0; formac_u < " + kRun + "; ++formac_u) {\n"
         "        const I " + q(p.dim) + " = (I)(formac_r * " + kRun + " + formac_u);\n"
         "        if (" + q(p.dim) + " < " + n(p.dim) + ") " + storeValue(c, p, at, "formac_e + formac_l[formac_u]") +
         "\n      }\n    }\n"
         "    __syncthreads();  /* the next tile reuses the shared arrays */\n  }\n}\n\n";
}

// Along the last dimension: a thread per run, 256 runs of one line a tile,
// or lines of fewer runs sharing a tile in segments of formac_seg runs.
std::string rowKernel(const ScanCuda& c, const Pass& p) {
  std::string A = scanAccumulationType(*c.stage), R = str(kRowRuns);
  int rank = rankOf(*c.stage), L = rank - 1;
  std::string t = header(c, p, "a thread per run of " + kRun + " values, " + R + " runs a tile") +
      "  const long long formac_len = (long long)" + n(L) + ";  /* values along a line */\n"
      "  const long long formac_lines = " + product(0, L) + ";\n"
      "  const long long formac_runs = (formac_len + " + str(ir::kScanRun - 1) + ") / " + kRun + ";\n"
      "  const long long formac_tpl = formac_scan_line_tiles(formac_len, " + R + ");  /* tiles along a line */\n"
      "  /* The runs of one line in a tile (a power of two): lines of one tile share it. */\n"
      "  const int formac_seg = (int)(formac_tpl > 1 ? " + R + " : formac_scan_segment(formac_runs));\n"
      "  const long long formac_tiles = formac_scan_row_tiles(formac_len, formac_lines);\n"
      "  const int formac_j = (int)threadIdx.x;\n"
      "  __shared__ " + A + " formac_sum[" + R + "];\n"
      "  __shared__ " + A + " formac_carry;\n"
      "  __shared__ long long formac_tile_at;\n" +
      nextTile("formac_j == 0") +
      "    /* The tile's place along its line (t), the thread's line and run r, the jl-th of its segment. */\n"
      "    const long long formac_t = formac_tpl > 1 ? formac_tile / formac_lines : 0;\n"
      "    const long long formac_line = formac_tpl > 1 ? formac_tile % formac_lines\n"
      "                                                 : formac_tile * (" + R + " / formac_seg) + formac_j / formac_seg;\n"
      "    const int formac_jl = formac_j % formac_seg;\n"
      "    const long long formac_r = formac_t * " + R + " + formac_jl;\n"
      "    const bool formac_live = formac_line < formac_lines && formac_r < formac_runs;\n"
      "    long long formac_rest = formac_live ? formac_line : 0;\n" +
      indicesFrom(0, L, "    ") +
      "    (void)formac_rest;\n"
      "    const I formac_base = (I)((formac_live ? formac_line : 0) * formac_len);\n" +
      runPrefixes(c, p, "formac_base + " + q(L)) +
      "    /* Up-sweep of the run totals: formac_sum[j] becomes G of the aligned group of runs\n"
      "       that ends at j, as large as the lowest set bit of j + 1 (within a segment). */\n"
      "    formac_sum[formac_j] = formac_acc;\n"
      "    for (int formac_m = 1; formac_m < formac_seg; formac_m *= 2) {\n"
      "      __syncthreads();\n"
      "      if (((formac_j + 1) & (2 * formac_m - 1)) == 0)\n"
      "        formac_sum[formac_j] = formac_sum[formac_j - formac_m] + formac_sum[formac_j];\n"
      "    }\n"
      "    __syncthreads();\n"
      "    /* A line of several tiles: publish this tile's groups, then the carry E at its first run. */\n"
      "    if (formac_tpl > 1 && formac_j == 0)\n"
      "      formac_carry = formac_scan_lookback(formac_groups, formac_flags, formac_line, formac_tpl, formac_t,\n"
      "                                          formac_sum[" + str(kRowRuns - 1) + "]);\n"
      "    __syncthreads();\n"
      "    /* E at run r: the carry, then the tile's groups of the bits of jl, largest first. */\n"
      "    " + A + " formac_e = formac_tpl > 1 ? formac_carry : (" + A + ")0;\n"
      "    for (int formac_b = formac_seg / 2, formac_s = formac_j - formac_jl; formac_b >= 1; formac_b /= 2)\n"
      "      if (formac_jl & formac_b) {\n"
      "        formac_e = formac_e + formac_sum[formac_s + formac_b - 1];\n"
      "        formac_s += formac_b;\n"
      "      }\n";
  return t + runStores(c, p, "formac_base + " + q(L));
}

// Along an earlier dimension: 32 consecutive columns x 8 runs down each a
// tile, a thread per (column, run); the look-back per column.
std::string columnKernel(const ScanCuda& c, const Pass& p) {
  std::string A = scanAccumulationType(*c.stage), C = str(kColumns), Y = str(kColumnRuns);
  int rank = rankOf(*c.stage), D = p.dim;
  std::string t = header(c, p, "columns: a tile of " + C + " columns x " + Y + " runs of " + kRun +
                                   " values down each, a thread per run") +
      "  const long long formac_len = (long long)" + n(D) + ";  /* values along a column */\n"
      "  const long long formac_outer = " + product(0, D) + ";  /* slices before dimension " + str(D) + " */\n"
      "  const long long formac_inner = " + product(D + 1, rank) + ";  /* columns of a slice */\n"
      "  const long long formac_runs = (formac_len + " + str(ir::kScanRun - 1) + ") / " + kRun + ";\n"
      "  const long long formac_tpl = formac_scan_line_tiles(formac_len, " + Y + ");  /* tiles down a column */\n"
      "  const long long formac_sets = formac_outer * ((formac_inner + " + str(kColumns - 1) + ") / " + C +
      ");  /* sets of " + C + " columns */\n"
      "  const long long formac_tiles = formac_sets * formac_tpl;\n"
      "  const int formac_tx = (int)threadIdx.x, formac_ty = (int)threadIdx.y;\n"
      "  __shared__ " + A + " formac_sum[" + Y + "][" + C + "];\n"
      "  __shared__ " + A + " formac_carry[" + C + "];\n"
      "  __shared__ long long formac_tile_at;\n" +
      nextTile("formac_tx == 0 && formac_ty == 0") +
      "    /* Tiles go down the columns level by level: t along the column, then the set. */\n"
      "    const long long formac_t = formac_tile / formac_sets, formac_set = formac_tile % formac_sets;\n"
      "    const long long formac_o = formac_set / ((formac_inner + " + str(kColumns - 1) + ") / " + C + ");\n"
      "    const long long formac_c = formac_set % ((formac_inner + " + str(kColumns - 1) + ") / " + C + ") * " + C +
      " + formac_tx;  /* the column */\n"
      "    const long long formac_r = formac_t * " + Y + " + formac_ty;  /* the run down it */\n"
      "    const bool formac_live = formac_c < formac_inner && formac_r < formac_runs;\n"
      "    long long formac_rest = formac_live ? formac_c : 0;\n" +
      indicesFrom(D + 1, rank, "    ") + "    formac_rest = formac_o;\n" + indicesFrom(0, D, "    ") +
      "    (void)formac_rest;\n"
      "    const I formac_base = (I)(formac_live ? formac_o * formac_len * formac_inner + formac_c : 0);\n"
      "    const I formac_stride = (I)formac_inner;\n";
  std::string at = "formac_base + " + q(D) + " * formac_stride";
  t += runPrefixes(c, p, at) +
       "    /* Up-sweep down each column: formac_sum[y][x] becomes G of the aligned group of runs\n"
       "       that ends at y, as large as the lowest set bit of y + 1. */\n"
       "    formac_sum[formac_ty][formac_tx] = formac_acc;\n"
       "    for (int formac_m = 1; formac_m < " + Y + "; formac_m *= 2) {\n"
       "      __syncthreads();\n"
       "      if (((formac_ty + 1) & (2 * formac_m - 1)) == 0)\n"
       "        formac_sum[formac_ty][formac_tx] = formac_sum[formac_ty - formac_m][formac_tx] + formac_sum[formac_ty][formac_tx];\n"
       "    }\n"
       "    __syncthreads();\n"
       "    /* A column of several tiles: publish this tile's groups, then the carry E at its first run. */\n"
       "    if (formac_tpl > 1 && formac_ty == 0 && formac_c < formac_inner)\n"
       "      formac_carry[formac_tx] = formac_scan_lookback(formac_groups, formac_flags, formac_o * formac_inner + formac_c,\n"
       "                                                    formac_tpl, formac_t, formac_sum[" + str(kColumnRuns - 1) +
       "][formac_tx]);\n"
       "    __syncthreads();\n"
       "    /* E at run r: the carry, then the tile's groups of the bits of y, largest first. */\n"
       "    " + A + " formac_e = formac_tpl > 1 ? formac_carry[formac_tx] : (" + A + ")0;\n"
       "    for (int formac_b = " + str(kColumnRuns / 2) + ", formac_s = 0; formac_b >= 1; formac_b /= 2)\n"
       "      if (formac_ty & formac_b) {\n"
       "        formac_e = formac_e + formac_sum[formac_s + formac_b - 1][formac_tx];\n"
       "        formac_s += formac_b;\n"
       "      }\n";
  return t + runStores(c, p, at);
}

// Host: the product of the counts of dimensions [from, to).
HostExpr hostProduct(const ir::Stage& s, int from, int to) {
  HostExpr t = hc(1);
  for (int d = from; d < to; ++d) t = t * hsize(s.scan.input.axes[static_cast<size_t>(d)].count);
  return t;
}

// Host: the lines of pass `p` (columns, along an earlier dimension) and the
// groups it publishes.
HostExpr hostLines(const ir::Stage& s, const Pass& p) {
  int rank = rankOf(s);
  return p.dim == rank - 1 ? hostProduct(s, 0, p.dim) : hostProduct(s, 0, p.dim) * hostProduct(s, p.dim + 1, rank);
}
HostExpr hostGroups(const ir::Stage& s, const Pass& p) {
  bool row = p.dim == rankOf(s) - 1;
  return hop(HostExpr::ScanLineGroups,
             {hop(HostExpr::ScanLineTiles, {hostProduct(s, p.dim, p.dim + 1), hc(row ? kRowRuns : kColumnRuns)})}) *
         hostLines(s, p);
}

// Host: pass `p`, its sizes (formac_len, formac_lines, formac_tpl, formac_tiles),
// its flags reset, its kernel.
HostStep passSchedule(const ScanCuda& c, const Pass& p, LaunchSchedule& s) {
  const ir::Stage& st = *c.stage;
  bool row = p.dim == rankOf(st) - 1;
  int len = s.value("formac_len"), lines = s.value("formac_lines"), tpl = s.value("formac_tpl"),
      tiles = s.value("formac_tiles");
  std::vector<HostStep> t = {hvar(len, hostProduct(st, p.dim, p.dim + 1)), hvar(lines, hostLines(st, p)),
                             hvar(tpl, hop(HostExpr::ScanLineTiles, {hval(len), hc(row ? kRowRuns : kColumnRuns)}))};
  if (row)
    t.push_back(hvar(tiles, hop(HostExpr::ScanRowTiles, {hval(len), hval(lines)})));
  else
    t.push_back(hvar(tiles, hostProduct(st, 0, p.dim) * ceilDiv(hostProduct(st, p.dim + 1, rankOf(st)), kColumns) * hval(tpl)));
  std::vector<HostArg> args;
  if (p.first) args = c.inputs;
  auto scratch = [](int at) { return HostArg{HostArg::Scratch, at, hc(0), ""}; };
  if (!p.first || !p.last) args.push_back(scratch(c.values));
  if (p.last) args.push_back({HostArg::Stage, st.id, {}, ""});
  args.push_back(scratch(c.groups));
  args.push_back(scratch(c.flags));
  for (size_t i = 0; i < c.names->param.size(); ++i) args.push_back({HostArg::Param, static_cast<int>(i), {}, ""});
  HostKernel k;
  k.name = p.kernel;
  HostStep launch = hlaunch(s.kernel(k), hmin(hval(tiles), hc(65535)), args, row ? kRowRuns : kColumns);
  if (!row) launch.block[1] = hc(kColumnRuns);
  // The tile counter and the groups' flags start at 0.
  HostStep reset = hmemset(scratch(c.flags), hc(8) * (hc(1) + hop(HostExpr::ScanLineGroups, {hval(tpl)}) * hval(lines)));
  HostExpr some = hop(HostExpr::And, {hop(HostExpr::Less, {hc(0), hval(len)}), hop(HostExpr::Less, {hc(0), hval(tiles)})});
  t.push_back(hif(some, {reset, launch}));
  return hblock("dimension " + str(p.dim) + (p.first ? ", from the input" : ", in place") +
                    (p.last ? ", into the stage" : ""),
                std::move(t));
}

}  // namespace

std::string scanAccumulationType(const ir::Stage& s) { return floating(s) ? "double" : "unsigned long long"; }

bool scanNeedsValues(const ir::Stage& s) { return passDims(s).size() > 1; }

HostExpr scanPointsCuda(const ir::Stage& s) { return hostProduct(s, 0, rankOf(s)); }

HostExpr scanGroupCountCuda(const ir::Stage& s) {
  ScanCuda c;
  c.stage = &s;
  HostExpr most;
  bool any = false;
  for (const Pass& p : passesOf(c)) most = any ? hmax(most, hostGroups(s, p)) : hostGroups(s, p), any = true;
  return most;
}

std::string scanPreludeCuda() {
  std::string R = str(kRowRuns);
  return "/* Scans (Scan_CUDA.h): a line of len values is cut into runs of " + kRun + ", and the runs\n"
         "   into tiles; a line of several tiles publishes per tile the sums G of the aligned groups of\n"
         "   1, 2, 4, ... tiles that end there (level k: tiles >> k groups), each with a flag. */\n"
         "static __host__ __device__ __forceinline__ long long formac_scan_line_tiles(long long len, long long tile_runs) {\n"
         "  return ((len + " + str(ir::kScanRun - 1) + ") / " + kRun + " + tile_runs - 1) / tile_runs;\n}\n"
         "/* Along the last dimension: the runs of a line in a tile when it has at most " + R + "\n"
         "   (a power of two: the tile's lines up-sweep apart). */\n"
         "static __host__ __device__ __forceinline__ long long formac_scan_segment(long long runs) {\n"
         "  long long s = 1;\n  while (s < " + R + " && s < runs) s *= 2;\n  return s;\n}\n"
         "/* Along the last dimension: the tiles of `lines` lines of len values. */\n"
         "static __host__ __device__ __forceinline__ long long formac_scan_row_tiles(long long len, long long lines) {\n"
         "  const long long tiles = formac_scan_line_tiles(len, " + R + ");\n"
         "  if (tiles > 1) return tiles * lines;\n"
         "  const long long per = " + R + " / formac_scan_segment((len + " + str(ir::kScanRun - 1) + ") / " + kRun + ");\n"
         "  return (lines + per - 1) / per;\n}\n"
         "/* The groups one line of `tiles` tiles publishes (none for one tile). */\n"
         "static __host__ __device__ __forceinline__ long long formac_scan_line_groups(long long tiles) {\n"
         "  long long g = 0;\n"
         "  if (tiles > 1)\n    for (long long t = tiles; t > 0; t >>= 1) g += t;\n"
         "  return g;\n}\n"
         "/* Among a line's groups: the group of 2^k tiles that ends at tile t. */\n"
         "static __device__ __forceinline__ long long formac_scan_group(long long tiles, int k, long long t) {\n"
         "  long long at = 0;\n"
         "  for (int i = 0; i < k; ++i) at += tiles >> i;\n"
         "  return at + ((t + 1) >> k) - 1;\n}\n"
         "/* Publishes group g: its value, a fence, then its flag. */\n"
         "template <typename A>\n"
         "static __device__ __forceinline__ void formac_scan_publish(A* groups, unsigned long long* flags, long long g, A v) {\n"
         "  *(volatile A*)(groups + g) = v;\n"
         "  __threadfence();\n"
         "  atomicExch(flags + g, 1ULL);\n}\n"
         "/* Group g once published (by an earlier tile: running or done). */\n"
         "template <typename A>\n"
         "static __device__ __forceinline__ A formac_scan_wait(const A* groups, const unsigned long long* flags, long long g) {\n"
         "  while (*(volatile const unsigned long long*)(flags + g) == 0) {\n  }\n"
         "  __threadfence();\n"
         "  return *(volatile const A*)(groups + g);\n}\n"
         "/* Tile t of `tiles` (> 1) along line `line`, its runs summing to `total` (G of the tile):\n"
         "   publishes G of the groups of 1, 2, 4, ... tiles that end at it (the group of 2^k tiles:\n"
         "   the published left half + its right half, which ends here), then returns E at the\n"
         "   tile's first run, the groups of t's bits, largest first, added from +0.0: ir's\n"
         "   E[r] = E[r - b] + G(r - b, b) unrolled. flags[0] is the tile counter. */\n"
         "template <typename A>\n"
         "static __device__ A formac_scan_lookback(A* groups, unsigned long long* flags, long long line, long long tiles,\n"
         "                                         long long t, A total) {\n"
         "  const long long per = formac_scan_line_groups(tiles);\n"
         "  A* g = groups + line * per;\n"
         "  unsigned long long* f = flags + 1 + line * per;\n"
         "  A v = total;\n"
         "  formac_scan_publish(g, f, formac_scan_group(tiles, 0, t), v);\n"
         "  for (int k = 1; ((t + 1) & ((1LL << k) - 1)) == 0; ++k) {\n"
         "    v = formac_scan_wait(g, f, formac_scan_group(tiles, k - 1, t - (1LL << (k - 1)))) + v;\n"
         "    formac_scan_publish(g, f, formac_scan_group(tiles, k, t), v);\n"
         "  }\n"
         "  A e = (A)0;\n"
         "  long long s = 0;\n"
         "  for (int k = 62; k >= 0; --k)\n"
         "    if ((t >> k) & 1) {\n"
         "      e = e + formac_scan_wait(g, f, formac_scan_group(tiles, k, s + (1LL << k) - 1));\n"
         "      s += 1LL << k;\n"
         "    }\n"
         "  return e;\n}\n\n";
}

std::string emitScanKernelsCuda(const ScanCuda& c) {
  std::string t;
  for (const Pass& p : passesOf(c)) t += p.dim == rankOf(*c.stage) - 1 ? rowKernel(c, p) : columnKernel(c, p);
  return t;
}

HostStep scheduleScanCuda(const ScanCuda& c, LaunchSchedule& s) {
  std::vector<Pass> passes = passesOf(c);
  std::vector<HostStep> t;
  for (const Pass& p : passes) t.push_back(passSchedule(c, p, s));
  return hblock(c.stage->name + " = " + c.stage->origin + ": " +
                    (passes.size() > 1 ? "one scan per dimension, the last first" : "a scan") +
                    ", tiles in order, a look-back over published groups",
                std::move(t));
}

}  // namespace formac::codegen
