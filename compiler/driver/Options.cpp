#include "driver/Options.h"

#include <set>

#include "passes/Lower.h"
#include "support/Diagnostics.h"

namespace formac {

std::string usage() {
  return "usage: formac FILE.idsl [options]\n"
         "       formac run FILE.idsl --input IMAGE ... --output IMAGE ...   (formac run --help)\n"
         "  --emit=tokens|ast|dag|plan|dot|c|cuda  print one stage of the compilation and stop:\n"
         "                                     plan is the fusion plan for the target (groups,\n"
         "                                     halos, tiles, on-chip bytes, what is inlined and\n"
         "                                     why a stage is in memory); dot draws the DAG with\n"
         "                                     fused groups as clusters\n"
         "  --dump-after=PASS|all              print the lowered pipeline after that pass of\n"
         "                                     the back end (fold-constants, placement-reads,\n"
         "                                     fold-crops, fuse-reductions, plan-fusion,\n"
         "                                     kernel-epilogue, prove-local-fixpoint) and stop\n"
         "  --target=openmp|cuda               what to generate (default openmp)\n"
         "  -o FILE                            write the generated code to FILE (default, with\n"
         "                                     no --emit: FILE.idsl.c or FILE.idsl.cu beside\n"
         "                                     the source; formac names it on stderr)\n"
         "  import \"stdlib/NAME.idsl\";        (in a program) found beside the program, then\n"
         "                                     along $FORMAC_IMPORT_PATH, then formac's stdlib\n"
         "  --print-c, --print-cuda            Forma: generate C (OpenMP) or CUDA\n"
         "  --c-output FILE, --cuda-output FILE  Forma: where to write it\n"
         "  --kernel-name NAME                 the entry point's name (default: the file's stem)\n"
         "  --header-file FILE                 also write the C header there\n"
         "  --no-fuse                          one loop nest / kernel per stage\n"
         "  --disable-openmp                   no OpenMP pragmas\n"
         "  -w, -Werror                        no warnings / warnings are errors\n"
         "  --init-zero                        accepted (formac always zero-initialises)\n"
         "Accepted and ignored (Forma): --use-single-malloc --unroll-factors LIST\n"
         "  --enable-icc-pragmas --generate-affine --unroll-loops --forward-exprs\n"
         "  --inline-vector-functions --use-texture --disable-syncthreads --pretty-print\n";
}

Options parseOptions(const std::vector<std::string>& args) {
  Options o;
  static const std::set<std::string> ignored = {
      "--init-zero", "--use-single-malloc", "--enable-icc-pragmas", "--generate-affine",
      "--unroll-loops", "--forward-exprs", "--inline-vector-functions", "--use-texture",
      "--disable-syncthreads", "--pretty-print"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const std::string& flag) -> std::string {
      std::string prefix = flag + "=";
      if (a.rfind(prefix, 0) == 0) return a.substr(prefix.size());
      if (i + 1 >= args.size()) throw UserError("option '" + flag + "' needs a value");
      return args[++i];
    };
    auto is = [&](const std::string& flag) { return a == flag || a.rfind(flag + "=", 0) == 0; };
    if (a == "-h" || a == "--help") o.help = true;
    else if (a == "--version") o.version = true;
    else if (is("--emit")) o.emit = value("--emit");
    else if (is("--dump-after")) o.dumpAfter = value("--dump-after");
    else if (is("--target")) o.target = value("--target");
    else if (a == "-o") o.output = value("-o");
    else if (is("--c-output")) { o.output = value("--c-output"); o.printC = true; }
    else if (is("--cuda-output")) { o.output = value("--cuda-output"); o.printCuda = true; }
    else if (is("--kernel-name")) {
      o.kernelName = value("--kernel-name");
      if (o.kernelName.empty()) throw UserError("--kernel-name needs a name (a C identifier)");
    }
    else if (is("--header-file")) o.headerFile = value("--header-file");
    else if (a == "--print-c") o.printC = true;
    else if (a == "--print-cuda") o.printCuda = true;
    else if (a == "--print-dot") o.emit = "dot";
    else if (a == "--no-fuse") o.noFuse = true;
    else if (a == "--disable-openmp") o.openmp = false;
    else if (a == "-w") o.warnings = false;
    else if (a == "-Werror") o.warningsAsErrors = true;
    else if (is("--unroll-factors")) value("--unroll-factors");
    else if (ignored.count(a)) continue;
    else if (a == "--print-llvm" || is("--llvm-output"))
      throw UserError("'" + a + "' is not supported: formac generates C and CUDA");
    else if (!a.empty() && a[0] == '-' && a != "-") throw UserError("unknown option '" + a + "'\n" + usage());
    else if (o.input.empty()) o.input = a;
    else throw UserError("more than one input file: '" + o.input + "' and '" + a + "'");
  }
  if (o.printC && o.printCuda) throw UserError("choose one of --print-c and --print-cuda");
  if (o.printCuda) o.target = "cuda";
  if (o.printC) o.target = "openmp";
  if (o.target != "openmp" && o.target != "cuda" && o.target != "c")
    throw UserError("unknown target '" + o.target + "' (openmp or cuda)");
  if (o.target == "c") o.target = "openmp";
  static const std::set<std::string> stages = {"", "tokens", "ast", "dag", "plan", "dot", "c", "cuda"};
  if (!stages.count(o.emit))
    throw UserError("unknown --emit stage '" + o.emit + "' (tokens, ast, dag, plan, dot, c, cuda)");
  if (!o.dumpAfter.empty()) {
    std::string known = "all";
    bool found = o.dumpAfter == "all";
    for (const auto& pass : passes::passList()) {
      known += std::string(", ") + pass.name;
      found = found || o.dumpAfter == pass.name;
    }
    if (!found) throw UserError("unknown pass '" + o.dumpAfter + "' for --dump-after (" + known + ")");
  }
  return o;
}

}  // namespace formac
