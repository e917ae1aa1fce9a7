#include "sema/GlobalOps.h"

#include <cstdio>

namespace formac::sema {

std::optional<ir::ReduceOp> reductionNamed(const std::string& fn) {
  for (ir::ReduceOp op : {ir::ReduceOp::Sum, ir::ReduceOp::Min, ir::ReduceOp::Max, ir::ReduceOp::Count,
                          ir::ReduceOp::Any, ir::ReduceOp::All})
    if (fn == ir::reduceOpName(op)) return op;
  return std::nullopt;
}

ir::Stage reductionStage(const ir::Pipeline& p, ir::ReduceOp op, int src, int dim, const SourceLoc& loc) {
  const ir::Stage& in = p.stages[static_cast<size_t>(src)];
  ir::Stage s;
  s.name = "_t" + std::to_string(p.stages.size());  // define() gives it the program's name
  s.kind = ir::Stage::Reduce;
  s.loc = loc;
  s.reduction.op = op;
  s.reduction.dim = in.rank() == 1 ? -1 : dim;
  s.type = Type::of(ir::reduceResultType(op, in.type.scalar));
  ir::Piece& pc = s.reduction.input;
  pc.loc = loc;
  for (int d = 0; d < in.rank(); ++d) {
    const ir::Size& n = in.extent[static_cast<size_t>(d)];
    pc.axes.push_back(ir::PieceAxis{ir::sizeConst(0), 1, n});
    pc.validLo.push_back(ir::sizeConst(0));
    pc.validHi.push_back(ir::sizeSub(n, ir::sizeConst(1)));
    if (d != s.reduction.dim && s.reduction.dim >= 0) s.extent.push_back(n);
  }
  auto read = std::make_shared<ir::Expr>();
  read->kind = ir::Expr::ImageRead;
  read->type = in.type;
  read->producer = src;
  read->axes.resize(static_cast<size_t>(in.rank()));
  pc.body.result = read;
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

ir::ExprPtr scalarStageRead(const ir::Pipeline& p, int stage) {
  auto read = std::make_shared<ir::Expr>();
  read->kind = ir::Expr::ImageRead;
  read->type = p.stages[static_cast<size_t>(stage)].type;
  read->producer = stage;
  return read;
}

}  // namespace formac::sema
