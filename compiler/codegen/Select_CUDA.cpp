#include "codegen/Select_CUDA.h"

#include <cstdio>
#include <cmath>
#include <utility>
#include <vector>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedKernel_CUDA.h"
#include "codegen/ReduceFlat_CUDA.h"
#include "codegen/Reduce_C.h"
#include "codegen/SelectParts_CUDA.h"

namespace formac::codegen {
namespace {

using ir::ReduceOp;
using namespace select_cuda;
namespace rc = reduce_cuda;

// ------------------------------------------------------------ histogram

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

// NAME_bin(x): the bin of value x by the rule (ir/Pipeline.h), -1 if it is not counted.
std::string binFunction(const ir::Stage& s, const std::string& name) {
  const ir::Reduction& red = s.reduction;
  std::string lo = doubleLiteral(red.lo), hi = doubleLiteral(red.hi), B = str(red.bins);
  return "/* " + s.name + ": the bin of value x by the rule (ir/Pipeline.h), -1 if it is not counted. */\n"
         "static __device__ __forceinline__ int " + name + "_bin(const double formac_x) {\n"
         "  const double formac_b = floor(__ddiv_rn(__dmul_rn(__dsub_rn(formac_x, " + lo + "), " + B + ".0), " +
         hi + " - " + lo + "));\n"
         "  return formac_x >= " + lo + " && formac_x < " + hi + " && formac_b >= 0.0 && formac_b < " + B +
         ".0 ? (int)formac_b : -1;\n}\n\n";
}

std::string histogramKernels(const ReduceCuda& r) {
  const ir::Reduction& red = r.stage->reduction;
  ScalarKind elem = elementOf(*r.stage);
  std::string B = str(red.bins), C = str(histogramCopies(red.bins));
  long long vlo = 0, vhi = 0;
  if (!isFloating(elem)) integerRange(elem, &vlo, &vhi);
  std::string t = binFunction(*r.stage, r.name);
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
  std::vector<Stmt> k = rc::domainDeclarations(r);
  k.push_back(eval("(void)formac_table"));
  k.push_back(eval("(void)formac_chunks"));
  auto eachThread = [&](const std::string& n, std::vector<Stmt> body) {
    return forLoop("int formac_i = (int)threadIdx.x", "formac_i < " + n, "formac_i += (int)blockDim.x", std::move(body));
  };
  if (copies) {
    k.push_back(declOnly("__shared__ unsigned", "formac_h[" + C + " * " + B + "]"));
    k.push_back(eachThread(C + " * " + B, {assign("formac_h[formac_i]", "0u")}));
  }
  if (table8) {
    k.push_back(declOnly("__shared__ int", "formac_table8[256]"));
    k.push_back(eachThread("256", {assign("formac_table8[formac_i]", r.name + "_bin((double)formac_i)")}));
  }
  if (copies || table8) k.push_back(eval("__syncthreads()"));
  Stmt flush = ifThen("formac_run >= 0", {eval("atomicAdd(formac_mine + formac_run, formac_n)")});
  std::vector<Stmt> count = {decl("int", "formac_b", bin)};
  if (copies == 32) {
    // Every point its own atomic: no two lanes of a warp share a bank.
    Stmt add = eval("atomicAdd(formac_h + formac_b * 32 + (int)(threadIdx.x % 32), 1u)");
    count.push_back(every ? add : ifThen("formac_b >= 0", {add}));
  } else {
    // Each thread counts a run of points of one bin at once.
    k.push_back(copies ? decl("unsigned* const", "formac_mine", "formac_h + (threadIdx.x / 32 % " + C + ") * " + B, false)
                       : decl("unsigned long long* const", "formac_mine", "formac_out", false));
    k.push_back(comment("the bin of this thread's run of points, formac_n of them"));
    k.push_back(decl("int", "formac_run", "-1", false));
    k.push_back(decl(copies ? "unsigned" : "unsigned long long", "formac_n", "0", false));
    count.push_back(ifThen("formac_b != formac_run", {flush, assign("formac_run", "formac_b"), assign("formac_n", "0")}));
    count.push_back(eval("++formac_n"));
  }
  std::string T = scalarCType(elem);
  FlatReads f = flatReads(r);
  if (f.per) {
    std::string per = str(f.per), group = str(2 * 32 * f.per);
    k.push_back(comment("Point-wise: groups of 2 x 32 x " + per + " points, a warp each, " + per +
                        " points a lane a load (16 bytes of the widest input) while every input is aligned; the rest one by one."));
    k.push_back(decl("int", "formac_j", "(int)(threadIdx.x % 32)"));
    k.push_back(decl("long long", "formac_warps", "(long long)gridDim.x * (blockDim.x / 32)"));
    k.push_back(decl("long long", "formac_groups", reduce_flat::aligned(r, f) + " ? formac_len / " + group + " : 0"));
    Stmt units = unrolledLoop("int formac_u = 0", "formac_u < " + per, "++formac_u",
                              {seq(reduce_flat::value(r, true)), decl(T, "formac_x", "formac_v"), seq(count)});
    k.push_back(forLoop("long long formac_g = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32",
                        "formac_g < formac_groups", "formac_g += formac_warps",
                        {seq(reduce_flat::loads(r, f, 2, "(formac_g * 64 + formac_j) * " + per)),
                         unrolledLoop("int formac_half = 0", "formac_half < 2", "++formac_half",
                                      {seq(reduce_flat::unpack(r, f, "formac_half")), units})}));
    k.push_back(forLoop("long long formac_k = formac_groups * " + group + " + (long long)blockIdx.x * blockDim.x + threadIdx.x",
                        "formac_k < formac_len", "formac_k += (long long)gridDim.x * blockDim.x",
                        {seq(reduce_flat::value(r, false)), decl(T, "formac_x", "formac_v"), seq(count)}));
  } else {
    k.push_back(seq(eachPoint(r, {}, {ifThen("formac_in", count)})));
  }
  if (copies != 32) k.push_back(flush);
  if (copies) {
    k.push_back(eval("__syncthreads()"));
    k.push_back(seq(histogramCountsAdded(red.bins, "formac_h", "formac_out", "(int)threadIdx.x", "(int)blockDim.x")));
  }
  return t + printerFor(true).print({comment(r.stage->name + ": " + where + (copies ? ", then added into the result" : "") + "."),
                                     rc::kernel(r, "_hist", {{"unsigned long long", "formac_out", true}, {"int", "formac_table", true, true}},
                                                std::move(k))}) + "\n";
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
HostExpr whereTiles(HostExpr chunks) { return ceilDiv(std::move(chunks), kCudaThreads / 32); }

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
      "    const long long formac_i = formac_e - formac_j;  /* this lane's tile */\n"
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
  w.point = {ifThen("formac_in && formac_x != 0",
                    {eval("formac_bits |= 1ULL << ((formac_k - formac_c * " + chunkSize + ") / 32)")})};
  auto upTo = [](const std::string& count, std::vector<Stmt> body) {
    return forLoop("int formac_i = 0", "formac_i < " + count, "++formac_i", std::move(body));
  };
  Stmt laneSum = forLoop("int formac_s = 16", "formac_s >= 1", "formac_s /= 2",
                         {eval("formac_n += __shfl_xor_sync(0xffffffffu, formac_n, formac_s)")});
  Stmt lookedBack = ifThen(
      "formac_warp == 0",
      {decl("long long", "formac_all", "0", false), upTo(W, {eval("formac_all += formac_counts[formac_i]")}),
       decl("long long", "formac_before",
            lookback + "(formac_state + " + str(kWhereWords) + ", formac_tile, formac_all, formac_j)"),
       ifThen("formac_j == 0", {assign("formac_before_tile", "formac_before"),
                                ifThen("(formac_tile + 1) * " + W + " >= formac_chunks",
                                       {assign("formac_state[1]", "(unsigned long long)(formac_before + formac_all)")})})});
  Stmt written = forLoop(
      "int formac_s = 0", "formac_s < " + str(ir::kSumChunk / 32) + " && formac_at < " + k, "++formac_s",
      {decl("bool", "formac_on", "(formac_bits >> formac_s) & 1ULL"),
       decl("unsigned", "formac_m", "__ballot_sync(0xffffffffu, formac_on)"),
       decl("long long", "formac_p", "formac_at + __popc(formac_m & ((1u << formac_j) - 1u))"),
       ifThen("formac_on && formac_p < " + k,
              {assign("formac_out[formac_p]", "formac_c * " + chunkSize + " + 32 * formac_s + formac_j")}),
       eval("formac_at += __popc(formac_m)")});
  std::vector<Stmt> tile = {
      ifThen("threadIdx.x == 0", {assign("formac_tile_of_block", "(long long)atomicAdd(formac_state, 1ULL)")}),
      eval("__syncthreads()"),
      decl("long long", "formac_tile", "formac_tile_of_block"),
      ifThen("formac_tile * " + W + " >= formac_chunks", {eval("break")}),
      decl("long long", "formac_c", "formac_tile * " + W + " + formac_warp"),
      comment("bit s: this lane's point of step s is selected"),
      decl("unsigned long long", "formac_bits", "0", false),
      ifThen("formac_c < formac_chunks", chunkSteps(r, w)),
      decl("long long", "formac_n", "__popcll(formac_bits)", false),
      laneSum,
      ifThen("formac_j == 0", {assign("formac_counts[formac_warp]", "formac_n")}),
      eval("__syncthreads()"),
      lookedBack,
      eval("__syncthreads()"),
      decl("long long", "formac_at", "formac_before_tile", false),
      forLoop("int formac_i = 0", "formac_i < formac_warp", "++formac_i", {eval("formac_at += formac_counts[formac_i]")}),
      written,
      comment("formac_counts and the tile read before the next tile's"),
      eval("__syncthreads()")};
  std::vector<Stmt> body = rc::domainDeclarations(r);
  body.push_back(comment("the lane"));
  body.push_back(decl("int", "formac_j", "(int)(threadIdx.x % 32)"));
  body.push_back(decl("int", "formac_warp", "(int)(threadIdx.x / 32)"));
  body.push_back(declOnly("__shared__ long long", "formac_tile_of_block, formac_before_tile"));
  body.push_back(declOnly("__shared__ long long", "formac_counts[" + W + "]"));
  body.push_back(forLoop("", "", "", std::move(tile)));
  t += printerFor(true).print(
           {comment(r.stage->name + ": a block per tile of " + W + " chunks (a warp each), in the order the tiles are taken: the\n"
                    "chunks' points that are not 0 marked and counted, the points before the tile counted by looking back,\n"
                    "then each chunk's indices written in order."),
            rc::kernel(r, "_select", {{"unsigned long long", "formac_state", true}, {"long long", "formac_out", true}},
                       std::move(body))}) + "\n";
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

HostStep whereSchedule(const ReduceCuda& r, LaunchSchedule& s) {
  std::vector<HostStep> t;
  Sizes z = hostSizes(r, s, t);
  HostArg state = scratchAt(r, hc(0), "unsigned long long*");
  t.push_back(hmemset(state, hc(8) * (hc(kWhereWords) + hc(2) * whereTiles(hval(z.chunks)))));
  t.push_back(hif(positive(z.chunks), {rc::hostLaunch(r, s, r.name + "_select", hval(z.blocks), {state, resultOf(r)})}));
  // The fill: a grid-stride loop over the tail [total, K), which only the device knows.
  HostExpr fillGrid = hmax(hc(1), hmin(ceilDiv(hc(r.stage->reduction.bins), 256), perSm(8)));
  t.push_back(hlaunch(rc::plainKernel(s, r.name + "_fill"), fillGrid, {state, resultOf(r)}));
  return hblock(r.stage->name + " = " + r.stage->origin + ": a tile of chunks a block: counted, looked back on, indices written",
                std::move(t));
}

}  // namespace

int histogramCopies(long long bins) { return bins <= kLaneBins ? 32 : bins <= 1024 ? 8 : bins <= 8192 ? 1 : 0; }

std::vector<Stmt> histogramCountsAdded(long long bins, const std::string& counts, const std::string& out,
                                       const std::string& thread, const std::string& threads) {
  int copies = histogramCopies(bins);
  std::string B = str(bins);
  auto sum = [&](const std::string& n, const std::string& at) {
    return forLoop("int formac_w = 0", "formac_w < " + n, "++formac_w", {eval("formac_s += " + counts + "[" + at + "]")});
  };
  Stmt copiesSum = copies == 32 ? seq({comment("Lane copies from lane b mod 32 on: the threads of a warp read 32 banks."),
                                       sum("32", "formac_b * 32 + (formac_w + formac_b) % 32")})
                                : sum(str(copies), "formac_w * " + B + " + formac_b");
  return {forLoop("int formac_b = " + thread, "formac_b < " + B, "formac_b += " + threads,
                  {decl("unsigned long long", "formac_s", "0", false), copiesSum,
                   ifThen("formac_s", {eval("atomicAdd(" + out + " + formac_b, formac_s)")})})};
}

HistogramCounting histogramCounting(const ir::Stage& s, const std::string& name) {
  HistogramCounting c;
  c.bin = shiftBin(elementOf(s), s.reduction, &c.every);
  if (c.bin.empty()) c.helpers = binFunction(s, name), c.bin = name + "_bin((double)formac_x)";
  return c;
}

bool isSelection(ReduceOp op) { return op == ReduceOp::Histogram || op == ReduceOp::Where || op == ReduceOp::TopK; }

HostExpr selectScratchCuda(const ir::Stage& s) {
  HostExpr len = reduceDomainPoints(s), chunks = ceilDiv(len, ir::kSumChunk);
  switch (s.reduction.op) {
    case ReduceOp::Histogram: return hc(smallTable(elementOf(s)) ? 32768 : 1);  // a 16-bit value's bin, int
    case ReduceOp::Where: return hc(kWhereWords) + hc(2) * whereTiles(chunks);
    default: return topkScratch(s);
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
