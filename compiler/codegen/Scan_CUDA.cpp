// A scan stage's passes on the host: their scratch, grids and launches
// (the kernels: ScanRows_CUDA.cpp, ScanSat_CUDA.cpp).
#include "codegen/Scan_CUDA.h"

#include <vector>

#include "codegen/ScanKernel_CUDA.h"

namespace formac::codegen {
namespace {

using scan_cuda::Pass;
using scan_cuda::rankOf;

// Host: the product of the counts of dimensions [from, to).
HostExpr hostProduct(const ir::Stage& s, int from, int to) {
  HostExpr t = hc(1);
  for (int d = from; d < to; ++d) t = t * hsize(s.scan.input.axes[static_cast<size_t>(d)].count);
  return t;
}
HostExpr lineTiles(HostExpr len, int tileRuns) { return hop(HostExpr::ScanLineTiles, {std::move(len), hc(tileRuns)}); }
HostExpr lineGroups(HostExpr tiles) { return hop(HostExpr::ScanLineGroups, {std::move(tiles)}); }

// Host: the groups pass `p` publishes (words of a value and its flag).
HostExpr hostGroups(const ScanCuda& c, const Pass& p) {
  const ir::Stage& s = *c.stage;
  int rank = rankOf(s), d = p.dim;
  HostExpr len = hostProduct(s, d, d + 1);
  switch (p.kind) {
    case Pass::Row: return lineGroups(lineTiles(len, scan_cuda::rowTileRuns(c))) * hostProduct(s, 0, d);
    case Pass::Column:
      return lineGroups(lineTiles(len, scan_cuda::columnTileRuns(c, p.first))) * hostProduct(s, 0, d) *
             hostProduct(s, d + 1, rank);
    case Pass::Sat: {
      HostExpr slices = hostProduct(s, 0, d), cols = hostProduct(s, d + 1, d + 2);
      return lineGroups(lineTiles(cols, scan_cuda::kSatTileRuns)) * slices * len +
             lineGroups(lineTiles(len, scan_cuda::kSatTileRuns)) * slices * cols;
    }
  }
  return hc(0);
}

// Host: the tiles of pass `p`.
HostExpr hostTiles(const ScanCuda& c, const Pass& p) {
  const ir::Stage& s = *c.stage;
  int rank = rankOf(s), d = p.dim;
  HostExpr len = hostProduct(s, d, d + 1);
  switch (p.kind) {
    case Pass::Row:
      return hop(HostExpr::ScanRowTiles, {len, hostProduct(s, 0, d), hc(scan_cuda::rowTileRuns(c))});
    case Pass::Column:
      return hostProduct(s, 0, d) * ceilDiv(hostProduct(s, d + 1, rank), scan_cuda::kColumns) *
             lineTiles(len, scan_cuda::columnTileRuns(c, p.first));
    case Pass::Sat:
      return hostProduct(s, 0, d) * lineTiles(len, scan_cuda::kSatTileRuns) *
             lineTiles(hostProduct(s, d + 1, d + 2), scan_cuda::kSatTileRuns);
  }
  return hc(0);
}

// Host: pass `p`: its tiles, its counter and groups reset, its kernel (persistent blocks
// taking tiles from the counter).
HostStep passSchedule(const ScanCuda& c, const Pass& p, LaunchSchedule& s) {
  const ir::Stage& st = *c.stage;
  int tiles = s.value("formac_tiles"), groups = s.value("formac_groups");
  std::vector<HostStep> t = {hvar(tiles, hostTiles(c, p)), hvar(groups, hostGroups(c, p))};
  std::vector<HostArg> args;
  if (p.first) args = c.inputs;
  auto scratch = [](int at) { return HostArg{HostArg::Scratch, at, hc(0), ""}; };
  if (!p.first || !p.last) args.push_back(scratch(c.values));
  if (p.last) args.push_back({HostArg::Stage, st.id, {}, ""});
  args.push_back(scratch(c.groups));
  args.push_back(scratch(c.counter));
  for (size_t i = 0; i < c.names->param.size(); ++i) args.push_back({HostArg::Param, static_cast<int>(i), {}, ""});
  HostKernel k;
  k.name = p.kernel;
  bool two = p.kind != Pass::Row;
  HostStep launch = hlaunch(s.kernel(k), hmin(hval(tiles), hc(65535)), args,
                            p.kind == Pass::Sat ? scan_cuda::kSatThreads : two ? scan_cuda::kColumns : kCudaThreads);
  if (two) launch.block[1] = hc(p.kind == Pass::Sat ? scan_cuda::kSatThreads : scan_cuda::kColumnThreadRows);
  // The tile counter and the groups' words (their flags) start at 0.
  HostStep counter = hmemset(scratch(c.counter), hc(8)), words = hmemset(scratch(c.groups), hc(16) * hval(groups));
  t.push_back(hif(hop(HostExpr::Less, {hc(0), hval(tiles)}), {counter, words, launch}));
  std::string what = p.kind == Pass::Sat ? "dimensions " + scan_cuda::str(p.dim) + " and " + scan_cuda::str(p.dim + 1)
                                         : "dimension " + scan_cuda::str(p.dim);
  return hblock(what + (p.first ? ", from the input" : ", in place") + (p.last ? ", into the stage" : ""), std::move(t));
}

}  // namespace

std::string scanAccumulationType(const ir::Stage& s) { return scan_cuda::floating(s) ? "double" : "unsigned long long"; }

bool scanNeedsValues(const ir::Stage& s) { return s.scan.dim < 0 && rankOf(s) > 2; }

HostExpr scanPointsCuda(const ir::Stage& s) { return hostProduct(s, 0, rankOf(s)); }

HostExpr scanGroupCountCuda(const ir::Stage& s) {
  ScanCuda c;
  c.stage = &s;
  HostExpr most;
  bool any = false;
  for (const Pass& p : scan_cuda::passesOf(c)) most = any ? hmax(most, hostGroups(c, p)) : hostGroups(c, p), any = true;
  return most;
}

std::string emitScanKernelsCuda(const ScanCuda& c) {
  std::string t;
  for (const Pass& p : scan_cuda::passesOf(c)) {
    if (p.kind == Pass::Row) t += scan_cuda::rowKernel(c, p);
    else if (p.kind == Pass::Column) t += scan_cuda::columnKernel(c, p);
    else t += scan_cuda::satKernel(c, p);
  }
  return t;
}

HostStep scheduleScanCuda(const ScanCuda& c, LaunchSchedule& s) {
  std::vector<Pass> passes = scan_cuda::passesOf(c);
  std::vector<HostStep> t;
  for (const Pass& p : passes) t.push_back(passSchedule(c, p, s));
  std::string how = c.stage->scan.dim >= 0 ? "a scan"
                    : passes.size() > 1    ? "a summed-area table of the last two dimensions, then a scan down each earlier one"
                                           : "a summed-area table in one pass";
  return hblock(c.stage->name + " = " + c.stage->origin + ": " + how + ", tiles in order, a look-back over published groups",
                std::move(t));
}

}  // namespace formac::codegen
