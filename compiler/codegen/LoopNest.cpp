#include "codegen/LoopNest.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "codegen/CommonSubexpressions.h"
#include "codegen/NameScope.h"
#include "codegen/ExprPrinter.h"
#include "codegen/Prelude.h"
#include "ir/Edges.h"

namespace formac::codegen {
namespace {

std::string sz(const LoopNestOptions& o, const ir::Size& s) { return ir::printSize(s, o.names->param); }

std::string qName(size_t d) { return "q" + std::to_string(d); }

long long constOrigin(const ir::Expr& e, size_t d) {
  long long c = 0;
  if (d < e.origin.size()) ir::isConst(e.origin[d], &c);
  return c;
}

bool hasConstOrigin(const ir::Expr& e) {
  for (const auto& org : e.origin)
    if (!ir::isConst(org)) return false;
  return true;
}

// True when a None-mode read (constant origin) may leave its producer inside
// the piece's valid box for some parameter values: a sub-domain beyond its
// image does (Pipeline.h: such a read yields 0). Sema's boxes keep stencil
// reads inside, so this is decided on a spread of sample sizes, as
// ir::sameSize decides equality.
bool computeReadOutside(const LoopNestOptions& o, const ir::Expr& e);

bool mayReadOutside(const LoopNestOptions& o, const ir::Expr& e) {
  if (e.kind != ir::Expr::ImageRead || e.mode != ir::BoundaryMode::None || !hasConstOrigin(e))
    return false;
  std::vector<long long> key = {reinterpret_cast<long long>(o.pipeline), reinterpret_cast<long long>(o.piece),
                                reinterpret_cast<long long>(o.stage), e.producer, e.firstDim};
  for (size_t d = 0; d < e.axes.size(); ++d)
    key.insert(key.end(), {e.axes[d].offset, e.axes[d].scale, constOrigin(e, d)});
  auto [it, fresh] = o.outsideCache->reads.emplace(key, false);
  if (fresh) it->second = computeReadOutside(o, e);
  return it->second;
}

// Parameter values spread over small, odd and large sizes under which no
// stage's extent is negative, computed once per pipeline.
const std::vector<std::vector<long long>>& sampleSizes(const LoopNestOptions& o) {
  auto [it, fresh] = o.outsideCache->samples.emplace(o.pipeline, std::vector<std::vector<long long>>());
  if (!fresh) return it->second;
  static const long long samples[] = {1, 2, 3, 5, 7, 13, 64, 97, 1000, 1023, 4099};
  const ir::Pipeline& p = *o.pipeline;
  size_t np = p.params.size();
  for (int trial = 0; trial < 22; ++trial) {
    std::vector<long long> v(np);
    for (size_t i = 0; i < np; ++i) v[i] = samples[trial < 11 ? (trial + 3 * i) % 11 : trial - 11];
    bool sizesOk = true;
    for (const auto& s : p.stages)
      for (const auto& ext : s.extent) sizesOk = sizesOk && ir::evalSize(ext, v) >= 0;
    if (sizesOk) it->second.push_back(v);
  }
  return it->second;
}

bool computeReadOutside(const LoopNestOptions& o, const ir::Expr& e) {
  const ir::Pipeline& p = *o.pipeline;
  const ir::Piece& pc = *o.piece;
  for (const auto& v : sampleSizes(o)) {
    std::vector<long long> first, last;
    bool empty = false;
    for (size_t d = 0; d < pc.axes.size(); ++d) {
      const ir::PieceAxis& a = pc.axes[d];
      long long start = ir::evalSize(a.start, v), step = a.step;
      long long lo = std::max(ir::evalSize(pc.validLo[d], v), -ir::floorDiv(start, step));
      long long hi = std::min({ir::evalSize(pc.validHi[d], v), ir::evalSize(a.count, v) - 1,
                               ir::floorDiv(ir::evalSize(o.stage->extent[d], v) - 1 - start, step)});
      empty = empty || lo > hi;
      first.push_back(lo);
      last.push_back(hi);
    }
    if (empty) continue;
    const ir::Stage& src = p.stages[static_cast<size_t>(e.producer)];
    for (size_t d = 0; d < e.axes.size(); ++d) {
      size_t q = static_cast<size_t>(e.firstDim) + d;
      long long shift = e.axes[d].offset + constOrigin(e, d);
      long long n = ir::evalSize(src.extent[d], v);
      if (e.axes[d].scale * first[q] + shift < 0 || e.axes[d].scale * last[q] + shift > n - 1)
        return true;
    }
  }
  return false;
}

// A read whose index needs checking at the border: one with a boundary mode,
// or a None-mode read that may leave its producer (printed as constant(0)).
bool isModeRead(const LoopNestOptions& o, const ir::Expr& e) {
  if (e.kind != ir::Expr::ImageRead || !hasConstOrigin(e)) return false;
  return e.mode != ir::BoundaryMode::None || mayReadOutside(o, e);
}

// `e` with every None-mode read that may leave its producer turned into a
// constant(0) read: the value Pipeline.h gives such a read outside.
ir::ExprPtr zeroOutside(const LoopNestOptions& o, const ir::ExprPtr& e) {
  bool target = mayReadOutside(o, *e);
  bool changed = target;
  std::vector<ir::ExprPtr> args;
  for (const auto& a : e->args) {
    args.push_back(zeroOutside(o, a));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto c = std::make_shared<ir::Expr>(*e);
  c->args = std::move(args);
  if (target) {
    c->mode = ir::BoundaryMode::Constant;
    c->constant = 0.0;
  }
  return c;
}

// `e` with every Local index moved up by `shift` and every node in `reads`
// (by identity) replaced by a Local to its let.
ir::ExprPtr relink(const ir::ExprPtr& e, int shift, const std::map<const ir::Expr*, int>& reads) {
  auto r = reads.find(e.get());
  if (r != reads.end()) {
    auto l = std::make_shared<ir::Expr>();
    l->kind = ir::Expr::Local;
    l->type = e->type;
    l->local = r->second;
    return l;
  }
  bool changed = e->kind == ir::Expr::Local && shift != 0;
  std::vector<ir::ExprPtr> args;
  for (const auto& a : e->args) {
    args.push_back(relink(a, shift, reads));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto c = std::make_shared<ir::Expr>(*e);
  c->args = std::move(args);
  if (c->kind == ir::Expr::Local) c->local += shift;
  return c;
}

// What identifies a read: the same text means the same value.
std::string readKey(const ir::Expr& e) {
  std::string k = std::to_string(e.producer) + "/" + std::to_string(e.firstDim) + "/" +
                  std::to_string(static_cast<int>(e.mode)) + "/" + std::to_string(e.constant) + "/" +
                  std::to_string(e.field);
  for (const auto& a : e.axes) k += "/" + std::to_string(a.offset) + "*" + std::to_string(a.scale);
  for (const auto& o : e.origin) k += "/" + ir::printSize(o, {});
  return k;
}

// The body with the reads `pick(read, underBranch)` selects loaded first, as
// lets; one let per distinct read. Returns how many lets were added.
int hoistReads(const LoopNestOptions& o, ir::Body& b, const std::function<bool(const ir::Expr&, bool)>& pick) {
  std::vector<const ir::Expr*> found;
  std::function<void(const ir::Expr&, bool)> walk = [&](const ir::Expr& e, bool branch) {
    if (e.kind == ir::Expr::ImageRead && pick(e, branch)) found.push_back(&e);
    for (size_t i = 0; i < e.args.size(); ++i)
      walk(*e.args[i], branch || (e.kind == ir::Expr::Select && i > 0));
  };
  for (const auto& l : b.lets) walk(*l.value, false);
  walk(*b.result, false);
  if (found.empty()) return 0;
  std::map<std::string, int> slot;  // read key -> its let
  std::map<const ir::Expr*, int> reads;
  ir::Body out;
  for (const ir::Expr* e : found) {
    auto [it, fresh] = slot.emplace(readKey(*e), static_cast<int>(out.lets.size()));
    reads[e] = it->second;
    if (!fresh) continue;
    std::string name = o.names->stage[static_cast<size_t>(e->producer)];
    for (const auto& a : e->axes) name += a.offset < 0 ? "_m" + std::to_string(-a.offset) : "_" + std::to_string(a.offset);
    out.lets.push_back(ir::Let{name, e->type, std::make_shared<ir::Expr>(*e)});
  }
  int shift = static_cast<int>(out.lets.size());
  for (const auto& l : b.lets) out.lets.push_back(ir::Let{l.name, l.type, relink(l.value, shift, reads)});
  out.result = relink(b.result, shift, reads);
  b = out;
  return shift;
}

}  // namespace

bool needsBorderChecks(const LoopNestOptions& o) {
  bool any = false;
  forEachExpr(o.piece->body, [&](const ir::Expr& e) {
    if (isModeRead(o, e)) any = true;
  });
  return any;
}

std::string pieceFirstIndex(const LoopNestOptions& o, size_t d) {
  const ir::PieceAxis& a = o.piece->axes[d];
  std::string lo = sz(o, o.piece->validLo[d]);
  long long start;
  if (ir::isConst(a.start, &start) && start >= 0) return lo;
  // p = start + step*q >= 0
  return "formac_maxll(" + lo + ", formac_ceildiv(-(" + sz(o, a.start) + "), " +
         std::to_string(a.step) + "))";
}

std::string pieceLastIndex(const LoopNestOptions& o, size_t d) {
  const ir::PieceAxis& a = o.piece->axes[d];
  std::string hi = sz(o, o.piece->validHi[d]);
  int np = static_cast<int>(o.pipeline->params.size());
  long long start;
  bool trivial = ir::isConst(a.start, &start) && start == 0 && a.step == 1 &&
                 ir::sameSize(a.count, o.stage->extent[d], np);
  if (trivial) return hi;
  // q < count and p = start + step*q < extent
  return "formac_minll(formac_minll(" + hi + ", (" + sz(o, a.count) + ") - 1), formac_floordiv((" +
         sz(o, o.stage->extent[d]) + ") - 1 - (" + sz(o, a.start) + "), " + std::to_string(a.step) +
         "))";
}

std::vector<IndexTerm> fastLowerTerms(const LoopNestOptions& o, size_t d) {
  std::vector<IndexTerm> out;
  forEachExpr(o.piece->body, [&](const ir::Expr& e) {
    if (!isModeRead(o, e) || d < static_cast<size_t>(e.firstDim)) return;
    size_t ad = d - static_cast<size_t>(e.firstDim);
    if (ad >= e.axes.size()) return;
    long long a = e.axes[ad].offset + constOrigin(e, ad);
    long long s = e.axes[ad].scale;
    // s*q + a >= 0
    out.push_back(integerTerm(-ir::floorDiv(a, s)));  // formac_ceildiv(-a, s)
  });
  return out;
}

std::vector<IndexTerm> fastUpperTerms(const LoopNestOptions& o, size_t d) {
  std::vector<IndexTerm> out;
  const ir::Pipeline& p = *o.pipeline;
  forEachExpr(o.piece->body, [&](const ir::Expr& e) {
    if (!isModeRead(o, e) || d < static_cast<size_t>(e.firstDim)) return;
    size_t ad = d - static_cast<size_t>(e.firstDim);
    if (ad >= e.axes.size()) return;
    long long a = e.axes[ad].offset + constOrigin(e, ad);
    long long s = e.axes[ad].scale;
    // s*q + a <= n - 1
    IndexTerm lim = extentTerm(sz(o, p.stages[static_cast<size_t>(e.producer)].extent[ad]), -1 - a);
    out.push_back(s == 1 ? lim : textTerm("formac_floordiv(" + termText(lim) + ", " + std::to_string(s) + ")"));
  });
  return out;
}

std::vector<std::string> fastLowerBounds(const LoopNestOptions& o, size_t d) { return lowerOperands({fastLowerTerms(o, d)}); }
std::vector<std::string> fastUpperBounds(const LoopNestOptions& o, size_t d) { return upperOperands({fastUpperTerms(o, d)}); }

std::string fastFirstIndex(const LoopNestOptions& o, size_t d) {
  long long start;
  IndexBound b;
  b.terms.push_back(ir::isConst(o.piece->axes[d].start, &start) && start >= 0
                        ? sizeTerm(o.piece->validLo[d], o.names->param)
                        : textTerm(pieceFirstIndex(o, d)));
  for (const auto& t : fastLowerTerms(o, d)) b.terms.push_back(t);
  return printLower(b);
}

std::string fastLastIndex(const LoopNestOptions& o, size_t d) {
  const ir::PieceAxis& a = o.piece->axes[d];
  long long start;
  bool trivial = ir::isConst(a.start, &start) && start == 0 && a.step == 1 &&
                 ir::sameSize(a.count, o.stage->extent[d], static_cast<int>(o.pipeline->params.size()));
  IndexBound b;
  b.terms.push_back(trivial ? sizeTerm(o.piece->validHi[d], o.names->param) : textTerm(pieceLastIndex(o, d)));
  for (const auto& t : fastUpperTerms(o, d)) b.terms.push_back(t);
  return printUpper(b);
}

namespace {

// The piece as its point is printed: reads hoisted as the options ask (the
// first *preloads lets are the preloaded reads), zero outside resolved, read
// indices bound and common subexpressions in lets.
ir::Piece preparedPiece(const LoopNestOptions& o, int* preloads) {
  ir::Piece pc = *o.piece;
  if (o.hoistBranchReads)
    hoistReads(o, pc.body, [&](const ir::Expr& e, bool branch) { return branch && o.hoistBranchReads(e.producer); });
  *preloads = 0;
  if (o.preload)
    *preloads = hoistReads(o, pc.body, [&](const ir::Expr& e, bool branch) { return !branch && o.preload(e.producer); });
  for (auto& l : pc.body.lets) l.value = zeroOutside(o, l.value);
  pc.body.result = zeroOutside(o, pc.body.result);
  bindReadIndices(pc.body);
  hoistCommonSubexpressions(pc.body);
  return pc;
}

// Which lets of `b` depend on no point: no read, and only such lets.
std::vector<bool> pointFreeLets(const ir::Body& b) {
  std::vector<bool> out;
  std::function<bool(const ir::Expr&)> invariant = [&](const ir::Expr& e) {
    if (e.kind == ir::Expr::ImageRead || e.kind == ir::Expr::IndexRead) return false;
    if (e.kind == ir::Expr::Local && !out[static_cast<size_t>(e.local)]) return false;
    for (const auto& a : e.args)
      if (!invariant(*a)) return false;
    return true;
  };
  for (const auto& l : b.lets) out.push_back(invariant(*l.value));
  return out;
}

}  // namespace

std::vector<Stmt> invariantLets(const LoopNestOptions& o) {
  LoopNestOptions outside = o;
  outside.invariantLets = PointLets::OnlyInvariant;
  return pointBody(outside, true);
}

std::vector<Stmt> pointBody(const LoopNestOptions& o, bool checked) {
  const ir::Pipeline& p = *o.pipeline;
  const ir::Stage& s = *o.stage;
  int preloads = 0;
  ir::Piece pc = preparedPiece(o, &preloads);
  std::vector<bool> invariant = pointFreeLets(pc.body);
  ExprContext ctx;
  ctx.pipeline = &p;
  ctx.params = o.names->param;
  for (size_t d = 0; d < pc.axes.size(); ++d) ctx.q.push_back(qName(d));
  ctx.checked = checked;
  ctx.cuda = o.cuda;
  ctx.access = o.access;
  ctx.preloaded = o.preloaded;
  ctx.boundedRead = o.boundedRead;
  ctx.boundedFormUsed = o.boundedFormUsed;
  ctx.resolved = o.resolved;
  ctx.extent = [&](int id, int dim) {
    return "(" + sz(o, p.stages[static_cast<size_t>(id)].extent[static_cast<size_t>(dim)]) + ")";
  };
  ctx.buffer = [&](int id) { return o.names->stage[static_cast<size_t>(id)]; };
  ctx.scalar = [&](int i) { return o.names->scalar[static_cast<size_t>(i)]; };
  std::vector<Stmt> t;
  NameScope locals(o.scope);  // a source local `t_1` and the second `t` are both t_1
  for (size_t i = 0; i < pc.body.lets.size(); ++i) {
    const ir::Let& l = pc.body.lets[i];
    std::string name = locals.fresh((static_cast<int>(i) < preloads ? o.preloadPrefix : "v_") + cIdentifier(l.name));
    bool printed = o.invariantLets == PointLets::All ||
                   (invariant[i] == (o.invariantLets == PointLets::OnlyInvariant));
    if (static_cast<int>(i) < preloads) {
      if (o.invariantLets != PointLets::OnlyInvariant) {  // a preloaded read belongs to the point
        o.preloadDeclarations->push_back(declOnly(cType(l.type), name));
        o.preloadAssignments->push_back(assign(name, printCExpr(*l.value, ctx)));
      }
    } else if (printed) {
      t.push_back(decl(cType(l.type), name, printCExpr(*l.value, ctx)));
    }
    ctx.lets.push_back(name);
    ctx.letValues.push_back(l.value.get());
  }
  if (o.invariantLets == PointLets::OnlyInvariant) return t;
  if (!o.resultVariable.empty()) {
    t.push_back(assign(o.resultVariable, printCExpr(*pc.body.result, ctx)));
    return t;
  }
  // The store index: p = start + step*q per dimension, row-major.
  std::string idx;
  for (size_t d = 0; d < pc.axes.size(); ++d) {
    const ir::PieceAxis& a = pc.axes[d];
    long long start;
    std::string pd = qName(d);
    if (a.step != 1) pd = std::to_string(a.step) + " * " + pd;
    if (!ir::isConst(a.start, &start)) pd = "(" + sz(o, a.start) + ") + " + pd;
    else if (start > 0) pd += " + " + std::to_string(start);
    else if (start < 0) pd += " - " + std::to_string(-start);
    idx = d == 0 ? "(" + pd + ")" : "(" + idx + " * (" + sz(o, s.extent[d]) + ") + (" + pd + "))";
  }
  if (idx.empty()) idx = "0";
  t.push_back(assign(o.names->stage[static_cast<size_t>(s.id)] + "[" + idx + "]", printCExpr(*pc.body.result, ctx)));
  return t;
}

std::string emitInvariantLets(const LoopNestOptions& o, const std::string& ind) {
  return printerFor(o.cuda).print(invariantLets(o), ind);
}

std::string emitPointBody(const LoopNestOptions& o, bool checked, const std::string& ind) {
  return printerFor(o.cuda).print(pointBody(o, checked), ind);
}

Stmt pieceLoops(const LoopNestOptions& options) {
  // The lets that depend on no point, once before the loops.
  LoopNestOptions o = options;
  o.invariantLets = PointLets::PointDependent;
  const ir::Piece& pc = *o.piece;
  size_t rank = pc.axes.size();
  NameScope scope(options.scope);
  o.scope = &scope;
  std::vector<Stmt> t;
  bool anyMode = false;
  forEachExpr(pc.body, [&](const ir::Expr& e) {
    if (isModeRead(o, e)) anyMode = true;
  });
  // The bounds of q along d: lo, hi; and of its check-free run: fast_lo, fast_hi.
  std::vector<std::string> q, lo, hi, fastLo, fastHi;
  const std::string index = "long long";
  for (size_t d = 0; d < rank; ++d) {
    std::string D = std::to_string(d);
    lo.push_back(scope.fresh("lo" + D));
    t.push_back(decl(index, lo[d], pieceFirstIndex(o, d)));
    hi.push_back(scope.fresh("hi" + D));
    t.push_back(decl(index, hi[d], pieceLastIndex(o, d)));
    if (anyMode) {
      fastLo.push_back(scope.fresh("fast_lo" + D));
      t.push_back(decl(index, fastLo[d], fastFirstIndex(o, d)));
      fastHi.push_back(scope.fresh("fast_hi" + D));
      t.push_back(decl(index, fastHi[d], fastLastIndex(o, d)));
    }
  }
  auto piece = [&](std::vector<Stmt> body) {
    return seq({comment("piece at line " + std::to_string(pc.loc.line)), block(std::move(body))});
  };
  if (rank == 0) {
    for (Stmt& s : pointBody(options, true)) t.push_back(std::move(s));
    return piece(std::move(t));
  }
  for (Stmt& s : invariantLets(o)) t.push_back(std::move(s));
  for (size_t d = 0; d < rank; ++d) {  // the names every point body reads its index by
    q.push_back(qName(d));
    scope.take(q[d]);
  }
  // Threads only for work worth waking them for (FORMAC_PARALLEL_POINTS).
  std::string points;
  for (size_t d = 0; d < rank; ++d) points += (d ? " * " : "") + std::string("(") + hi[d] + " - " + lo[d] + " + 1)";
  const std::string threads = o.openmp ? "schedule(static) " + parallelIf(points) : "";
  auto loop = [&](size_t d, const std::string& from, const std::string& to, std::vector<Stmt> body,
                  const std::string& parallel) {
    return forLoop(from.empty() ? "" : index + " " + q[d] + " = " + from, q[d] + to, "++" + q[d], std::move(body),
                   parallel);
  };
  size_t last = rank - 1;
  const std::string& ql = q[last];
  std::vector<Stmt> inner;
  if (!anyMode) {
    inner.push_back(loop(last, lo[last], " <= " + hi[last], pointBody(o, false), rank == 1 ? threads : ""));
  } else if (rank == 1) {
    // One dimension: the border runs and the interior run, each its own loop.
    inner.push_back(loop(0, lo[0], " <= formac_minll(" + hi[0] + ", " + fastLo[0] + " - 1)", pointBody(o, true), threads));
    inner.push_back(loop(0, "formac_maxll(" + lo[0] + ", " + fastLo[0] + ")", " <= " + fastHi[0], pointBody(o, false),
                         threads));
    inner.push_back(loop(0, "formac_maxll(formac_maxll(" + lo[0] + ", " + fastLo[0] + "), " + fastHi[0] + " + 1)",
                         " <= " + hi[0], pointBody(o, true), threads));
  } else {
    // Outer rows inside every fast box run the border, the check-free run and
    // the far border in turn; other rows are all border.
    std::string interior;
    for (size_t d = 0; d < last; ++d)
      interior += (d ? " && " : "") + q[d] + " >= " + fastLo[d] + " && " + q[d] + " <= " + fastHi[d];
    NameScope row(&scope);
    std::string borderEnd = row.fresh("border_end");
    inner.push_back(decl(index, ql, lo[last], false));
    inner.push_back(ifThen(interior, {decl(index, borderEnd, "formac_minll(" + fastLo[last] + ", " + hi[last] + " + 1)"),
                                      loop(last, "", " < " + borderEnd, pointBody(o, true), ""),
                                      loop(last, "", " <= " + fastHi[last], pointBody(o, false), "")}));
    inner.push_back(loop(last, "", " <= " + hi[last], pointBody(o, true), ""));
  }
  for (size_t d = last; d-- > 0;)
    inner = {loop(d, lo[d], " <= " + hi[d], std::move(inner), d == 0 ? threads : "")};
  for (Stmt& s : inner) t.push_back(std::move(s));
  return piece(std::move(t));
}

std::string emitPieceLoops(const LoopNestOptions& o) {
  return printerFor(o.cuda).print(pieceLoops(o), std::string(static_cast<size_t>(2 * o.indent), ' '));
}

}  // namespace formac::codegen
