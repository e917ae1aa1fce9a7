#include "codegen/ReduceFlat_CUDA.h"

#include <algorithm>
#include <functional>

#include "codegen/ExprPrinter.h"
#include "codegen/LoopNest.h"
#include "codegen/Reduce_C.h"

namespace formac::codegen {
namespace {

std::string str(long long v) { return std::to_string(v); }

bool isZero(const ir::Size& z) { return !z || (z->kind == ir::SizeNode::Const && z->value == 0); }

// Whether `e` reads producer e.producer at the domain's point itself, the
// producer a scalar image of the domain's shape.
bool readsThePoint(const ReduceCuda& r, const ir::Expr& e) {
  if (!reduce_flat::readsDomainShape(r, e)) return false;
  for (const auto& a : e.axes)
    if (a.offset != 0) return false;
  return true;
}

ScalarKind elementOf(const ReduceCuda& r, int id) { return r.pipeline->stages[static_cast<size_t>(id)].type.scalar; }

std::string name(const ReduceCuda& r, int id) { return r.names->stage[static_cast<size_t>(id)]; }

}  // namespace

FlatReads flatReads(const ReduceCuda& r) {
  FlatReads f;
  bool ok = true;
  std::function<void(const ir::Expr&)> walk = [&](const ir::Expr& e) {
    if (e.kind == ir::Expr::IndexRead) ok = false;
    if (e.kind == ir::Expr::ImageRead) {
      if (!readsThePoint(r, e)) ok = false;
      else if (std::find(f.producers.begin(), f.producers.end(), e.producer) == f.producers.end())
        f.producers.push_back(e.producer);
    }
    for (const auto& a : e.args) walk(*a);
  };
  const ir::Body& b = r.stage->reduction.input.body;
  for (const auto& l : b.lets) walk(*l.value);
  walk(*b.result);
  int widest = 0;
  for (int id : f.producers) widest = std::max(widest, scalarSize(elementOf(r, id)));
  if (ok && widest > 0) f.per = 16 / widest;
  else f.producers.clear();
  return f;
}

namespace reduce_flat {

bool readsDomainShape(const ReduceCuda& r, const ir::Expr& e) {
  const ir::Piece& pc = r.stage->reduction.input;
  if (e.field >= 0 || e.firstDim != 0 || e.axes.size() != pc.axes.size()) return false;
  const ir::Stage& src = r.pipeline->stages[static_cast<size_t>(e.producer)];
  if (src.rank() != static_cast<int>(pc.axes.size()) || src.type.isStruct() || src.type.scalar != e.type.scalar)
    return false;
  for (const auto& o : e.origin)
    if (!isZero(o)) return false;
  for (size_t d = 0; d < pc.axes.size(); ++d)
    if (e.axes[d].scale != 1 || pc.axes[d].step != 1 || !isZero(pc.axes[d].start) ||
        ir::printSize(pc.axes[d].count, r.names->param) != ir::printSize(src.extent[d], r.names->param))
      return false;
  return true;
}

std::string loadType(int bytes) {
  switch (bytes) {
    case 16: return "uint4";
    case 8: return "uint2";
    case 4: return "unsigned";
    case 2: return "unsigned short";
    default: return "unsigned char";
  }
}

std::string aligned(const ReduceCuda& r, const FlatReads& f) {
  std::string t;
  for (int id : f.producers)
    t += std::string(t.empty() ? "" : " && ") + "(unsigned long long)" + name(r, id) + " % " +
         str(f.per * scalarSize(elementOf(r, id))) + " == 0";
  return t;
}

std::vector<Stmt> loads(const ReduceCuda& r, const FlatReads& f, int batch, const std::string& at) {
  std::vector<Stmt> t;
  std::string B = str(batch), step = str(32 * f.per);
  for (int id : f.producers) {
    std::string L = loadType(f.per * scalarSize(elementOf(r, id))), l = "formac_l" + str(id);
    t.push_back(declOnly(L, l + "[" + B + "]"));
    t.push_back(unrolledLoop("int formac_b = 0", "formac_b < " + B, "++formac_b",
                             {assign(l + "[formac_b]", "__ldg((const " + L + "*)(" + name(r, id) + " + " + at +
                                                           " + formac_b * " + step + "))")}));
  }
  return t;
}

std::vector<Stmt> unpack(const ReduceCuda& r, const FlatReads& f, const std::string& b) {
  std::vector<Stmt> t;
  for (int id : f.producers) {
    std::string e = "formac_e" + str(id);
    t.push_back(declOnly(scalarCType(elementOf(r, id)), e + "[" + str(f.per) + "]"));
    t.push_back(eval("memcpy(" + e + ", &formac_l" + str(id) + "[" + b + "], sizeof " + e + ")"));
  }
  return t;
}

std::vector<Stmt> value(const ReduceCuda& r, bool vector) {
  ir::Stage domain = domainStage(*r.stage);
  LoopNestOptions lo = reduce_cuda::pointOptions(*r.pipeline, domain, *r.names);
  lo.access = [&](int id, const std::vector<std::string>&) {
    return vector ? "formac_e" + str(id) + "[formac_u]" : name(r, id) + "[formac_k]";
  };
  return {declOnly(cType(domain.type), "formac_v"), seq(pointBody(lo, false))};
}

}  // namespace reduce_flat
}  // namespace formac::codegen
