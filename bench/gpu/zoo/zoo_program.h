// bench/gpu/zoo: one zoo program as zoo_driver.cu sees it. prepare.py writes a
// glue.cpp per program that defines `zoo_program`: its runs (the benchmark's
// size, then zoo.txt's test sizes), its image inputs and outputs, and calls of
// its three entry points (formac's C, CUDA fused, CUDA --no-fuse; scalar
// inputs are bound in the calls).
#pragma once

#include <cstdint>

// Element kinds: 0 unsigned char (int8), 1 short, 2 unsigned short, 3 int,
// 4 long long, 5 float, 6 double. A struct image has `fields` of one kind.
struct ZooBuffer {
  int kind, fields, bytes;  // bytes of one element (all its fields)
  int seed;                 // an input's values: zoo_value(seed, i, kind)
  const char* name;
};

struct ZooRun {
  const char* label;      // "bench", "test0", ...
  const char* size;       // the first input's extent, "8192x8192"
  long long params[8];    // in declaration order
  long long inCount[8];   // elements of each input
  long long outCount[8];  // elements of each output
};

struct ZooProgram {
  const char* name;
  int inputs, outputs, runs;
  const ZooBuffer* in;
  const ZooBuffer* out;
  const ZooRun* run;
  void (*callC)(void** in, void** out, const long long* params);
  void* (*createFused)(const long long* params);
  int (*runFused)(void* ws, void** in, void** out);  // run_async on the default stream
  void (*destroyFused)(void* ws);
  void* (*createUnfused)(const long long* params);
  int (*runUnfused)(void* ws, void** in, void** out);
  void (*destroyUnfused)(void* ws);
};

extern const ZooProgram zoo_program;

// The i-th value of the input with this seed (each field a value: i counts
// fields), in [0, 255] for int8, [0, 4095] for int16, [0, 65535] for uint16
// and int, [0, 2^20] for int64, [0, 1) for float and double. prepare.py's
// value() is the same formula, for the evaluator's inputs.
static inline uint64_t zoo_hash(int seed, uint64_t i) {
  uint64_t z = i + (uint64_t)seed * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static inline void zoo_value(int seed, uint64_t i, int kind, void* at) {
  const uint64_t z = zoo_hash(seed, i);
  const double u = (double)(z >> 11) * (1.0 / 9007199254740992.0);
  switch (kind) {
    case 0: *(unsigned char*)at = (unsigned char)(z % 256); break;
    case 1: *(short*)at = (short)(z % 4096); break;
    case 2: *(unsigned short*)at = (unsigned short)(z % 65536); break;
    case 3: *(int*)at = (int)(z % 65536); break;
    case 4: *(long long*)at = (long long)(z % ((1ull << 20) + 1)); break;
    case 5: *(float*)at = (float)u; break;
    default: *(double*)at = u; break;
  }
}
