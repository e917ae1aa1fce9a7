#include "codegen/FusedTiles_C.h"

#include <map>
#include <sstream>

#include "codegen/ExprPrinter.h"
#include "codegen/LoopNest.h"
#include "codegen/StageFacts.h"
#include "ir/Edges.h"

namespace formac::codegen {
namespace {

using passes::GroupMember;

std::string str(long long v) { return std::to_string(v); }

// Region geometry of one member, as C expressions in t0, t1, TH, TW.
struct Region {
  std::string row0, col0;  // first row / column (global coordinates)
  std::string rows, cols;  // extent
  std::string buffer;      // C name of the thread's buffer
};

Region regionOf(const FusedGroupC& g, const GroupMember& m) {
  Region r;
  r.row0 = "(t0 - " + str(m.haloLo[0]) + ")";
  r.col0 = "(t1 - " + str(m.haloLo[1]) + ")";
  r.rows = "(TH + " + str(m.haloLo[0] + m.haloHi[0]) + ")";
  r.cols = "(TW + " + str(m.haloLo[1] + m.haloHi[1]) + ")";
  r.buffer = "tile_" + g.names->stage[static_cast<size_t>(m.stage)];
  return r;
}

class Emitter {
 public:
  explicit Emitter(const FusedGroupC& g) : g_(g), p_(*g.pipeline) {
    for (const auto& m : g.group->members) regions_[m.stage] = regionOf(g, m);
  }

  std::string function() {
    std::ostringstream os;
    const passes::FusionGroup& grp = *g_.group;
    os << "/* Fused on the CPU: ";
    for (const auto& m : grp.members) os << name(m.stage) << ", ";
    os << name(grp.sink) << ". Tiles of TH x TW points of " << name(grp.sink)
       << " are shared among the threads; each member is computed over its\n   tile and halo into the "
          "thread's buffers (seed 003, Algorithm 1). */\n";
    os << "static void " << g_.functionName << "(" << g_.signature
       << ", unsigned char* scratch, const size_t scratch_stride, const int nthreads, const long long TH, const long long TW) {\n";
    const ir::Stage& sink = stage(grp.sink);
    os << "  const long long tiles0 = ((" << size(sink.extent[0]) << ") + TH - 1) / TH;\n"
       << "  const long long tiles1 = ((" << size(sink.extent[1]) << ") + TW - 1) / TW;\n"
       << "  long long tile;\n"
       << "  (void)nthreads;\n";
    for (const auto& prm : g_.names->param) os << "  (void)" << prm << ";\n";
    if (g_.openmp) os << "  FORMAC_PRAGMA(omp parallel for schedule(dynamic, 1) num_threads(nthreads))\n";
    os << "  for (tile = 0; tile < tiles0 * tiles1; ++tile) {\n"
       << "    const long long t0 = (tile / tiles1) * TH;\n"
       << "    const long long t1 = (tile % tiles1) * TW;\n"
       << "    unsigned char* mine = scratch + (size_t)formac_thread_num() * scratch_stride;\n";
    // Buffers, each 64-byte aligned, staggered by a cache line against conflict misses.
    std::string offset = "0";
    int k = 0;
    for (const auto& m : grp.members) {
      const Region& r = regions_.at(m.stage);
      std::string ty = cType(stage(m.stage).type);
      os << "    " << ty << "* restrict " << r.buffer << " = (" << ty << "*)(mine + " << offset << ");\n";
      offset = "formac_align64(" + offset + " + (size_t)" + r.rows + " * (size_t)" + r.cols + " * sizeof(" +
               ty + ")) + " + str(64 * ((++k) % 4));
    }
    for (const auto& m : grp.members) os << memberCode(m);
    os << sinkCode();
    os << "  }\n}\n\n";
    return os.str();
  }

  std::string tileChoice(const std::string& th, const std::string& tw, const std::string& bytes,
                         const std::string& ind) {
    const passes::FusionGroup& grp = *g_.group;
    const ir::Stage& sink = stage(grp.sink);
    int maxHalo0 = 0, maxHalo1 = 0;
    for (const auto& m : grp.members) {
      maxHalo0 = std::max({maxHalo0, m.haloLo[0], m.haloHi[0]});
      maxHalo1 = std::max({maxHalo1, m.haloLo[1], m.haloHi[1]});
    }
    // bytes(TH, TW) = sum over members of (TH+h0)(TW+h1) * size, plus alignment.
    auto bytesFor = [&](const std::string& H, const std::string& W) {
      std::string t = "(size_t)0";
      for (const auto& m : grp.members)
        t += " + formac_align64((size_t)(" + H + " + " + str(m.haloLo[0] + m.haloHi[0]) + ") * (size_t)(" + W +
             " + " + str(m.haloLo[1] + m.haloHi[1]) + ") * sizeof(" + cType(stage(m.stage).type) + ")) + 64";
      return t;
    };
    std::ostringstream os;
    os << ind << "{\n"
       << ind << "  /* Rows of up to 512 columns; as many rows as fit in half the L2 (a tile\n"
       << ind << "     must exceed the halo so that clamped and mirrored reads stay inside). */\n"
       << ind << "  const size_t budget = formac_l2_bytes() / 2;\n"
       << ind << "  long long w = formac_minll(" << size(sink.extent[1]) << ", 512), h = 64;\n"
       << ind << "  w = formac_maxll(w, " << maxHalo1 + 1 << ");\n"
       << ind << "  while (h > " << maxHalo0 + 1 << " && " << bytesFor("h", "w") << " > budget) h /= 2;\n"
       << ind << "  h = formac_maxll(h, " << maxHalo0 + 1 << ");\n"
       << ind << "  " << th << " = h;\n"
       << ind << "  " << tw << " = w;\n"
       << ind << "  " << bytes << " = " << bytesFor("h", "w") << " + 256;\n"
       << ind << "}\n";
    return os.str();
  }

 private:
  const ir::Stage& stage(int id) const { return p_.stages[static_cast<size_t>(id)]; }
  const std::string& name(int id) const { return g_.names->stage[static_cast<size_t>(id)]; }
  std::string size(const ir::Size& s) const { return ir::printSize(s, g_.names->param); }

  LoopNestOptions nest(const ir::Stage& s) const {
    LoopNestOptions lo;
    lo.pipeline = &p_;
    lo.stage = &s;
    lo.piece = &s.pieces[0];
    lo.names = g_.names;
    lo.openmp = false;
    lo.access = [this](int id, const std::vector<std::string>& idx) -> std::string {
      auto it = regions_.find(id);
      if (it == regions_.end())  // a global image
        return name(id) + "[(" + idx[0] + ") * (" + size(stage(id).extent[1]) + ") + (" + idx[1] + ")]";
      const Region& r = it->second;
      return r.buffer + "[((" + idx[0] + ") - " + r.row0 + ") * " + r.cols + " + ((" + idx[1] + ") - " +
             r.col0 + ")]";
    };
    return lo;
  }

  std::string bounds(const LoopNestOptions& lo, bool fast, const std::string& ind) const {
    std::string t;
    for (size_t d = 0; d < 2; ++d) {
      std::string D = str(static_cast<long long>(d));
      t += ind + "const long long lo" + D + " = " + pieceFirstIndex(lo, d) + ";\n";
      t += ind + "const long long hi" + D + " = " + pieceLastIndex(lo, d) + ";\n";
      if (!fast) continue;
      std::string flo = "lo" + D, fhi = "hi" + D;
      for (const auto& b : fastLowerBounds(lo, d)) flo = "formac_maxll(" + flo + ", " + b + ")";
      for (const auto& b : fastUpperBounds(lo, d)) fhi = "formac_minll(" + fhi + ", " + b + ")";
      t += ind + "const long long fast_lo" + D + " = " + flo + ";\n";
      t += ind + "const long long fast_hi" + D + " = " + fhi + ";\n";
    }
    return t;
  }

  // The runs of one row [a, b]: zeros before the valid box (members only),
  // checked points, the check-free run, checked points, zeros after. Each run
  // has its end computed first so the compiler sees a plain counted loop.
  std::string rowRuns(LoopNestOptions lo, bool zeroOutside, bool fast, const std::string& target,
                      const std::string& ind) const {
    std::string zero = zeroOf(*lo.stage);
    lo.resultVariable = target;
    auto loop = [&](const std::string& end, const std::string& body, const std::string& in) {
      return in + "for (; q1 <= " + end + "; ++q1) {\n" + body + in + "}\n";
    };
    std::string t = ind + "long long q1 = a;\n";
    if (zeroOutside) t += loop("formac_minll(b, lo1 - 1)", ind + "  " + target + " = " + zero + ";\n", ind);
    else t += ind + "q1 = formac_maxll(a, lo1);\n";
    if (fast) {
      t += ind + "if (q0 >= fast_lo0 && q0 <= fast_hi0) {\n";
      t += ind + "  const long long checked_end = formac_minll(formac_minll(b, hi1), fast_lo1 - 1);\n";
      t += ind + "  const long long fast_end = formac_minll(b, fast_hi1);\n";
      t += loop("checked_end", emitPointBody(lo, true, ind + "    "), ind + "  ");
      t += loop("fast_end", emitPointBody(lo, false, ind + "    "), ind + "  ");
      t += ind + "}\n";
      t += ind + "{\n" + ind + "  const long long end = formac_minll(b, hi1);\n";
      t += loop("end", emitPointBody(lo, true, ind + "    "), ind + "  ") + ind + "}\n";
    } else {
      t += ind + "{\n" + ind + "  const long long end = formac_minll(b, hi1);\n";
      t += loop("end", emitPointBody(lo, false, ind + "    "), ind + "  ") + ind + "}\n";
    }
    if (zeroOutside) t += loop("b", ind + "  " + target + " = " + zero + ";\n", ind);
    return t;
  }

  std::string memberCode(const GroupMember& m) const {
    const ir::Stage& s = stage(m.stage);
    const Region& r = regions_.at(m.stage);
    LoopNestOptions lo = nest(s);
    std::ostringstream os;
    std::string ind = "      ";
    os << "    /* " << name(m.stage) << " = " << s.origin << ": rows t0-" << m.haloLo[0] << "..t0+TH-1+"
       << m.haloHi[0] << ", columns t1-" << m.haloLo[1] << "..t1+TW-1+" << m.haloHi[1] << " */\n    {\n"
       << bounds(lo, needsBorderChecks(lo), "      ")
       << "      const long long a = " << r.col0 << ", b = " << r.col0 << " + " << r.cols << " - 1;\n"
       << "      long long q0;\n"
       << "      for (q0 = " << r.row0 << "; q0 < " << r.row0 << " + " << r.rows << "; ++q0) {\n"
       << "        " << cType(s.type) << "* restrict row = " << r.buffer << " + (q0 - " << r.row0 << ") * "
       << r.cols << ";\n"
       << "        if (q0 < lo0 || q0 > hi0) {\n"
       << "          long long q1;\n"
       << "          for (q1 = a; q1 <= b; ++q1) row[q1 - a] = " << zeroOf(s) << ";\n"
       << "          continue;\n        }\n"
       << "        {\n"
       << rowRuns(lo, true, needsBorderChecks(lo), "row[q1 - a]", ind + "    ")
       << "        }\n      }\n    }\n";
    return os.str();
  }

  std::string zeroOf(const ir::Stage& s) const {
    return s.type.isStruct() ? "((" + cType(s.type) + "){0})" : "(" + cType(s.type) + ")0";
  }

  // The sink writes every point of its tile that lies in its extent: zeros
  // outside its valid box, so the output needs no clearing beforehand.
  std::string sinkCode() const {
    const ir::Stage& s = stage(g_.group->sink);
    LoopNestOptions lo = nest(s);
    std::ostringstream os;
    std::string out = name(s.id);
    std::string rows = size(s.extent[0]), cols = size(s.extent[1]);
    os << "    /* " << out << " = " << s.origin << ": the tile's own points (0 outside its valid box) */\n    {\n"
       << bounds(lo, needsBorderChecks(lo), "      ")
       << "      const long long a = t1, b = formac_minll(t1 + TW - 1, (" << cols << ") - 1);\n"
       << "      long long q0;\n"
       << "      for (q0 = t0; q0 <= formac_minll(t0 + TH - 1, (" << rows << ") - 1); ++q0) {\n"
       << "        " << cType(s.type) << "* restrict row = " << out << " + q0 * (" << cols << ");\n"
       << "        if (q0 < lo0 || q0 > hi0) {\n"
       << "          long long q1;\n"
       << "          for (q1 = a; q1 <= b; ++q1) row[q1] = " << zeroOf(s) << ";\n"
       << "          continue;\n        }\n"
       << "        {\n"
       << rowRuns(lo, true, needsBorderChecks(lo), "row[q1]", "          ")
       << "        }\n      }\n    }\n";
    return os.str();
  }

  const FusedGroupC& g_;
  const ir::Pipeline& p_;
  std::map<int, Region> regions_;
};

}  // namespace

std::string emitFusedGroupFunction(const FusedGroupC& g) { return Emitter(g).function(); }

std::string emitTileChoice(const FusedGroupC& g, const std::string& th, const std::string& tw,
                           const std::string& bytes, const std::string& indent) {
  return Emitter(g).tileChoice(th, tw, bytes, indent);
}

}  // namespace formac::codegen
