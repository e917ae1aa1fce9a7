// Internal to the Scan_CUDA files: a scan stage's passes, their tile
// geometry, and the statements of kernels they share (Scan_CUDA.h says what
// the kernels do; ScanRows_CUDA.cpp, ScanSat_CUDA.cpp print them).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/FusedKernel_CUDA.h"
#include "codegen/Scan_CUDA.h"

namespace formac::codegen::scan_cuda {

// Along the last dimension: kCudaThreads threads, each rowRunsPerThread runs
// of a tile (runs j, j + 256, ...: a warp's runs are 256 consecutive values,
// and its vector loads are coalesced).
// Along an earlier dimension: kColumns columns x kColumnThreadRows threads,
// each columnRunsPerThread runs down its column.
// The 2-D SAT: kSatThreads x kSatThreads threads, each an 8 x 8 block (a
// run along the row and down the column at once), a tile of kSatTileRuns
// runs each way.
constexpr int kColumns = 32;
constexpr int kColumnThreadRows = kCudaThreads / kColumns;
constexpr int kSatThreads = 16;
constexpr int kSatTileRuns = kSatThreads;
// Runs a thread holds: 8 of 4-byte values or less, 4 of 8-byte ones (64
// values in registers either way, at most 128 registers of them).
int runsPerThread(const ScanCuda& c, bool first);
int rowTileRuns(const ScanCuda& c);     // kCudaThreads * runsPerThread
int columnTileRuns(const ScanCuda& c, bool first);  // kColumnThreadRows * runsPerThread

// One kernel of a stage: the dimension(s) it scans, where its values come
// from and go.
struct Pass {
  enum Kind { Row, Column, Sat } kind = Row;
  int dim = 0;        // Row, Column: the dimension; Sat: the row dimension (rank - 2)
  bool first = true;  // reads the input piece (else the values scratch)
  bool last = true;   // writes the stage (else the values scratch)
  std::string kernel;
};
// A scan: one pass; a sat: the 2-D pass over the last two dimensions, then
// a column pass for each earlier one, down to 0 (rank 1: a row pass).
std::vector<Pass> passesOf(const ScanCuda& c);

int rankOf(const ir::Stage& s);
bool floating(const ir::Stage& s);
std::string str(long long v);
std::string q(int d);  // lattice index q<d>
std::string n(int d);  // extent formac_n<d>
// In a kernel: the product of the extents [from, to) as long long ("1" when empty).
std::string product(int from, int to);

// The C type of the values a pass holds: the input piece's (first) or the
// accumulation type.
std::string valueType(const ScanCuda& c, bool first);
// The C type a pass stores: the stage's (last) or the accumulation type.
std::string storedType(const ScanCuda& c, bool last);
// The input image the piece reads point for point (its buffer's name, a
// vector load's source), or "" when its body computes anything else.
std::string directInput(const ScanCuda& c);

// Pass p's kernel, printed: a comment saying `what` it does, its signature
// (launch bounds `block`), then the extents formac_n<d> and `body`.
std::string kernel(const ScanCuda& c, const Pass& p, const std::string& what, const std::string& block,
                   std::vector<Stmt> body);
// for (int var = 0; var < count; ++var) { body }, unrolled.
Stmt upTo(const std::string& var, const std::string& count, std::vector<Stmt> body);
// Sets `var` (a value of valueType) at the point q0.. (linear index `at`):
// the input piece's body, or the previous pass's value.
Stmt loadValue(const ScanCuda& c, const Pass& p, const std::string& at, const std::string& var);
// `x` (of valueType) in the accumulation type.
std::string accumulated(const ScanCuda& c, const Pass& p, const std::string& x);
// The sum `e` (accumulation type) as stored: converted as cast<T> converts on
// the last pass.
std::string stored(const ScanCuda& c, const Pass& p, const std::string& e);
// The buffer a pass stores into.
std::string outBuffer(const Pass& p);
// Declares lattice indices [from, to) (row-major) from formac_rest.
std::vector<Stmt> indicesFrom(int from, int to);
// The persistent tile loop: the next tile from the counter, in order (the
// condition `first` picks the thread that takes it), then `body`.
Stmt tileLoop(const std::string& first, std::vector<Stmt> body);
// E at a run: `e` (declared, holding the carry) plus the tile's groups of
// the bits of `pos` (the run's place in its aligned segment of `seg` runs,
// at tile place `start`), largest first; `groupAt(i)` prints the up-swept
// total of the tile's group that ends at tile place i.
Stmt addGroupsOfBits(const std::string& e, const std::string& pos, const std::string& seg, const std::string& start,
                     const std::function<std::string(const std::string&)>& groupAt);
// The up-sweep of a tile's run totals in shared memory: `sum(i)` becomes G
// of the aligned group of runs that ends at place i, as large as the lowest
// set bit of i + 1 (within segments of `seg` runs); the thread's places
// `place` are those of `var` = 0 .. count - 1, levels below `seg`.
std::vector<Stmt> upSweep(const std::string& seg, const std::string& var, const std::string& count,
                          const std::string& place, const std::function<std::string(const std::string&)>& sumAt);

std::string rowKernel(const ScanCuda& c, const Pass& p);
std::string columnKernel(const ScanCuda& c, const Pass& p);
std::string satKernel(const ScanCuda& c, const Pass& p);

}  // namespace formac::codegen::scan_cuda
