// The single-pass 2-D summed-area table (Scan_CUDA.h): a tile of 128 x 128
// points read once, scanned along its rows then down its columns in ir's
// floating Scan order, written once; the row carries come from the tiles to
// the left, the column carries from the tiles above, both by look-back.
#include "codegen/ScanKernel_CUDA.h"

namespace formac::codegen::scan_cuda {
namespace {

const std::string kRun = str(ir::kScanRun);
const std::string kT = str(kSatThreads);
const std::string kSide = str(kSatThreads * ir::kScanRun);  // points of a tile along each dimension
// The look-backs give each of a tile's lines (rows, then columns) kLanes of its threads.
constexpr int kLanes = kSatThreads * kSatThreads / (kSatThreads * ir::kScanRun);
static_assert(kLanes >= 1, "a SAT tile needs a thread for each of its lines");
const std::string kW = str(kLanes);
// The look-back's line and lane of thread formac_f.
const std::string kLine = kLanes == 1 ? "formac_f" : "formac_f / " + kW;
const std::string kLane = kLanes == 1 ? "0" : "formac_f % " + kW;
const std::string kLaneZero = kLanes == 1 ? "" : "if (formac_f % " + kW + " == 0) ";

// for (i) over the thread's 8 rows (or columns), unrolled.
std::string each(const std::string& var, const std::string& in) {
  return in + "#pragma unroll\n" + in + "for (int " + var + " = 0; " + var + " < " + kRun + "; ++" + var + ")\n";
}

// The sums of the thread's block down its 8 columns (formac_cacc[u], from
// +0.0, added to): row i's value is formac_erow[i] plus its run prefix along
// the row, recomputed from formac_x; `before` opens each row, `perValue`
// follows each value's sum, `then` ends the row.
std::string columnSums(const ScanCuda& c, const Pass& p, const std::string& before, const std::string& perValue,
                       const std::string& then, const std::string& in) {
  return each("formac_i", in) + in + "  if (formac_y0 + formac_i < formac_rows && formac_x0 < formac_cols) {\n" + in +
         "    A_ formac_lr = (A_)0;\n" + before + each("formac_u", in + "    ") + in +
         "      if (formac_x0 + formac_u < formac_cols) {\n" + in + "        formac_lr = formac_lr + " +
         accumulated(c, p, "formac_x[formac_i][formac_u]") + ";\n" + in +
         "        formac_cacc[formac_u] = formac_cacc[formac_u] + (formac_erow[formac_i] + formac_lr);\n" + perValue +
         in + "      }\n" + then + in + "  }\n";
}

}  // namespace

std::string satKernel(const ScanCuda& c, const Pass& p) {
  std::string A = scanAccumulationType(*c.stage), V = valueType(c, true), T = storedType(c, p.last);
  int a = p.dim, b = p.dim + 1;
  std::string direct = directInput(c), out = outBuffer(p);
  std::string at = "formac_at + formac_u";
  auto scalarLoad = [&](const std::string& in) {
    return each("formac_u", in) + in + "  if (formac_x0 + formac_u < formac_cols) {\n" + in + "    const I " + q(b) +
           " = (I)(formac_x0 + formac_u);\n" + loadValue(c, p, at, "formac_x[formac_i][formac_u]", in + "    ") + in +
           "  }\n";
  };
  std::string load = direct.empty()
                          ? scalarLoad("        ")
                          : "        if (formac_vin && formac_x0 + " + kRun + " <= formac_cols) {\n"
                            "          formac_scan_load_run(" + direct + " + formac_at, formac_x[formac_i]);\n"
                            "        } else {\n" + scalarLoad("          ") + "        }\n";
  auto rsum = [](const std::string& i) { return "formac_rsum[formac_ty * " + kRun + " + formac_i][" + i + "]"; };
  // Column c of the tile sits at slot (c % 8) * kT + c / 8 of formac_csum's rows and of
  // formac_ccarry, so that a warp's threads (consecutive tx) read consecutive slots: no bank
  // conflicts (by column, thread tx's column u would be 8 slots from its neighbour's).
  const std::string slot = "formac_u * " + kT + " + formac_tx";
  const std::string lineSlot = "(formac_line % " + kRun + ") * " + kT + " + formac_line / " + kRun;
  auto csum = [&](const std::string& i) { return "formac_csum[" + i + "][" + slot + "]"; };
  std::string t =
      kernelHeader(c, p, "dimensions " + str(a) + " and " + str(b) + ": a summed-area table in one pass, tiles of " +
                             kSide + " x " + kSide + " points, an 8 x 8 block a thread",
                   str(kSatThreads * kSatThreads) + ", " + str(512 / (kSatThreads * kSatThreads))) +
      "  typedef " + A + " A_;\n"
      "  const long long formac_rows = (long long)" + n(a) + ", formac_cols = (long long)" + n(b) + ";\n"
      "  const long long formac_slices = " + product(0, a) + ";\n"
      "  /* Tiles down and across a slice; every line of a tile is " + kT + " runs of it. */\n"
      "  const long long formac_tr = formac_scan_line_tiles(formac_rows, " + kT + ");\n"
      "  const long long formac_tc = formac_scan_line_tiles(formac_cols, " + kT + ");\n"
      "  const long long formac_tiles = formac_slices * formac_tr * formac_tc;\n"
      "  /* The rows' groups, then the columns' (words of two values: scanPreludeCuda). */\n"
      "  const long long formac_row_groups = formac_slices * formac_rows * formac_scan_line_groups(formac_tc);\n"
      "  const int formac_tx = (int)threadIdx.x, formac_ty = (int)threadIdx.y;\n"
      "  const int formac_f = formac_ty * " + kT + " + formac_tx;  /* the look-backs: " +
      (kLanes == 1 ? std::string("a thread") : kW + " lanes") + " a line */\n";
  if (!direct.empty())
    t += "  const bool formac_vin = formac_scan_vector_ok(" + direct + ", formac_cols, (int)sizeof(" + V + "));\n";
  t += "  const bool formac_vout = formac_scan_vector_ok(" + out + ", formac_cols, (int)sizeof(" + T + "));\n"
       "  __shared__ A_ formac_rsum[" + kSide + "][" + kT + "];  /* row-run totals, up-swept along each row */\n"
       "  __shared__ A_ formac_csum[" + kT + "][" + kSide + "];  /* column-run totals, up-swept down each column (in slots) */\n"
       "  __shared__ A_ formac_rcarry[" + kSide + "], formac_ccarry[" + kSide + "];\n"
       "  __shared__ long long formac_tile_at;\n" +
       nextTile("formac_f == 0") +
       "    const long long formac_slice = formac_tile / (formac_tr * formac_tc);\n"
       "    const long long formac_tt = formac_tile % (formac_tr * formac_tc);\n"
       "    const long long formac_trow = formac_tt / formac_tc, formac_tcol = formac_tt % formac_tc;\n"
       "    long long formac_rest = formac_slice;\n" +
       indicesFrom(0, a, "    ") +
       "    (void)formac_rest;\n"
       "    /* The thread's block: rows y0.., columns x0.. (a run along each). */\n"
       "    const long long formac_y0 = formac_trow * " + kSide + " + formac_ty * " + kRun + ";\n"
       "    const long long formac_x0 = formac_tcol * " + kSide + " + formac_tx * " + kRun + ";\n"
       "    " + V + " formac_x[" + kRun + "][" + kRun + "];\n" +
       each("formac_i", "    ") +
       "    {\n"
       "      const I " + q(a) + " = (I)(formac_y0 + formac_i);\n"
       "      const I formac_at = (I)((formac_slice * formac_rows + formac_y0 + formac_i) * formac_cols + formac_x0);\n"
       "      A_ formac_acc = (A_)0;\n"
       "      if (formac_y0 + formac_i < formac_rows && formac_x0 < formac_cols) {\n" +
       load + each("formac_u", "        ") +
       "          if (formac_x0 + formac_u < formac_cols) formac_acc = formac_acc + " +
       accumulated(c, p, "formac_x[formac_i][formac_u]") + ";\n"
       "      }\n"
       "      formac_rsum[formac_ty * " + kRun + " + formac_i][formac_tx] = formac_acc;\n"
       "    }\n" +
       upSweep(kT, "for (int formac_i = 0; formac_i < " + kRun + "; ++formac_i)", "formac_tx", rsum, "    ") +
       "    /* Rows of several tiles: publish this tile's groups along each row, find each row's carry. */\n"
       "    if (formac_tc > 1) {\n"
       "      const int formac_line = " + kLine + ";\n"
       "      const A_ formac_e = formac_scan_lookback<" + kW + ">(formac_groups,\n"
       "          formac_slice * formac_rows + formac_trow * " + kSide + " + formac_line, formac_tc, formac_tcol,\n"
       "          formac_rsum[formac_line][" + str(kSatThreads - 1) + "], " + kLane + ", formac_trow * " + kSide +
       " + formac_line < formac_rows);\n"
       "      " + kLaneZero + "formac_rcarry[formac_line] = formac_e;\n"
       "    }\n"
       "    __syncthreads();\n"
       "    /* E along each of the thread's rows at its run: the carry, then the tile's groups of the bits of tx. */\n"
       "    A_ formac_erow[" + kRun + "];\n" +
       each("formac_i", "    ") +
       "    {\n"
       "      formac_erow[formac_i] = formac_tc > 1 ? formac_rcarry[formac_ty * " + kRun + " + formac_i] : (A_)0;\n" +
       addGroupsOfBits("formac_erow[formac_i]", "formac_tx", kT, "0", rsum, "      ") +
       "    }\n"
       "    /* The row-scanned values summed down each of the thread's columns (a run of 8 each). */\n"
       "    A_ formac_cacc[" + kRun + "];\n" +
       each("formac_u", "    ") + "      formac_cacc[formac_u] = (A_)0;\n" +
       columnSums(c, p, "", "", "", "    ") +
       each("formac_u", "    ") + "      formac_csum[formac_ty][" + slot + "] = formac_cacc[formac_u];\n" +
       upSweep(kT, "for (int formac_u = 0; formac_u < " + kRun + "; ++formac_u)", "formac_ty", csum, "    ") +
       "    /* Columns of several tiles: publish this tile's groups down each column, find each column's carry. */\n"
       "    if (formac_tr > 1) {\n"
       "      const int formac_line = " + kLine + ";\n"
       "      const A_ formac_e = formac_scan_lookback<" + kW + ">(formac_groups + 2 * formac_row_groups,\n"
       "          formac_slice * formac_cols + formac_tcol * " + kSide + " + formac_line, formac_tr, formac_trow,\n"
       "          formac_csum[" + str(kSatThreads - 1) + "][" + lineSlot + "], " + kLane + ", formac_tcol * " + kSide +
       " + formac_line < formac_cols);\n"
       "      " + kLaneZero + "formac_ccarry[" + lineSlot + "] = formac_e;\n"
       "    }\n"
       "    __syncthreads();\n"
       "    /* E down each of the thread's columns at its run: the carry, then the tile's groups of the bits of ty. */\n"
       "    A_ formac_ecol[" + kRun + "];\n" +
       each("formac_u", "    ") +
       "    {\n"
       "      formac_ecol[formac_u] = formac_tr > 1 ? formac_ccarry[" + slot + "] : (A_)0;\n" +
       addGroupsOfBits("formac_ecol[formac_u]", "formac_ty", kT, "0", csum, "      ") +
       "      formac_cacc[formac_u] = (A_)0;\n"
       "    }\n"
       "    /* Each value: E down its column + its column-run prefix, row by row (a vector store when aligned). */\n" +
       columnSums(c, p, "        " + T + " formac_o[" + kRun + "];\n",
                  "            formac_o[formac_u] = " + stored(c, p, "formac_ecol[formac_u] + formac_cacc[formac_u]") + ";\n",
                  "        {\n"
                  "          const I formac_at = (I)((formac_slice * formac_rows + formac_y0 + formac_i) * formac_cols + formac_x0);\n"
                  "          if (formac_vout && formac_x0 + " + kRun + " <= formac_cols) {\n"
                  "            formac_scan_store_run(" + out + " + formac_at, formac_o);\n"
                  "          } else {\n" +
                      each("formac_u", "            ") +
                  "              if (formac_x0 + formac_u < formac_cols) " + out + "[" + at + "] = formac_o[formac_u];\n"
                  "          }\n"
                  "        }\n",
                  "    ") +
       "    __syncthreads();  /* the next tile reuses the shared arrays */\n"
       "  }\n"
       "}\n\n";
  return t;
}

}  // namespace formac::codegen::scan_cuda
