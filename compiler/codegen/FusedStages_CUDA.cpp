#include "codegen/FusedStages_CUDA.h"

#include <algorithm>
#include <sstream>

#include "codegen/ExprPrinter.h"
#include "ir/Edges.h"

namespace formac::codegen {

std::string fastCondition(size_t rank) {
  std::string cond;
  for (size_t d = 0; d < rank; ++d) {
    std::string D = std::to_string(d);
    cond += (d ? " && q" : "q") + D + " >= fast_lo" + D + " && q" + D + " <= fast_hi" + D;
  }
  return cond;
}

GroupMembers::GroupMembers(const ir::Pipeline& p, const passes::FusionGroup& g) : p_(p), g_(g) {
  for (const auto& m : g_.members) byStage_[m.stage] = &m;
}

bool GroupMembers::inlined(int id) const {
  auto it = byStage_.find(id);
  return it != byStage_.end() && it->second->inlined;
}

int GroupMembers::halo(int id, size_t d, bool hi) const {
  auto it = byStage_.find(id);
  if (it == byStage_.end()) return 0;
  return hi ? it->second->haloHi[d] : it->second->haloLo[d];
}

bool GroupMembers::dependsOn(int a, int b) const {
  bool found = false;
  ir::forEachExpr(stage(a).pieces[0].body, [&](const ir::Expr& e) {
    if (found || e.kind != ir::Expr::ImageRead) return;
    if (e.producer == b || (inlined(e.producer) && dependsOn(e.producer, b))) found = true;
  });
  return found;
}

FusedStages::FusedStages(const FusedKernelRequest& r)
    : GroupMembers(*r.pipeline, *r.group), r_(r), n_(*r.names) {
  for (const auto& m : g_.members) ids_.push_back(m.stage);
  ids_.push_back(g_.sink);
  for (int id : ids_)
    for (size_t d = 0; d < rank(); ++d) placeBox(id, d);
}

void FusedStages::placeBox(int id, size_t d) {
  if (boxes_.count({id, d})) return;
  LoopNestOptions o = FusedStages::options(id, false);
  const ir::Piece& pc = stage(id).pieces[0];
  Box b;
  b.lo.terms = {sizeTerm(pc.validLo[d], n_.param)};
  b.hi.terms = {sizeTerm(pc.validHi[d], n_.param)};
  b.flo = b.lo, b.fhi = b.hi;
  if (needsBorderChecks(o)) b.flo.add({fastLowerTerms(o, d)}), b.fhi.add({fastUpperTerms(o, d)});
  b.ulo = b.flo, b.uhi = b.fhi;
  for (const auto& [x, range] : inlinedReads(id, d)) {
    placeBox(x, d);
    b.ulo.add(boxOf(x, d).ulo.shifted(-range.first));
    b.uhi.add(boxOf(x, d).uhi.shifted(-range.second));
  }
  boxes_[{id, d}] = b;
}

std::string FusedStages::boxes() const {
  auto pair = [&](int id, size_t d, const char* lo, const char* hi, const IndexBound& a, const IndexBound& b) {
    return "  const I " + box(id, lo, d) + " = (I)(" + printLower(a) + "), " + box(id, hi, d) + " = (I)(" +
           printUpper(b) + ");\n";
  };
  std::string t = "  /* Where each stage is computed, and where its reads need no boundary check. */\n";
  for (int id : ids_)
    for (size_t d = 0; d < rank(); ++d) {
      const Box& b = boxOf(id, d);
      t += pair(id, d, "lo", "hi", b.lo, b.hi);
      if (hasModes(id)) t += pair(id, d, "flo", "fhi", b.flo, b.fhi);
    }
  t += "  /* Where each stage's check-free code is exact: inside its boxes, reading inlined members inside theirs. */\n";
  for (int id : ids_)
    for (size_t d = 0; d < rank(); ++d) t += pair(id, d, "ulo", "uhi", boxOf(id, d).ulo, boxOf(id, d).uhi);
  return t;
}

std::string FusedStages::interiorFlag(const std::string& ind) const {
  // (t - h) >= ulo and (t - h) + n - 1 <= uhi for every stage's region.
  std::string t = ind + "/* Interior block: every region lies inside its stage's exact box; no point needs a test. */\n" +
                  ind + "const bool formac_interior =";
  for (size_t d = 0; d < rank(); ++d) {
    IndexBound lows, highs;
    for (int id : ids_) {
      int h = halo(id, d, false), n = span(id, d);
      lows.add(boxOf(id, d).ulo.shifted(h));
      highs.add(boxOf(id, d).uhi.shifted(h - (n - 1)));
    }
    std::string q = "t" + std::to_string(d);
    t += std::string(d ? " &&" : "") + "\n" + ind + "    " + q + " >= (I)(" + printLower(lows) + ") && " + q +
         " <= (I)(" + printUpper(highs) + ")";
  }
  return t + ";\n";
}

std::string FusedStages::regionOrigin(int id, size_t d) const {
  return "(t" + std::to_string(d) + " - " + std::to_string(halo(id, d, false)) + ")";
}

std::string FusedStages::memoryElement(int id, const std::vector<std::string>& idx) const {
  std::string at = "(" + idx[0] + ")";
  for (size_t d = 1; d < idx.size(); ++d) at = "(" + at + " * (" + extent(id, d) + ") + (" + idx[d] + "))";
  return name(id) + "[" + at + "]";
}

std::string FusedStages::memoryRead(int id, const std::vector<std::string>& idx) const {
  return memoryElement(id, idx);
}

std::string FusedStages::access(int id, const std::vector<std::string>& idx, bool checked) const {
  if (!member(id)) return memoryRead(id, idx);
  std::string args;
  if (inlined(id)) {
    for (const auto& i : idx) args += (args.empty() ? "(I)(" : ", (I)(") + i + ")";
    return function(id, checked) + "(" + args + ")";
  }
  // Row-major in the region: ((c0 * span1 + c1) * span2 + c2)...
  std::string at;
  for (size_t d = 0; d < idx.size(); ++d) {
    std::string c = "(int)((" + idx[d] + ") - " + regionOrigin(id, d) + ")";
    at = d == 0 ? c : (d > 1 ? "(" + at + ")" : at) + " * " + std::to_string(span(id, d)) + " + " + c;
  }
  return "tile_" + name(id) + "[" + at + "]";
}

LoopNestOptions FusedStages::options(int id, bool checked) const {
  LoopNestOptions lo;
  lo.pipeline = &p_;
  lo.stage = &stage(id);
  lo.piece = &stage(id).pieces[0];
  lo.names = &n_;
  lo.openmp = false;
  lo.cuda = true;
  lo.outsideCache = r_.outsideCache;
  lo.access = [this, checked](int pid, const std::vector<std::string>& idx) { return access(pid, idx, checked); };
  // A periodic group's regions hold each member's values past the image too
  // (at the wrapped positions): its reads of members stay unresolved.
  if (g_.periodic) lo.resolved = [this](int pid) { return member(pid); };
  return lo;
}

std::string FusedStages::pointBody(int id, bool checkedAccess, bool checkedBody, const std::string& result,
                                   const std::string& ind, Preloads* pre, const std::string& prefix,
                                   const std::map<int, std::string>& here) const {
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

std::string FusedStages::checkedPoint(int id, const std::string& result, const std::string& ind) const {
  if (!hasModes(id)) return pointBody(id, true, false, result, ind);
  return ind + "if (" + fastCondition(rank()) + ") {\n" + pointBody(id, true, false, result, ind + "  ") + ind +
         "} else {\n" + pointBody(id, true, true, result, ind + "  ") + ind + "}\n";
}

std::string FusedStages::aliases(int id, const std::string& ind) const {
  std::string boxes, fast;
  for (size_t d = 0; d < rank(); ++d) {
    std::string D = std::to_string(d), sep = d ? ", " : "";
    boxes += sep + "lo" + D + " = " + box(id, "lo", d) + ", hi" + D + " = " + box(id, "hi", d);
    fast += sep + "fast_lo" + D + " = " + box(id, "flo", d) + ", fast_hi" + D + " = " + box(id, "fhi", d);
  }
  std::string t = ind + "const I " + boxes + ";\n";
  if (hasModes(id)) t += ind + "const I " + fast + ";\n";
  return t;  // pointValue reads every lo and hi
}

std::string FusedStages::pointValue(int id, bool checked, const std::string& ind) const {
  std::string t = checked ? aliases(id, ind) : "";
  t += ind + cType(stage(id).type) + " v = {};\n";
  if (!checked) return t + pointBody(id, false, false, "v", ind);
  // A periodic group's member is computed at every position of its region.
  if (g_.periodic && id != g_.sink) return t + checkedPoint(id, "v", ind);
  std::string inBox;
  for (size_t d = 0; d < rank(); ++d) {
    std::string D = std::to_string(d);
    inBox += std::string(d ? " && " : "") + "q" + D + " >= lo" + D + " && q" + D + " <= hi" + D;
  }
  return t + ind + "if (" + inBox + ") {\n" + checkedPoint(id, "v", ind + "  ") + ind + "}\n";
}

std::string FusedStages::lambdas() const {
  std::string t, point;
  for (size_t d = 0; d < rank(); ++d) point += std::string(d ? ", " : "") + "const I q" + std::to_string(d);
  for (const auto& m : g_.members) {
    if (!m.inlined) continue;
    std::string T = cType(stage(m.stage).type);
    t += "  /* " + name(m.stage) + ": recomputed where it is read */\n";
    for (bool checked : {false, true})
      t += "  auto " + function(m.stage, checked) + " = [&](" + point + ") -> " + T + " {\n" +
           pointValue(m.stage, checked, "    ") + "    return v;\n  };\n";
  }
  return t;
}

std::map<int, std::pair<int, int>> FusedStages::inlinedReads(int id, size_t d) const {
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

std::string FusedStages::indentLines(const std::string& text, const std::string& ind) {
  std::string t;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) t += ind + line + "\n";
  return t;
}

}  // namespace formac::codegen
