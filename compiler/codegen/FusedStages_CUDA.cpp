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

Stmt FusedStages::kernelFunction(std::vector<Stmt> body) const {
  Stmt k = codegen::function("__global__", "void", r_.kernelName, r_.params, std::move(body), n_.param);
  k.templateParams = "typename I, int formac_blocks = 0";
  k.attributes = "__launch_bounds__(" + std::to_string(kCudaThreads) + ", formac_blocks)";
  return seq({comment("formac_blocks: the resident blocks per SM asked of ptxas (0: its choice)"), k});
}

Stmt FusedStages::sharedMemory() {
  return declOnly("extern __shared__ __align__(16) unsigned char", "formac_smem[]");
}

std::vector<Stmt> FusedStages::boxes() const {
  auto pair = [&](std::vector<Stmt>& t, int id, size_t d, const char* lo, const char* hi, const IndexBound& a,
                  const IndexBound& b) {
    t.push_back(decl("I", box(id, lo, d), "(I)(" + printLower(a) + ")"));
    t.push_back(decl("I", box(id, hi, d), "(I)(" + printUpper(b) + ")"));
  };
  std::vector<Stmt> t = {comment("Where each stage is computed, and where its reads need no boundary check.")};
  for (int id : ids_)
    for (size_t d = 0; d < rank(); ++d) {
      const Box& b = boxOf(id, d);
      pair(t, id, d, "lo", "hi", b.lo, b.hi);
      if (hasModes(id)) pair(t, id, d, "flo", "fhi", b.flo, b.fhi);
    }
  t.push_back(comment("Where each stage's check-free code is exact: inside its boxes, reading inlined members inside theirs."));
  for (int id : ids_)
    for (size_t d = 0; d < rank(); ++d) pair(t, id, d, "ulo", "uhi", boxOf(id, d).ulo, boxOf(id, d).uhi);
  return t;
}

std::vector<Stmt> FusedStages::interiorFlag() const {
  // (t - h) >= ulo and (t - h) + n - 1 <= uhi for every stage's region.
  std::string cond;
  for (size_t d = 0; d < rank(); ++d) {
    IndexBound lows, highs;
    for (int id : ids_) {
      int h = halo(id, d, false), n = span(id, d);
      lows.add(boxOf(id, d).ulo.shifted(h));
      highs.add(boxOf(id, d).uhi.shifted(h - (n - 1)));
    }
    std::string q = "t" + std::to_string(d);
    cond += std::string(d ? " && " : "") + q + " >= (I)(" + printLower(lows) + ") && " + q + " <= (I)(" +
            printUpper(highs) + ")";
  }
  return {comment("Interior block: every region lies inside its stage's exact box; no point needs a test."),
          decl("bool", "formac_interior", cond)};
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

std::vector<Stmt> FusedStages::pointBody(int id, bool checkedAccess, bool checkedBody, const std::string& result,
                                         Preloads* pre, const std::string& prefix,
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
  std::vector<Stmt> t;
  lo.access = [&](int pid, const std::vector<std::string>& idx) -> std::string {
    auto computed = here.find(pid);
    if (computed != here.end()) return computed->second;
    std::string call = access(pid, idx, checkedAccess);
    if (!inlined(pid)) return call;
    auto it = seen.find(call);
    if (it != seen.end()) return it->second;
    std::string var = "formac_r" + std::to_string(seen.size()) + "_" + name(pid);
    t.push_back(decl(cType(stage(pid).type), var, call));
    return seen[call] = var;
  };
  std::vector<Stmt> body = codegen::pointBody(lo, checkedBody);
  for (Stmt& st : body) t.push_back(std::move(st));
  return t;
}

std::vector<Stmt> FusedStages::checkedPoint(int id, const std::string& result) const {
  if (!hasModes(id)) return pointBody(id, true, false, result);
  return {ifThen(fastCondition(rank()), pointBody(id, true, false, result), pointBody(id, true, true, result))};
}

std::vector<Stmt> FusedStages::aliases(int id) const {
  std::vector<Stmt> t;
  for (size_t d = 0; d < rank(); ++d) {
    std::string D = std::to_string(d);
    t.push_back(decl("I", "lo" + D, box(id, "lo", d)));
    t.push_back(decl("I", "hi" + D, box(id, "hi", d)));
  }
  for (size_t d = 0; d < rank() && hasModes(id); ++d) {
    std::string D = std::to_string(d);
    t.push_back(decl("I", "fast_lo" + D, box(id, "flo", d)));
    t.push_back(decl("I", "fast_hi" + D, box(id, "fhi", d)));
  }
  return t;  // pointValue reads every lo and hi
}

std::vector<Stmt> FusedStages::pointValue(int id, bool checked) const {
  std::vector<Stmt> t = checked ? aliases(id) : std::vector<Stmt>();
  t.push_back(decl(cType(stage(id).type), "v", "{}", false));
  auto append = [&](std::vector<Stmt> more) {
    for (Stmt& st : more) t.push_back(std::move(st));
    return t;
  };
  if (!checked) return append(pointBody(id, false, false, "v"));
  // A periodic group's member is computed at every position of its region.
  if (g_.periodic && id != g_.sink) return append(checkedPoint(id, "v"));
  std::string inBox;
  for (size_t d = 0; d < rank(); ++d) {
    std::string D = std::to_string(d);
    inBox += std::string(d ? " && " : "") + "q" + D + " >= lo" + D + " && q" + D + " <= hi" + D;
  }
  t.push_back(ifThen(inBox, checkedPoint(id, "v")));
  return t;
}

std::vector<Stmt> FusedStages::lambdas() const {
  std::vector<Stmt> t;
  std::vector<Param> point;
  for (size_t d = 0; d < rank(); ++d) point.push_back(Param{"I", "q" + std::to_string(d), false, true});
  for (const auto& m : g_.members) {
    if (!m.inlined) continue;
    t.push_back(comment(name(m.stage) + ": recomputed where it is read"));
    for (bool checked : {false, true}) {
      std::vector<Stmt> body = pointValue(m.stage, checked);
      body.push_back(eval("return v"));
      t.push_back(lambda(function(m.stage, checked), point, cType(stage(m.stage).type), std::move(body)));
    }
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

}  // namespace formac::codegen
