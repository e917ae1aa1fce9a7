// Sema's driver: walks the program's declarations and statements, creating
// one ir::Stage per image definition (see Sema.h).
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "sema/ExprBuilder.h"
#include "sema/GlobalOps.h"
#include "sema/Lints.h"
#include "sema/Sema.h"
#include "sema/StencilBody.h"
#include "support/Suggest.h"

namespace formac {
namespace {

using ir::Size;
using ir::Stage;

// Limits that keep a hostile program from exhausting time or memory; real
// pipelines are far below them.
constexpr long long kMaxLoopIterations = 100000;  // one `for` loop, unrolled
constexpr size_t kMaxStages = 100000;             // images in the whole pipeline
constexpr size_t kMaxInlineDepth = 256;           // vector functions calling each other
constexpr long long kMaxInlinedCalls = 1000000;   // vector function calls, all inlined

// Why a Reduce stage given for a scalar is an image, and how to use it.
std::string imageReductionNote(const Stage& s) {
  switch (s.reduction.op) {
    case ir::ReduceOp::Histogram: return " (histogram's bins)";
    case ir::ReduceOp::Where:
    case ir::ReduceOp::TopK:
      return std::string(" (") + ir::reduceOpName(s.reduction.op) +
             "'s indices; pass it as a vector#1 int64 parameter and read one, e.g. T[0])";
    default: return " (a reduction along one dimension)";
  }
}

// What a name stands for in a scope.
struct Value {
  enum Kind { Image, Scalar } kind = Image;
  int stage = -1;
  ast::Boundary boundary;  // a vector function's image argument may carry one
  ir::ExprPtr scalar;      // a scalar input or literal
  SourceLoc defined;
};

struct Scope {
  std::map<std::string, Value> names;
  std::map<std::string, long long> iterators;
  std::string prefix;  // for stage names made inside a vector function
  // A `do` loop's body: names it does not define come from `outer`, each
  // image becoming an input of the body's pipeline (importOuter).
  Scope* outer = nullptr;
  std::string doIterator;  // the body's iterator: indices i - 1 and i only
  // Finished `do` loops: iterator -> the suffix of their results' keys.
  std::map<std::string, std::string> finishedLoops;
};

bool isCKeyword(const std::string& n) {
  static const std::set<std::string> words = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
      "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
      "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
      "union", "unsigned", "void", "volatile", "while", "class", "new", "delete", "template",
      "this", "bool", "true", "false", "namespace", "operator", "private", "public", "virtual"};
  return words.count(n) > 0;
}

class PipelineBuilder {
 public:
  PipelineBuilder(const ast::Program& prog, Warnings& w) : prog_(prog), warnings_(w) {}

  ir::Pipeline run(const std::string& name) {
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

 private:
  // ------------------------------------------------------------ recovery
  // Thrown where a statement needs a name whose definition failed: that
  // error is reported already, and this statement is abandoned silently.
  struct Cascade {};

  // Runs one definition, declaration or statement; a user error is recorded
  // (ErrorLog throws them all at its limit) and the unit abandoned, so that
  // the next one is checked too. Returns whether it succeeded.
  template <class Unit>
  bool recovering(Unit&& unit) {
    try {
      unit();
      return true;
    } catch (const Cascade&) {
      return false;
    } catch (const UserError& e) {
      errors_.add(e);
      return false;
    }
  }

  // After a failed statement: its images (every index of g<i>) are not
  // reported unknown later, and the loops and calls it was in are left.
  void abandon(const ast::Stmt& s, Scope& global) {
    global.iterators.clear();
    inlining_.clear();
    std::function<void(const ast::Stmt&)> poison = [&](const ast::Stmt& st) {
      if (!st.target.empty()) failedNames_.insert(st.target);
      for (const auto& b : st.body) poison(*b);
    };
    poison(s);
  }

  [[noreturn]] void unknown(const std::string& name, const SourceLoc& loc, const std::string& message) {
    if (failedNames_.count(name)) throw Cascade{};
    userError(loc, message);
  }

  // ------------------------------------------------------------ declarations
  void declareStruct(const ast::StructDef& s) {
    if (structs_.count(s.name))
      userError(s.loc, "struct '" + s.name + "' is already defined" +
                           lineOf(prog_.structs, s.name));
    // Struct and field names become C names in the generated code.
    if (isCKeyword(s.name))
      userError(s.loc, "'" + s.name + "' is a C keyword and cannot name a struct");
    for (const auto& f : s.fields)
      if (isCKeyword(f.name))
        userError(s.loc, "'" + f.name + "' is a C keyword and cannot name a field of struct '" +
                             s.name + "'");
    auto st = std::make_shared<StructType>();
    st->name = s.name;
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

  Type resolveType(const ast::TypeName& t) {
    if (t.basic) return Type::of(*t.basic);
    auto it = structs_.find(t.structName);
    if (it == structs_.end())
      unknown(t.structName, t.loc,
              "unknown type '" + t.structName + "'" + didYouMean(t.structName, keys(structs_)));
    return Type::ofStruct(it->second);
  }

  void declareStencil(const ast::StencilDef& s) {
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

  void declareVectorFn(const ast::VectorFnDef& f) {
    if (stencils_.count(f.name) || vectorFns_.count(f.name))
      userError(f.loc, "function '" + f.name + "' is already defined" +
                           (stencils_.count(f.name) ? lineOf(prog_.stencils, f.name)
                                                    : lineOf(prog_.vectorFns, f.name)));
    vectorFns_[f.name] = &f;
  }

  template <class Map>
  static std::vector<std::string> keys(const Map& m) {
    std::vector<std::string> out;
    for (const auto& kv : m) out.push_back(kv.first);
    return out;
  }

  // " (at line N)": where the first definition named `name` is.
  template <class Defs>
  static std::string lineOf(const Defs& defs, const std::string& name) {
    for (const auto& d : defs)
      if (d.name == name) return " (at line " + std::to_string(d.loc.line) + ")";
    return "";
  }

  void declareParam(const ast::ParamDecl& prm) {
    if (paramIndex_.count(prm.name))
      userError(prm.loc, "parameter '" + prm.name + "' is already declared" +
                             lineOf(prog_.params, prm.name));
    paramIndex_[prm.name] = static_cast<int>(p_.params.size());
    p_.params.push_back(ir::Param{prm.name, prm.defaultValue.has_value(),
                                  prm.defaultValue.value_or(0)});
  }

  Size size(const ast::SizeExpr& e) {
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

  void declareInput(const ast::InputDecl& in, Scope& global) {
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

  int addStage(Stage s) {
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
  const Stage& stage(int id) const { return p_.stages[static_cast<size_t>(id)]; }
  // How messages name a stage: never by a generated name (ir::describeStage).
  std::string shown(int id) const { return ir::describeStage(p_, id); }

  // ------------------------------------------------------------ statements
  std::string indexedKey(const std::string& name, const ast::IndexedName& idx, const Scope& sc,
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

  void define(Scope& sc, const std::string& key, Value v, const SourceLoc& loc) {
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

  static std::string sanitize(const std::string& key) {
    std::string out;
    for (char c : key) out += (isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out;
  }

  // Size arithmetic reports an overflow without a location (ir/Size.cpp);
  // this gives such an error the location of the construct being built.
  template <class Build>
  auto located(const SourceLoc& loc, Build&& build) -> decltype(build()) {
    try {
      return build();
    } catch (const UserError& e) {
      if (e.loc().valid()) throw;
      userError(loc, e.message());
    }
  }

  void statement(const ast::Stmt& s, Scope& sc) {
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

  // ------------------------------------------------------------ do loops
  // The state of the `do` loop being built: its body is built into p_ (the
  // enclosing pipeline set aside), its outer images imported as inputs.
  struct LoopBuild {
    ir::Pipeline outer;
    std::shared_ptr<ir::Loop> loop;
    std::map<int, int> imported;  // outer stage -> body input
  };
  std::vector<LoopBuild> loops_;

  // A body Input stage holding outer stage `outer`: once per stage read, and
  // one of its own per carried image (h<0> = a; s<0> = a; carry two images).
  int bodyInput(const Stage& outer, const std::string& name, bool carried = false) {
    LoopBuild& lb = loops_.back();
    auto found = lb.imported.find(outer.id);
    if (!carried && found != lb.imported.end()) return found->second;
    Stage in;
    in.kind = Stage::Input;
    in.name = sanitize(name);
    in.userName = outer.userName.empty() ? name : outer.userName;
    in.type = outer.type;
    in.extent = outer.extent;
    in.loc = outer.loc;
    in.origin = "the loop's input";
    int id = addStage(std::move(in));
    p_.inputs.push_back({ir::EntryArg::Image, id});
    if (!carried) lb.imported[outer.id] = id;
    return id;
  }

  // `key` defined outside the loop body `sc`: images and reductions become
  // inputs of the body (reads of the enclosing pipeline's stages); scalar
  // inputs and constants are the same in the body.
  std::optional<Value> importOuter(Scope& sc, const std::string& key) {
    auto it = sc.outer->names.find(key);
    if (it == sc.outer->names.end()) return std::nullopt;
    Value v = it->second;
    if (v.stage < 0) return v;
    const Stage& outer = loops_.back().outer.stages[static_cast<size_t>(v.stage)];
    int in = bodyInput(outer, key);
    if (std::none_of(loops_.back().loop->carried.begin(), loops_.back().loop->carried.end(),
                     [&](const ir::Loop::Binding& b) { return b.inner == in; }) &&
        std::none_of(loops_.back().loop->reads.begin(), loops_.back().loop->reads.end(),
                     [&](const ir::Loop::Binding& b) { return b.inner == in; }))
      loops_.back().loop->reads.push_back({v.stage, in});
    used_.insert(in);
    Value out = v;
    out.stage = in;
    if (v.kind == Value::Scalar) out.scalar = sema::scalarStageRead(p_, in);
    return out;
  }

  // `do i = A..N body while (cond);` (LANGUAGE.md §7): the body becomes a
  // pipeline of its own, run round after round by a Loop; the images it
  // carries (X<i> defined in the body with X<A-1> defined before it) are
  // LoopResult stages after it, named X<i>.
  void doLoop(const ast::Stmt& s, Scope& sc) {
    if (sc.outer) userError(s.loc, "a 'do' loop inside another 'do' loop is not supported");
    if (sc.iterators.count(s.iterator) || (!sc.doIterator.empty() && sc.doIterator == s.iterator))
      userError(s.loc, "'" + s.iterator + "' is already the iterator of an enclosing loop");
    Size rounds = ir::sizeConst(s.to - s.from + 1);
    if (!s.toParam.empty()) {
      auto prm = paramIndex_.find(s.toParam);
      if (prm == paramIndex_.end())
        userError(s.toLoc, "the last round of a 'do' loop is an integer or a parameter; '" + s.toParam +
                               "' is not a parameter");
      rounds = ir::sizeAdd(ir::sizeParam(prm->second), ir::sizeConst(1 - s.from));
    }
    // The names each round defines: X<i>.
    std::vector<std::string> perRound;
    std::function<void(const ast::Stmt&)> scan = [&](const ast::Stmt& st) {
      if (st.kind == ast::Stmt::DoWhile && &st != &s) return;
      for (const auto& b : st.body) scan(*b);
      if (st.kind != ast::Stmt::Assign || !st.targetIndex.present || st.targetIndex.iterator != s.iterator) return;
      if (st.targetIndex.delta != 0)
        userError(st.loc, "a 'do' loop's body defines '" + st.target + "<" + s.iterator + ">', this round's image, not '" +
                              st.target + "<" + s.iterator + (st.targetIndex.delta > 0 ? "+" : "") +
                              std::to_string(st.targetIndex.delta) + ">'");
      if (std::find(perRound.begin(), perRound.end(), st.target) == perRound.end()) perRound.push_back(st.target);
    };
    scan(s);

    LoopBuild lb;
    lb.loop = std::make_shared<ir::Loop>();
    lb.loop->iterator = s.iterator;
    lb.loop->loc = s.loc;
    lb.loop->rounds = rounds;
    ir::Pipeline body;
    body.name = p_.name + "_loop" + std::to_string(loopCount_);
    body.structs = p_.structs;
    body.params = p_.params;
    body.scalars = p_.scalars;
    for (const auto& a : p_.inputs)
      if (a.kind == ir::EntryArg::Scalar) body.inputs.push_back(a);
    lb.outer = std::move(p_);
    p_ = std::move(body);
    loops_.push_back(std::move(lb));
    std::set<int> outerUsed;
    std::swap(used_, outerUsed);
    std::map<int, sema::ZeroBorder> outerBorders;
    std::swap(zeroBorders_, outerBorders);
    auto restore = [&] {
      LoopBuild& back = loops_.back();
      ir::Pipeline built = std::move(p_);
      p_ = std::move(back.outer);
      std::swap(used_, outerUsed);
      std::swap(zeroBorders_, outerBorders);
      return built;
    };

    Scope inner;
    inner.outer = &sc;
    inner.doIterator = s.iterator;
    inner.iterators = sc.iterators;
    inner.iterators[s.iterator] = s.from;
    inner.prefix = sc.prefix;
    inner.finishedLoops = sc.finishedLoops;  // an earlier loop's X<j> is read in this body too
    ir::Pipeline built;
    int condition = -1;
    std::vector<std::string> carriedNames;  // X, per carried image
    try {
      // Carried images: X<A-1> before the loop is X<i-1> in the body.
      for (const auto& x : perRound) {
        std::string before = x + "<" + std::to_string(s.from - 1) + ">";
        auto init = sc.names.find(before);
        if (init == sc.names.end() || init->second.kind != Value::Image) continue;
        int in = bodyInput(loops_.back().outer.stages[static_cast<size_t>(init->second.stage)], before, true);
        loops_.back().loop->carried.push_back({init->second.stage, in});
        carriedNames.push_back(x);
        Value v = imageValue(in);
        v.defined = init->second.defined;
        inner.names[before] = v;
      }
      for (const auto& b : s.body) statement(*b, inner);
      Value cond = located(s.condition->loc, [&] { return vexpr(*s.condition, inner); });
      if (cond.kind != Value::Scalar)
        userError(s.condition->loc, "the condition of a 'do' loop is a scalar, such as 'any(c<" + s.iterator +
                                        ">)', not an image");
      if (cond.stage < 0 || p_.stages[static_cast<size_t>(cond.stage)].kind == Stage::Input)
        userError(s.condition->loc, "the condition of a 'do' loop must be computed in the loop (a reduction "
                                    "such as 'any(c<" + s.iterator + ">)'), or it never changes");
      condition = cond.stage;
      for (size_t j = 0; j < loops_.back().loop->carried.size(); ++j) {
        const auto& bind = loops_.back().loop->carried[j];
        const std::string& x = carriedNames[j];
        std::string name = x + "<" + std::to_string(s.from - 1) + ">";
        const Value& next = inner.names.at(x + "<" + std::to_string(s.from) + ">");
        const Stage& before = loops_.back().outer.stages[static_cast<size_t>(bind.outer)];
        if (next.kind != Value::Image || stage(next.stage).type != before.type ||
            !sameExtent(stage(next.stage).extent, before.extent))
          userError(next.defined, "'" + x + "<" + s.iterator + ">' must have the type and extent of '" + name +
                                      "' (" + before.type.name() + extentText(before) + "), which the loop carries");
        loops_.back().loop->next.push_back(next.stage);
        p_.outputs.push_back(next.stage);
      }
      p_.outputs.push_back(condition);
    } catch (...) {
      restore();
      loops_.pop_back();
      throw;
    }
    std::shared_ptr<ir::Loop> loop = loops_.back().loop;
    built = restore();
    loops_.pop_back();
    loop->condition = condition;
    loop->body = std::make_shared<ir::Pipeline>(std::move(built));
    ++loopCount_;
    for (const auto& b : loop->carried) used_.insert(b.outer);
    for (const auto& b : loop->reads) used_.insert(b.outer);
    // The carried images after the loop: X<i>.
    std::string suffix = loopCount_ > 1 ? "#" + std::to_string(loopCount_) : "";
    for (size_t j = 0; j < loop->carried.size(); ++j) {
      const Stage& init = stage(loop->carried[j].outer);
      const std::string& x = carriedNames[j];
      Stage r;
      r.kind = Stage::LoopResult;
      r.type = init.type;
      r.extent = init.extent;
      r.loop = loop;
      r.loopIndex = static_cast<int>(j);
      r.loc = s.loc;
      r.origin = "do " + s.iterator + " = " + std::to_string(s.from) + ".." +
                 (s.toParam.empty() ? std::to_string(s.to) : s.toParam) + ": " + x + "<" + s.iterator + ">";
      r.name = "_t" + std::to_string(p_.stages.size());
      int id = addStage(std::move(r));
      used_.insert(id);  // carried: used in the loop whether or not read after it
      define(sc, x + "<" + s.iterator + ">" + suffix, imageValue(id), s.loc);
      p_.stages[static_cast<size_t>(id)].userName = x + "<" + s.iterator + ">";
    }
    sc.finishedLoops[s.iterator] = suffix;
  }

  bool sameExtent(const std::vector<Size>& a, const std::vector<Size>& b) const {
    if (a.size() != b.size()) return false;
    for (size_t d = 0; d < a.size(); ++d)
      if (!ir::sameSize(a[d], b[d], static_cast<int>(p_.params.size()))) return false;
    return true;
  }

  // `out[a.., b..] = e;`: e(0,0) lands at out(a,b); out's extent is n+a per
  // dimension; the rest is 0. An upper bound, when written, cuts e off there.
  // Extra leading axes (`out[1..,3..,5..] = e2d;`) add dimensions of extent
  // a+1 in which e sits at index a.
  int placeSubDomain(const ast::Stmt& s, int src) {
    const Stage& e = stage(src);
    if (static_cast<int>(s.domain.axes.size()) < e.rank())
      userError(s.domain.loc, shown(src) + " has rank " + std::to_string(e.rank()) +
                                  " but the placement gives only " +
                                  std::to_string(s.domain.axes.size()) +
                                  (s.domain.axes.size() == 1 ? " axis" : " axes"));
    size_t extra = s.domain.axes.size() - static_cast<size_t>(e.rank());
    std::vector<Size> extent;
    ir::Piece piece;
    piece.loc = s.loc;
    for (size_t d = 0; d < extra; ++d) {
      const ast::Range& r = s.domain.axes[d];
      if (r.isRange && r.hi)
        userError(r.loc, "a leading placement axis takes a single position ('a..' or 'a')");
      Size lo = r.lo ? size(*r.lo) : ir::sizeConst(0);
      piece.axes.push_back(ir::PieceAxis{lo, 1, ir::sizeConst(1)});
      extent.push_back(ir::sizeAdd(lo, ir::sizeConst(1)));
    }
    ast::Domain rest;
    rest.loc = s.domain.loc;
    for (size_t d = extra; d < s.domain.axes.size(); ++d) {
      ast::Range r;
      r.loc = s.domain.axes[d].loc;
      r.isRange = s.domain.axes[d].isRange;
      if (s.domain.axes[d].lo) r.lo = std::make_unique<ast::SizeExpr>(cloneSize(*s.domain.axes[d].lo));
      if (s.domain.axes[d].hi) r.hi = std::make_unique<ast::SizeExpr>(cloneSize(*s.domain.axes[d].hi));
      rest.axes.push_back(std::move(r));
    }
    placementAxes(rest, e, piece, extent);
    Stage out = newStage(e.type, extent, s.loc, "placement of " + e.name);
    setFullValidBox(piece);
    auto read = std::make_shared<ir::Expr>(*plainRead(src, zeroAxes(e.rank()), {}));
    read->firstDim = static_cast<int>(extra);
    piece.body.result = read;
    out.pieces.push_back(std::move(piece));
    return addStage(std::move(out));
  }

  static ast::SizeExpr cloneSize(const ast::SizeExpr& e) {
    ast::SizeExpr c;
    c.kind = e.kind;
    c.loc = e.loc;
    c.value = e.value;
    c.name = e.name;
    if (e.lhs) c.lhs = std::make_unique<ast::SizeExpr>(cloneSize(*e.lhs));
    if (e.rhs) c.rhs = std::make_unique<ast::SizeExpr>(cloneSize(*e.rhs));
    return c;
  }

  // The lattice of `[a.., b..hi] = e` and the extent it needs.
  void placementAxes(const ast::Domain& dom, const Stage& e, ir::Piece& piece,
                     std::vector<Size>& extent) {
    for (size_t d = 0; d < dom.axes.size(); ++d) {
      const ast::Range& r = dom.axes[d];
      Size lo = r.lo ? size(*r.lo) : ir::sizeConst(0);
      Size count = e.extent[d];
      if (!r.isRange || r.hi) {
        Size hi = r.isRange ? size(*r.hi) : lo;
        count = ir::sizeMin(count, countOf(lo, hi));
      }
      piece.axes.push_back(ir::PieceAxis{lo, 1, count});
      extent.push_back(ir::sizeAdd(e.extent[d], lo));
    }
  }

  // `out@[(a,s), ...] = e;`: out(s*q + a) = e(q); out's extent is s*n per
  // dimension (offsets do not grow it); points that fall outside are dropped.
  int scatter(const ast::Stmt& s, int src) {
    const Stage& e = stage(src);
    checkAxes(s.offsets.size(), e, s.loc);
    std::vector<Size> extent;
    ir::Piece piece;
    piece.loc = s.loc;
    for (size_t d = 0; d < s.offsets.size(); ++d) {
      const auto& o = s.offsets[d];
      extent.push_back(ir::sizeMul(e.extent[d], ir::sizeConst(o.scale)));
      piece.axes.push_back(ir::PieceAxis{ir::sizeConst(o.offset), o.scale, e.extent[d]});
    }
    setFullValidBox(piece);
    Stage out = newStage(e.type, extent, s.loc, "scatter of " + e.name);
    piece.body.result = plainRead(src, zeroAxes(e.rank()), {});
    out.pieces.push_back(std::move(piece));
    return addStage(std::move(out));
  }

  static Size countOf(const Size& lo, const Size& hi) {
    return ir::sizeAdd(ir::sizeSub(hi, lo), ir::sizeConst(1));
  }

  void checkAxes(size_t given, const Stage& e, const SourceLoc& loc) {
    if (static_cast<int>(given) != e.rank())
      userError(loc, shown(e.id) + " has rank " + std::to_string(e.rank()) + " but " +
                         std::to_string(given) + (given == 1 ? " axis is given" : " axes are given"));
  }

  std::pair<Size, Size> rangeBounds(const ast::Range& r, const Size& n) {
    Size lo = r.lo ? size(*r.lo) : ir::sizeConst(0);
    Size hi = r.isRange ? (r.hi ? size(*r.hi) : ir::sizeSub(n, ir::sizeConst(1))) : lo;
    return {lo, hi};
  }

  Stage newStage(Type t, std::vector<Size> extent, const SourceLoc& loc, std::string origin) {
    Stage s;
    s.name = "_t" + std::to_string(p_.stages.size());
    s.type = t;
    s.extent = std::move(extent);
    s.loc = loc;
    s.origin = std::move(origin);
    return s;
  }

  ir::ExprPtr plainRead(int src, std::vector<ir::ReadAxis> axes, std::vector<Size> origin) {
    auto e = std::make_shared<ir::Expr>();
    e->kind = ir::Expr::ImageRead;
    e->type = stage(src).type;
    e->producer = src;
    e->axes = std::move(axes);
    e->origin = std::move(origin);
    used_.insert(src);
    return e;
  }

  // ------------------------------------------------------------ vector expressions
  Value imageValue(int stageId) {
    Value v;
    v.stage = stageId;
    return v;
  }

  Value vexpr(const ast::VExpr& e, Scope& sc) {
    switch (e.kind) {
      case ast::VExpr::Ref: {
        std::string key = indexedKey(e.name, e.index, sc, e.loc);
        auto it = sc.names.find(key);
        if (it == sc.names.end() && sc.outer) {
          if (auto imported = importOuter(sc, key)) return *imported;
          if (e.index.present && e.index.iterator == sc.doIterator && e.index.delta == -1)
            userError(e.loc, "'" + e.name + "<" + sc.doIterator + "-1>' in the first round is '" + key +
                                 "', which is not defined before the loop");
        }
        if (it == sc.names.end()) {
          if (stencils_.count(e.name) || vectorFns_.count(e.name))
            userError(e.loc, "'" + e.name + "' is a function; call it with '" + e.name + "(...)'");
          unknown(e.name, e.loc, "unknown image '" + key + "'" + didYouMean(key, keys(sc.names)));
        }
        if (it->second.stage >= 0) used_.insert(it->second.stage);
        return it->second;
      }
      case ast::VExpr::Call: return callValue(e, sc);
      case ast::VExpr::MakeStruct: return makeStructImage(e, sc);
      case ast::VExpr::Field: return fieldImage(e, sc);
      case ast::VExpr::SubDomain: return subDomainImage(e, sc);
      case ast::VExpr::Sample: return sampleImage(e, sc);
      case ast::VExpr::Compose: return composeImage(e, sc);
    }
    throw InternalError("unhandled vector expression kind");
  }

  int imageOf(const ast::VExpr& e, Scope& sc) {
    Value v = vexpr(e, sc);
    if (v.kind != Value::Image) userError(e.loc, "expected an image here, found a scalar");
    return v.stage;
  }

  Value callValue(const ast::VExpr& e, Scope& sc) {
    bool builtinScan = (e.name == "scan" || e.name == "sat") && !stencils_.count(e.name) && !vectorFns_.count(e.name);
    for (const auto& a : e.args)
      if (a.typeArg && !builtinScan)
        userError(a.loc, "a type name is an argument only of 'scan' and 'sat' (the type of their result), not of '" +
                             e.name + "'");
    auto st = stencils_.find(e.name);
    if (st != stencils_.end()) {
      usedFns_.insert(e.name);
      return imageValue(applyStencil(*st->second, e, sc));
    }
    auto vf = vectorFns_.find(e.name);
    if (vf != vectorFns_.end()) {
      usedFns_.insert(e.name);
      return inlineVectorFn(*vf->second, e, sc);
    }
    if (auto op = sema::reductionNamed(e.name)) return reductionValue(e, *op, sc);
    if (e.name == "histogram") return histogramValue(e, sc);
    if (e.name == "where") return selectionValue(e, ir::ReduceOp::Where, sc);
    if (e.name == "topk") return selectionValue(e, ir::ReduceOp::TopK, sc);
    if (builtinScan) return scanValue(e, sc);
    std::vector<std::string> fns = keys(stencils_);
    for (const auto& [name, def] : vectorFns_) fns.push_back(name);
    for (const char* builtin : {"sum", "min", "max", "count", "any", "all", "histogram", "where", "topk", "scan", "sat"})
      fns.push_back(builtin);
    unknown(e.name, e.loc, "unknown function '" + e.name + "'" + didYouMean(e.name, fns));
  }

  // `max(img)`, `sum(img, 1)` (LANGUAGE.md §7): a scalar, or an image of one
  // rank less.
  Value reductionValue(const ast::VExpr& e, ir::ReduceOp op, Scope& sc) {
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

  std::string userText(int id) const { return ir::userText(p_, id); }

  // `scan(img, d[, type])`, `sat(img[, type])` (LANGUAGE.md §7): an image of
  // the input's extent.
  Value scanValue(const ast::VExpr& e, Scope& sc) {
    bool isSat = e.name == "sat";
    size_t fixed = isSat ? 1 : 2;  // the arguments before the optional type
    bool typed = e.args.size() == fixed + 1 && e.args.back().typeArg;
    if (e.args.size() == fixed + 1 && !typed) {
      // The count is right but the last argument is not a type name: say what
      // that position holds rather than "N arguments given".
      const ast::CallArg& a = e.args.back();
      if (isSat && a.literal && a.literal->kind == ast::Expr::IntLit)
        userError(a.loc, "'sat' scans every dimension, so it takes no dimension; its second argument is an "
                         "optional result type ('sat(img, float)'); to scan one dimension, write 'scan(img, " +
                             std::to_string(a.literal->intValue) + ")'");
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

  // The image argument of a global operation `fn`: an image of numbers, read
  // without a boundary condition.
  int globalOperand(const std::string& fn, const ast::CallArg& a, Scope& sc, const std::string& verb = "reduces") {
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

  static std::string argumentsGiven(size_t n) {
    return std::to_string(n) + " argument" + (n == 1 ? "" : "s") + " given";
  }

  static double numberArgument(const ast::CallArg& a, const std::string& what) {
    if (!a.literal) userError(a.loc, what + " must be a number literal");
    return a.literal->kind == ast::Expr::IntLit ? static_cast<double>(a.literal->intValue) : a.literal->floatValue;
  }

  // `histogram(img, BINS, LO, HI)` (LANGUAGE.md §7): int64[BINS].
  Value histogramValue(const ast::VExpr& e, Scope& sc) {
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

  // `where(mask, K)`, `topk(img, K)` (LANGUAGE.md §7): int64[K].
  Value selectionValue(const ast::VExpr& e, ir::ReduceOp op, Scope& sc) {
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

  static std::string fmtNumber(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }

  // A literal argument for a scalar parameter of type `k`: converted, and an
  // error where it does not fit (LANGUAGE.md §7).
  static ir::ExprPtr literalArgument(const ast::CallArg& arg, ScalarKind k, const std::string& param,
                                     const std::string& callee) {
    bool isInt = arg.literal->kind == ast::Expr::IntLit;
    double v = isInt ? static_cast<double>(arg.literal->intValue) : arg.literal->floatValue;
    sema::requireLiteralFits(v, isInt, k, arg.loc,
                             "the argument %v for parameter '" + param + "' of '" + callee + "' does not fit its type");
    return sema::constOf(v, isInt, k);
  }

  // A constant(c) boundary must fit the image's element type, each field's
  // for a struct (LANGUAGE.md §7).
  void requireConstantFits(const ast::Boundary& b, int image) const {
    const Stage& s = stage(image);
    if (!s.type.isStruct())
      sema::requireLiteralFits(b.constant, b.constantIsInt, s.type.scalar, b.constantLoc,
                               "constant(%v) does not fit the elements of '" + s.name + "', of type");
    else
      for (const auto& f : s.type.structType->fields)
        sema::requireLiteralFits(b.constant, b.constantIsInt, f.type, b.constantLoc,
                                 "constant(%v) does not fit field '" + f.name + "' of '" + s.name + "', of type");
  }

  // A stencil application: one stage, one piece covering the extent.
  int applyStencil(const ast::StencilDef& def, const ast::VExpr& call, Scope& sc) {
    if (call.args.size() != def.params.size())
      userError(call.loc, "stencil '" + def.name + "' takes " + std::to_string(def.params.size()) +
                              " argument" + (def.params.size() == 1 ? "" : "s") + ", " +
                              std::to_string(call.args.size()) + " given");
    std::map<std::string, sema::StencilBinding> bindings;
    std::vector<ScalarKind> argTypes;  // of the data it computes on, for the double-literal warning
    int firstImage = -1;
    const StructType* fieldwise = nullptr;  // struct images applied field by field
    std::string argList;
    for (size_t i = 0; i < def.params.size(); ++i) {
      const ast::StencilParam& prm = def.params[i];
      const ast::CallArg& arg = call.args[i];
      sema::StencilBinding b;
      Type declared = resolveType(prm.type);
      std::string argText;
      if (prm.rank == 0) {
        if (arg.literal) {
          b.scalar = literalArgument(arg, declared.scalar, prm.name, def.name);
        } else {
          Value v = vexpr(*arg.value, sc);
          if (v.kind != Value::Scalar)
            userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is a scalar, but " +
                                   (stage(v.stage).kind == Stage::Reduce
                                        ? shown(v.stage) + " is an image of rank " +
                                              std::to_string(stage(v.stage).rank()) + imageReductionNote(stage(v.stage))
                                        : std::string("an image is given")));
          b.scalar = sema::convert(v.scalar, declared);
        }
        argText = "scalar";
        if (!declared.isStruct()) argTypes.push_back(declared.scalar);
      } else {
        if (arg.literal)
          userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name +
                                 "' is an image (vector#" + std::to_string(prm.rank) +
                                 "), but a number is given");
        Value v = vexpr(*arg.value, sc);
        if (v.kind != Value::Image)
          userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is an image, but " +
                                 (v.stage >= 0 ? shown(v.stage) + " is a scalar (a reduction of the whole image)"
                                               : std::string("a scalar is given")));
        const Stage& img = stage(v.stage);
        if (img.rank() != prm.rank)
          userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is vector#" +
                                 std::to_string(prm.rank) + " but " + shown(v.stage) + " is vector#" +
                                 std::to_string(img.rank()));
        // A struct image whose fields all have the parameter's scalar type:
        // the stencil runs on each field (docs/language-decisions.md).
        bool byField = img.type.isStruct() && !declared.isStruct() && !img.type.structType->builtinCuda;
        for (const auto& f : byField ? img.type.structType->fields : std::vector<StructField>{})
          byField = byField && f.type == declared.scalar;
        if (byField && fieldwise && fieldwise != img.type.structType)
          userError(arg.loc, "stencil '" + def.name + "' is applied field by field to '" + fieldwise->name +
                                 "' images, but " + shown(v.stage) + " is '" + img.type.name() +
                                 "': give it images of one struct type");
        if (byField) fieldwise = img.type.structType;
        if (!byField && (img.type.isStruct() != declared.isStruct() ||
                         (img.type.isStruct() && img.type != declared)))
          userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' has type '" +
                                 declared.name() + "' but " + shown(v.stage) + " has type '" +
                                 img.type.name() + "'");
        if (!byField && !img.type.isStruct() && img.type != declared)
          warnings_.add(arg.loc, shown(v.stage) + " holds " + img.type.name() + " but parameter '" +
                                     prm.name + "' of '" + def.name + "' is declared " +
                                     declared.name() + "; the stencil reads " + img.type.name() +
                                     " values, as Forma does");
        if (firstImage < 0) firstImage = v.stage;
        if (!img.type.isStruct() || byField) argTypes.push_back(declared.scalar);
        b.isImage = true;
        b.stage = v.stage;
        b.rank = prm.rank;
        b.elemType = byField ? declared : img.type;
        b.field = byField ? 0 : -1;
        b.boundary = arg.boundary.mode != ast::BoundaryMode::None ? arg.boundary : v.boundary;
        if (b.boundary.mode == ast::BoundaryMode::Constant) requireConstantFits(b.boundary, v.stage);
        argText = img.name;
        if (b.boundary.mode != ast::BoundaryMode::None)
          argText += std::string(":") + ast::boundaryName(b.boundary.mode);
      }
      argList += (i ? ", " : "") + argText;
      bindings[prm.name] = b;
    }
    if (firstImage < 0)
      userError(call.loc, "stencil '" + def.name + "' has no image parameter, so its output "
                          "has no extent");
    sema::LoweredStencil lowered =
        sema::lowerStencilBody(def, bindings, structs_, stage(firstImage).rank());
    if (fieldwise) lowered.body = sema::bodyByField(def, bindings, structs_, stage(firstImage).rank(), *fieldwise);
    // The output extent: each image argument read at offsets, down-sampled by
    // its read scale; all must agree. Directly indexed images do not count.
    std::vector<Size> extent;
    const Stage* extentFrom = nullptr;
    const ast::StencilParam* extentParam = nullptr;
    for (const auto& prm : def.params) {
      const sema::StencilBinding& b = bindings.at(prm.name);
      if (!b.isImage) continue;
      auto use = lowered.uses.find(prm.name);
      if (use != lowered.uses.end() && !use->second.readAtOffsets) continue;
      const Stage& img = stage(b.stage);
      std::vector<Size> e;
      for (int d = 0; d < img.rank(); ++d) {
        int scale = use == lowered.uses.end() ? 1 : use->second.scale[static_cast<size_t>(d)];
        e.push_back(ir::sizeDiv(img.extent[static_cast<size_t>(d)], scale));
      }
      if (!extentFrom) {
        extent = e;
        extentFrom = &img;
        extentParam = &prm;
      } else {
        checkSameSampledExtent(*extentFrom, extentParam->name, extent, img, prm.name, e,
                               call.args[static_cast<size_t>(&prm - &def.params[0])].loc);
      }
    }
    if (!extentFrom)
      userError(call.loc, "stencil '" + def.name + "' reads no image at an offset, so its "
                          "output has no extent");
    // The valid box (Forma's rule): each argument without a boundary mode
    // shrinks it by -floor(min(0,lo)/s) below and ceil(max(0,hi)/s) above.
    std::vector<long long> shrinkLo(extent.size(), 0), shrinkHi(extent.size(), 0);
    sema::ZeroBorder border{0, def.name, -1, call.loc};
    for (const auto& [name, use] : lowered.uses) {
      const sema::StencilBinding& b = bindings.at(name);
      if (!use.readAtOffsets || b.boundary.mode != ast::BoundaryMode::None) continue;
      for (size_t d = 0; d < extent.size(); ++d) {
        long long s = use.scale[d];
        long long neg = std::min(0, use.minOffset[d]), pos = std::max(0, use.maxOffset[d]);
        shrinkLo[d] = std::max(shrinkLo[d], -ir::floorDiv(neg, s));
        shrinkHi[d] = std::max(shrinkHi[d], ceilDiv(pos, s));
        if (std::max(shrinkLo[d], shrinkHi[d]) > border.width) {
          border.width = std::max(shrinkLo[d], shrinkHi[d]);
          border.image = b.stage;
        }
      }
    }
    ir::Body body = std::move(lowered.body);
    Type resultType = sema::formaType(body.result);
    if (!doubleWarned_.count(&def) && sema::warnDoubleLiteral(def, argTypes, resultType, warnings_))
      doubleWarned_.insert(&def);
    body.result = resultType.isStruct() ? body.result : sema::convert(body.result, resultType);
    Stage out = newStage(resultType, extent, call.loc, def.name + "(" + argList + ")");
    ir::Piece piece = wholePiece(extent, call.loc);
    for (size_t d = 0; d < extent.size(); ++d) {
      piece.validLo[d] = ir::sizeConst(shrinkLo[d]);
      piece.validHi[d] = ir::sizeSub(extent[d], ir::sizeConst(1 + shrinkHi[d]));
    }
    piece.body = std::move(body);
    out.pieces.push_back(std::move(piece));
    int id = addStage(std::move(out));
    if (border.width > 0) zeroBorders_[id] = border;
    return id;
  }

  static long long ceilDiv(long long a, long long b) { return -ir::floorDiv(-a, b); }

  // The extents as the stencil reads its parameters (down-sampled reads
  // divide them), named by image and parameter.
  void checkSameSampledExtent(const Stage& a, const std::string& pa, const std::vector<Size>& ea,
                              const Stage& b, const std::string& pb, const std::vector<Size>& eb,
                              const SourceLoc& loc) {
    bool same = ea.size() == eb.size();
    for (size_t d = 0; same && d < ea.size(); ++d)
      same = ir::sameSize(ea[d], eb[d], static_cast<int>(p_.params.size()));
    if (!same)
      userError(loc, "image " + shown(b.id) + " (parameter '" + pb + "') has extent " +
                         extentText(eb) + " but " + shown(a.id) + " (parameter '" + pa + "') has " +
                         extentText(ea) +
                         "; the images of one stencil call must have the same extent");
  }

  std::map<std::string, const StructType*> structsByName() const { return structs_; }

  void checkSameExtent(const Stage& a, const Stage& b, const SourceLoc& loc) {
    bool same = a.rank() == b.rank();
    for (int d = 0; same && d < a.rank(); ++d)
      same = ir::sameSize(a.extent[static_cast<size_t>(d)], b.extent[static_cast<size_t>(d)],
                          static_cast<int>(p_.params.size()));
    if (!same)
      userError(loc, "image " + shown(b.id) + " has extent " + extentText(b) + " but " + shown(a.id) +
                         " has " + extentText(a));
  }

  std::string extentText(const Stage& s) const { return extentText(s.extent); }
  std::string extentText(const std::vector<Size>& extent) const {
    std::string t = "[";
    auto names = p_.paramNames();
    for (size_t d = 0; d < extent.size(); ++d) t += (d ? "," : "") + ir::printSize(extent[d], names);
    return t + "]";
  }

  Value inlineVectorFn(const ast::VectorFnDef& def, const ast::VExpr& call, Scope& caller) {
    for (size_t i = 0; i < inlining_.size(); ++i) {
      if (inlining_[i] != &def) continue;
      std::string cycle;
      for (size_t j = i; j < inlining_.size(); ++j) cycle += inlining_[j]->name + " -> ";
      userError(call.loc, "vector function '" + def.name + "' calls itself (" + cycle +
                              def.name + "); recursion is not allowed");
    }
    if (inlining_.size() >= kMaxInlineDepth)
      userError(call.loc, "vector function calls nested more than " +
                              std::to_string(kMaxInlineDepth) + " levels deep");
    if (++inlinedCalls_ > kMaxInlinedCalls)
      userError(call.loc, "more than " + std::to_string(kMaxInlinedCalls) +
                              " vector function calls to inline; formac does not compile "
                              "pipelines that large");
    if (call.args.size() != def.params.size())
      userError(call.loc, "vector function '" + def.name + "' takes " +
                              std::to_string(def.params.size()) + " arguments, " +
                              std::to_string(call.args.size()) + " given");
    Scope sc;
    sc.prefix = caller.prefix + def.name + "_";
    for (size_t i = 0; i < def.params.size(); ++i) {
      const auto& prm = def.params[i];
      const auto& arg = call.args[i];
      Value v;
      if (arg.literal) {
        if (prm.rank != 0)
          userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is an image, "
                             "but a number is given");
        v.kind = Value::Scalar;
        v.scalar = literalArgument(arg, resolveType(prm.type).scalar, prm.name, def.name);
      } else {
        v = vexpr(*arg.value, caller);
        if ((v.kind == Value::Image) != (prm.rank > 0))
          userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is " +
                                 (prm.rank > 0 ? "an image, but a scalar is given"
                                               : "a scalar, but an image is given"));
        if (v.kind == Value::Image && stage(v.stage).rank() != prm.rank)
          userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is vector#" +
                                 std::to_string(prm.rank) + " but the argument is vector#" +
                                 std::to_string(stage(v.stage).rank()));
        if (arg.boundary.mode != ast::BoundaryMode::None) v.boundary = arg.boundary;
      }
      v.defined = prm.loc;
      sc.names[prm.name] = v;
    }
    inlining_.push_back(&def);
    for (const auto& s : def.body) statement(*s, sc);
    Value result = vexpr(*def.result, sc);
    inlining_.pop_back();
    return result;
  }

  Value makeStructImage(const ast::VExpr& e, Scope& sc) {
    auto it = structs_.find(e.name);
    if (it == structs_.end())
      unknown(e.name, e.loc, "unknown struct '" + e.name + "'" + didYouMean(e.name, keys(structs_)));
    std::vector<ir::ExprPtr> fields;
    int first = -1;
    for (const auto& a : e.args) {
      int img = imageOf(*a.value, sc);
      if (stage(img).type.isStruct())
        userError(a.loc, "a struct image is built from images of numbers, but " + shown(img) +
                             " holds '" + stage(img).type.name() + "'");
      if (first < 0) first = img;
      else checkSameExtent(stage(first), stage(img), a.loc);
      fields.push_back(plainRead(img, zeroAxes(stage(img).rank()), {}));
    }
    ir::ExprPtr body = sema::makeStruct(it->second, fields, e.loc);
    return imageValue(pointwiseStage(body, stage(first).extent, e.loc, "struct " + e.name));
  }

  Value fieldImage(const ast::VExpr& e, Scope& sc) {
    int img = imageOf(*e.base, sc);
    ir::ExprPtr r = plainRead(img, zeroAxes(stage(img).rank()), {});
    ir::ExprPtr body = sema::field(r, e.name, e.loc);
    return imageValue(pointwiseStage(body, stage(img).extent, e.loc, stage(img).name + "." + e.name));
  }

  // `v[lo..hi, ..]`: the image of the sub-domain, re-indexed from 0.
  Value subDomainImage(const ast::VExpr& e, Scope& sc) {
    int img = imageOf(*e.base, sc);
    const Stage& src = stage(img);
    checkAxes(e.domain.axes.size(), src, e.loc);
    std::vector<Size> extent;
    std::vector<Size> origin;
    for (size_t d = 0; d < e.domain.axes.size(); ++d) {
      auto [lo, hi] = rangeBounds(e.domain.axes[d], src.extent[d]);
      extent.push_back(ir::sizeAdd(ir::sizeSub(hi, lo), ir::sizeConst(1)));
      origin.push_back(lo);
    }
    return imageValue(pointwiseStage(plainRead(img, zeroAxes(src.rank()), origin), extent, e.loc,
                                     src.name + "[...]"));
  }

  // `v@[(a,s), ...]`: out(q) = v(s*q + a); extent floor(n/s).
  Value sampleImage(const ast::VExpr& e, Scope& sc) {
    int img = imageOf(*e.base, sc);
    const Stage& src = stage(img);
    checkAxes(e.offsets.size(), src, e.loc);
    std::vector<Size> extent;
    std::vector<ir::ReadAxis> axes;
    for (size_t d = 0; d < e.offsets.size(); ++d) {
      extent.push_back(ir::sizeDiv(src.extent[d], e.offsets[d].scale));
      axes.push_back(ir::ReadAxis{e.offsets[d].offset, e.offsets[d].scale});
    }
    int id = pointwiseStage(plainRead(img, axes, {}), extent, e.loc, src.name + "@[...]");
    // Forma computes q in [max(0, -floor(a/s)), n/s - 1 - max(0, floor(a/s))].
    ir::Piece& pc = p_.stages[static_cast<size_t>(id)].pieces[0];
    for (size_t d = 0; d < axes.size(); ++d) {
      long long f = ir::floorDiv(axes[d].offset, axes[d].scale);
      pc.validLo[d] = ir::sizeConst(std::max(0LL, -f));
      pc.validHi[d] = ir::sizeSub(extent[d], ir::sizeConst(1 + std::max(0LL, f)));
    }
    return imageValue(id);
  }

  // `( @[(a,s),...] = e1; [range] = e2; ... )`
  Value composeImage(const ast::VExpr& e, Scope& sc) {
    std::vector<ir::Piece> pieces;
    std::vector<Size> extent;
    Type type;
    bool typed = false;
    int rank = -1;
    for (const auto& part : e.parts) {
      ir::Piece piece;
      piece.loc = part.loc;
      int img = -1;
      if (part.value) img = imageOf(*part.value, sc);
      int partRank = part.byOffsets ? static_cast<int>(part.offsets.size())
                                    : static_cast<int>(part.domain.axes.size());
      if (img >= 0 && stage(img).rank() != partRank)
        userError(part.loc, "the compose part has " + std::to_string(partRank) +
                                " axes but its image has rank " + std::to_string(stage(img).rank()));
      if (rank >= 0 && partRank != rank)
        userError(part.loc, "compose parts have different ranks");
      rank = partRank;
      if (extent.empty()) extent.assign(static_cast<size_t>(rank), Size());
      Type partType = img >= 0 ? stage(img).type
                               : Type::of(part.literal->kind == ast::Expr::IntLit
                                              ? ScalarKind::Int
                                              : part.literal->kind == ast::Expr::FloatLit
                                                    ? ScalarKind::Float
                                                    : ScalarKind::Double);
      if (!typed) {
        type = partType;
        typed = true;
      } else if (type != partType) {
        if (type.isStruct() || partType.isStruct())
          userError(part.loc, "compose parts have different types '" + type.name() + "' and '" +
                                  partType.name() + "'");
        type = Type::of(arithmeticResult(type.scalar, partType.scalar));
      }
      for (int d = 0; d < rank; ++d) {
        if (part.byOffsets) {
          if (img < 0) userError(part.loc, "a compose part placed with '@[...]' needs an image");
          const auto& o = part.offsets[static_cast<size_t>(d)];
          const Size& n = stage(img).extent[static_cast<size_t>(d)];
          piece.axes.push_back(ir::PieceAxis{ir::sizeConst(o.offset), o.scale, n});
          widen(extent[static_cast<size_t>(d)], ir::sizeMul(n, ir::sizeConst(o.scale)));
        } else if (img >= 0) {
          const ast::Range& r = part.domain.axes[static_cast<size_t>(d)];
          Size lo = r.lo ? size(*r.lo) : ir::sizeConst(0);
          Size count = stage(img).extent[static_cast<size_t>(d)];
          if (!r.isRange || r.hi)
            count = ir::sizeMin(count, countOf(lo, r.isRange ? size(*r.hi) : lo));
          piece.axes.push_back(ir::PieceAxis{lo, 1, count});
          widen(extent[static_cast<size_t>(d)], ir::sizeAdd(stage(img).extent[static_cast<size_t>(d)], lo));
        } else {
          const ast::Range& r = part.domain.axes[static_cast<size_t>(d)];
          if (!r.lo || (r.isRange && !r.hi))
            userError(r.loc, "a compose part that sets a constant needs both bounds of its range");
          auto [lo, hi] = rangeBounds(r, ir::sizeConst(0));
          piece.axes.push_back(ir::PieceAxis{lo, 1, countOf(lo, hi)});
          widen(extent[static_cast<size_t>(d)], ir::sizeAdd(hi, ir::sizeConst(1)));
        }
      }
      setFullValidBox(piece);
      if (img >= 0) {
        piece.body.result = plainRead(img, zeroAxes(rank), {});
      } else {
        bool isInt = part.literal->kind == ast::Expr::IntLit;
        piece.body.result = isInt ? sema::constInt(part.literal->intValue)
                                  : sema::constFloating(part.literal->floatValue, partType.scalar);
      }
      pieces.push_back(std::move(piece));
    }
    Stage out = newStage(type, extent, e.loc, "compose");
    for (auto& pc : pieces) {
      if (!pc.body.result->type.isStruct()) pc.body.result = sema::convert(pc.body.result, type);
      out.pieces.push_back(std::move(pc));
    }
    return imageValue(addStage(std::move(out)));
  }

  // A compose's extent along one axis: the largest its parts need.
  static void widen(Size& extent, const Size& need) { extent = extent ? ir::sizeMax(extent, need) : need; }

  static ir::Piece wholePiece(const std::vector<Size>& extent, const SourceLoc& loc) {
    ir::Piece piece;
    piece.loc = loc;
    for (const auto& n : extent) piece.axes.push_back(ir::PieceAxis{ir::sizeConst(0), 1, n});
    setFullValidBox(piece);
    return piece;
  }

  // Every lattice point of the piece is computed.
  static void setFullValidBox(ir::Piece& piece) {
    piece.validLo.clear();
    piece.validHi.clear();
    for (const auto& a : piece.axes) {
      piece.validLo.push_back(ir::sizeConst(0));
      piece.validHi.push_back(ir::sizeSub(a.count, ir::sizeConst(1)));
    }
  }

  static std::vector<ir::ReadAxis> zeroAxes(int rank) {
    return std::vector<ir::ReadAxis>(static_cast<size_t>(rank));
  }

  int pointwiseStage(ir::ExprPtr body, std::vector<Size> extent, const SourceLoc& loc,
                     std::string origin) {
    Stage out = newStage(body->type, extent, loc, std::move(origin));
    ir::Piece piece = wholePiece(extent, loc);
    piece.body.result = std::move(body);
    out.pieces.push_back(std::move(piece));
    return addStage(std::move(out));
  }

  // ------------------------------------------------------------ warnings
  // Imported definitions (from another file than the program's) may go unused.
  void warnUnused(const Scope& global) {
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

  const ast::Program& prog_;
  Warnings& warnings_;
  ErrorLog errors_;
  std::set<std::string> failedNames_;  // definitions and images whose definition failed
  std::map<int, sema::ZeroBorder> zeroBorders_;       // stencil stages computed inside a border
  std::set<const ast::StencilDef*> doubleWarned_;     // warned once per stencil
  ir::Pipeline p_;
  std::map<std::string, const StructType*> structs_;
  std::map<std::string, const ast::StencilDef*> stencils_;
  std::map<std::string, const ast::VectorFnDef*> vectorFns_;
  std::map<std::string, int> paramIndex_;
  std::set<int> used_;
  int loopCount_ = 0;
  std::set<std::string> usedFns_;
  std::vector<const ast::VectorFnDef*> inlining_;  // the calls being inlined, outermost first
  long long inlinedCalls_ = 0;
};

}  // namespace

ir::Pipeline buildPipeline(const ast::Program& program, const std::string& name,
                           Warnings& warnings) {
  return PipelineBuilder(program, warnings).run(name);
}

}  // namespace formac
