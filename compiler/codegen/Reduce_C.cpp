#include "codegen/Reduce_C.h"

#include "codegen/ExprPrinter.h"
#include "codegen/LoopNest.h"

namespace formac::codegen {
namespace {

using ir::ReduceOp;

std::string str(long long v) { return std::to_string(v); }

// The reduction's input as a stage of its own, the shape LoopNest prints a
// point of: its extent is the reduced domain.
ir::Stage domainStage(const ir::Stage& s) {
  ir::Stage d;
  d.id = s.id;
  d.name = s.name;
  d.type = s.reduction.input.body.result->type;
  for (const auto& a : s.reduction.input.axes) d.extent.push_back(a.count);
  d.pieces.push_back(s.reduction.input);
  return d;
}

std::string integerLimit(ScalarKind k, bool highest) {
  long long lo, hi;
  integerRange(k, &lo, &hi);
  long long v = highest ? hi : lo;
  if (k == ScalarKind::Int64) return highest ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)";
  if (k == ScalarKind::Int && !highest) return "(-2147483647 - 1)";
  return v < 0 ? "(" + str(v) + ")" : str(v);
}

// How one op accumulates a chunk (`formac_acc`, or the lanes of a floating
// sum) and combines the chunks' partials.
struct Accumulation {
  std::string partialType;
  std::string init;      // statements starting a chunk
  std::string add;       // statement adding formac_v
  std::string finish;    // the chunk's partial, an expression
  std::string combine;   // statements leaving the value of partials[0..n) in formac_r
};

Accumulation accumulation(const ir::Stage& s) {
  ScalarKind elem = s.reduction.input.body.result->type.scalar;
  std::string T = scalarCType(elem), lanes = str(ir::kSumLanes);
  Accumulation a;
  auto fold = [&](const std::string& init, const std::string& step) {
    return "  " + a.partialType + " formac_r = " + init + ";\n  long long formac_i;\n"
           "  for (formac_i = 0; formac_i < formac_chunks; ++formac_i) " + step + "\n";
  };
  switch (s.reduction.op) {
    case ReduceOp::Sum:
      if (isFloating(elem)) {
        a.partialType = "double";
        a.init = "double formac_lane[" + lanes + "];\nint formac_j;\n"
                 "for (formac_j = 0; formac_j < " + lanes + "; ++formac_j) formac_lane[formac_j] = 0.0;\n";
        a.add = "formac_lane[formac_k & " + str(ir::kSumLanes - 1) + "] += (double)formac_v;\n";
        a.finish = "formac_lane_sum(formac_lane)";
        a.combine = "  double formac_r = formac_sum_d(formac_p, formac_chunks);\n";
      } else {
        a.partialType = "unsigned long long";
        a.init = "unsigned long long formac_acc = 0;\n";
        a.add = "formac_acc += (unsigned long long)formac_v;\n";
        a.finish = "formac_acc";
        a.combine = fold("0", "formac_r += formac_p[formac_i];");
      }
      break;
    case ReduceOp::Min:
    case ReduceOp::Max: {
      bool isMax = s.reduction.op == ReduceOp::Max;
      a.partialType = T;
      if (isFloating(elem)) {
        // NaN is the identity of formac_max_f and friends (reducePrelude).
        std::string fn = std::string(isMax ? "formac_max_total_" : "formac_min_total_") +
                         (elem == ScalarKind::Float ? "f" : "d");
        a.init = T + " formac_acc = NAN;\n";
        a.add = "formac_acc = " + fn + "(formac_acc, formac_v);\n";
        a.combine = fold(std::string("formac_chunks == 0 ? ") + (isMax ? "-INFINITY" : "INFINITY") + " : NAN",
                         "formac_r = " + fn + "(formac_r, formac_p[formac_i]);");
      } else {
        std::string identity = integerLimit(elem, !isMax), cmp = isMax ? " > " : " < ";
        a.init = T + " formac_acc = " + identity + ";\n";
        a.add = "if (formac_v" + cmp + "formac_acc) formac_acc = formac_v;\n";
        a.combine = fold(identity, "if (formac_p[formac_i]" + cmp + "formac_r) formac_r = formac_p[formac_i];");
      }
      a.finish = "formac_acc";
      break;
    }
    case ReduceOp::Count:
      a.partialType = "long long";
      a.init = "long long formac_acc = 0;\n";
      a.add = "formac_acc += formac_v != 0;\n";
      a.finish = "formac_acc";
      a.combine = fold("0", "formac_r += formac_p[formac_i];");
      break;
    case ReduceOp::Any:
    case ReduceOp::All: {
      bool any = s.reduction.op == ReduceOp::Any;
      a.partialType = "int";
      a.init = std::string("int formac_acc = ") + (any ? "0" : "1") + ";\n";
      a.add = std::string("formac_acc ") + (any ? "|" : "&") + "= formac_v != 0;\n";
      a.finish = "formac_acc";
      a.combine = fold(any ? "0" : "1", std::string("formac_r ") + (any ? "|" : "&") + "= formac_p[formac_i];");
      break;
    }
  }
  return a;
}

std::string indent(const std::string& text, const std::string& ind) {
  std::string out, line;
  for (char c : text) {
    line += c;
    if (c == '\n') {
      out += (line == "\n" ? "" : ind) + line;
      line.clear();
    }
  }
  return out + (line.empty() ? "" : ind + line);
}

}  // namespace

std::string reducePartialType(const ir::Stage& s) { return accumulation(s).partialType; }

std::string reducePartialCount(const ir::Pipeline& p, const Names& n, const ir::Stage& s) {
  std::string len = "1", outs = "1";
  const auto& axes = s.reduction.input.axes;
  for (size_t d = 0; d < axes.size(); ++d) {
    std::string c = "(long long)(" + ir::printSize(axes[d].count, n.param) + ")";
    (s.reduction.dim < 0 || static_cast<int>(d) == s.reduction.dim ? len : outs) += " * " + c;
  }
  (void)p;
  return "(size_t)(" + outs + ") * (size_t)((" + len + " + " + str(ir::kSumChunk - 1) + ") / " +
         str(ir::kSumChunk) + ")";
}

std::string emitReduceFunction(const ReduceFunctionC& f) {
  const ir::Stage& s = *f.stage;
  const ir::Reduction& r = s.reduction;
  const Names& n = *f.names;
  ir::Stage domain = domainStage(s);
  int rank = static_cast<int>(r.input.axes.size());
  auto count = [&](int d) { return "(long long)(" + ir::printSize(r.input.axes[static_cast<size_t>(d)].count, n.param) + ")"; };
  auto q = [](int d) { return "q" + std::to_string(d); };
  std::string len, outs;
  for (int d = 0; d < rank; ++d) {
    std::string& product = r.dim < 0 || d == r.dim ? len : outs;
    product += (product.empty() ? "" : " * ") + count(d);
  }
  if (outs.empty()) outs = "1";
  Accumulation a = accumulation(s);
  std::string chunk = str(ir::kSumChunk), elem = cType(domain.type);

  // Lattice indices at the chunk's first point, and the step to the next.
  // (A divisor is never a constant 0, which gcc rejects even where the code
  // never runs: an empty domain of constant extent.)
  auto divisor = [&](int d) { return "(" + count(d) + " > 0 ? " + count(d) + " : 1)"; };
  std::string start = "long long formac_rest = " + std::string(r.dim < 0 ? "formac_c * " + chunk : "formac_o") + ";\n";
  for (int d = rank - 1; d >= 0; --d) {
    if (d == r.dim) continue;
    bool first = d == 0 || (d == 1 && r.dim == 0);
    start += "const long long " + q(d) + "_at = " + (first ? "formac_rest" : "formac_rest % " + divisor(d)) + ";\n";
    if (!first) start += "formac_rest /= " + divisor(d) + ";\n";
  }
  std::string decl = "long long";
  for (int d = 0; d < rank; ++d)
    decl += std::string(d ? "," : "") + " " + q(d) + " = " + (d == r.dim ? "formac_c * " + chunk : q(d) + "_at");
  start += decl + ";\n(void)formac_rest;\n";
  std::string step;
  if (r.dim >= 0) {
    step = "++" + q(r.dim) + ";\n";
  } else {
    std::string pad;
    for (int d = rank - 1; d > 0; --d, pad += "  ")
      step += pad + "if (++" + q(d) + " == " + count(d) + ") {\n" + pad + "  " + q(d) + " = 0;\n";
    step += pad + "++q0;\n";
    for (int d = 1; d < rank; ++d) {
      pad.resize(pad.size() - 2);
      step += pad + "}\n";
    }
  }

  LoopNestOptions lo;
  lo.pipeline = f.pipeline;
  lo.stage = &domain;
  lo.piece = &domain.pieces[0];
  lo.names = &n;
  lo.openmp = f.openmp;
  lo.resultVariable = "formac_v";
  std::string point = emitPointBody(lo, true, "");

  std::string out = n.stage[static_cast<size_t>(s.id)];
  std::string t = "static void " + f.name + "(" + f.parameters + ") {\n";
  for (const auto& prm : n.param) t += "  (void)" + prm + ";\n";
  t += "  const long long formac_len = " + len + ";  /* points combined into one value */\n"
       "  const long long formac_outs = " + outs + ";\n"
       "  const long long formac_chunks = (formac_len + " + str(ir::kSumChunk - 1) + ") / " + chunk + ";\n"
       "  /* The divisor below: an empty domain of constant extent has no chunk, and gcc\n"
       "     rejects a division by a constant 0 even in a loop that never runs. */\n"
       "  const long long formac_per = formac_chunks > 0 ? formac_chunks : 1;\n"
       "  long long formac_w;\n";
  if (f.openmp) t += "  FORMAC_PRAGMA(omp parallel for schedule(static))\n";
  t += "  for (formac_w = 0; formac_w < formac_outs * formac_chunks; ++formac_w) {\n"
       "    const long long formac_o = formac_w / formac_per, formac_c = formac_w % formac_per;\n"
       "    const long long formac_end = formac_len - formac_c * " + chunk + " < " + chunk +
       " ? formac_len : formac_c * " + chunk + " + " + chunk + ";\n"
       "    long long formac_k;\n";
  t += indent(start + a.init, "    ");
  t += "    (void)formac_o;\n"
       "    for (formac_k = formac_c * " + chunk + "; formac_k < formac_end; ++formac_k) {\n"
       "      " + elem + " formac_v;\n" +
       indent(point + a.add + step, "      ") +
       "    }\n"
       "    formac_partials[formac_w] = " + a.finish + ";\n  }\n";
  if (f.openmp) t += "  FORMAC_PRAGMA(omp parallel for schedule(static) if (formac_outs > 1))\n";
  t += "  for (formac_w = 0; formac_w < formac_outs; ++formac_w) {\n"
       "    " + a.partialType + "* formac_p = formac_partials + formac_w * formac_chunks;\n" +
       indent(a.combine, "  ") +
       "    " + out + "[formac_w] = (" + cType(s.type) + ")formac_r;\n  }\n}\n\n";
  return t;
}

std::string reducePrelude(const std::string& qualifier) {
  std::string q = qualifier + " ", lanes = str(ir::kSumLanes), chunk = str(ir::kSumChunk);
  std::string t =
      "/* A chunk's lanes folded pairwise: lane[j] += lane[j + s], s = 16 .. 1\n"
      "   (ir/Pipeline.h, kSumChunk). */\n" +
      q + "double formac_lane_sum(double* lane) {\n  int s, j;\n"
      "  for (s = " + str(ir::kSumLanes / 2) + "; s >= 1; s /= 2)\n    for (j = 0; j < s; ++j) lane[j] += lane[j + s];\n"
      "  return lane[0];\n}\n"
      "/* The sum of n chunk sums p[0..n) (overwritten): one is the result; more\n"
      "   are summed as chunks of " + chunk + " by the same rule. */\n" +
      q + "double formac_sum_d(double* p, long long n) {\n"
      "  while (n > 1) {\n"
      "    long long chunks = (n + " + str(ir::kSumChunk - 1) + ") / " + chunk + ", c, k;\n"
      "    for (c = 0; c < chunks; ++c) {\n"
      "      double lane[" + lanes + "];\n      int j;\n"
      "      long long end = n - c * " + chunk + " < " + chunk + " ? n : c * " + chunk + " + " + chunk + ";\n"
      "      for (j = 0; j < " + lanes + "; ++j) lane[j] = 0.0;\n"
      "      for (k = c * " + chunk + "; k < end; ++k) lane[k & " + str(ir::kSumLanes - 1) + "] += p[k];\n"
      "      p[c] = formac_lane_sum(lane);\n    }\n    n = chunks;\n  }\n"
      "  return n == 1 ? p[0] : 0.0;\n}\n"
      "/* min and max of floating values in a total order: NaN is skipped (the\n"
      "   identity), -0 is below +0. */\n";
  for (const char* suf : {"f", "d"}) {
    std::string T = std::string(suf) == "f" ? "float" : "double";
    t += q + T + " formac_max_total_" + suf + "(" + T + " a, " + T + " b) {\n"
         "  if (a != a) return b;\n  if (b != b) return a;\n"
         "  return (b > a || (b == a && !signbit(b))) ? b : a;\n}\n";
    t += q + T + " formac_min_total_" + suf + "(" + T + " a, " + T + " b) {\n"
         "  if (a != a) return b;\n  if (b != b) return a;\n"
         "  return (b < a || (b == a && signbit(b))) ? b : a;\n}\n";
  }
  return t;
}

}  // namespace formac::codegen
