// The layout of a rank-2 fused CUDA kernel (FusedKernel_CUDA.h): the loops
// (batches) that compute the members' regions, the inputs staged in shared
// memory, and where every tile lies in shared memory. Shared by the writer
// and fusedSharedBytes.
#pragma once

#include <map>
#include <vector>

#include "codegen/FusedStages_CUDA.h"

namespace formac::codegen {

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

class GroupLayout : public GroupMembers {
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

  GroupLayout(const ir::Pipeline& p, const passes::FusionGroup& g);

  int TY() const { return g_.tile[0]; }
  int TX() const { return g_.tile[1]; }
  int H(int id) const { return span(id, 0); }
  int W(int id) const { return span(id, 1); }

  const std::vector<std::vector<int>>& batches() const { return batches_; }
  const std::vector<Staged>& staged() const { return staged_; }
  // The tile of member `id` in shared memory (-1: inlined), and all bytes.
  long long tileOffset(int id) const { return tileAt_.count(id) ? tileAt_.at(id) : -1; }
  long long sharedBytes() const { return total_; }

 private:
  bool readsOnlyItsPoint(int a, int b) const;
  bool sameRegion(int a, int b) const;
  std::vector<std::vector<int>> computeBatches() const;
  void place();
  std::vector<Staged> candidates() const;

  std::vector<std::vector<int>> batches_;
  std::map<int, long long> tileAt_;
  std::vector<Staged> staged_;
  long long total_ = 0;
};

}  // namespace formac::codegen
