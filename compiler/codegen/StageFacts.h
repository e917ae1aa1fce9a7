// What both backends need to know about a pipeline's stages, and the pieces
// of host code they share (the extent checks, the cached Forma entry point).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "codegen/Naming.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

// True when the stage's pieces are known to write every point.
bool coversExtent(const ir::Pipeline& p, const ir::Stage& s);
// Output i is computed in place in the caller's buffer: a computed stage
// returned for the first time.
bool outputOwner(const ir::Pipeline& p, size_t i);
// The output a stage is computed into, or -1.
int ownedOutput(const ir::Pipeline& p, int stage);
// Whether some stage is a Reduce stage (the printers then add reducePrelude).
bool hasScans(const ir::Pipeline& p);
bool hasReductions(const ir::Pipeline& p);
// Stages read by `stages` that are not among them, and the scalars they use.
std::set<int> producersOf(const ir::Pipeline& p, const std::vector<int>& stages);
std::set<int> scalarsOf(const ir::Pipeline& p, const std::vector<int>& stages);
// "/* name = origin   [file:line]\n   T[extent] */\n"
std::string stageComment(const ir::Pipeline& p, const Names& n, const ir::Stage& s,
                         const std::string& sourcePath);
// Statements of NAME_create returning NULL (after NAME_destroy) when an
// extent is negative for the given parameters.
std::string extentChecks(const ir::Pipeline& p, const Names& n, const std::string& kernel);

// The first LoopResult stage of each `do` loop, in the program's order.
std::vector<const ir::Stage*> loopsOf(const ir::Pipeline& p);

// The workspace API's declarations: the typedef and NAME_create, NAME_run,
// NAME_destroy, and for a program with loops NAME_loop_rounds (both backends'
// headers carry them).
std::string workspacePrototypes(const ir::Pipeline& p, const Names& n, const std::string& kernel);

struct EntryPointText {
  std::string kernel;
  std::string linkage;       // "" for C, "extern \"C\" " for CUDA
  std::string failureNote;   // printed when the workspace cannot be made
  bool reportRunFailure = false;
};
// The Forma entry point: one cached workspace between calls of the same size;
// a concurrent call uses a workspace of its own.
std::string cachedEntryPoint(const ir::Pipeline& p, const Names& n, const EntryPointText& t);

}  // namespace formac::codegen
