#include "codegen/FusedKernel_CUDA.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedKernelND_CUDA.h"
#include "codegen/FusedLayout_CUDA.h"
#include "codegen/FusedStaging_CUDA.h"
#include "codegen/Select_CUDA.h"
#include "codegen/StageFacts.h"

namespace formac::codegen {

// The points per thread in the sweep of heavy groups (seed 002's register
// tiling): kRows vertically adjacent rows of kCols adjacent columns, which
// share the taps they read (and nvcc the products of them). Fixed: choosing
// the rows per region to save a partial last pass (5 rows of a 32 x 66
// region: 2 passes instead of 3) measured 5-17% slower on the H100, as rows
// past the region's end need guards that keep nvcc from issuing the rows'
// loads together; clamping those rows instead (no guards) measured 4-8%
// slower. Of 4x1, 8x1, 2x2, 4x2, 6x2, 8x2, 4x3, 2x4 and 4x4, 4x2 was fastest
// for harris and canny (8192^2: -9% and -17% against 4x1; more points per
// thread cost more registers than their shared loads save).
constexpr int kRows = 4;
constexpr int kCols = 2;

namespace {

// A histogram counted by a fused kernel (FusionGroup::epilogue) keeps its
// copies (Select_CUDA.h, histogramCopies) in shared memory after the tiles,
// 16-byte aligned.
long long countsOffset(long long tiles) { return (tiles + 15) / 16 * 16; }

// The kernel of a rank-2 group: one block per sink tile (FusedKernel_CUDA.h).
class FusedWriter : public FusedStages {
 public:
  explicit FusedWriter(const FusedKernelRequest& r) : FusedStages(r), L_(p_, g_) {}

  std::string run() {
    std::ostringstream os;
    os << "/* Fused: ";
    for (int id : ids_) os << name(id) << (id == g_.sink ? "" : ", ");
    os << " -- one block per " << TY() << "x" << TX() << " tile of " << name(g_.sink)
       << " (seed 003, Algorithm 1).\n   In shared memory: ";
    bool any = false;
    for (const auto& m : g_.members)
      if (!m.inlined) os << (any ? ", " : "") << name(m.stage), any = true;
    os << (any ? "" : "nothing") << ". Recomputed where read: ";
    any = false;
    for (const auto& m : g_.members)
      if (m.inlined) os << (any ? ", " : "") << name(m.stage), any = true;
    os << (any ? "" : "nothing") << ".";
    if (!L_.staged().empty()) {
      os << "\n   Copied to shared memory first (interior blocks, rows 16-byte aligned): ";
      for (size_t i = 0; i < L_.staged().size(); ++i) os << (i ? ", " : "") << name(L_.staged()[i].input);
      os << ".";
    }
    os << " */\n";
    for (int id : ids_) os << stageComment(p_, n_, stage(id), r_.sourcePath);
    if (g_.epilogue >= 0) os << counting().helpers;
    os << "template <typename I, int formac_blocks = 0>  /* resident blocks per SM asked of ptxas (0: its choice) */\n"
       << "__global__ void __launch_bounds__(" << kCudaThreads << ", formac_blocks) " << r_.kernelName
       << "(" << printerFor(true).params(r_.params) << ") {\n";
    std::string body;
    if (g_.epilogue >= 0) {
      body = countingBody();
    } else {
      body = "  const I t0 = (I)blockIdx.y * " + std::to_string(TY()) + ";\n"
             "  const I t1 = (I)blockIdx.x * " + std::to_string(TX()) + ";\n"
             "  const int formac_tid = threadIdx.y * 32 + threadIdx.x;\n" +
             tiles() + boxes() + interiorFlag("  ") + lambdas();
      for (size_t b = 0; b < L_.batches().size(); ++b) body += batchCode(b) + "  __syncthreads();\n";
      body += sinkCode();
    }
    os << unusedParameters(n_.param, body) << body << "}\n\n";
    return os.str();
  }

 private:
  int TY() const { return g_.tile[0]; }
  int TX() const { return g_.tile[1]; }
  int H(int id) const { return L_.H(id); }
  int W(int id) const { return L_.W(id); }
  std::string r0(int id) const { return regionOrigin(id, 0); }
  std::string c0(int id) const { return regionOrigin(id, 1); }

  // Reads of inputs go to their copies in shared memory while staged_ lists them.
  std::string memoryRead(int id, const std::vector<std::string>& idx) const override {
    for (const Staged* s : staged_)
      if (s->input == id)
        return stagedName(id) + "[(int)((" + idx[0] + ") - " + origin(*s, 0) + ") * " + std::to_string(s->size[1]) +
               " + (int)((" + idx[1] + ") - " + origin(*s, 1) + ")]";
    return memoryElement(id, idx);
  }
  LoopNestOptions options(int id, bool checked) const override {
    LoopNestOptions lo = FusedStages::options(id, checked);
    if (bounded_) {
      lo.boundedRead = [this](const ir::Expr& e) {
        for (const Staged* s : staged_)
          if (s->input == e.producer) return checksBound(*s);
        return false;
      };
      lo.boundedFormUsed = &boundedFormUsed_;
    }
    return lo;
  }

  using Staged = GroupLayout::Staged;
  std::string stagedName(int id) const { return staging_.copyName(id); }
  static std::string origin(const Staged& s, size_t d) { return StagedCopies::origin(s, d); }
  bool checksBound(const Staged& s) const { return staging_.checksBound(s); }

  // Shared memory: one tile per member that is not inlined, and the copies
  // of staged inputs (over the tiles of later loops).
  std::string tiles() const {
    std::string t;
    auto declare = [&](int id, const std::string& var, long long at, int h, int w, const std::string& note) {
      if (t.empty()) t = "  extern __shared__ __align__(16) unsigned char formac_smem[];\n";
      std::string T = cType(stage(id).type);
      t += "  " + T + "* const " + var + " = reinterpret_cast<" + T + "*>(formac_smem + " + std::to_string(at) +
           ");  /* " + std::to_string(h) + " x " + std::to_string(w) + note + " */\n";
    };
    for (const auto& m : g_.members)
      if (!m.inlined) declare(m.stage, "tile_" + name(m.stage), L_.tileOffset(m.stage), H(m.stage), W(m.stage), "");
    for (const Staged& s : L_.staged())
      declare(s.input, stagedName(s.input), s.offset, s.size[0], s.size[1],
              ": " + name(s.input) + " from " + origin(s, 0) + ", " + origin(s, 1) + ", staged");
    return t;
  }

  // How one point is stored: the statement for stage `id`, tile row and
  // column expressions, and the value.
  using Store = std::function<std::string(int, const std::string&, const std::string&, const std::string&)>;

  // Border blocks compute the points of a region where the check-free code is
  // exact (rows formac_ra..formac_rb, columns formac_ca..formac_cb of the
  // region, the `rect`) with the interior code, every row and column clamped
  // into the rect (points outside it recomputed, not stored).
  static std::string inRect(const std::string& raw, bool row) {
    return row ? "formac_min_i(formac_max_i(" + raw + ", formac_ra), formac_rb)"
               : "formac_min_i(formac_max_i(" + raw + ", formac_ca), formac_cb)";
  }
  // The declaration of the column c a thread computes, `raw`; with `border`
  // clamped into the rect (formac_c keeps the raw one for rowPoint's test).
  static std::string columnIndex(const std::string& raw, bool border) {
    return border ? "formac_c = " + raw + ", c = " + inRect("formac_c", false) : "c = " + raw;
  }

  // The rows a thread computes: `rows` adjacent rows from `r`; with `clamp`,
  // a row past the region's end is clamped to its last row, with `border`
  // into the rect (recomputed, not stored: every load stays unconditional).
  std::string rowIndices(int h, int rows, bool clamp, bool border, const std::string& ind) const {
    std::string t;
    for (int u = 0; u < rows; ++u) {
      std::string U = std::to_string(u);
      t += ind + "const int formac_row" + U + " = " +
           (border ? inRect("r + " + U, true)
                   : clamp ? "formac_min_i(r + " + U + ", " + std::to_string(h - 1) + ")" : "r + " + U) + ";\n";
    }
    return t;
  }

  // One point a thread computes in an interior block.
  struct PointAt {
    std::string position;              // the statements declaring q0 (and q1)
    std::string row, col;              // its tile row and column
    std::map<int, std::string> value;  // stage -> the variable of its value
    std::string guard;                 // "if (...) " when the point may not exist
    std::string storeGuard;            // "if (...) " when this thread does not store it
  };
  // The point at row formac_rowU (rowIndices) of column c; with `border`
  // stored only where neither clamp moved it, else under `guard`.
  PointAt rowPoint(int region, int u, bool border, const std::string& guard, const std::string& in) const {
    std::string U = std::to_string(u), R = "formac_row" + U;
    return PointAt{in + "  const I q0 = " + r0(region) + " + " + R + ";\n", R, "c", {}, "",
                   border ? "if (" + R + " == r + " + U + " && c == formac_c) " : guard};
  }
  // Check-free points of the stages `ids`, one per entry of `at`; with
  // `preload`, every point's loads first, then every point's arithmetic, so
  // that nvcc issues all the loads together (it would place each load next to
  // its use, behind the branch that ends the previous correctly rounded
  // division, which ptxas does not move loads across).
  std::string points(const std::vector<int>& ids, const std::vector<PointAt>& at, const std::string& in,
                     bool preload) const {
    std::string declarations, loads, arithmetic;
    for (size_t k = 0; k < at.size(); ++k) {
      std::string pointLoads, body;
      std::map<int, std::string> here;  // the batch's members computed at this point
      for (int id : ids) {
        Preloads mine;
        std::string prefix = "formac_p" + std::to_string(k) + "_" + name(id) + "_";
        body += in + "  {\n" +
                pointBody(id, false, false, at[k].value.at(id), in + "    ", preload ? &mine : nullptr, prefix, here) +
                in + "  }\n";
        here[id] = at[k].value.at(id);
        declarations += indentLines(mine.declarations, in);
        pointLoads += indentLines(mine.assignments, in + "  ");
      }
      if (!pointLoads.empty()) loads += in + at[k].guard + "{\n" + at[k].position + pointLoads + in + "}\n";
      arithmetic += in + at[k].guard + "{\n" + at[k].position + body + in + "}\n";
    }
    // Loads may not move below this (nvcc would place each next to its use).
    if (!loads.empty()) loads += in + "asm volatile(\"\" ::: \"memory\");\n";
    return declarations + loads + arithmetic;
  }

  // The variables of the points' values, zero-initialised.
  std::string valueDeclarations(const std::vector<PointAt>& at, const std::string& in) const {
    std::string t;
    for (const auto& p : at)
      for (const auto& [id, v] : p.value) t += in + cType(stage(id).type) + " " + v + " = {};\n";
    return t;
  }

  // The stores of the points `at` of the stages `ids`.
  std::string storePoints(const std::vector<int>& ids, const std::vector<PointAt>& at, const Store& store,
                          const std::string& in) const {
    std::string t;
    for (const auto& p : at) {
      std::string stores;
      for (int id : ids) stores += in + "  " + store(id, p.row, p.col, p.value.at(id)) + "\n";
      // The point's position only where a store reads it.
      bool at = mentions(stores, "q0") || mentions(stores, "q1");
      t += in + p.storeGuard + "{\n" + (at ? p.position + unusedParameters({"q0", "q1"}, stores, in + "  ") : "") +
           stores + in + "}\n";
    }
    return t;
  }

  // The sweep (heavy groups, bound by instruction issue): the threads sweep
  // the region in passes, each thread computing kRows x kCols adjacent points
  // of every stage in `ids` (seed 002's register tiling: the points share the
  // taps they read), then storing them. With `border`, within the rect, one
  // column per thread (border blocks are few; their rows and columns are
  // clamped into the rect).
  std::string sweepLoop(int region, const std::vector<int>& ids, const Store& store, bool border) const {
    const int colsPer = border || g_.compact ? 1 : kCols;
    int h = H(region), w = W(region), groups = (h + kRows - 1) / kRows, wc = (w + colsPer - 1) / colsPer;
    std::string in = "      ", W = std::to_string(wc);
    std::string column = colsPer == 1 ? "i % " + W : "(i % " + W + ") * " + std::to_string(colsPer);
    std::string t = "    for (int i = formac_tid; i < " + std::to_string(groups * wc) + "; i += " +
                    std::to_string(kCudaThreads) + ") {\n" + in + "const int r = (i / " + W + ") * " +
                    std::to_string(kRows) + ", " +
                    columnIndex(column, border) + ";\n" +
                    in + "const I q1 = " + c0(region) + " + c;\n";
    if (border) t += rowIndices(h, kRows, false, true, in);
    std::vector<PointAt> at;
    for (int u = 0; u < kRows; ++u)
      for (int v = 0; v < colsPer; ++v) {
        std::string U = std::to_string(u), V = std::to_string(v);
        std::vector<std::string> conds;
        if (h % kRows) conds.push_back("r + " + U + " < " + std::to_string(h));
        if (w % colsPer && v) conds.push_back("c + " + V + " < " + std::to_string(w));
        std::string guard;
        for (const auto& c : conds) guard += (guard.empty() ? "if (" : " && ") + c;
        if (!guard.empty()) guard += ") ";
        std::string col = v ? "(c + " + V + ")" : "c";
        PointAt p{in + "  const I q0 = " + r0(region) + " + r + " + U + ";\n" +
                      (v ? in + "  const I q1 = " + c0(region) + " + c + " + V + ";\n" : ""),
                  "(r + " + U + ")", col, {}, guard, guard};
        if (border) p = rowPoint(region, u, true, "", in);
        for (int id : ids) p.value[id] = value(id, u * colsPer + v);
        at.push_back(p);
      }
    return t + valueDeclarations(at, in) + points(ids, at, in, false) + storePoints(ids, at, store, in) + "    }\n";
  }

  // One pass (light groups, bound by memory latency): every thread computes
  // all its points of the region at once, so the whole block's loads are in
  // flight together: a column of the tile, ceil(rows / groups) adjacent
  // points of it, and its share of the halo columns' points (clamped to the
  // last one, recomputed; stored by the threads that own one). With
  // `border`, the same points clamped into the rect (recomputed, not
  // stored): a border block's rect also takes one round of loads.
  std::string onePassCode(int region, const std::vector<int>& ids, const Store& store, bool border) const {
    const int h = H(region), tx = TX(), groups = kCudaThreads / tx, rows = (h + groups - 1) / groups;
    const bool clamp = groups * rows != h;  // some rows (or whole groups of threads) lie past the region
    const int hl = halo(region, 1, false), wh = W(region) - tx, haloPoints = h * wh;
    const int haloPerThread = (haloPoints + kCudaThreads - 1) / kCudaThreads;
    const std::string in = "      ";
    std::string column = (hl ? std::to_string(hl) + " + " : "") + "formac_tid % " + std::to_string(tx);
    std::string t = "    {\n" + in + "const int " + columnIndex(column, border) + ", r = (formac_tid / " +
                    std::to_string(tx) + ") * " + std::to_string(rows) + ";\n" + in +
                    "const I q1 = " + c0(region) + " + c;\n" + rowIndices(h, rows, clamp, border, in);
    std::vector<PointAt> at;
    for (int u = 0; u < rows; ++u) {
      std::string past = clamp ? "if (r + " + std::to_string(u) + " < " + std::to_string(h) + ") " : "";
      PointAt p = rowPoint(region, u, border, past, in);
      for (int id : ids) p.value[id] = value(id, u);
      at.push_back(p);
    }
    auto haloValue = [&](int id, int k) { return "formac_h" + std::to_string(k) + "_" + name(id); };
    for (int k = 0; k < haloPerThread; ++k) {
      std::string K = std::to_string(k), J = "formac_j" + K, HK = "formac_hk" + K, WH = std::to_string(wh);
      std::string HR = "formac_hr" + K, HC = "formac_hc" + K, off = std::to_string(k * kCudaThreads);
      std::string hr = J + " / " + WH,
                  hc = (hl ? HK + " < " + std::to_string(hl) + " ? " + HK + " : " : std::string()) + HK + " + " +
                       std::to_string(tx);
      t += in + "const int " + J + " = formac_min_i(formac_tid + " + off + ", " + std::to_string(haloPoints - 1) +
           ");\n" + in + "const int " + HK + " = " + J + " % " + WH + ";\n";
      std::string owned = "formac_tid + " + off + " < " + std::to_string(haloPoints);
      if (border) {
        t += in + "const int formac_rhr" + K + " = " + hr + ", formac_rhc" + K + " = " + hc + ";\n" + in +
             "const int " + HR + " = " + inRect("formac_rhr" + K, true) + ", " + HC + " = " +
             inRect("formac_rhc" + K, false) + ";\n";
        owned += " && " + HR + " == formac_rhr" + K + " && " + HC + " == formac_rhc" + K;
      } else {
        t += in + "const int " + HR + " = " + hr + ", " + HC + " = " + hc + ";\n";
      }
      PointAt p{in + "  const I q0 = " + r0(region) + " + " + HR + ", q1 = " + c0(region) + " + " + HC + ";\n", HR,
                HC, {}, "", "if (" + owned + ") "};
      for (int id : ids) p.value[id] = haloValue(id, k);
      at.push_back(p);
    }
    return t + valueDeclarations(at, in) + points(ids, at, in, true) + storePoints(ids, at, store, in) + "    }\n";
  }

  // Border blocks: the rect of the region, as rows and columns of it (from
  // the exact boxes of the stages `ids`); an empty rect is made rows h..h-1.
  std::string rect(int region, const std::vector<int>& ids) const {
    std::string t;
    const char* names[2][2] = {{"formac_ra", "formac_rb"}, {"formac_ca", "formac_cb"}};
    for (size_t d = 0; d < 2; ++d) {
      std::string lo, hi, origin = d == 0 ? r0(region) : c0(region), n = std::to_string(d == 0 ? H(region) : W(region));
      for (int id : ids) {
        lo = lo.empty() ? box(id, "ulo", d) : "formac_maxll(" + lo + ", " + box(id, "ulo", d) + ")";
        hi = hi.empty() ? box(id, "uhi", d) : "formac_minll(" + hi + ", " + box(id, "uhi", d) + ")";
      }
      t += "    int " + std::string(names[d][0]) + " = (int)formac_minll(formac_maxll(" + lo + " - " + origin + ", 0), " +
           n + "), " + names[d][1] + " = (int)formac_maxll(formac_minll(" + hi + " - " + origin + ", " + n +
           " - 1), -1);\n";
    }
    return t + "    if (formac_ra > formac_rb || formac_ca > formac_cb) formac_ra = " + std::to_string(H(region)) +
           ", formac_rb = " + std::to_string(H(region) - 1) + ", formac_ca = 0, formac_cb = " +
           std::to_string(W(region) - 1) + ";\n";
  }

  // Border blocks: the points of the region outside the rect (its frame:
  // rows above it, the columns left and right of it, rows below it), one per
  // thread and pass, tested against the boxes. Kept simple (its registers
  // count for the whole kernel: a border path computing 4 rows per thread
  // measured slower).
  std::string frameLoop(int region, const std::vector<int>& ids, const Store& store) const {
    int h = H(region), w = W(region);
    std::string W = std::to_string(w);
    std::string t =
        "    const int formac_inner = formac_rb - formac_ra + 1, formac_mid = formac_ca + " + std::to_string(w - 1) +
        " - formac_cb;\n    const int formac_top = formac_ra * " + W +
        ", formac_side = formac_inner * formac_mid;\n    const int formac_frame = " + std::to_string(h * w) +
        " - formac_inner * (formac_cb - formac_ca + 1);\n    for (int i = formac_tid; i < formac_frame; i += " +
        std::to_string(kCudaThreads) + ") {\n      int r, c;\n      if (i < formac_top) {\n        r = i / " + W +
        ", c = i % " + W +
        ";\n      } else if (i < formac_top + formac_side) {\n        const int k = (i - formac_top) % formac_mid;\n"
        "        r = formac_ra + (i - formac_top) / formac_mid, c = k < formac_ca ? k : formac_cb + 1 + k - formac_ca;\n"
        "      } else {\n        r = formac_rb + 1 + (i - formac_top - formac_side) / " + W +
        ", c = (i - formac_top - formac_side) % " + W + ";\n      }\n";
    return t + checkedRegionPoint(region, ids, store, "      ") + "    }\n";
  }

  // Point (r, c) of the region, every stage of `ids` computed with checks and
  // stored (the frame of border blocks).
  std::string checkedRegionPoint(int region, const std::vector<int>& ids, const Store& store,
                                 const std::string& ind) const {
    std::string t = ind + "const I q0 = " + r0(region) + " + r;\n" + ind + "const I q1 = " + c0(region) + " + c;\n";
    for (int id : ids)
      t += ind + "{\n" + pointValue(id, true, ind + "  ") + ind + "  " + store(id, "r", "c", "v") + "\n" + ind + "}\n";
    return t;
  }

  // A region's code: in interior blocks one pass or the sweep
  // (FusionGroup::onePass); in border blocks the rect computed check-free
  // by the same code clamped to it, then the checked frame. `first`: a
  // branch taken before those ("if (...) {...} else ").
  std::string regionCode(int region, const std::vector<int>& ids, const Store& inner, const Store& edge,
                         const std::string& first = "") const {
    std::string interior = g_.onePass ? onePassCode(region, ids, inner, false) : sweepLoop(region, ids, inner, false);
    if (g_.compact)  // the frame is the whole region: no copy of the interior code
      return "  " + first + "if (formac_interior) {\n" + interior + "  } else {\n    int formac_ra = " +
             std::to_string(H(region)) + ", formac_rb = " + std::to_string(H(region) - 1) +
             ", formac_ca = 0, formac_cb = " + std::to_string(W(region) - 1) + ";\n" + frameLoop(region, ids, edge) +
             "  }\n";
    return "  " + first + "if (formac_interior) {\n" + interior + "  } else {\n" + rect(region, ids) +
           "    if (formac_ra <= formac_rb) {\n" +
           indentLines(g_.onePass ? onePassCode(region, ids, inner, true) : sweepLoop(region, ids, inner, true), "  ") +
           "    }\n" + frameLoop(region, ids, edge) + "  }\n";
  }

  std::string batchCode(size_t b) const {
    const std::vector<int>& ids = L_.batches()[b];
    int region = ids[0];
    std::string names;
    for (int id : ids) names += (names.empty() ? "" : ", ") + name(id);
    Store store = [&](int id, const std::string& row, const std::string& col, const std::string& v) {
      return "tile_" + name(id) + "[" + row + " * " + std::to_string(W(id)) + " + " + col + "] = " + v + ";";
    };
    std::string t = "  /* " + names + ": rows t0-" + std::to_string(halo(region, 0, false)) + "..t0+" +
                    std::to_string(TY() - 1 + halo(region, 0, true)) + ", columns t1-" +
                    std::to_string(halo(region, 1, false)) + "..t1+" + std::to_string(TX() - 1 + halo(region, 1, true)) +
                    " */\n";
    std::vector<const Staged*> staged;
    for (const Staged& s : L_.staged())
      if (s.batch == b) staged.push_back(&s);
    if (staged.empty()) return t + regionCode(region, ids, store, store);
    std::string flag = "formac_staged" + std::to_string(b);
    t += "  const bool " + flag + " = " + staging_.condition(staged) + ";\n";
    staged_ = staged;
    // The sweep with the staged inputs' bounds; without them only where a
    // bound chose a form (else the two are the same code).
    bounded_ = true;
    boundedFormUsed_ = false;
    std::string scaled = sweepLoop(region, ids, store, false);
    bounded_ = false;
    std::string plain = boundedFormUsed_ ? sweepLoop(region, ids, store, false) : scaled;
    staged_.clear();
    std::string sweep = "    __syncthreads();\n" + plain;
    if (boundedFormUsed_)
      sweep = "    /* Below 2^100, 2^k * x is exact: s + 2^k * x is then one fma (ExprContext::boundedRead). */\n" +
              staging_.wide(staged) + "    if (__syncthreads_or(formac_wide) == 0) {\n" + indentLines(scaled, "  ") +
              "    } else {\n" + indentLines(plain, "  ") + "    }\n";
    std::string first = "if (" + flag + ") {\n" + staging_.copies(staged) + sweep + "  } else ";
    return t + regionCode(region, ids, store, store, first);
  }

  // The sink: every point of the tile, 0 outside its valid box (border tiles
  // may reach past the image: those points are not stored).
  std::string sinkCode() const {
    int sink = g_.sink;
    std::string out = name(sink);
    Store inner = [&](int, const std::string&, const std::string&, const std::string& v) {
      return out + "[q0 * cols + q1] = " + v + ";";
    };
    Store edge = [&](int, const std::string&, const std::string&, const std::string& v) {
      return "if (q0 < rows && q1 < cols) " + out + "[q0 * cols + q1] = " + v + ";";
    };
    return "  /* " + out + ": every point of the tile (0 outside its valid box) */\n  const I rows = " +
           extent(sink, 0) + ", cols = " + extent(sink, 1) + ";\n" +
           regionCode(sink, {sink}, inner, edge);
  }

  // ---------------------------------------------- a histogram of the sink
  // (FusionGroup::epilogue): each point of the tile counted as it is
  // computed, into copies of the histogram in shared memory after the tiles,
  // which the block then adds into the result (formac_counts, zeroed by the
  // host first). Every point of the sink's extent is computed exactly once.
  const ir::Stage& counted() const { return stage(g_.epilogue); }
  HistogramCounting counting() const { return histogramCounting(counted(), r_.kernelName); }
  std::string countsZeroed() const {
    if (g_.epilogue < 0) return "";
    long long bins = counted().reduction.bins;
    int copies = histogramCopies(bins);
    if (!copies) return "";
    std::string n = std::to_string(copies * bins);
    return std::string(L_.sharedBytes() ? "" : "  extern __shared__ __align__(16) unsigned char formac_smem[];\n") +
           "  /* " + counted().name + " = " + counted().origin + ": counted in shared memory, " +
           (copies == 32 ? "a copy per lane, bin b of lane j at [b * 32 + j]" : copies > 1 ? "a copy per warp" : "one copy") +
           " */\n"
           "  unsigned* const formac_counted = reinterpret_cast<unsigned*>(formac_smem + " +
           std::to_string(countsOffset(L_.sharedBytes())) + ");\n"
           "  for (int formac_i = formac_tid; formac_i < " + n + "; formac_i += " + std::to_string(kCudaThreads) +
           ") formac_counted[formac_i] = 0u;\n"
           "  __syncthreads();\n";
  }
  // The kernel's body when it counts its sink: the block takes tiles in turn
  // (its counts are added into the result once, after its last tile: one
  // block a tile would make 256 global atomics on the same bins a tile, which
  // the L2 serialises), blocks a 1-D grid of at most 8 a multiprocessor.
  std::string countingBody() const {
    std::string tile = "  const I t0 = formac_t / formac_tiles1 * " + std::to_string(TY()) + ";\n"
                       "  const I t1 = formac_t % formac_tiles1 * " + std::to_string(TX()) + ";\n" +
                       boxes() + interiorFlag("  ") + lambdas();
    for (size_t b = 0; b < L_.batches().size(); ++b) tile += batchCode(b) + "  __syncthreads();\n";
    tile += countedSinkCode() + "  __syncthreads();  /* the tiles are free for the next tile */\n";
    return "  const int formac_tid = threadIdx.y * 32 + threadIdx.x;\n" + tiles() + countsZeroed() +
           "  const I formac_tiles1 = ((I)(" + extent(g_.sink, 1) + ") + " + std::to_string(TX() - 1) + ") / " +
           std::to_string(TX()) + ";\n"
           "  const I formac_tiles = ((I)(" + extent(g_.sink, 0) + ") + " + std::to_string(TY() - 1) + ") / " +
           std::to_string(TY()) + " * formac_tiles1;\n"
           "  for (I formac_t = (I)blockIdx.x; formac_t < formac_tiles; formac_t += (I)gridDim.x) {\n" +
           indentLines(tile, "  ") + "  }\n" + countsAdded();
  }
  std::string countsAdded() const {
    long long bins = counted().reduction.bins;
    if (!histogramCopies(bins)) return "";
    return histogramCountsAdded(bins, "formac_counted", "formac_counts", "formac_tid", std::to_string(kCudaThreads));
  }
  std::string countedSinkCode() const {
    int sink = g_.sink;
    long long bins = counted().reduction.bins;
    int copies = histogramCopies(bins);
    HistogramCounting c = counting();
    std::string B = std::to_string(bins);
    std::string at = copies == 0    ? "formac_counts + formac_b, 1ull"
                     : copies == 1  ? "formac_counted + formac_b, 1u"
                     : copies == 32 ? "formac_counted + formac_b * 32 + formac_tid % 32, 1u"
                                    : "formac_counted + (formac_tid / 32 % " + std::to_string(copies) + ") * " + B +
                                          " + formac_b, 1u";
    auto count = [&](const std::string& v) {
      return "{ const " + cType(stage(sink).type) + " formac_x = " + v + "; const int formac_b = " + c.bin + "; " +
             (c.every ? "" : "if (formac_b >= 0) ") + "atomicAdd(" + at + "); }";
    };
    Store inner = [&](int, const std::string&, const std::string&, const std::string& v) { return count(v); };
    Store edge = [&](int, const std::string&, const std::string&, const std::string& v) {
      return "if (q0 < rows && q1 < cols) " + count(v);
    };
    std::string t = "  /* " + name(sink) + ": every point of the tile (0 outside its valid box), counted into " +
                    counted().name + ", never stored */\n  const I rows = " + extent(sink, 0) + ", cols = " +
                    extent(sink, 1) + ";\n" + regionCode(sink, {sink}, inner, edge);
    return t;
  }

  const GroupLayout L_;
  const StagedCopies staging_{p_, n_};
  // The staged inputs that reads go to, while the staged sweep is written.
  mutable std::vector<const Staged*> staged_;
  // While the staged sweep is written for blocks whose staged values are bounded.
  mutable bool bounded_ = false;
  mutable bool boundedFormUsed_ = false;  // a bound of a staged input chose a form (ExprContext)
};

}  // namespace

std::string fusedKernelSource(const FusedKernelRequest& r) {
  return r.group->tile.size() == 2 ? FusedWriter(r).run() : fusedKernelSourceND(r);
}

long long fusedSharedBytes(const ir::Pipeline& p, const passes::FusionGroup& g) {
  if (g.tile.size() != 2) return fusedSharedBytesND(p, g);
  long long tiles = GroupLayout(p, g).sharedBytes();
  if (g.epilogue < 0) return tiles;
  long long bins = p.stages[static_cast<size_t>(g.epilogue)].reduction.bins;
  int copies = histogramCopies(bins);
  return copies ? countsOffset(tiles) + 4 * bins * copies : tiles;
}

std::string asyncCopyHelpers() {
  return "/* A 16-byte copy from global to shared memory that does not wait (cp.async, sm_80 on),\n"
         "   and the wait for this thread's copies; the block then synchronises. */\n"
         "static __device__ __forceinline__ void formac_copy16(void* dst, const void* src) {\n"
         "#if __CUDA_ARCH__ >= 800\n"
         "  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\"\n"
         "               :: \"r\"((unsigned)__cvta_generic_to_shared(dst)), \"l\"(src) : \"memory\");\n"
         "#else\n"
         "  *reinterpret_cast<int4*>(dst) = *reinterpret_cast<const int4*>(src);\n"
         "#endif\n"
         "}\n"
         "static __device__ __forceinline__ void formac_copy_wait() {\n"
         "#if __CUDA_ARCH__ >= 800\n"
         "  asm volatile(\"cp.async.wait_all;\" ::: \"memory\");\n"
         "#endif\n"
         "}\n"
         "/* The largest magnitude in 16 copied bytes (NaN ignored). */\n"
         "static __device__ __forceinline__ float formac_max_abs16(const float4 v) {\n"
         "  return fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w)));\n"
         "}\n"
         "static __device__ __forceinline__ double formac_max_abs16(const double2 v) { return fmax(fabs(v.x), fabs(v.y)); }\n";
}

}  // namespace formac::codegen
