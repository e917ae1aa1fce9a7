// The calls of the global operations (LANGUAGE.md §7: reductions, scans,
// `histogram`, `where`, `topk`): their arguments checked, and the stage each
// builds (GlobalOps.h) added.
#include <cmath>
#include <cstdio>

#include "sema/GlobalOps.h"
#include "sema/PipelineBuilder.h"

namespace formac::sema {
namespace {

std::string argumentsGiven(size_t n) {
  return std::to_string(n) + " argument" + (n == 1 ? "" : "s") + " given";
}

double numberArgument(const ast::CallArg& a, const std::string& what) {
  if (!a.literal) userError(a.loc, what + " must be a number literal");
  return a.literal->kind == ast::Expr::IntLit ? static_cast<double>(a.literal->intValue) : a.literal->floatValue;
}

std::string fmtNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

Value PipelineBuilder::reductionValue(const ast::VExpr& e, ir::ReduceOp op, Scope& sc) {
  std::string fn = ir::reduceOpName(op);
  if (e.args.empty() || e.args.size() > 2)
    userError(e.loc, "'" + fn + "' takes an image and optionally a dimension: '" + fn + "(img)' or '" + fn +
                         "(img, 0)'; " + argumentsGiven(e.args.size()));
  int src = globalOperand(fn, e.args[0], sc);
  const Stage& img = stage(src);
  int dim = -1;
  if (e.args.size() == 2) {
    const ast::CallArg& d = e.args[1];
    if (!d.literal || d.literal->kind != ast::Expr::IntLit)
      userError(d.loc, "the dimension '" + fn + "' reduces along must be an integer literal (0 is the first)");
    if (d.literal->intValue < 0 || d.literal->intValue >= img.rank())
      userError(d.loc, shown(src) + " has rank " + std::to_string(img.rank()) + ", so it has no dimension " +
                           std::to_string(d.literal->intValue) + " (0 is the first)");
    dim = static_cast<int>(d.literal->intValue);
  }
  int id = addStage(sema::reductionStage(p_, op, src, dim, e.loc));
  if (stage(id).rank() > 0) return imageValue(id);
  Value out;
  out.kind = Value::Scalar;
  out.stage = id;
  out.scalar = sema::scalarStageRead(p_, id);
  return out;
}

Value PipelineBuilder::scanValue(const ast::VExpr& e, Scope& sc) {
  bool isSat = e.name == "sat";
  size_t fixed = isSat ? 1 : 2;  // the arguments before the optional type
  bool typed = e.args.size() == fixed + 1 && e.args.back().typeArg;
  if (e.args.size() == fixed + 1 && !typed) {
    // The count is right but the last argument is not a type name: say what
    // that position holds rather than "N arguments given".
    const ast::CallArg& a = e.args.back();
    if (isSat && a.literal && a.literal->kind == ast::Expr::IntLit) {
      // The scan it suggests names a dimension the image has.
      const long long d = a.literal->intValue, rank = stage(globalOperand(e.name, e.args[0], sc, "scans")).rank();
      const bool has = d >= 0 && d < rank;
      userError(a.loc, "'sat' scans every dimension, so it takes no dimension; its second argument is an "
                       "optional result type ('sat(img, float)'); to scan one dimension, write 'scan(img, " +
                           (has ? std::to_string(d) : "D") + ")'" +
                           (has ? "" : ", D from 0 to " + std::to_string(rank - 1)));
    }
    userError(a.loc, std::string("the ") + (isSat ? "second" : "third") + " argument of '" + e.name +
                         "' is its result type, a type name such as 'float' or 'int'");
  }
  if (e.args.size() != fixed + (typed ? 1 : 0))
    userError(e.loc, isSat ? "'sat' takes an image and optionally a result type: 'sat(img)' or 'sat(img, float)'; " +
                                 argumentsGiven(e.args.size())
                           : "'scan' takes an image, a dimension and optionally a result type: 'scan(img, 0)' or "
                             "'scan(img, 1, float)'; " + argumentsGiven(e.args.size()));
  for (size_t i = 0; i < fixed; ++i)
    if (e.args[i].typeArg)
      userError(e.args[i].loc, i == 0 ? "'" + e.name + "' scans an image, but a type name is given"
                                      : std::string("the dimension 'scan' runs along must be an integer literal "
                                                    "(0 is the first), not a type name"));
  int src = globalOperand(e.name, e.args[0], sc, "scans");
  const Stage& img = stage(src);
  int dim = -1;
  if (!isSat) {
    const ast::CallArg& d = e.args[1];
    if (!d.literal || d.literal->kind != ast::Expr::IntLit)
      userError(d.loc, "the dimension 'scan' runs along must be an integer literal (0 is the first)");
    if (d.literal->intValue < 0 || d.literal->intValue >= img.rank())
      userError(d.loc, shown(src) + " has rank " + std::to_string(img.rank()) + ", so it has no dimension " +
                           std::to_string(d.literal->intValue) + " (0 is the first)");
    dim = static_cast<int>(d.literal->intValue);
  }
  std::optional<ScalarKind> type;
  if (typed) type = e.args.back().typeArg;
  return imageValue(addStage(sema::scanStage(p_, src, dim, type, e.loc)));
}

int PipelineBuilder::globalOperand(const std::string& fn, const ast::CallArg& a, Scope& sc, const std::string& verb) {
  if (a.literal) userError(a.loc, "'" + fn + "' " + verb + " an image, but a number is given");
  if (a.typeArg) userError(a.loc, "'" + fn + "' " + verb + " an image, but a type name is given");
  if (a.boundary.mode != ast::BoundaryMode::None)
    userError(a.boundary.loc, "'" + fn + "' reads each point of its image once; a boundary condition has no "
                              "effect there");
  Value v = vexpr(*a.value, sc);
  if (v.kind != Value::Image)
    userError(a.loc, "'" + fn + "' " + verb + " an image, but " +
                         (v.stage >= 0 ? shown(v.stage) + " is a scalar (a reduction)"
                          : a.value->kind == ast::VExpr::Ref && !a.value->index.present
                              ? "'" + a.value->name + "' is a scalar"
                              : std::string("a scalar is given")));
  const Stage& img = stage(v.stage);
  if (img.type.isStruct())
    userError(a.loc, "'" + fn + "' " + verb + " an image of numbers, but " + shown(v.stage) + " holds '" +
                         img.type.name() + "'; " + (verb == "reduces" ? "reduce" : "scan") + " one field ('" + userText(v.stage) + "." +
                         img.type.structType->fields[0].name + "')");
  used_.insert(v.stage);
  return v.stage;
}

Value PipelineBuilder::histogramValue(const ast::VExpr& e, Scope& sc) {
  if (e.args.size() != 4)
    userError(e.loc, "'histogram' takes an image, a bin count and a range: 'histogram(img, 256, 0, 256)'; " +
                         argumentsGiven(e.args.size()));
  int src = globalOperand("histogram", e.args[0], sc);
  const ast::CallArg& b = e.args[1];
  if (!b.literal || b.literal->kind != ast::Expr::IntLit)
    userError(b.loc, "the bin count of 'histogram' must be an integer literal");
  constexpr long long kMaxBins = 1LL << 24;
  if (b.literal->intValue < 1 || b.literal->intValue > kMaxBins)
    userError(b.loc, "a histogram has 1 to " + std::to_string(kMaxBins) + " bins, not " +
                         std::to_string(b.literal->intValue));
  double lo = numberArgument(e.args[2], "the low end of 'histogram''s range");
  double hi = numberArgument(e.args[3], "the high end of 'histogram''s range");
  if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi))
    userError(e.args[2].loc, "the range of 'histogram' must be finite with LO < HI, not [" + fmtNumber(lo) + ", " +
                                 fmtNumber(hi) + ")");
  return imageValue(addStage(sema::histogramStage(p_, src, b.literal->intValue, lo, hi, e.loc)));
}

Value PipelineBuilder::selectionValue(const ast::VExpr& e, ir::ReduceOp op, Scope& sc) {
  std::string fn = ir::reduceOpName(op);
  if (e.args.size() != 2)
    userError(e.loc, "'" + fn + "' takes an image and a count: '" + fn + "(" +
                         (op == ir::ReduceOp::Where ? "mask" : "img") + ", 500)'; " + argumentsGiven(e.args.size()));
  int src = globalOperand(fn, e.args[0], sc);
  const ast::CallArg& k = e.args[1];
  if (!k.literal || k.literal->kind != ast::Expr::IntLit)
    userError(k.loc, "the count of '" + fn + "' must be an integer literal");
  constexpr long long kMaxCount = 1LL << 28;
  if (k.literal->intValue < 1 || k.literal->intValue > kMaxCount)
    userError(k.loc, "'" + fn + "' selects 1 to " + std::to_string(kMaxCount) + " points, not " +
                         std::to_string(k.literal->intValue));
  return imageValue(addStage(sema::selectionStage(p_, op, src, k.literal->intValue, e.loc)));
}

}  // namespace formac::sema
