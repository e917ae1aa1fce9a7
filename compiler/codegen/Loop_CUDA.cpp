#include "codegen/Loop_CUDA.h"

#include <set>

#include "codegen/ExprPrinter.h"
#include "codegen/StageFacts.h"

namespace formac::codegen {
namespace {

const ir::Loop& loopOf(const LoopCuda& l) { return *l.first->loop; }
const ir::Stage& outerStage(const LoopCuda& l, int id) { return l.pipeline->stages[static_cast<size_t>(id)]; }
// The loop's j-th result (LoopResult stages are consecutive).
const ir::Stage& result(const LoopCuda& l, size_t j) { return outerStage(l, l.first->id + static_cast<int>(j)); }
std::string member(const LoopCuda& l, const std::string& what) {
  return "formac_loop" + std::to_string(l.first->id) + "_" + what;
}
std::string ws(const LoopCuda& l, const std::string& what) { return "ws->" + member(l, what); }
std::string buffer(const LoopCuda& l, char which, size_t j) { return ws(l, std::string(1, which) + std::to_string(j)); }
std::string bytes(const LoopCuda& l, size_t j) {
  const ir::Stage& r = result(l, j);
  std::string t = "sizeof(" + cType(r.type) + ")";
  for (const auto& e : r.extent) t += " * (size_t)(" + ir::printSize(e, l.names->param) + ")";
  return t;
}
std::string conditionType(const LoopCuda& l) {
  const ir::Pipeline& body = *loopOf(l).body;
  return cType(body.stages[static_cast<size_t>(loopOf(l).condition)].type);
}
const std::string& scalar(const LoopCuda& l, int index) { return l.names->scalar[static_cast<size_t>(index)]; }

// The body's NAME_enqueue for one round: from a to b when `from_a`, else back.
std::string roundCall(const LoopCuda& l) {
  const ir::Loop& loop = loopOf(l);
  std::string args;
  for (const auto& in : loop.body->inputs) {
    std::string a;
    if (in.kind == ir::EntryArg::Scalar) a = scalar(l, in.index);
    for (size_t j = 0; j < loop.carried.size(); ++j)
      if (in.kind == ir::EntryArg::Image && loop.carried[j].inner == in.index)
        a = "from_a ? " + buffer(l, 'a', j) + " : " + buffer(l, 'b', j);
    for (size_t k = 0; k < loop.reads.size(); ++k)
      if (in.kind == ir::EntryArg::Image && loop.reads[k].inner == in.index) a = l.reads[k];
    args += ", " + a;
  }
  for (size_t j = 0; j < loop.carried.size(); ++j)
    args += ", from_a ? " + buffer(l, 'b', j) + " : " + buffer(l, 'a', j);
  return l.name + "_enqueue(" + ws(l, "body") + ", s" + args + ", " + ws(l, "cond") + ")";
}

// What the graph captured besides the workspace's own buffers: the outer
// images the body reads and the scalars its stages use (a change of either
// rebuilds the graph; the body is given every scalar, its stages use these).
struct Captured {
  std::string member, type, value;
};
std::vector<Captured> captured(const LoopCuda& l) {
  std::vector<Captured> v;
  for (size_t k = 0; k < l.reads.size(); ++k)
    v.push_back({member(l, "read" + std::to_string(k)), "const void*", "(const void*)(" + l.reads[k] + ")"});
  const ir::Pipeline& body = *loopOf(l).body;
  std::vector<int> all;
  for (const auto& s : body.stages) all.push_back(s.id);
  std::set<int> used = scalarsOf(body, all);
  for (const auto& in : body.inputs)
    if (in.kind == ir::EntryArg::Scalar && used.count(in.index))
      v.push_back({member(l, "scalar_" + scalar(l, in.index)),
                   scalarCType(l.pipeline->scalars[static_cast<size_t>(in.index)].type), scalar(l, in.index)});
  return v;
}

}  // namespace

std::string loopPreludeCuda() {
  return R"(#if CUDART_VERSION < 12040
#error "this program has a do loop: its graph's conditional nodes need CUDA 12.4 or later"
#endif
/* do loops (formac's Loop_CUDA.h): a round's last kernel decides on the device
   whether another round runs, through the handles of the loop's graph. */
template <typename C>
static __global__ void formac_loop_after_odd(cudaGraphConditionalHandle hw, cudaGraphConditionalHandle hi,
                                             cudaGraphConditionalHandle hc, const C* cond, long long* rounds,
                                             long long R) {
  const long long r = ++*rounds;
  const unsigned go = *cond != 0 && r < R;
  cudaGraphSetConditional(hw, go);
  cudaGraphSetConditional(hi, go);
  cudaGraphSetConditional(hc, !go);
}
template <typename C>
static __global__ void formac_loop_after_even(cudaGraphConditionalHandle hw, const C* cond, long long* rounds,
                                              long long R) {
  const long long r = ++*rounds;
  cudaGraphSetConditional(hw, *cond != 0 && r < R);
}

/* A conditional node in g after `after` (NULL: none); its body graph in *body. */
static cudaError_t formac_add_conditional(cudaGraph_t g, const cudaGraphNode_t* after, cudaGraphConditionalHandle h,
                                          cudaGraphConditionalNodeType type, cudaGraphNode_t* node, cudaGraph_t* body) {
  cudaGraphNodeParams p = {cudaGraphNodeTypeConditional};
  p.conditional.handle = h;
  p.conditional.type = type;
  p.conditional.size = 1;
#if CUDART_VERSION >= 13000
  const cudaError_t e = cudaGraphAddNode(node, g, after, NULL, after ? 1 : 0, &p);
#else
  const cudaError_t e = cudaGraphAddNode(node, g, after, after ? 1 : 0, &p);
#endif
  if (e == cudaSuccess) *body = p.conditional.phGraph_out[0];
  return e;
}

/* What enqueue(stream) enqueues, captured on cs into a node of g after `after`. */
template <typename F>
static int formac_capture_node(cudaStream_t cs, cudaGraph_t g, const cudaGraphNode_t* after, cudaGraphNode_t* node,
                               F enqueue) {
  cudaGraph_t part = NULL;
  if (cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return 1;
  const int failed = enqueue(cs);
  cudaError_t e = cudaStreamEndCapture(cs, &part);
  if (!failed && e == cudaSuccess) e = cudaGraphAddChildGraphNode(node, g, after, after ? 1 : 0, part);
  if (part) cudaGraphDestroy(part);
  return failed || e != cudaSuccess;
}

/* The graph of a do loop: round(stream, from_a) enqueues one round, from the
   a buffers into the b buffers when from_a, else back; copy_back(stream) copies
   every b into its a. At most R rounds, while *cond != 0 after a round. */
template <typename C, typename Round, typename Copy>
static int formac_loop_graph(cudaGraphExec_t* exec, cudaStream_t cs, long long R, const C* cond, long long* rounds,
                             Round round, Copy copy_back) {
  cudaGraph_t g = NULL, loop_body = NULL, second_round = NULL, copy = NULL;
  cudaGraphConditionalHandle hw, hi, hc;
  cudaGraphNode_t w, i, c, first, n;
  int failed = 1;
  if (*exec) cudaGraphExecDestroy(*exec);
  *exec = NULL;
  if (cudaGraphCreate(&g, 0) != cudaSuccess) return 1;
  do {
    if (cudaGraphConditionalHandleCreate(&hw, g, R > 0 ? 1 : 0, cudaGraphCondAssignDefault) != cudaSuccess ||
        cudaGraphConditionalHandleCreate(&hi, g, 0, cudaGraphCondAssignDefault) != cudaSuccess ||
        cudaGraphConditionalHandleCreate(&hc, g, 0, cudaGraphCondAssignDefault) != cudaSuccess)
      break;
    if (formac_add_conditional(g, NULL, hw, cudaGraphCondTypeWhile, &w, &loop_body) != cudaSuccess) break;
    if (formac_capture_node(cs, loop_body, NULL, &first, [&](cudaStream_t s) {
          if (round(s, 1)) return 1;
          formac_loop_after_odd<C><<<1, 1, 0, s>>>(hw, hi, hc, cond, rounds, R);
          return (int)(cudaGetLastError() != cudaSuccess);
        }))
      break;
    if (formac_add_conditional(loop_body, &first, hi, cudaGraphCondTypeIf, &i, &second_round) != cudaSuccess) break;
    if (formac_capture_node(cs, second_round, NULL, &n, [&](cudaStream_t s) {
          if (round(s, 0)) return 1;
          formac_loop_after_even<C><<<1, 1, 0, s>>>(hw, cond, rounds, R);
          return (int)(cudaGetLastError() != cudaSuccess);
        }))
      break;
    if (formac_add_conditional(g, &w, hc, cudaGraphCondTypeIf, &c, &copy) != cudaSuccess) break;
    if (formac_capture_node(cs, copy, NULL, &n, copy_back)) break;
    failed = cudaGraphInstantiate(exec, g, 0) != cudaSuccess;
  } while (0);
  cudaGraphDestroy(g);
  if (failed) {
    fprintf(stderr, "formac: cannot build the CUDA graph of a do loop: %s\n", cudaGetErrorString(cudaGetLastError()));
    *exec = NULL;
  }
  return failed;
}

)";
}

std::string loopMembersCuda(const LoopCuda& l) {
  const ir::Loop& loop = loopOf(l);
  std::string t = "  struct " + l.name + "_workspace* " + member(l, "body") + ";  /* the body of the loop over '" +
                  loop.iterator + "' */\n";
  for (size_t j = 0; j < loop.carried.size(); ++j) {
    std::string T = cType(result(l, j).type), J = std::to_string(j);
    t += "  " + T + " *" + member(l, "a" + J) + ", *" + member(l, "b" + J) + ";  /* " + result(l, j).name +
         ": the rounds' images */\n";
  }
  t += "  " + conditionType(l) + "* " + member(l, "cond") + ";  /* the condition after a round */\n"
       "  long long* " + member(l, "rounds") + ";  /* the rounds run */\n"
       "  cudaStream_t " + member(l, "stream") + ";  /* where the graph is captured */\n"
       "  cudaGraphExec_t " + member(l, "exec") + ";\n";
  for (const auto& c : captured(l)) t += "  " + c.type + " " + c.member + ";  /* as the graph captured it */\n";
  return t;
}

std::string loopCreateCuda(const LoopCuda& l) {
  const ir::Loop& loop = loopOf(l);
  std::string t = "  ws->" + member(l, "body") + " = " + l.name + "_create(" + [&] {
    std::string a;
    for (const auto& prm : l.names->param) a += (a.empty() ? "" : ", ") + prm;
    return a;
  }() + ");\n  if (!ws->" + member(l, "body") + ") " + l.fail + "\n";
  auto alloc = [&](const std::string& what, const std::string& size) {
    t += "  FORMAC_CUDA_CHECK(cudaMalloc((void**)&" + ws(l, what) + ", " + size + " + 16), " + l.fail + ");\n";
  };
  for (size_t j = 0; j < loop.carried.size(); ++j) {
    alloc("a" + std::to_string(j), bytes(l, j));
    alloc("b" + std::to_string(j), bytes(l, j));
  }
  alloc("cond", "sizeof(" + conditionType(l) + ")");
  alloc("rounds", "sizeof(long long)");
  return t + "  FORMAC_CUDA_CHECK(cudaStreamCreateWithFlags(&" + ws(l, "stream") + ", cudaStreamNonBlocking), " +
         l.fail + ");\n";
}

std::string loopDestroyCuda(const LoopCuda& l) {
  std::string t = "  if (" + ws(l, "body") + ") " + l.name + "_destroy(" + ws(l, "body") + ");\n";
  for (size_t j = 0; j < loopOf(l).carried.size(); ++j)
    t += "  cudaFree(" + buffer(l, 'a', j) + ");\n  cudaFree(" + buffer(l, 'b', j) + ");\n";
  return t + "  cudaFree(" + ws(l, "cond") + ");\n  cudaFree(" + ws(l, "rounds") + ");\n"
         "  if (" + ws(l, "exec") + ") cudaGraphExecDestroy(" + ws(l, "exec") + ");\n"
         "  if (" + ws(l, "stream") + ") cudaStreamDestroy(" + ws(l, "stream") + ");\n";
}

std::string loopRoundsCuda(const LoopCuda& l) { return ws(l, "rounds"); }

std::string loopLaunchCuda(const LoopCuda& l) {
  const ir::Loop& loop = loopOf(l);
  const std::string in = "    ";
  std::string stale = "!" + ws(l, "exec");
  std::string remember;
  for (const auto& c : captured(l)) {
    stale += " || ws->" + c.member + " != " + c.value;
    remember += in + "  ws->" + c.member + " = " + c.value + ";\n";
  }
  std::string copyBack;
  for (size_t j = 0; j < loop.carried.size(); ++j)
    copyBack += in + "        FORMAC_CUDA_CHECK(cudaMemcpyAsync(" + buffer(l, 'a', j) + ", " + buffer(l, 'b', j) + ", " +
                bytes(l, j) + ", cudaMemcpyDeviceToDevice, s), return 1);\n";
  std::string t = "  { /* do " + loop.iterator + " (line " + std::to_string(loop.loc.line) +
                  "): the rounds as one CUDA graph; the device decides when they stop */\n" +
                  in + "const long long formac_rounds = " + ir::printSize(loop.rounds, l.names->param) + ";\n" +
                  in + "if (" + stale + ") {\n" + remember +
                  in + "  if (formac_loop_graph(&" + ws(l, "exec") + ", " + ws(l, "stream") + ", formac_rounds, " +
                  ws(l, "cond") + ", " + ws(l, "rounds") + ",\n" +
                  in + "      [&](cudaStream_t s, int from_a) { return " + roundCall(l) + "; },\n" +
                  in + "      [&](cudaStream_t s) {\n" + copyBack + in + "        return 0;\n" + in + "      }))\n" +
                  in + "    return 1;\n" + in + "}\n";
  for (size_t j = 0; j < loop.carried.size(); ++j)
    t += in + "FORMAC_CUDA_CHECK(cudaMemcpyAsync(" + buffer(l, 'a', j) + ", " + l.initial[j] + ", " + bytes(l, j) +
         ", cudaMemcpyDeviceToDevice, stream), return 1);\n";
  t += in + "FORMAC_CUDA_CHECK(cudaMemsetAsync(" + ws(l, "rounds") + ", 0, sizeof(long long), stream), return 1);\n" +
       in + "FORMAC_CUDA_CHECK(cudaGraphLaunch(" + ws(l, "exec") + ", stream), return 1);\n";
  for (size_t j = 0; j < loop.carried.size(); ++j)
    t += in + "FORMAC_CUDA_CHECK(cudaMemcpyAsync(" + l.results[j] + ", " + buffer(l, 'a', j) + ", " + bytes(l, j) +
         ", cudaMemcpyDeviceToDevice, stream), return 1);\n";
  return t + "  }\n";
}

}  // namespace formac::codegen
