// What the fused CUDA kernels of every rank share (FusedKernel_CUDA.h):
// the group's members and their regions, the generated names, how a stage
// reads another (a member's tile, an inlined member's function, memory),
// and the statements of one point of a stage, checked or check-free.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/FusedKernel_CUDA.h"
#include "codegen/IndexBounds.h"
#include "codegen/LoopNest.h"

namespace formac::codegen {

// The members of a group by stage: which are inlined, their halos and the
// extent of their regions (the sink's tile widened by the halo).
class GroupMembers {
 public:
  GroupMembers(const ir::Pipeline& p, const passes::FusionGroup& g);
  const ir::Stage& stage(int id) const { return p_.stages[static_cast<size_t>(id)]; }
  size_t rank() const { return g_.tile.size(); }
  bool inlined(int id) const;
  bool member(int id) const { return byStage_.count(id) > 0; }
  int halo(int id, size_t d, bool hi) const;
  // Points of stage `id`'s region along d (the sink's: its tile).
  int span(int id, size_t d) const { return g_.tile[d] + halo(id, d, false) + halo(id, d, true); }
  // Whether `a` reads `b`, directly or through inlined members.
  bool dependsOn(int a, int b) const;

 protected:
  const ir::Pipeline& p_;
  const passes::FusionGroup& g_;

 private:
  std::map<int, const passes::GroupMember*> byStage_;
};

// The writer's side: names, reads and point statements of the group's stages.
class FusedStages : public GroupMembers {
 public:
  explicit FusedStages(const FusedKernelRequest& r);
  virtual ~FusedStages() = default;

 protected:
  const std::string& name(int id) const { return n_.stage[static_cast<size_t>(id)]; }
  // The region's first index along d, "(tD - haloLo)".
  std::string regionOrigin(int id, size_t d) const;
  // Stage `id`'s extent along d, as C.
  std::string extent(int id, size_t d) const { return ir::printSize(stage(id).extent[d], n_.param); }

  // Generated names: the "formac_" prefix is the generated code's own, and
  // the part before the stage name differs between kinds (no two collide).
  std::string box(int id, const char* kind, size_t d) const {
    return std::string("formac_") + kind + std::to_string(d) + "_" + name(id);
  }
  std::string function(int id, bool checked) const { return (checked ? "formac_atc_" : "formac_at_") + name(id); }
  std::string value(int id, int u) const { return "formac_v" + std::to_string(u) + "_" + name(id); }

  // Reads of group stages: a tile, an inlined member's function, or memory.
  std::string access(int id, const std::vector<std::string>& idx, bool checked) const;
  // A read of stage `id` (not a member) from memory; the rank-2 writer also
  // reads staged copies.
  virtual std::string memoryRead(int id, const std::vector<std::string>& idx) const;
  // "name[linear index]" of `idx` in stage `id`'s buffer.
  std::string memoryElement(int id, const std::vector<std::string>& idx) const;
  virtual LoopNestOptions options(int id, bool checked) const;
  bool hasModes(int id) const { return needsBorderChecks(options(id, false)); }

  // Loads of several points placed before their arithmetic (LoopNestOptions::preload).
  struct Preloads {
    std::vector<Stmt> declarations, assignments;
  };
  // The statements of one point of stage `id` (codegen::pointBody), with
  // every read of an inlined member bound first to a local: each is computed
  // once per point however often the body reads it. With `pre`, its loads go
  // there instead (named from `prefix`). `here`: members already computed
  // at this point (their variables), read from those.
  std::vector<Stmt> pointBody(int id, bool checkedAccess, bool checkedBody, const std::string& result,
                              Preloads* pre = nullptr, const std::string& prefix = "",
                              const std::map<int, std::string>& here = {}) const;
  // Checked code: check-free statements where the stage's boundary-mode
  // reads are in range (fast_lo..fast_hi), resolved ones elsewhere.
  std::vector<Stmt> checkedPoint(int id, const std::string& result) const;
  // The box of stage `id` under the names the point code uses.
  std::vector<Stmt> aliases(int id) const;
  // The value `v` of stage `id` at (q0, q1, ...): checked (0 outside the
  // stage's box, boundary modes resolved) or check-free.
  std::vector<Stmt> pointValue(int id, bool checked) const;
  // Inlined members as functions of the point, check-free and checked.
  std::vector<Stmt> lambdas() const;
  // Per inlined member that stage `id` reads: the least and greatest offset along d.
  std::map<int, std::pair<int, int>> inlinedReads(int id, size_t d) const;

  // A stage's boxes along d: where it is computed (lo..hi, its valid box:
  // every stage of a group is a whole stencil), where its boundary-mode
  // reads need no check (flo..fhi), and where its check-free code is exact
  // (ulo..uhi: inside its boxes, reading inlined members inside theirs).
  struct Box {
    IndexBound lo, hi, flo, fhi, ulo, uhi;
  };
  const Box& boxOf(int id, size_t d) const { return boxes_.at({id, d}); }
  // The kernel (r_.kernelName, r_.params) around `body`, its resident
  // blocks per SM a template parameter.
  Stmt kernelFunction(std::vector<Stmt> body) const;
  // The declaration of the kernel's dynamic shared memory, formac_smem.
  static Stmt sharedMemory();
  // The boxes of every stage as constants formac_lo0_NAME ... (box()).
  std::vector<Stmt> boxes() const;
  // formac_interior: whether every stage's region (from tD - haloLo, span
  // points) lies inside its exact box, folded into one least and one
  // greatest tD per dimension.
  std::vector<Stmt> interiorFlag() const;

  const FusedKernelRequest& r_;
  const Names& n_;
  std::vector<int> ids_;  // the members, then the sink

 private:
  // Computes boxOf(id, d) once, after those of the members it inlines.
  void placeBox(int id, size_t d);
  std::map<std::pair<int, size_t>, Box> boxes_;  // per stage and dimension
};

// "q0 >= fast_lo0 && q0 <= fast_hi0 && ...": the point's reads need no check.
std::string fastCondition(size_t rank);

}  // namespace formac::codegen
