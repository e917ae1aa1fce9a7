#include "codegen/Reduce_CUDA.h"

#include <stdexcept>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedKernel_CUDA.h"
#include "codegen/LoopNest.h"
#include "codegen/Reduce_C.h"
#include "codegen/Select_CUDA.h"

namespace formac::codegen {
namespace {

using ir::ReduceOp;

std::string str(long long v) { return std::to_string(v); }
const std::string kChunk = str(ir::kSumChunk);
const std::string kChunkMask = str(ir::kSumChunk - 1);
const std::string kLanes = str(ir::kSumLanes);
// Values a lane computes before adding them (warpPerChunk).
constexpr int kBatch = 8;
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
  return t + "  const long long formac_chunks = (formac_len + " + kChunkMask + ") / " + kChunk + ";\n";
}

// The point's value into formac_v (an element of the domain's type), at
// lattice indices q0, q1, ...
std::string pointValue(const ReduceCuda& r, const std::string& ind) {
  return reduce_cuda::pointValueOf(*r.pipeline, *r.stage, *r.names, ind);
}

// A warp per chunk of 2048 values of formac_len: lane j accumulates the
// values k = j mod 32 (`value` computes `name`, of type `type`, at formac_k;
// `accumulate` adds it), the lanes fold pairwise, lane 0 stores into
// `out`[chunk]. `start`/`advance`: statements placing the first k of a lane
// and moving it 32 points on (lattice indices). A lane computes kBatch
// values before it adds them, in the same order, so that their loads are in
// flight together (one at a time, a warp waits on each).
std::string warpPerChunk(const Op& o, const std::string& start, const std::string& type, const std::string& name,
                         const std::string& value, const std::string& accumulate, const std::string& advance,
                         const std::string& out) {
  std::string in = "    ", batch = str(kBatch);
  std::string inside = "formac_k + " + kLanes + " * formac_u < formac_end";
  return "  const int formac_j = (int)(threadIdx.x % " + kLanes + ");  /* the lane */\n"
         "  const long long formac_warps = (long long)gridDim.x * (blockDim.x / " + kLanes + ");\n"
         "  for (long long formac_c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / " + kLanes +
         "; formac_c < formac_chunks; formac_c += formac_warps) {\n" +
         in + "const long long formac_end = formac_len - formac_c * " + kChunk + " < " + kChunk +
         " ? formac_len : formac_c * " + kChunk + " + " + kChunk + ";\n" +
         in + "long long formac_k = formac_c * " + kChunk + " + formac_j;\n" + start +
         in + o.partial + " formac_acc = " + o.identity + ";\n" +
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
         in + "    " + accumulate + "\n" + in + "  }\n" + in + "}\n" +
         in + "/* The lanes folded pairwise: lane j takes lane j + s, s = 16 .. 1. */\n" +
         in + "for (int formac_s = " + str(ir::kSumLanes / 2) + "; formac_s >= 1; formac_s /= 2) {\n" +
         in + "  const " + o.partial + " formac_x = (" + o.partial +
         ")__shfl_down_sync(0xffffffffu, formac_acc, formac_s);\n" +
         in + "  " + o.merge + "\n" + in + "}\n" +
         in + "if (formac_j == 0) " + out + "[formac_c] = formac_acc;\n  }\n";
}

std::string header(const ReduceCuda& r, const std::string& suffix, const std::string& params) {
  std::string t = "template <typename I>\n__global__ void __launch_bounds__(" + kThreads + ") " + r.name + suffix + "(" +
                  (r.inputParams.empty() ? "" : r.inputParams + ", ") + params;
  for (const auto& prm : r.names->param) t += ", const I " + prm;
  t += ") {\n";
  for (const auto& prm : r.names->param) t += "  (void)" + prm + ";\n";
  return t;
}

// The lattice indices q0.. of point formac_k (row-major), at indentation `in`.
std::string pointIndices(const ReduceCuda& r, const std::string& in) {
  int rank = rankOf(*r.stage);
  std::string start = in + "/* The lattice indices of point k (row-major), then moved on with it. */\n" +
                      in + "long long formac_rest = formac_k;\n";
  for (int d = rank - 1; d > 0; --d)
    start += in + "I " + q(d) + " = (I)(formac_rest % " + n(d) + ");\n" + in + "formac_rest /= " + n(d) + ";\n";
  return start + in + "I q0 = (I)formac_rest;\n";
}

// The lattice indices moved on by 32 points (at indentation `in` + 2).
std::string advanceIndices(const ReduceCuda& r, const std::string& in) {
  int rank = rankOf(*r.stage);
  std::string advance = in + "  " + q(rank - 1) + " += " + kLanes + ";\n";
  if (rank > 1) {
    advance += in + "  while (" + q(rank - 1) + " >= " + n(rank - 1) + ") {\n" + in + "    " + q(rank - 1) + " -= " +
               n(rank - 1) + ";\n";
    std::string pad = in + "    ";
    for (int d = rank - 2; d > 0; --d, pad += "  ")
      advance += pad + "if (++" + q(d) + " == " + n(d) + ") {\n" + pad + "  " + q(d) + " = 0;\n";
    advance += pad + "++q0;\n";
    for (int d = 1; d < rank - 1; ++d) {
      pad.resize(pad.size() - 2);
      advance += pad + "}\n";
    }
    advance += in + "  }\n";
  }
  return advance;
}

// dim = -1: a warp per chunk of the domain's points, row-major.
std::string wholeChunksKernel(const ReduceCuda& r, const Op& o) {
  std::string in = "    ";
  return header(r, "_chunks", o.partial + "* __restrict__ formac_partials") + domainDeclarations(r) +
         warpPerChunk(o, pointIndices(r, in), cType(domainStage(*r.stage).type), "formac_v",
                      pointValue(r, in + "      "), o.add, indent(advanceIndices(r, in), "  "), "formac_partials") +
         "}\n\n";
}

// dim = -1: one level of combining partials, a warp per chunk of 2048 of them.
std::string levelKernel(const ReduceCuda& r, const Op& o) {
  std::string in = "    ";
  return "/* " + r.stage->name + ": partials formac_from[0..formac_len) combined in chunks of " + kChunk +
         ", chunk c into formac_to[c]. */\n"
         "__global__ void __launch_bounds__(" + kThreads + ") " + r.name + "_level(const " + o.partial +
         "* __restrict__ formac_from, " + o.partial + "* __restrict__ formac_to, const long long formac_len) {\n"
         "  const long long formac_chunks = (formac_len + " + kChunkMask + ") / " + kChunk + ";\n" +
         warpPerChunk(o, "", o.partial, "formac_x", in + "      const " + o.partial + " formac_x = formac_from[formac_k + " + kLanes + " * formac_u];\n",
                      o.merge, "", "formac_to") +
         "}\n\n";
}

// dim = -1: the value (formac_n partials, at most one) into the stage.
std::string resultKernel(const ReduceCuda& r, const Op& o) {
  std::string T = cType(r.stage->type);
  return "/* " + r.stage->name + ": the combined partial, or the value of no points. */\n"
         "__global__ void " + r.name + "_result(const " + o.partial +
         "* __restrict__ formac_from, const long long formac_n, " + T + "* __restrict__ formac_out) {\n"
         "  formac_out[0] = formac_n == 0 ? (" + T + ")(" + o.empty + ") : (" + T + ")formac_from[0];\n}\n\n";
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
HostArg value(HostExpr e) { return {HostArg::Value, 0, std::move(e), ""}; }

}  // namespace

namespace reduce_cuda {
std::string kernelHeader(const ReduceCuda& r, const std::string& suffix, const std::string& params) {
  return header(r, suffix, params);
}
std::string kernelDomain(const ReduceCuda& r) { return domainDeclarations(r); }
std::string kernelPointIndices(const ReduceCuda& r, const std::string& in) { return pointIndices(r, in); }
std::string kernelAdvance(const ReduceCuda& r, const std::string& in) { return advanceIndices(r, in); }
std::string kernelPointValue(const ReduceCuda& r, const std::string& in) { return pointValue(r, in); }

std::string pointValueOf(const ir::Pipeline& p, const ir::Stage& s, const Names& n, const std::string& ind) {
  ir::Stage domain = domainStage(s);
  LoopNestOptions lo;
  lo.pipeline = &p;
  lo.stage = &domain;
  lo.piece = &domain.pieces[0];
  lo.names = &n;
  lo.openmp = false;
  lo.cuda = true;
  lo.resultVariable = "formac_v";
  return ind + cType(domain.type) + " formac_v;\n" + emitPointBody(lo, true, ind);
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

HostExpr reduceScratchCuda(const ir::Stage& s) {
  if (isSelection(s.reduction.op)) return selectScratchCuda(s);
  HostExpr count = reduce_cuda::hostOuts(s) * ceilDiv(reduce_cuda::hostLen(s), ir::kSumChunk);
  if (s.reduction.dim >= 0) return count;
  // The chunks' partials, then room for the next level's.
  return count + ceilDiv(count, ir::kSumChunk);
}

HostExpr reduceDomainPoints(const ir::Stage& s) {
  HostExpr t = hc(1);
  for (const auto& a : s.reduction.input.axes) t = t * hsize(a.count);
  return t;
}

std::string emitReduceKernelsCuda(const ReduceCuda& r) {
  if (isSelection(r.stage->reduction.op)) return emitSelectKernelsCuda(r);
  Op o = opOf(*r.stage);
  if (r.stage->reduction.dim < 0) return wholeChunksKernel(r, o) + levelKernel(r, o) + resultKernel(r, o);
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
  // The partials combined level by level into one (none for no points): the
  // levels alternate between the scratch's two parts, at 0 and at formac_chunks.
  int n = s.value("formac_n"), from = s.value("formac_from");
  t.push_back(hif(hop(HostExpr::Less, {hc(0), hval(chunks)}),
                  {reduce_cuda::hostLaunch(r, s, r.name + "_chunks", gridFor(hval(chunks) * hc(ir::kSumLanes)), {scratchAt(r.partials)})}));
  HostStep nVar = hvar(n, hval(chunks)), fromVar = hvar(from, hc(0));
  nVar.constant = fromVar.constant = false;
  t.push_back(nVar);
  t.push_back(fromVar);
  t.push_back(hwhile(hop(HostExpr::Less, {hc(1), hval(n)}),
                     {hlaunch(reduce_cuda::plainKernel(s, r.name + "_level"), gridFor(ceilDiv(hval(n), ir::kSumChunk) * hc(ir::kSumLanes)),
                              {scratchAt(r.partials, hval(from)), scratchAt(r.partials, hval(chunks) - hval(from)), value(hval(n))}),
                      hassign(from, hval(chunks) - hval(from)), hassign(n, ceilDiv(hval(n), ir::kSumChunk))}));
  t.push_back(hlaunch(reduce_cuda::plainKernel(s, r.name + "_result"), hc(1),
                      {scratchAt(r.partials, hval(from)), value(hop(HostExpr::Less, {hc(0), hval(chunks)})), result}, 1));
  return hblock(comment + "a warp per chunk, then the partials level by level", std::move(t));
}

}  // namespace formac::codegen
