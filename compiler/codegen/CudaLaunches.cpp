#include "codegen/CudaLaunches.h"

#include <iterator>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedKernel_CUDA.h"
#include "codegen/Reduce_C.h"
#include "codegen/StageFacts.h"
#include "codegen/StageKernel_CUDA.h"
#include "passes/KernelEpilogue.h"

namespace formac::codegen {
namespace {

constexpr int kThreads = kCudaThreads;

const ir::Stage& stageOf(const CudaProgram& c, int id) { return c.pipeline->stages.at(static_cast<size_t>(id)); }
const std::string& nameOf(const CudaProgram& c, int id) { return c.names->stage.at(static_cast<size_t>(id)); }

// A kernel's images and scalars, as its launch passes them.
std::vector<HostArg> inputsOf(const CudaProgram& c, const std::vector<int>& stages) {
  std::vector<HostArg> a;
  for (int id : producersOf(*c.pipeline, stages)) a.push_back({HostArg::Stage, id, {}, ""});
  for (int i : scalarsOf(*c.pipeline, stages)) a.push_back({HostArg::Scalar, i, {}, ""});
  return a;
}
// A kernel's arguments: the stages it reads, its scalars, its sink, the parameters.
std::vector<HostArg> argsOf(const CudaProgram& c, const std::vector<int>& stages, int sink) {
  std::vector<HostArg> a = inputsOf(c, stages);
  a.push_back({HostArg::Stage, sink, {}, ""});
  for (size_t i = 0; i < c.names->param.size(); ++i) a.push_back({HostArg::Param, static_cast<int>(i), {}, ""});
  return a;
}

int scratch(LaunchSchedule& sc, HostScratch b) {
  sc.scratch.push_back(std::move(b));
  return static_cast<int>(sc.scratch.size()) - 1;
}

HostExpr positive(const HostExpr& e) { return hop(HostExpr::Less, {hc(0), e}); }
HostExpr both(HostExpr a, HostExpr b) { return hop(HostExpr::And, {std::move(a), std::move(b)}); }

// A group of another rank than 2: blocks of kThreads that take the tiles
// in turn, min(tiles, 2^30) of them.
HostStep fusedScheduleND(const CudaProgram& c, const passes::FusionGroup& g, const HostKernel& k,
                         LaunchSchedule& sc) {
  const ir::Stage& s = stageOf(c, g.sink);
  int tiles = sc.value("tiles");
  HostExpr count = hc(1);
  for (size_t d = 0; d < g.tile.size(); ++d) count = count * ceilDiv(hsize(s.extent[d]), g.tile[d]);
  HostStep l = hlaunch(sc.kernel(k), hmin(hval(tiles), hc(1LL << 30)), argsOf(c, cudaGroupStages(g), g.sink), kThreads);
  return hblock(k.name, {hvar(tiles, count), hif(positive(hval(tiles)), {l})});
}

// A tiled group (fused, or a stencil tiled alone): rank 2, one block of
// 32 x 8 threads per tile of {rows, cols}; other ranks, fusedScheduleND.
HostStep fusedSchedule(const CudaProgram& c, const passes::FusionGroup& g, LaunchSchedule& sc) {
  HostKernel k;
  k.name = cudaFusedName(c, g);
  k.sharedBytes = fusedSharedBytes(*c.pipeline, g);
  if (cudaHasTightForm(g)) k.tightBlocks.assign(std::begin(kTightBlocks), std::end(kTightBlocks));
  if (g.tile.size() != 2) return fusedScheduleND(c, g, k, sc);
  const ir::Stage& s = stageOf(c, g.sink);
  int rows = sc.value("rows"), cols = sc.value("cols");
  std::vector<HostArg> args = argsOf(c, cudaGroupStages(g), g.sink);
  std::vector<HostStep> steps = {hvar(rows, hsize(s.extent[0])), hvar(cols, hsize(s.extent[1]))};
  if (g.epilogue >= 0) {  // the sink counted into a histogram (KernelEpilogue.h), whose counts start at 0
    HostArg counts{HostArg::Stage, g.epilogue, {}, "unsigned long long*"};
    for (auto& a : args)
      if (a.kind == HostArg::Stage && a.index == g.sink) a = counts;
    steps.push_back(hmemset(counts, hc(8 * stageOf(c, g.epilogue).reduction.bins)));
  }
  HostStep l = hlaunch(sc.kernel(k), ceilDiv(hval(cols), g.tile[1]), args, 32);
  l.grid[1] = ceilDiv(hval(rows), g.tile[0]);
  if (g.epilogue >= 0) {  // a block takes tiles in turn, 8 blocks a multiprocessor at most
    l.grid[0] = hmin(l.grid[0] * l.grid[1], hc(8) * hmax(hop(HostExpr::Sms, {}), hc(1)));
    l.grid[1] = hc(1);
  }
  l.block[1] = hc(kThreads / 32);
  steps.push_back(hif(both(positive(hval(rows)), positive(hval(cols))), {l}));
  return hblock(k.name, std::move(steps));
}

// The first and last lattice index q of a piece along d that the stage
// computes (LoopNest's pieceFirstIndex and pieceLastIndex).
HostExpr pieceFirst(const ir::Piece& pc, size_t d) {
  const ir::PieceAxis& a = pc.axes[d];
  long long start;
  HostExpr lo = hsize(pc.validLo[d]);
  if (ir::isConst(a.start, &start) && start >= 0) return lo;
  return hmax(lo, hop(HostExpr::CeilDiv, {hc(0) - hsize(a.start), hc(a.step)}));  // p = start + step*q >= 0
}
HostExpr pieceLast(const CudaProgram& c, const ir::Stage& s, const ir::Piece& pc, size_t d) {
  const ir::PieceAxis& a = pc.axes[d];
  long long start;
  HostExpr hi = hsize(pc.validHi[d]);
  int np = static_cast<int>(c.pipeline->params.size());
  if (ir::isConst(a.start, &start) && start == 0 && a.step == 1 && ir::sameSize(a.count, s.extent[d], np)) return hi;
  // q < count and p = start + step*q < extent
  return hmin(hmin(hi, hsize(a.count) - hc(1)),
              hop(HostExpr::FloorDiv, {hsize(s.extent[d]) - hc(1) - hsize(a.start), hc(a.step)}));
}

// An unfused stage: a launch per piece over the piece's box, or one over
// the union of the boxes for a lattice composite (StageKernel_CUDA.h) (nx,
// ny, nz: the last dimension, the one before, the others flattened; V:
// stagePointsPerThread): rank 1: blocks of 256, min(ceil(nx / (256 V)), 2^30)
// of them; rank >= 2: blocks of 32 x 8, grid (min(ceil(nx / (32 V)), 2^30),
// min(ceil(ny / 8), 65535), min(nz, 65535)); the kernels' loops stride over
// the rest.
HostStep stageSchedule(const CudaProgram& c, int sid, LaunchSchedule& sc) {
  const ir::Stage& s = stageOf(c, sid);
  size_t r = s.extent.size();
  const bool lattice = latticeComposite(s);
  std::vector<HostStep> t;
  for (size_t piece = 0; piece < (lattice ? 1 : s.pieces.size()); ++piece) {
    const ir::Piece& pc = s.pieces[piece];
    std::vector<HostStep> box;
    std::vector<int> lo, hi;
    for (size_t d = 0; d < r; ++d) {
      lo.push_back(sc.value("lo" + std::to_string(d)));
      hi.push_back(sc.value("hi" + std::to_string(d)));
      HostExpr first = pieceFirst(pc, d), last = pieceLast(c, s, pc, d);
      for (size_t k = 1; lattice && k < s.pieces.size(); ++k) {
        first = hmin(first, pieceFirst(s.pieces[k], d));
        last = hmax(last, pieceLast(c, s, s.pieces[k], d));
      }
      box.push_back(hvar(lo.back(), first));
      box.push_back(hvar(hi.back(), last));
    }
    auto count = [&](size_t d) { return hval(hi[d]) - hval(lo[d]) + hc(1); };
    int nx = sc.value("nx"), ny = sc.value("ny"), nz = sc.value("nz");
    HostExpr outer = hc(1);
    for (size_t d = 0; d + 2 < r; ++d) outer = outer * count(d);
    box.push_back(hvar(nx, count(r - 1)));
    box.push_back(hvar(ny, r >= 2 ? count(r - 2) : hc(1)));
    box.push_back(hvar(nz, outer));
    HostKernel k;
    k.name = cudaStageKernelName(c, sid, piece);
    int bx = r == 1 ? kThreads : 32, by = r == 1 ? 1 : kThreads / 32;
    HostStep l = hlaunch(sc.kernel(k), hmin(ceilDiv(hval(nx), bx * stagePointsPerThread(*c.pipeline, sid)), hc(1LL << 30)),
                         argsOf(c, {sid}, sid), bx);
    l.block[1] = hc(by);
    l.grid[1] = hmin(ceilDiv(hval(ny), by), hc(65535));
    l.grid[2] = hmin(hval(nz), hc(65535));
    box.push_back(hif(both(both(positive(hval(nx)), positive(hval(ny))), positive(hval(nz))), {l}));
    t.push_back(hblock("", std::move(box)));
  }
  return hblock(nameOf(c, sid), std::move(t));
}

}  // namespace

std::string cudaFusedName(const CudaProgram& c, const passes::FusionGroup& g) {
  return c.kernel + "_fused" + std::to_string(g.sink) + "_" + nameOf(c, g.sink);
}
std::string cudaStageKernelName(const CudaProgram& c, int sink, size_t piece) {
  return c.kernel + "_stage" + std::to_string(sink) + "_" + nameOf(c, sink) + "_p" + std::to_string(piece);
}
std::vector<int> cudaGroupStages(const passes::FusionGroup& g) {
  std::vector<int> ids;
  for (const auto& m : g.members) ids.push_back(m.stage);
  ids.push_back(g.sink);
  return ids;
}
bool cudaHasTightForm(const passes::FusionGroup& g) {
  return g.tiledKernel() && !g.onePass && !g.compact && g.tile.size() == 2;
}

ReduceCuda cudaReduceRequest(const CudaProgram& c, int sid, LaunchSchedule* sc) {
  const ir::Pipeline& p = *c.pipeline;
  ReduceCuda r;
  r.pipeline = &p;
  r.stage = &stageOf(c, sid);
  r.names = c.names;
  r.name = c.kernel + "_stage" + std::to_string(sid) + "_" + nameOf(c, sid);
  for (int id : producersOf(p, {sid})) r.inputParams.push_back({cType(stageOf(c, id).type), nameOf(c, id), true, true});
  for (int i : scalarsOf(p, {sid})) {
    const size_t k = static_cast<size_t>(i);
    r.inputParams.push_back({scalarCType(p.scalars[k].type), c.names->scalar[k], false, true});
  }
  r.inputs = inputsOf(c, {sid});
  if (sc && r.stage->kind == ir::Stage::Reduce)
    r.partials = scratch(*sc, {"formac_partials" + std::to_string(sid), reducePartialType(*r.stage),
                               reducePartialBytesCuda(*r.stage), reduceScratchCuda(*r.stage), "its chunks' partials"});
  return r;
}

// The scratch of a scan: the values between a sat's passes, the published
// groups (with their flags) and the tile counter.
ScanCuda cudaScanRequest(const CudaProgram& c, int sid, LaunchSchedule* sc) {
  ReduceCuda r = cudaReduceRequest(c, sid, nullptr);  // the same inputs and naming
  ScanCuda k;
  k.pipeline = c.pipeline;
  k.stage = r.stage;
  k.names = c.names;
  k.name = r.name;
  k.inputParams = r.inputParams;
  k.inputs = r.inputs;
  if (!sc) return k;
  const ir::Stage& s = *r.stage;
  std::string A = scanAccumulationType(s), S = std::to_string(sid);
  HostExpr groups = scanGroupCountCuda(s);
  if (scanNeedsValues(s))
    k.values = scratch(*sc, {"formac_scan_values" + S, A, 8, scanPointsCuda(s), "its values between passes"});
  k.groups = scratch(*sc, {"formac_scan_groups" + S, A, 8, hc(2) * groups, "the groups its tiles publish, with their flags"});
  k.counter = scratch(*sc, {"formac_scan_counter" + S, "unsigned long long", 8, hc(1), "its tile counter"});
  return k;
}

LaunchSchedule cudaLaunchSchedule(const CudaProgram& c) {
  LaunchSchedule sc;
  for (const auto& g : *c.groups) {
    const ir::Stage& s = stageOf(c, g.sink);
    if (g.tiledKernel()) {
      sc.steps.push_back(fusedSchedule(c, g, sc));
    } else if (s.kind == ir::Stage::Reduce) {
      if (passes::epilogueGroupOf(*c.groups, g.sink)) continue;  // counted by that group's kernel
      sc.indexedPoints.push_back(reduceDomainPoints(s));
      sc.steps.push_back(scheduleReduceCuda(cudaReduceRequest(c, g.sink, &sc), sc));
    } else if (s.kind == ir::Stage::Scan) {
      sc.steps.push_back(scheduleScanCuda(cudaScanRequest(c, g.sink, &sc), sc));
    } else if (s.kind == ir::Stage::LoopResult) {
      if (s.loopIndex == 0) {
        HostStep loop;
        loop.kind = HostStep::Loop;
        loop.value = g.sink;
        sc.steps.push_back(loop);
      }
    } else {
      sc.steps.push_back(stageSchedule(c, g.sink, sc));
    }
  }
  return sc;
}

namespace {
std::string tightForm(int blocks) { return "int, " + std::to_string(blocks); }
}  // namespace

std::string cudaTightForms(const CudaProgram& c) {
  std::string t;
  for (const auto& g : *c.groups) {
    if (!cudaHasTightForm(g)) continue;
    const std::string name = cudaFusedName(c, g);
    std::string blocks;
    for (int b : kTightBlocks) blocks += (blocks.empty() ? "" : ", then ") + std::to_string(b);
    std::string chain;
    for (int b : kTightBlocks)
      chain += std::string(chain.empty() ? "    if" : "    else if") + " (cudaFuncGetAttributes(&a, " + name + "<" +
               tightForm(b) + ">) == cudaSuccess && a.localSizeBytes <= " + std::to_string(kTightLocalBytes) +
               ") ws->formac_tight_" + name + " = " + std::to_string(b) + ";\n";
    t += "  { /* " + name + ": the most blocks per SM (" + blocks + ") with at most " +
         std::to_string(kTightLocalBytes) + " bytes of local memory a thread (spills, stack) */\n"
         "    cudaFuncAttributes a;\n" + chain +
         "    cudaGetLastError();  /* a failed query leaves ptxas's form */\n  }\n";
  }
  return t;
}

std::string cudaSharedMemoryOptIn(const CudaProgram& c, const std::string& fail) {
  std::string t;
  for (const auto& g : *c.groups) {
    long long bytes = g.tiledKernel() ? fusedSharedBytes(*c.pipeline, g) : 0;
    if (bytes <= passes::kCudaDefaultSharedBytes) continue;
    const std::string name = cudaFusedName(c, g), B = std::to_string(bytes);
    if (t.empty())
      t += "  int device = 0, shared_optin = 0;\n"
           "  FORMAC_CUDA_CHECK(cudaGetDevice(&device), " + fail + ");\n"
           "  FORMAC_CUDA_CHECK(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), " +
           fail + ");\n";
    t += "  if (" + B + " > shared_optin) {\n"
         "    fprintf(stderr, \"" + c.kernel + ": " + name + " needs " + B +
         " bytes of shared memory per block; the device allows %d\\n\", shared_optin);\n"
         "    " + fail + "\n  }\n";
    std::vector<std::string> forms = {"int", "long long"};
    if (cudaHasTightForm(g))
      for (int b : kTightBlocks) forms.push_back(tightForm(b));
    for (const auto& I : forms)
      t += "  FORMAC_CUDA_CHECK(cudaFuncSetAttribute(" + name + "<" + I +
           ">, cudaFuncAttributeMaxDynamicSharedMemorySize, " + B + "), " + fail + ");\n";
  }
  return t;
}

}  // namespace formac::codegen
