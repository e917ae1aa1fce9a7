// topk's CUDA kernels and launches (Select_CUDA.h says how it selects).
#include <utility>
#include <vector>

#include "codegen/ExprPrinter.h"
#include "codegen/Reduce_C.h"
#include "codegen/SelectParts_CUDA.h"

namespace formac::codegen::select_cuda {
namespace {

namespace rc = reduce_cuda;

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

std::string kernels(const ReduceCuda& r) {
  ScalarKind elem = elementOf(*r.stage);
  std::string k = K(*r.stage), key = orderKey(elem).first, bins = str(kDigitBins);
  const std::vector<Stmt> keyOf = {
      comment("NaN is never chosen"),
      decl("bool", "formac_ok", std::string("formac_in") + (isFloating(elem) ? " && formac_x == formac_x" : "")),
      decl("unsigned long long", "formac_key", key)};
  auto withKey = [&](std::vector<Stmt> then) {
    std::vector<Stmt> p = keyOf;
    p.insert(p.end(), then.begin(), then.end());
    return p;
  };
  const Stmt T = seq({comment("T"), decl("unsigned long long", "formac_t", "(unsigned long long)formac_s[0]")});
  const Param state{"long long", "formac_s", true}, stateIn{"long long", "formac_s", true, true};
  const Param keysOut{"unsigned long long", "formac_keys", true}, idxOut{"long long", "formac_idx", true};
  auto print = [](const std::string& what, Stmt kernel) { return printerFor(true).print({comment(what), kernel}) + "\n"; };
  auto runAdded = [](const std::string& to) {
    return ifThen("formac_run >= 0", {eval("atomicAdd(" + to + " + formac_run, formac_n)")});
  };
  std::vector<Stmt> digit = rc::domainDeclarations(r);
  digit.push_back(declOnly("__shared__ unsigned", "formac_h[" + bins + "]"));
  digit.push_back(forLoop("int formac_i = (int)threadIdx.x", "formac_i < " + bins, "formac_i += (int)blockDim.x",
                          {assign("formac_h[formac_i]", "0u")}));
  digit.push_back(eval("__syncthreads()"));
  digit.push_back(decl("unsigned long long", "formac_prefix", "(unsigned long long)formac_s[0]"));
  digit.push_back(comment("the digit of this thread's run of points, formac_n of them"));
  digit.push_back(decl("int", "formac_run", "-1", false));
  digit.push_back(decl("unsigned", "formac_n", "0", false));
  digit.push_back(seq(eachPoint(
      r, {},
      withKey({ifThen("formac_ok && (formac_above >= 64 || (formac_key >> formac_above) == formac_prefix)",
                      {decl("int", "formac_d", "(int)((formac_key >> formac_shift) & ((1ULL << formac_bits) - 1ULL))"),
                       ifThen("formac_d != formac_run", {runAdded("formac_h"), assign("formac_run", "formac_d"),
                                                         assign("formac_n", "0")}),
                       eval("++formac_n")})}))));
  digit.push_back(runAdded("formac_h"));
  digit.push_back(eval("__syncthreads()"));
  digit.push_back(forLoop("int formac_i = (int)threadIdx.x", "formac_i < " + bins, "formac_i += (int)blockDim.x",
                          {ifThen("formac_h[formac_i]",
                                  {eval("atomicAdd((unsigned long long*)(formac_s + " + str(kState) +
                                        ") + formac_i, (unsigned long long)formac_h[formac_i])")})}));
  std::string t =
      print(r.stage->name + ": the histogram of one digit of the keys that match the digits chosen so far.",
            rc::kernel(r, "_digits",
                       {state, {"int", "formac_above", false, true}, {"int", "formac_shift", false, true},
                        {"int", "formac_bits", false, true}},
                       std::move(digit)));
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
  std::vector<Stmt> take = rc::domainDeclarations(r);
  take.push_back(comment("no point chosen"));
  take.push_back(ifThen("formac_s[3] == 0", {eval("return")}));
  take.push_back(T);
  take.push_back(decl("bool", "formac_all", "formac_s[5] == formac_s[1]"));
  take.push_back(seq(eachPoint(
      r, {},
      withKey({ifThen("formac_ok && (formac_key > formac_t || (formac_all && formac_key == formac_t))",
                      {decl("unsigned long long", "formac_p", "atomicAdd((unsigned long long*)(formac_s + 7), 1ULL)"),
                       assign("formac_keys[formac_p]", "formac_key"), assign("formac_idx[formac_p]", "formac_k")})}))));
  t += print(r.stage->name + ": the candidates appended: the points with a key above T, and those with key T\n"
             "when every one of them is taken.",
             rc::kernel(r, "_take", {state, keysOut, idxOut}, std::move(take)));
  // Only when some points with key T are left out.
  auto some = [&](std::vector<Stmt> body) {
    std::vector<Stmt> t = rc::domainDeclarations(r);
    t.push_back(comment("only when some points with key T are left out"));
    t.push_back(ifThen("formac_s[3] == 0 || formac_s[5] == formac_s[1]", {eval("return")}));
    t.push_back(T);
    t.insert(t.end(), body.begin(), body.end());
    return t;
  };
  t += print(r.stage->name + ": the points with key T counted per chunk.",
             rc::kernel(r, "_tcount", {stateIn, {"long long", "formac_counts", true}},
                        some(eachPoint(r, {decl("long long", "formac_n", "0", false)},
                                       withKey({eval("formac_n += __popc(__ballot_sync(0xffffffffu, formac_ok && "
                                                     "formac_key == formac_t))")}),
                                       {ifThen("formac_j == 0", {assign("formac_counts[formac_c]", "formac_n")})})))) +
       scanKernel(r);
  std::vector<Stmt> write = {decl("long long", "formac_want", "formac_s[1]"),
                             decl("long long", "formac_above", "formac_s[3] - formac_want")};
  std::vector<Stmt> chunk = {decl("long long", "formac_at", "formac_offsets[formac_c]", false),
                             ifThen("formac_at >= formac_want", {eval("continue")})};
  write.push_back(seq(eachPoint(
      r, std::move(chunk),
      withKey({decl("bool", "formac_on", "formac_ok && formac_key == formac_t"),
               decl("unsigned", "formac_m", "__ballot_sync(0xffffffffu, formac_on)"),
               decl("long long", "formac_p", "formac_at + __popc(formac_m & ((1u << formac_j) - 1u))"),
               ifThen("formac_on && formac_p < formac_want", {assign("formac_keys[formac_above + formac_p]", "formac_t"),
                                                              assign("formac_idx[formac_above + formac_p]", "formac_k")}),
               eval("formac_at += __popc(formac_m)")}),
      {}, "formac_at >= formac_want")));
  t += print(r.stage->name + ": the first points with key T in index order, after those above T.",
             rc::kernel(r, "_twrite", {stateIn, {"long long", "formac_offsets", true, true}, keysOut, idxOut},
                        some(std::move(write))));
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

HostStep schedule(const ReduceCuda& r, LaunchSchedule& s) {
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

std::string topkKernels(const ReduceCuda& r) { return kernels(r); }
HostStep topkSchedule(const ReduceCuda& r, LaunchSchedule& s) { return schedule(r, s); }
HostExpr topkScratch(const ir::Stage& s) {
  HostExpr len = reduceDomainPoints(s), chunks = ceilDiv(len, ir::kSumChunk);
  return hc(kState + kDigitBins) + chunks + hc(1) + hc(4) * hmax(hc(1), hmin(hc(s.reduction.bins), len));
}

}  // namespace formac::codegen::select_cuda
