// LaunchSchedule: the host's side of a CUDA pipeline as data, lowered once
// (issue 25): the kernels, the scratch buffers and their sizes, and the steps
// of one run (launches with their grids and arguments, memsets, the host
// loops over a reduction's levels or a sort's stages, conditions). Sizes and
// grids are HostExpr, long long arithmetic over the run's parameters and
// values computed by earlier steps.
//
// Two readers: `printSchedule` prints the steps as the C++ host code of the
// generated .cu (inside its enqueue function), and `formac run
// --backend=cuda` (run/CudaExecutor.cpp) interprets them through the CUDA
// driver API with `evaluate`. Neither computes a grid of its own.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/Stmt.h"
#include "ir/Size.h"

namespace formac::codegen {

// A long long value of the host (C semantics: / truncates, comparisons give 0 or 1).
struct HostExpr {
  enum Op {
    Const,   // value
    Size,    // size, over the run's parameters
    Value,   // ref: a schedule value (HostStep::Var)
    Sms,     // the device's multiprocessor count
    Add, Sub, Mul, Div, Min, Max, Less, LessEq, And,  // a[0] op a[1]
    FloorDiv, CeilDiv,  // a[0] / a[1] rounded down or up (formac_floordiv, formac_ceildiv)
    Select,  // a[0] ? a[1] : a[2]
    // The scan's tile arithmetic (Scan_CUDA.h), as formac_scan_* of its prelude:
    ScanLineTiles,   // (len a[0], tile runs a[1])
    ScanRowTiles,    // (len a[0], lines a[1], tile runs a[2])
    ScanLineGroups,  // (tiles a[0])
  } op = Const;
  long long value = 0;
  ir::Size size;
  int ref = -1;
  std::vector<HostExpr> a;
};

HostExpr hc(long long v);
HostExpr hsize(const ir::Size& s);
HostExpr hval(int ref);
HostExpr hop(HostExpr::Op op, std::vector<HostExpr> args);
HostExpr operator+(HostExpr x, HostExpr y);
HostExpr operator-(HostExpr x, HostExpr y);
HostExpr operator*(HostExpr x, HostExpr y);
HostExpr operator/(HostExpr x, HostExpr y);
HostExpr hmin(HostExpr x, HostExpr y);
HostExpr hmax(HostExpr x, HostExpr y);
HostExpr ceilDiv(HostExpr x, long long d);  // (x + d - 1) / d

// What a launch passes, in the kernel's parameter order.
struct HostArg {
  enum Kind {
    Stage,    // index: a stage's device buffer
    Scalar,   // index: a scalar input, in its C type
    Param,    // index: a parameter, in the kernel's index type (int or long long)
    Scratch,  // index: a scratch buffer, plus `at` elements of its type
    Value,    // `at` as long long
    Int,      // `at` as int
  } kind = Stage;
  int index = 0;
  HostExpr at;
  std::string cast;  // the .cu's cast of a pointer to the kernel's parameter type ("" for none)
};

struct HostKernel {
  std::string name;
  bool templated = true;  // a template over the index type: name<int> and name<long long>
  long long sharedBytes = 0;  // dynamic shared memory a block (above 48 KB: the opt-in attribute)
  // Heavy fused kernels also have int forms name<int, b> for b resident
  // blocks per SM, tightest first: the host runs the first that the compiler
  // kept free of spills, else name<int> (FusedKernel_CUDA.h).
  std::vector<int> tightBlocks;
};

struct HostStep {
  enum Kind {
    Var,     // value = expr (a fresh `long long` in the .cu; `constant`: const)
    Assign,  // value = expr
    If,      // expr != 0: body, else orElse
    While,   // while expr != 0: body
    Block,   // body, in its own scope, after `comment`
    Launch,  // kernel<<<grid, block, shared>>>(args) (an If keeps a grid of 0 from the .cu; run/ skips it)
    Memset,  // `bytes` zero bytes at args[0] (a Stage or Scratch)
    Loop,    // the `do` loop whose first LoopResult stage is `value` (the .cu only: Loop_CUDA.h)
  } kind = Block;
  int value = -1;
  bool constant = true;
  HostExpr expr;
  std::vector<HostStep> body, orElse;
  std::string comment;
  int kernel = -1;
  HostExpr grid[3], block[3];
  std::vector<HostArg> args;
  HostExpr bytes;
};

struct HostScratch {
  std::string member;  // the workspace member of the .cu
  std::string type;    // its element type
  int elementBytes = 8;
  HostExpr count;      // elements (16 bytes more are allocated)
  std::string what;
};

struct LaunchSchedule {
  std::vector<HostKernel> kernels;
  std::vector<HostScratch> scratch;
  std::vector<std::string> values;  // the C names of the values
  std::vector<HostStep> steps;
  // Point counts the kernels index besides the stages' (a reduction's
  // domain): the int forms run while every one is below kIntIndexLimit.
  std::vector<HostExpr> indexedPoints;

  int value(const std::string& name);  // a new value slot
  int kernel(HostKernel k);            // its index (a kernel already there: that one)
};

// Builders of steps.
HostStep hvar(int value, HostExpr e);
HostStep hassign(int value, HostExpr e);
HostStep hif(HostExpr c, std::vector<HostStep> then, std::vector<HostStep> orElse = {});
HostStep hwhile(HostExpr c, std::vector<HostStep> body);
HostStep hblock(std::string comment, std::vector<HostStep> body);
HostStep hmemset(HostArg at, HostExpr bytes);
// A launch of 256 threads a block (1-D) and grid (g, 1, 1).
HostStep hlaunch(int kernel, HostExpr grid, std::vector<HostArg> args, int threads = 256);

// The value of `e`: `values` holds the schedule's values, `params` the run's
// parameters, `sms` the device's multiprocessors.
long long evaluate(const HostExpr& e, const std::vector<long long>& values, const std::vector<long long>& params,
                   long long sms);

// The .cu's text of the schedule. A kernel with tight forms runs the one
// that create() chose (ws->formac_tight_NAME: its blocks per SM, 0 for none).
struct SchedulePrinter {
  const LaunchSchedule* schedule = nullptr;
  std::vector<std::string> params;                 // the parameters' C names
  std::function<std::string(int)> stageBuffer;     // a stage's device pointer
  std::function<std::string(int)> scalar;          // a scalar input's C name
  std::function<Stmt(int)> loop;                   // a Loop step's host code (Loop_CUDA.h)
};
std::string printHostExpr(const SchedulePrinter& p, const HostExpr& e);
// The steps as statements (each launch: `int_index` picks the form; a
// failure returns 1), and printed at indentation `in`. A Loop step's
// statements (SchedulePrinter::loop) are spliced in.
std::vector<Stmt> scheduleStatements(const SchedulePrinter& p, const std::vector<HostStep>& steps);
std::string printSteps(const SchedulePrinter& p, const std::vector<HostStep>& steps, const std::string& in);

}  // namespace formac::codegen
