#include "run/RunCommand.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "codegen/StageFacts.h"
#include "run/ImageIO.h"
#include "run/Pipeline.h"

namespace formac::run {
namespace {

struct RunOptions {
  std::string program;
  std::vector<std::string> inputs, outputs;
  std::map<std::string, double> values;
  Backend backend = Backend::Default;
  bool verbose = false, useCache = true, fuse = true, warnings = true, gray = false;
  int repeat = 1;
  bool help = false;
};

double parseNumber(const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  // nan is a value of a floating scalar (a parameter or an integer refuses it where it binds).
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw UserError(what + ": '" + text + "' is not a number");
  // Values travel as doubles: an integer they would round (beyond 2^53) is
  // refused rather than changed.
  errno = 0;
  long long i = std::strtoll(text.c_str(), &end, 10);
  if (*end == '\0' && (errno == ERANGE || static_cast<double>(i) != v || v >= 9223372036854775808.0 ||
                          static_cast<long long>(v) != i))
    throw UserError(what + ": " + text + " is not exact as a double (integers are up to 2^53 in magnitude)");
  return v;
}

RunOptions parseRunOptions(const std::vector<std::string>& args) {
  RunOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto is = [&](const std::string& flag) { return a == flag || a.rfind(flag + "=", 0) == 0; };
    auto value = [&](const std::string& flag) -> std::string {
      if (a.size() > flag.size() && a[flag.size()] == '=') return a.substr(flag.size() + 1);
      if (i + 1 >= args.size()) throw UserError("option '" + flag + "' needs a value");
      return args[++i];
    };
    if (a == "-h" || a == "--help") o.help = true;
    else if (is("--input") || a == "-i") o.inputs.push_back(value(a == "-i" ? "-i" : "--input"));
    else if (is("--output") || a == "-o") o.outputs.push_back(value(a == "-o" ? "-o" : "--output"));
    else if (is("--param") || a == "-p") {
      std::string kv = value(a == "-p" ? "-p" : "--param");
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw UserError("--param '" + kv + "': write NAME=VALUE");
      std::string name = kv.substr(0, eq);
      if (o.values.count(name)) throw UserError("--param " + name + " is given twice");
      o.values[name] = parseNumber(kv.substr(eq + 1), "--param " + name);
    } else if (is("--backend")) o.backend = parseBackend(value("--backend"));
    else if (is("--repeat")) {
      double n = parseNumber(value("--repeat"), "--repeat");
      if (n < 1 || n > 1e6 || n != std::floor(n)) throw UserError("--repeat takes a count from 1 to 1000000");
      o.repeat = static_cast<int>(n);
    } else if (a == "-v" || a == "--verbose") o.verbose = true;
    else if (a == "--no-cache") o.useCache = false;
    else if (a == "--no-fuse") o.fuse = false;
    else if (a == "--gray") o.gray = true;
    else if (a == "-w") o.warnings = false;
    else if (!a.empty() && a[0] == '-') throw UserError("unknown option '" + a + "' of formac run\n" + runUsage());
    else if (o.program.empty()) o.program = a;
    else throw UserError("formac run takes one program; '" + o.program + "' and '" + a + "' given");
  }
  if (o.help) return o;
  if (o.program.empty()) throw UserError("formac run: no program given\n" + runUsage());
  return o;
}

std::string readProgram(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UserError("cannot read '" + path + "'");
  return ss.str();
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// "0.41 s" / "3.2 ms", enough digits to read.
std::string duration(double seconds) {
  if (seconds >= 1) return fixed(seconds, 2) + " s";
  if (seconds >= 0.1) return fixed(seconds, 2) + " s";
  double ms = seconds * 1e3;
  return fixed(ms, ms >= 10 ? 1 : ms >= 1 ? 2 : 3) + " ms";
}

std::string stem(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  return base.substr(0, base.find('.'));
}

int execute(const RunOptions& o) {
  if (o.help) {
    std::cout << runUsage();
    return 0;
  }
  auto verbose = [&](const std::string& line) {
    if (o.verbose) std::cerr << "formac: " << line << "\n";
  };
  for (const auto& out : o.outputs) checkOutputPath(out);
  std::string source = readProgram(o.program);

  // The front end alone first, so that bad inputs fail before any compiling.
  CompileOptions co;
  co.sourcePath = o.program;
  co.fuse = o.fuse;
  co.useCache = o.useCache;
  co.backend = Backend::Eval;
  auto t0 = Clock::now();
  CompiledPipeline front = compile(source, co);
  if (o.warnings)
    for (const auto& w : front.warnings()) std::cerr << w;
  verbose("front end: " + duration(since(t0)));

  std::vector<ImageInfo> ins = front.inputImages();
  std::vector<InputFile> files;
  std::vector<std::vector<long long>> extents;
  auto t1 = Clock::now();
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    if (i >= ins.size()) break;  // bind() reports the count
    files.push_back(readInputImage(o.inputs[i], ins[i].name, ins[i].type, ins[i].rank, o.gray));
    extents.push_back(files.back().image.extent);
  }
  if (o.inputs.size() > ins.size()) extents.resize(o.inputs.size());
  BindStyle style;
  style.program = o.program;
  std::vector<GivenImage> given;
  for (size_t i = 0; i < extents.size(); ++i) given.push_back({extents[i], "'" + o.inputs[i] + "'"});
  Binding b = bind(front.pipeline(), given, o.values, style);
  std::vector<ImageInfo> outs = front.outputImages();
  // Scalar results (reductions) go to stdout; each image result takes an --output.
  std::vector<size_t> fileOf(outs.size(), 0);
  size_t images = 0;
  for (size_t i = 0; i < outs.size(); ++i)
    if (outs[i].rank > 0) fileOf[i] = images++;
  if (o.outputs.size() != images)
    throw UserError(o.program + " returns " + std::to_string(images) + " image" + (images == 1 ? "" : "s") +
                    (images < outs.size() ? " (and " + std::to_string(outs.size() - images) +
                                                " scalar" + (outs.size() - images == 1 ? "" : "s") +
                                                ", written to stdout)"
                                          : "") +
                    ", but " + std::to_string(o.outputs.size()) + " --output " +
                    (o.outputs.size() == 1 ? "was" : "were") + " given");
  for (const auto& out : outs) channelsOf(out.type, out.name);
  verbose("read " + std::to_string(files.size()) + " input image(s): " + duration(since(t1)));

  co.backend = o.backend;
  auto t2 = Clock::now();
  CompiledPipeline p = o.backend == Backend::Eval ? front : compile(source, co);
  double compileSeconds = since(t2) + (o.backend == Backend::Eval ? front.compileSeconds() : 0);
  for (const auto& n : p.notes()) verbose(n);

  std::vector<HostImage> results(outs.size());
  std::vector<void*> inPtrs, outPtrs;
  for (auto& f : files) inPtrs.push_back(f.image.bytes.data());
  for (size_t i = 0; i < outs.size(); ++i) {
    results[i].type = outs[i].type;
    results[i].extent = p.outputExtent(i, b.params);
    size_t n = 1;
    for (long long e : results[i].extent) n *= static_cast<size_t>(e);
    results[i].bytes.assign(n * typeSize(outs[i].type) + 1, 0);  // +1: a valid pointer when empty
    outPtrs.push_back(results[i].bytes.data());
  }
  std::vector<double> times;
  for (int r = 0; r < o.repeat; ++r) {
    auto t = Clock::now();
    p.run(b, inPtrs, outPtrs);
    times.push_back(since(t));
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2];
  if (o.verbose && o.repeat > 1)
    verbose("runs: first " + duration(times[0]) + ", fastest " + duration(sorted[0]) + ", median " +
            duration(median));
  if (o.verbose) {
    std::vector<long long> rounds = p.loopRounds();
    std::vector<const ir::Stage*> loops = codegen::loopsOf(p.pipeline());
    std::vector<bool> settled = p.loopsSettle();
    for (size_t k = 0; k < rounds.size() && k < loops.size(); ++k) {
      // The C code settles a monotone propagation (passes/LocalFixpoint.h):
      // its count is round 1 and each exchange between bands after it.
      bool settles = settled[k];
      verbose("do loop over '" + loops[k]->loop->iterator + "' (line " + std::to_string(loops[k]->loop->loc.line) +
              "): " + std::to_string(rounds[k]) +
              (settles ? " passes over the image (round 1 and each exchange of its settling in bands of rows; "
                         "the rounds when they ran one by one: round 1 moved points both ways, or the changes "
                         "added up to more than the limit)"
                       : " rounds, each a pass over its images"));
    }
  }

  auto t3 = Clock::now();
  SampleFormat depth = files.empty() ? SampleFormat::U8 : files[0].format;
  for (size_t i = 0; i < outs.size(); ++i) {
    results[i].bytes.pop_back();
    if (outs[i].rank == 0) std::cout << outs[i].name << " = " << formatValue(outs[i].type, results[i].bytes.data()) << "\n";
    else writeOutputImage(o.outputs[fileOf[i]], outs[i].name, results[i], depth);
  }
  verbose("wrote " + std::to_string(images) + " output image(s): " + duration(since(t3)));

  std::string size = describeExtent(files.empty() ? results[0].extent : files[0].image.extent);
  std::cerr << "formac: " << stem(o.program) << " " << size << " " << backendName(p.backend()) << ": compile "
            << duration(compileSeconds) << (p.cached() ? " (cached)" : "") << ", run " << duration(median)
            << (o.repeat > 1 ? " (median of " + std::to_string(o.repeat) + ")" : "") << "\n";
  return 0;
}

}  // namespace

std::string runUsage() {
  return "usage: formac run PROGRAM.idsl --input IMAGE ... [--param NAME=VALUE ...] --output IMAGE ...\n"
         "  -i, --input FILE        an input image, one per image input in declaration order:\n"
         "                          PNG and TIFF (8/16-bit; TIFF also float, multi-page = 3-D),\n"
         "                          JPEG, PGM/PPM, PFM, or .npy (exact values, any rank 1-4)\n"
         "  -p, --param NAME=VALUE  a parameter (size) or a scalar input\n"
         "  -o, --output FILE       where to write a result, one per value the program returns\n"
         "                          (`return a, b;`: two), in order; the format by extension:\n"
         "                          .png .jpg .jpeg .tif .tiff .npy .pgm .ppm .pnm .pfm\n"
         "  --gray                  convert RGB(A) inputs to gray for inputs of a number type\n"
         "                          (0.299 R + 0.587 G + 0.114 B, as OpenCV's RGB2GRAY)\n"
         "  --backend=jit|eval|cuda jit: Clang in-process (the default when built with it);\n"
         "                          eval: the reference evaluator; cuda: the GPU (NVRTC)\n"
         "  --repeat N              run N times, report the median\n"
         "  --no-cache              compile again even if the cache has it\n"
         "  --no-fuse, -w           as for formac\n"
         "  -v, --verbose           what each step took\n";
}

int runCommand(const std::vector<std::string>& args) {
  return exitStatusOf([&] { return execute(parseRunOptions(args)); });
}

}  // namespace formac::run
