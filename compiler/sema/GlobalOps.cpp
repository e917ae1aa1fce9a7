#include "sema/GlobalOps.h"

#include <cstdio>

namespace formac::sema {

std::optional<ir::ReduceOp> reductionNamed(const std::string& fn) {
  for (ir::ReduceOp op : {ir::ReduceOp::Sum, ir::ReduceOp::Min, ir::ReduceOp::Max, ir::ReduceOp::Count,
                          ir::ReduceOp::Any, ir::ReduceOp::All})
    if (fn == ir::reduceOpName(op)) return op;
  return std::nullopt;
}

namespace {

// A piece over the whole domain of `src` whose value is `src` at each point.
ir::Piece wholeDomainRead(const ir::Stage& in, const SourceLoc& loc) {
  ir::Piece pc;
  pc.loc = loc;
  for (const ir::Size& n : in.extent) {
    pc.axes.push_back(ir::PieceAxis{ir::sizeConst(0), 1, n});
    pc.validLo.push_back(ir::sizeConst(0));
    pc.validHi.push_back(ir::sizeSub(n, ir::sizeConst(1)));
  }
  auto read = std::make_shared<ir::Expr>();
  read->kind = ir::Expr::ImageRead;
  read->type = in.type;
  read->producer = in.id;
  read->axes.resize(static_cast<size_t>(in.rank()));
  pc.body.result = read;
  return pc;
}

ir::Stage newStage(const ir::Pipeline& p, ir::Stage::Kind kind, const SourceLoc& loc) {
  ir::Stage s;
  s.name = "_t" + std::to_string(p.stages.size());  // define() gives it the program's name
  s.kind = kind;
  s.loc = loc;
  return s;
}

}  // namespace

ir::Stage reductionStage(const ir::Pipeline& p, ir::ReduceOp op, int src, int dim, const SourceLoc& loc) {
  const ir::Stage& in = p.stages[static_cast<size_t>(src)];
  ir::Stage s = newStage(p, ir::Stage::Reduce, loc);
  s.reduction.op = op;
  s.reduction.dim = in.rank() == 1 ? -1 : dim;
  s.type = Type::of(ir::reduceResultType(op, in.type.scalar));
  s.reduction.input = wholeDomainRead(in, loc);
  for (int d = 0; d < in.rank(); ++d)
    if (d != s.reduction.dim && s.reduction.dim >= 0) s.extent.push_back(in.extent[static_cast<size_t>(d)]);
  s.origin = std::string(ir::reduceOpName(op)) + "(" + ir::userText(p, src) +
             (s.reduction.dim >= 0 ? ", " + std::to_string(dim) : std::string()) + ")";
  return s;
}

ir::Stage histogramStage(const ir::Pipeline& p, int src, long long bins, double lo, double hi, const SourceLoc& loc) {
  ir::Stage s = reductionStage(p, ir::ReduceOp::Histogram, src, -1, loc);
  s.reduction.bins = bins;
  s.reduction.lo = lo;
  s.reduction.hi = hi;
  s.extent = {ir::sizeConst(bins)};
  char range[96];
  std::snprintf(range, sizeof range, ", %lld, %.17g, %.17g)", bins, lo, hi);
  s.origin = "histogram(" + ir::userText(p, src) + range;
  return s;
}

ir::Stage selectionStage(const ir::Pipeline& p, ir::ReduceOp op, int src, long long k, const SourceLoc& loc) {
  ir::Stage s = reductionStage(p, op, src, -1, loc);
  s.reduction.bins = k;
  s.extent = {ir::sizeConst(k)};
  s.origin = std::string(ir::reduceOpName(op)) + "(" + ir::userText(p, src) + ", " + std::to_string(k) + ")";
  return s;
}

ir::Stage scanStage(const ir::Pipeline& p, int src, int dim, std::optional<ScalarKind> type, const SourceLoc& loc) {
  const ir::Stage& in = p.stages[static_cast<size_t>(src)];
  ir::Stage s = newStage(p, ir::Stage::Scan, loc);
  s.scan.dim = dim;
  s.scan.accumulate = isFloating(in.type.scalar) ? ScalarKind::Double : ScalarKind::Int64;
  s.scan.input = wholeDomainRead(in, loc);
  s.type = Type::of(type.value_or(s.scan.accumulate));
  s.extent = in.extent;
  s.origin = std::string(dim < 0 ? "sat(" : "scan(") + ir::userText(p, src) +
             (dim >= 0 ? ", " + std::to_string(dim) : std::string()) +
             (type ? std::string(", ") + scalarName(*type) : std::string()) + ")";
  return s;
}

ir::ExprPtr scalarStageRead(const ir::Pipeline& p, int stage) {
  auto read = std::make_shared<ir::Expr>();
  read->kind = ir::Expr::ImageRead;
  read->type = p.stages[static_cast<size_t>(stage)].type;
  read->producer = stage;
  return read;
}

}  // namespace formac::sema
