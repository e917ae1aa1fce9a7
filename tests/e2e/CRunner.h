// The C backend against the reference evaluator, on random inputs.
//
// runCases takes Forma programs (source text plus the parameter values of
// each run), compiles each through the front end and generateC, builds the
// generated .c with a generated harness using the system C compiler, runs it
// and compares every output byte for byte (field by field for structs, so
// padding is ignored) with formac::eval::evaluate on the same inputs. It
// returns one outcome per case, in order; a failure message names the first
// differing element, both values, the run's sizes and the program.
//
// Programs are built in batches (one compiler call and one process per batch,
// kernels named k0, k1, ...) on several threads, so hundreds of programs
// stay fast. Each entry point is called three times per run (alone, which
// makes the cached workspace, then twice concurrently), each into output
// buffers prefilled with 0xA5 and followed by a canary; every call must give
// the evaluator's bytes and the inputs must come back unchanged.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "Harness.h"
#include "eval/Evaluator.h"
#include "ir/Pipeline.h"
#include "parse/Modules.h"
#include "support/Diagnostics.h"

namespace formac::e2e {

struct ProgramCase {
  std::string name;    // unique; letters, digits and '_'
  std::string source;  // Forma program text
  // One entry per run: the value of each `parameter`, in declaration order.
  // Runs whose sizes make an extent negative are skipped (and counted).
  std::vector<std::vector<long long>> runs;
  // Inputs also hold special values (Values.h: NaN, infinities, -0,
  // subnormals, the extremes of each type), compared NaN-aware.
  bool specialValues = false;
  // Where the text was read from, when it was (imports then resolve beside
  // it, as formac resolves them); else it is named after the case.
  std::string path = {};
};

struct CaseOutcome {
  bool passed = false;
  std::string message;  // why it failed (empty when it passed)
  int runsCompared = 0;
  int runsSkipped = 0;  // negative extents for those sizes
};

struct RunnerOptions {
  std::string cc;  // the C compiler
  // FORMAC_PARALLEL_POINTS=0: every loop takes its OpenMP threads, however
  // few its points (the tests' images are small; the races they would show
  // are in the threaded code).
  std::string cflags = "-std=c99 -O2 -fopenmp -DFORMAC_PARALLEL_POINTS=0 -Wall -Wextra -Werror";
  // Delete the fp-contraction pragma from the generated code (a control
  // showing that the comparison notices fused multiply-adds).
  bool stripContractPragma = false;
  bool fuse = true;    // codegen::COptions::fuse
  bool openmp = true;  // codegen::COptions::openmp (leave -fopenmp out of cflags too)
  int programsPerBatch = 16;
  int workers = 0;  // 0: the machine's thread count (at most 8)
  bool keepFiles = false;  // keep the temporary directory (also FORMAC_E2E_KEEP=1)
  std::string threads;     // OMP_NUM_THREADS for the runs ("": OpenMP's default)
};

RunnerOptions defaultRunnerOptions();

// One run of a program: its sizes, the bytes of each entry-point input and
// the evaluator's outputs.
struct PreparedRun {
  HarnessRun sizes;
  std::vector<std::vector<unsigned char>> inputs;  // per Pipeline::inputs entry
  std::vector<eval::Buffer> expected;              // per Pipeline::outputs entry
};

// A program through the front end (entry point `kernel`) with its runs. The
// random inputs depend only on the case's name, so every backend's test sees
// the same ones.
struct PreparedProgram {
  std::unique_ptr<SourceFile> source;  // the pipeline's locations point into it
  SourceFiles imported;                // and into the files it imports
  ir::Pipeline pipeline;
  std::vector<PreparedRun> runs;  // the runs whose sizes give no negative extent
  int runsSkipped = 0;
};

// "13x17,1x1" (FORMAC_E2E_SIZES, progfuzz's sizes= line): a run per comma, a
// parameter value per 'x'; "" gives no run (prepareProgram then runs once).
std::vector<std::vector<long long>> parseRuns(const std::string& sizes);

// The name the program's code goes by (its source file and kernel): the
// case's, without "_special" for a special-values case, which so compiles to
// its program's C (the C compiler runs once for both).
std::string codeName(const ProgramCase& c);

// Fills `out`; returns why the front end or the evaluator failed (empty when
// they did not).
std::string prepareProgram(const ProgramCase& c, const std::string& kernel, PreparedProgram& out);

std::vector<CaseOutcome> runCases(const std::vector<ProgramCase>& cases, const RunnerOptions& o);

// Whether the C compiler builds and links a trivial program with `flags`
// added to o.cflags (sanitizers need their runtime libraries).
bool compilerAccepts(const RunnerOptions& o, const std::string& flags);

}  // namespace formac::e2e
