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
    std::vector<Stmt> body;
    if (g_.epilogue >= 0) {
      body = countingBody();
    } else {
      body = {decl("I", "t0", "(I)blockIdx.y * " + std::to_string(TY())),
              decl("I", "t1", "(I)blockIdx.x * " + std::to_string(TX())),
              decl("int", "formac_tid", "threadIdx.y * 32 + threadIdx.x")};
      append(body, tiles());
      append(body, tileCode());
      body.push_back(sinkCode());
    }
    os << printerFor(true).print(kernelFunction(std::move(body))) << "\n";
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
  std::vector<Stmt> tiles() const {
    std::vector<Stmt> t;
    auto declare = [&](int id, const std::string& var, long long at, int h, int w, const std::string& note) {
      if (t.empty()) t.push_back(sharedMemory());
      std::string T = cType(stage(id).type);
      t.push_back(comment(std::to_string(h) + " x " + std::to_string(w) + note));
      t.push_back(decl(T + "* const", var, "reinterpret_cast<" + T + "*>(formac_smem + " + std::to_string(at) + ")", false));
    };
    for (const auto& m : g_.members)
      if (!m.inlined) declare(m.stage, "tile_" + name(m.stage), L_.tileOffset(m.stage), H(m.stage), W(m.stage), "");
    for (const Staged& s : L_.staged())
      declare(s.input, stagedName(s.input), s.offset, s.size[0], s.size[1],
              ": " + name(s.input) + " from " + origin(s, 0) + ", " + origin(s, 1) + ", staged");
    return t;
  }

  // The boxes, the interior flag, the inlined members' functions and each
  // batch of members into its tiles.
  std::vector<Stmt> tileCode() const {
    std::vector<Stmt> t = boxes();
    append(t, interiorFlag());
    append(t, lambdas());
    for (size_t b = 0; b < L_.batches().size(); ++b) {
      append(t, batchCode(b));
      t.push_back(eval("__syncthreads()"));
    }
    return t;
  }

  static void append(std::vector<Stmt>& to, std::vector<Stmt> more) {
    for (Stmt& st : more) to.push_back(std::move(st));
  }

  // How one point is stored: the statement for stage `id`, tile row and
  // column expressions, and the value.
  using Store = std::function<Stmt(int, const std::string&, const std::string&, const std::string&)>;

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
  static std::vector<Stmt> columnIndex(const std::string& raw, bool border) {
    if (!border) return {decl("int", "c", raw)};
    return {decl("int", "formac_c", raw), decl("int", "c", inRect("formac_c", false))};
  }

  // The rows a thread computes: `rows` adjacent rows from `r`; with `clamp`,
  // a row past the region's end is clamped to its last row, with `border`
  // into the rect (recomputed, not stored: every load stays unconditional).
  std::vector<Stmt> rowIndices(int h, int rows, bool clamp, bool border) const {
    std::vector<Stmt> t;
    for (int u = 0; u < rows; ++u) {
      std::string U = std::to_string(u);
      t.push_back(decl("int", "formac_row" + U,
                       border  ? inRect("r + " + U, true)
                       : clamp ? "formac_min_i(r + " + U + ", " + std::to_string(h - 1) + ")"
                               : "r + " + U));
    }
    return t;
  }

  // One point a thread computes in an interior block.
  struct PointAt {
    std::vector<Stmt> position;        // the statements declaring q0 (and q1)
    std::string row, col;              // its tile row and column
    std::map<int, std::string> value;  // stage -> the variable of its value
    std::string guard;                 // a condition when the point may not exist
    std::string storeGuard;            // a condition when this thread does not store it
  };
  // `body` under `guard` (a block when there is none).
  static Stmt guarded(const std::string& guard, std::vector<Stmt> body) {
    return guard.empty() ? block(std::move(body)) : ifThen(guard, std::move(body));
  }
  // The point at row formac_rowU (rowIndices) of column c; with `border`
  // stored only where neither clamp moved it, else under `guard`.
  PointAt rowPoint(int region, int u, bool border, const std::string& guard) const {
    std::string U = std::to_string(u), R = "formac_row" + U;
    return PointAt{{decl("I", "q0", r0(region) + " + " + R)}, R, "c", {}, "",
                   border ? R + " == r + " + U + " && c == formac_c" : guard};
  }
  // Check-free points of the stages `ids`, one per entry of `at`; with
  // `preload`, every point's loads first, then every point's arithmetic, so
  // that nvcc issues all the loads together (it would place each load next to
  // its use, behind the branch that ends the previous correctly rounded
  // division, which ptxas does not move loads across).
  std::vector<Stmt> points(const std::vector<int>& ids, const std::vector<PointAt>& at, bool preload) const {
    std::vector<Stmt> declarations, loads, arithmetic;
    for (size_t k = 0; k < at.size(); ++k) {
      std::vector<Stmt> pointLoads = at[k].position, body = at[k].position;
      bool anyLoad = false;
      std::map<int, std::string> here;  // the batch's members computed at this point
      for (int id : ids) {
        Preloads mine;
        std::string prefix = "formac_p" + std::to_string(k) + "_" + name(id) + "_";
        body.push_back(block(pointBody(id, false, false, at[k].value.at(id), preload ? &mine : nullptr, prefix, here)));
        here[id] = at[k].value.at(id);
        append(declarations, std::move(mine.declarations));
        anyLoad = anyLoad || !mine.assignments.empty();
        append(pointLoads, std::move(mine.assignments));
      }
      if (anyLoad) loads.push_back(guarded(at[k].guard, std::move(pointLoads)));
      arithmetic.push_back(guarded(at[k].guard, std::move(body)));
    }
    // Loads may not move below this (nvcc would place each next to its use).
    if (!loads.empty()) loads.push_back(eval("asm volatile(\"\" ::: \"memory\")"));
    append(declarations, std::move(loads));
    append(declarations, std::move(arithmetic));
    return declarations;
  }

  // The variables of the points' values, zero-initialised.
  std::vector<Stmt> valueDeclarations(const std::vector<PointAt>& at) const {
    std::vector<Stmt> t;
    for (const auto& p : at)
      for (const auto& [id, v] : p.value) t.push_back(decl(cType(stage(id).type), v, "{}", false));
    return t;
  }

  // The stores of the points `at` of the stages `ids`.
  std::vector<Stmt> storePoints(const std::vector<int>& ids, const std::vector<PointAt>& at, const Store& store) const {
    std::vector<Stmt> t;
    for (const auto& p : at) {
      std::vector<Stmt> stores;
      for (int id : ids) stores.push_back(store(id, p.row, p.col, p.value.at(id)));
      // The point's position only where a store reads it.
      std::string text = printerFor(true).print(stores);
      bool reads = mentions(text, "q0") || mentions(text, "q1");
      std::vector<Stmt> body = reads ? p.position : std::vector<Stmt>();
      for (const char* q : {"q0", "q1"})
        if (reads && !mentions(text, q)) body.push_back(eval(std::string("(void)") + q));
      append(body, std::move(stores));
      t.push_back(guarded(p.storeGuard, std::move(body)));
    }
    return t;
  }

  // The sweep (heavy groups, bound by instruction issue): the threads sweep
  // the region in passes, each thread computing kRows x kCols adjacent points
  // of every stage in `ids` (seed 002's register tiling: the points share the
  // taps they read), then storing them. With `border`, within the rect, one
  // column per thread (border blocks are few; their rows and columns are
  // clamped into the rect).
  Stmt sweepLoop(int region, const std::vector<int>& ids, const Store& store, bool border) const {
    const int colsPer = border || g_.compact ? 1 : kCols;
    int h = H(region), w = W(region), groups = (h + kRows - 1) / kRows, wc = (w + colsPer - 1) / colsPer;
    std::string W = std::to_string(wc);
    std::string column = colsPer == 1 ? "i % " + W : "(i % " + W + ") * " + std::to_string(colsPer);
    std::vector<Stmt> t = {decl("int", "r", "(i / " + W + ") * " + std::to_string(kRows))};
    append(t, columnIndex(column, border));
    t.push_back(decl("I", "q1", c0(region) + " + c"));
    if (border) append(t, rowIndices(h, kRows, false, true));
    std::vector<PointAt> at;
    for (int u = 0; u < kRows; ++u)
      for (int v = 0; v < colsPer; ++v) {
        std::string U = std::to_string(u), V = std::to_string(v);
        std::string guard;
        if (h % kRows) guard = "r + " + U + " < " + std::to_string(h);
        if (w % colsPer && v) guard += (guard.empty() ? "" : " && ") + std::string("c + ") + V + " < " + std::to_string(w);
        std::string col = v ? "(c + " + V + ")" : "c";
        std::vector<Stmt> position = {decl("I", "q0", r0(region) + " + r + " + U)};
        if (v) position.push_back(decl("I", "q1", c0(region) + " + c + " + V));
        PointAt p{position, "(r + " + U + ")", col, {}, guard, guard};
        if (border) p = rowPoint(region, u, true, "");
        for (int id : ids) p.value[id] = value(id, u * colsPer + v);
        at.push_back(p);
      }
    append(t, valueDeclarations(at));
    append(t, points(ids, at, false));
    append(t, storePoints(ids, at, store));
    return forLoop("int i = formac_tid", "i < " + std::to_string(groups * wc), "i += " + std::to_string(kCudaThreads),
                   std::move(t));
  }

  // One pass (light groups, bound by memory latency): every thread computes
  // all its points of the region at once, so the whole block's loads are in
  // flight together: a column of the tile, ceil(rows / groups) adjacent
  // points of it, and its share of the halo columns' points (clamped to the
  // last one, recomputed; stored by the threads that own one). With
  // `border`, the same points clamped into the rect (recomputed, not
  // stored): a border block's rect also takes one round of loads.
  Stmt onePassCode(int region, const std::vector<int>& ids, const Store& store, bool border) const {
    const int h = H(region), tx = TX(), groups = kCudaThreads / tx, rows = (h + groups - 1) / groups;
    const bool clamp = groups * rows != h;  // some rows (or whole groups of threads) lie past the region
    const int hl = halo(region, 1, false), wh = W(region) - tx, haloPoints = h * wh;
    const int haloPerThread = (haloPoints + kCudaThreads - 1) / kCudaThreads;
    std::string column = (hl ? std::to_string(hl) + " + " : "") + "formac_tid % " + std::to_string(tx);
    std::vector<Stmt> t = columnIndex(column, border);
    t.push_back(decl("int", "r", "(formac_tid / " + std::to_string(tx) + ") * " + std::to_string(rows)));
    t.push_back(decl("I", "q1", c0(region) + " + c"));
    append(t, rowIndices(h, rows, clamp, border));
    std::vector<PointAt> at;
    for (int u = 0; u < rows; ++u) {
      std::string past = clamp ? "r + " + std::to_string(u) + " < " + std::to_string(h) : "";
      PointAt p = rowPoint(region, u, border, past);
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
      t.push_back(decl("int", J, "formac_min_i(formac_tid + " + off + ", " + std::to_string(haloPoints - 1) + ")"));
      t.push_back(decl("int", HK, J + " % " + WH));
      std::string owned = "formac_tid + " + off + " < " + std::to_string(haloPoints);
      if (border) {
        t.push_back(decl("int", "formac_rhr" + K, hr));
        t.push_back(decl("int", "formac_rhc" + K, hc));
        t.push_back(decl("int", HR, inRect("formac_rhr" + K, true)));
        t.push_back(decl("int", HC, inRect("formac_rhc" + K, false)));
        owned += " && " + HR + " == formac_rhr" + K + " && " + HC + " == formac_rhc" + K;
      } else {
        t.push_back(decl("int", HR, hr));
        t.push_back(decl("int", HC, hc));
      }
      PointAt p{{decl("I", "q0", r0(region) + " + " + HR), decl("I", "q1", c0(region) + " + " + HC)}, HR, HC, {}, "",
                owned};
      for (int id : ids) p.value[id] = haloValue(id, k);
      at.push_back(p);
    }
    append(t, valueDeclarations(at));
    append(t, points(ids, at, true));
    append(t, storePoints(ids, at, store));
    return block(std::move(t));
  }

  // Border blocks: the rect of the region, as rows and columns of it (from
  // the exact boxes of the stages `ids`); an empty rect is made rows h..h-1.
  std::vector<Stmt> rect(int region, const std::vector<int>& ids) const {
    std::vector<Stmt> t;
    const char* names[2][2] = {{"formac_ra", "formac_rb"}, {"formac_ca", "formac_cb"}};
    for (size_t d = 0; d < 2; ++d) {
      std::string lo, hi, origin = d == 0 ? r0(region) : c0(region), n = std::to_string(d == 0 ? H(region) : W(region));
      for (int id : ids) {
        lo = lo.empty() ? box(id, "ulo", d) : "formac_maxll(" + lo + ", " + box(id, "ulo", d) + ")";
        hi = hi.empty() ? box(id, "uhi", d) : "formac_minll(" + hi + ", " + box(id, "uhi", d) + ")";
      }
      t.push_back(decl("int", names[d][0], "(int)formac_minll(formac_maxll(" + lo + " - " + origin + ", 0), " + n + ")", false));
      t.push_back(decl("int", names[d][1], "(int)formac_maxll(formac_minll(" + hi + " - " + origin + ", " + n + " - 1), -1)",
                       false));
    }
    t.push_back(ifThen("formac_ra > formac_rb || formac_ca > formac_cb", emptyRect(region)));
    return t;
  }
  // The rect as rows H..H-1 (empty) and every column: the frame is the region.
  std::vector<Stmt> emptyRect(int region) const {
    return {assign("formac_ra", std::to_string(H(region))), assign("formac_rb", std::to_string(H(region) - 1)),
            assign("formac_ca", "0"), assign("formac_cb", std::to_string(W(region) - 1))};
  }

  // Border blocks: the points of the region outside the rect (its frame:
  // rows above it, the columns left and right of it, rows below it), one per
  // thread and pass, tested against the boxes. Kept simple (its registers
  // count for the whole kernel: a border path computing 4 rows per thread
  // measured slower).
  std::vector<Stmt> frameLoop(int region, const std::vector<int>& ids, const Store& store) const {
    int h = H(region), w = W(region);
    std::string W = std::to_string(w);
    std::vector<Stmt> t = {
        decl("int", "formac_inner", "formac_rb - formac_ra + 1"),
        decl("int", "formac_mid", "formac_ca + " + std::to_string(w - 1) + " - formac_cb"),
        decl("int", "formac_top", "formac_ra * " + W), decl("int", "formac_side", "formac_inner * formac_mid"),
        decl("int", "formac_frame", std::to_string(h * w) + " - formac_inner * (formac_cb - formac_ca + 1)")};
    std::vector<Stmt> point = {
        declOnly("int", "r"), declOnly("int", "c"),
        ifThen("i < formac_top", {assign("r", "i / " + W), assign("c", "i % " + W)},
               {ifThen("i < formac_top + formac_side",
                       {decl("int", "k", "(i - formac_top) % formac_mid"),
                        assign("r", "formac_ra + (i - formac_top) / formac_mid"),
                        assign("c", "k < formac_ca ? k : formac_cb + 1 + k - formac_ca")},
                       {assign("r", "formac_rb + 1 + (i - formac_top - formac_side) / " + W),
                        assign("c", "(i - formac_top - formac_side) % " + W)})})};
    append(point, checkedRegionPoint(region, ids, store));
    t.push_back(forLoop("int i = formac_tid", "i < formac_frame", "i += " + std::to_string(kCudaThreads), std::move(point)));
    return t;
  }

  // Point (r, c) of the region, every stage of `ids` computed with checks and
  // stored (the frame of border blocks).
  std::vector<Stmt> checkedRegionPoint(int region, const std::vector<int>& ids, const Store& store) const {
    std::vector<Stmt> t = {decl("I", "q0", r0(region) + " + r"), decl("I", "q1", c0(region) + " + c")};
    for (int id : ids) {
      std::vector<Stmt> one = pointValue(id, true);
      one.push_back(store(id, "r", "c", "v"));
      t.push_back(block(std::move(one)));
    }
    return t;
  }

  // A region's code: in interior blocks one pass or the sweep
  // (FusionGroup::onePass); in border blocks the rect computed check-free
  // by the same code clamped to it, then the checked frame.
  Stmt regionCode(int region, const std::vector<int>& ids, const Store& inner, const Store& edge) const {
    Stmt interior = g_.onePass ? onePassCode(region, ids, inner, false) : sweepLoop(region, ids, inner, false);
    std::vector<Stmt> border;
    if (g_.compact) {  // the frame is the whole region: no copy of the interior code
      border = {declOnly("int", "formac_ra"), declOnly("int", "formac_rb"), declOnly("int", "formac_ca"),
                declOnly("int", "formac_cb")};
      append(border, emptyRect(region));
    } else {
      border = rect(region, ids);
      border.push_back(ifThen("formac_ra <= formac_rb", {g_.onePass ? onePassCode(region, ids, inner, true)
                                                                    : sweepLoop(region, ids, inner, true)}));
    }
    append(border, frameLoop(region, ids, edge));
    return ifThen("formac_interior", {interior}, std::move(border));
  }

  std::vector<Stmt> batchCode(size_t b) const {
    const std::vector<int>& ids = L_.batches()[b];
    int region = ids[0];
    std::string names;
    for (int id : ids) names += (names.empty() ? "" : ", ") + name(id);
    Store store = [&](int id, const std::string& row, const std::string& col, const std::string& v) {
      return assign("tile_" + name(id) + "[" + row + " * " + std::to_string(W(id)) + " + " + col + "]", v);
    };
    std::vector<Stmt> t = {comment(names + ": rows t0-" + std::to_string(halo(region, 0, false)) + "..t0+" +
                                   std::to_string(TY() - 1 + halo(region, 0, true)) + ", columns t1-" +
                                   std::to_string(halo(region, 1, false)) + "..t1+" +
                                   std::to_string(TX() - 1 + halo(region, 1, true)))};
    std::vector<const Staged*> staged;
    for (const Staged& s : L_.staged())
      if (s.batch == b) staged.push_back(&s);
    if (staged.empty()) {
      t.push_back(regionCode(region, ids, store, store));
      return t;
    }
    std::string flag = "formac_staged" + std::to_string(b);
    t.push_back(decl("bool", flag, staging_.condition(staged)));
    // The sweep with the staged inputs' bounds; without them only where a
    // bound chose a form (else the two are the same code).
    staged_ = staged;
    bounded_ = true;
    boundedFormUsed_ = false;
    Stmt scaled = sweepLoop(region, ids, store, false);
    bounded_ = false;
    Stmt plain = boundedFormUsed_ ? sweepLoop(region, ids, store, false) : scaled;
    staged_.clear();
    std::vector<Stmt> sweep = staging_.copies(staged);
    if (boundedFormUsed_) {
      sweep.push_back(comment("Below 2^100, 2^k * x is exact: s + 2^k * x is then one fma (ExprContext::boundedRead)."));
      append(sweep, staging_.wide(staged));
      sweep.push_back(ifThen("__syncthreads_or(formac_wide) == 0", {scaled}, {plain}));
    } else {
      sweep.push_back(eval("__syncthreads()"));
      sweep.push_back(plain);
    }
    t.push_back(ifThen(flag, std::move(sweep), {regionCode(region, ids, store, store)}));
    return t;
  }

  // The sink: every point of the tile, 0 outside its valid box (border tiles
  // may reach past the image: those points are not stored).
  Stmt sinkCode() const {
    std::string out = name(g_.sink);
    Store inner = [&](int, const std::string&, const std::string&, const std::string& v) {
      return assign(out + "[q0 * cols + q1]", v);
    };
    Store edge = [&](int, const std::string&, const std::string&, const std::string& v) {
      return ifThen("q0 < rows && q1 < cols", {assign(out + "[q0 * cols + q1]", v)});
    };
    return seq({comment(out + ": every point of the tile (0 outside its valid box)"),
                decl("I", "rows", extent(g_.sink, 0)), decl("I", "cols", extent(g_.sink, 1)),
                regionCode(g_.sink, {g_.sink}, inner, edge)});
  }

  // ---------------------------------------------- a histogram of the sink
  // (FusionGroup::epilogue): each point of the tile counted as it is
  // computed, into copies of the histogram in shared memory after the tiles,
  // which the block then adds into the result (formac_counts, zeroed by the
  // host first). Every point of the sink's extent is computed exactly once.
  const ir::Stage& counted() const { return stage(g_.epilogue); }
  HistogramCounting counting() const { return histogramCounting(counted(), r_.kernelName); }
  std::vector<Stmt> countsZeroed() const {
    long long bins = counted().reduction.bins;
    int copies = histogramCopies(bins);
    if (!copies) return {};
    std::vector<Stmt> t;
    if (!L_.sharedBytes()) t.push_back(sharedMemory());
    t.push_back(comment(counted().name + " = " + counted().origin + ": counted in shared memory, " +
                        (copies == 32 ? "a copy per lane, bin b of lane j at [b * 32 + j]"
                         : copies > 1 ? "a copy per warp"
                                      : "one copy")));
    t.push_back(decl("unsigned* const", "formac_counted",
                     "reinterpret_cast<unsigned*>(formac_smem + " + std::to_string(countsOffset(L_.sharedBytes())) + ")",
                     false));
    t.push_back(forLoop("int formac_i = formac_tid", "formac_i < " + std::to_string(copies * bins),
                        "formac_i += " + std::to_string(kCudaThreads), {assign("formac_counted[formac_i]", "0u")}));
    t.push_back(eval("__syncthreads()"));
    return t;
  }
  // The kernel's body when it counts its sink: the block takes tiles in turn
  // (its counts are added into the result once, after its last tile: one
  // block a tile would make 256 global atomics on the same bins a tile, which
  // the L2 serialises), blocks a 1-D grid of at most 8 a multiprocessor.
  std::vector<Stmt> countingBody() const {
    std::vector<Stmt> tile = {decl("I", "t0", "formac_t / formac_tiles1 * " + std::to_string(TY())),
                              decl("I", "t1", "formac_t % formac_tiles1 * " + std::to_string(TX()))};
    append(tile, tileCode());
    tile.push_back(countedSinkCode());
    tile.push_back(comment("The tiles are free for the next tile."));
    tile.push_back(eval("__syncthreads()"));
    std::vector<Stmt> t = {decl("int", "formac_tid", "threadIdx.y * 32 + threadIdx.x")};
    append(t, tiles());
    append(t, countsZeroed());
    t.push_back(decl("I", "formac_tiles1", "((I)(" + extent(g_.sink, 1) + ") + " + std::to_string(TX() - 1) + ") / " +
                                               std::to_string(TX())));
    t.push_back(decl("I", "formac_tiles", "((I)(" + extent(g_.sink, 0) + ") + " + std::to_string(TY() - 1) + ") / " +
                                              std::to_string(TY()) + " * formac_tiles1"));
    t.push_back(forLoop("I formac_t = (I)blockIdx.x", "formac_t < formac_tiles", "formac_t += (I)gridDim.x", std::move(tile)));
    long long bins = counted().reduction.bins;
    if (histogramCopies(bins))
      append(t, histogramCountsAdded(bins, "formac_counted", "formac_counts", "formac_tid", std::to_string(kCudaThreads)));
    return t;
  }
  Stmt countedSinkCode() const {
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
      Stmt add = eval("atomicAdd(" + at + ")");
      return block({decl(cType(stage(sink).type), "formac_x", v), decl("int", "formac_b", c.bin),
                    c.every ? add : ifThen("formac_b >= 0", {add})});
    };
    Store inner = [&](int, const std::string&, const std::string&, const std::string& v) { return count(v); };
    Store edge = [&](int, const std::string&, const std::string&, const std::string& v) {
      return ifThen("q0 < rows && q1 < cols", {count(v)});
    };
    return seq({comment(name(sink) + ": every point of the tile (0 outside its valid box), counted into " +
                        counted().name + ", never stored"),
                decl("I", "rows", extent(sink, 0)), decl("I", "cols", extent(sink, 1)),
                regionCode(sink, {sink}, inner, edge)});
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

}  // namespace formac::codegen
