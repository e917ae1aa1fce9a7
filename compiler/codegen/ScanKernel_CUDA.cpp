#include "codegen/ScanKernel_CUDA.h"

#include "codegen/ExprPrinter.h"
#include "codegen/Reduce_CUDA.h"

namespace formac::codegen::scan_cuda {

std::string str(long long v) { return std::to_string(v); }
std::string q(int d) { return "q" + str(d); }
std::string n(int d) { return "formac_n" + str(d); }
int rankOf(const ir::Stage& s) { return static_cast<int>(s.scan.input.axes.size()); }
bool floating(const ir::Stage& s) { return s.scan.accumulate == ScalarKind::Double; }

std::string product(int from, int to) {
  std::string t;
  for (int d = from; d < to; ++d) t += (t.empty() ? "" : " * ") + std::string("(long long)") + n(d);
  return t.empty() ? "1" : t;
}

int runsPerThread(const ScanCuda& c, bool first) {
  ScalarKind held = first ? c.stage->scan.input.body.result->type.scalar : c.stage->scan.accumulate;
  return scalarSize(held) > 4 ? 2 : 4;
}
int rowTileRuns(const ScanCuda& c) { return kCudaThreads * runsPerThread(c, true); }
int columnTileRuns(const ScanCuda& c, bool first) { return kColumnThreadRows * runsPerThread(c, first); }

std::vector<Pass> passesOf(const ScanCuda& c) {
  const ir::Stage& s = *c.stage;
  int rank = rankOf(s);
  std::vector<Pass> out;
  auto add = [&](Pass::Kind k, int d) {
    std::string suffix = k == Pass::Sat ? "_sat" + str(d) + str(d + 1) : "_dim" + str(d);
    out.push_back({k, d, out.empty(), false, c.name + suffix});
  };
  if (s.scan.dim >= 0) {
    add(s.scan.dim == rank - 1 ? Pass::Row : Pass::Column, s.scan.dim);
  } else if (rank == 1) {
    add(Pass::Row, 0);
  } else {
    add(Pass::Sat, rank - 2);
    for (int d = rank - 3; d >= 0; --d) add(Pass::Column, d);
  }
  out.back().last = true;
  return out;
}

std::string valueType(const ScanCuda& c, bool first) {
  return first ? cType(c.stage->scan.input.body.result->type) : scanAccumulationType(*c.stage);
}
std::string storedType(const ScanCuda& c, bool last) {
  return last ? cType(c.stage->type) : scanAccumulationType(*c.stage);
}

std::string directInput(const ScanCuda& c) {
  const ir::Piece& in = c.stage->scan.input;
  if (!in.body.lets.empty() || !in.body.result) return "";
  const ir::Expr& e = *in.body.result;
  if (e.kind != ir::Expr::ImageRead || e.field >= 0 || e.firstDim != 0 || e.type.isStruct()) return "";
  const ir::Stage& from = c.pipeline->stages[static_cast<size_t>(e.producer)];
  int rank = rankOf(*c.stage);
  if (from.rank() != rank || static_cast<int>(e.axes.size()) != rank || from.type.isStruct()) return "";
  for (const auto& o : e.origin)
    if (long long v; !ir::isConst(o, &v) || v != 0) return "";
  int params = static_cast<int>(c.names->param.size());
  for (int d = 0; d < rank; ++d) {
    const auto& ax = e.axes[static_cast<size_t>(d)];
    const auto& pa = in.axes[static_cast<size_t>(d)];
    if (long long v; ax.offset != 0 || ax.scale != 1 || pa.step != 1 || !ir::isConst(pa.start, &v) || v != 0 ||
                     !ir::sameSize(from.extent[static_cast<size_t>(d)], pa.count, params))
      return "";
  }
  return c.names->stage[static_cast<size_t>(e.producer)];
}

std::string kernel(const ScanCuda& c, const Pass& p, const std::string& what, const std::string& block,
                   std::vector<Stmt> body) {
  std::string A = scanAccumulationType(*c.stage);
  std::vector<Param> params;
  if (p.first) params = c.inputParams;
  if (!p.first || !p.last) params.push_back({A + "*", "formac_values"});  // read and written in place: not restrict
  if (p.last) params.push_back({cType(c.stage->type), "formac_out", true});
  params.push_back({A, "formac_groups", true});
  params.push_back({"unsigned long long", "formac_counter", true});
  for (const auto& prm : c.names->param) params.push_back({"I", prm, false, true});
  std::vector<Stmt> t;
  for (int d = 0; d < rankOf(*c.stage); ++d) {
    std::string count = ir::printSize(c.stage->scan.input.axes[static_cast<size_t>(d)].count, c.names->param);
    t.push_back(decl("I", n(d), "(I)(" + count + ")"));
  }
  t.push_back(seq(std::move(body)));
  Stmt k = function("__global__", "void", p.kernel, std::move(params), std::move(t), c.names->param);
  k.templateParams = "typename I";
  k.attributes = "__launch_bounds__(" + block + ")";
  return printerFor(true).print({comment(c.stage->name + ", " + what), k}) + "\n";
}

Stmt upTo(const std::string& var, const std::string& count, std::vector<Stmt> body) {
  return unrolledLoop("int " + var + " = 0", var + " < " + count, "++" + var, std::move(body));
}

Stmt loadValue(const ScanCuda& c, const Pass& p, const std::string& at, const std::string& var) {
  if (!p.first) return assign(var, "formac_values[" + at + "]");
  return block({seq(reduce_cuda::pointValueOf(*c.pipeline, *c.stage, *c.names)), assign(var, "formac_v")});
}

std::string accumulated(const ScanCuda& c, const Pass& p, const std::string& x) {
  if (!p.first) return x;
  return floating(*c.stage) ? "(double)" + x : "(unsigned long long)(long long)" + x;
}

std::string stored(const ScanCuda& c, const Pass& p, const std::string& e) {
  if (!p.last) return e;
  ScalarKind T = c.stage->type.scalar;
  std::string t = cType(c.stage->type);
  if (!floating(*c.stage)) return "(" + t + ")(long long)(" + e + ")";
  if (T == ScalarKind::Double) return e;
  if (T == ScalarKind::Float) return "(float)(" + e + ")";
  if (T == ScalarKind::Int64) return "formac_ftoi_l(" + e + ")";
  return "(" + t + ")formac_ftoi(" + e + ")";
}

std::string outBuffer(const Pass& p) { return p.last ? "formac_out" : "formac_values"; }

std::vector<Stmt> indicesFrom(int from, int to) {
  std::vector<Stmt> t;
  for (int d = to - 1; d >= from; --d) {
    if (d == from) {
      t.push_back(decl("I", q(d), "(I)formac_rest"));
    } else {
      t.push_back(decl("I", q(d), "(I)(formac_rest % " + n(d) + ")"));
      t.push_back(eval("formac_rest /= " + n(d)));
    }
  }
  return t;
}

Stmt tileLoop(const std::string& first, std::vector<Stmt> body) {
  return forLoop("", "", "",
                 {comment("The next tile, in order: every earlier tile is running or done."),
                  ifThen(first, {assign("formac_tile_at", "(long long)atomicAdd(formac_counter, 1ULL)")}),
                  eval("__syncthreads()"),
                  decl("long long", "formac_tile", "formac_tile_at"),
                  ifThen("formac_tile >= formac_tiles", {eval("break")}),
                  seq(std::move(body)),
                  comment("the next tile reuses the shared arrays"),
                  eval("__syncthreads()")});
}

Stmt addGroupsOfBits(const std::string& e, const std::string& pos, const std::string& seg, const std::string& start,
                     const std::function<std::string(const std::string&)>& groupAt) {
  return forLoop("int formac_b = " + seg + " / 2, formac_s = " + start, "formac_b >= 1", "formac_b /= 2",
                 {ifThen(pos + " & formac_b",
                         {assign(e, e + " + " + groupAt("formac_s + formac_b - 1")), eval("formac_s += formac_b")})});
}

std::vector<Stmt> upSweep(const std::string& seg, const std::string& var, const std::string& count,
                          const std::string& place, const std::function<std::string(const std::string&)>& sumAt) {
  return {forLoop("int formac_m = 1", "formac_m < " + seg, "formac_m *= 2",
                  {eval("__syncthreads()"),
                   upTo(var, count,
                        {ifThen("((" + place + " + 1) & (2 * formac_m - 1)) == 0",
                                {assign(sumAt(place), sumAt(place + " - formac_m") + " + " + sumAt(place))})})}),
          eval("__syncthreads()")};
}

}  // namespace formac::codegen::scan_cuda
