#include "ir/Verifier.h"

#include "ir/Edges.h"

namespace formac::ir {
namespace {

void check(bool cond, const Stage& s, const std::string& what) {
  if (!cond) throw InternalError("IR verifier: stage " + std::to_string(s.id) + " '" + s.name + "': " + what);
}

void verifyExpr(const Pipeline& p, const Stage& s, const Expr& e, size_t letsDefined, int pieceRank) {
  switch (e.kind) {
    case Expr::ImageRead: {
      check(e.producer >= 0 && e.producer < s.id, s, "reads a stage that is not an earlier one");
      const Stage& src = p.stages[static_cast<size_t>(e.producer)];
      check(static_cast<int>(e.axes.size()) == src.rank(), s, "read rank differs from its producer's");
      check(e.firstDim + src.rank() <= pieceRank, s, "read uses more lattice dimensions than the piece has");
      for (const auto& a : e.axes) check(a.scale > 0, s, "non-positive read scale");
      if (e.field < 0) check(e.type == src.type, s, "read type differs from the producer's");
      break;
    }
    case Expr::IndexRead: {
      check(e.producer >= 0 && e.producer < s.id, s, "indexes a stage that is not an earlier one");
      check(static_cast<int>(e.args.size()) == p.stages[static_cast<size_t>(e.producer)].rank(), s,
            "index count differs from the producer's rank");
      break;
    }
    case Expr::Local:
      check(e.local >= 0 && static_cast<size_t>(e.local) < letsDefined, s, "local used before it is defined");
      break;
    case Expr::ScalarIn:
      check(e.scalar >= 0 && static_cast<size_t>(e.scalar) < p.scalars.size(), s, "unknown scalar input");
      break;
    case Expr::Binary:
      check(e.args.size() == 2, s, "binary operator without two operands");
      break;
    case Expr::Select:
      check(e.args.size() == 3 && e.args[1]->type == e.type && e.args[2]->type == e.type, s,
            "select branches do not have the select's type");
      break;
    default: break;
  }
  for (const auto& a : e.args) verifyExpr(p, s, *a, letsDefined, pieceRank);
}

}  // namespace

void verify(const Pipeline& p) {
  for (size_t i = 0; i < p.stages.size(); ++i) {
    const Stage& s = p.stages[i];
    check(s.id == static_cast<int>(i), s, "id does not match its position");
    if (s.kind == Stage::Input) {
      check(s.pieces.empty(), s, "an input has pieces");
      continue;
    }
    if (s.kind == Stage::Reduce) {
      const Reduction& r = s.reduction;
      int domainRank = static_cast<int>(r.input.axes.size());
      check(s.pieces.empty(), s, "a reduction has pieces");
      check(r.dim >= -1 && r.dim < domainRank, s, "reduces a dimension its domain lacks");
      if (r.op == ReduceOp::Histogram)
        check(r.dim == -1 && s.rank() == 1 && r.bins > 0 && r.lo < r.hi, s, "malformed histogram");
      else if (r.op == ReduceOp::Where || r.op == ReduceOp::TopK)
        check(r.dim == -1 && s.rank() == 1 && r.bins > 0, s, "malformed selection");
      else
        check(s.rank() == (r.dim < 0 ? 0 : domainRank - 1), s, "reduction rank differs from its domain's");
      check(r.input.body.result && !r.input.body.result->type.isStruct(), s, "reduces a struct");
      check(s.type == Type::of(reduceResultType(r.op, r.input.body.result->type.scalar)), s,
            "reduction type differs from its op's");
    }
    if (s.kind == Stage::LoopResult) {
      check(s.pieces.empty() && s.loop && s.loop->body, s, "a loop result without its loop");
      const Loop& l = *s.loop;
      check(s.loopIndex >= 0 && static_cast<size_t>(s.loopIndex) < l.carried.size() &&
                l.next.size() == l.carried.size(), s, "a loop result of no carried image");
      const Pipeline& body = *l.body;
      auto bodyStage = [&](int id) -> const Stage& {
        check(id >= 0 && static_cast<size_t>(id) < body.stages.size(), s, "a loop binding outside its body");
        return body.stages[static_cast<size_t>(id)];
      };
      auto outerStage = [&](int id) -> const Stage& {
        check(id >= 0 && id < s.id, s, "a loop reads a stage that is not before it");
        return p.stages[static_cast<size_t>(id)];
      };
      for (size_t j = 0; j < l.carried.size(); ++j) {
        check(bodyStage(l.carried[j].inner).kind == Stage::Input, s, "a carried image is not a body input");
        check(bodyStage(l.next[j]).type == outerStage(l.carried[j].outer).type, s, "a carried image changes type");
      }
      for (const auto& b : l.reads)
        check(bodyStage(b.inner).kind == Stage::Input && bodyStage(b.inner).type == outerStage(b.outer).type, s,
              "a loop read is not a body input of its type");
      check(bodyStage(l.condition).rank() == 0, s, "a loop condition that is not a scalar");
      check(s.type == outerStage(l.carried[static_cast<size_t>(s.loopIndex)].outer).type, s,
            "a loop result's type differs from its carried image's");
      verify(body);
    }
    if (s.kind == Stage::Scan) {
      const Scan& sc = s.scan;
      check(s.pieces.empty(), s, "a scan has pieces");
      check(sc.dim >= -1 && sc.dim < s.rank() && s.rank() > 0, s, "scans a dimension it lacks");
      check(sc.accumulate == ScalarKind::Int64 || sc.accumulate == ScalarKind::Double, s,
            "scan accumulates in a type other than int64 or double");
      check(sc.input.body.result && !sc.input.body.result->type.isStruct() && !s.type.isStruct(), s,
            "scans a struct");
      check(isFloating(sc.input.body.result->type.scalar) == (sc.accumulate == ScalarKind::Double), s,
            "scan accumulation type does not follow its element type");
    }
    forEachPiece(s, [&](const Piece& pc) {
      int rank = s.kind == Stage::Reduce ? static_cast<int>(pc.axes.size()) : s.rank();
      check(s.kind == Stage::Reduce || pc.axes.size() == s.extent.size(), s, "piece rank differs from the stage's");
      check(pc.validLo.size() == pc.axes.size() && pc.validHi.size() == pc.axes.size(), s,
            "piece valid box has the wrong rank");
      for (const auto& a : pc.axes) check(a.step > 0 && a.start && a.count, s, "malformed piece axis");
      for (size_t l = 0; l < pc.body.lets.size(); ++l)
        verifyExpr(p, s, *pc.body.lets[l].value, l, rank);
      check(pc.body.result != nullptr, s, "piece without a result");
      verifyExpr(p, s, *pc.body.result, pc.body.lets.size(), rank);
      check(s.kind == Stage::Reduce || s.kind == Stage::Scan || pc.body.result->type == s.type, s,
            "piece result type differs from the stage type");
    });
  }
  for (int o : p.outputs)
    if (o < 0 || static_cast<size_t>(o) >= p.stages.size()) throw InternalError("IR verifier: bad output");
}

}  // namespace formac::ir
