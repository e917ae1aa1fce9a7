#include "CRunner.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "Harness.h"
#include "Values.h"
#include "codegen/CodeGen_C.h"
#include "eval/Evaluator.h"
#include "frontend/Frontend.h"

namespace fs = std::filesystem;

namespace formac::e2e {
namespace {

// One program on its way through the front end, the C compiler and the
// comparison. `error` set means it failed (and stops there).
struct Program : PreparedProgram {
  const ProgramCase* spec = nullptr;
  int id = 0;
  std::string kernel;
  codegen::GeneratedC code;
  CaseOutcome outcome;
  std::string error;
  std::string notes;  // what the harness printed while it ran
  bool finished = false;  // the harness printed "done"
};

std::string shellQuote(const std::string& s) {
  std::string t = "'";
  for (char c : s) t += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return t + "'";
}

// Runs a shell command; returns its exit status and its merged output.
int runCommand(const std::string& cmd, std::string& output) {
  output.clear();
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) output.append(buf, n);
  int status = pclose(f);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}
void writeBytes(const fs::path& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}
bool readBytes(const fs::path& path, std::vector<unsigned char>& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

std::string truncated(const std::string& s, size_t n = 4000) {
  return s.size() <= n ? s : s.substr(0, n) + "\n[... " + std::to_string(s.size() - n) + " more bytes]";
}

std::string describeRun(const ir::Pipeline& p, const std::vector<long long>& params) {
  std::string t;
  for (size_t i = 0; i < p.params.size(); ++i)
    t += (t.empty() ? "" : " ") + p.params[i].name + "=" + std::to_string(params[i]);
  return t.empty() ? "fixed sizes" : t;
}

void fail(Program& g, const std::string& why) {
  if (!g.error.empty()) return;
  g.error = why + "\n--- program " + g.spec->name + " ---\n" + g.spec->source;
}

// Objects of generated C already compiled in this process, by a hash of the
// compiler, its flags and the source: a special-values case (codeName) and the
// sats that CBackendThreads runs again compile to the same C as another suite's.
class ObjectCache {
 public:
  ~ObjectCache() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  static std::string key(const std::string& compile, const std::string& source) {
    uint64_t h = 14695981039346656037ull;
    for (const std::string* s : {&compile, &source})
      for (char c : *s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
  }
  // Copies the object of `key` to `to`; false when there is none.
  bool fetch(const std::string& key, const fs::path& to) {
    std::lock_guard<std::mutex> lock(m_);
    if (dir_.empty() || !fs::exists(dir_ / (key + ".o"))) return false;
    std::error_code ec;
    fs::copy_file(dir_ / (key + ".o"), to, fs::copy_options::overwrite_existing, ec);
    return !ec;
  }
  void store(const std::string& key, const fs::path& from) {
    std::lock_guard<std::mutex> lock(m_);
    if (dir_.empty()) {
      std::string tmpl = (fs::temp_directory_path() / "formac_e2e_objects_XXXXXX").string();
      std::vector<char> buf(tmpl.begin(), tmpl.end());
      buf.push_back('\0');
      if (!mkdtemp(buf.data())) return;
      dir_ = buf.data();
    }
    std::error_code ec;
    fs::copy_file(from, dir_ / (key + ".o"), fs::copy_options::overwrite_existing, ec);
  }

 private:
  std::mutex m_;
  fs::path dir_;
};

ObjectCache& objectCache() {
  static ObjectCache cache;
  return cache;
}

uint32_t seedOf(const std::string& name) {
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// Front end, inputs, the evaluator's outputs and C generation.
void prepare(Program& g, bool singleKernel, const RunnerOptions& o) {
  if (singleKernel) g.kernel = "k";
  std::string why = prepareProgram(*g.spec, g.kernel, g);
  g.outcome.runsSkipped = g.runsSkipped;
  if (!why.empty()) return fail(g, why);
  try {
    codegen::COptions co;
    co.kernelName = g.kernel;
    co.sourcePath = g.source->path;
    co.fuse = o.fuse;
    co.openmp = o.openmp;
    g.code = codegen::generateC(g.pipeline, co);
  } catch (const std::exception& e) {
    return fail(g, std::string("generating C throws: ") + e.what());
  }
}

void writeProgram(const Program& g, const fs::path& dir) {
  std::string stem = "p" + std::to_string(g.id);
  writeFile(dir / (stem + ".c"), g.code.source);
  writeFile(dir / (stem + ".h"), g.code.header);
  std::vector<HarnessRun> sizes;
  for (const auto& r : g.runs) sizes.push_back(r.sizes);
  writeFile(dir / ("h" + std::to_string(g.id) + ".c"),
            harnessFunction(g.pipeline, g.id, g.kernel, stem + ".h", sizes));
  for (size_t r = 0; r < g.runs.size(); ++r)
    for (size_t i = 0; i < g.runs[r].inputs.size(); ++i)
      writeBytes(dir / inputFile(g.id, static_cast<int>(r), static_cast<int>(i)), g.runs[r].inputs[i]);
}

// Compiles the batch's programs to objects, names those that do not compile,
// links the rest with main.c and runs them, restarting after a crash.
void buildAndRun(std::vector<Program*>& batch, const fs::path& dir, const RunnerOptions& o) {
  std::string cc = shellQuote(o.cc) + " " + o.cflags + " -I. ";
  std::string cd = "cd " + shellQuote(dir.string()) + " && ";
  std::string all, log;
  std::map<int, std::string> keys;  // the programs compiled here, by id
  for (Program* g : batch) {
    std::string id = std::to_string(g->id), key = ObjectCache::key(o.cc + " " + o.cflags, g->code.source);
    if (!objectCache().fetch(key, dir / ("p" + id + ".o"))) {
      all += " p" + id + ".c";
      keys[g->id] = key;
    }
    all += " h" + id + ".c";
  }
  runCommand(cd + cc + "-c" + all, log);
  for (const auto& [id, key] : keys)
    if (fs::exists(dir / ("p" + std::to_string(id) + ".o")))
      objectCache().store(key, dir / ("p" + std::to_string(id) + ".o"));
  std::vector<Program*> ok;
  for (Program* g : batch) {
    std::string id = std::to_string(g->id);
    if (fs::exists(dir / ("p" + id + ".o")) && fs::exists(dir / ("h" + id + ".o"))) {
      ok.push_back(g);
      continue;
    }
    std::string own;
    runCommand(cd + cc + "-c p" + id + ".c h" + id + ".c", own);
    fail(*g, "the generated C does not compile (" + o.cc + " " + o.cflags + "):\n" + truncated(own));
  }
  std::vector<int> ids;
  std::string objects;
  for (Program* g : ok) {
    ids.push_back(g->id);
    objects += " p" + std::to_string(g->id) + ".o h" + std::to_string(g->id) + ".o";
  }
  writeFile(dir / "main.c", harnessMain(ids));
  if (runCommand(cd + cc + "main.c" + objects + " -o run -lm", log) != 0) {
    for (Program* g : ok) fail(*g, "linking the batch fails:\n" + truncated(log));
    return;
  }
  size_t next = 0;
  while (next < ok.size()) {
    std::string out;
    std::string threads = o.threads.empty() ? "" : "OMP_NUM_THREADS=" + o.threads + " ";
    int status = runCommand(cd + threads + "OMP_WAIT_POLICY=passive timeout 120 ./run . " + std::to_string(next), out);
    std::istringstream lines(out);
    std::string line;
    Program* current = nullptr;
    size_t resume = ok.size();
    while (std::getline(lines, line)) {
      unsigned pos = 0;
      int bad = 0;
      if (std::sscanf(line.c_str(), "start %u", &pos) == 1 && pos < ok.size()) {
        current = ok[pos];
        resume = pos + 1;
      } else if (std::sscanf(line.c_str(), "done %u %d", &pos, &bad) == 2 && pos < ok.size()) {
        ok[pos]->finished = true;
        if (bad) fail(*ok[pos], "the harness reports:\n" + ok[pos]->notes);
        current = nullptr;
      } else if (current) {
        current->notes += line + "\n";
      }
    }
    if (current && !current->finished)
      fail(*current, "the generated code crashes or hangs (exit status " + std::to_string(status) +
                         "); output:\n" + truncated(current->notes));
    if (resume <= next) break;  // no progress: give up on the rest
    next = resume;
  }
  for (Program* g : ok)
    if (!g->finished) fail(*g, "the harness never finished this program");
}

void compareOutputs(Program& g, const fs::path& dir) {
  const ir::Pipeline& p = g.pipeline;
  for (size_t r = 0; r < g.runs.size(); ++r) {
    const PreparedRun& run = g.runs[r];
    for (size_t o = 0; o < p.outputs.size(); ++o) {
      const ir::Stage& s = p.stages[static_cast<size_t>(p.outputs[o])];
      for (int call = 0; call < kCallsPerRun; ++call) {
        std::vector<unsigned char> got;
        if (!readBytes(dir / outputFile(g.id, static_cast<int>(r), static_cast<int>(o), call), got))
          return fail(g, "no output file for run " + std::to_string(r));
        std::string diff = firstDifference(s.type, run.expected[o].extent, run.expected[o].bytes, got);
        if (diff.empty()) continue;
        std::string shape = s.type.name() + "[";
        for (size_t d = 0; d < run.expected[o].extent.size(); ++d)
          shape += (d ? "," : "") + std::to_string(run.expected[o].extent[d]);
        return fail(g, "mismatch for " + describeRun(p, run.sizes.params) + ", output " +
                           std::to_string(o) + " (" + shape + "]), call " + std::to_string(call + 1) +
                           ": " + diff);
      }
    }
    ++g.outcome.runsCompared;
  }
}

// The CPUs this process may run on (a cpuset or taskset may allow fewer than
// the machine has).
int availableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Whether a stage of a `do` loop's body in `p` has a negative extent for
// `params` (a crop in the body): such a run is skipped like one whose outer
// stages have.
bool negativeInLoopBodies(const ir::Pipeline& p, const std::vector<long long>& params) {
  for (const auto& s : p.stages)
    if (s.kind == ir::Stage::LoopResult && s.loopIndex == 0)
      for (const auto& b : s.loop->body->stages)
        for (const auto& e : b.extent)
          if (ir::evalSize(e, params) < 0) return true;
  return false;
}

}  // namespace

std::vector<std::vector<long long>> parseRuns(const std::string& sizes) {
  std::vector<std::vector<long long>> runs;
  std::istringstream in(sizes);
  for (std::string run; std::getline(in, run, ',');) {
    runs.emplace_back();
    std::istringstream dims(run);
    for (std::string d; std::getline(dims, d, 'x');) runs.back().push_back(std::stoll(d));
  }
  return runs;
}

std::string codeName(const ProgramCase& c) {
  const std::string suffix = "_special";
  size_t n = c.name.size(), s = suffix.size();
  if (c.specialValues && n > s && c.name.compare(n - s, s, suffix) == 0) return c.name.substr(0, n - s);
  return c.name;
}

std::string prepareProgram(const ProgramCase& c, const std::string& kernel, PreparedProgram& g) {
  g.source = std::make_unique<SourceFile>(SourceFile{c.path.empty() ? codeName(c) + ".idsl" : c.path, c.source});
  try {
    Warnings warnings;
    g.pipeline = checkedPipeline(*g.source, kernel, warnings, g.imported, defaultImportPath());
  } catch (const UserError& e) {
    return std::string("the front end rejects the program:\n") + e.what();
  } catch (const std::exception& e) {
    return std::string("compiling the program throws: ") + e.what();
  }
  const ir::Pipeline& p = g.pipeline;
  std::mt19937 rng(seedOf(c.name));
  std::vector<std::vector<long long>> runs = c.runs;
  if (runs.empty()) runs.push_back({});
  for (const auto& params : runs) {
    if (params.size() != p.params.size())
      return "a run gives " + std::to_string(params.size()) + " parameter values for " +
             std::to_string(p.params.size()) + " parameters";
    bool negative = false;
    std::vector<std::vector<long long>> extents;
    for (const auto& s : p.stages) {
      extents.emplace_back();
      for (const auto& e : s.extent) {
        extents.back().push_back(ir::evalSize(e, params));
        negative = negative || extents.back().back() < 0;
      }
    }
    negative = negative || negativeInLoopBodies(p, params);
    if (negative) {
      ++g.runsSkipped;
      continue;
    }
    auto count = [&](int stage) {
      size_t n = 1;
      for (long long e : extents[static_cast<size_t>(stage)]) n *= static_cast<size_t>(e);
      return n;
    };
    PreparedRun run;
    run.sizes.params = params;
    eval::Inputs in;
    in.params = params;
    in.scalars.assign(p.scalars.size(), 0.0);
    std::map<int, size_t> imageOfStage;
    for (const auto& arg : p.inputs) {
      if (arg.kind == ir::EntryArg::Image) {
        const ir::Stage& s = p.stages[static_cast<size_t>(arg.index)];
        imageOfStage[arg.index] = run.inputs.size();
        run.inputs.push_back(randomImage(s.type, count(arg.index), rng, c.specialValues));
      } else {
        ScalarValue v = randomScalar(p.scalars[static_cast<size_t>(arg.index)].type, rng);
        in.scalars[static_cast<size_t>(arg.index)] = v.value;
        run.inputs.push_back(v.bytes);
      }
      run.sizes.inputBytes.push_back(run.inputs.back().size());
    }
    for (const auto& s : p.stages)
      if (s.kind == ir::Stage::Input) in.images.push_back(run.inputs.at(imageOfStage.at(s.id)).data());
    for (int o : p.outputs)
      run.sizes.outputBytes.push_back(count(o) * typeSize(p.stages[static_cast<size_t>(o)].type));
    try {
      run.expected = eval::evaluate(p, in);
    } catch (const std::exception& e) {
      return "the evaluator throws for " + describeRun(p, params) + ": " + e.what();
    }
    g.runs.push_back(std::move(run));
  }
  return "";
}

RunnerOptions defaultRunnerOptions() {
  RunnerOptions o;
#ifdef FORMAC_TEST_CC
  o.cc = FORMAC_TEST_CC;
#else
  o.cc = "cc";
#endif
  if (const char* cc = getenv("FORMAC_E2E_CC")) o.cc = cc;
  if (const char* extra = getenv("FORMAC_E2E_CFLAGS")) o.cflags += std::string(" ") + extra;
  const char* keep = getenv("FORMAC_E2E_KEEP");
  o.keepFiles = keep && *keep && std::string(keep) != "0";
  return o;
}

bool compilerAccepts(const RunnerOptions& o, const std::string& flags) {
  std::string log;
  std::string cmd = "echo 'int main(void) { return 0; }' | " + shellQuote(o.cc) + " " + o.cflags + " " +
                    flags + " -x c - -o /dev/null";
  return runCommand(cmd, log) == 0;
}

std::vector<CaseOutcome> runCases(const std::vector<ProgramCase>& cases, const RunnerOptions& o) {
  std::vector<Program> programs(cases.size());
  // Kernels named after the code (codeName), unless two cases of this run
  // share it (a case and its special-values case in one suite): one batch
  // links several programs.
  std::map<std::string, int> sharing;
  for (const auto& c : cases) ++sharing[codeName(c)];
  for (size_t i = 0; i < cases.size(); ++i) {
    programs[i].spec = &cases[i];
    programs[i].id = static_cast<int>(i);
    programs[i].kernel = "k_" + (sharing[codeName(cases[i])] > 1 ? cases[i].name : codeName(cases[i]));
  }
  std::string tmpl = (fs::temp_directory_path() / "formac_e2e_XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("cannot create a temporary directory");
  fs::path root(buf.data());

  size_t perBatch = static_cast<size_t>(std::max(1, o.programsPerBatch));
  size_t batches = (programs.size() + perBatch - 1) / perBatch;
  std::atomic<size_t> nextBatch{0};
  std::atomic<long long> prepareMicros{0}, buildMicros{0};
  auto micros = [](std::chrono::steady_clock::time_point since) {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - since)
        .count();
  };
  auto worker = [&] {
    for (size_t b; (b = nextBatch++) < batches;) {
      fs::path dir = root / ("batch" + std::to_string(b));
      fs::create_directories(dir);
      writeFile(dir / "e2e.h", harnessCommonHeader());
      std::vector<Program*> batch;
      for (size_t i = b * perBatch; i < std::min(programs.size(), (b + 1) * perBatch); ++i) {
        Program& g = programs[i];
        auto t0 = std::chrono::steady_clock::now();
        prepare(g, programs.size() == 1, o);
        prepareMicros += micros(t0);
        if (!g.error.empty()) continue;
        std::string source = g.code.source;
        if (o.stripContractPragma) {
          size_t at = source.find("#pragma GCC optimize(\"fp-contract=off\")");
          if (at != std::string::npos) source.erase(at, source.find('\n', at) - at);
          at = source.find("#pragma STDC FP_CONTRACT OFF");
          if (at != std::string::npos) source.erase(at, source.find('\n', at) - at);
          g.code.source = source;
        }
        writeProgram(g, dir);
        batch.push_back(&g);
      }
      auto t1 = std::chrono::steady_clock::now();
      if (!batch.empty()) buildAndRun(batch, dir, o);
      buildMicros += micros(t1);
      for (Program* g : batch)
        if (g->error.empty()) compareOutputs(*g, dir);
    }
  };
  int workers = o.workers > 0 ? o.workers : std::min(8, availableCpus());
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  if (getenv("FORMAC_E2E_TIMES"))
    std::fprintf(stderr, "e2e: %.1f s front end + evaluator, %.1f s compiling and running C\n",
                 prepareMicros.load() * 1e-6, buildMicros.load() * 1e-6);
  bool anyFailed = false;
  std::vector<CaseOutcome> out;
  for (Program& g : programs) {
    g.outcome.passed = g.error.empty();
    g.outcome.message = g.error;
    anyFailed = anyFailed || !g.outcome.passed;
    out.push_back(g.outcome);
  }
  if (o.keepFiles) {
    std::fprintf(stderr, "e2e: generated files kept in %s\n", root.c_str());
  } else {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  (void)anyFailed;
  return out;
}

}  // namespace formac::e2e
