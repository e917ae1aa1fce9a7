// e2e_gpu_bundle: the e2e matrix, exported for the CUDA backend.
//
//   e2e_gpu_bundle DIR [--only NAME,NAME...] [--runs N] [--max-points N]
//                      [--per-batch N] [--with-c] [--special-values]
//                      [--programs FILE.idsl...]
//
// Writes into DIR (new or empty) every program of the C suites (Matrix,
// Compat and the fp-contraction programs), and the scan programs
// (Scans.cpp, ScanTiles.cpp), with the same sizes and the same
// random inputs, so that tests/gpu/run_e2e_gpu.sh can build and check them
// on a GPU machine without this repository (tests/gpu/README.md):
//   manifest.txt           the batches and one line per case (program × size ×
//                          variant) with its files and comparison rule
//   src/pID_fused.cu,      generateCuda of program ID (kernel kID), with and
//   src/pID_unfused.cu     without fusion; src/pID.h its header
//   src/bB_VARIANT.cu      batch B: its programs' .cu in one translation unit
//   src/hID.c, src/main_bB.c, src/e2e.h   the C harness (Harness.h)
//   src/e2e_device.cu                      its device side (the run_async call)
//   src/e2e_check.c        runs a batch and compares (tests/gpu/e2e_check.c)
//   data/pID_rR_iI.bin     input I of run R
//   data/pID_rR_oO.want    the evaluator's output O of run R
// Runs with an image (input, intermediate or output) of more than
// --max-points points (150000: the 150x1100 runs) are left out to keep the
// bundle small. --only keeps the named programs (NAME* every program whose
// name starts with NAME: --only 'scan_*' the scans), --runs N the first N sizes
// of each, --per-batch sets the programs per batch (6), --with-c adds
// generateC's code as src/pID_fused.c and src/pID_unfused.c (for
// run_e2e_gpu.sh --c-backend: the bundle checked without a GPU).
// --programs takes the programs from the files named after it instead of the
// matrix, each run at the sizes of its first line's `sizes=13x17,1x1` (what
// tools/progfuzz/gen.py writes; tools/progfuzz/gpu_bundle.sh uses it);
// --special-values gives them inputs with special values (NaN, infinities,
// -0, subnormals, extremes; Values.h), as the matrix's *_special programs.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CRunner.h"
#include "Harness.h"
#include "Loops.h"
#include "ProgramMatrix.h"
#include "Scans.h"
#include "codegen/CodeGen_C.h"
#include "codegen/CodeGen_CUDA.h"

namespace fs = std::filesystem;

namespace formac::e2e {
namespace {

struct Options {
  fs::path dir;
  std::set<std::string> only;  // empty: every program
  size_t runs = 0;             // 0: every run
  size_t perBatch = 6;
  size_t maxPoints = 150000;  // runs with a larger image are left out
  bool withC = false;
  std::vector<fs::path> programs;  // --programs: these files, not the matrix
  bool specialValues = false;      // --special-values: for those programs
};

const char* const kVariants[] = {"fused", "unfused"};

struct Exported {
  const ProgramCase* spec = nullptr;
  int id = 0;
  PreparedProgram prepared;
  std::string error;           // the program is left out of the bundle
  size_t runsTooLarge = 0;     // runs left out for Options::maxPoints
  std::string cudaHeader;
  std::string cuda[2], c[2];   // per kVariants entry
};

// ------------------------------------------------------------ the comparison rule
// exp, log, pow, sin, cos, tan, atan and atan2 come from glibc in the
// evaluator and from CUDA's libm on the GPU, which may differ in the last
// bit; every other operation is correctly rounded on both.
bool isLibmFunction(ir::MathFn f) {
  switch (f) {
    case ir::MathFn::Exp: case ir::MathFn::Log: case ir::MathFn::Pow: case ir::MathFn::Sin:
    case ir::MathFn::Cos: case ir::MathFn::Tan: case ir::MathFn::Atan: case ir::MathFn::Atan2:
      return true;
    default:
      return false;
  }
}

bool callsLibm(const ir::Expr& e) {
  if (e.kind == ir::Expr::Binary && e.binOp == ir::BinOp::Pow) return true;
  if (e.kind == ir::Expr::Call && isLibmFunction(e.fn)) return true;
  for (const auto& a : e.args)
    if (callsLibm(*a)) return true;
  return false;
}

bool computesInFloat(const ir::Expr& e) {
  if (e.type.scalar == ScalarKind::Float) return true;
  for (const auto& a : e.args)
    if (computesInFloat(*a)) return true;
  return false;
}

// A libm result that differs in its last double bit can round to a float
// one float ulp away: programs that compute in float anywhere get the float
// tolerance for every floating output ("approx-float").
const char* comparisonRule(const ir::Pipeline& p) {
  bool libm = false, inFloat = false;
  for (const auto& s : p.stages) {
    if (s.type.scalar == ScalarKind::Float) inFloat = true;
    for (const auto& piece : s.pieces) {
      for (const auto& let : piece.body.lets) {
        libm = libm || callsLibm(*let.value);
        inFloat = inFloat || computesInFloat(*let.value);
      }
      if (piece.body.result) {
        libm = libm || callsLibm(*piece.body.result);
        inFloat = inFloat || computesInFloat(*piece.body.result);
      }
    }
  }
  if (!libm) return "exact";
  return inFloat ? "approx-float" : "approx";
}

// ------------------------------------------------------------ manifest fields
const char* scalarCode(ScalarKind k) {
  switch (k) {
    case ScalarKind::Int8: return "u8";
    case ScalarKind::Int16: return "i16";
    case ScalarKind::Uint16: return "u16";
    case ScalarKind::Int: return "i32";
    case ScalarKind::Int64: return "i64";
    case ScalarKind::Float: return "f32";
    case ScalarKind::Double: return "f64";
  }
  return "?";
}

// f32, or {a:f32@0,b:i16@4,c:u8@6}8 for a struct (fields at byte offsets, size).
std::string typeCode(const Type& t) {
  if (!t.isStruct()) return scalarCode(t.scalar);
  const StructType& s = *t.structType;
  std::string code = "{";
  for (size_t f = 0; f < s.fields.size(); ++f)
    code += (f ? "," : "") + s.fields[f].name + ":" + scalarCode(s.fields[f].type) + "@" +
            std::to_string(fieldOffset(s, static_cast<int>(f)));
  return code + "}" + std::to_string(typeSize(t));
}

std::string joined(const std::vector<std::string>& parts, const std::string& sep) {
  std::string t;
  for (const auto& p : parts) t += (t.empty() ? "" : sep) + p;
  return t;
}

// M=13,N=17 ("-" for a program without parameters).
std::string sizeText(const ir::Pipeline& p, const std::vector<long long>& params) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < p.params.size(); ++i) parts.push_back(p.params[i].name + "=" + std::to_string(params[i]));
  return parts.empty() ? "-" : joined(parts, ",");
}

std::string wantFile(int program, int run, int output) {
  return "p" + std::to_string(program) + "_r" + std::to_string(run) + "_o" + std::to_string(output) + ".want";
}

// ------------------------------------------------------------ files
size_t bytesWritten = 0;

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
  bytesWritten += text.size();
}

void writeBytes(const fs::path& path, const std::vector<unsigned char>& bytes) {
  writeFile(path, std::string(bytes.begin(), bytes.end()));
}

// One translation unit for several programs' generated CUDA: each program in
// a namespace of its own (its static helpers and kernels stay apart; the
// extern "C" entry points keep their names), its #includes hoisted to file
// scope before it and its macros undefined after it.
std::string batchSource(const std::vector<const Exported*>& programs, int v, int batch) {
  static const std::regex include(R"(^\s*#\s*include\s*[<"][^>"]*[>"])");
  static const std::regex define(R"(^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*))");
  std::vector<std::string> includes;
  std::string body;
  for (const Exported* g : programs) {
    std::string ns = "e2e_p" + std::to_string(g->id);
    std::set<std::string> macros;
    std::istringstream lines(g->cuda[v]);
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (std::regex_search(line, m, include) &&
          std::find(includes.begin(), includes.end(), m.str()) == includes.end())
        includes.push_back(m.str());
      if (std::regex_search(line, m, define)) macros.insert(m[1]);
    }
    body += "\nnamespace " + ns + " {\n#include \"p" + std::to_string(g->id) + "_" + kVariants[v] +
            ".cu\"\n}  // namespace " + ns + "\n";
    for (const auto& m : macros) body += "#undef " + m + "\n";
  }
  std::vector<std::string> ids;
  for (const Exported* g : programs) ids.push_back(std::to_string(g->id));
  return "/* e2e GPU bundle, batch " + std::to_string(batch) + " (" + kVariants[v] + "): programs " +
         joined(ids, " ") +
         ".\n   Each program's generated file is compiled in a namespace of its own; its\n"
         "   #includes come first, its macros are undefined after it. */\n" +
         joined(includes, "\n") + "\n" + body;
}

// ------------------------------------------------------------ export
// The points of the largest image (input, intermediate or output) of a run.
size_t largestImage(const ir::Pipeline& p, const std::vector<long long>& params) {
  size_t most = 0;
  for (const auto& s : p.stages) {
    size_t n = 1;
    for (const auto& e : s.extent) n *= static_cast<size_t>(ir::evalSize(e, params));
    most = std::max(most, n);
  }
  return most;
}

void prepareAll(std::vector<Exported>& programs, const Options& o) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < programs.size();) {
      Exported& g = programs[i];
      std::string kernel = "k" + std::to_string(g.id);
      g.error = prepareProgram(*g.spec, kernel, g.prepared);
      if (!g.error.empty()) continue;
      auto& runs = g.prepared.runs;
      size_t all = runs.size();
      runs.erase(std::remove_if(runs.begin(), runs.end(),
                                [&](const PreparedRun& r) {
                                  return largestImage(g.prepared.pipeline, r.sizes.params) > o.maxPoints;
                                }),
                 runs.end());
      g.runsTooLarge = all - runs.size();
      for (int v = 0; v < 2; ++v) try {
          codegen::CudaOptions co;
          co.kernelName = kernel;
          co.sourcePath = g.prepared.source->path;
          co.fuse = v == 0;
          codegen::GeneratedCuda cuda = codegen::generateCuda(g.prepared.pipeline, co);
          g.cuda[v] = cuda.source;
          if (v == 0) g.cudaHeader = cuda.header;
          if (o.withC) {
            codegen::COptions cc;
            cc.kernelName = kernel;
            cc.sourcePath = co.sourcePath;
            cc.fuse = co.fuse;
            g.c[v] = codegen::generateC(g.prepared.pipeline, cc).source;
          }
        } catch (const std::exception& e) {
          g.error = std::string("generating code (") + kVariants[v] + ") throws: " + e.what();
        }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < std::clamp(std::thread::hardware_concurrency(), 1u, 8u); ++w)
    threads.emplace_back(worker);
  for (auto& t : threads) t.join();
}

void writeProgram(const Exported& g, const Options& o, std::ostream& cases, int batch) {
  const ir::Pipeline& p = g.prepared.pipeline;
  fs::path src = o.dir / "src", data = o.dir / "data";
  std::string stem = "p" + std::to_string(g.id);
  writeFile(src / (stem + ".h"), g.cudaHeader);
  for (int v = 0; v < 2; ++v) {
    writeFile(src / (stem + "_" + kVariants[v] + ".cu"), g.cuda[v]);
    if (o.withC) writeFile(src / (stem + "_" + kVariants[v] + ".c"), g.c[v]);
  }
  std::vector<HarnessRun> sizes;
  for (const auto& r : g.prepared.runs) sizes.push_back(r.sizes);
  writeFile(src / ("h" + std::to_string(g.id) + ".c"),
            harnessFunction(p, g.id, "k" + std::to_string(g.id), stem + ".h", sizes));
  const char* rule = comparisonRule(p);
  for (size_t r = 0; r < g.prepared.runs.size(); ++r) {
    const PreparedRun& run = g.prepared.runs[r];
    int ri = static_cast<int>(r);
    std::vector<std::string> inputs, outputs;
    for (size_t i = 0; i < run.inputs.size(); ++i) {
      inputs.push_back(inputFile(g.id, ri, static_cast<int>(i)));
      writeBytes(data / inputs.back(), run.inputs[i]);
    }
    for (size_t out = 0; out < run.expected.size(); ++out) {
      const eval::Buffer& b = run.expected[out];
      std::string file = wantFile(g.id, ri, static_cast<int>(out));
      writeBytes(data / file, b.bytes);
      std::vector<std::string> extent;
      for (long long e : b.extent) extent.push_back(std::to_string(e));
      if (extent.empty()) extent.push_back("1");  // a scalar (a reduction): one element
      outputs.push_back(file + ":" + typeCode(b.type) + ":" + joined(extent, "x"));
    }
    for (const char* variant : kVariants)
      cases << "case " << g.spec->name << " " << sizeText(p, run.sizes.params) << " " << variant << " "
            << batch << " " << g.id << " " << r << " " << rule << " "
            << (inputs.empty() ? "-" : joined(inputs, ",")) << " " << joined(outputs, " ") << "\n";
  }
}

const char* kManifestHeader =
    R"(# formac e2e GPU bundle (tests/e2e/GpuBundle.cpp; run it with tests/gpu/run_e2e_gpu.sh).
# batch B ID...   the programs of batch B, in the order of src/main_bB.c
# case PROGRAM SIZE VARIANT BATCH ID RUN RULE INPUTS OUTPUT...
#   INPUTS: the entry point's inputs in data/, comma-separated ("-": none)
#   OUTPUT: FILE:TYPE:EXTENT, FILE the evaluator's bytes in data/; TYPE u8 i16 i32
#   f32 f64, or {field:TYPE@OFFSET,...}SIZE for a struct; EXTENT like 13x17
#   RULE exact: every element bit for bit (any NaN matches any NaN)
#   RULE approx (the program calls exp log pow sin cos tan atan atan2): integers
#   exact; f32 within 2^-21 * max(|want|, 1), f64 within 1e-12 * max(|want|, 1);
#   approx-float (such a program that also computes in float): f32 within
#   2^-21 * max(|want|, 1), f64 within 2^-18 * max(|want|, 1)
)";

// A program file of --programs: its text, named after its stem, at the sizes
// its first line gives (`sizes=13x17,1x1`: a value of each parameter; `sizes=`
// for a program without parameters, run once).
ProgramCase programFromFile(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  ProgramCase c{file.stem().string(), text.str(), {}};
  for (char& ch : c.name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  std::smatch m;
  const std::string first = c.source.substr(0, c.source.find('\n'));
  if (!std::regex_search(first, m, std::regex("sizes=([0-9x,]*)")))
    throw std::runtime_error(file.string() + ": its first line names no sizes=");
  c.runs = parseRuns(m[1].str());
  return c;
}

int exportBundle(const Options& o) {
  std::vector<ProgramCase> cases;
  if (o.programs.empty()) {
    cases = matrixCases();
    for (auto& c : specialValueCases()) cases.push_back(std::move(c));
    for (auto& c : contractionCases()) cases.push_back(std::move(c));
    for (auto& c : scanCases()) cases.push_back(std::move(c));
    for (auto& c : scanTileCases()) cases.push_back(std::move(c));
    for (auto& c : compatCases(FORMAC_COMPAT_DIR)) cases.push_back(std::move(c));
    for (auto& c : loopCases()) cases.push_back(std::move(c));  // settle_*: propagations the GPU settles
  } else {
    for (const auto& f : o.programs) {
      cases.push_back(programFromFile(f));
      cases.back().specialValues = o.specialValues;
    }
  }
  if (!o.only.empty()) {
    // A name ending in '*' keeps every program whose name starts with the rest.
    auto named = [&](const std::string& name, const std::string& pattern) {
      if (!pattern.empty() && pattern.back() == '*') return name.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0;
      return name == pattern;
    };
    std::vector<ProgramCase> kept;
    std::set<std::string> matched;
    for (auto& c : cases) {
      bool keep = false;
      for (const auto& pattern : o.only)
        if (named(c.name, pattern)) keep = true, matched.insert(pattern);
      if (keep) kept.push_back(std::move(c));
    }
    if (matched.size() != o.only.size()) {
      std::cerr << "e2e_gpu_bundle: --only names a program the matrix does not have\n";
      return 2;
    }
    cases = std::move(kept);
  }
  if (o.runs > 0)
    for (auto& c : cases)
      if (c.runs.size() > o.runs) c.runs.resize(o.runs);

  std::vector<Exported> programs(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    programs[i].spec = &cases[i];
    programs[i].id = static_cast<int>(i);
  }
  prepareAll(programs, o);

  fs::create_directories(o.dir / "src");
  fs::create_directories(o.dir / "data");
  fs::copy_file(fs::path(FORMAC_GPU_TESTS_DIR) / "e2e_check.c", o.dir / "src" / "e2e_check.c");
  writeFile(o.dir / "src" / "e2e.h", harnessCommonHeader());
  writeFile(o.dir / "src" / "e2e_device.cu", harnessDeviceSupport());
  std::vector<const Exported*> kept;
  int leftOut = 0;
  for (const Exported& g : programs) {
    if (g.error.empty()) {
      kept.push_back(&g);
      continue;
    }
    ++leftOut;
    std::cerr << "e2e_gpu_bundle: left out " << g.spec->name << ": " << g.error << "\n";
  }
  // Programs go round-robin into the batches, so that the large ones spread.
  size_t batchCount = (kept.size() + o.perBatch - 1) / o.perBatch;
  std::ostringstream batches, caseLines;
  size_t caseCount = 0, runsTooLarge = 0;
  for (size_t b = 0; b < batchCount; ++b) {
    std::vector<const Exported*> batch;
    std::vector<int> ids;
    for (size_t i = b; i < kept.size(); i += batchCount) {
      const Exported* g = kept[i];
      batch.push_back(g);
      ids.push_back(g->id);
      writeProgram(*g, o, caseLines, static_cast<int>(b));
      caseCount += 2 * g->prepared.runs.size();
      runsTooLarge += g->runsTooLarge;
    }
    batches << "batch " << b;
    for (int id : ids) batches << " " << id;
    batches << "\n";
    writeFile(o.dir / "src" / ("main_b" + std::to_string(b) + ".c"), harnessMain(ids));
    for (int v = 0; v < 2; ++v)
      writeFile(o.dir / "src" / ("b" + std::to_string(b) + "_" + kVariants[v] + ".cu"),
                batchSource(batch, v, static_cast<int>(b)));
  }
  writeFile(o.dir / "manifest.txt", kManifestHeader + batches.str() + caseLines.str());
  std::printf("e2e_gpu_bundle: %zu programs, %zu cases, %zu batches (%zu nvcc compiles), %.1f MiB in %s\n",
              kept.size(), caseCount, batchCount, 2 * batchCount, static_cast<double>(bytesWritten) / (1 << 20),
              o.dir.c_str());
  if (runsTooLarge)
    std::printf("e2e_gpu_bundle: %zu runs left out for an image of more than %zu points\n", runsTooLarge,
                o.maxPoints);
  if (leftOut) std::fprintf(stderr, "e2e_gpu_bundle: %d programs left out (above)\n", leftOut);
  return leftOut ? 1 : 0;
}

int usage() {
  std::cerr << "usage: e2e_gpu_bundle DIR [--only NAME,NAME...] [--runs N] [--max-points N] [--per-batch N]\n"
               "                      [--with-c] [--special-values] [--programs FILE.idsl...]\n";
  return 2;
}

}  // namespace
}  // namespace formac::e2e

int main(int argc, char** argv) {
  using namespace formac::e2e;
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool hasValue = i + 1 < argc;
    if (a == "--with-c") {
      o.withC = true;
    } else if (a == "--special-values") {
      o.specialValues = true;
    } else if (a == "--only" && hasValue) {
      std::istringstream names(argv[++i]);
      for (std::string n; std::getline(names, n, ',');) o.only.insert(n);
    } else if (a == "--runs" && hasValue) {
      o.runs = std::stoul(argv[++i]);
    } else if (a == "--max-points" && hasValue) {
      o.maxPoints = std::stoul(argv[++i]);
    } else if (a == "--per-batch" && hasValue) {
      o.perBatch = std::max(1ul, std::stoul(argv[++i]));
    } else if (a == "--programs") {
      while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) o.programs.emplace_back(argv[++i]);
      if (o.programs.empty()) return usage();
    } else if (a.rfind("--", 0) != 0 && o.dir.empty()) {
      o.dir = a;
    } else {
      return usage();
    }
  }
  if (o.dir.empty()) return usage();
  std::error_code ec;
  if (fs::exists(o.dir, ec) && !fs::is_empty(o.dir, ec)) {
    std::cerr << "e2e_gpu_bundle: " << o.dir << " is not empty\n";
    return 2;
  }
  try {
    return exportBundle(o);
  } catch (const std::exception& e) {
    std::cerr << "e2e_gpu_bundle: " << e.what() << "\n";
    return 1;
  }
}
