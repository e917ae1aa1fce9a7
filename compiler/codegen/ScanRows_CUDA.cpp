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
std::vector<Stmt> rowRunPlace(int L, bool indices) {
  std::vector<Stmt> t = {
      comment("the run in the tile"),
      decl("int", "formac_rho", "formac_i * " + str(kCudaThreads) + " + formac_j"),
      decl("long long", "formac_line",
           "formac_tpl > 1 ? formac_tile % formac_lines"
           " : formac_tile * (formac_tile_runs / formac_seg) + formac_rho / formac_seg"),
      comment("the run in its line's segment"),
      decl("int", "formac_jl", "formac_rho % formac_seg"),
      comment("the run along its line"),
      decl("long long", "formac_r", "formac_t * formac_tile_runs + formac_jl"),
      decl("bool", "formac_live", "formac_line < formac_lines && formac_r < formac_runs"),
      comment("its first value"),
      decl("I", "formac_at", "(I)(formac_live ? formac_line * formac_len + formac_r * " + kRun + " : 0)")};
  if (indices) {
    t.push_back(decl("long long", "formac_rest", "formac_live ? formac_line : 0", false));
    t.push_back(seq(indicesFrom(0, L)));
    t.push_back(eval("(void)formac_rest"));
  }
  return t;
}

// The thread's values of run formac_i into formac_x[formac_i] (a vector load
// when the input is an aligned image and the run whole), and its total
// formac_acc from +0.0 (ir's order).
std::vector<Stmt> loadRun(const ScanCuda& c, const Pass& p, const std::string& qd, const std::string& len,
                          const std::string& at, const std::string& vector) {
  std::string direct = p.first ? directInput(c) : "";
  std::string inside = "formac_r * " + kRun + " + formac_u < " + len;
  std::string x = accumulated(c, p, "formac_x[formac_i][formac_u]");
  Stmt load = upTo("formac_u", kRun,
                   {decl("I", qd, "(I)(formac_r * " + kRun + " + formac_u)"),
                    ifThen(inside, {loadValue(c, p, at, "formac_x[formac_i][formac_u]")})});
  if (!direct.empty() && !vector.empty())
    load = ifThen(vector + " && formac_r * " + kRun + " + " + kRun + " <= " + len,
                  {eval("formac_scan_load_run(" + direct + " + formac_at, formac_x[formac_i])")}, {load});
  return {decl("A_", "formac_acc", "(A_)0", false),
          ifThen("formac_live",
                 {load, upTo("formac_u", kRun, {ifThen(inside, {assign("formac_acc", "formac_acc + " + x)})})})};
}

// Stores run formac_i: each value E (formac_e) + its run prefix, recomputed
// from formac_x in the same order; `stride` between values.
std::vector<Stmt> storeRun(const ScanCuda& c, const Pass& p, const std::string& len, const std::string& stride,
                           const std::string& vector) {
  std::string out = outBuffer(p), T = storedType(c, p.last);
  std::string inside = "formac_r * " + kRun + " + formac_u < " + len;
  Stmt add = assign("formac_acc", "formac_acc + " + accumulated(c, p, "formac_x[formac_i][formac_u]"));
  std::string at = stride.empty() ? "formac_at + formac_u" : "formac_at + formac_u * " + stride;
  Stmt scalar =
      upTo("formac_u", kRun, {ifThen(inside, {add, assign(out + "[" + at + "]", stored(c, p, "formac_e + formac_acc"))})});
  std::vector<Stmt> t = {decl("A_", "formac_acc", "(A_)0", false)};
  if (vector.empty()) {
    t.push_back(scalar);
    return t;
  }
  t.push_back(ifThen(vector + " && formac_r * " + kRun + " + " + kRun + " <= " + len,
                     {declOnly(T, "formac_o[" + kRun + "]"),
                      upTo("formac_u", kRun, {add, assign("formac_o[formac_u]", stored(c, p, "formac_e + formac_acc"))}),
                      eval("formac_scan_store_run(" + out + " + formac_at, formac_o)")},
                     {scalar}));
  return t;
}

}  // namespace

// Along the last dimension: a tile of 256 x P runs, thread j taking runs j,
// j + 256, ...; lines shorter than a tile share it in segments of a
// power-of-two number of runs.
std::string rowKernel(const ScanCuda& c, const Pass& p) {
  std::string A = scanAccumulationType(*c.stage), V = valueType(c, p.first), T = storedType(c, p.last);
  int P = runsPerThread(c, p.first), R = rowTileRuns(c), L = rankOf(*c.stage) - 1;
  std::string direct = p.first ? directInput(c) : "";
  auto sum = [](const std::string& i) { return "formac_sum[" + i + "]"; };
  std::vector<Stmt> t = {
      eval("typedef " + A + " A_"),
      comment("values along a line"),
      decl("long long", "formac_len", "(long long)" + n(L)),
      decl("long long", "formac_lines", product(0, L)),
      decl("long long", "formac_runs", "(formac_len + " + str(ir::kScanRun - 1) + ") / " + kRun),
      decl("int", "formac_tile_runs", str(R)),
      comment("tiles along a line"),
      decl("long long", "formac_tpl", "formac_scan_line_tiles(formac_len, formac_tile_runs)"),
      comment("The runs of one line in a tile (a power of two): lines of one tile share it."),
      decl("int", "formac_seg",
           "(int)(formac_tpl > 1 ? formac_tile_runs : formac_scan_segment(formac_runs, formac_tile_runs))"),
      decl("long long", "formac_tiles", "formac_scan_row_tiles(formac_len, formac_lines, formac_tile_runs)"),
      decl("int", "formac_j", "(int)threadIdx.x")};
  if (!direct.empty())
    t.push_back(decl("bool", "formac_vin", "formac_scan_vector_ok(" + direct + ", formac_len, (int)sizeof(" + V + "))"));
  t.push_back(
      decl("bool", "formac_vout", "formac_scan_vector_ok(" + outBuffer(p) + ", formac_len, (int)sizeof(" + T + "))"));
  t.push_back(declOnly("__shared__ A_", "formac_sum[" + str(R) + "]"));
  t.push_back(declOnly("__shared__ A_", "formac_carry"));
  t.push_back(declOnly("__shared__ long long", "formac_tile_at"));
  t.push_back(tileLoop(
      "formac_j == 0",
      {comment("the tile's place along its line"),
       decl("long long", "formac_t", "formac_tpl > 1 ? formac_tile / formac_lines : 0"),
       declOnly(V, "formac_x[" + str(P) + "][" + kRun + "]"),
       upTo("formac_i", str(P),
            {seq(rowRunPlace(L, true)),
             seq(loadRun(c, p, q(L), "formac_len", "formac_at + formac_u", direct.empty() ? "" : "formac_vin")),
             assign("formac_sum[formac_rho]", "formac_acc")}),
       seq(upSweep("formac_seg", "formac_i", str(P), "(formac_i * " + str(kCudaThreads) + " + formac_j)", sum)),
       comment("A line of several tiles: warp 0 publishes this tile's groups and finds the carry E at its first run."),
       ifThen("formac_tpl > 1 && formac_j < 32",
              {decl("A_", "formac_e",
                    "formac_scan_lookback<32>(formac_groups, formac_tile % formac_lines, formac_tpl, formac_t, "
                    "formac_sum[" + str(R - 1) + "], formac_j, true)"),
               ifThen("formac_j == 0", {assign("formac_carry", "formac_e")})}),
       eval("__syncthreads()"),
       upTo("formac_i", str(P),
            {seq(rowRunPlace(L, false)),
             ifThen("formac_live",
                    {comment("E at run r: the carry, then the tile's groups of the bits of jl, largest first."),
                     decl("A_", "formac_e", "formac_tpl > 1 ? formac_carry : (A_)0", false),
                     addGroupsOfBits("formac_e", "formac_jl", "formac_seg", "formac_rho - formac_jl", sum),
                     seq(storeRun(c, p, "formac_len", "", "formac_vout"))})})}));
  return kernel(c, p,
                "dimension " + str(L) + ": a tile of " + str(R) + " runs of " + kRun + " values, " + str(P) + " a thread",
                str(kCudaThreads), std::move(t));
}

// Along an earlier dimension: 32 consecutive columns x 8 x P runs down each
// a tile, thread (x, y) taking runs y, y + 8, ... of column x; the
// look-back per column, 8 lanes each.
std::string columnKernel(const ScanCuda& c, const Pass& p) {
  std::string A = scanAccumulationType(*c.stage), V = valueType(c, p.first), C = str(kColumns);
  int P = runsPerThread(c, p.first), Y = columnTileRuns(c, p.first), rank = rankOf(*c.stage), D = p.dim;
  std::string Ys = str(Y), TY = str(kColumnThreadRows);
  auto sum = [](const std::string& i) { return "formac_sum[" + i + "][formac_tx]"; };
  std::vector<Stmt> place = {
      comment("the run in the tile"),
      decl("int", "formac_rho", "formac_i * " + TY + " + formac_ty"),
      comment("the run down the column"),
      decl("long long", "formac_r", "formac_t * " + Ys + " + formac_rho"),
      decl("bool", "formac_live", "formac_cl && formac_r < formac_runs"),
      comment("its first value"),
      decl("I", "formac_at",
           "(I)(formac_live ? (formac_o * formac_len + formac_r * " + kRun + ") * formac_inner + formac_c : 0)")};
  std::vector<Stmt> t = {
      eval("typedef " + A + " A_"),
      comment("values along a column"),
      decl("long long", "formac_len", "(long long)" + n(D)),
      comment("slices before dimension " + str(D)),
      decl("long long", "formac_outer", product(0, D)),
      comment("columns of a slice"),
      decl("long long", "formac_inner", product(D + 1, rank)),
      decl("long long", "formac_runs", "(formac_len + " + str(ir::kScanRun - 1) + ") / " + kRun),
      comment("tiles down a column"),
      decl("long long", "formac_tpl", "formac_scan_line_tiles(formac_len, " + Ys + ")"),
      comment("sets of " + C + " columns in a slice"),
      decl("long long", "formac_csets", "(formac_inner + " + str(kColumns - 1) + ") / " + C),
      decl("long long", "formac_sets", "formac_outer * formac_csets"),
      decl("long long", "formac_tiles", "formac_sets * formac_tpl"),
      decl("int", "formac_tx", "(int)threadIdx.x"),
      decl("int", "formac_ty", "(int)threadIdx.y"),
      comment("the look-back: 8 lanes a column"),
      decl("int", "formac_f", "formac_ty * " + C + " + formac_tx"),
      declOnly("__shared__ A_", "formac_sum[" + Ys + "][" + C + "]"),
      declOnly("__shared__ A_", "formac_carry[" + C + "]"),
      declOnly("__shared__ long long", "formac_tile_at"),
      tileLoop(
          "formac_f == 0",
          {comment("Tiles go down the columns level by level: t along the column, then the set."),
           decl("long long", "formac_t", "formac_tile / formac_sets"),
           decl("long long", "formac_set", "formac_tile % formac_sets"),
           decl("long long", "formac_o", "formac_set / formac_csets"),
           decl("long long", "formac_c0", "formac_set % formac_csets * " + C),
           comment("the column"),
           decl("long long", "formac_c", "formac_c0 + formac_tx"),
           decl("bool", "formac_cl", "formac_c < formac_inner"),
           decl("long long", "formac_rest", "formac_cl ? formac_c : 0", false),
           seq(indicesFrom(D + 1, rank)),
           assign("formac_rest", "formac_o"),
           seq(indicesFrom(0, D)),
           eval("(void)formac_rest"),
           decl("I", "formac_stride", "(I)formac_inner"),
           declOnly(V, "formac_x[" + str(P) + "][" + kRun + "]"),
           upTo("formac_i", str(P),
                {seq(place), seq(loadRun(c, p, q(D), "formac_len", "formac_at + formac_u * formac_stride", "")),
                 assign("formac_sum[formac_rho][formac_tx]", "formac_acc")}),
           seq(upSweep(Ys, "formac_i", str(P), "(formac_i * " + TY + " + formac_ty)", sum)),
           comment("A column of several tiles: publish this tile's groups, then the carry E at its first run."),
           ifThen("formac_tpl > 1",
                  {decl("int", "formac_col", "formac_f / 8"),
                   decl("int", "formac_lane", "formac_f % 8"),
                   decl("A_", "formac_e",
                        "formac_scan_lookback<8>(formac_groups, formac_o * formac_inner + formac_c0 + formac_col, "
                        "formac_tpl, formac_t, formac_sum[" + str(Y - 1) + "][formac_col], formac_lane, "
                        "formac_c0 + formac_col < formac_inner)"),
                   ifThen("formac_lane == 0", {assign("formac_carry[formac_col]", "formac_e")})}),
           eval("__syncthreads()"),
           upTo("formac_i", str(P),
                {seq(place),
                 ifThen("formac_live",
                        {comment("E at run r: the carry, then the tile's groups of the bits of rho, largest first."),
                         decl("A_", "formac_e", "formac_tpl > 1 ? formac_carry[formac_tx] : (A_)0", false),
                         addGroupsOfBits("formac_e", "formac_rho", Ys, "0", sum),
                         seq(storeRun(c, p, "formac_len", "formac_stride", ""))})})})};
  return kernel(c, p, "dimension " + str(D) + ": a tile of " + C + " columns x " + Ys + " runs of " + kRun +
                          " values down each, " + str(P) + " a thread",
                str(kCudaThreads), std::move(t));
}

}  // namespace formac::codegen::scan_cuda
