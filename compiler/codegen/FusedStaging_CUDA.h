// The inputs a rank-2 fused kernel copies to shared memory before the loop
// that reads them (GroupLayout::Staged, FusedLayout_CUDA.h): the names of
// the copies, the blocks that may copy, the copies, and the test of their
// magnitude that lets the loop's reads be bounded (ExprContext::boundedRead).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/FusedLayout_CUDA.h"
#include "codegen/Naming.h"
#include "codegen/Stmt.h"

namespace formac::codegen {

class StagedCopies {
 public:
  using Staged = GroupLayout::Staged;
  StagedCopies(const ir::Pipeline& p, const Names& n) : p_(p), n_(n) {}

  // The copy of input `id` in shared memory.
  std::string copyName(int id) const { return "formac_in_" + name(id); }
  // The copy's first row (d = 0) or column: "(t0 - 2)".
  static std::string origin(const Staged& s, size_t d) {
    int lo = s.lo[d];
    return std::string(d ? "(t1" : "(t0") + (lo < 0 ? " - " : " + ") + std::to_string(lo < 0 ? -lo : lo) + ")";
  }
  // Interior blocks whose staged inputs are 16-byte aligned (rows too) and
  // whose copies lie inside the images: the condition, and the copies.
  std::string condition(const std::vector<const Staged*>& staged) const;
  std::vector<Stmt> copies(const std::vector<const Staged*>& staged) const;
  // Whether wide() checks the magnitude of `s`'s values (floating types).
  bool checksBound(const Staged& s) const;
  // Sets formac_wide where some staged value reaches 2^100 in magnitude.
  std::vector<Stmt> wide(const std::vector<const Staged*>& staged) const;

 private:
  struct CopyPlan {
    int perRow = 0, step = 0;  // pieces a row; rows a round (0: wider rows)
    std::vector<int> last;     // per round: how many of its rows exist (step for a full one)
  };
  static CopyPlan copyPlan(const Staged& s);
  std::string copyRow(const Staged& s) const;
  std::string copyCol(const Staged& s) const;
  std::string copyRowAt(const Staged& s, size_t k, const CopyPlan& c) const;
  Stmt copyRounds(const Staged& s, const CopyPlan& c, const std::function<Stmt(size_t)>& line) const;
  const std::string& name(int id) const { return n_.stage[static_cast<size_t>(id)]; }
  const ir::Stage& stage(int id) const { return p_.stages[static_cast<size_t>(id)]; }
  std::string extent(int id, size_t d) const { return ir::printSize(stage(id).extent[d], n_.param); }

  const ir::Pipeline& p_;
  const Names& n_;
};

// Device helpers of staged inputs: a 16-byte copy from global to shared
// memory (cp.async from sm_80, a plain copy before) and the wait for them.
std::string asyncCopyHelpers();

}  // namespace formac::codegen
