#include "codegen/Loop_CUDA.h"

#include <algorithm>
#include <set>

#include "codegen/ExprPrinter.h"
#include "codegen/Settle_CUDA.h"
#include "codegen/StageFacts.h"
#include "codegen/Stmt.h"
#include "ir/Edges.h"
#include "support/Diagnostics.h"

namespace formac::codegen {
namespace {

const ir::Loop& loopOf(const LoopCuda& l) { return *l.first->loop; }
const ir::Stage& outerStage(const LoopCuda& l, int id) { return l.pipeline->stages[static_cast<size_t>(id)]; }
// The loop's j-th result (LoopResult stages are consecutive).
const ir::Stage& result(const LoopCuda& l, size_t j) { return outerStage(l, l.first->id + static_cast<int>(j)); }
std::string member(const ir::Stage& first, const std::string& what) {
  return "formac_loop" + std::to_string(first.id) + "_" + what;
}
std::string member(const LoopCuda& l, const std::string& what) { return member(*l.first, what); }
std::string ws(const LoopCuda& l, const std::string& what) { return "ws->" + member(l, what); }
std::string buffer(const LoopCuda& l, char which, size_t j) { return ws(l, std::string(1, which) + std::to_string(j)); }
// The buffer that holds carried image j after the graph (`rounds`: the
// rounds' limit, as printed): b when the loop settles (R > 1), else a.
std::string lastBuffer(const ir::Stage& first, size_t j, bool settles, const std::string& rounds) {
  if (!settles) return loopBufferCuda(first, j);
  return "(" + rounds + " > 1 ? ws->" + member(first, "b" + std::to_string(j)) + " : " + loopBufferCuda(first, j) + ")";
}
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

// The settling kernel's grid: a block per tile (at least one, so that the
// graph's capture never launches an empty grid).
std::string tilesAlong(const LoopCuda& l, int d) {
  const std::string e = "(" + ir::printSize(result(l, 0).extent[static_cast<size_t>(d)], l.names->param) + ")";
  return "(" + e + " > 0 ? (" + e + " + " + std::to_string(kSettleTile - 1) + ") / " + std::to_string(kSettleTile) + " : 1)";
}
std::string markBytes(const LoopCuda& l) { return "2 * (size_t)" + tilesAlong(l, 0) + " * (size_t)" + tilesAlong(l, 1); }

// The settling pass's launch (Settle_CUDA.h) on stream s: round 1 wrote b0
// from a0, which still holds the image before it.
Stmt settlePass(const LoopCuda& l) {
  FORMAC_INTERNAL_CHECK(l.settleKernel, "a settled loop without its kernel");
  const SettleCuda& k = *l.settleKernel;
  std::string args = buffer(l, 'b', 0) + (l.settle->selective ? ", " + buffer(l, 'a', 0) : std::string());
  std::vector<std::string> params;
  for (const auto& p : l.names->param) params.push_back("(long long)" + p);
  for (const auto& a : k.takes.arguments(l.reads, l.names->scalar, params)) args += ", " + a;
  const std::string grid = "<<<dim3((unsigned)" + tilesAlong(l, 1) + ", (unsigned)" + tilesAlong(l, 0) + "), " +
                           std::to_string(kSettleThreads) + ", 0, s>>>(";
  const std::string state = ", " + ws(l, "settle") + ", " + ws(l, "marks") + ")";
  const std::string extents = "(long long)(" + ir::printSize(result(l, 0).extent[0], l.names->param) + "), (long long)(" +
                              ir::printSize(result(l, 0).extent[1], l.names->param) + ")";
  return ifThen("first",
                {eval("formac_settle_measure" + grid + buffer(l, 'b', 0) + ", " + buffer(l, 'a', 0) + ", " + extents + ", " +
                      std::to_string(l.settle->radius) + ", " + (l.settle->selective ? "1" : "0") + state)},
                {eval(l.name + "_settle" + grid + args + state)});
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

/* Adds to g, after `after`, the rounds of a do loop: round(stream, from_a)
   enqueues one round, from the a buffers into the b buffers when from_a, else
   back; copy_back(stream) copies every b into its a. At most R rounds while hw
   (its value at launch) and *cond != 0 after a round. *last: the graph's last
   node (the copy's). */
template <typename C, typename Round, typename Copy>
static int formac_loop_add_rounds(cudaStream_t cs, cudaGraph_t g, const cudaGraphNode_t* after, cudaGraphConditionalHandle hw,
                                  long long R, const C* cond, long long* rounds, Round round, Copy copy_back,
                                  cudaGraphNode_t* last = NULL) {
  cudaGraph_t loop_body = NULL, second_round = NULL, copy = NULL;
  cudaGraphConditionalHandle hi, hc;
  cudaGraphNode_t w, i, c, first, n;
  if (cudaGraphConditionalHandleCreate(&hi, g, 0, cudaGraphCondAssignDefault) != cudaSuccess ||
      cudaGraphConditionalHandleCreate(&hc, g, 0, cudaGraphCondAssignDefault) != cudaSuccess)
    return 1;
  if (formac_add_conditional(g, after, hw, cudaGraphCondTypeWhile, &w, &loop_body) != cudaSuccess) return 1;
  if (formac_capture_node(cs, loop_body, NULL, &first, [&](cudaStream_t s) {
        if (round(s, 1)) return 1;
        formac_loop_after_odd<C><<<1, 1, 0, s>>>(hw, hi, hc, cond, rounds, R);
        return (int)(cudaGetLastError() != cudaSuccess);
      }))
    return 1;
  if (formac_add_conditional(loop_body, &first, hi, cudaGraphCondTypeIf, &i, &second_round) != cudaSuccess) return 1;
  if (formac_capture_node(cs, second_round, NULL, &n, [&](cudaStream_t s) {
        if (round(s, 0)) return 1;
        formac_loop_after_even<C><<<1, 1, 0, s>>>(hw, cond, rounds, R);
        return (int)(cudaGetLastError() != cudaSuccess);
      }))
    return 1;
  if (formac_add_conditional(g, &w, hc, cudaGraphCondTypeIf, &c, &copy) != cudaSuccess) return 1;
  if (last) *last = c;
  return formac_capture_node(cs, copy, NULL, &n, copy_back);
}

static int formac_loop_instantiate(cudaGraphExec_t* exec, cudaGraph_t g, int failed) {
  if (!failed) failed = cudaGraphInstantiate(exec, g, 0) != cudaSuccess;
  cudaGraphDestroy(g);
  if (failed) {
    fprintf(stderr, "formac: cannot build the CUDA graph of a do loop: %s\n", cudaGetErrorString(cudaGetLastError()));
    *exec = NULL;
  }
  return failed;
}

/* The graph of a do loop: its rounds (formac_loop_add_rounds), while R > 0. */
template <typename C, typename Round, typename Copy>
static int formac_loop_graph(cudaGraphExec_t* exec, cudaStream_t cs, long long R, const C* cond, long long* rounds,
                             Round round, Copy copy_back) {
  cudaGraph_t g = NULL;
  cudaGraphConditionalHandle hw;
  if (*exec) cudaGraphExecDestroy(*exec);
  *exec = NULL;
  if (cudaGraphCreate(&g, 0) != cudaSuccess) return 1;
  const int failed = cudaGraphConditionalHandleCreate(&hw, g, R > 0 ? 1 : 0, cudaGraphCondAssignDefault) != cudaSuccess ||
                     formac_loop_add_rounds(cs, g, NULL, hw, R, cond, rounds, round, copy_back);
  return formac_loop_instantiate(exec, g, failed);
}

)";
}

std::string settlePreludeCuda() {
  return "#define FORMAC_SETTLE_TILE " + std::to_string(kSettleTile) + "  /* Settle_CUDA.h */\n" + R"(/* Settling a monotone propagation (Settle_CUDA.h; R > 1): round 1 from a into
   b; pass(s, 1) measures it (formac_settle_measure), then passes pass(s, 0)
   settle b in place while a tile changes; then b is the result, or, when round 1 moved points
   both ways or the changes add up to more than R, the rounds run one by one
   from a as formac_loop_graph runs them and their result is copied into b. */
struct formac_settle_state {
  unsigned long long moved; /* the sum of |changes| since the image before round 1 */
  int dir;                  /* 1: a point rose, 2: a point fell */
  int changed;              /* a tile changed in this pass */
  int parity;               /* the half of the marks this pass reads */
  int fallback;             /* run the rounds one by one */
};
/* Which sides of its tile a change at (y, x) is within the reach r of:
   1 top, 2 bottom, 4 left, 8 right (the neighbours there read it). */
static __device__ __forceinline__ unsigned formac_settle_sides(int y, int x, int r) {
  return (y < r) | (y >= FORMAC_SETTLE_TILE - r) << 1 | (x < r) << 2 | (x >= FORMAC_SETTLE_TILE - r) << 3;
}
/* Marks, for the next pass, the neighbours of this block's tile whose halo
   holds a change (`sides`), and the tile itself when `self`. Threads 0-8. */
static __device__ __forceinline__ void formac_settle_mark(unsigned char* marks, unsigned sides, int self) {
  if (threadIdx.x >= 9) return;
  const int dy = (int)threadIdx.x / 3 - 1, dx = (int)threadIdx.x % 3 - 1;
  const long long ty = (long long)blockIdx.y + dy, tx = (long long)blockIdx.x + dx;
  const bool reads = (dy || dx) && (dy != -1 || (sides & 1)) && (dy != 1 || (sides & 2)) && (dx != -1 || (sides & 4)) &&
                     (dx != 1 || (sides & 8));
  if (ty >= 0 && ty < gridDim.y && tx >= 0 && tx < gridDim.x && (reads || (!dy && !dx && self)))
    marks[ty * gridDim.x + tx] = 1;
}
/* Round 1's changes, a FORMAC_SETTLE_TILE x FORMAC_SETTLE_TILE tile a block: their direction and size (`count`:
   the points changed, else the sum of |changes|) into
   the state, and marks for the first pass on the tiles whose points may
   change next (the tile, and those around it whose halo changed). */
template <typename T>
static __global__ void __launch_bounds__(256) formac_settle_measure(const T* x, const T* x0, long long rows, long long cols,
                                                                    int r, int count, struct formac_settle_state* st,
                                                                    unsigned char* marks) {
  __shared__ unsigned long long moved;
  __shared__ int dir;
  if (threadIdx.x == 0) moved = 0, dir = 0;
  __syncthreads();
  /* A thread compares 16 bytes of a row (V points) of both images: fewer bytes a load leave
     the memory idle (one byte a thread took 148 us for two 8192² images on an H100). */
  enum { V = sizeof(T) < 16 ? 16 / sizeof(T) : 1, SEGS = FORMAC_SETTLE_TILE / V, ROWS = 256 / SEGS };
  const int seg = (int)threadIdx.x % SEGS, k0 = (int)threadIdx.x / SEGS;
  const long long i0 = (long long)blockIdx.y * FORMAC_SETTLE_TILE,
                  j = (long long)blockIdx.x * FORMAC_SETTLE_TILE + seg * V;
  const bool vec = V > 1 && cols * (long long)sizeof(T) % 16 == 0 && (unsigned long long)x % 16 == 0 &&
                   (unsigned long long)x0 % 16 == 0;
  unsigned long long m = 0;
  int d = 0;
  unsigned sides = 0;
#pragma unroll
  for (int u = 0; u < FORMAC_SETTLE_TILE / ROWS; ++u) {
    const int k = k0 + u * ROWS;
    if (j < cols && i0 + k < rows) {
      union { uint4 w; T t[V]; } a, b;
      const long long at = (i0 + k) * cols + j;
      if (vec && j + V <= cols) {
        a.w = *(const uint4*)(x0 + at);
        b.w = *(const uint4*)(x + at);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) {
          a.t[e] = j + e < cols ? x0[at + e] : (T)0;
          b.t[e] = j + e < cols ? x[at + e] : (T)0;
        }
      }
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (a.t[e] != b.t[e]) {
          d |= b.t[e] > a.t[e] ? 1 : 2;
          sides |= formac_settle_sides(k, seg * V + e, r);
          m += count ? 1 : b.t[e] > a.t[e] ? (unsigned long long)b.t[e] - (unsigned long long)a.t[e]
                                           : (unsigned long long)a.t[e] - (unsigned long long)b.t[e];
        }
    }
  }
  if (m) atomicAdd(&moved, m);
  if (d) atomicOr(&dir, d);
  sides = __syncthreads_or(sides & 1) | __syncthreads_or(sides & 2) << 1 | __syncthreads_or(sides & 4) << 2 |
          __syncthreads_or(sides & 8) << 3;
  if (!dir) return;
  if (threadIdx.x == 0) {
    atomicAdd(&st->moved, moved);
    atomicOr(&st->dir, dir);
  }
  formac_settle_mark(marks, sides, 1);  /* and the tile: its points read each other */
}
template <typename C>
static __global__ void formac_settle_begin(cudaGraphConditionalHandle hp, const C* cond, struct formac_settle_state* st,
                                           long long* rounds) {
  *rounds = 1;
  st->moved = 0;
  st->dir = st->changed = st->parity = st->fallback = 0;
  cudaGraphSetConditional(hp, *cond != 0);
}
static __global__ void formac_settle_after(cudaGraphConditionalHandle hp, struct formac_settle_state* st, long long* rounds,
                                           long long R) {
  ++*rounds;
  st->parity ^= 1;
  st->fallback = st->dir == 3 || st->moved > (unsigned long long)R;
  cudaGraphSetConditional(hp, !st->fallback && st->changed);
  st->changed = 0;
}
static __global__ void formac_settle_end(cudaGraphConditionalHandle hw, cudaGraphConditionalHandle hf,
                                         struct formac_settle_state* st, long long* rounds) {
  if (st->fallback) *rounds = 0;
  cudaGraphSetConditional(hw, st->fallback);
  cudaGraphSetConditional(hf, st->fallback);
}
template <typename C, typename Round, typename Pass, typename Copy, typename Forward>
static int formac_settle_graph(cudaGraphExec_t* exec, cudaStream_t cs, long long R, const C* cond, long long* rounds,
                               struct formac_settle_state* st, void* marks, size_t mark_bytes, Round round, Pass pass,
                               Copy copy_back, Forward copy_forward) {
  cudaGraph_t g = NULL, passes = NULL, copy = NULL;
  cudaGraphConditionalHandle hp, hf, hw;
  cudaGraphNode_t start, p, end, last, f, n;
  int failed = 1;
  if (*exec) cudaGraphExecDestroy(*exec);
  *exec = NULL;
  if (cudaGraphCreate(&g, 0) != cudaSuccess) return 1;
  do {
    if (cudaGraphConditionalHandleCreate(&hp, g, 0, cudaGraphCondAssignDefault) != cudaSuccess ||
        cudaGraphConditionalHandleCreate(&hf, g, 0, cudaGraphCondAssignDefault) != cudaSuccess ||
        cudaGraphConditionalHandleCreate(&hw, g, 0, cudaGraphCondAssignDefault) != cudaSuccess)
      break;
    if (formac_capture_node(cs, g, NULL, &start, [&](cudaStream_t s) {
          if (round(s, 1) || cudaMemsetAsync(marks, 0, mark_bytes, s) != cudaSuccess) return 1;
          formac_settle_begin<C><<<1, 1, 0, s>>>(hp, cond, st, rounds);
          return (int)(cudaGetLastError() != cudaSuccess || pass(s, 1));
        }))
      break;
    if (formac_add_conditional(g, &start, hp, cudaGraphCondTypeWhile, &p, &passes) != cudaSuccess) break;
    if (formac_capture_node(cs, passes, NULL, &n, [&](cudaStream_t s) {
          if (pass(s, 0)) return 1;
          formac_settle_after<<<1, 1, 0, s>>>(hp, st, rounds, R);
          return (int)(cudaGetLastError() != cudaSuccess);
        }))
      break;
    if (formac_capture_node(cs, g, &p, &end, [&](cudaStream_t s) {
          formac_settle_end<<<1, 1, 0, s>>>(hw, hf, st, rounds);
          return (int)(cudaGetLastError() != cudaSuccess);
        }))
      break;
    /* settled: the result is in b; else the rounds from a, whose result (in a) is copied into b */
    if (formac_loop_add_rounds(cs, g, &end, hw, R, cond, rounds, round, copy_back, &last)) break;
    if (formac_add_conditional(g, &last, hf, cudaGraphCondTypeIf, &f, &copy) != cudaSuccess) break;
    failed = formac_capture_node(cs, copy, NULL, &n, copy_forward);
  } while (0);
  return formac_loop_instantiate(exec, g, failed);
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
  if (l.settle)
    t += "  struct formac_settle_state* " + member(l, "settle") + ";  /* settling its propagation (Settle_CUDA.h) */\n"
         "  unsigned char* " + member(l, "marks") + ";  /* the tiles each pass takes, two halves */\n";
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
  if (l.settle) {
    alloc("settle", "sizeof(struct formac_settle_state)");
    alloc("marks", markBytes(l));
  }
  alloc("rounds", "sizeof(long long)");
  return t + "  FORMAC_CUDA_CHECK(cudaStreamCreateWithFlags(&" + ws(l, "stream") + ", cudaStreamNonBlocking), " +
         l.fail + ");\n";
}

std::string loopDestroyCuda(const LoopCuda& l) {
  std::string t = "  if (" + ws(l, "body") + ") " + l.name + "_destroy(" + ws(l, "body") + ");\n";
  for (size_t j = 0; j < loopOf(l).carried.size(); ++j)
    t += "  cudaFree(" + buffer(l, 'a', j) + ");\n  cudaFree(" + buffer(l, 'b', j) + ");\n";
  if (l.settle) t += "  cudaFree(" + ws(l, "settle") + ");\n  cudaFree(" + ws(l, "marks") + ");\n";
  return t + "  cudaFree(" + ws(l, "cond") + ");\n  cudaFree(" + ws(l, "rounds") + ");\n"
         "  if (" + ws(l, "exec") + ") cudaGraphExecDestroy(" + ws(l, "exec") + ");\n"
         "  if (" + ws(l, "stream") + ") cudaStreamDestroy(" + ws(l, "stream") + ");\n";
}

std::string loopRoundsCuda(const LoopCuda& l) { return ws(l, "rounds"); }

std::string loopBufferCuda(const ir::Stage& first, size_t j) { return "ws->" + member(first, "a" + std::to_string(j)); }

std::string loopResultBufferCuda(const ir::Stage& first, size_t j, bool settles, const std::vector<std::string>& params) {
  return lastBuffer(first, j, settles, ir::printSize(first.loop->rounds, params));
}

LoopInPlace loopInPlaceCuda(const ir::Pipeline& p, const ir::Stage& first) {
  const ir::Loop& loop = *first.loop;
  const size_t n = loop.carried.size();
  LoopInPlace r{std::vector<int>(n, -1), std::vector<int>(n, -1)};
  const std::vector<ir::Edge> edges = ir::collectEdges(p);
  auto isOutput = [&](int id) { return std::find(p.outputs.begin(), p.outputs.end(), id) != p.outputs.end(); };
  auto ownLoop = [&](int id) { return id >= first.id && id < first.id + static_cast<int>(n); };
  for (size_t j = 0; j < n; ++j) {
    const int x = loop.carried[j].outer;
    const ir::Stage& s = p.stages[static_cast<size_t>(x)];
    bool alone = s.kind == ir::Stage::Computed && !isOutput(x) && coversExtent(p, s);
    for (const auto& e : edges) alone = alone && (e.producer != x || ownLoop(e.consumer));
    for (const auto& b : loop.reads) alone = alone && b.outer != x;
    for (size_t k = 0; k < n; ++k) alone = alone && (k == j || loop.carried[k].outer != x);
    if (alone) r.initial[j] = x;
    if (ownedOutput(p, first.id + static_cast<int>(j)) < 0) r.result[j] = first.id + static_cast<int>(j);
  }
  return r;
}

Stmt loopLaunchCuda(const LoopCuda& l) {
  const ir::Loop& loop = loopOf(l);
  const StmtPrinter& pr = printerFor(true);
  const std::string in = "          ";  // the lambdas' indentation, in the graph builder's arguments
  std::string stale = "!" + ws(l, "exec");
  std::vector<Stmt> rebuild;
  for (const auto& c : captured(l)) {
    stale += " || ws->" + c.member + " != " + c.value;
    rebuild.push_back(assign("ws->" + c.member, c.value));
  }
  const Param stream{"cudaStream_t", "s"};
  // copy(stream): every carried image's buffer `from` into its `to`.
  auto copier = [&](char from, char to) {
    std::vector<Stmt> t;
    for (size_t j = 0; j < loop.carried.size(); ++j)
      t.push_back(eval("FORMAC_CUDA_CHECK(cudaMemcpyAsync(" + buffer(l, to, j) + ", " + buffer(l, from, j) + ", " +
                       bytes(l, j) + ", cudaMemcpyDeviceToDevice, s), return 1)"));
    t.push_back(eval("return 0"));
    return pr.lambdaExpr({stream}, t, in);
  };
  const std::string round = pr.lambdaExpr({stream, {"int", "from_a"}}, {eval("return " + roundCall(l))}, in);
  const std::string copy = copier('b', 'a'), forward = copier('a', 'b');
  const std::string plain = "formac_loop_graph(&" + ws(l, "exec") + ", " + ws(l, "stream") + ", formac_rounds, " +
                            ws(l, "cond") + ", " + ws(l, "rounds") + ", " + round + ", " + copy + ")";
  std::string graph = plain;
  if (l.settle) {  // a monotone propagation settles after round 1 (Settle_CUDA.h)
    const std::string pass = pr.lambdaExpr(
        {stream, {"int", "first"}}, {settlePass(l), eval("return (int)(cudaGetLastError() != cudaSuccess)")}, in);
    graph = "formac_rounds > 1 ? formac_settle_graph(&" + ws(l, "exec") + ", " + ws(l, "stream") + ", formac_rounds, " +
            ws(l, "cond") + ", " + ws(l, "rounds") + ", " + ws(l, "settle") + ", " + ws(l, "marks") + ", " +
            markBytes(l) + ", " + round + ", " + pass + ", " + copy + ", " + forward + ") : " + plain;
  }
  rebuild.push_back(ifThen(graph, {eval("return 1")}));
  std::vector<Stmt> t = {decl("long long", "formac_rounds", ir::printSize(loop.rounds, l.names->param)),
                         ifThen(stale, rebuild)};
  // An image that is the loop's buffer itself (loopInPlaceCuda) needs no copy.
  for (size_t j = 0; j < loop.carried.size(); ++j)
    if (!l.initialInPlace.at(j))
      t.push_back(eval("FORMAC_CUDA_CHECK(cudaMemcpyAsync(" + buffer(l, 'a', j) + ", " + l.initial[j] + ", " + bytes(l, j) +
                       ", cudaMemcpyDeviceToDevice, stream), return 1)"));
  t.push_back(eval("FORMAC_CUDA_CHECK(cudaMemsetAsync(" + ws(l, "rounds") + ", 0, sizeof(long long), stream), return 1)"));
  t.push_back(eval("FORMAC_CUDA_CHECK(cudaGraphLaunch(" + ws(l, "exec") + ", stream), return 1)"));
  for (size_t j = 0; j < loop.carried.size(); ++j)
    if (!l.resultInPlace.at(j))
      t.push_back(eval("FORMAC_CUDA_CHECK(cudaMemcpyAsync(" + l.results[j] + ", " +
                       lastBuffer(*l.first, j, l.settle != nullptr, "formac_rounds") + ", " + bytes(l, j) +
                       ", cudaMemcpyDeviceToDevice, stream), return 1)"));
  return block(t, "do " + loop.iterator + " (line " + std::to_string(loop.loc.line) +
                      "): the rounds as one CUDA graph; the device decides when they stop");
}

}  // namespace formac::codegen
