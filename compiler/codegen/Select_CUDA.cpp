#include "codegen/Select_CUDA.h"

#include <cstdio>
#include <cmath>
#include <utility>
#include <vector>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedKernel_CUDA.h"
#include "codegen/ReduceFlat_CUDA.h"
#include "codegen/Reduce_C.h"

namespace formac::codegen {
namespace {

using ir::ReduceOp;
namespace rc = reduce_cuda;

std::string str(long long v) { return std::to_string(v); }
const std::string kIn = "    ";  // a chunk's statements

ScalarKind elementOf(const ir::Stage& s) { return s.reduction.input.body.result->type.scalar; }
std::string K(const ir::Stage& s) { return str(s.reduction.bins) + "LL"; }

// Steps of 32 points whose values a lane computes before it takes any of
// them (their loads in flight together): 16 of values up to 4 bytes, else 8.
int pointBatch(ScalarKind k) { return scalarSize(k) <= 4 ? 16 : 8; }

// How a kernel goes through a chunk's points (chunkSteps, eachPoint).
struct Walk {
  std::string chunk;  // starts a chunk (in eachPoint, it may `continue` to the next)
  std::string point;  // runs at every step
  std::string end;    // ends a chunk
  std::string done;   // (warp-uniform) once it holds, the chunk's steps stop
};

// Chunk formac_c's points, its warp's 32 lanes going through it together so
// that they can ballot: lane formac_j visits the points k = j mod 32,
// formac_in says whether its k is in the chunk and formac_x is then the
// value at k (else 0). A lane computes pointBatch steps' values, then runs
// `point` for each in order. At indentation kIn.
std::string chunkSteps(const ReduceCuda& r, const Walk& w) {
  std::string T = scalarCType(elementOf(*r.stage)), chunkSize = str(ir::kSumChunk), B = str(pointBatch(elementOf(*r.stage)));
  std::string stop = w.done.empty() ? "" : " || (" + w.done + ")";
  std::string in2 = kIn + "    ";
  // A point-wise body reads its producers at the point's index, not at lattice indices.
  bool flat = flatReads(r).per > 0;
  std::string value = flat ? in2 + "  const long long formac_kv = formac_k + 32 * formac_u;\n" + in2 + "  {\n" + in2 +
                                 "    const long long formac_k = formac_kv;\n" + reduce_flat::value(r, false, in2 + "    ") +
                                 in2 + "    formac_xs[formac_u] = formac_v;\n" + in2 + "  }\n"
                           : rc::kernelPointValue(r, in2 + "  ") + in2 + "  formac_xs[formac_u] = formac_v;\n";
  return kIn + "const long long formac_end = formac_len - formac_c * " + chunkSize + " < " + chunkSize +
         " ? formac_len : formac_c * " + chunkSize + " + " + chunkSize + ";\n" +
         kIn + "long long formac_k = formac_c * " + chunkSize + " + formac_j;\n" + indent(w.chunk, kIn) +
         (flat ? "" : rc::kernelPointIndices(r, kIn)) +
         kIn + "for (long long formac_base = formac_c * " + chunkSize + "; formac_base < formac_end" +
         (w.done.empty() ? "" : " && !(" + w.done + ")") + "; formac_base += 32 * " + B + ") {\n" +
         kIn + "  " + T + " formac_xs[" + B + "];\n" +
         kIn + "#pragma unroll\n" +
         kIn + "  for (int formac_u = 0; formac_u < " + B + "; ++formac_u) {\n" +
         kIn + "    formac_xs[formac_u] = 0;\n" +
         kIn + "    if (formac_k + 32 * formac_u < formac_end) {\n" + value + in2 + "}\n" +
         (flat ? "" : indent(rc::kernelAdvance(r, kIn), "  ")) +
         kIn + "  }\n" +
         kIn + "#pragma unroll\n" +
         kIn + "  for (int formac_u = 0; formac_u < " + B + "; ++formac_u) {\n" +
         kIn + "    if (formac_base + 32 * formac_u >= formac_end" + stop + ") break;\n" +
         kIn + "    const bool formac_in = formac_k < formac_end;\n" +
         kIn + "    const " + T + " formac_x = formac_xs[formac_u];\n" + indent(w.point, in2) +
         kIn + "    formac_k += 32;\n" + kIn + "  }\n" + kIn + "}\n" + indent(w.end, kIn);
}

// The chunks of the domain, a warp per chunk, grid-stride (chunkSteps).
std::string eachPoint(const ReduceCuda& r, const Walk& w) {
  return "  const int formac_j = (int)(threadIdx.x % 32);  /* the lane */\n"
         "  const long long formac_warps = (long long)gridDim.x * (blockDim.x / 32);\n"
         "  for (long long formac_c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; formac_c < formac_chunks;\n"
         "       formac_c += formac_warps) {\n" + chunkSteps(r, w) + "  }\n";
}
std::string eachPoint(const ReduceCuda& r, const std::string& chunk, const std::string& point,
                      const std::string& end = "", const std::string& done = "") {
  Walk w;
  w.chunk = chunk;
  w.point = point;
  w.end = end;
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
struct Sizes {
  int len, chunks, blocks;
};
Sizes hostSizes(const ReduceCuda& r, LaunchSchedule& s, std::vector<HostStep>& t, int perSm = 8) {
  Sizes z{s.value("formac_len"), s.value("formac_chunks"), s.value("formac_blocks")};
  t.push_back(hvar(z.len, rc::hostLen(*r.stage)));
  t.push_back(hvar(z.chunks, ceilDiv(hval(z.len), ir::kSumChunk)));
  t.push_back(hvar(z.blocks, hmax(hmin(ceilDiv(hval(z.chunks), 8), hc(perSm) * hmax(hop(HostExpr::Sms, {}), hc(1))),
                                  hval(z.len) / hc(2147483648LL) + hc(1))));
  return z;
}
// A kernel over n things, a thread each: at least 1, at most 2^20 blocks of 256.
HostExpr flatGrid(HostExpr n) { return hmax(hc(1), hmin(ceilDiv(std::move(n), 256), hc(1LL << 20))); }
HostArg scratchAt(const ReduceCuda& r, HostExpr at = hc(0), const std::string& cast = "") {
  return {HostArg::Scratch, r.partials, std::move(at), cast};
}
HostArg resultOf(const ReduceCuda& r, const std::string& cast = "") { return {HostArg::Stage, r.stage->id, {}, cast}; }
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

// ------------------------------------------------------------ histogram

// Bins counted in shared memory: up to kLaneBins, 32 copies interleaved
// (bin b of lane j at [b * 32 + j]: a lane always hits its own bank, and no
// two lanes of a warp the same counter, whatever the values); up to 1024, a
// copy per warp; up to 8192, one per block; beyond, straight into the result.
const long long kLaneBins = 320;
int histogramCopies(long long bins) { return bins <= kLaneBins ? 32 : bins <= 1024 ? 8 : bins <= 8192 ? 1 : 0; }
bool smallTable(ScalarKind k) { return k == ScalarKind::Int16 || k == ScalarKind::Uint16; }
// Blocks a histogram kernel keeps per SM (the 32 interleaved copies take 40 KB at most).
int histogramBlocksPerSm(long long bins) { return histogramCopies(bins) == 32 ? 4 : 8; }

// The bin of an integer formac_x when the rule is a shift (an integer range
// whose bin width is a power of two, values exact in double): the
// expression, "" if not; *every: whether every value of the type is counted.
std::string shiftBin(ScalarKind elem, const ir::Reduction& red, bool* every) {
  *every = false;
  if (isFloating(elem) || elem == ScalarKind::Int64 || red.bins <= 0 || red.bins >= (1LL << 20)) return "";
  if (!(std::fabs(red.lo) <= 2147483648.0 && std::fabs(red.hi) <= 2147483648.0 && red.lo < red.hi)) return "";
  double width = (red.hi - red.lo) / static_cast<double>(red.bins);
  long long lo = static_cast<long long>(red.lo), hi = static_cast<long long>(red.hi), w = static_cast<long long>(width);
  if (red.lo != static_cast<double>(lo) || red.hi != static_cast<double>(hi) ||
      width != static_cast<double>(w) || w < 1 || (w & (w - 1)) || hi - lo != w * red.bins)
    return "";
  int shift = 0;
  while ((1LL << shift) < w) ++shift;
  long long vlo, vhi;
  integerRange(elem, &vlo, &vhi);
  std::string bin = "(int)(((long long)formac_x - (" + str(lo) + "LL)) >> " + str(shift) + ")";
  *every = vlo >= lo && vhi < hi;
  if (*every) return bin;
  return "((long long)formac_x >= (" + str(lo) + "LL) && (long long)formac_x < (" + str(hi) + "LL) ? " + bin + " : -1)";
}

std::string histogramKernels(const ReduceCuda& r) {
  const ir::Reduction& red = r.stage->reduction;
  ScalarKind elem = elementOf(*r.stage);
  std::string lo = doubleLiteral(red.lo), hi = doubleLiteral(red.hi), B = str(red.bins), C = str(histogramCopies(red.bins));
  long long vlo = 0, vhi = 0;
  if (!isFloating(elem)) integerRange(elem, &vlo, &vhi);
  std::string t = "/* " + r.stage->name + ": the bin of value x by the rule (ir/Pipeline.h), -1 if it is not counted. */\n"
                  "static __device__ __forceinline__ int " + r.name + "_bin(const double formac_x) {\n"
                  "  const double formac_b = floor(__ddiv_rn(__dmul_rn(__dsub_rn(formac_x, " + lo + "), " + B + ".0), " +
                  hi + " - " + lo + "));\n"
                  "  return formac_x >= " + lo + " && formac_x < " + hi + " && formac_b >= 0.0 && formac_b < " + B +
                  ".0 ? (int)formac_b : -1;\n}\n\n";
  bool every = false;
  std::string shift = shiftBin(elem, red, &every);
  bool table8 = elem == ScalarKind::Int8 && shift.empty();
  if (smallTable(elem) && shift.empty())
    t += "/* " + r.stage->name + ": the bin of every 16-bit value v at formac_table[v + " + str(-vlo) + "]. */\n"
         "__global__ void __launch_bounds__(256) " + r.name + "_table(int* __restrict__ formac_table) {\n"
         "  " + gridStride("65536") + "\n    formac_table[formac_i] = " + r.name + "_bin((double)(formac_i - " +
         str(-vlo) + "));\n}\n\n";
  int copies = histogramCopies(red.bins);
  std::string bin = !shift.empty()    ? shift
                    : table8          ? "formac_table8[formac_x]"
                    : smallTable(elem) ? "formac_table[(int)formac_x + " + str(-vlo) + "]"
                                       : r.name + "_bin((double)formac_x)";
  std::string where = copies == 32 ? "32 copies in shared memory, bin b of lane j at [b * 32 + j]"
                      : copies     ? "a histogram per " + std::string(copies > 1 ? "warp" : "block") + " in shared memory"
                                   : std::string("the counts added straight into the result (too many bins for shared memory)");
  t += "/* " + r.stage->name + ": " + where + (copies ? ", then added into the result" : "") + ". */\n" +
       rc::kernelHeader(r, "_hist", "unsigned long long* __restrict__ formac_out, const int* __restrict__ formac_table") +
       rc::kernelDomain(r) + "  (void)formac_table;\n  (void)formac_chunks;\n";
  if (copies)
    t += "  __shared__ unsigned formac_h[" + C + " * " + B + "];\n"
         "  for (int formac_i = (int)threadIdx.x; formac_i < " + C + " * " + B +
         "; formac_i += (int)blockDim.x) formac_h[formac_i] = 0u;\n";
  if (table8)
    t += "  __shared__ int formac_table8[256];\n"
         "  for (int formac_i = (int)threadIdx.x; formac_i < 256; formac_i += (int)blockDim.x) formac_table8[formac_i] = " +
         r.name + "_bin((double)formac_i);\n";
  if (copies || table8) t += "  __syncthreads();\n";
  std::string count;
  if (copies == 32) {
    // Every point its own atomic: no two lanes of a warp share a bank.
    count = "const int formac_b = " + bin + ";\n" +
            (every ? "" : "if (formac_b >= 0) ") +
            "atomicAdd(formac_h + formac_b * 32 + (int)(threadIdx.x % 32), 1u);\n";
  } else {
    // Each thread counts a run of points of one bin at once.
    t += copies ? "  unsigned* const formac_mine = formac_h + (threadIdx.x / 32 % " + C + ") * " + B + ";\n"
                : "  unsigned long long* const formac_mine = formac_out;\n";
    t += "  int formac_run = -1;  /* the bin of this thread's run of points, formac_n of them */\n"
         "  " + std::string(copies ? "unsigned" : "unsigned long long") + " formac_n = 0;\n";
    count = "const int formac_b = " + bin + ";\n"
            "if (formac_b != formac_run) {\n"
            "  if (formac_run >= 0) atomicAdd(formac_mine + formac_run, formac_n);\n"
            "  formac_run = formac_b;\n"
            "  formac_n = 0;\n"
            "}\n"
            "++formac_n;\n";
  }
  std::string T = scalarCType(elem);
  FlatReads f = flatReads(r);
  if (f.per) {
    std::string per = str(f.per), group = str(2 * 32 * f.per);
    t += "  /* Point-wise: groups of 2 x 32 x " + per + " points, a warp each, " + per +
         " points a lane a load (16 bytes of the widest input) while every input is aligned; the rest one by one. */\n"
         "  const int formac_j = (int)(threadIdx.x % 32);\n"
         "  const long long formac_warps = (long long)gridDim.x * (blockDim.x / 32);\n"
         "  const long long formac_groups = " + reduce_flat::aligned(r, f) + " ? formac_len / " + group + " : 0;\n"
         "  for (long long formac_g = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; formac_g < formac_groups; "
         "formac_g += formac_warps) {\n" +
         reduce_flat::loads(r, f, 2, "(formac_g * 64 + formac_j) * " + per, "    ") +
         "#pragma unroll\n"
         "    for (int formac_half = 0; formac_half < 2; ++formac_half) {\n" + reduce_flat::unpack(r, f, "formac_half", "      ") +
         "#pragma unroll\n"
         "      for (int formac_u = 0; formac_u < " + per + "; ++formac_u) {\n" +
         reduce_flat::value(r, true, "        ") + "        const " + T + " formac_x = formac_v;\n" +
         indent(count, "        ") + "      }\n    }\n  }\n"
         "  for (long long formac_k = formac_groups * " + group +
         " + (long long)blockIdx.x * blockDim.x + threadIdx.x; formac_k < formac_len;\n"
         "       formac_k += (long long)gridDim.x * blockDim.x) {\n" +
         reduce_flat::value(r, false, "    ") + "    const " + T + " formac_x = formac_v;\n" + indent(count, "    ") + "  }\n";
  } else {
    t += eachPoint(r, "", "if (formac_in) {\n" + indent(count, "  ") + "}\n");
  }
  if (copies != 32) t += "  if (formac_run >= 0) atomicAdd(formac_mine + formac_run, formac_n);\n";
  if (copies)
    t += "  __syncthreads();\n"
         "  for (int formac_b = (int)threadIdx.x; formac_b < " + B + "; formac_b += (int)blockDim.x) {\n"
         "    unsigned long long formac_s = 0;\n" +
         (copies == 32 ? "    /* Lane copies from lane b mod 32 on: the threads of a warp read 32 banks. */\n"
                         "    for (int formac_w = 0; formac_w < 32; ++formac_w) formac_s += formac_h[formac_b * 32 + (formac_w + formac_b) % 32];\n"
                       : "    for (int formac_w = 0; formac_w < " + C + "; ++formac_w) formac_s += formac_h[formac_w * " + B + " + formac_b];\n") +
         "    if (formac_s) atomicAdd(formac_out + formac_b, formac_s);\n"
         "  }\n";
  return t + "}\n\n";
}

HostStep histogramSchedule(const ReduceCuda& r, LaunchSchedule& s) {
  const ir::Reduction& red = r.stage->reduction;
  std::vector<HostStep> t;
  Sizes z = hostSizes(r, s, t, histogramBlocksPerSm(red.bins));
  t.push_back(hmemset(resultOf(r), hc(8 * red.bins)));
  bool every = false;
  if (smallTable(elementOf(*r.stage)) && shiftBin(elementOf(*r.stage), red, &every).empty())
    t.push_back(hlaunch(rc::plainKernel(s, r.name + "_table"), hc(256), {scratchAt(r, hc(0), "int*")}));
  t.push_back(hif(positive(z.chunks), {rc::hostLaunch(r, s, r.name + "_hist", hval(z.blocks),
                                                      {resultOf(r, "unsigned long long*"), scratchAt(r, hc(0), "const int*")})}));
  return hblock(r.stage->name + " = " + r.stage->origin + ": counted per block, added into the result", std::move(t));
}

// ------------------------------------------------------------ where

// The where state in the scratch (unsigned long long): [0] the tiles'
// counter, [1] the points selected, then per tile t (kCudaThreads / 32
// chunks) a 16-byte word at [2 + 2t] {value, flag}: flag 1, value its
// points selected; flag 2, value those and every earlier tile's (0: not
// published yet).
constexpr int kWhereWords = 2;

std::string whereKernels(const ReduceCuda& r) {
  static_assert(ir::kSumChunk == 32 * 64, "a lane marks its chunk's points in the 64 bits of formac_bits");
  std::string chunkSize = str(ir::kSumChunk);
  std::string k = K(*r.stage), lookback = r.name + "_lookback", publish = r.name + "_publish";
  std::string t =
      "/* " + r.stage->name + ": tile c's word {value, flag}, written and read in one 16-byte access (a flag is\n"
      "   never seen without its value; the scans' groups rely on the same). */\n"
      "static __device__ __forceinline__ void " + publish + "(unsigned long long* formac_w, const long long formac_c,\n"
      "    const unsigned long long formac_v, const unsigned long long formac_f) {\n"
      "#if defined(__CUDA_ARCH__)\n"
      "  asm volatile(\"st.relaxed.gpu.global.v2.b64 [%0], {%1, %2};\" :: \"l\"(formac_w + 2 * formac_c), \"l\"(formac_v),\n"
      "               \"l\"(formac_f) : \"memory\");\n"
      "#else\n"
      "  volatile unsigned long long* formac_p = formac_w + 2 * formac_c;\n"
      "  formac_p[0] = formac_v;\n"
      "  formac_p[1] = formac_f;\n"
      "#endif\n"
      "}\n"
      "/* " + r.stage->name + ": publishes tile c's count n (flag 1), returns the points selected before it (the\n"
      "   words of the tiles before c read 32 at a time, back to one with flag 2) and publishes those and n\n"
      "   (flag 2). Every lane of a warp calls it; the tiles before c were taken before it, so they run. */\n"
      "static __device__ long long " + lookback + "(unsigned long long* formac_w, const long long formac_c,\n"
      "    const long long formac_n, const int formac_j) {\n"
      "  if (formac_j == 0) " + publish + "(formac_w, formac_c, (unsigned long long)formac_n, formac_c == 0 ? 2ULL : 1ULL);\n"
      "  long long formac_before = 0;\n"
      "  for (long long formac_e = formac_c - 1; formac_e >= 0; formac_e -= 32) {\n"
      "    const long long formac_i = formac_e - formac_j;  /* this lane's chunk */\n"
      "    unsigned long long formac_v = 0, formac_f = 2;\n"
      "    if (formac_i >= 0) {\n"
      "      do {\n"
      "#if defined(__CUDA_ARCH__)\n"
      "        asm volatile(\"ld.relaxed.gpu.global.v2.b64 {%0, %1}, [%2];\" : \"=l\"(formac_v), \"=l\"(formac_f)\n"
      "                     : \"l\"(formac_w + 2 * formac_i) : \"memory\");\n"
      "#else\n"
      "        formac_v = ((volatile unsigned long long*)(formac_w + 2 * formac_i))[0];\n"
      "        formac_f = ((volatile unsigned long long*)(formac_w + 2 * formac_i))[1];\n"
      "#endif\n"
      "      } while (formac_f == 0);\n"
      "    }\n"
      "    const unsigned formac_done = __ballot_sync(0xffffffffu, formac_f == 2);\n"
      "    const int formac_last = formac_done ? __ffs(formac_done) - 1 : 31;  /* the nearest with flag 2 */\n"
      "    long long formac_x = formac_j <= formac_last ? (long long)formac_v : 0;\n"
      "    for (int formac_s = 16; formac_s >= 1; formac_s /= 2) formac_x += __shfl_xor_sync(0xffffffffu, formac_x, formac_s);\n"
      "    formac_before += formac_x;\n"
      "    if (formac_done) break;\n"
      "  }\n"
      "  if (formac_j == 0 && formac_c > 0)\n"
      "    " + publish + "(formac_w, formac_c, (unsigned long long)(formac_before + formac_n), 2ULL);\n"
      "  return formac_before;\n"
      "}\n\n";
  std::string W = str(kCudaThreads / 32);
  Walk w;
  w.point = "if (formac_in && formac_x != 0) formac_bits |= 1ULL << ((formac_k - formac_c * " + chunkSize + ") / 32);\n";
  t += "/* " + r.stage->name + ": a block per tile of " + W + " chunks (a warp each), in the order the tiles are taken: the\n"
       "   chunks' points that are not 0 marked and counted, the points before the tile counted by looking back,\n"
       "   then each chunk's indices written in order. */\n" +
       rc::kernelHeader(r, "_select", "unsigned long long* __restrict__ formac_state, long long* __restrict__ formac_out") +
       rc::kernelDomain(r) +
       "  const int formac_j = (int)(threadIdx.x % 32);  /* the lane */\n"
       "  const int formac_warp = (int)(threadIdx.x / 32);\n"
       "  __shared__ long long formac_tile_of_block, formac_before_tile;\n"
       "  __shared__ long long formac_counts[" + W + "];\n"
       "  for (;;) {\n"
       "    if (threadIdx.x == 0) formac_tile_of_block = (long long)atomicAdd(formac_state, 1ULL);\n"
       "    __syncthreads();\n"
       "    const long long formac_tile = formac_tile_of_block;\n"
       "    if (formac_tile * " + W + " >= formac_chunks) break;\n"
       "    const long long formac_c = formac_tile * " + W + " + formac_warp;\n"
       "    unsigned long long formac_bits = 0;  /* bit s: this lane's point of step s is selected */\n"
       "    if (formac_c < formac_chunks) {\n" + indent(chunkSteps(r, w), "  ") + "    }\n"
       "    long long formac_n = __popcll(formac_bits);\n"
       "    for (int formac_s = 16; formac_s >= 1; formac_s /= 2) formac_n += __shfl_xor_sync(0xffffffffu, formac_n, formac_s);\n"
       "    if (formac_j == 0) formac_counts[formac_warp] = formac_n;\n"
       "    __syncthreads();\n"
       "    if (formac_warp == 0) {\n"
       "      long long formac_all = 0;\n"
       "      for (int formac_i = 0; formac_i < " + W + "; ++formac_i) formac_all += formac_counts[formac_i];\n"
       "      const long long formac_before = " + lookback + "(formac_state + " + str(kWhereWords) +
       ", formac_tile, formac_all, formac_j);\n"
       "      if (formac_j == 0) {\n"
       "        formac_before_tile = formac_before;\n"
       "        if ((formac_tile + 1) * " + W + " >= formac_chunks) formac_state[1] = (unsigned long long)(formac_before + formac_all);\n"
       "      }\n"
       "    }\n"
       "    __syncthreads();\n"
       "    long long formac_at = formac_before_tile;\n"
       "    for (int formac_i = 0; formac_i < formac_warp; ++formac_i) formac_at += formac_counts[formac_i];\n"
       "    for (int formac_s = 0; formac_s < " + str(ir::kSumChunk / 32) + " && formac_at < " + k + "; ++formac_s) {\n"
       "      const bool formac_on = (formac_bits >> formac_s) & 1ULL;\n"
       "      const unsigned formac_m = __ballot_sync(0xffffffffu, formac_on);\n"
       "      const long long formac_p = formac_at + __popc(formac_m & ((1u << formac_j) - 1u));\n"
       "      if (formac_on && formac_p < " + k + ") formac_out[formac_p] = formac_c * " + chunkSize +
       " + 32 * formac_s + formac_j;\n"
       "      formac_at += __popc(formac_m);\n"
       "    }\n"
       "    __syncthreads();  /* formac_counts and the tile read before the next tile's */\n"
       "  }\n}\n\n";
  t += "/* " + r.stage->name + ": -1 after the last index found, [total, K): 16 bytes a store where the result is\n"
       "   aligned (its odd ends one by one), else 8. */\n"
       "__global__ void __launch_bounds__(256) " + r.name + "_fill(const unsigned long long* __restrict__ formac_state, "
       "long long* __restrict__ formac_out) {\n"
       "  const long long formac_from = formac_minll((long long)formac_state[1], " + k + ");\n"
       "  const long long formac_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
       "  const long long formac_step = (long long)gridDim.x * blockDim.x;\n"
       "  if ((unsigned long long)formac_out % 16 == 0) {\n"
       "    const long long formac_even = (formac_from + 1) / 2 * 2;\n"
       "    if (formac_first == 0 && formac_even != formac_from && formac_from < " + k + ") formac_out[formac_from] = -1;\n"
       "    if (formac_first == 0 && " + k + " % 2 == 1 && " + k + " - 1 >= formac_even) formac_out[" + k + " - 1] = -1;\n"
       "    for (long long formac_p = formac_even / 2 + formac_first; formac_p < " + k + " / 2; formac_p += formac_step)\n"
       "      ((longlong2*)formac_out)[formac_p] = make_longlong2(-1, -1);\n"
       "  } else {\n"
       "    for (long long formac_i = formac_from + formac_first; formac_i < " + k + "; formac_i += formac_step)\n"
       "      formac_out[formac_i] = -1;\n"
       "  }\n}\n\n";
  return t;
}

// The scan of the chunks' counts (formac_counts: a chunk's count, then its offset; the total last).
HostStep scanCounts(const ReduceCuda& r, LaunchSchedule& s, HostExpr counts, int chunks) {
  return hlaunch(rc::plainKernel(s, r.name + "_scan"), hc(1), {scratchAt(r, std::move(counts)), val(hval(chunks))}, 1024);
}

HostStep whereSchedule(const ReduceCuda& r, LaunchSchedule& s) {
  std::vector<HostStep> t;
  Sizes z = hostSizes(r, s, t);
  HostArg state = scratchAt(r, hc(0), "unsigned long long*");
  HostExpr tiles = ceilDiv(hval(z.chunks), kCudaThreads / 32);
  t.push_back(hmemset(state, hc(8) * (hc(kWhereWords) + hc(2) * tiles)));
  t.push_back(hif(positive(z.chunks), {rc::hostLaunch(r, s, r.name + "_select", hval(z.blocks), {state, resultOf(r)})}));
  // The fill: a grid-stride loop over the tail [total, K), which only the device knows.
  HostExpr fillGrid = hmax(hc(1), hmin(ceilDiv(hc(r.stage->reduction.bins), 256), hc(8) * hmax(hop(HostExpr::Sms, {}), hc(1))));
  t.push_back(hlaunch(rc::plainKernel(s, r.name + "_fill"), fillGrid, {state, resultOf(r)}));
  return hblock(r.stage->name + " = " + r.stage->origin + ": a tile of chunks a block: counted, looked back on, indices written",
                std::move(t));
}

// ------------------------------------------------------------ topk

// The unsigned key of formac_x whose order is the values' (floating: -0
// below +0), and its width in bits.
std::pair<std::string, int> orderKey(ScalarKind k) {
  switch (k) {
    case ScalarKind::Int8: return {"(unsigned long long)formac_x", 8};
    case ScalarKind::Int16: return {"(unsigned long long)(formac_x + 32768)", 16};
    case ScalarKind::Uint16: return {"(unsigned long long)formac_x", 16};
    case ScalarKind::Int: return {"(unsigned long long)((unsigned)formac_x ^ 0x80000000u)", 32};
    case ScalarKind::Float: return {"(unsigned long long)((unsigned)formac_key_f(formac_x) ^ 0x80000000u)", 32};
    case ScalarKind::Int64: return {"(unsigned long long)formac_x ^ 0x8000000000000000ULL", 64};
    case ScalarKind::Double: return {"(unsigned long long)formac_key_d(formac_x) ^ 0x8000000000000000ULL", 64};
  }
  return {"", 0};
}

// The digits of the radix select, from the top: (shift, bits), 11 bits or fewer.
std::vector<std::pair<int, int>> digits(int keyBits) {
  std::vector<std::pair<int, int>> d;
  for (int top = keyBits; top > 0; top -= 11) d.push_back({top - 11 > 0 ? top - 11 : 0, top - 11 > 0 ? 11 : top});
  return d;
}

// The state in the scratch: formac_s[0] the key's digits chosen so far
// (after the last digit: T, the key of the K-th best), [1] how many of the
// points that match them are still to be taken, [2] the points that are
// not NaN, [3] the points chosen (min(K, [2])), [5] the points with the
// last digit picked (after the last: with key T), [7] the candidates
// appended; [8..2056) a digit's histogram; then the chunks' counts and the
// candidates' keys and indices.
const int kState = 8, kDigitBins = 2048;

std::string topkKernels(const ReduceCuda& r) {
  ScalarKind elem = elementOf(*r.stage);
  std::string k = K(*r.stage), key = orderKey(elem).first, bins = str(kDigitBins);
  std::string keyOf = std::string("const bool formac_ok = formac_in") + (isFloating(elem) ? " && formac_x == formac_x" : "") +
                      ";  /* NaN is never chosen */\n"
                      "const unsigned long long formac_key = " + key + ";\n";
  std::string T = "  const unsigned long long formac_t = (unsigned long long)formac_s[0];  /* T */\n";
  std::string t = "/* " + r.stage->name + ": the histogram of one digit of the keys that match the digits chosen so far. */\n" +
                  rc::kernelHeader(r, "_digits", "long long* __restrict__ formac_s, const int formac_above, "
                                                 "const int formac_shift, const int formac_bits") +
                  rc::kernelDomain(r) +
                  "  __shared__ unsigned formac_h[" + bins + "];\n"
                  "  for (int formac_i = (int)threadIdx.x; formac_i < " + bins + "; formac_i += (int)blockDim.x) formac_h[formac_i] = 0u;\n"
                  "  __syncthreads();\n"
                  "  const unsigned long long formac_prefix = (unsigned long long)formac_s[0];\n"
                  "  int formac_run = -1;  /* the digit of this thread's run of points, formac_n of them */\n"
                  "  unsigned formac_n = 0;\n" +
                  eachPoint(r, "",
                            keyOf +
                            "if (formac_ok && (formac_above >= 64 || (formac_key >> formac_above) == formac_prefix)) {\n"
                            "  const int formac_d = (int)((formac_key >> formac_shift) & ((1ULL << formac_bits) - 1ULL));\n"
                            "  if (formac_d != formac_run) {\n"
                            "    if (formac_run >= 0) atomicAdd(formac_h + formac_run, formac_n);\n"
                            "    formac_run = formac_d;\n"
                            "    formac_n = 0;\n"
                            "  }\n"
                            "  ++formac_n;\n"
                            "}\n") +
                  "  if (formac_run >= 0) atomicAdd(formac_h + formac_run, formac_n);\n"
                  "  __syncthreads();\n"
                  "  for (int formac_i = (int)threadIdx.x; formac_i < " + bins + "; formac_i += (int)blockDim.x)\n"
                  "    if (formac_h[formac_i]) atomicAdd((unsigned long long*)(formac_s + " + str(kState) +
                  ") + formac_i, (unsigned long long)formac_h[formac_i]);\n"
                  "}\n\n";
  t += "/* " + r.stage->name + ": the digit that holds the K-th best of the points that match the digits so far:\n"
       "   suffix sums of its histogram, suf[d] the points with a digit >= d. */\n"
       "__global__ void __launch_bounds__(1024) " + r.name + "_pick(long long* __restrict__ formac_s, const int formac_first, "
       "const int formac_bits) {\n"
       "  __shared__ long long formac_suf[" + bins + " + 1];\n"
       "  const int formac_t = (int)threadIdx.x;\n"
       "  formac_suf[formac_t] = formac_s[" + str(kState) + " + formac_t];\n"
       "  formac_suf[formac_t + 1024] = formac_s[" + str(kState) + " + 1024 + formac_t];\n"
       "  if (formac_t == 0) formac_suf[" + bins + "] = 0;\n"
       "  __syncthreads();\n"
       "  for (int formac_o = 1; formac_o < " + bins + "; formac_o *= 2) {\n"
       "    const long long formac_a = formac_t + formac_o < " + bins + " ? formac_suf[formac_t + formac_o] : 0;\n"
       "    const long long formac_b = formac_t + 1024 + formac_o < " + bins + " ? formac_suf[formac_t + 1024 + formac_o] : 0;\n"
       "    __syncthreads();\n"
       "    formac_suf[formac_t] += formac_a;\n"
       "    formac_suf[formac_t + 1024] += formac_b;\n"
       "    __syncthreads();\n"
       "  }\n"
       "  const long long formac_want = formac_first ? formac_minll(formac_suf[0], " + k + ") : formac_s[1];\n"
       "  __syncthreads();  /* every thread has read formac_s[1] */\n"
       "  if (formac_first && formac_t == 0) {\n"
       "    formac_s[2] = formac_suf[0];\n"
       "    formac_s[3] = formac_want;\n"
       "  }\n"
       "  if (formac_want == 0) return;\n"
       "  for (int formac_d = formac_t; formac_d < " + bins + "; formac_d += 1024)\n"
       "    if (formac_suf[formac_d] >= formac_want && formac_suf[formac_d + 1] < formac_want) {\n"
       "      formac_s[0] = (long long)(((unsigned long long)formac_s[0] << formac_bits) | (unsigned long long)formac_d);\n"
       "      formac_s[1] = formac_want - formac_suf[formac_d + 1];\n"
       "      formac_s[5] = formac_suf[formac_d] - formac_suf[formac_d + 1];\n"
       "    }\n"
       "}\n\n";
  std::string cand = "unsigned long long* __restrict__ formac_keys, long long* __restrict__ formac_idx";
  t += "/* " + r.stage->name + ": the candidates appended: the points with a key above T, and those with key T\n"
       "   when every one of them is taken. */\n" +
       rc::kernelHeader(r, "_take", "long long* __restrict__ formac_s, " + cand) + rc::kernelDomain(r) +
       "  if (formac_s[3] == 0) return;  /* no point chosen */\n" + T +
       "  const bool formac_all = formac_s[5] == formac_s[1];\n" +
       eachPoint(r, "",
                 keyOf +
                 "if (formac_ok && (formac_key > formac_t || (formac_all && formac_key == formac_t))) {\n"
                 "  const unsigned long long formac_p = atomicAdd((unsigned long long*)(formac_s + 7), 1ULL);\n"
                 "  formac_keys[formac_p] = formac_key;\n"
                 "  formac_idx[formac_p] = formac_k;\n"
                 "}\n") +
       "}\n\n";
  std::string some = "  if (formac_s[3] == 0 || formac_s[5] == formac_s[1]) return;  /* only when some points with key T are left out */\n";
  t += "/* " + r.stage->name + ": the points with key T counted per chunk. */\n" +
       rc::kernelHeader(r, "_tcount", "const long long* __restrict__ formac_s, long long* __restrict__ formac_counts") +
       rc::kernelDomain(r) + some + T +
       eachPoint(r, "long long formac_n = 0;\n",
                 keyOf + "formac_n += __popc(__ballot_sync(0xffffffffu, formac_ok && formac_key == formac_t));\n",
                 "if (formac_j == 0) formac_counts[formac_c] = formac_n;\n") +
       "}\n\n" + scanKernel(r);
  t += "/* " + r.stage->name + ": the first points with key T in index order, after those above T. */\n" +
       rc::kernelHeader(r, "_twrite", "const long long* __restrict__ formac_s, const long long* __restrict__ formac_offsets, " + cand) +
       rc::kernelDomain(r) + some + T +
       "  const long long formac_want = formac_s[1];\n"
       "  const long long formac_above = formac_s[3] - formac_want;\n" +
       eachPoint(r, "long long formac_at = formac_offsets[formac_c];\nif (formac_at >= formac_want) continue;\n",
                 keyOf +
                 "const bool formac_on = formac_ok && formac_key == formac_t;\n"
                 "const unsigned formac_m = __ballot_sync(0xffffffffu, formac_on);\n"
                 "const long long formac_p = formac_at + __popc(formac_m & ((1u << formac_j) - 1u));\n"
                 "if (formac_on && formac_p < formac_want) {\n"
                 "  formac_keys[formac_above + formac_p] = formac_t;\n"
                 "  formac_idx[formac_above + formac_p] = formac_k;\n"
                 "}\n"
                 "formac_at += __popc(formac_m);\n",
                 "", "formac_at >= formac_want") +
       "}\n\n";
  std::string better = r.name + "_better";
  t += "/* " + r.stage->name + ": the candidates padded to a power of two with the worst pair. */\n"
       "__global__ void __launch_bounds__(256) " + r.name + "_pad(const long long* __restrict__ formac_s, " + cand +
       ", const long long formac_p) {\n"
       "  " + gridStride("formac_p") + "\n"
       "    if (formac_i >= formac_s[3]) {\n"
       "      formac_keys[formac_i] = 0ULL;\n"
       "      formac_idx[formac_i] = 9223372036854775807LL;\n"
       "    }\n}\n\n"
       "/* " + r.stage->name + ": better: a larger key, then a smaller index. */\n"
       "static __device__ __forceinline__ bool " + better + "(const unsigned long long formac_ka, const long long formac_ia,\n"
       "    const unsigned long long formac_kb, const long long formac_ib) {\n"
       "  return formac_ka > formac_kb || (formac_ka == formac_kb && formac_ia < formac_ib);\n}\n"
       "/* One compare-exchange of a bitonic sort, best first: i and l = i ^ j, in the order of (i & k) == 0. */\n"
       "static __device__ __forceinline__ void " + r.name + "_exchange(unsigned long long* formac_keys, long long* formac_idx,\n"
       "    const long long formac_i, const long long formac_k, const long long formac_j) {\n"
       "  const long long formac_l = formac_i ^ formac_j;\n"
       "  if (formac_l <= formac_i) return;\n"
       "  const bool formac_swap = (formac_i & formac_k) == 0\n"
       "      ? " + better + "(formac_keys[formac_l], formac_idx[formac_l], formac_keys[formac_i], formac_idx[formac_i])\n"
       "      : " + better + "(formac_keys[formac_i], formac_idx[formac_i], formac_keys[formac_l], formac_idx[formac_l]);\n"
       "  if (!formac_swap) return;\n"
       "  const unsigned long long formac_key = formac_keys[formac_i];\n"
       "  const long long formac_index = formac_idx[formac_i];\n"
       "  formac_keys[formac_i] = formac_keys[formac_l];\n"
       "  formac_idx[formac_i] = formac_idx[formac_l];\n"
       "  formac_keys[formac_l] = formac_key;\n"
       "  formac_idx[formac_l] = formac_index;\n}\n"
       "/* " + r.stage->name + ": up to 2048 candidates sorted in shared memory by one block. */\n"
       "__global__ void __launch_bounds__(1024) " + r.name + "_sort(" + cand + ", const int formac_p) {\n"
       "  __shared__ unsigned long long formac_sk[2048];\n"
       "  __shared__ long long formac_si[2048];\n"
       "  for (int formac_i = (int)threadIdx.x; formac_i < formac_p; formac_i += 1024) {\n"
       "    formac_sk[formac_i] = formac_keys[formac_i];\n"
       "    formac_si[formac_i] = formac_idx[formac_i];\n"
       "  }\n"
       "  __syncthreads();\n"
       "  for (int formac_k = 2; formac_k <= formac_p; formac_k *= 2)\n"
       "    for (int formac_j = formac_k / 2; formac_j > 0; formac_j /= 2) {\n"
       "      for (int formac_i = (int)threadIdx.x; formac_i < formac_p; formac_i += 1024)\n"
       "        " + r.name + "_exchange(formac_sk, formac_si, formac_i, formac_k, formac_j);\n"
       "      __syncthreads();\n"
       "    }\n"
       "  for (int formac_i = (int)threadIdx.x; formac_i < formac_p; formac_i += 1024) {\n"
       "    formac_keys[formac_i] = formac_sk[formac_i];\n"
       "    formac_idx[formac_i] = formac_si[formac_i];\n"
       "  }\n}\n\n"
       "/* " + r.stage->name + ": one step (k, j) of the bitonic sort of more candidates, on the device. */\n"
       "__global__ void __launch_bounds__(256) " + r.name + "_step(" + cand +
       ", const long long formac_p, const long long formac_k, const long long formac_j) {\n"
       "  " + gridStride("formac_p") + "\n    " + r.name + "_exchange(formac_keys, formac_idx, formac_i, formac_k, formac_j);\n}\n\n"
       "/* " + r.stage->name + ": the chosen indices, then -1. */\n"
       "__global__ void __launch_bounds__(256) " + r.name + "_out(const long long* __restrict__ formac_s, "
       "const long long* __restrict__ formac_idx, long long* __restrict__ formac_out) {\n"
       "  const long long formac_n = formac_s[3];\n"
       "  " + gridStride(k) + "\n    formac_out[formac_i] = formac_i < formac_n ? formac_idx[formac_i] : -1;\n}\n\n";
  return t;
}

HostStep topkSchedule(const ReduceCuda& r, LaunchSchedule& s) {
  ScalarKind elem = elementOf(*r.stage);
  long long k = r.stage->reduction.bins;
  std::vector<HostStep> t;
  Sizes z = hostSizes(r, s, t);
  // The scratch: the state, a digit's histogram (above), the chunks' counts,
  // then the candidates' keys and indices, formac_p of each.
  int p = s.value("formac_p");
  HostExpr counts = hc(kState + kDigitBins), keys = counts + hval(z.chunks) + hc(1), idx = keys + hval(p);
  HostStep pVar = hvar(p, hc(1));  // the candidates' room: a power of two >= min(K, points)
  pVar.constant = false;
  t.push_back(pVar);
  t.push_back(hwhile(hop(HostExpr::Less, {hval(p), hmin(hc(k), hval(z.len))}), {hassign(p, hval(p) * hc(2))}));
  t.push_back(hmemset(scratchAt(r), hc(kState * 8)));
  std::vector<std::pair<int, int>> ds = digits(orderKey(elem).second);
  for (size_t i = 0; i < ds.size(); ++i) {
    int shift = ds[i].first, bits = ds[i].second;
    t.push_back(hmemset(scratchAt(r, hc(kState)), hc(kDigitBins * 8)));
    t.push_back(hif(positive(z.chunks), {rc::hostLaunch(r, s, r.name + "_digits", hval(z.blocks),
                                                        {scratchAt(r), intArg(shift + bits), intArg(shift), intArg(bits)})}));
    t.push_back(hlaunch(rc::plainKernel(s, r.name + "_pick"), hc(1), {scratchAt(r), intArg(i == 0), intArg(bits)}, 1024));
  }
  HostArg keysArg = scratchAt(r, keys, "unsigned long long*"), idxArg = scratchAt(r, idx);
  t.push_back(hif(positive(z.chunks),
                  {rc::hostLaunch(r, s, r.name + "_take", hval(z.blocks), {scratchAt(r), keysArg, idxArg}),
                   rc::hostLaunch(r, s, r.name + "_tcount", hval(z.blocks), {scratchAt(r), scratchAt(r, counts)}),
                   scanCounts(r, s, counts, z.chunks),
                   rc::hostLaunch(r, s, r.name + "_twrite", hval(z.blocks), {scratchAt(r), scratchAt(r, counts), keysArg, idxArg})}));
  t.push_back(hlaunch(rc::plainKernel(s, r.name + "_pad"), flatGrid(hval(p)), {scratchAt(r), keysArg, idxArg, val(hval(p))}));
  // Sorted by (key desc, index asc): one block up to 2048, else a bitonic sort of the device.
  int kk = s.value("formac_k"), jj = s.value("formac_j");
  HostStep kVar = hvar(kk, hc(2)), jVar = hvar(jj, hval(kk) / hc(2));
  kVar.constant = jVar.constant = false;
  std::vector<HostStep> bitonic = {
      kVar, hwhile(hop(HostExpr::LessEq, {hval(kk), hval(p)}),
                   {jVar, hwhile(hop(HostExpr::Less, {hc(0), hval(jj)}),
                                 {hlaunch(rc::plainKernel(s, r.name + "_step"), flatGrid(hval(p)),
                                          {keysArg, idxArg, val(hval(p)), val(hval(kk)), val(hval(jj))}),
                                  hassign(jj, hval(jj) / hc(2))}),
                    hassign(kk, hval(kk) * hc(2))})};
  HostArg pInt{HostArg::Int, 0, hval(p), ""};
  t.push_back(hif(hop(HostExpr::LessEq, {hval(p), hc(2048)}),
                  {hlaunch(rc::plainKernel(s, r.name + "_sort"), hc(1), {keysArg, idxArg, pInt}, 1024)}, std::move(bitonic)));
  t.push_back(hlaunch(rc::plainKernel(s, r.name + "_out"), flatGrid(hc(k)), {scratchAt(r), idxArg, resultOf(r)}));
  return hblock(r.stage->name + " = " + r.stage->origin + ": a radix select of the K-th key, the candidates, then sorted",
                std::move(t));
}

}  // namespace

bool isSelection(ReduceOp op) { return op == ReduceOp::Histogram || op == ReduceOp::Where || op == ReduceOp::TopK; }

HostExpr selectScratchCuda(const ir::Stage& s) {
  HostExpr len = reduceDomainPoints(s), chunks = ceilDiv(len, ir::kSumChunk);
  switch (s.reduction.op) {
    case ReduceOp::Histogram: return hc(smallTable(elementOf(s)) ? 32768 : 1);  // a 16-bit value's bin, int
    case ReduceOp::Where: return hc(kWhereWords) + hc(2) * chunks;
    default: return hc(kState + kDigitBins) + chunks + hc(1) + hc(4) * hmax(hc(1), hmin(hc(s.reduction.bins), len));
  }
}

std::string emitSelectKernelsCuda(const ReduceCuda& r) {
  switch (r.stage->reduction.op) {
    case ReduceOp::Histogram: return histogramKernels(r);
    case ReduceOp::Where: return whereKernels(r);
    default: return topkKernels(r);
  }
}

HostStep scheduleSelectCuda(const ReduceCuda& r, LaunchSchedule& s) {
  switch (r.stage->reduction.op) {
    case ReduceOp::Histogram: return histogramSchedule(r, s);
    case ReduceOp::Where: return whereSchedule(r, s);
    default: return topkSchedule(r, s);
  }
}

}  // namespace formac::codegen
