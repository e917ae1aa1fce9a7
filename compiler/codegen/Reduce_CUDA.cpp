#include "codegen/Reduce_CUDA.h"

#include <set>
#include <stdexcept>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedKernel_CUDA.h"
#include "codegen/LoopNest.h"
#include "codegen/ReduceFlat_CUDA.h"
#include "codegen/ReduceWindow_CUDA.h"
#include "codegen/Reduce_C.h"
#include "codegen/Select_CUDA.h"

namespace formac::codegen {
namespace {

using ir::ReduceOp;

std::string str(long long v) { return std::to_string(v); }
const std::string kChunk = str(ir::kSumChunk);
const std::string kChunkMask = str(ir::kSumChunk - 1);
const std::string kLanes = str(ir::kSumLanes);
// Values a lane computes before adding them (batched).
constexpr int kBatch = 8;
// A point-wise whole reduction: 16-byte loads a lane issued together.
constexpr int kFlatBatch = 4;
// The last block's combine: partials a lane loads together (a chunk's 64
// in two or four rounds: the loads hit L2, and their latency is the
// combine's time).
int levelBatch(const ir::Stage& s) { return reducePartialBytesCuda(s) == 8 ? 16 : 32; }
// Its kernel's blocks resident per SM (__launch_bounds__; the grid's size).
constexpr int kWholeBlocksPerSm = 4;
const std::string kThreads = str(kCudaThreads);


std::string integerLimit(ScalarKind k, bool highest) {
  long long lo, hi;
  integerRange(k, &lo, &hi);
  if (k == ScalarKind::Int64) return highest ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)";
  if (k == ScalarKind::Int && !highest) return "(-2147483647 - 1)";
  long long v = highest ? hi : lo;
  return v < 0 ? "(" + str(v) + ")" : str(v);
}

// How one op accumulates: into formac_acc (a partial, starting at
// `identity`), adding an element formac_v or merging a partial formac_x.
struct Op {
  std::string partial;   // the partial's type
  std::string identity;  // a partial of no points
  std::string add;       // statement adding formac_v
  std::string merge;     // statement merging formac_x
  std::string empty;     // the result of an empty domain
  bool floatingSum = false;
};

Op opOf(const ir::Stage& s) {
  ScalarKind elem = s.reduction.input.body.result->type.scalar;
  Op o;
  switch (s.reduction.op) {
    case ReduceOp::Histogram:
    case ReduceOp::Where:
    case ReduceOp::TopK:
      throw std::logic_error("Select_CUDA compiles histogram, where and topk");
    case ReduceOp::Sum:
      o.floatingSum = isFloating(elem);
      o.partial = o.floatingSum ? "double" : "unsigned long long";
      o.identity = o.floatingSum ? "0.0" : "0ULL";
      o.add = "formac_acc += (" + o.partial + ")formac_v;";
      o.merge = "formac_acc += formac_x;";
      o.empty = "0";
      break;
    case ReduceOp::Min:
    case ReduceOp::Max: {
      bool isMax = s.reduction.op == ReduceOp::Max;
      o.partial = scalarCType(elem);
      if (isFloating(elem)) {
        // NaN is the identity of formac_max_total_f and friends (reducePrelude).
        std::string fn = std::string(isMax ? "formac_max_total_" : "formac_min_total_") +
                         (elem == ScalarKind::Float ? "f" : "d");
        o.identity = "NAN";
        o.add = "formac_acc = " + fn + "(formac_acc, formac_v);";
        o.merge = "formac_acc = " + fn + "(formac_acc, formac_x);";
        o.empty = isMax ? "-INFINITY" : "INFINITY";
      } else {
        std::string cmp = isMax ? " > " : " < ";
        o.identity = o.empty = integerLimit(elem, !isMax);
        o.add = "if (formac_v" + cmp + "formac_acc) formac_acc = formac_v;";
        o.merge = "if (formac_x" + cmp + "formac_acc) formac_acc = formac_x;";
      }
      break;
    }
    case ReduceOp::Count:
      o.partial = "long long";
      o.identity = o.empty = "0";
      o.add = "formac_acc += formac_v != 0;";
      o.merge = "formac_acc += formac_x;";
      break;
    case ReduceOp::Any:
    case ReduceOp::All: {
      bool any = s.reduction.op == ReduceOp::Any;
      std::string bit = any ? "|" : "&";
      o.partial = "int";
      o.identity = o.empty = any ? "0" : "1";
      o.add = "formac_acc " + bit + "= formac_v != 0;";
      o.merge = "formac_acc " + bit + "= formac_x;";
      break;
    }
  }
  return o;
}

int rankOf(const ir::Stage& s) { return static_cast<int>(s.reduction.input.axes.size()); }
std::string q(int d) { return "q" + std::to_string(d); }
std::string n(int d) { return "formac_n" + std::to_string(d); }

// Kernel: the domain's extents as I (formac_n0, ...), and as long long the
// points combined into one value (formac_len) and the values (formac_outs).
std::string domainDeclarations(const ReduceCuda& r) {
  const ir::Reduction& red = r.stage->reduction;
  std::string t, len, outs;
  for (int d = 0; d < rankOf(*r.stage); ++d) {
    t += "  const I " + n(d) + " = (I)(" + ir::printSize(red.input.axes[static_cast<size_t>(d)].count, r.names->param) +
         ");\n";
    std::string& product = red.dim < 0 || d == red.dim ? len : outs;
    product += (product.empty() ? "(long long)" : " * (long long)") + n(d);
  }
  t += "  const long long formac_len = " + len + ";  /* points combined into one value */\n";
  if (red.dim >= 0) t += "  const long long formac_outs = " + (outs.empty() ? "1" : outs) + ";\n";
  // The parameters no extent of the domain names (the kernel's header takes them all).
  return unusedParameters(r.names->param, t) + t + "  const long long formac_chunks = (formac_len + " + kChunkMask +
         ") / " + kChunk + ";\n";
}

// The point's value into formac_v (an element of the domain's type), at
// lattice indices q0, q1, ...
// Inside the box where every boundary-mode read is in range (LoopNest's
// fast bounds), the reads unchecked; elsewhere resolved (the same values).
std::string pointValue(const ReduceCuda& r, const std::string& ind) {
  ir::Stage domain = domainStage(*r.stage);
  LoopNestOptions lo = reduce_cuda::pointOptions(*r.pipeline, domain, *r.names);
  std::string inside;
  std::set<std::string> seen;
  auto bound = [&](const std::string& test) {
    if (seen.insert(test).second) inside += (inside.empty() ? "" : " && ") + test;
  };
  for (size_t d = 0; d < domain.pieces[0].axes.size(); ++d) {
    for (const auto& b : fastLowerBounds(lo, d)) bound(q(static_cast<int>(d)) + " >= " + b);
    for (const auto& b : fastUpperBounds(lo, d)) bound(q(static_cast<int>(d)) + " <= " + b);
  }
  if (inside.empty()) return reduce_cuda::pointValueOf(*r.pipeline, *r.stage, *r.names, ind);
  return ind + cType(domain.type) + " formac_v;\n" + ind + "if (" + inside + ") {\n" +
         emitPointBody(lo, false, ind + "  ") + ind + "} else {\n" + emitPointBody(lo, true, ind + "  ") + ind + "}\n";
}

// The chunks of `len` values from chunk `first` up to (not with) `stop`,
// `stride` chunks apart: a warp each, lane j accumulating into formac_acc
// the values k = j mod 32 (`body`, given formac_c and formac_end).
std::string chunkLoop(const std::string& len, const std::string& first, const std::string& stride,
                      const std::string& stop, const std::string& body) {
  return "  for (long long formac_c = " + first + "; formac_c < " + stop + "; formac_c += " + stride + ") {\n"
         "    const long long formac_end = " + len + " - formac_c * " + kChunk + " < " + kChunk + " ? " + len +
         " : formac_c * " + kChunk + " + " + kChunk + ";\n" + body + "  }\n";
}

// The lanes' formac_acc folded pairwise into lane 0's (lane j takes lane
// j + s, s = 16 .. 1), at indentation `in`.
std::string laneFold(const Op& o, const std::string& in) {
  return in + "for (int formac_s = " + str(ir::kSumLanes / 2) + "; formac_s >= 1; formac_s /= 2) {\n" +
         in + "  const " + o.partial + " formac_x = (" + o.partial +
         ")__shfl_down_sync(0xffffffffu, formac_acc, formac_s);\n" + in + "  " + o.merge + "\n" + in + "}\n";
}

// chunkLoop with a partial a chunk: formac_acc starts at the identity in
// each chunk, the lanes fold, and lane 0 stores it into `out`[formac_c].
std::string eachChunk(const Op& o, const std::string& len, const std::string& first, const std::string& stride,
                      const std::string& stop, const std::string& body, const std::string& out) {
  std::string in = "    ";
  return chunkLoop(len, first, stride, stop,
                   in + o.partial + " formac_acc = " + o.identity + ";\n" + body + laneFold(o, in) +
                       in + "if (formac_j == 0) " + out + "[formac_c] = formac_acc;\n");
}

// A chunk's values one lane-step at a time: lane j's values k = j mod 32
// from formac_k (`start` places the lattice indices), kBatch of them
// computed (`value` declares `name` of `type` at formac_k; `advance` moves
// the indices 32 points on) before they are added (`accumulate`) in the same
// order, so that their loads are in flight together.
std::string batched(const std::string& start, const std::string& type, const std::string& name,
                    const std::string& value, const std::string& accumulate, const std::string& advance,
                    int size = kBatch) {
  std::string in = "    ", batch = str(size);
  std::string inside = "formac_k + " + kLanes + " * formac_u < formac_end";
  return in + "long long formac_k = formac_c * " + kChunk + " + formac_j;\n" + start +
         in + "for (; formac_k < formac_end; formac_k += " + kLanes + " * " + batch + ") {\n" +
         in + "  " + type + " formac_batch[" + batch + "];\n" +
         in + "#pragma unroll\n" +
         in + "  for (int formac_u = 0; formac_u < " + batch + "; ++formac_u) {\n" +
         in + "    if (" + inside + ") {\n" + value + in + "      formac_batch[formac_u] = " + name + ";\n" +
         in + "    }\n" + advance + in + "  }\n" +
         in + "#pragma unroll\n" +
         in + "  for (int formac_u = 0; formac_u < " + batch + "; ++formac_u) {\n" +
         in + "    if (!(" + inside + ")) break;\n" +
         in + "    const " + type + " " + name + " = formac_batch[formac_u];\n" +
         in + "    " + accumulate + "\n" + in + "  }\n" + in + "}\n";
}

std::string header(const ReduceCuda& r, const std::string& suffix, const std::string& params, int minBlocks = 0) {
  std::string bounds = kThreads + (minBlocks ? ", " + str(minBlocks) : "");
  std::string t = "template <typename I>\n__global__ void __launch_bounds__(" + bounds + ") " + r.name + suffix + "(" +
                  (r.inputParams.empty() ? "" : r.inputParams + ", ") + params;
  for (const auto& prm : r.names->param) t += ", const I " + prm;
  return t + ") {\n";  // domainDeclarations follows
}

// The lattice indices (`prefix`0.., I) of point formac_k (row-major), at
// indentation `in`.
std::string pointIndices(const ReduceCuda& r, const std::string& in, const std::string& prefix = "q") {
  int rank = rankOf(*r.stage);
  std::string start = in + "/* The lattice indices of point k (row-major), then moved on with it. */\n" +
                      in + "long long formac_rest = formac_k;\n";
  for (int d = rank - 1; d > 0; --d)
    start += in + "I " + prefix + str(d) + " = (I)(formac_rest % " + n(d) + ");\n" + in + "formac_rest /= " + n(d) + ";\n";
  return start + in + "I " + prefix + "0 = (I)formac_rest;\n";
}

// The lattice indices (`prefix`0..) moved on by `step` points (at
// indentation `in` + 2).
std::string advanceIndices(const ReduceCuda& r, const std::string& in, const std::string& prefix = "q",
                           const std::string& step = kLanes) {
  int rank = rankOf(*r.stage);
  auto p = [&](int d) { return prefix + str(d); };
  std::string advance = in + "  " + p(rank - 1) + " += " + step + ";\n";
  if (rank > 1) {
    advance += in + "  while (" + p(rank - 1) + " >= " + n(rank - 1) + ") {\n" + in + "    " + p(rank - 1) + " -= " +
               n(rank - 1) + ";\n";
    std::string pad = in + "    ";
    for (int d = rank - 2; d > 0; --d, pad += "  ")
      advance += pad + "if (++" + p(d) + " == " + n(d) + ") {\n" + pad + "  " + p(d) + " = 0;\n";
    advance += pad + "++" + p(0) + ";\n";
    for (int d = 1; d < rank - 1; ++d) {
      pad.resize(pad.size() - 2);
      advance += pad + "}\n";
    }
    advance += in + "  }\n";
  }
  return advance;
}

// dim = -1, a point-wise body (ReduceFlat_CUDA.h): a full chunk whose
// producers are aligned goes kFlatBatch * 16 bytes a lane at a time; any
// other chunk point by point. Floating sums keep the rule's order: the
// warp's values pass through shared memory, lane j then adding the points
// k = j mod 32 of each step in increasing k.
std::string flatChunk(const ReduceCuda& r, const Op& o, const FlatReads& f) {
  std::string in = "    ", per = str(f.per), steps = str(ir::kSumChunk / (32 * f.per)), B = str(kFlatBatch);
  std::string T = cType(domainStage(*r.stage).type);
  std::string add = o.floatingSum
      ? in + "      " + T + " formac_w[" + per + "];\n" +
        in + "      #pragma unroll\n" + in + "      for (int formac_u = 0; formac_u < " + per + "; ++formac_u) {\n" +
        reduce_flat::value(r, true, in + "        ") + in + "        formac_w[formac_u] = formac_v;\n" + in + "      }\n" +
        in + "      __syncwarp();\n" + in + "      memcpy(formac_mine + formac_j * " + per + ", formac_w, sizeof formac_w);\n" +
        in + "      __syncwarp();\n" +
        in + "      #pragma unroll\n" + in + "      for (int formac_u = 0; formac_u < " + per + "; ++formac_u) {\n" +
        in + "        const " + T + " formac_v = formac_mine[formac_u * " + kLanes + " + formac_j];\n" +
        in + "        " + o.add + "\n" + in + "      }\n"
      : in + "      #pragma unroll\n" + in + "      for (int formac_u = 0; formac_u < " + per + "; ++formac_u) {\n" +
        reduce_flat::value(r, true, in + "        ") + in + "        " + o.add + "\n" + in + "      }\n";
  return in + "if (formac_aligned && formac_end - formac_c * " + kChunk + " == " + kChunk + ") {\n" +
         in + "  for (int formac_i = 0; formac_i < " + steps + "; formac_i += " + B + ") {\n" +
         in + "    const long long formac_at = formac_c * " + kChunk + " + formac_i * " + str(32 * f.per) +
         " + formac_j * " + per + ";\n" + reduce_flat::loads(r, f, kFlatBatch, "formac_at", in + "    ") +
         in + "    #pragma unroll\n" + in + "    for (int formac_b = 0; formac_b < " + B + "; ++formac_b) {\n" +
         reduce_flat::unpack(r, f, "formac_b", in + "      ") + add + in + "    }\n" + in + "  }\n" +
         in + "} else {\n" +
         in + "  for (long long formac_k = formac_c * " + kChunk + " + formac_j; formac_k < formac_end; formac_k += " +
         kLanes + ") {\n" + reduce_flat::value(r, false, in + "    ") + in + "    " + o.add + "\n" + in + "  }\n" +
         in + "}\n";
}

// Every block's partials written (the fence), it takes a ticket; all but
// the last block to finish return.
std::string lastBlock() {
  return "  /* The last block: each block's partials are written (the fence), then it takes a ticket. */\n"
         "  __shared__ bool formac_last;\n"
         "  __threadfence();\n"
         "  __syncthreads();\n"
         "  if (threadIdx.x == 0) formac_last = atomicAdd(formac_ticket, 1u) == gridDim.x - 1;\n"
         "  __syncthreads();\n"
         "  if (!formac_last) return;\n"
         "  __threadfence();\n";
}

// Floating sums: a partial a chunk, by the rule; the last block to finish
// (a ticket) combines the partials level by level by the same rule (a warp
// per chunk of them, between the scratch's two parts) and writes the value.
std::string wholeSumByRule(const ReduceCuda& r, const Op& o, const std::string& body) {
  std::string in = "    ", T = cType(r.stage->type);
  std::string level = batched("", o.partial, "formac_x",
                              in + "      const " + o.partial + " formac_x = __ldcg(formac_from + formac_k + " + kLanes +
                                  " * formac_u);\n",
                              o.merge, "", levelBatch(*r.stage));
  return eachChunk(o, "formac_len", "formac_first", "formac_warps", "formac_chunks", body, "formac_partials") +
         lastBlock() +
         "  /* The partials combined level by level by the same rule, between the scratch's two parts. */\n"
         "  " + o.partial + "* formac_from = formac_partials;\n"
         "  " + o.partial + "* formac_to = formac_partials + formac_chunks;\n"
         "  for (long long formac_n = formac_chunks; formac_n > 1; formac_n = (formac_n + " + kChunkMask + ") / " + kChunk +
         ") {\n" +
         indent(eachChunk(o, "formac_n", "(long long)(threadIdx.x / " + kLanes + ")", "(long long)(blockDim.x / " + kLanes + ")",
                          "(formac_n + " + kChunkMask + ") / " + kChunk, level, "formac_to"), "  ") +
         "    __syncthreads();\n"
         "    " + o.partial + "* const formac_swap = formac_from;\n"
         "    formac_from = formac_to;\n"
         "    formac_to = formac_swap;\n"
         "  }\n"
         "  if (threadIdx.x == 0) formac_out[0] = formac_chunks == 0 ? (" + T + ")(" + o.empty + ") : (" + T +
         ")__ldcg(formac_from);\n";
}

// The block's threads' formac_acc folded into thread 0's: the lanes, then
// the warps through formac_warp_acc.
std::string blockFold(const Op& o) {
  return laneFold(o, "  ") +
         "  __syncthreads();\n"
         "  if (formac_j == 0) formac_warp_acc[formac_warp] = formac_acc;\n"
         "  __syncthreads();\n"
         "  if (threadIdx.x == 0)\n"
         "    for (int formac_i = 1; formac_i < (int)(blockDim.x / " + kLanes + "); ++formac_i) {\n"
         "      const " + o.partial + " formac_x = formac_warp_acc[formac_i];\n"
         "      " + o.merge + "\n"
         "    }\n";
}

// Any other op gives one value in any order: a warp's lanes accumulate all
// its chunks, the block folds its threads into a partial a block (not one
// a chunk), and the last block to finish (a ticket) folds the blocks'.
std::string wholeInAnyOrder(const ReduceCuda& r, const Op& o, const std::string& body) {
  std::string T = cType(r.stage->type);
  return "  __shared__ " + o.partial + " formac_warp_acc[" + kThreads + " / " + kLanes + "];\n"
         "  " + o.partial + " formac_acc = " + o.identity + ";\n" +
         chunkLoop("formac_len", "formac_first", "formac_warps", "formac_chunks", body) +
         blockFold(o) +
         "  if (threadIdx.x == 0) formac_partials[blockIdx.x] = formac_acc;\n" +
         lastBlock() +
         "  formac_acc = " + o.identity + ";\n"
         "  for (unsigned formac_i = threadIdx.x; formac_i < gridDim.x; formac_i += blockDim.x) {\n"
         "    const " + o.partial + " formac_x = __ldcg(formac_partials + formac_i);\n"
         "    " + o.merge + "\n"
         "  }\n" +
         blockFold(o) +
         "  if (threadIdx.x == 0) formac_out[0] = formac_chunks == 0 ? (" + T + ")(" + o.empty + ") : (" + T +
         ")formac_acc;\n";
}

// dim = -1: one kernel, a warp per chunk of the domain's points (row-major),
// grid-stride: the warps at work at once read neighbouring chunks (a
// stencil's rows are shared in L2: a run of chunks a block was 14% slower
// for the sum of a 3x3 blur).
std::string wholeKernel(const ReduceCuda& r, const Op& o) {
  std::string in = "    ", T = cType(r.stage->type);
  FlatReads f = flatReads(r);
  std::string t = "/* " + r.stage->name + (o.floatingSum
                      ? ": a warp per chunk, then the last block to finish combines the partials. */\n"
                      : ": a warp per chunk, a partial a block, the last block to finish combining them. */\n") +
                  header(r, "_chunks", o.partial + "* __restrict__ formac_partials, unsigned* __restrict__ formac_ticket, " +
                         T + "* __restrict__ formac_out", kWholeBlocksPerSm) +
                  domainDeclarations(r) +
                  "  const int formac_j = (int)(threadIdx.x % " + kLanes + ");  /* the lane */\n" +
                  (o.floatingSum ? "" : "  const int formac_warp = (int)(threadIdx.x / " + kLanes + ");  /* the block's warp */\n") +
                  "  const long long formac_warps = (long long)gridDim.x * (blockDim.x / " + kLanes + ");\n"
                  "  const long long formac_first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / " + kLanes + ";\n";
  WindowReads w = f.per ? WindowReads{} : windowReads(r);
  const int per = f.per ? f.per : w.per;
  if (per) {
    t += "  const bool formac_aligned = " + (f.per ? reduce_flat::aligned(r, f) : windowAligned(r, w)) + ";\n";
    if (o.floatingSum)
      t += "  __shared__ __align__(16) " + cType(domainStage(*r.stage).type) + " formac_stage[" + kThreads + " / " +
           kLanes + "][" + str(32 * per) + "];\n"
           "  " + cType(domainStage(*r.stage).type) + "* const formac_mine = formac_stage[threadIdx.x / " + kLanes + "];\n";
  }
  std::string pointByPoint = batched(pointIndices(r, in), cType(domainStage(*r.stage).type), "formac_v",
                                     pointValue(r, in + "      "), o.add, indent(advanceIndices(r, in), "  "));
  std::string body = f.per ? flatChunk(r, o, f) : w.per ? windowChunk(r, w, o.floatingSum, o.add, pointByPoint) : pointByPoint;
  return t + (o.floatingSum ? wholeSumByRule(r, o, body) : wholeInAnyOrder(r, o, body)) + "}\n\n";
}

// dim = d: a thread per (output point, chunk of its line).
std::string lineChunksKernel(const ReduceCuda& r, const Op& o) {
  int rank = rankOf(*r.stage), dim = r.stage->reduction.dim;
  std::string in = "    ";
  std::string t = header(r, "_chunks", o.partial + "* __restrict__ formac_partials") + domainDeclarations(r) +
                  "  for (long long formac_w = (long long)blockIdx.x * blockDim.x + threadIdx.x; formac_w < formac_outs * "
                  "formac_chunks;\n       formac_w += (long long)gridDim.x * blockDim.x) {\n" +
                  in + "const long long formac_o = formac_w / formac_chunks, formac_c = formac_w % formac_chunks;\n" +
                  in + "const long long formac_end = formac_len - formac_c * " + kChunk + " < " + kChunk +
                  " ? formac_len : formac_c * " + kChunk + " + " + kChunk + ";\n" +
                  in + "/* The output point's lattice indices (row-major without dimension " + str(dim) + "). */\n" +
                  in + "long long formac_rest = formac_o;\n";
  int first = dim == 0 ? 1 : 0;
  for (int d = rank - 1; d >= 0; --d) {
    if (d == dim) continue;
    if (d == first) t += in + "const I " + q(d) + " = (I)formac_rest;\n";
    else t += in + "const I " + q(d) + " = (I)(formac_rest % " + n(d) + ");\n" + in + "formac_rest /= " + n(d) + ";\n";
  }
  t += in + "(void)formac_rest;\n";
  if (o.floatingSum) {
    // The rule's lanes one after the other: lane j's points k = j mod 32.
    t += in + "double formac_lane[" + kLanes + "];\n" +
         in + "for (int formac_j = 0; formac_j < " + kLanes + "; ++formac_j) {\n" +
         in + "  double formac_acc = 0.0;\n" +
         in + "  for (long long formac_k = formac_c * " + kChunk + " + formac_j; formac_k < formac_end; formac_k += " +
         kLanes + ") {\n" +
         in + "    const I " + q(dim) + " = (I)formac_k;\n" + pointValue(r, in + "    ") +
         in + "    " + o.add + "\n" + in + "  }\n" +
         in + "  formac_lane[formac_j] = formac_acc;\n" + in + "}\n" +
         in + "formac_partials[formac_w] = formac_lane_sum(formac_lane);\n";
  } else {
    t += in + o.partial + " formac_acc = " + o.identity + ";\n" +
         in + "for (long long formac_k = formac_c * " + kChunk + "; formac_k < formac_end; ++formac_k) {\n" +
         in + "  const I " + q(dim) + " = (I)formac_k;\n" + pointValue(r, in + "  ") + in + "  " + o.add + "\n" +
         in + "}\n" + in + "formac_partials[formac_w] = formac_acc;\n";
  }
  return t + "  }\n}\n\n";
}

// dim = d: a thread per output point combines its line's partials.
std::string lineCombineKernel(const ReduceCuda& r, const Op& o) {
  std::string T = cType(r.stage->type), in = "    ";
  std::string t = "/* " + r.stage->name + ": each output point's partials combined. */\n"
                  "__global__ void __launch_bounds__(" + kThreads + ") " + r.name + "_combine(" + o.partial +
                  "* __restrict__ formac_partials, " + T +
                  "* __restrict__ formac_out, const long long formac_outs, const long long formac_chunks) {\n"
                  "  for (long long formac_w = (long long)blockIdx.x * blockDim.x + threadIdx.x; formac_w < formac_outs;\n"
                  "       formac_w += (long long)gridDim.x * blockDim.x) {\n" +
                  in + o.partial + "* formac_p = formac_partials + formac_w * formac_chunks;\n";
  if (o.floatingSum) {
    t += in + "const double formac_acc = formac_sum_d(formac_p, formac_chunks);\n";
  } else {
    t += in + o.partial + " formac_acc = " + o.identity + ";\n" +
         in + "for (long long formac_i = 0; formac_i < formac_chunks; ++formac_i) {\n" +
         in + "  const " + o.partial + " formac_x = formac_p[formac_i];\n" + in + "  " + o.merge + "\n" + in + "}\n";
  }
  return t + in + "formac_out[formac_w] = formac_chunks == 0 ? (" + T + ")(" + o.empty + ") : (" + T +
         ")formac_acc;\n  }\n}\n\n";
}

// Host: the product of the domain's counts along the reduced dimensions (or the others).
HostExpr hostProduct(const ir::Stage& s, bool reduced) {
  const ir::Reduction& red = s.reduction;
  HostExpr t = hc(1);
  for (int d = 0; d < rankOf(s); ++d)
    if ((red.dim < 0 || d == red.dim) == reduced) t = t * hsize(red.input.axes[static_cast<size_t>(d)].count);
  return t;
}

// min(ceil(threads / 256), 2^30) blocks of 256.
HostExpr gridFor(HostExpr threads) { return hmin(ceilDiv(std::move(threads), kCudaThreads), hc(1LL << 30)); }

HostArg scratchAt(int scratch, HostExpr at = hc(0)) { return {HostArg::Scratch, scratch, std::move(at), ""}; }

// dim = -1: the ticket's element in the scratch, after the chunks' partials
// (or the blocks', fewer), the next level's and one more (a domain of no
// chunk still has a block, and its partial), at a multiple of 8 elements
// (aligned for an unsigned).
HostExpr ticketAt(HostExpr chunks) { return ceilDiv(chunks + ceilDiv(chunks, ir::kSumChunk) + hc(1), 8) * hc(8); }
HostArg ticketOf(const ReduceCuda& r, HostExpr chunks) {
  return {HostArg::Scratch, r.partials, ticketAt(std::move(chunks)), "unsigned*"};
}
// dim = -1: blocks of kWholeBlocksPerSm per SM at most, each warp taking
// as many chunks as any other (the same rounds end together), at least one.
HostExpr wholeGrid(HostExpr chunks) {
  HostExpr warps = hmax(hop(HostExpr::Sms, {}), hc(1)) * hc(kWholeBlocksPerSm * kCudaThreads / ir::kSumLanes);
  HostExpr rounds = hmax(hc(1), hop(HostExpr::CeilDiv, {chunks, warps}));
  return hmax(hc(1), ceilDiv(hop(HostExpr::CeilDiv, {chunks, rounds}), kCudaThreads / ir::kSumLanes));
}
HostArg value(HostExpr e) { return {HostArg::Value, 0, std::move(e), ""}; }

}  // namespace

namespace reduce_cuda {
std::string kernelHeader(const ReduceCuda& r, const std::string& suffix, const std::string& params) {
  return header(r, suffix, params);
}
std::string kernelDomain(const ReduceCuda& r) { return domainDeclarations(r); }
std::string kernelPointIndices(const ReduceCuda& r, const std::string& in, const std::string& prefix) {
  return pointIndices(r, in, prefix);
}
std::string kernelAdvance(const ReduceCuda& r, const std::string& in, const std::string& prefix,
                          const std::string& step) {
  return advanceIndices(r, in, prefix, step.empty() ? kLanes : step);
}
std::string kernelPointValue(const ReduceCuda& r, const std::string& in) { return pointValue(r, in); }

LoopNestOptions pointOptions(const ir::Pipeline& p, const ir::Stage& domain, const Names& n) {
  LoopNestOptions lo;
  lo.pipeline = &p;
  lo.stage = &domain;
  lo.piece = &domain.pieces[0];
  lo.names = &n;
  lo.openmp = false;
  lo.cuda = true;
  lo.resultVariable = "formac_v";
  return lo;
}
std::string pointValueOf(const ir::Pipeline& p, const ir::Stage& s, const Names& n, const std::string& ind) {
  ir::Stage domain = domainStage(s);
  return ind + cType(domain.type) + " formac_v;\n" + emitPointBody(pointOptions(p, domain, n), true, ind);
}
HostExpr hostLen(const ir::Stage& s) { return hostProduct(s, true); }
HostExpr hostOuts(const ir::Stage& s) { return hostProduct(s, false); }
HostStep hostLaunch(const ReduceCuda& r, LaunchSchedule& s, const std::string& kernel, HostExpr grid,
                    std::vector<HostArg> args, int threads) {
  std::vector<HostArg> all = r.inputs;
  all.insert(all.end(), args.begin(), args.end());
  for (size_t i = 0; i < r.names->param.size(); ++i) all.push_back({HostArg::Param, static_cast<int>(i), {}, ""});
  HostKernel k;
  k.name = kernel;
  return hlaunch(s.kernel(k), std::move(grid), std::move(all), threads);
}
int plainKernel(LaunchSchedule& s, const std::string& name) {
  HostKernel k;
  k.name = name;
  k.templated = false;
  return s.kernel(k);
}
}  // namespace reduce_cuda

int reducePartialBytesCuda(const ir::Stage& s) {
  switch (s.reduction.op) {
    case ReduceOp::Min:
    case ReduceOp::Max: return scalarSize(s.reduction.input.body.result->type.scalar);
    case ReduceOp::Any:
    case ReduceOp::All: return 4;
    default: return 8;
  }
}

HostExpr reduceScratchCuda(const ir::Stage& s) {
  if (isSelection(s.reduction.op)) return selectScratchCuda(s);
  HostExpr count = reduce_cuda::hostOuts(s) * ceilDiv(reduce_cuda::hostLen(s), ir::kSumChunk);
  if (s.reduction.dim >= 0) return count;
  // The chunks' partials, room for the next level's, then the ticket.
  return ticketAt(count) + hc(8);
}

HostExpr reduceDomainPoints(const ir::Stage& s) {
  HostExpr t = hc(1);
  for (const auto& a : s.reduction.input.axes) t = t * hsize(a.count);
  return t;
}

std::string emitReduceKernelsCuda(const ReduceCuda& r) {
  if (isSelection(r.stage->reduction.op)) return emitSelectKernelsCuda(r);
  Op o = opOf(*r.stage);
  if (r.stage->reduction.dim < 0) return wholeKernel(r, o);
  return lineChunksKernel(r, o) + lineCombineKernel(r, o);
}

HostStep scheduleReduceCuda(const ReduceCuda& r, LaunchSchedule& s) {
  if (isSelection(r.stage->reduction.op)) return scheduleSelectCuda(r, s);
  const ir::Reduction& red = r.stage->reduction;
  int len = s.value("formac_len"), chunks = s.value("formac_chunks");
  std::vector<HostStep> t = {hvar(len, reduce_cuda::hostLen(*r.stage)), hvar(chunks, ceilDiv(hval(len), ir::kSumChunk))};
  HostArg result{HostArg::Stage, r.stage->id, {}, ""};
  std::string comment = r.stage->name + " = " + r.stage->origin + ": ";
  if (red.dim >= 0) {
    int outs = s.value("formac_outs");
    t.insert(t.begin() + 1, hvar(outs, reduce_cuda::hostOuts(*r.stage)));
    HostExpr some = hop(HostExpr::Less, {hc(0), hval(outs)});
    t.push_back(hif(hop(HostExpr::And, {some, hop(HostExpr::Less, {hc(0), hval(chunks)})}),
                    {reduce_cuda::hostLaunch(r, s, r.name + "_chunks", gridFor(hval(outs) * hval(chunks)), {scratchAt(r.partials)})}));
    t.push_back(hif(some, {hlaunch(reduce_cuda::plainKernel(s, r.name + "_combine"), gridFor(hval(outs)),
                                   {scratchAt(r.partials), result, value(hval(outs)), value(hval(chunks))})}));
    return hblock(comment + "a thread per chunk of a line, then per output point", std::move(t));
  }
  // One launch (its last block combines the partials), after its ticket is reset.
  t.push_back(hmemset(ticketOf(r, hval(chunks)), hc(4)));
  t.push_back(reduce_cuda::hostLaunch(r, s, r.name + "_chunks", wholeGrid(hval(chunks)),
                                      {scratchAt(r.partials), ticketOf(r, hval(chunks)), result}));
  return hblock(comment + "a warp per chunk, the last block combining the partials", std::move(t));
}

}  // namespace formac::codegen
