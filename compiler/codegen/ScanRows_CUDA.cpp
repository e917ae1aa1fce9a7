// The kernels of a scan along one dimension (Scan_CUDA.h): along the last
// (contiguous lines, vector loads where aligned) and along an earlier one
// (strided lines, coalesced across columns).
#include "codegen/ScanKernel_CUDA.h"

namespace formac::codegen::scan_cuda {
namespace {

const std::string kRun = str(ir::kScanRun);

// Row kernel: the place of the thread's run formac_i in its tile and along
// its line (formac_r), its line and whether it is in the domain; `indices`
// also declares q0.. of the line.
std::string rowRunPlace(int L, bool indices, const std::string& in) {
  std::string t = in + "const int formac_rho = formac_i * " + str(kCudaThreads) + " + formac_j;  /* the run in the tile */\n" +
                  in + "const long long formac_line = formac_tpl > 1 ? formac_tile % formac_lines\n" + in +
                  "    : formac_tile * (formac_tile_runs / formac_seg) + formac_rho / formac_seg;\n" + in +
                  "const int formac_jl = formac_rho % formac_seg;  /* the run in its line's segment */\n" + in +
                  "const long long formac_r = formac_t * formac_tile_runs + formac_jl;  /* the run along its line */\n" +
                  in + "const bool formac_live = formac_line < formac_lines && formac_r < formac_runs;\n" + in +
                  "const I formac_at = (I)(formac_live ? formac_line * formac_len + formac_r * " + kRun +
                  " : 0);  /* its first value */\n";
  if (indices)
    t += in + "long long formac_rest = formac_live ? formac_line : 0;\n" + indicesFrom(0, L, in) + in + "(void)formac_rest;\n";
  return t;
}

// The thread's values of run formac_i into formac_x[formac_i] (a vector load
// when the input is an aligned image and the run whole), and its total
// formac_acc from +0.0 (ir's order).
std::string loadRun(const ScanCuda& c, const Pass& p, const std::string& qd, const std::string& len,
                    const std::string& at, const std::string& vector, const std::string& in) {
  std::string direct = p.first ? directInput(c) : "", t;
  std::string inside = "formac_r * " + kRun + " + formac_u < " + len;
  std::string scalar = in + "#pragma unroll\n" + in + "for (int formac_u = 0; formac_u < " + kRun + "; ++formac_u) {\n" +
                       in + "  const I " + qd + " = (I)(formac_r * " + kRun + " + formac_u);\n" + in + "  if (" +
                       inside + ") {\n" + loadValue(c, p, at, "formac_x[formac_i][formac_u]", in + "    ") + in +
                       "  }\n" + in + "}\n";
  if (!direct.empty() && !vector.empty())
    t = in + "if (" + vector + " && formac_r * " + kRun + " + " + kRun + " <= " + len + ") {\n" + in +
        "  formac_scan_load_run(" + direct + " + formac_at, formac_x[formac_i]);\n" + in + "} else {\n" +
        scalar + in + "}\n";
  else
    t = scalar;
  return in + "A_ formac_acc = (A_)0;\n" + in + "if (formac_live) {\n" + t + in + "#pragma unroll\n" + in +
         "  for (int formac_u = 0; formac_u < " + kRun + "; ++formac_u)\n" + in + "    if (" + inside +
         ") formac_acc = formac_acc + " + accumulated(c, p, "formac_x[formac_i][formac_u]") + ";\n" + in + "}\n";
}

// Stores run formac_i: each value E (formac_e) + its run prefix, recomputed
// from formac_x in the same order; `stride` between values.
std::string storeRun(const ScanCuda& c, const Pass& p, const std::string& len, const std::string& stride,
                     const std::string& vector, const std::string& in) {
  std::string out = outBuffer(p), T = storedType(c, p.last);
  std::string inside = "formac_r * " + kRun + " + formac_u < " + len;
  std::string add = "formac_acc = formac_acc + " + accumulated(c, p, "formac_x[formac_i][formac_u]") + ";";
  std::string at = stride.empty() ? "formac_at + formac_u" : "formac_at + formac_u * " + stride;
  std::string scalar = in + "#pragma unroll\n" + in + "for (int formac_u = 0; formac_u < " + kRun + "; ++formac_u)\n" +
                       in + "  if (" + inside + ") {\n" + in + "    " + add + "\n" + in + "    " + out + "[" + at +
                       "] = " + stored(c, p, "formac_e + formac_acc") + ";\n" + in + "  }\n";
  std::string t = in + "A_ formac_acc = (A_)0;\n";
  if (vector.empty()) return t + scalar;
  return t + in + "if (" + vector + " && formac_r * " + kRun + " + " + kRun + " <= " + len + ") {\n" + in + "  " + T +
         " formac_o[" + kRun + "];\n" + in + "#pragma unroll\n" + in + "  for (int formac_u = 0; formac_u < " + kRun +
         "; ++formac_u) {\n" + in + "    " + add + "\n" + in + "    formac_o[formac_u] = " +
         stored(c, p, "formac_e + formac_acc") + ";\n" + in + "  }\n" + in + "  formac_scan_store_run(" + out +
         " + formac_at, formac_o);\n" + in + "} else {\n" + scalar + in + "}\n";
}

}  // namespace

// Along the last dimension: a tile of 256 x P runs, thread j taking runs j,
// j + 256, ...; lines shorter than a tile share it in segments of a
// power-of-two number of runs.
std::string rowKernel(const ScanCuda& c, const Pass& p) {
  std::string A = scanAccumulationType(*c.stage), V = valueType(c, p.first), T = storedType(c, p.last);
  int P = runsPerThread(c, p.first), R = rowTileRuns(c), L = rankOf(*c.stage) - 1;
  std::string direct = p.first ? directInput(c) : "";
  std::string t = kernelHeader(c, p, "dimension " + str(L) + ": a tile of " + str(R) + " runs of " + kRun +
                                         " values, " + str(P) + " a thread",
                               str(kCudaThreads)) +
                  "  typedef " + A + " A_;\n"
                  "  const long long formac_len = (long long)" + n(L) + ";  /* values along a line */\n"
                  "  const long long formac_lines = " + product(0, L) + ";\n"
                  "  const long long formac_runs = (formac_len + " + str(ir::kScanRun - 1) + ") / " + kRun + ";\n"
                  "  const int formac_tile_runs = " + str(R) + ";\n"
                  "  const long long formac_tpl = formac_scan_line_tiles(formac_len, formac_tile_runs);  /* tiles along a line */\n"
                  "  /* The runs of one line in a tile (a power of two): lines of one tile share it. */\n"
                  "  const int formac_seg = (int)(formac_tpl > 1 ? formac_tile_runs : formac_scan_segment(formac_runs, formac_tile_runs));\n"
                  "  const long long formac_tiles = formac_scan_row_tiles(formac_len, formac_lines, formac_tile_runs);\n"
                  "  const int formac_j = (int)threadIdx.x;\n";
  if (!direct.empty())
    t += "  const bool formac_vin = formac_scan_vector_ok(" + direct + ", formac_len, (int)sizeof(" + V + "));\n";
  t += "  const bool formac_vout = formac_scan_vector_ok(" + outBuffer(p) + ", formac_len, (int)sizeof(" + T + "));\n"
       "  __shared__ A_ formac_sum[" + str(R) + "];\n"
       "  __shared__ A_ formac_carry;\n"
       "  __shared__ long long formac_tile_at;\n" +
       nextTile("formac_j == 0") +
       "    const long long formac_t = formac_tpl > 1 ? formac_tile / formac_lines : 0;  /* the tile's place along its line */\n"
       "    " + V + " formac_x[" + str(P) + "][" + kRun + "];\n"
       "#pragma unroll\n"
       "    for (int formac_i = 0; formac_i < " + str(P) + "; ++formac_i) {\n" +
       rowRunPlace(L, true, "      ") +
       loadRun(c, p, q(L), "formac_len", "formac_at + formac_u", direct.empty() ? "" : "formac_vin", "      ") +
       "      formac_sum[formac_rho] = formac_acc;\n"
       "    }\n" +
       upSweep("formac_seg", "for (int formac_i = 0; formac_i < " + str(P) + "; ++formac_i)",
               "(formac_i * " + str(kCudaThreads) + " + formac_j)",
               [](const std::string& i) { return "formac_sum[" + i + "]"; }, "    ") +
       "    /* A line of several tiles: warp 0 publishes this tile's groups and finds the carry E at its first run. */\n"
       "    if (formac_tpl > 1 && formac_j < 32) {\n"
       "      const A_ formac_e = formac_scan_lookback<32>(formac_groups, formac_tile % formac_lines, formac_tpl, formac_t,\n"
       "                                                    formac_sum[" + str(R - 1) + "], formac_j, true);\n"
       "      if (formac_j == 0) formac_carry = formac_e;\n"
       "    }\n"
       "    __syncthreads();\n"
       "#pragma unroll\n"
       "    for (int formac_i = 0; formac_i < " + str(P) + "; ++formac_i) {\n" +
       rowRunPlace(L, false, "      ") +
       "      if (formac_live) {\n"
       "        /* E at run r: the carry, then the tile's groups of the bits of jl, largest first. */\n"
       "        A_ formac_e = formac_tpl > 1 ? formac_carry : (A_)0;\n" +
       addGroupsOfBits("formac_e", "formac_jl", "formac_seg", "formac_rho - formac_jl",
                       [](const std::string& i) { return "formac_sum[" + i + "]"; }, "        ") +
       storeRun(c, p, "formac_len", "", "formac_vout", "        ") +
       "      }\n"
       "    }\n"
       "    __syncthreads();  /* the next tile reuses the shared arrays */\n"
       "  }\n"
       "}\n\n";
  return t;
}

// Along an earlier dimension: 32 consecutive columns x 8 x P runs down each
// a tile, thread (x, y) taking runs y, y + 8, ... of column x; the
// look-back per column, 8 lanes each.
std::string columnKernel(const ScanCuda& c, const Pass& p) {
  std::string A = scanAccumulationType(*c.stage), V = valueType(c, p.first), C = str(kColumns);
  int P = runsPerThread(c, p.first), Y = columnTileRuns(c, p.first), rank = rankOf(*c.stage), D = p.dim;
  std::string Ys = str(Y), TY = str(kColumnThreadRows);
  std::string place = "      const int formac_rho = formac_i * " + TY + " + formac_ty;  /* the run in the tile */\n"
                      "      const long long formac_r = formac_t * " + Ys + " + formac_rho;  /* the run down the column */\n"
                      "      const bool formac_live = formac_cl && formac_r < formac_runs;\n"
                      "      const I formac_at = (I)(formac_live ? (formac_o * formac_len + formac_r * " + kRun +
                      ") * formac_inner + formac_c : 0);  /* its first value */\n";
  std::string t =
      kernelHeader(c, p, "dimension " + str(D) + ": a tile of " + C + " columns x " + Ys + " runs of " + kRun +
                             " values down each, " + str(P) + " a thread",
                   str(kCudaThreads)) +
      "  typedef " + A + " A_;\n"
      "  const long long formac_len = (long long)" + n(D) + ";  /* values along a column */\n"
      "  const long long formac_outer = " + product(0, D) + ";  /* slices before dimension " + str(D) + " */\n"
      "  const long long formac_inner = " + product(D + 1, rank) + ";  /* columns of a slice */\n"
      "  const long long formac_runs = (formac_len + " + str(ir::kScanRun - 1) + ") / " + kRun + ";\n"
      "  const long long formac_tpl = formac_scan_line_tiles(formac_len, " + Ys + ");  /* tiles down a column */\n"
      "  const long long formac_csets = (formac_inner + " + str(kColumns - 1) + ") / " + C + ";  /* sets of " + C +
      " columns in a slice */\n"
      "  const long long formac_sets = formac_outer * formac_csets;\n"
      "  const long long formac_tiles = formac_sets * formac_tpl;\n"
      "  const int formac_tx = (int)threadIdx.x, formac_ty = (int)threadIdx.y;\n"
      "  const int formac_f = formac_ty * " + C + " + formac_tx;  /* the look-back: 8 lanes a column */\n"
      "  __shared__ A_ formac_sum[" + Ys + "][" + C + "];\n"
      "  __shared__ A_ formac_carry[" + C + "];\n"
      "  __shared__ long long formac_tile_at;\n" +
      nextTile("formac_f == 0") +
      "    /* Tiles go down the columns level by level: t along the column, then the set. */\n"
      "    const long long formac_t = formac_tile / formac_sets, formac_set = formac_tile % formac_sets;\n"
      "    const long long formac_o = formac_set / formac_csets;\n"
      "    const long long formac_c0 = formac_set % formac_csets * " + C + ";\n"
      "    const long long formac_c = formac_c0 + formac_tx;  /* the column */\n"
      "    const bool formac_cl = formac_c < formac_inner;\n"
      "    long long formac_rest = formac_cl ? formac_c : 0;\n" +
      indicesFrom(D + 1, rank, "    ") + "    formac_rest = formac_o;\n" + indicesFrom(0, D, "    ") +
      "    (void)formac_rest;\n"
      "    const I formac_stride = (I)formac_inner;\n"
      "    " + V + " formac_x[" + str(P) + "][" + kRun + "];\n"
      "#pragma unroll\n"
      "    for (int formac_i = 0; formac_i < " + str(P) + "; ++formac_i) {\n" +
      place + loadRun(c, p, q(D), "formac_len", "formac_at + formac_u * formac_stride", "", "      ") +
      "      formac_sum[formac_rho][formac_tx] = formac_acc;\n"
      "    }\n" +
      upSweep(Ys, "for (int formac_i = 0; formac_i < " + str(P) + "; ++formac_i)", "(formac_i * " + TY + " + formac_ty)",
              [](const std::string& i) { return "formac_sum[" + i + "][formac_tx]"; }, "    ") +
      "    /* A column of several tiles: publish this tile's groups, then the carry E at its first run. */\n"
      "    if (formac_tpl > 1) {\n"
      "      const int formac_col = formac_f / 8, formac_lane = formac_f % 8;\n"
      "      const A_ formac_e = formac_scan_lookback<8>(formac_groups,\n"
      "          formac_o * formac_inner + formac_c0 + formac_col, formac_tpl, formac_t, formac_sum[" + str(Y - 1) +
      "][formac_col],\n"
      "          formac_lane, formac_c0 + formac_col < formac_inner);\n"
      "      if (formac_lane == 0) formac_carry[formac_col] = formac_e;\n"
      "    }\n"
      "    __syncthreads();\n"
      "#pragma unroll\n"
      "    for (int formac_i = 0; formac_i < " + str(P) + "; ++formac_i) {\n" +
      place +
      "      if (formac_live) {\n"
      "        /* E at run r: the carry, then the tile's groups of the bits of rho, largest first. */\n"
      "        A_ formac_e = formac_tpl > 1 ? formac_carry[formac_tx] : (A_)0;\n" +
      addGroupsOfBits("formac_e", "formac_rho", Ys, "0",
                      [](const std::string& i) { return "formac_sum[" + i + "][formac_tx]"; }, "        ") +
      storeRun(c, p, "formac_len", "formac_stride", "", "        ") +
      "      }\n"
      "    }\n"
      "    __syncthreads();  /* the next tile reuses the shared arrays */\n"
      "  }\n"
      "}\n\n";
  return t;
}

}  // namespace formac::codegen::scan_cuda
