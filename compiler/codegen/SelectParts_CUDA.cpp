// The pieces the selections' kernels share (SelectParts_CUDA.h).
#include "codegen/SelectParts_CUDA.h"

#include "codegen/ExprPrinter.h"
#include "codegen/ReduceFlat_CUDA.h"
#include "codegen/Reduce_C.h"

namespace formac::codegen::select_cuda {

namespace rc = reduce_cuda;

std::string str(long long v) { return std::to_string(v); }

ScalarKind elementOf(const ir::Stage& s) { return s.reduction.input.body.result->type.scalar; }
std::string K(const ir::Stage& s) { return str(s.reduction.bins) + "LL"; }

// Steps of 32 points whose values a lane computes before it takes any of
// them (their loads in flight together): 16 of values up to 4 bytes, else 8.
int pointBatch(ScalarKind k) { return scalarSize(k) <= 4 ? 16 : 8; }


// Chunk formac_c's points, its warp's 32 lanes going through it together so
// that they can ballot: lane formac_j visits the points k = j mod 32,
// formac_in says whether its k is in the chunk and formac_x is then the
// value at k (else 0). A lane computes pointBatch steps' values, then runs
// `point` for each in order.
std::vector<Stmt> chunkSteps(const ReduceCuda& r, const Walk& w) {
  std::string T = scalarCType(elementOf(*r.stage)), chunkSize = str(ir::kSumChunk), B = str(pointBatch(elementOf(*r.stage)));
  std::string stop = w.done.empty() ? "" : " || (" + w.done + ")";
  // A point-wise body reads its producers at the point's index, not at lattice indices.
  bool flat = flatReads(r).per > 0;
  std::vector<Stmt> value =
      flat ? std::vector<Stmt>{decl("long long", "formac_kv", "formac_k + 32 * formac_u"),
                               block({decl("long long", "formac_k", "formac_kv"), seq(reduce_flat::value(r, false)),
                                      assign("formac_xs[formac_u]", "formac_v")})}
           : std::vector<Stmt>{seq(rc::pointValue(r)), assign("formac_xs[formac_u]", "formac_v")};
  std::vector<Stmt> compute = {assign("formac_xs[formac_u]", "0"), ifThen("formac_k + 32 * formac_u < formac_end", value)};
  if (!flat) compute.push_back(seq(rc::advance(r, "q", "32")));
  std::vector<Stmt> t = {
      decl("long long", "formac_end", "formac_len - formac_c * " + chunkSize + " < " + chunkSize +
                                          " ? formac_len : formac_c * " + chunkSize + " + " + chunkSize),
      decl("long long", "formac_k", "formac_c * " + chunkSize + " + formac_j", false), seq(w.chunk)};
  if (!flat) t.push_back(seq(rc::pointIndices(r)));
  t.push_back(forLoop(
      "long long formac_base = formac_c * " + chunkSize,
      "formac_base < formac_end" + (w.done.empty() ? "" : " && !(" + w.done + ")"), "formac_base += 32 * " + B,
      {declOnly(T, "formac_xs[" + B + "]"),
       unrolledLoop("int formac_u = 0", "formac_u < " + B, "++formac_u", std::move(compute)),
       unrolledLoop("int formac_u = 0", "formac_u < " + B, "++formac_u",
                    {ifThen("formac_base + 32 * formac_u >= formac_end" + stop, {eval("break")}),
                     decl("bool", "formac_in", "formac_k < formac_end"), decl(T, "formac_x", "formac_xs[formac_u]"),
                     seq(w.point), eval("formac_k += 32")})}));
  t.push_back(seq(w.end));
  return t;
}

// The chunks of the domain, a warp per chunk, grid-stride (chunkSteps).
std::vector<Stmt> eachPoint(const ReduceCuda& r, const Walk& w) {
  return {comment("the lane"), decl("int", "formac_j", "(int)(threadIdx.x % 32)"),
          decl("long long", "formac_warps", "(long long)gridDim.x * (blockDim.x / 32)"),
          forLoop("long long formac_c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32",
                  "formac_c < formac_chunks", "formac_c += formac_warps", chunkSteps(r, w))};
}
std::vector<Stmt> eachPoint(const ReduceCuda& r, std::vector<Stmt> chunk, std::vector<Stmt> point,
                            std::vector<Stmt> end, const std::string& done) {
  Walk w;
  w.chunk = std::move(chunk);
  w.point = std::move(point);
  w.end = std::move(end);
  w.done = done;
  return eachPoint(r, w);
}

// A plain kernel's loop over i in [0, n).
std::string gridStride(const std::string& n) {
  return "for (long long formac_i = (long long)blockIdx.x * blockDim.x + threadIdx.x; formac_i < " + n +
         "; formac_i += (long long)gridDim.x * blockDim.x)";
}
// The host's values of a selection (in `t`, in order): formac_len,
// formac_chunks, and formac_blocks, the blocks of the kernels that take a
// chunk per warp: at most 8 per SM (they go over the chunks grid-stride; a
// histogram's blocks each add theirs into the result), and enough that no
// block counts 2^31 points into one 32-bit counter.
Sizes hostSizes(const ReduceCuda& r, LaunchSchedule& s, std::vector<HostStep>& t, int blocksPerSm) {
  Sizes z{s.value("formac_len"), s.value("formac_chunks"), s.value("formac_blocks")};
  t.push_back(hvar(z.len, rc::hostLen(*r.stage)));
  t.push_back(hvar(z.chunks, ceilDiv(hval(z.len), ir::kSumChunk)));
  t.push_back(hvar(z.blocks, hmax(hmin(ceilDiv(hval(z.chunks), 8), perSm(blocksPerSm)),
                                  hval(z.len) / hc(2147483648LL) + hc(1))));
  return z;
}
HostExpr perSm(int blocks) { return hc(blocks) * hmax(hop(HostExpr::Sms, {}), hc(1)); }
// A kernel over n things, a thread each: at least 1, at most 2^20 blocks of 256.
HostExpr flatGrid(HostExpr n) { return hmax(hc(1), hmin(ceilDiv(std::move(n), 256), hc(1LL << 20))); }
HostArg scratchAt(const ReduceCuda& r, HostExpr at, const std::string& cast) {
  return {HostArg::Scratch, r.partials, std::move(at), cast};
}
HostArg resultOf(const ReduceCuda& r, const std::string& cast) { return {HostArg::Stage, r.stage->id, {}, cast}; }
HostArg val(HostExpr e) { return {HostArg::Value, 0, std::move(e), ""}; }
HostArg intArg(long long v) { return {HostArg::Int, 0, hc(v), ""}; }
HostExpr positive(int v) { return hop(HostExpr::Less, {hc(0), hval(v)}); }

// counts[0..n) into exclusive offsets, counts[n] the total: one block, each
// thread summing a run of counts, the runs' sums scanned in shared memory.
std::string scanKernel(const ReduceCuda& r) {
  return "/* " + r.stage->name + ": formac_counts[0..n) into their exclusive prefix sums, formac_counts[n] the total. */\n"
         "__global__ void __launch_bounds__(1024) " + r.name + "_scan(long long* __restrict__ formac_counts, const long long formac_n) {\n"
         "  __shared__ long long formac_sums[1024];\n"
         "  const int formac_t = (int)threadIdx.x;\n"
         "  const long long formac_per = (formac_n + 1023) / 1024;\n"
         "  const long long formac_lo = formac_minll(formac_n, formac_t * formac_per);\n"
         "  const long long formac_hi = formac_minll(formac_n, formac_lo + formac_per);\n"
         "  long long formac_sum = 0;\n"
         "  for (long long formac_i = formac_lo; formac_i < formac_hi; ++formac_i) formac_sum += formac_counts[formac_i];\n"
         "  formac_sums[formac_t] = formac_sum;\n"
         "  __syncthreads();\n"
         "  for (int formac_o = 1; formac_o < 1024; formac_o *= 2) {\n"
         "    const long long formac_left = formac_t >= formac_o ? formac_sums[formac_t - formac_o] : 0;\n"
         "    __syncthreads();\n"
         "    formac_sums[formac_t] += formac_left;\n"
         "    __syncthreads();\n"
         "  }\n"
         "  long long formac_at = formac_sums[formac_t] - formac_sum;\n"
         "  for (long long formac_i = formac_lo; formac_i < formac_hi; ++formac_i) {\n"
         "    const long long formac_x = formac_counts[formac_i];\n"
         "    formac_counts[formac_i] = formac_at;\n"
         "    formac_at += formac_x;\n"
         "  }\n"
         "  if (formac_t == 1023) formac_counts[formac_n] = formac_sums[1023];\n"
         "}\n\n";
}

// The scan of the chunks' counts (formac_counts: a chunk's count, then its offset; the total last).
HostStep scanCounts(const ReduceCuda& r, LaunchSchedule& s, HostExpr counts, int chunks) {
  return hlaunch(rc::plainKernel(s, r.name + "_scan"), hc(1), {scratchAt(r, std::move(counts)), val(hval(chunks))}, 1024);
}

}  // namespace formac::codegen::select_cuda
