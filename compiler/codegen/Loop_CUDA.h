// The host code of a `do` loop (ir::Loop) in the generated CUDA: the whole
// loop is one CUDA graph, so its condition is read on the device and no
// round waits for the host.
//
// The body is a pipeline of its own, printed embedded (CudaOptions::embedded:
// its kernels, workspace and NAME_enqueue, static). Each carried image j has
// two buffers, a_j and b_j. The graph, built by stream capture once and again
// only when a pointer or scalar it captured changes:
//
//   while (hw) {                      hw: R > 0 at launch
//     body(a -> b); after_odd         after_odd: r = ++rounds; go = cond && r < R;
//     if (hi) {                                   hw = hi = go; hc = !go
//       body(b -> a); after_even      after_even: r = ++rounds; hw = cond && r < R
//     }
//   }
//   if (hc) copy b -> a               hc: 0 at launch; the last round wrote b
//
// so a_j holds the last round's image (the initial one when R <= 0), and the
// enqueue copies it into the loop's result. Where loopInPlaceCuda allows, the
// initial image is computed into a_j and the result read where it lies: no copy. A monotone propagation
// (LoopCuda::settle, R > 1) gets formac_settle_graph instead: round 1 from a
// into b and its measure; while (hp) { a settling pass (Settle_CUDA.h) };
// then b holds the result, or, when round 1 moved points both ways or the
// changes add up to more than R, the rounds above run from a (hw) and their
// result is copied into b (hf): a settled loop's result is in b. Rounds and the condition stay on
// the device (`rounds` counts the rounds run). Conditional graph nodes need
// CUDA 12.4 or later, checked when the .cu is compiled.
#pragma once

#include <string>
#include <vector>

#include "codegen/Naming.h"
#include "ir/Pipeline.h"
#include "codegen/Settle_CUDA.h"
#include "codegen/Stmt.h"
#include "passes/LocalFixpoint.h"

namespace formac::codegen {

struct LoopCuda {
  const ir::Pipeline* pipeline = nullptr;  // the enclosing pipeline
  const ir::Stage* first = nullptr;        // the loop's first LoopResult stage
  const Names* names = nullptr;            // the enclosing pipeline's
  std::string name;                        // the body's kernel name (its functions' stem)
  std::string fail;                        // statement of create() on failure
  // Host expressions (in the enqueue function) of device pointers: each
  // carried image's value before round 1, each outer stage the body reads
  // (in the order of ir::Loop::reads), each LoopResult stage's buffer.
  std::vector<std::string> initial, reads, results;
  // Per carried image: whether `initial` / `results` is the loop's own buffer
  // (loopInPlaceCuda; results: loopResultBufferCuda), so nothing is copied.
  std::vector<bool> initialInPlace, resultInPlace;
  // A monotone propagation (its rounds settle after round 1: Settle_CUDA.h),
  // and its settling kernel, printed once by the generator.
  const passes::LocalFixpoint* settle = nullptr;
  const SettleCuda* settleKernel = nullptr;
};

// The device pointer of carried image j's buffer a_j (an expression over `ws`).
std::string loopBufferCuda(const ir::Stage& first, size_t j);
// Where carried image j lies after the loop: a_j, or for a loop that settles
// (`settles`: its LocalFixpoint holds) b_j when the rounds' limit is over 1
// (an expression over `ws` and the parameters, named `params`).
std::string loopResultBufferCuda(const ir::Stage& first, size_t j, bool settles, const std::vector<std::string>& params);

// Per carried image j of the loop whose first LoopResult stage is `first`:
// initial[j], the stage holding X<A-1> when its memory can be a_j itself (a
// computed stage that writes every point, read by nothing but this loop, no
// output, the initial value of no other carried image), else -1; result[j],
// the LoopResult stage when its memory can be a_j (it is no output of its
// own: after the loop nothing writes a_j), else -1.
struct LoopInPlace {
  std::vector<int> initial, result;
};
LoopInPlace loopInPlaceCuda(const ir::Pipeline& p, const ir::Stage& first);

// Device code once per program with loops: the kernels after_odd and after_even.
std::string loopPreludeCuda();
// Device code once per program with a loop that settles: its state and kernels.
std::string settlePreludeCuda();
// Workspace members, create() and destroy() statements of one loop.
std::string loopMembersCuda(const LoopCuda& l);
std::string loopCreateCuda(const LoopCuda& l);
std::string loopDestroyCuda(const LoopCuda& l);
// The device pointer of the loop's round counter (a host expression over `ws`).
std::string loopRoundsCuda(const LoopCuda& l);
// In the enqueue function: the graph rebuilt if needed, launched, results copied.
Stmt loopLaunchCuda(const LoopCuda& l);

}  // namespace formac::codegen
