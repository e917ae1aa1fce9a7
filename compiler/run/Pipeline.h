// formac's C++ API: compile a Forma program once, run it many times on the
// caller's buffers.
//
//   formac::CompiledPipeline p = formac::compile(sourceText);  // JIT when built with it
//   p.run({{in, {rows, cols}}}, {{"low", 0.25}, {"high", 0.5}}, {{out, {rows, cols}}});
//
// Buffers are in C layout (row-major, the last dimension contiguous, structs
// with natural alignment): exactly what the generated entry point takes.
// Inputs are not modified. Parameters (sizes) that an input's extent fixes
// may be left out of the values (Bindings.h says how they are found). Every
// user error (a bad program, wrong sizes, a missing value) throws
// formac::UserError with a message; nothing exits or aborts.
//
// A CompiledPipeline is cheap to copy (copies share the compiled code). run()
// keeps the intermediate buffers for the last parameter values; concurrent
// calls on the same object are serialised.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/Pipeline.h"
#include "parse/Modules.h"
#include "run/Bindings.h"

namespace formac {

enum class Backend { Default, Eval, Jit, Cuda };
// "eval", "jit", "cuda" ("default" for Default).
const char* backendName(Backend b);
// Throws UserError for anything but eval, jit, cuda.
Backend parseBackend(const std::string& name);
// Jit when this formac was built with it, else Eval.
Backend defaultBackend();

struct CompileOptions {
  Backend backend = Backend::Default;
  std::string sourcePath;  // where the text came from: diagnostics name it; "<memory>" when empty
  // Where `import "P";` looks after the program's own directory (sourcePath's;
  // the current directory when there is none) and before $FORMAC_IMPORT_PATH
  // and formac's stdlib (parse/Modules.h).
  std::vector<std::string> importPath;
  std::string name;        // the entry point's name; default: sourcePath's stem, else "pipeline"
  bool fuse = true;        // as formac's --no-fuse when false
  bool useCache = true;    // the on-disk cache of compiled code (jit, cuda)
  std::string cacheDir;    // empty: $FORMAC_CACHE_DIR, $XDG_CACHE_HOME/formac, ~/.cache/formac
};

struct ImageRef {
  void* data = nullptr;
  std::vector<long long> extent;  // as the program declares it: [rows, columns] for a 2-D image
};

// Parameters and scalar inputs, by name.
using Values = std::map<std::string, double>;

struct ImageInfo {
  std::string name;  // as the program writes it: "out", "g<4>", or an unnamed result's expression
  Type type;
  int rank = 0;
};

class CompiledPipeline {
 public:
  Backend backend() const;
  const std::string& name() const;  // the entry point's name
  const ir::Pipeline& pipeline() const;
  std::vector<ImageInfo> inputImages() const;  // declaration order
  std::vector<ImageInfo> outputImages() const;
  const std::vector<std::string>& warnings() const;  // rendered, as the compiler prints them
  double compileSeconds() const;                     // source text to runnable code
  bool cached() const;                               // the compiled code came from the cache
  const std::vector<std::string>& notes() const;     // what compiling did (formac run --verbose)
  // Per `do` loop, in the program's order: whether the compiled code settles
  // it after round 1 (passes/LocalFixpoint.h; the JIT's C does, the others
  // run the rounds one by one).
  std::vector<bool> loopsSettle() const;

  // Checks the inputs and values against the program; returns the values of
  // its parameters and scalars (throws UserError, worded per `style`).
  run::Binding bind(const std::vector<std::vector<long long>>& inputExtents, const Values& values,
                    const run::BindStyle& style) const;
  // Output i's extent for these parameter values.
  std::vector<long long> outputExtent(size_t i, const std::vector<long long>& params) const;

  // One run; output extents are checked against the program's.
  void run(const std::vector<ImageRef>& inputs, const Values& values, const std::vector<ImageRef>& outputs);
  // One run with values already bound (outputs sized by outputExtent).
  void run(const run::Binding& b, const std::vector<void*>& inputs, const std::vector<void*>& outputs);
  // The rounds each `do` loop ran in the last run, in the program's order
  // (empty for a program without loops; formac run --verbose prints them).
  std::vector<long long> loopRounds() const;
  // As the run above on device pointers of the GPU the cuda backend runs on
  // (GPU 0's primary context, which torch and CuPy share), enqueued on
  // `stream` (a CUstream; null: the default stream) with no host copies and
  // no synchronisation: the outputs are ready when the stream gets there.
  // Throws UserError for the other backends.
  void runOnDevice(const run::Binding& b, const std::vector<void*>& inputs, const std::vector<void*>& outputs,
                   void* stream);

  struct State;
  static CompiledPipeline fromState(std::shared_ptr<State> s);

 private:
  std::shared_ptr<State> s_;
};

CompiledPipeline compile(const std::string& sourceText, const CompileOptions& options = {});
// A program built without text (compiler/builder/Builder.h): the same checks
// and everything after the parser. Its locations point into `files` (the
// host program's source files), which the compiled pipeline keeps;
// options.sourcePath names the program in run-time messages ("<builder>").
CompiledPipeline compile(const ast::Program& program, std::shared_ptr<const SourceFiles> files,
                         const CompileOptions& options = {});

}  // namespace formac
