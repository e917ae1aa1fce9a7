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
using reduce_cuda::domainDeclarations;
using reduce_cuda::kernel;

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
  Stmt add;              // statement adding formac_v
  Stmt merge;            // statement merging formac_x
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
      o.add = eval("formac_acc += (" + o.partial + ")formac_v");
      o.merge = eval("formac_acc += formac_x");
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
        o.add = assign("formac_acc", fn + "(formac_acc, formac_v)");
        o.merge = assign("formac_acc", fn + "(formac_acc, formac_x)");
        o.empty = isMax ? "-INFINITY" : "INFINITY";
      } else {
        std::string cmp = isMax ? " > " : " < ";
        o.identity = o.empty = integerLimit(elem, !isMax);
        o.add = ifThen("formac_v" + cmp + "formac_acc", {assign("formac_acc", "formac_v")});
        o.merge = ifThen("formac_x" + cmp + "formac_acc", {assign("formac_acc", "formac_x")});
      }
      break;
    }
    case ReduceOp::Count:
      o.partial = "long long";
      o.identity = o.empty = "0";
      o.add = eval("formac_acc += formac_v != 0");
      o.merge = eval("formac_acc += formac_x");
      break;
    case ReduceOp::Any:
    case ReduceOp::All: {
      bool any = s.reduction.op == ReduceOp::Any;
      std::string bit = any ? "|" : "&";
      o.partial = "int";
      o.identity = o.empty = any ? "0" : "1";
      o.add = eval("formac_acc " + bit + "= formac_v != 0");
      o.merge = eval("formac_acc " + bit + "= formac_x");
      break;
    }
  }
  return o;
}

int rankOf(const ir::Stage& s) { return static_cast<int>(s.reduction.input.axes.size()); }
std::string q(int d) { return "q" + std::to_string(d); }
std::string n(int d) { return "formac_n" + std::to_string(d); }

// for (int var = 0; var < count; ++var), unrolled.
Stmt upTo(const std::string& var, const std::string& count, std::vector<Stmt> body) {
  return unrolledLoop("int " + var + " = 0", var + " < " + count, "++" + var, std::move(body));
}

// The end of chunk formac_c of `len` values (one past its last).
std::string chunkEnd(const std::string& len) {
  return len + " - formac_c * " + kChunk + " < " + kChunk + " ? " + len + " : formac_c * " + kChunk + " + " + kChunk;
}

// The chunks of `len` values from chunk `first` up to (not with) `stop`,
// `stride` chunks apart: a warp each, lane j accumulating into formac_acc
// the values k = j mod 32 (`body`, given formac_c and formac_end).
Stmt chunkLoop(const std::string& len, const std::string& first, const std::string& stride, const std::string& stop,
               std::vector<Stmt> body) {
  return forLoop("long long formac_c = " + first, "formac_c < " + stop, "formac_c += " + stride,
                 {decl("long long", "formac_end", chunkEnd(len)), seq(std::move(body))});
}

// The lanes' formac_acc folded pairwise into lane 0's (lane j takes lane
// j + s, s = 16 .. 1).
Stmt laneFold(const Op& o) {
  return forLoop("int formac_s = " + str(ir::kSumLanes / 2), "formac_s >= 1", "formac_s /= 2",
                 {decl(o.partial, "formac_x", "(" + o.partial + ")__shfl_down_sync(0xffffffffu, formac_acc, formac_s)"),
                  o.merge});
}

// chunkLoop with a partial a chunk: formac_acc starts at the identity in
// each chunk, the lanes fold, and lane 0 stores it into `out`[formac_c].
Stmt eachChunk(const Op& o, const std::string& len, const std::string& first, const std::string& stride,
               const std::string& stop, std::vector<Stmt> body, const std::string& out) {
  return chunkLoop(len, first, stride, stop,
                   {decl(o.partial, "formac_acc", o.identity, false), seq(std::move(body)), laneFold(o),
                    ifThen("formac_j == 0", {assign(out + "[formac_c]", "formac_acc")})});
}

// A chunk's values one lane-step at a time: lane j's values k = j mod 32
// from formac_k (`start` places the lattice indices), kBatch of them
// computed (`value` declares `name` of `type` at formac_k; `advance` moves
// the indices 32 points on) before they are added (`accumulate`) in the same
// order, so that their loads are in flight together.
std::vector<Stmt> batched(std::vector<Stmt> start, const std::string& type, const std::string& name,
                          std::vector<Stmt> value, const Stmt& accumulate, std::vector<Stmt> advance,
                          int size = kBatch) {
  std::string batch = str(size), inside = "formac_k + " + kLanes + " * formac_u < formac_end";
  Stmt compute = upTo("formac_u", batch,
                      {ifThen(inside, {seq(std::move(value)), assign("formac_batch[formac_u]", name)}),
                       seq(std::move(advance))});
  Stmt add = upTo("formac_u", batch,
                  {ifThen("!(" + inside + ")", {eval("break")}), decl(type, name, "formac_batch[formac_u]"), accumulate});
  return {decl("long long", "formac_k", "formac_c * " + kChunk + " + formac_j", false), seq(std::move(start)),
          forLoop("", "formac_k < formac_end", "formac_k += " + kLanes + " * " + batch,
                  {declOnly(type, "formac_batch[" + batch + "]"), compute, add})};
}

std::string print(const std::vector<Stmt>& kernel) { return printerFor(true).print(kernel) + "\n"; }

// dim = -1, a point-wise body (ReduceFlat_CUDA.h): a full chunk whose
// producers are aligned goes kFlatBatch * 16 bytes a lane at a time; any
// other chunk point by point. Floating sums keep the rule's order: the
// warp's values pass through shared memory, lane j then adding the points
// k = j mod 32 of each step in increasing k.
Stmt flatChunk(const ReduceCuda& r, const Op& o, const FlatReads& f) {
  std::string per = str(f.per), steps = str(ir::kSumChunk / (32 * f.per)), B = str(kFlatBatch);
  std::string T = cType(domainStage(*r.stage).type);
  std::vector<Stmt> add;
  if (o.floatingSum)
    add = {declOnly(T, "formac_w[" + per + "]"),
           upTo("formac_u", per, {seq(reduce_flat::value(r, true)), assign("formac_w[formac_u]", "formac_v")}),
           eval("__syncwarp()"), eval("memcpy(formac_mine + formac_j * " + per + ", formac_w, sizeof formac_w)"),
           eval("__syncwarp()"),
           upTo("formac_u", per, {decl(T, "formac_v", "formac_mine[formac_u * " + kLanes + " + formac_j]"), o.add})};
  else
    add = {upTo("formac_u", per, {seq(reduce_flat::value(r, true)), o.add})};
  return ifThen(
      "formac_aligned && formac_end - formac_c * " + kChunk + " == " + kChunk,
      {forLoop("int formac_i = 0", "formac_i < " + steps, "formac_i += " + B,
               {decl("long long", "formac_at",
                     "formac_c * " + kChunk + " + formac_i * " + str(32 * f.per) + " + formac_j * " + per),
                seq(reduce_flat::loads(r, f, kFlatBatch, "formac_at")),
                upTo("formac_b", B, {seq(reduce_flat::unpack(r, f, "formac_b")), seq(std::move(add))})})},
      {forLoop("long long formac_k = formac_c * " + kChunk + " + formac_j", "formac_k < formac_end",
               "formac_k += " + kLanes, {seq(reduce_flat::value(r, false)), o.add})});
}

// Every block's partials written (the fence), it takes a ticket; all but
// the last block to finish return.
std::vector<Stmt> lastBlock() {
  return {comment("The last block: each block's partials are written (the fence), then it takes a ticket."),
          declOnly("__shared__ bool", "formac_last"),
          eval("__threadfence()"),
          eval("__syncthreads()"),
          ifThen("threadIdx.x == 0", {assign("formac_last", "atomicAdd(formac_ticket, 1u) == gridDim.x - 1")}),
          eval("__syncthreads()"),
          ifThen("!formac_last", {eval("return")}),
          eval("__threadfence()")};
}

// The value: the partial `acc` in the stage's type, or that of an empty domain.
std::string valueOf(const ReduceCuda& r, const Op& o, const std::string& acc) {
  std::string T = cType(r.stage->type);
  return "formac_chunks == 0 ? (" + T + ")(" + o.empty + ") : (" + T + ")" + acc;
}

// Floating sums: a partial a chunk, by the rule; the last block to finish
// (a ticket) combines the partials level by level by the same rule (a warp
// per chunk of them, between the scratch's two parts) and writes the value.
std::vector<Stmt> wholeSumByRule(const ReduceCuda& r, const Op& o, std::vector<Stmt> body) {
  Stmt load = decl(o.partial, "formac_x", "__ldcg(formac_from + formac_k + " + kLanes + " * formac_u)");
  std::vector<Stmt> level = batched({}, o.partial, "formac_x", {load}, o.merge, {}, levelBatch(*r.stage));
  return {eachChunk(o, "formac_len", "formac_first", "formac_warps", "formac_chunks", std::move(body), "formac_partials"),
          seq(lastBlock()),
          comment("The partials combined level by level by the same rule, between the scratch's two parts."),
          decl(o.partial + "*", "formac_from", "formac_partials", false),
          decl(o.partial + "*", "formac_to", "formac_partials + formac_chunks", false),
          forLoop("long long formac_n = formac_chunks", "formac_n > 1",
                  "formac_n = (formac_n + " + kChunkMask + ") / " + kChunk,
                  {eachChunk(o, "formac_n", "(long long)(threadIdx.x / " + kLanes + ")",
                             "(long long)(blockDim.x / " + kLanes + ")", "(formac_n + " + kChunkMask + ") / " + kChunk,
                             std::move(level), "formac_to"),
                   eval("__syncthreads()"),
                   decl(o.partial + "* const", "formac_swap", "formac_from", false),
                   assign("formac_from", "formac_to"),
                   assign("formac_to", "formac_swap")}),
          ifThen("threadIdx.x == 0", {assign("formac_out[0]", valueOf(r, o, "__ldcg(formac_from)"))})};
}

// The block's threads' formac_acc folded into thread 0's: the lanes, then
// the warps through formac_warp_acc.
std::vector<Stmt> blockFold(const Op& o) {
  return {laneFold(o),
          eval("__syncthreads()"),
          ifThen("formac_j == 0", {assign("formac_warp_acc[formac_warp]", "formac_acc")}),
          eval("__syncthreads()"),
          ifThen("threadIdx.x == 0",
                 {forLoop("int formac_i = 1", "formac_i < (int)(blockDim.x / " + kLanes + ")", "++formac_i",
                          {decl(o.partial, "formac_x", "formac_warp_acc[formac_i]"), o.merge})})};
}

// Any other op gives one value in any order: a warp's lanes accumulate all
// its chunks, the block folds its threads into a partial a block (not one
// a chunk), and the last block to finish (a ticket) folds the blocks'.
std::vector<Stmt> wholeInAnyOrder(const ReduceCuda& r, const Op& o, std::vector<Stmt> body) {
  return {declOnly("__shared__ " + o.partial, "formac_warp_acc[" + kThreads + " / " + kLanes + "]"),
          decl(o.partial, "formac_acc", o.identity, false),
          chunkLoop("formac_len", "formac_first", "formac_warps", "formac_chunks", std::move(body)),
          seq(blockFold(o)),
          ifThen("threadIdx.x == 0", {assign("formac_partials[blockIdx.x]", "formac_acc")}),
          seq(lastBlock()),
          assign("formac_acc", o.identity),
          forLoop("unsigned formac_i = threadIdx.x", "formac_i < gridDim.x", "formac_i += blockDim.x",
                  {decl(o.partial, "formac_x", "__ldcg(formac_partials + formac_i)"), o.merge}),
          seq(blockFold(o)),
          ifThen("threadIdx.x == 0", {assign("formac_out[0]", valueOf(r, o, "formac_acc"))})};
}

// dim = -1: one kernel, a warp per chunk of the domain's points (row-major),
// grid-stride: the warps at work at once read neighbouring chunks (a
// stencil's rows are shared in L2: a run of chunks a block was 14% slower
// for the sum of a 3x3 blur).
std::string wholeKernel(const ReduceCuda& r, const Op& o) {
  std::string T = cType(r.stage->type), V = cType(domainStage(*r.stage).type);
  FlatReads f = flatReads(r);
  std::vector<Stmt> t = domainDeclarations(r);
  t.push_back(comment("the lane"));
  t.push_back(decl("int", "formac_j", "(int)(threadIdx.x % " + kLanes + ")"));
  if (!o.floatingSum) {
    t.push_back(comment("the block's warp"));
    t.push_back(decl("int", "formac_warp", "(int)(threadIdx.x / " + kLanes + ")"));
  }
  t.push_back(decl("long long", "formac_warps", "(long long)gridDim.x * (blockDim.x / " + kLanes + ")"));
  t.push_back(decl("long long", "formac_first", "((long long)blockIdx.x * blockDim.x + threadIdx.x) / " + kLanes));
  WindowReads w = f.per ? WindowReads{} : windowReads(r);
  const int per = f.per ? f.per : w.per;
  if (per) {
    t.push_back(decl("bool", "formac_aligned", f.per ? reduce_flat::aligned(r, f) : windowAligned(r, w)));
    if (o.floatingSum) {
      t.push_back(declOnly("__shared__ __align__(16) " + V,
                           "formac_stage[" + kThreads + " / " + kLanes + "][" + str(32 * per) + "]"));
      t.push_back(decl(V + "* const", "formac_mine", "formac_stage[threadIdx.x / " + kLanes + "]", false));
    }
  }
  std::vector<Stmt> pointByPoint = batched(reduce_cuda::pointIndices(r), V, "formac_v", reduce_cuda::pointValue(r), o.add,
                                           reduce_cuda::advance(r, "q", kLanes));
  std::vector<Stmt> body = f.per   ? std::vector<Stmt>{flatChunk(r, o, f)}
                           : w.per ? std::vector<Stmt>{windowChunk(r, w, o.floatingSum, o.add, pointByPoint)}
                                   : pointByPoint;
  t.push_back(seq(o.floatingSum ? wholeSumByRule(r, o, std::move(body)) : wholeInAnyOrder(r, o, std::move(body))));
  return print({comment(r.stage->name + (o.floatingSum
                    ? ": a warp per chunk, then the last block to finish combines the partials."
                    : ": a warp per chunk, a partial a block, the last block to finish combining them.")),
                kernel(r, "_chunks", {{o.partial, "formac_partials", true}, {"unsigned", "formac_ticket", true},
                                      {T, "formac_out", true}}, std::move(t), kWholeBlocksPerSm)});
}

// dim = d: a thread per (output point, chunk of its line).
std::string lineChunksKernel(const ReduceCuda& r, const Op& o) {
  int rank = rankOf(*r.stage), dim = r.stage->reduction.dim;
  std::vector<Stmt> t = {decl("long long", "formac_o", "formac_w / formac_chunks"),
                         decl("long long", "formac_c", "formac_w % formac_chunks"),
                         decl("long long", "formac_end", chunkEnd("formac_len")),
                         comment("The output point's lattice indices (row-major without dimension " + str(dim) + ")."),
                         decl("long long", "formac_rest", "formac_o", false)};
  int first = dim == 0 ? 1 : 0;
  for (int d = rank - 1; d >= 0; --d) {
    if (d == dim) continue;
    if (d == first) {
      t.push_back(decl("I", q(d), "(I)formac_rest"));
    } else {
      t.push_back(decl("I", q(d), "(I)(formac_rest % " + n(d) + ")"));
      t.push_back(eval("formac_rest /= " + n(d)));
    }
  }
  t.push_back(eval("(void)formac_rest"));
  std::vector<Stmt> point = {decl("I", q(dim), "(I)formac_k"), seq(reduce_cuda::pointValue(r)), o.add};
  if (o.floatingSum) {
    // The rule's lanes one after the other: lane j's points k = j mod 32.
    t.push_back(declOnly("double", "formac_lane[" + kLanes + "]"));
    t.push_back(forLoop("int formac_j = 0", "formac_j < " + kLanes, "++formac_j",
                        {decl("double", "formac_acc", "0.0", false),
                         forLoop("long long formac_k = formac_c * " + kChunk + " + formac_j", "formac_k < formac_end",
                                 "formac_k += " + kLanes, std::move(point)),
                         assign("formac_lane[formac_j]", "formac_acc")}));
    t.push_back(assign("formac_partials[formac_w]", "formac_lane_sum(formac_lane)"));
  } else {
    t.push_back(decl(o.partial, "formac_acc", o.identity, false));
    t.push_back(
        forLoop("long long formac_k = formac_c * " + kChunk, "formac_k < formac_end", "++formac_k", std::move(point)));
    t.push_back(assign("formac_partials[formac_w]", "formac_acc"));
  }
  std::vector<Stmt> body = domainDeclarations(r);
  body.push_back(forLoop("long long formac_w = (long long)blockIdx.x * blockDim.x + threadIdx.x",
                         "formac_w < formac_outs * formac_chunks", "formac_w += (long long)gridDim.x * blockDim.x",
                         std::move(t)));
  return print({kernel(r, "_chunks", {{o.partial, "formac_partials", true}}, std::move(body))});
}

// dim = d: a thread per output point combines its line's partials.
std::string lineCombineKernel(const ReduceCuda& r, const Op& o) {
  std::string T = cType(r.stage->type);
  std::vector<Stmt> t = {decl(o.partial + "*", "formac_p", "formac_partials + formac_w * formac_chunks", false)};
  if (o.floatingSum) {
    t.push_back(decl("double", "formac_acc", "formac_sum_d(formac_p, formac_chunks)"));
  } else {
    t.push_back(decl(o.partial, "formac_acc", o.identity, false));
    t.push_back(forLoop("long long formac_i = 0", "formac_i < formac_chunks", "++formac_i",
                        {decl(o.partial, "formac_x", "formac_p[formac_i]"), o.merge}));
  }
  t.push_back(assign("formac_out[formac_w]", valueOf(r, o, "formac_acc")));
  Stmt k = function("__global__", "void", r.name + "_combine",
                    {{o.partial, "formac_partials", true}, {T, "formac_out", true},
                     {"long long", "formac_outs", false, true}, {"long long", "formac_chunks", false, true}},
                    {forLoop("long long formac_w = (long long)blockIdx.x * blockDim.x + threadIdx.x",
                             "formac_w < formac_outs", "formac_w += (long long)gridDim.x * blockDim.x", std::move(t))});
  k.attributes = "__launch_bounds__(" + kThreads + ")";
  return print({comment(r.stage->name + ": each output point's partials combined."), k});
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
// The lattice indices (`prefix`0.., I) of point formac_k (row-major).
std::vector<Stmt> pointIndices(const ReduceCuda& r, const std::string& prefix) {
  int rank = rankOf(*r.stage);
  std::vector<Stmt> t = {comment("The lattice indices of point k (row-major), then moved on with it."),
                         decl("long long", "formac_rest", "formac_k", false)};
  for (int d = rank - 1; d > 0; --d) {
    t.push_back(decl("I", prefix + str(d), "(I)(formac_rest % " + n(d) + ")", false));
    t.push_back(eval("formac_rest /= " + n(d)));
  }
  t.push_back(decl("I", prefix + "0", "(I)formac_rest", false));
  return t;
}

// The lattice indices (`prefix`0..) moved on by `step` points.
std::vector<Stmt> advance(const ReduceCuda& r, const std::string& prefix, const std::string& step) {
  int rank = rankOf(*r.stage);
  auto p = [&](int d) { return prefix + str(d); };
  std::vector<Stmt> t = {eval(p(rank - 1) + " += " + step)};
  if (rank > 1) {
    std::vector<Stmt> carry = {eval("++" + p(0))};
    for (int d = 1; d < rank - 1; ++d) carry = {ifThen("++" + p(d) + " == " + n(d), {assign(p(d), "0"), seq(carry)})};
    t.push_back(whileLoop(p(rank - 1) + " >= " + n(rank - 1), {eval(p(rank - 1) + " -= " + n(rank - 1)), seq(carry)}));
  }
  return t;
}

// The point's value into formac_v (an element of the domain's type), at
// lattice indices q0, q1, ...
// Inside the box where every boundary-mode read is in range (LoopNest's
// fast bounds), the reads unchecked; elsewhere resolved (the same values).
std::vector<Stmt> pointValue(const ReduceCuda& r) {
  ir::Stage domain = domainStage(*r.stage);
  LoopNestOptions lo = pointOptions(*r.pipeline, domain, *r.names);
  std::string inside;
  std::set<std::string> seen;
  auto bound = [&](const std::string& test) {
    if (seen.insert(test).second) inside += (inside.empty() ? "" : " && ") + test;
  };
  for (size_t d = 0; d < domain.pieces[0].axes.size(); ++d) {
    for (const auto& b : fastLowerBounds(lo, d)) bound(q(static_cast<int>(d)) + " >= " + b);
    for (const auto& b : fastUpperBounds(lo, d)) bound(q(static_cast<int>(d)) + " <= " + b);
  }
  if (inside.empty()) return pointValueOf(*r.pipeline, *r.stage, *r.names);
  return {declOnly(cType(domain.type), "formac_v"), ifThen(inside, pointBody(lo, false), pointBody(lo, true))};
}

// Kernel: the domain's extents as I (formac_n0, ...), and as long long the
// points combined into one value (formac_len) and the values (formac_outs).
std::vector<Stmt> domainDeclarations(const ReduceCuda& r) {
  const ir::Reduction& red = r.stage->reduction;
  std::vector<Stmt> t;
  std::string len, outs;
  for (int d = 0; d < rankOf(*r.stage); ++d) {
    std::string count = ir::printSize(red.input.axes[static_cast<size_t>(d)].count, r.names->param);
    t.push_back(decl("I", n(d), "(I)(" + count + ")"));
    std::string& product = red.dim < 0 || d == red.dim ? len : outs;
    product += (product.empty() ? "(long long)" : " * (long long)") + n(d);
  }
  t.push_back(comment("points combined into one value"));
  t.push_back(decl("long long", "formac_len", len));
  if (red.dim >= 0) t.push_back(decl("long long", "formac_outs", outs.empty() ? "1" : outs));
  t.push_back(decl("long long", "formac_chunks", "(formac_len + " + kChunkMask + ") / " + kChunk));
  return t;
}

// `template <typename I> __global__ void NAME<suffix>(<inputs>, <params>,
// <parameters as I>) { body }`, `minBlocks` a multiprocessor when not 0.
Stmt kernel(const ReduceCuda& r, const std::string& suffix, std::vector<Param> params, std::vector<Stmt> body,
            int minBlocks) {
  std::vector<Param> all = r.inputParams;
  all.insert(all.end(), params.begin(), params.end());
  for (const auto& prm : r.names->param) all.push_back({"I", prm, false, true});
  Stmt k = function("__global__", "void", r.name + suffix, std::move(all), std::move(body), r.names->param);
  k.templateParams = "typename I";
  k.attributes = "__launch_bounds__(" + kThreads + (minBlocks ? ", " + str(minBlocks) : "") + ")";
  return k;
}

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
std::vector<Stmt> pointValueOf(const ir::Pipeline& p, const ir::Stage& s, const Names& n) {
  ir::Stage domain = domainStage(s);
  return {declOnly(cType(domain.type), "formac_v"), seq(pointBody(pointOptions(p, domain, n), true))};
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
