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
// `s` by the look-back's first lane of each line.
Stmt laneZero(Stmt s) { return kLanes == 1 ? s : ifThen("formac_f % " + kW + " == 0", {std::move(s)}); }

// The sums of the thread's block down its 8 columns (formac_cacc[u], from
// +0.0, added to): row i's value is formac_erow[i] plus its run prefix along
// the row, recomputed from formac_x; `before` opens each row, `perValue`
// follows each value's sum, `then` ends the row.
Stmt columnSums(const ScanCuda& c, const Pass& p, std::vector<Stmt> before, std::vector<Stmt> perValue,
                std::vector<Stmt> then) {
  std::string x = accumulated(c, p, "formac_x[formac_i][formac_u]");
  return upTo("formac_i", kRun,
              {ifThen("formac_y0 + formac_i < formac_rows && formac_x0 < formac_cols",
                      {decl("A_", "formac_lr", "(A_)0", false), seq(std::move(before)),
                       upTo("formac_u", kRun,
                            {ifThen("formac_x0 + formac_u < formac_cols",
                                    {assign("formac_lr", "formac_lr + " + x),
                                     assign("formac_cacc[formac_u]",
                                            "formac_cacc[formac_u] + (formac_erow[formac_i] + formac_lr)"),
                                     seq(std::move(perValue))})}),
                       seq(std::move(then))})});
}

}  // namespace

std::string satKernel(const ScanCuda& c, const Pass& p) {
  std::string A = scanAccumulationType(*c.stage), V = valueType(c, true), T = storedType(c, p.last);
  int a = p.dim, b = p.dim + 1;
  std::string direct = directInput(c), out = outBuffer(p);
  std::string at = "formac_at + formac_u";
  Stmt load = upTo("formac_u", kRun,
                   {ifThen("formac_x0 + formac_u < formac_cols",
                           {decl("I", q(b), "(I)(formac_x0 + formac_u)"),
                            loadValue(c, p, at, "formac_x[formac_i][formac_u]")})});
  if (!direct.empty())
    load = ifThen("formac_vin && formac_x0 + " + kRun + " <= formac_cols",
                  {eval("formac_scan_load_run(" + direct + " + formac_at, formac_x[formac_i])")}, {load});
  auto rsum = [](const std::string& i) { return "formac_rsum[formac_ty * " + kRun + " + formac_i][" + i + "]"; };
  // Column c of the tile sits at slot (c % 8) * kT + c / 8 of formac_csum's rows and of
  // formac_ccarry, so that a warp's threads (consecutive tx) read consecutive slots: no bank
  // conflicts (by column, thread tx's column u would be 8 slots from its neighbour's).
  const std::string slot = "formac_u * " + kT + " + formac_tx";
  const std::string lineSlot = "(formac_line % " + kRun + ") * " + kT + " + formac_line / " + kRun;
  auto csum = [&](const std::string& i) { return "formac_csum[" + i + "][" + slot + "]"; };
  const std::string firstAt = "(I)((formac_slice * formac_rows + formac_y0 + formac_i) * formac_cols + formac_x0)";
  std::vector<Stmt> t = {
      eval("typedef " + A + " A_"),
      decl("long long", "formac_rows", "(long long)" + n(a)),
      decl("long long", "formac_cols", "(long long)" + n(b)),
      decl("long long", "formac_slices", product(0, a)),
      comment("Tiles down and across a slice; every line of a tile is " + kT + " runs of it."),
      decl("long long", "formac_tr", "formac_scan_line_tiles(formac_rows, " + kT + ")"),
      decl("long long", "formac_tc", "formac_scan_line_tiles(formac_cols, " + kT + ")"),
      decl("long long", "formac_tiles", "formac_slices * formac_tr * formac_tc"),
      comment("The rows' groups, then the columns' (words of two values: scanPreludeCuda)."),
      decl("long long", "formac_row_groups", "formac_slices * formac_rows * formac_scan_line_groups(formac_tc)"),
      decl("int", "formac_tx", "(int)threadIdx.x"),
      decl("int", "formac_ty", "(int)threadIdx.y"),
      comment("the look-backs: " + (kLanes == 1 ? std::string("a thread") : kW + " lanes") + " a line"),
      decl("int", "formac_f", "formac_ty * " + kT + " + formac_tx")};
  if (!direct.empty())
    t.push_back(decl("bool", "formac_vin", "formac_scan_vector_ok(" + direct + ", formac_cols, (int)sizeof(" + V + "))"));
  t.push_back(decl("bool", "formac_vout", "formac_scan_vector_ok(" + out + ", formac_cols, (int)sizeof(" + T + "))"));
  t.push_back(comment("row-run totals, up-swept along each row"));
  t.push_back(declOnly("__shared__ A_", "formac_rsum[" + kSide + "][" + kT + "]"));
  t.push_back(comment("column-run totals, up-swept down each column (in slots)"));
  t.push_back(declOnly("__shared__ A_", "formac_csum[" + kT + "][" + kSide + "]"));
  t.push_back(declOnly("__shared__ A_", "formac_rcarry[" + kSide + "]"));
  t.push_back(declOnly("__shared__ A_", "formac_ccarry[" + kSide + "]"));
  t.push_back(declOnly("__shared__ long long", "formac_tile_at"));
  t.push_back(tileLoop(
      "formac_f == 0",
      {decl("long long", "formac_slice", "formac_tile / (formac_tr * formac_tc)"),
       decl("long long", "formac_tt", "formac_tile % (formac_tr * formac_tc)"),
       decl("long long", "formac_trow", "formac_tt / formac_tc"),
       decl("long long", "formac_tcol", "formac_tt % formac_tc"),
       decl("long long", "formac_rest", "formac_slice", false),
       seq(indicesFrom(0, a)),
       eval("(void)formac_rest"),
       comment("The thread's block: rows y0.., columns x0.. (a run along each)."),
       decl("long long", "formac_y0", "formac_trow * " + kSide + " + formac_ty * " + kRun),
       decl("long long", "formac_x0", "formac_tcol * " + kSide + " + formac_tx * " + kRun),
       declOnly(V, "formac_x[" + kRun + "][" + kRun + "]"),
       upTo("formac_i", kRun,
            {decl("I", q(a), "(I)(formac_y0 + formac_i)"),
             decl("I", "formac_at", firstAt),
             decl("A_", "formac_acc", "(A_)0", false),
             ifThen("formac_y0 + formac_i < formac_rows && formac_x0 < formac_cols",
                    {load, upTo("formac_u", kRun,
                                {ifThen("formac_x0 + formac_u < formac_cols",
                                        {assign("formac_acc",
                                                "formac_acc + " + accumulated(c, p, "formac_x[formac_i][formac_u]"))})})}),
             assign("formac_rsum[formac_ty * " + kRun + " + formac_i][formac_tx]", "formac_acc")}),
       seq(upSweep(kT, "formac_i", kRun, "formac_tx", rsum)),
       comment("Rows of several tiles: publish this tile's groups along each row, find each row's carry."),
       ifThen("formac_tc > 1",
              {decl("int", "formac_line", kLine),
               decl("A_", "formac_e",
                    "formac_scan_lookback<" + kW + ">(formac_groups, formac_slice * formac_rows + formac_trow * " + kSide +
                        " + formac_line, formac_tc, formac_tcol, formac_rsum[formac_line][" + str(kSatThreads - 1) + "], " +
                        kLane + ", formac_trow * " + kSide + " + formac_line < formac_rows)"),
               laneZero(assign("formac_rcarry[formac_line]", "formac_e"))}),
       eval("__syncthreads()"),
       comment("E along each of the thread's rows at its run: the carry, then the tile's groups of the bits of tx."),
       declOnly("A_", "formac_erow[" + kRun + "]"),
       upTo("formac_i", kRun,
            {assign("formac_erow[formac_i]", "formac_tc > 1 ? formac_rcarry[formac_ty * " + kRun + " + formac_i] : (A_)0"),
             addGroupsOfBits("formac_erow[formac_i]", "formac_tx", kT, "0", rsum)}),
       comment("The row-scanned values summed down each of the thread's columns (a run of 8 each)."),
       declOnly("A_", "formac_cacc[" + kRun + "]"),
       upTo("formac_u", kRun, {assign("formac_cacc[formac_u]", "(A_)0")}),
       columnSums(c, p, {}, {}, {}),
       upTo("formac_u", kRun, {assign("formac_csum[formac_ty][" + slot + "]", "formac_cacc[formac_u]")}),
       seq(upSweep(kT, "formac_u", kRun, "formac_ty", csum)),
       comment("Columns of several tiles: publish this tile's groups down each column, find each column's carry."),
       ifThen("formac_tr > 1",
              {decl("int", "formac_line", kLine),
               decl("A_", "formac_e",
                    "formac_scan_lookback<" + kW + ">(formac_groups + 2 * formac_row_groups, formac_slice * formac_cols + " +
                        "formac_tcol * " + kSide + " + formac_line, formac_tr, formac_trow, formac_csum[" +
                        str(kSatThreads - 1) + "][" + lineSlot + "], " + kLane + ", formac_tcol * " + kSide +
                        " + formac_line < formac_cols)"),
               laneZero(assign("formac_ccarry[" + lineSlot + "]", "formac_e"))}),
       eval("__syncthreads()"),
       comment("E down each of the thread's columns at its run: the carry, then the tile's groups of the bits of ty."),
       declOnly("A_", "formac_ecol[" + kRun + "]"),
       upTo("formac_u", kRun,
            {assign("formac_ecol[formac_u]", "formac_tr > 1 ? formac_ccarry[" + slot + "] : (A_)0"),
             addGroupsOfBits("formac_ecol[formac_u]", "formac_ty", kT, "0", csum),
             assign("formac_cacc[formac_u]", "(A_)0")}),
       comment("Each value: E down its column + its column-run prefix, row by row (a vector store when aligned)."),
       columnSums(c, p, {declOnly(T, "formac_o[" + kRun + "]")},
                  {assign("formac_o[formac_u]", stored(c, p, "formac_ecol[formac_u] + formac_cacc[formac_u]"))},
                  {block({decl("I", "formac_at", firstAt),
                          ifThen("formac_vout && formac_x0 + " + kRun + " <= formac_cols",
                                 {eval("formac_scan_store_run(" + out + " + formac_at, formac_o)")},
                                 {upTo("formac_u", kRun,
                                       {ifThen("formac_x0 + formac_u < formac_cols",
                                               {assign(out + "[" + at + "]", "formac_o[formac_u]")})})})})})}));
  return kernel(c, p, "dimensions " + str(a) + " and " + str(b) + ": a summed-area table in one pass, tiles of " + kSide +
                          " x " + kSide + " points, an 8 x 8 block a thread",
                str(kSatThreads * kSatThreads) + ", " + str(512 / (kSatThreads * kSatThreads)), std::move(t));
}

}  // namespace formac::codegen::scan_cuda
