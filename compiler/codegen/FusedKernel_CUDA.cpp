#include "codegen/FusedKernel_CUDA.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "codegen/BoundText.h"
#include "codegen/ExprPrinter.h"
#include "codegen/StageFacts.h"
#include "ir/Edges.h"

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

// An input that one loop of a heavy group reads at this many offsets or
// more is copied to shared memory first in interior blocks (16 bytes a copy,
// cp.async; GroupLayout::Staged) and its taps are read from there: a warp's
// read of one tap is then 2 shared wavefronts, not about 3 of L1 for memory
// (the sweep's stride-2 columns). Measured on the H100 (run_async, 8192^2):
// canny's Gaussian (25 offsets of img) 0.4030 against 0.4374 ms; harris's
// Sobel pair (8 offsets) 0.2604 against 0.2574 ms, so it reads memory. A copy
// 4 bytes at a time (images whose rows are not 16-byte aligned) cost more
// than it saved (canny 0.4686 ms): those read memory too.
constexpr int kStageMinTaps = 16;

namespace {

// "q0 >= fast_lo0 && q0 <= fast_hi0 && ...": the point's reads need no check.
std::string fastCondition(size_t rank) {
  std::string cond;
  for (size_t d = 0; d < rank; ++d) {
    std::string D = std::to_string(d);
    cond += (d ? " && q" : "q") + D + " >= fast_lo" + D + " && q" + D + " <= fast_hi" + D;
  }
  return cond;
}

// The shape of a group's kernel, shared by the writer and fusedSharedBytes:
// members' regions, the loops they are computed in (batches), the inputs
// staged in shared memory, and where every tile lies in shared memory.
class GroupLayout {
 public:
  // An input of the group (read from memory) that interior blocks copy to
  // shared memory before the batch that reads it, when the input is 16-byte
  // aligned: rows t0 + lo[0].., columns t1 + lo[1].. (a multiple of `vec`
  // elements, 16 bytes, from a multiple of `vec`), size[0] x size[1].
  struct Staged {
    int input = -1;
    size_t batch = 0;
    int lo[2] = {0, 0}, size[2] = {0, 0};
    int vec = 0;
    long long offset = 0;
  };

  GroupLayout(const ir::Pipeline& p, const passes::FusionGroup& g) : p_(p), g_(g) {
    for (const auto& m : g_.members) byStage_[m.stage] = &m;
    batches_ = computeBatches();
    place();
  }

  const ir::Stage& stage(int id) const { return p_.stages[static_cast<size_t>(id)]; }
  int TY() const { return g_.tile[0]; }
  int TX() const { return g_.tile[1]; }
  bool inlined(int id) const {
    auto it = byStage_.find(id);
    return it != byStage_.end() && it->second->inlined;
  }
  bool member(int id) const { return byStage_.count(id) > 0; }
  int halo(int id, size_t d, bool hi) const {
    auto it = byStage_.find(id);
    if (it == byStage_.end()) return 0;
    return hi ? it->second->haloHi[d] : it->second->haloLo[d];
  }
  int H(int id) const { return TY() + halo(id, 0, false) + halo(id, 0, true); }
  int W(int id) const { return TX() + halo(id, 1, false) + halo(id, 1, true); }

  // Whether `a` reads `b`, directly or through inlined members.
  bool dependsOn(int a, int b) const {
    bool found = false;
    ir::forEachExpr(stage(a).pieces[0].body, [&](const ir::Expr& e) {
      if (found || e.kind != ir::Expr::ImageRead) return;
      if (e.producer == b || (inlined(e.producer) && dependsOn(e.producer, b))) found = true;
    });
    return found;
  }

  const std::vector<std::vector<int>>& batches() const { return batches_; }
  const std::vector<Staged>& staged() const { return staged_; }
  // The tile of member `id` in shared memory (-1: inlined), and all bytes.
  long long tileOffset(int id) const { return tileAt_.count(id) ? tileAt_.at(id) : -1; }
  long long sharedBytes() const { return total_; }

 private:
  // Whether every read `a` makes of `b` is of the point itself
  // (passes::readsOwnPoint), none through inlined members.
  bool readsOnlyItsPoint(int a, int b) const {
    bool only = true;
    ir::forEachExpr(stage(a).pieces[0].body, [&](const ir::Expr& e) {
      if (e.kind != ir::Expr::ImageRead) return;
      if (e.producer == b)
        only = only && passes::readsOwnPoint(e);
      else if (inlined(e.producer) && dependsOn(e.producer, b))
        only = false;
    });
    return only;
  }
  bool sameRegion(int a, int b) const {
    return H(a) == H(b) && W(a) == W(b) && halo(a, 0, false) == halo(b, 0, false) &&
           halo(a, 1, false) == halo(b, 1, false);
  }

  // Members with tiles, in order, grouped into loops: consecutive members of
  // one region share a loop (and its loads) when each reads the others of
  // the loop only at its own point: in check-free code, it reads their values
  // there from registers (the checked frame reads the tiles, which the same
  // thread stored just before).
  std::vector<std::vector<int>> computeBatches() const {
    std::vector<std::vector<int>> out;
    for (const auto& m : g_.members) {
      if (m.inlined) continue;
      bool join = !out.empty() && sameRegion(out.back()[0], m.stage);
      for (int other : join ? out.back() : std::vector<int>{})
        if (dependsOn(m.stage, other) && !readsOnlyItsPoint(m.stage, other)) join = false;
      if (join)
        out.back().push_back(m.stage);
      else
        out.push_back({m.stage});
    }
    return out;
  }

  // Tiles in member order (16-byte aligned); then each staged input, over
  // the tiles of later batches (not yet written while it is read) where it
  // fits, without raising the bytes past what the group had or 48 KB.
  void place() {
    long long offset = 0;
    std::vector<long long> batchEnd;
    for (const auto& batch : batches_) {
      for (int id : batch) {
        tileAt_[id] = offset;
        long long n = static_cast<long long>(typeSize(stage(id).type)) * H(id) * W(id);
        offset = (offset + n + 15) / 16 * 16;
      }
      batchEnd.push_back(offset);
    }
    total_ = offset;
    if (g_.onePass) return;
    const long long limit = std::max(total_, 48LL * 1024);
    std::map<size_t, long long> next;  // per batch: where its next staged input goes
    for (const Staged& candidate : candidates()) {
      Staged s = candidate;
      long long& at = next.emplace(s.batch, batchEnd[s.batch]).first->second;
      long long n = static_cast<long long>(typeSize(stage(s.input).type)) * s.size[0] * s.size[1];
      if (at + n > limit) continue;
      s.offset = at;
      at = (at + n + 15) / 16 * 16;
      total_ = std::max(total_, at);
      staged_.push_back(s);
    }
  }

  // Inputs worth staging: read with at least kStageMinTaps offsets, all by
  // the members of one batch (not by inlined members or the sink) and at
  // q + offset, with elements of 4 or 8 bytes.
  std::vector<Staged> candidates() const {
    std::map<int, std::set<size_t>> readers;            // input -> batches reading it
    std::map<int, std::set<std::pair<int, int>>> taps;  // input -> offsets read
    std::set<int> elsewhere;                            // inputs read outside the batches
    std::map<int, size_t> batchOf;
    for (size_t b = 0; b < batches_.size(); ++b)
      for (int id : batches_[b]) batchOf[id] = b;
    std::vector<int> all;
    for (const auto& m : g_.members) all.push_back(m.stage);
    all.push_back(g_.sink);
    for (int id : all)
      ir::forEachExpr(stage(id).pieces[0].body, [&](const ir::Expr& e) {
        if ((e.kind != ir::Expr::ImageRead && e.kind != ir::Expr::IndexRead) || member(e.producer)) return;
        // Staged reads are q + offset: not scaled, shifted or placed.
        bool plain = e.kind == ir::Expr::ImageRead && e.axes.size() == 2 && e.firstDim == 0 && e.origin.empty();
        for (const auto& a : e.axes) plain = plain && a.scale == 1;
        auto b = batchOf.find(id);
        if (b == batchOf.end() || !plain) {
          elsewhere.insert(e.producer);
          return;
        }
        readers[e.producer].insert(b->second);
        taps[e.producer].insert({e.axes[0].offset, e.axes[1].offset});
      });
    std::vector<Staged> out;
    for (const auto& [input, batches] : readers) {
      size_t bytes = typeSize(stage(input).type);
      if (elsewhere.count(input) || batches.size() != 1 || (bytes != 4 && bytes != 8) ||
          static_cast<int>(taps[input].size()) < kStageMinTaps)
        continue;
      Staged s;
      s.input = input;
      s.batch = *batches.begin();
      s.vec = static_cast<int>(16 / bytes);
      if (TX() % s.vec) continue;
      int region = batches_[s.batch][0];
      auto [r, c] = *taps[input].begin();
      int lo[2] = {r, c}, hi[2] = {r, c};
      for (const auto& [tr, tc] : taps[input]) {
        lo[0] = std::min(lo[0], tr), hi[0] = std::max(hi[0], tr);
        lo[1] = std::min(lo[1], tc), hi[1] = std::max(hi[1], tc);
      }
      s.lo[0] = lo[0] - halo(region, 0, false);
      s.size[0] = H(region) + hi[0] - lo[0];
      // Columns from a multiple of vec (t1 is one), as many as cover the reads.
      int c0 = lo[1] - halo(region, 1, false), c1 = c0 + W(region) - 1 + hi[1] - lo[1];
      s.lo[1] = static_cast<int>(ir::floorDiv(c0, s.vec)) * s.vec;
      s.size[1] = (c1 - s.lo[1] + s.vec) / s.vec * s.vec;
      out.push_back(s);
    }
    return out;
  }

  const ir::Pipeline& p_;
  const passes::FusionGroup& g_;
  std::map<int, const passes::GroupMember*> byStage_;
  std::vector<std::vector<int>> batches_;
  std::map<int, long long> tileAt_;
  std::vector<Staged> staged_;
  long long total_ = 0;
};

class FusedWriter {
 public:
  explicit FusedWriter(const FusedKernelRequest& r)
      : r_(r), p_(*r.pipeline), n_(*r.names), g_(*r.group), L_(p_, g_) {
    ids_ = memberIds();
    ids_.push_back(g_.sink);
    for (int id : ids_)
      for (size_t d = 0; d < 2; ++d) placeBoxText(id, d);
  }

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
    os << "template <typename I, int formac_blocks = 0>  /* resident blocks per SM asked of ptxas (0: its choice) */\n"
       << "__global__ void __launch_bounds__(" << kCudaThreads << ", formac_blocks) " << r_.kernelName
       << "(" << r_.params << ") {\n";
    for (const auto& prm : n_.param) os << "  (void)" << prm << ";\n";
    os << "  const I t0 = (I)blockIdx.y * " << TY() << ";\n"
       << "  const I t1 = (I)blockIdx.x * " << TX() << ";\n"
       << "  const int formac_tid = threadIdx.y * 32 + threadIdx.x;\n" << tiles() << boxes() << interiorFlag() << lambdas();
    for (size_t b = 0; b < L_.batches().size(); ++b) os << batchCode(b) << "  __syncthreads();\n";
    os << sinkCode() << "}\n\n";
    return os.str();
  }

 private:
  const ir::Stage& stage(int id) const { return p_.stages[static_cast<size_t>(id)]; }
  const std::string& name(int id) const { return n_.stage[static_cast<size_t>(id)]; }
  int TY() const { return g_.tile[0]; }
  int TX() const { return g_.tile[1]; }
  bool inlined(int id) const { return L_.inlined(id); }
  int halo(int id, size_t d, bool hi) const { return L_.halo(id, d, hi); }
  int H(int id) const { return L_.H(id); }
  int W(int id) const { return L_.W(id); }
  std::vector<int> memberIds() const {
    std::vector<int> ids;
    for (const auto& m : g_.members) ids.push_back(m.stage);
    return ids;
  }
  std::string r0(int id) const { return "(t0 - " + std::to_string(halo(id, 0, false)) + ")"; }
  std::string c0(int id) const { return "(t1 - " + std::to_string(halo(id, 1, false)) + ")"; }

  // Generated names: the "formac_" prefix is the generated code's own, and
  // the part before the stage name differs between kinds (no two collide).
  std::string box(int id, const char* kind, size_t d) const {
    return std::string("formac_") + kind + std::to_string(d) + "_" + name(id);
  }
  std::string function(int id, bool checked) const { return (checked ? "formac_atc_" : "formac_at_") + name(id); }
  std::string value(int id, int u) const { return "formac_v" + std::to_string(u) + "_" + name(id); }

  // Reads of group stages: a tile, an inlined member's function, or memory
  // (or its copy in shared memory, while staged_ lists it).
  std::string access(int id, const std::vector<std::string>& idx, bool checked) const {
    if (!L_.member(id)) {
      for (const Staged* s : staged_)
        if (s->input == id)
          return stagedName(id) + "[(int)((" + idx[0] + ") - " + origin(*s, 0) + ") * " + std::to_string(s->size[1]) +
                 " + (int)((" + idx[1] + ") - " + origin(*s, 1) + ")]";
      return name(id) + "[((" + idx[0] + ") * (" + extent(id, 1) + ") + (" + idx[1] + "))]";
    }
    if (inlined(id))
      return function(id, checked) + "((I)(" + idx[0] + "), (I)(" + idx[1] + "))";
    return "tile_" + name(id) + "[(int)((" + idx[0] + ") - " + r0(id) + ") * " + std::to_string(W(id)) +
           " + (int)((" + idx[1] + ") - " + c0(id) + ")]";
  }

  LoopNestOptions options(int id, bool checked) const {
    LoopNestOptions lo;
    lo.pipeline = &p_;
    lo.stage = &stage(id);
    lo.piece = &stage(id).pieces[0];
    lo.names = &n_;
    lo.openmp = false;
    lo.cuda = true;
    lo.access = [this, checked](int pid, const std::vector<std::string>& idx) { return access(pid, idx, checked); };
    if (bounded_)
      lo.boundedRead = [this](const ir::Expr& e) {
        for (const Staged* s : staged_)
          if (s->input == e.producer) return checksBound(*s);
        return false;
      };
    return lo;
  }
  bool hasModes(int id) const { return needsBorderChecks(options(id, false)); }
  // Stage `id`'s extent along d, as C.
  std::string extent(int id, size_t d) const { return ir::printSize(stage(id).extent[d], n_.param); }

  // Staged inputs (GroupLayout::Staged): the copy's name, and its first row
  // (d = 0) or column.
  using Staged = GroupLayout::Staged;
  std::string stagedName(int id) const { return "formac_in_" + name(id); }
  static std::string origin(const Staged& s, size_t d) {
    int lo = s.lo[d];
    return std::string(d ? "(t1" : "(t0") + (lo < 0 ? " - " : " + ") + std::to_string(lo < 0 ? -lo : lo) + ")";
  }

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

  // A stage's boxes along d as C text, folded where constant: where it is
  // computed (lo..hi), where its boundary-mode reads need no check
  // (flo..fhi), and where its check-free code is exact (ulo..uhi: inside
  // its boxes, reading inlined members inside theirs).
  struct BoxText {
    std::string lo, hi, flo, fhi, ulo, uhi;
  };
  const BoxText& boxText(int id, size_t d) const { return boxTexts_.at({id, d}); }
  // Computes boxText(id, d) once (the boxes, the interior test and the
  // members that inline `id` use it), after those of the members it inlines.
  void placeBoxText(int id, size_t d) {
    if (boxTexts_.count({id, d})) return;
    LoopNestOptions o = options(id, false);
    BoxText b;
    b.lo = foldLower(pieceFirstIndex(o, d), {});
    b.hi = foldUpper(pieceLastIndex(o, d), {});
    b.flo = hasModes(id) ? foldLower(b.lo, fastLowerBounds(o, d)) : b.lo;
    b.fhi = hasModes(id) ? foldUpper(b.hi, fastUpperBounds(o, d)) : b.hi;
    std::vector<std::string> lows, highs;
    for (const auto& [x, range] : inlinedReads(id, d)) {
      placeBoxText(x, d);
      lows.push_back(shiftBound(boxText(x, d).ulo, -range.first));
      highs.push_back(shiftBound(boxText(x, d).uhi, -range.second));
    }
    b.ulo = foldLower(b.flo, lows);
    b.uhi = foldUpper(b.fhi, highs);
    boxTexts_[{id, d}] = b;
  }
  std::string boxes() const {
    std::string t = "  /* Where each stage is computed, and where its reads need no boundary check. */\n";
    for (int id : ids_)
      for (size_t d = 0; d < 2; ++d) {
        const BoxText& b = boxText(id, d);
        t += "  const I " + box(id, "lo", d) + " = (I)(" + b.lo + "), " + box(id, "hi", d) + " = (I)(" + b.hi + ");\n";
        if (hasModes(id))
          t += "  const I " + box(id, "flo", d) + " = (I)(" + b.flo + "), " + box(id, "fhi", d) + " = (I)(" + b.fhi +
               ");\n";
      }
    t += "  /* Where each stage's check-free code is exact: inside its boxes, reading inlined members inside theirs. */\n";
    for (int id : ids_)
      for (size_t d = 0; d < 2; ++d) {
        const BoxText& b = boxText(id, d);
        t += "  const I " + box(id, "ulo", d) + " = (I)(" + b.ulo + "), " + box(id, "uhi", d) + " = (I)(" + b.uhi + ");\n";
      }
    return t;
  }
  // Per inlined member that stage `id` reads: the least and greatest offset along d.
  std::map<int, std::pair<int, int>> inlinedReads(int id, size_t d) const {
    std::map<int, std::pair<int, int>> out;
    ir::forEachExpr(stage(id).pieces[0].body, [&](const ir::Expr& e) {
      if (e.kind != ir::Expr::ImageRead || !inlined(e.producer)) return;
      int o = e.axes[d].offset;
      auto it = out.find(e.producer);
      if (it == out.end())
        out[e.producer] = {o, o};
      else
        it->second = {std::min(it->second.first, o), std::max(it->second.second, o)};
    });
    return out;
  }
  // The box of stage `id` under the names the point code uses.
  std::string aliases(int id, const std::string& ind) const {
    std::string t = ind + "const I lo0 = " + box(id, "lo", 0) + ", hi0 = " + box(id, "hi", 0) + ", lo1 = " +
                    box(id, "lo", 1) + ", hi1 = " + box(id, "hi", 1) + ";\n";
    if (hasModes(id))
      t += ind + "const I fast_lo0 = " + box(id, "flo", 0) + ", fast_hi0 = " + box(id, "fhi", 0) +
           ", fast_lo1 = " + box(id, "flo", 1) + ", fast_hi1 = " + box(id, "fhi", 1) + ";\n";
    return t + ind + "(void)lo0; (void)hi0; (void)lo1; (void)hi1;\n";
  }

  // Interior blocks: every stage's region inside its exact box, so no point
  // is tested.
  std::string interiorFlag() const {
    // (t - h) >= ulo and (t - h) + n - 1 <= uhi for every stage's region
    // (its first row or column t - h, n of them), folded into one least and
    // one greatest t per dimension.
    std::string t = "  /* Interior block: every region lies inside its stage's exact box; no point needs a test. */\n"
                    "  const bool formac_interior =";
    for (size_t d = 0; d < 2; ++d) {
      std::vector<std::string> lows, highs;
      for (int id : ids_) {
        const BoxText& b = boxText(id, d);
        int h = halo(id, d, false), n = d ? W(id) : H(id);
        lows.push_back(shiftBound(b.ulo, h));
        highs.push_back(shiftBound(b.uhi, h - (n - 1)));
      }
      std::string q = d ? "t1" : "t0";
      t += std::string(d ? " &&" : "") + "\n      " + q + " >= (I)(" +
           foldLower(lows.front(), {lows.begin() + 1, lows.end()}) + ") && " + q + " <= (I)(" +
           foldUpper(highs.front(), {highs.begin() + 1, highs.end()}) + ")";
    }
    return t + ";\n";
  }

  // Loads of several points placed before their arithmetic (LoopNestOptions::preload).
  struct Preloads {
    std::string declarations, assignments;
  };
  // The statements of one point of stage `id` (emitPointBody), with every
  // read of an inlined member bound first to a local: each is computed once
  // per point however often the body reads it. Reading one that the body
  // reads only under a condition costs no more than giving it a tile. With
  // `pre`, its loads go there instead (named from `prefix`). `here`: members
  // already computed at this point (their variables), read from those.
  std::string pointBody(int id, bool checkedAccess, bool checkedBody, const std::string& result,
                        const std::string& ind, Preloads* pre = nullptr, const std::string& prefix = "",
                        const std::map<int, std::string>& here = {}) const {
    LoopNestOptions lo = options(id, checkedAccess);
    lo.resultVariable = result;
    auto loaded = [this, &here](int pid) { return !inlined(pid) && !here.count(pid); };
    // Check-free code reads in range whatever a ?: picks: its tile and
    // memory loads go first and the ?: selects (nvcc would branch around
    // each); inlined members stay where they are read (they cost arithmetic).
    if (!checkedAccess && !checkedBody) lo.hoistBranchReads = loaded;
    if (pre) {
      lo.preload = loaded;
      lo.preloadPrefix = prefix;
      lo.preloadDeclarations = &pre->declarations;
      lo.preloadAssignments = &pre->assignments;
    }
    std::map<std::string, std::string> seen;
    std::string decls;
    lo.access = [&](int pid, const std::vector<std::string>& idx) -> std::string {
      auto computed = here.find(pid);
      if (computed != here.end()) return computed->second;
      std::string call = access(pid, idx, checkedAccess);
      if (!inlined(pid)) return call;
      auto it = seen.find(call);
      if (it != seen.end()) return it->second;
      std::string var = "formac_r" + std::to_string(seen.size()) + "_" + name(pid);
      decls += ind + "const " + cType(stage(pid).type) + " " + var + " = " + call + ";\n";
      return seen[call] = var;
    };
    std::string body = emitPointBody(lo, checkedBody, ind);
    return decls + body;
  }
  // Checked blocks: check-free statements where the stage's boundary-mode
  // reads are in range (fast_lo..fast_hi), resolved ones elsewhere.
  std::string checkedPoint(int id, const std::string& result, const std::string& ind) const {
    if (!hasModes(id)) return pointBody(id, true, false, result, ind);
    return ind + "if (" + fastCondition(2) + ") {\n" + pointBody(id, true, false, result, ind + "  ") + ind +
           "} else {\n" +
           pointBody(id, true, true, result, ind + "  ") + ind + "}\n";
  }

  // The value `v` of stage `id` at (q0, q1): checked (0 outside the
  // stage's box, boundary modes resolved) or check-free.
  std::string pointValue(int id, bool checked, const std::string& ind) const {
    std::string t = checked ? aliases(id, ind) : "";
    t += ind + cType(stage(id).type) + " v = {};\n";
    if (!checked) return t + pointBody(id, false, false, "v", ind);
    return t + ind + "if (q0 >= lo0 && q0 <= hi0 && q1 >= lo1 && q1 <= hi1) {\n" + checkedPoint(id, "v", ind + "  ") +
           ind + "}\n";
  }

  // Inlined members as functions of the point, check-free (interior blocks)
  // and checked (0 outside the member's box, boundary modes resolved).
  std::string lambdas() const {
    std::string t;
    for (const auto& m : g_.members) {
      if (!m.inlined) continue;
      std::string T = cType(stage(m.stage).type);
      t += "  /* " + name(m.stage) + ": recomputed where it is read */\n";
      for (bool checked : {false, true})
        t += "  auto " + function(m.stage, checked) + " = [&](const I q0, const I q1) -> " + T + " {\n" +
             pointValue(m.stage, checked, "    ") + "    return v;\n  };\n";
    }
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
  static std::string indentLines(const std::string& text, const std::string& ind) {
    std::string t;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) t += ind + line + "\n";
    return t;
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
      t += in + p.storeGuard + "{\n" + p.position + in + "  (void)q0; (void)q1;\n";
      for (int id : ids) t += in + "  " + store(id, p.row, p.col, p.value.at(id)) + "\n";
      t += in + "}\n";
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
    const int colsPer = border ? 1 : kCols;
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
    return "  " + first + "if (formac_interior) {\n" +
           (g_.onePass ? onePassCode(region, ids, inner, false) : sweepLoop(region, ids, inner, false)) + "  } else {\n" +
           rect(region, ids) + "    if (formac_ra <= formac_rb) {\n" +
           indentLines(g_.onePass ? onePassCode(region, ids, inner, true) : sweepLoop(region, ids, inner, true), "  ") +
           "    }\n" + frameLoop(region, ids, edge) + "  }\n";
  }

  // Interior blocks whose staged inputs are 16-byte aligned (rows too) and
  // whose copies lie inside the images: the condition, and the copies.
  std::string stagedCondition(const std::vector<const Staged*>& staged) const {
    std::string t = "formac_interior";
    for (const Staged* s : staged) {
      std::string rows = extent(s->input, 0), cols = extent(s->input, 1);
      t += " &&\n      (reinterpret_cast<unsigned long long>(" + name(s->input) + ") & 15) == 0 && (I)(" + cols +
           ") % " + std::to_string(s->vec) + " == 0 && " + origin(*s, 0) + " >= 0 && " + origin(*s, 0) + " + " +
           std::to_string(s->size[0] - 1) + " < (I)(" + rows + ") && " + origin(*s, 1) + " >= 0 && " + origin(*s, 1) +
           " + " + std::to_string(s->size[1] - 1) + " < (I)(" + cols + ")";
    }
    return t;
  }
  // How the threads copy a staged input, 16 bytes (a piece) at a time. Rows
  // of at most kCudaThreads pieces: thread t copies piece t % perRow of rows
  // t / perRow + k * step (k = 0, 1, ...; step rows a round), so its
  // addresses move by a constant from one round to the next and it computes
  // its row and column once (against a division and a remainder a piece).
  // Wider rows: piece i (row i / perRow) by thread i % kCudaThreads.
  struct CopyPlan {
    int perRow = 0, step = 0;  // pieces a row; rows a round (0: wider rows)
    std::vector<int> last;     // per round: how many of its rows exist (step for a full one)
  };
  static CopyPlan copyPlan(const Staged& s) {
    CopyPlan c;
    c.perRow = s.size[1] / s.vec;
    if (c.perRow > kCudaThreads) return c;
    c.step = kCudaThreads / c.perRow;
    for (int r = 0; r < s.size[0]; r += c.step) c.last.push_back(std::min(c.step, s.size[0] - r));
    return c;
  }
  // formac_cr_X / formac_cc_X: the row and element column of the thread's piece.
  std::string copyRow(const Staged& s) const { return "formac_cr_" + name(s.input); }
  std::string copyCol(const Staged& s) const { return "formac_cc_" + name(s.input); }
  // The row of the thread's piece in round k.
  std::string copyRowAt(const Staged& s, size_t k, const CopyPlan& c) const {
    return k ? "(" + copyRow(s) + " + " + std::to_string(k * static_cast<size_t>(c.step)) + ")" : copyRow(s);
  }
  // Each round's line, `line(round, guard)`, under the plan's thread test.
  std::string copyRounds(const Staged& s, const CopyPlan& c, const std::string& in,
                         const std::function<std::string(size_t, const std::string&)>& line) const {
    std::string t = in + "if (formac_tid < " + std::to_string(c.step * c.perRow) + ") {\n";
    for (size_t k = 0; k < c.last.size(); ++k)
      t += in + "  " + line(k, c.last[k] < c.step ? "if (" + copyRow(s) + " < " + std::to_string(c.last[k]) + ") " : "");
    return t + in + "}\n";
  }
  std::string stagedCopies(const std::vector<const Staged*>& staged) const {
    std::string t;
    for (const Staged* s : staged) {
      const CopyPlan c = copyPlan(*s);
      std::string R = std::to_string(c.perRow), V = std::to_string(s->vec), n = name(s->input);
      std::string cols = extent(s->input, 1), W = std::to_string(s->size[1]);
      t += "    /* " + n + ": rows " + origin(*s, 0) + ".., columns " + origin(*s, 1) + ".., 16 bytes a copy" +
           (c.step ? "; thread t: piece t % " + R + " of rows t / " + R + " + " + std::to_string(c.step) + " k" : "") +
           " */\n";
      if (!c.step) {
        t += "    for (int i = formac_tid; i < " + std::to_string(s->size[0] * c.perRow) + "; i += " +
             std::to_string(kCudaThreads) + ") {\n      const int r = i / " + R + ", c = (i % " + R + ") * " + V +
             ";\n      formac_copy16(" + stagedName(s->input) + " + r * " + W + " + c, " + n + " + ((" +
             origin(*s, 0) + " + r) * (" + cols + ") + (" + origin(*s, 1) + " + c)));\n    }\n";
        continue;
      }
      t += "    const int " + copyRow(*s) + " = formac_tid / " + R + ", " + copyCol(*s) + " = (formac_tid % " + R +
           ") * " + V + ";\n";
      t += copyRounds(*s, c, "    ", [&](size_t k, const std::string& guard) {
        std::string r = copyRowAt(*s, k, c);
        return guard + "formac_copy16(" + stagedName(s->input) + " + " + r + " * " + W + " + " + copyCol(*s) + ", " + n +
               " + ((" + origin(*s, 0) + " + " + r + ") * (" + cols + ") + (" + origin(*s, 1) + " + " + copyCol(*s) +
               ")));\n";
      });
    }
    return t + "    formac_copy_wait();\n";
  }
  // Whether stagedWide checks the magnitude of `s`'s values: those of a
  // floating type. Not a struct's fields, even a lone float's: its reads are
  // not bounded (ExprContext::boundedRead).
  bool checksBound(const Staged& s) const {
    const Type& t = stage(s.input).type;
    return !t.isStruct() && isFloating(t.scalar);
  }
  // Whether some staged value reaches 2^100 in magnitude (2^1000 for double;
  // NaN does not count): each thread looks at the pieces it copied (its own
  // writes, complete after formac_copy_wait), and the block's barrier then
  // ORs the answers.
  std::string stagedWide(const std::vector<const Staged*>& staged) const {
    std::string t = "    bool formac_wide = false;\n";
    for (const Staged* s : staged) {
      if (!checksBound(*s)) continue;
      const bool f = stage(s->input).type.scalar == ScalarKind::Float;
      const std::string piece = f ? "float4" : "double2", max = f ? "fmaxf" : "fmax";
      const CopyPlan c = copyPlan(*s);
      std::string v = "reinterpret_cast<const " + piece + "*>(" + stagedName(s->input) + ")";
      t += "    {\n      " + std::string(f ? "float" : "double") + " m = 0;\n";
      if (!c.step) {
        // Piece i was copied by thread i % kCudaThreads: one line a round, so
        // that nvcc need not know formac_tid < kCudaThreads.
        const int pieces = s->size[0] * c.perRow;
        for (int at = 0; at < pieces; at += kCudaThreads)
          t += std::string("      ") +
               (pieces - at < kCudaThreads ? "if (formac_tid < " + std::to_string(pieces - at) + ") " : "") + "m = " +
               max + "(m, formac_max_abs16(" + v + "[formac_tid + " + std::to_string(at) + "]));\n";
      } else {
        t += copyRounds(*s, c, "      ", [&](size_t k, const std::string& guard) {
          return guard + "m = " + max + "(m, formac_max_abs16(" + v + "[" + copyRowAt(*s, k, c) + " * " +
                 std::to_string(c.perRow) + " + " + copyCol(*s) + " / " + std::to_string(s->vec) + "]));\n";
        });
      }
      t += "      formac_wide = formac_wide || !(m < " + std::string(f ? "1.26765060e30f" : "1.0715086071862673e301") +
           ");\n    }\n";
    }
    return t;
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
    t += "  const bool " + flag + " = " + stagedCondition(staged) + ";\n";
    staged_ = staged;
    std::string plain = sweepLoop(region, ids, store, false);
    bounded_ = true;
    std::string scaled = sweepLoop(region, ids, store, false);
    bounded_ = false;
    staged_.clear();
    std::string sweep = "    __syncthreads();\n" + plain;
    if (scaled != plain)
      sweep = "    /* Below 2^100, 2^k * x is exact: s + 2^k * x is then one fma (ExprContext::boundedRead). */\n" +
              stagedWide(staged) + "    if (__syncthreads_or(formac_wide) == 0) {\n" + indentLines(scaled, "  ") +
              "    } else {\n" + indentLines(plain, "  ") + "    }\n";
    std::string first = "if (" + flag + ") {\n" + stagedCopies(staged) + sweep + "  } else ";
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

  const FusedKernelRequest& r_;
  const ir::Pipeline& p_;
  const Names& n_;
  const passes::FusionGroup& g_;
  const GroupLayout L_;
  std::vector<int> ids_;  // members, then the sink
  std::map<std::pair<int, size_t>, BoxText> boxTexts_;  // per stage and dimension
  // The staged inputs that reads go to, while the staged sweep is written.
  mutable std::vector<const Staged*> staged_;
  // While the staged sweep is written for blocks whose staged values are bounded.
  mutable bool bounded_ = false;
};

}  // namespace

std::string fusedKernelSource(const FusedKernelRequest& r) { return FusedWriter(r).run(); }

long long fusedSharedBytes(const ir::Pipeline& p, const passes::FusionGroup& g) {
  return GroupLayout(p, g).sharedBytes();
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

std::string cudaPointCode(const LoopNestOptions& lo, bool fast, const std::string& ind) {
  if (!fast) return emitPointBody(lo, false, ind);
  return ind + "if (" + fastCondition(lo.piece->axes.size()) + ") {\n" + emitPointBody(lo, false, ind + "  ") +
         ind + "} else {\n" + emitPointBody(lo, true, ind + "  ") + ind + "}\n";
}

}  // namespace formac::codegen
