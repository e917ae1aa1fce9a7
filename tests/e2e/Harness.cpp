#include "Harness.h"

#include <sstream>

namespace formac::e2e {
namespace {

const int kCanary = 64;  // bytes after each output that must stay 0xA5

// "NULL", or for a struct element a C string with a '1' for each byte that
// belongs to a field and a '0' for each byte of padding: kernels may store a
// struct whole, padding and all, so its padding bytes are not compared.
std::string fieldBytes(const Type& t) {
  if (!t.isStruct()) return "NULL";
  std::string mask(typeSize(t), '0');
  const StructType& s = *t.structType;
  for (size_t f = 0; f < s.fields.size(); ++f) {
    size_t at = fieldOffset(s, static_cast<int>(f));
    for (int b = 0; b < scalarSize(s.fields[f].type); ++b) mask[at + static_cast<size_t>(b)] = '1';
  }
  return "\"" + mask + "\"";
}

std::string paramList(const ir::Pipeline& p, const HarnessRun& r) {
  std::string t;
  for (size_t i = 0; i < p.params.size(); ++i)
    t += (t.empty() ? "" : ", ") + p.params[i].name + " = " + std::to_string(r.params[i]);
  return t.empty() ? "fixed sizes" : t;
}

// With E2E_DEVICE (the CUDA build): one more call through the workspace API
// with device images, run_async on a stream of its own; its outputs must be
// the bytes of call 0 (which the checker compares with the evaluator).
std::string deviceCall(const ir::Pipeline& p, const std::string& kernel, const HarnessRun& run, int ri) {
  std::ostringstream os;
  std::string args, params;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    args += (args.empty() ? "" : ", ") +
            std::string(p.inputs[i].kind == ir::EntryArg::Image ? "d_in" : "in") + std::to_string(i);
  for (size_t o = 0; o < p.outputs.size(); ++o) args += (args.empty() ? "" : ", ") + ("d_out" + std::to_string(o));
  for (long long v : run.params) params += (params.empty() ? "" : ", ") + std::to_string(v);
  os << "#ifdef E2E_DEVICE\n    { /* device images, " << kernel << "_run_async on a stream of its own */\n"
     << "      void* stream = e2e_device_stream();\n"
     << "      " << kernel << "_workspace* ws = " << kernel << "_create(" << params << ");\n";
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (p.inputs[i].kind == ir::EntryArg::Image)
      os << "      void* d_in" << i << " = e2e_device_copy(in" << i << ", " << run.inputBytes[i] << "u);\n";
  auto fill = [&](size_t o) { return p.stages[static_cast<size_t>(p.outputs[o])].type.isStruct() ? "0" : "0xA5"; };
  for (size_t o = 0; o < p.outputs.size(); ++o)
    os << "      void* d_out" << o << " = e2e_device_filled(" << run.outputBytes[o] << "u, " << fill(o) << ");\n";
  os << "      if (!ws || " << kernel << "_run_async(ws, stream, " << args << ") != 0) {\n"
     << "        printf(\"note run " << ri << ": " << kernel << "_run_async failed\\n\");\n        bad += 1;\n      }\n"
     << "      bad += e2e_device_finish(stream);\n";
  for (size_t o = 0; o < p.outputs.size(); ++o)
    os << "      bad += e2e_device_same(d_out" << o << ", out" << o << "[0], " << run.outputBytes[o] << "u, " << fill(o)
       << ", " << fieldBytes(p.stages[static_cast<size_t>(p.outputs[o])].type) << ", " << ri << ", " << o << ");\n";
  os << "      if (ws) " << kernel << "_destroy(ws);\n";
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (p.inputs[i].kind == ir::EntryArg::Image) os << "      e2e_device_free(d_in" << i << ");\n";
  for (size_t o = 0; o < p.outputs.size(); ++o) os << "      e2e_device_free(d_out" << o << ");\n";
  os << "    }\n#endif\n";
  return os.str();
}

}  // namespace

std::string inputFile(int program, int run, int input) {
  return "p" + std::to_string(program) + "_r" + std::to_string(run) + "_i" + std::to_string(input) +
         ".bin";
}

std::string outputFile(int program, int run, int output, int call) {
  return "p" + std::to_string(program) + "_r" + std::to_string(run) + "_o" + std::to_string(output) +
         "_c" + std::to_string(call) + ".bin";
}

std::string harnessFunction(const ir::Pipeline& p, int id, const std::string& kernel,
                            const std::string& header, const std::vector<HarnessRun>& runs) {
  std::ostringstream os;
  os << "#include \"" << header << "\"\n#include \"e2e.h\"\n\n"
     << "int e2e_run_" << id << "(const char* dir) {\n  int bad = 0;\n";
  if (runs.empty()) os << "  (void)dir;\n";
  for (size_t r = 0; r < runs.size(); ++r) {
    const HarnessRun& run = runs[r];
    int ri = static_cast<int>(r);
    os << "  { /* run " << r << ": " << paramList(p, run) << " */\n";
    std::string args;
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      const ir::EntryArg& in = p.inputs[i];
      std::string var = "in" + std::to_string(i);
      std::string file = inputFile(id, ri, static_cast<int>(i));
      if (in.kind == ir::EntryArg::Image) {
        std::string t = p.stages[static_cast<size_t>(in.index)].type.cName();
        os << "    " << t << "* " << var << " = (" << t << "*)e2e_load(dir, \"" << file << "\", "
           << run.inputBytes[i] << "u);\n";
      } else {
        os << "    " << scalarCType(p.scalars[static_cast<size_t>(in.index)].type) << " " << var
           << ";\n    e2e_load_value(dir, \"" << file << "\", &" << var << ", sizeof " << var
           << ");\n";
      }
      args += (args.empty() ? "" : ", ") + var;
    }
    for (long long v : run.params) args += (args.empty() ? "" : ", ") + std::to_string(v);
    // out<o>[call]: one poisoned buffer per output and call.
    auto callWith = [&](int call) {
      std::string a = args;
      for (size_t o = 0; o < p.outputs.size(); ++o) {
        std::string t = p.stages[static_cast<size_t>(p.outputs[o])].type.cName();
        a += (a.empty() ? "" : ", ") + ("(" + t + "*)out" + std::to_string(o) + "[" +
                                        std::to_string(call) + "]");
      }
      return kernel + "(" + a + ");\n";
    };
    os << "    int call;\n";
    for (size_t o = 0; o < p.outputs.size(); ++o)
      os << "    unsigned char* out" << o << "[" << kCallsPerRun << "];\n";
    os << "    for (call = 0; call < " << kCallsPerRun << "; ++call) {\n";
    for (size_t o = 0; o < p.outputs.size(); ++o)
      os << "      out" << o << "[call] = e2e_alloc(" << run.outputBytes[o] << "u);\n"
         << "      e2e_poison(out" << o << "[call], " << run.outputBytes[o] << "u);\n";
    os << "    }\n"
       << "    /* The first call makes the cached workspace, the second reuses it while\n"
       << "       the third runs concurrently with it (on a workspace of its own). */\n"
       << "    " << callWith(0)
       << "#ifdef _OPENMP\n#pragma omp parallel sections num_threads(2)\n    {\n"
       << "#pragma omp section\n      " << callWith(1)
       << "#pragma omp section\n      " << callWith(2) << "    }\n#else\n"
       << "    " << callWith(1) << "    " << callWith(2) << "#endif\n"
       << deviceCall(p, kernel, run, ri) << "    for (call = 0; call < " << kCallsPerRun << "; ++call) {\n";
    for (size_t o = 0; o < p.outputs.size(); ++o)
      os << "      bad += e2e_save(dir, " << id << ", " << r << ", " << o << ", call, out" << o
         << "[call], " << run.outputBytes[o] << "u);\n      free(out" << o << "[call]);\n";
    os << "    }\n";
    for (size_t i = 0; i < p.inputs.size(); ++i)
      if (p.inputs[i].kind == ir::EntryArg::Image)
        os << "    bad += e2e_unchanged(dir, \"" << inputFile(id, ri, static_cast<int>(i))
           << "\", in" << i << ", " << run.inputBytes[i] << "u);\n    free(in" << i << ");\n";
    os << "  }\n";
  }
  os << "  return bad;\n}\n";
  return os.str();
}

std::string harnessCommonHeader() {
  return R"(#ifndef E2E_H
#define E2E_H
#include <stddef.h>
#include <stdlib.h>
void* e2e_load(const char* dir, const char* name, size_t bytes);
void e2e_load_value(const char* dir, const char* name, void* into, size_t bytes);
unsigned char* e2e_alloc(size_t bytes);
void e2e_poison(unsigned char* p, size_t bytes);
int e2e_save(const char* dir, int program, int run, int output, int call,
             const unsigned char* p, size_t bytes);
int e2e_unchanged(const char* dir, const char* name, const void* p, size_t bytes);
#ifdef E2E_DEVICE
#include <stdio.h>
/* e2e_device.cu: device buffers and streams for the run_async call. */
void* e2e_device_stream(void);
int e2e_device_finish(void* stream);
void* e2e_device_copy(const void* host, size_t bytes);
void* e2e_device_filled(size_t bytes, int fill);
int e2e_device_same(const void* device, const unsigned char* host, size_t bytes, int fill, const char* field_bytes,
                    int run, int output);
void e2e_device_free(void* device);
#endif
#endif
)";
}

std::string harnessDeviceSupport() {
  return R"(/* The e2e harness's device side (E2E_DEVICE): buffers and streams for the
   call through <kernel>_run_async. Any CUDA failure is a failed case. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int e2e_cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return 0;
  printf("note %s: %s\n", what, cudaGetErrorString(e));
  return 1;
}
extern "C" void* e2e_device_stream(void) {
  cudaStream_t s = 0;
  if (e2e_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate")) exit(5);
  return s;
}
extern "C" int e2e_device_finish(void* stream) {
  int bad = e2e_cuda(cudaStreamSynchronize((cudaStream_t)stream), "run_async's stream");
  cudaStreamDestroy((cudaStream_t)stream);
  return bad;
}
static void* e2e_device_alloc(size_t bytes) {
  void* d = NULL;
  if (e2e_cuda(cudaMalloc(&d, bytes + 16), "cudaMalloc")) exit(5);
  return d;
}
extern "C" void* e2e_device_copy(const void* host, size_t bytes) {
  void* d = e2e_device_alloc(bytes);
  /* A copy from pageable memory may return before its DMA ends: wait for it
     (run_async's stream is non-blocking, unordered with the copy). */
  if (e2e_cuda(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy") ||
      e2e_cuda(cudaDeviceSynchronize(), "cudaMemcpy"))
    exit(5);
  return d;
}
extern "C" void* e2e_device_filled(size_t bytes, int fill) {
  void* d = e2e_device_alloc(bytes);
  if (e2e_cuda(cudaMemset(d, fill, bytes + 16), "cudaMemset") || e2e_cuda(cudaDeviceSynchronize(), "cudaMemset"))
    exit(5);
  return d;
}
/* field_bytes (NULL for a scalar image): an element's bytes, '1' for a
   field's, '0' for padding, which a kernel may store as it finds it. */
extern "C" int e2e_device_same(const void* device, const unsigned char* host, size_t bytes, int fill,
                               const char* field_bytes, int run, int output) {
  unsigned char* back = (unsigned char*)malloc(bytes + 16);
  const size_t element = field_bytes ? strlen(field_bytes) : 1;
  size_t i;
  int bad = 0;
  if (!back || e2e_cuda(cudaMemcpy(back, device, bytes + 16, cudaMemcpyDeviceToHost), "cudaMemcpy")) exit(5);
  for (i = 0; i < bytes + 16 && !bad; ++i) {
    if (i < bytes && field_bytes && field_bytes[i % element] == '0') continue; /* padding */
    if (back[i] != (i < bytes ? host[i] : (unsigned char)fill)) {
      printf("note run %d output %d: run_async %s at byte %lu\n", run, output,
             i < bytes ? "differs from the entry point" : "wrote past the end", (unsigned long)i);
      bad = 1;
    }
  }
  free(back);
  return bad;
}
extern "C" void e2e_device_free(void* device) { cudaFree(device); }
)";
}

std::string harnessMain(const std::vector<int>& programIds) {
  std::ostringstream os;
  os << "#include \"e2e.h\"\n#include <stdio.h>\n#include <string.h>\n\n"
     << "#define E2E_CANARY " << kCanary << "\n"
     << R"(/* argv[3] when given: where the outputs go (else next to the inputs). */
static const char* e2e_output_dir = NULL;
static FILE* e2e_open(const char* dir, const char* name, const char* mode) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return fopen(path, mode);
}
void* e2e_load(const char* dir, const char* name, size_t bytes) {
  unsigned char* p = (unsigned char*)malloc(bytes + 1);
  FILE* f = e2e_open(dir, name, "rb");
  if (!p || !f || fread(p, 1, bytes, f) != bytes) {
    printf("note cannot read %s\n", name);
    exit(3);
  }
  fclose(f);
  return p;
}
void e2e_load_value(const char* dir, const char* name, void* into, size_t bytes) {
  void* p = e2e_load(dir, name, bytes);
  memcpy(into, p, bytes);
  free(p);
}
unsigned char* e2e_alloc(size_t bytes) {
  unsigned char* p = (unsigned char*)malloc(bytes + E2E_CANARY);
  if (!p) exit(4);
  return p;
}
void e2e_poison(unsigned char* p, size_t bytes) { memset(p, 0xA5, bytes + E2E_CANARY); }
int e2e_save(const char* dir, int program, int run, int output, int call,
             const unsigned char* p, size_t bytes) {
  char name[256];
  size_t i;
  int bad = 0;
  FILE* f;
  for (i = bytes; i < bytes + E2E_CANARY; ++i)
    if (p[i] != 0xA5) {
      printf("note output %d of run %d (call %d) was written past its end, at byte %lu\n",
             output, run, call, (unsigned long)i);
      bad = 1;
      break;
    }
  snprintf(name, sizeof name, "p%d_r%d_o%d_c%d.bin", program, run, output, call);
  f = e2e_open(e2e_output_dir ? e2e_output_dir : dir, name, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) {
    printf("note cannot write %s\n", name);
    exit(3);
  }
  fclose(f);
  return bad;
}
int e2e_unchanged(const char* dir, const char* name, const void* p, size_t bytes) {
  void* orig = e2e_load(dir, name, bytes);
  int same = memcmp(orig, p, bytes) == 0;
  free(orig);
  if (!same) printf("note input %s was modified\n", name);
  return !same;
}

)";
  for (int id : programIds) os << "int e2e_run_" << id << "(const char* dir);\n";
  os << "static int (*const e2e_programs[])(const char*) = {";
  for (size_t i = 0; i < programIds.size(); ++i) os << (i ? ", " : "") << "e2e_run_" << programIds[i];
  if (programIds.empty()) os << "0";
  os << "};\nstatic const int e2e_count = " << programIds.size() << ";\n\n"
     << R"(int main(int argc, char** argv) {
  int i;
  if (argc < 3) return 2;
  if (argc > 3) e2e_output_dir = argv[3];
  for (i = atoi(argv[2]); i < e2e_count; ++i) {
    int bad;
    printf("start %d\n", i);
    fflush(stdout);
    bad = e2e_programs[i](argv[1]);
    printf("done %d %d\n", i, bad);
    fflush(stdout);
  }
  return 0;
}
)";
  return os.str();
}

}  // namespace formac::e2e
