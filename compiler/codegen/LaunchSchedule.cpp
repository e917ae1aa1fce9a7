#include "codegen/LaunchSchedule.h"

#include <algorithm>

#include "codegen/FusedKernel_CUDA.h"
#include "ir/Pipeline.h"
#include "support/Diagnostics.h"

namespace formac::codegen {

HostExpr hc(long long v) {
  HostExpr e;
  e.value = v;
  return e;
}
HostExpr hsize(const ir::Size& s) {
  long long v;
  if (ir::isConst(s, &v)) return hc(v);
  HostExpr e;
  e.op = HostExpr::Size;
  e.size = s;
  return e;
}
HostExpr hval(int ref) {
  HostExpr e;
  e.op = HostExpr::Value;
  e.ref = ref;
  return e;
}
// Folds constants, x * 1 and x + 0, so that the printed host code stays short.
HostExpr hop(HostExpr::Op op, std::vector<HostExpr> args) {
  HostExpr e;
  e.op = op;
  e.a = std::move(args);
  bool constant = op != HostExpr::Sms;
  for (const auto& x : e.a) constant = constant && x.op == HostExpr::Const;
  if (constant) return hc(evaluate(e, {}, {}, 0));
  auto is = [](const HostExpr& x, long long v) { return x.op == HostExpr::Const && x.value == v; };
  if (e.a.size() == 2 && ((op == HostExpr::Mul && is(e.a[0], 1)) || (op == HostExpr::Add && is(e.a[0], 0))))
    return e.a[1];
  if (e.a.size() == 2 && ((op == HostExpr::Mul || op == HostExpr::Div) && is(e.a[1], 1))) return e.a[0];
  if (e.a.size() == 2 && ((op == HostExpr::Add || op == HostExpr::Sub) && is(e.a[1], 0))) return e.a[0];
  return e;
}
HostExpr operator+(HostExpr x, HostExpr y) { return hop(HostExpr::Add, {std::move(x), std::move(y)}); }
HostExpr operator-(HostExpr x, HostExpr y) { return hop(HostExpr::Sub, {std::move(x), std::move(y)}); }
HostExpr operator*(HostExpr x, HostExpr y) { return hop(HostExpr::Mul, {std::move(x), std::move(y)}); }
HostExpr operator/(HostExpr x, HostExpr y) { return hop(HostExpr::Div, {std::move(x), std::move(y)}); }
HostExpr hmin(HostExpr x, HostExpr y) { return hop(HostExpr::Min, {std::move(x), std::move(y)}); }
HostExpr hmax(HostExpr x, HostExpr y) { return hop(HostExpr::Max, {std::move(x), std::move(y)}); }
HostExpr ceilDiv(HostExpr x, long long d) { return (std::move(x) + hc(d - 1)) / hc(d); }

int LaunchSchedule::value(const std::string& name) {
  values.push_back(name);
  return static_cast<int>(values.size()) - 1;
}
int LaunchSchedule::kernel(HostKernel k) {
  for (size_t i = 0; i < kernels.size(); ++i)
    if (kernels[i].name == k.name) return static_cast<int>(i);
  kernels.push_back(std::move(k));
  return static_cast<int>(kernels.size()) - 1;
}

HostStep hvar(int value, HostExpr e) {
  HostStep s;
  s.kind = HostStep::Var;
  s.value = value;
  s.expr = std::move(e);
  return s;
}
HostStep hassign(int value, HostExpr e) {
  HostStep s = hvar(value, std::move(e));
  s.kind = HostStep::Assign;
  return s;
}
HostStep hif(HostExpr c, std::vector<HostStep> then, std::vector<HostStep> orElse) {
  HostStep s;
  s.kind = HostStep::If;
  s.expr = std::move(c);
  s.body = std::move(then);
  s.orElse = std::move(orElse);
  return s;
}
HostStep hwhile(HostExpr c, std::vector<HostStep> body) {
  HostStep s = hif(std::move(c), std::move(body));
  s.kind = HostStep::While;
  return s;
}
HostStep hblock(std::string comment, std::vector<HostStep> body) {
  HostStep s;
  s.comment = std::move(comment);
  s.body = std::move(body);
  return s;
}
HostStep hmemset(HostArg at, HostExpr bytes) {
  HostStep s;
  s.kind = HostStep::Memset;
  s.args = {std::move(at)};
  s.bytes = std::move(bytes);
  return s;
}
HostStep hlaunch(int kernel, HostExpr grid, std::vector<HostArg> args, int threads) {
  HostStep s;
  s.kind = HostStep::Launch;
  s.kernel = kernel;
  s.grid[0] = std::move(grid);
  s.grid[1] = s.grid[2] = s.block[1] = s.block[2] = hc(1);
  s.block[0] = hc(threads);
  s.args = std::move(args);
  return s;
}

namespace {

// The scan's tile arithmetic; the kernels' copies are formac_scan_* in
// scanPreludeCuda (Scan_CUDA.cpp), which the printed host code calls.
long long scanLineTiles(long long len, long long tileRuns) {
  return ((len + ir::kScanRun - 1) / ir::kScanRun + tileRuns - 1) / tileRuns;
}
long long scanRowTiles(long long len, long long lines, long long tileRuns) {
  long long tiles = scanLineTiles(len, tileRuns);
  if (tiles > 1) return tiles * lines;
  long long runs = (len + ir::kScanRun - 1) / ir::kScanRun, segment = 1;
  while (segment < tileRuns && segment < runs) segment *= 2;
  long long per = tileRuns / segment;
  return (lines + per - 1) / per;
}
long long scanLineGroups(long long tiles) {
  long long g = 0;
  if (tiles > 1)
    for (long long t = tiles; t > 0; t >>= 1) g += t;
  return g;
}

}  // namespace

long long evaluate(const HostExpr& e, const std::vector<long long>& values, const std::vector<long long>& params,
                   long long sms) {
  auto at = [&](size_t i) { return evaluate(e.a.at(i), values, params, sms); };
  switch (e.op) {
    case HostExpr::Const: return e.value;
    case HostExpr::Size: return ir::evalSize(e.size, params);
    case HostExpr::Value: return values.at(static_cast<size_t>(e.ref));
    case HostExpr::Sms: return sms;
    case HostExpr::Add: return static_cast<long long>(static_cast<unsigned long long>(at(0)) + static_cast<unsigned long long>(at(1)));
    case HostExpr::Sub: return static_cast<long long>(static_cast<unsigned long long>(at(0)) - static_cast<unsigned long long>(at(1)));
    case HostExpr::Mul: return static_cast<long long>(static_cast<unsigned long long>(at(0)) * static_cast<unsigned long long>(at(1)));
    case HostExpr::Div: {
      long long d = at(1);
      FORMAC_INTERNAL_CHECK(d != 0, "a launch schedule divides by 0");
      return at(0) / d;
    }
    case HostExpr::Min: return std::min(at(0), at(1));
    case HostExpr::Max: return std::max(at(0), at(1));
    case HostExpr::Less: return at(0) < at(1);
    case HostExpr::LessEq: return at(0) <= at(1);
    case HostExpr::And: return at(0) && at(1);
    case HostExpr::FloorDiv:
    case HostExpr::CeilDiv: {
      long long d = at(1);
      FORMAC_INTERNAL_CHECK(d > 0, "a launch schedule divides by a non-positive number");
      return e.op == HostExpr::FloorDiv ? ir::floorDiv(at(0), d) : -ir::floorDiv(-at(0), d);
    }
    case HostExpr::Select: return at(0) ? at(1) : at(2);
    case HostExpr::ScanLineTiles: return scanLineTiles(at(0), at(1));
    case HostExpr::ScanRowTiles: return scanRowTiles(at(0), at(1), at(2));
    case HostExpr::ScanLineGroups: return scanLineGroups(at(0));
  }
  return 0;
}

namespace {
// `e` without the parentheses around all of it.
std::string unwrap(const std::string& t) {
  if (t.size() < 2 || t.front() != '(' || t.back() != ')') return t;
  int depth = 0;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
    if (depth == 0) return t;  // the first parenthesis closes before the end
  }
  return t.substr(1, t.size() - 2);
}

}  // namespace

std::string printHostExpr(const SchedulePrinter& p, const HostExpr& e) {
  auto at = [&](size_t i) { return printHostExpr(p, e.a.at(i)); };
  auto infix = [&](const char* op) { return "(" + at(0) + " " + op + " " + at(1) + ")"; };
  auto call = [&](const char* fn) {
    std::string t = std::string(fn) + "(";
    for (size_t i = 0; i < e.a.size(); ++i) t += (i ? ", " : "") + unwrap(at(i));
    return t + ")";
  };
  switch (e.op) {
    case HostExpr::Const: {
      std::string v = std::to_string(e.value) + (e.value > 2147483647LL || e.value < -2147483647LL ? "LL" : "");
      return e.value < 0 ? "(" + v + ")" : v;
    }
    case HostExpr::Size: return "(long long)(" + ir::printSize(e.size, p.params) + ")";
    case HostExpr::Value: return p.schedule->values.at(static_cast<size_t>(e.ref));
    case HostExpr::Sms: return "(long long)formac_sm_count()";
    case HostExpr::Add: return infix("+");
    case HostExpr::Sub: return infix("-");
    case HostExpr::Mul: return infix("*");
    case HostExpr::Div: return infix("/");
    case HostExpr::Min: return call("formac_minll");
    case HostExpr::Max: return call("formac_maxll");
    case HostExpr::Less: return infix("<");
    case HostExpr::LessEq: return infix("<=");
    case HostExpr::And: return infix("&&");
    case HostExpr::FloorDiv: return call("formac_floordiv");
    case HostExpr::CeilDiv: return call("formac_ceildiv");
    case HostExpr::Select: return "(" + at(0) + " ? " + at(1) + " : " + at(2) + ")";
    case HostExpr::ScanLineTiles: return call("formac_scan_line_tiles");
    case HostExpr::ScanRowTiles: return call("formac_scan_row_tiles");
    case HostExpr::ScanLineGroups: return call("formac_scan_line_groups");
  }
  return "0";
}

namespace {

std::string top(const SchedulePrinter& p, const HostExpr& e) { return unwrap(printHostExpr(p, e)); }

std::string pointer(const SchedulePrinter& p, const HostArg& a) {
  std::string t;
  if (a.kind == HostArg::Stage) {
    t = p.stageBuffer(a.index);
  } else {
    t = "ws->" + p.schedule->scratch.at(static_cast<size_t>(a.index)).member;
    long long off;
    bool zero = a.at.op == HostExpr::Const && (off = a.at.value, off == 0);
    if (!zero) t += " + " + printHostExpr(p, a.at);
  }
  return a.cast.empty() ? t : "(" + a.cast + ")(" + t + ")";
}

std::string argument(const SchedulePrinter& p, const HostArg& a) {
  switch (a.kind) {
    case HostArg::Stage:
    case HostArg::Scratch: return pointer(p, a);
    case HostArg::Scalar: return p.scalar(a.index);
    case HostArg::Param: return p.params.at(static_cast<size_t>(a.index));
    case HostArg::Value: return top(p, a.at);
    case HostArg::Int: return "(int)" + printHostExpr(p, a.at);
  }
  return "";
}

Stmt launch(const SchedulePrinter& p, const HostStep& s) {
  const HostKernel& k = p.schedule->kernels.at(static_cast<size_t>(s.kernel));
  // (unsigned)(x), or dim3(x, y, z) where y or z is not 1.
  auto dims = [&](const HostExpr* d) {
    auto one = [&](const HostExpr& x) {
      return x.op == HostExpr::Const ? printHostExpr(p, x) : "(unsigned)(" + top(p, x) + ")";
    };
    bool flat = d[1].op == HostExpr::Const && d[1].value == 1 && d[2].op == HostExpr::Const && d[2].value == 1;
    return flat ? one(d[0]) : "dim3(" + one(d[0]) + ", " + one(d[1]) + ", " + one(d[2]) + ")";
  };
  std::string args;
  for (const auto& a : s.args) args += (args.empty() ? "" : ", ") + argument(p, a);
  std::string config = "<<<" + dims(s.grid) + ", " + dims(s.block) + ", " + std::to_string(k.sharedBytes) + ", stream>>>(" +
                       args + ")";
  // The tight forms first, then the int form, else the long long one.
  Stmt call = k.templated ? ifThen("int_index", {eval(k.name + "<int>" + config)}, {eval(k.name + "<long long>" + config)})
                          : eval(k.name + config);
  for (size_t b = k.tightBlocks.size(); b-- > 0;) {
    std::string B = std::to_string(k.tightBlocks[b]);
    call = ifThen("int_index && ws->formac_tight_" + k.name + " == " + B, {eval(k.name + "<int, " + B + ">" + config)},
                  {call});
  }
  return seq({call, eval("FORMAC_CUDA_CHECK(cudaGetLastError(), return 1)")});
}

Stmt step(const SchedulePrinter& p, const HostStep& s) {
  auto name = [&] { return p.schedule->values.at(static_cast<size_t>(s.value)); };
  switch (s.kind) {
    case HostStep::Var: return decl("long long", name(), top(p, s.expr), s.constant);
    case HostStep::Assign: return assign(name(), top(p, s.expr));
    case HostStep::If: return ifThen(top(p, s.expr), scheduleStatements(p, s.body), scheduleStatements(p, s.orElse));
    case HostStep::While: return whileLoop(top(p, s.expr), scheduleStatements(p, s.body));
    case HostStep::Block: return block(scheduleStatements(p, s.body), s.comment);
    case HostStep::Launch: return launch(p, s);
    case HostStep::Memset:
      return eval("FORMAC_CUDA_CHECK(cudaMemsetAsync(" + pointer(p, s.args.at(0)) + ", 0, (size_t)(" + top(p, s.bytes) +
                  "), stream), return 1)");
    case HostStep::Loop: return p.loop(s.value);
  }
  return seq({});
}

}  // namespace

std::vector<Stmt> scheduleStatements(const SchedulePrinter& p, const std::vector<HostStep>& steps) {
  std::vector<Stmt> t;
  for (const auto& s : steps) t.push_back(step(p, s));
  return t;
}

std::string printSteps(const SchedulePrinter& p, const std::vector<HostStep>& steps, const std::string& in) {
  return printerFor(true).print(scheduleStatements(p, steps), in);
}

}  // namespace formac::codegen
