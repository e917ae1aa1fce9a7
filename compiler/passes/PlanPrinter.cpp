#include "passes/PlanPrinter.h"

#include <sstream>

#include "ir/Printer.h"

namespace formac::passes {
namespace {

std::string list(const std::vector<int>& v, const char* sep) {
  std::string t;
  for (size_t i = 0; i < v.size(); ++i) t += (i ? sep : "") + std::to_string(v[i]);
  return t;
}

class PlanText {
 public:
  explicit PlanText(const LoweredPipeline& l) : l_(l), params_(l.pipeline.paramNames()) {}

  std::string run() {
    os_ << "plan for " << l_.target.name() << (l_.target.fuse ? "" : ", fusion off") << "\n";
    for (const auto& s : l_.pipeline.stages)
      if (s.kind == ir::Stage::Input) os_ << "input " << describe(s.id) << "\n";
    if (!l_.planned) {
      os_ << "(not planned yet)\n";
      return os_.str();
    }
    for (size_t i = 0; i < l_.groups.size(); ++i) group(static_cast<int>(i), l_.groups[i]);
    for (const auto& [id, lf] : l_.localFixpoints)
      os_ << "loop over '" << stage(id).loop->iterator << "' (line " << stage(id).loop->loc.line << "): "
          << (lf.ok ? "rounds to a local fixed point, " : "rounds one by one: ") << lf.why << "\n";
    return os_.str();
  }

 private:
  const ir::Stage& stage(int id) const { return l_.pipeline.stages[static_cast<size_t>(id)]; }

  // 'name' [extent] type (what it computes, line N)
  std::string describe(int id) const {
    const ir::Stage& s = stage(id);
    std::string extent;
    for (size_t d = 0; d < s.extent.size(); ++d)
      extent += (d ? ", " : "") + ir::printSize(s.extent[d], params_);
    bool named = !s.userName.empty();
    std::string t = ir::displayName(l_.pipeline, id) + " [" + extent + "] " + s.type.name();
    std::string where = named ? s.origin : "";
    if (s.loc.valid()) where += (where.empty() ? "" : ", ") + ("line " + std::to_string(s.loc.line));
    return where.empty() ? t : t + " (" + where + ")";
  }

  void group(int index, const FusionGroup& g) {
    os_ << "group " << index << ": " << describe(g.sink) << "\n";
    if (g.fused()) {
      long long bytes = g.onChipBytes(l_.pipeline);
      os_ << "  fused: tile [" << list(g.tile, ", ") << "], " << bytes
          << (l_.target.kind == Target::Cuda ? " bytes of shared memory a block"
                                             : " bytes of tiles a thread at most (the tile "
                                               "shrinks to the cache at run time)")
          << (g.onePass ? ", one pass" : ", swept in passes") << (g.compact ? ", compact kernel" : "")
          << (g.periodic ? ", periodic (every read wraps: regions reach past the image)" : "") << "\n";
      for (const auto& m : g.members) {
        os_ << "  member " << describe(m.stage) << ", halo [" << list(m.haloLo, ", ") << "] / ["
            << list(m.haloHi, ", ") << "]";
        if (m.inlined)
          os_ << ", inlined: "
              << (cheapPointwise(stage(m.stage).pieces[0])
                      ? "pointwise, at most " + std::to_string(kInlineOps) + " operations"
                      : std::string("evaluated once per point where it is read"));
        os_ << "\n";
      }
    }
    if (g.tiledAlone)
      os_ << "  tiled alone: tile [" << list(g.tile, ", ") << "], it reads its neighbours"
          << (g.onePass ? ", one pass" : ", swept in passes") << "\n";
    else if (!g.notTiled.empty())
      os_ << "  not tiled: " << g.notTiled << "\n";
    if (g.epilogue >= 0) {
      os_ << "  counted into " << ir::displayName(l_.pipeline, g.epilogue)
          << " by this kernel as each point is computed, never stored (kernel-epilogue)\n";
      return;
    }
    const std::string& why = l_.whyMaterialised[static_cast<size_t>(g.sink)];
    os_ << "  in memory" << (why.empty() ? "" : ": " + why) << "\n";
  }

  const LoweredPipeline& l_;
  std::vector<std::string> params_;
  std::ostringstream os_;
};

}  // namespace

std::string printPlan(const LoweredPipeline& l) { return PlanText(l).run(); }

std::string printPlanDot(const LoweredPipeline& l) {
  std::vector<ir::DotCluster> clusters;
  for (size_t i = 0; i < l.groups.size(); ++i) {
    const FusionGroup& g = l.groups[i];
    if (!g.fused()) continue;
    ir::DotCluster c{"group " + std::to_string(i) + ": tile " + list(g.tile, "x"), {}};
    for (const auto& m : g.members) c.stages.push_back(m.stage);
    c.stages.push_back(g.sink);
    clusters.push_back(c);
  }
  return ir::printDot(l.pipeline, clusters);
}

}  // namespace formac::passes
