// Sema's driver: walks the program's declarations and statements, creating
// one ir::Stage per image definition (see Sema.h). The builder's other jobs
// are in the files PipelineBuilder.h names.
#include <cctype>
#include <functional>

#include "sema/PipelineBuilder.h"
#include "sema/Sema.h"
#include "support/Suggest.h"

namespace formac {
namespace sema {
namespace {

// " (at line N)": where the first definition named `name` is.
template <class Defs>
std::string lineOf(const Defs& defs, const std::string& name) {
  for (const auto& d : defs)
    if (d.name == name) return " (at line " + std::to_string(d.loc.line) + ")";
  return "";
}

}  // namespace

ir::Pipeline PipelineBuilder::run(const std::string& name) {
  p_.name = name;
  for (const auto& s : prog_.structs)
    if (!recovering([&] { declareStruct(s); })) failedNames_.insert(s.name);
  for (const auto& s : prog_.stencils)
    if (!recovering([&] { declareStencil(s); })) failedNames_.insert(s.name);
  for (const auto& f : prog_.vectorFns)
    if (!recovering([&] { declareVectorFn(f); })) failedNames_.insert(f.name);
  for (const auto& prm : prog_.params) recovering([&] { declareParam(prm); });
  Scope global;
  for (const auto& in : prog_.inputs)
    if (!recovering([&] { declareInput(in, global); })) failedNames_.insert(in.name);
  for (const auto& s : prog_.stmts)
    if (!recovering([&] { statement(*s, global); })) abandon(*s, global);
  if (prog_.results.empty()) userError(prog_.returnLoc, "'return' needs an image");
  for (const auto& r : prog_.results) {
    recovering([&] {
      Value v = located(r->loc, [&] { return vexpr(*r, global); });
      if (v.stage < 0)
        userError(r->loc, "the program must return an image or a reduction, not a scalar input");
      p_.outputs.push_back(v.stage);
      auto border = zeroBorders_.find(v.stage);
      if (border != zeroBorders_.end())
        warnings_.add(r->loc, sema::zeroBorderMessage(p_, v.stage, border->second));
    });
  }
  errors_.throwIfAny();
  warnUnused(global);
  return std::move(p_);
}

// ------------------------------------------------------------ recovery
void PipelineBuilder::abandon(const ast::Stmt& s, Scope& global) {
  global.iterators.clear();
  inlining_.clear();
  std::function<void(const ast::Stmt&)> poison = [&](const ast::Stmt& st) {
    if (!st.target.empty()) failedNames_.insert(st.target);
    for (const auto& b : st.body) poison(*b);
  };
  poison(s);
}

void PipelineBuilder::unknown(const std::string& name, const SourceLoc& loc, const std::string& message) {
  if (failedNames_.count(name)) throw Cascade{};
  userError(loc, message);
}

// ------------------------------------------------------------ declarations
void PipelineBuilder::declareStruct(const ast::StructDef& s) {
  if (structs_.count(s.name))
    userError(s.loc, "struct '" + s.name + "' is already defined" +
                         lineOf(prog_.structs, s.name));
  auto st = std::make_shared<StructType>();
  st->name = s.name;
  st->loc = s.loc;
  st->builtinCuda = s.builtinCuda;
  if (s.builtinCuda) {
    // CUDA's vector types: float4 / int2 ... fields x, y, z, w.
    static const std::map<std::string, ScalarKind> bases = {
        {"float", ScalarKind::Float}, {"double", ScalarKind::Double},
        {"int", ScalarKind::Int}, {"short", ScalarKind::Int16}, {"uchar", ScalarKind::Int8},
        {"ushort", ScalarKind::Uint16}};
    bool ok = false;
    for (const auto& [base, kind] : bases) {
      if (s.name.size() == base.size() + 1 && s.name.compare(0, base.size(), base) == 0) {
        int n = s.name.back() - '0';
        if (n >= 1 && n <= 4) {
          const char* names[] = {"x", "y", "z", "w"};
          for (int i = 0; i < n; ++i) st->fields.push_back({names[i], kind});
          ok = true;
        }
      }
    }
    if (!ok)
      userError(s.loc, "'struct " + s.name + ";' must name a CUDA vector type such as "
                       "float4, int2 or uchar4");
  } else {
    std::set<std::string> seen;
    for (const auto& f : s.fields)
      if (!seen.insert(f.name).second)
        userError(s.loc, "struct '" + s.name + "' has two fields named '" + f.name + "'");
    st->fields = s.fields;
  }
  structs_[s.name] = st.get();
  p_.structs.push_back(st);
}

Type PipelineBuilder::resolveType(const ast::TypeName& t) {
  if (t.basic) return Type::of(*t.basic);
  auto it = structs_.find(t.structName);
  if (it == structs_.end())
    unknown(t.structName, t.loc,
            "unknown type '" + t.structName + "'" + didYouMean(t.structName, keys(structs_)));
  return Type::ofStruct(it->second);
}

void PipelineBuilder::declareStencil(const ast::StencilDef& s) {
  if (stencils_.count(s.name) || vectorFns_.count(s.name))
    userError(s.loc, "function '" + s.name + "' is already defined" +
                         lineOf(prog_.stencils, s.name));
  std::set<std::string> seen;
  for (const auto& prm : s.params) {
    if (!seen.insert(prm.name).second)
      userError(prm.loc, "stencil '" + s.name + "' has two parameters named '" + prm.name + "'");
    resolveType(prm.type);
  }
  stencils_[s.name] = &s;
}

void PipelineBuilder::declareVectorFn(const ast::VectorFnDef& f) {
  if (stencils_.count(f.name) || vectorFns_.count(f.name))
    userError(f.loc, "function '" + f.name + "' is already defined" +
                         (stencils_.count(f.name) ? lineOf(prog_.stencils, f.name)
                                                  : lineOf(prog_.vectorFns, f.name)));
  vectorFns_[f.name] = &f;
}

void PipelineBuilder::declareParam(const ast::ParamDecl& prm) {
  if (paramIndex_.count(prm.name))
    userError(prm.loc, "parameter '" + prm.name + "' is already declared" +
                           lineOf(prog_.params, prm.name));
  paramIndex_[prm.name] = static_cast<int>(p_.params.size());
  p_.params.push_back(ir::Param{prm.name, prm.defaultValue.has_value(),
                                prm.defaultValue.value_or(0)});
}

Size PipelineBuilder::size(const ast::SizeExpr& e) {
  switch (e.kind) {
    case ast::SizeExpr::Int: return ir::sizeConst(e.value);
    case ast::SizeExpr::Param: {
      auto it = paramIndex_.find(e.name);
      if (it == paramIndex_.end()) {
        std::string hint = didYouMean(e.name, keys(paramIndex_));
        userError(e.loc, "unknown parameter '" + e.name + "'" +
                             (hint.empty() ? " (declare it with 'parameter " + e.name + ";')" : hint));
      }
      return ir::sizeParam(it->second);
    }
    case ast::SizeExpr::Add:
    case ast::SizeExpr::Sub:
    case ast::SizeExpr::Mul: {
      Size a = size(*e.lhs);  // left to right: the first unknown name is reported
      Size b = size(*e.rhs);
      return e.kind == ast::SizeExpr::Add   ? ir::sizeAdd(a, b)
             : e.kind == ast::SizeExpr::Sub ? ir::sizeSub(a, b)
                                            : ir::sizeMul(a, b);
    }
    case ast::SizeExpr::Div: return ir::sizeDiv(size(*e.lhs), e.value);
  }
  throw InternalError("unhandled size kind");
}

void PipelineBuilder::declareInput(const ast::InputDecl& in, Scope& global) {
  if (global.names.count(in.name))
    userError(in.loc, "'" + in.name + "' is already declared" +
                          lineOf(prog_.inputs, in.name));
  Value v;
  v.defined = in.loc;
  if (in.rank == 0) {
    v.kind = Value::Scalar;
    auto e = std::make_shared<ir::Expr>();
    e->kind = ir::Expr::ScalarIn;
    e->type = Type::of(*in.type.basic);
    e->scalar = static_cast<int>(p_.scalars.size());
    v.scalar = e;
    p_.inputs.push_back({ir::EntryArg::Scalar, e->scalar});
    p_.scalars.push_back({in.name, *in.type.basic});
  } else {
    if (static_cast<int>(in.extent.size()) != in.rank)
      userError(in.loc, "'" + in.name + "' is declared vector#" + std::to_string(in.rank) +
                            " but its extent has " + std::to_string(in.extent.size()) +
                            (in.extent.size() == 1 ? " size" : " sizes"));
    Stage s;
    s.kind = Stage::Input;
    s.name = in.name;
    s.type = resolveType(in.type);
    for (const auto& e : in.extent)
      s.extent.push_back(located(e->loc, [&] { return size(*e); }));
    s.loc = in.loc;
    s.origin = "input";
    s.userName = in.name;
    v.stage = addStage(std::move(s));
    p_.inputs.push_back({ir::EntryArg::Image, v.stage});
  }
  global.names[in.name] = v;
}

int PipelineBuilder::addStage(Stage s) {
  if (p_.stages.size() >= kMaxStages)
    userError(s.loc, "the program defines more than " + std::to_string(kMaxStages) +
                         " images; formac does not compile pipelines that large");
  s.id = static_cast<int>(p_.stages.size());
  p_.stages.push_back(std::move(s));
  const Stage& added = p_.stages.back();
  // An extent that is negative whatever the parameters (a sub-domain
  // beyond a fixed-size image) has no image to hold.
  for (size_t d = 0; d < added.extent.size(); ++d) {
    long long n;
    if (ir::isConst(added.extent[d], &n) && n < 0)
      userError(added.loc, "the extent of " + shown(added.id) + " along dimension " +
                               std::to_string(d + 1) + " is negative (" + std::to_string(n) + ")");
  }
  return added.id;
}

// ------------------------------------------------------------ statements
std::string PipelineBuilder::indexedKey(const std::string& name, const ast::IndexedName& idx, const Scope& sc,
                                        const SourceLoc& loc) {
  if (!idx.present) return name;
  long long v = idx.delta;
  auto done = sc.finishedLoops.find(idx.iterator);
  if (!idx.iterator.empty() && !sc.iterators.count(idx.iterator) && done != sc.finishedLoops.end()) {
    if (idx.delta != 0)
      userError(loc, "after the loop over '" + idx.iterator + "', '" + name + "<" + idx.iterator +
                         ">' is its last round's image; '" + name + "<" + idx.iterator +
                         (idx.delta > 0 ? "+" : "") + std::to_string(idx.delta) + ">' is not defined");
    return name + "<" + idx.iterator + ">" + done->second;
  }
  if (!idx.iterator.empty() && idx.iterator == sc.doIterator && idx.delta != 0 && idx.delta != -1)
    userError(loc, "a 'do' loop's body reads '" + name + "<" + idx.iterator + "-1>' (the previous round) or '" +
                       name + "<" + idx.iterator + ">' (this round), not '" + name + "<" + idx.iterator +
                       (idx.delta > 0 ? "+" : "") + std::to_string(idx.delta) + ">'");
  if (!idx.iterator.empty()) {
    auto it = sc.iterators.find(idx.iterator);
    if (it == sc.iterators.end())
      userError(loc, "'" + idx.iterator + "' in '" + name + "<" + idx.iterator +
                         ">' is not a loop iterator");
    v += it->second;
  }
  return name + "<" + std::to_string(v) + ">";
}

void PipelineBuilder::define(Scope& sc, const std::string& key, Value v, const SourceLoc& loc) {
  if (sc.outer && sc.outer->names.count(key))
    userError(loc, "'" + key + "' is already defined before the loop (at line " +
                       std::to_string(sc.outer->names.at(key).defined.line) + "); an image is assigned once");
  auto it = sc.names.find(key);
  if (it != sc.names.end())
    userError(loc, "'" + key + "' is already defined (at line " +
                       std::to_string(it->second.defined.line) +
                       "); an image is assigned once");
  v.defined = loc;
  sc.names[key] = v;
  if (v.stage >= 0) {
    Stage& s = p_.stages[static_cast<size_t>(v.stage)];
    if (s.kind != Stage::Input && s.name.rfind("_t", 0) == 0) {
      s.name = sanitize(sc.prefix + key);
      s.userName = key;
    }
  }
}

std::string PipelineBuilder::sanitize(const std::string& key) {
  std::string out;
  for (char c : key) out += (isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

void PipelineBuilder::statement(const ast::Stmt& s, Scope& sc) {
  if (s.kind == ast::Stmt::For) {
    long long trips = (s.from <= s.to ? s.to - s.from : s.from - s.to) + 1;
    if (trips > kMaxLoopIterations)
      userError(s.loc, "the loop over '" + s.iterator + "' runs " + std::to_string(trips) +
                           " times; formac unrolls at most " +
                           std::to_string(kMaxLoopIterations) + " iterations");
    long long step = s.from <= s.to ? 1 : -1;
    for (long long i = s.from;; i += step) {
      sc.iterators[s.iterator] = i;
      for (const auto& b : s.body) statement(*b, sc);
      if (i == s.to) break;
    }
    sc.iterators.erase(s.iterator);
    return;
  }
  if (s.kind == ast::Stmt::DoWhile) return doLoop(s, sc);
  located(s.loc, [&] {
    std::string key = indexedKey(s.target, s.targetIndex, sc, s.loc);
    Value v = vexpr(*s.value, sc);
    if (s.hasDomain || s.hasOffsets) {
      if (v.kind != Value::Image) userError(s.value->loc, "only an image can be placed");
      v.stage = s.hasDomain ? placeSubDomain(s, v.stage) : scatter(s, v.stage);
    }
    define(sc, key, v, s.loc);
  });
}

// ------------------------------------------------------------ warnings
void PipelineBuilder::warnUnused(const Scope& global) {
  const SourceFile* main = prog_.returnLoc.file;
  for (const auto& s : prog_.stencils)
    if (!usedFns_.count(s.name) && s.loc.file == main)
      warnings_.add(s.loc, "stencil '" + s.name + "' is never used");
  for (const auto& f : prog_.vectorFns)
    if (!usedFns_.count(f.name) && f.loc.file == main)
      warnings_.add(f.loc, "vector function '" + f.name + "' is never used");
  std::set<int> outputs(p_.outputs.begin(), p_.outputs.end());
  for (const auto& [name, v] : global.names) {
    if (v.stage < 0 || used_.count(v.stage) || outputs.count(v.stage)) continue;
    if (stage(v.stage).kind == Stage::Input)
      warnings_.add(v.defined, "input image '" + name + "' is never used");
    else
      warnings_.add(v.defined, std::string(v.kind == Value::Image ? "image '" : "'") + name +
                                   "' is computed but never used");
  }
}

}  // namespace sema

ir::Pipeline buildPipeline(const ast::Program& program, const std::string& name,
                           Warnings& warnings) {
  return sema::PipelineBuilder(program, warnings).run(name);
}

}  // namespace formac
