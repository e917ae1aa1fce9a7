#include "builder/ToAst.h"

#include <algorithm>
#include <functional>
#include <set>

namespace formac::builder {
namespace {

using ExprP = std::unique_ptr<ast::Expr>;
using VExprP = std::unique_ptr<ast::VExpr>;

struct Ref {
  std::string name;
  ast::IndexedName index;
};

ast::TypeName typeName(Type t, const SourceLoc& loc) {
  ast::TypeName n;
  n.loc = loc;
  n.basic = t;
  return n;
}

ExprP exprNode(ast::Expr::Kind kind, const SourceLoc& loc) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = kind;
  e->loc = loc;
  return e;
}

ExprP literal(const Node* n) {
  auto e = exprNode(n->literal, n->loc);
  e->intValue = static_cast<long long>(n->number);
  e->floatValue = n->number;
  return e;
}

// A point-wise node as a stencil expression; `leaf` spells what is not an
// operation (a parameter, a local, a read), or returns null to expand it.
using Leaf = std::function<ExprP(const Node*)>;
ExprP expression(const Node* m, const Leaf& leaf) {
  if (ExprP e = leaf(m)) return e;
  ExprP e;
  switch (m->kind) {
    case Node::Literal: return literal(m);
    case Node::Unary: e = exprNode(ast::Expr::Unary, m->loc); e->name = m->op; break;
    case Node::Binary: e = exprNode(ast::Expr::Binary, m->loc); e->name = m->op; break;
    case Node::Select: e = exprNode(ast::Expr::Ternary, m->loc); break;
    case Node::Call: e = exprNode(ast::Expr::Call, m->loc); e->name = m->op; break;
    case Node::Cast: e = exprNode(ast::Expr::Cast, m->loc); e->castType = typeName(m->type, m->loc); break;
    default: throw InternalError("builder: no expression for node kind " + std::to_string(m->kind));
  }
  for (const Node* a : m->args) e->args.push_back(expression(a, leaf));
  return e;
}

ExprP read(const std::string& param, const std::vector<ast::OffsetAxis>& offsets, const SourceLoc& loc) {
  auto e = exprNode(offsets.empty() ? ast::Expr::Name : ast::Expr::OffsetRead, loc);
  e->name = param;
  e->offsets = offsets;
  return e;
}

class Emitter {
 public:
  explicit Emitter(const State& s) : s_(s) {}

  std::unique_ptr<ast::Program> run() {
    for (const auto& n : s_.nodes)
      if (!n->userName.empty() && n->kind != Node::StencilParam) taken_.insert(n->userName);
    for (const auto& st : s_.stencils) taken_.insert(st->name);
    for (const auto& p : s_.paramNames) taken_.insert(p);
    for (const Node* o : s_.outputs) use(o, true, &s_.pipeline);
    nameLoops();
    nameStages();
    declarations();
    statements();
    for (const Node* o : s_.outputs) prog_->results.push_back(vexpr(o));
    prog_->returnLoc = s_.outputsLoc;
    return std::move(prog_);
  }

 private:
  struct Use {
    int count = 0;
    bool nestable = false;
  };

  // ------------------------------------------------------------ what is used
  // A use of `n` as an image or scalar of the pipeline (a reference to it);
  // `nestable` where a call may stand instead of a name.
  void use(const Node* n, bool nestable, const Scope* consumer) {
    Use& u = uses_[n];
    ++u.count;
    u.nestable = nestable && consumer == n->scope;
    define(n);
  }

  // `m` as an operand of a stage's expression.
  void operand(const Node* m) {
    if (m->kind == Node::Literal) return;
    if (!inlined(m)) return use(m, false, nullptr);
    if (m->kind == Node::Read) return use(m->args[0], false, nullptr);
    for (const Node* a : m->args) operand(a);
  }

  void define(const Node* n) {
    if (!defined_.insert(n).second) return;
    switch (n->kind) {
      case Node::Apply:
        // `f(X:mirror)`: a view's boundary belongs to the argument.
        for (const Node* a : n->args)
          if (a->kind != Node::Literal) use(isView(a) ? a->args[0] : a, true, n->scope);
        break;
      case Node::Reduce:
      case Node::Histogram:
      case Node::Selection:
      case Node::Scan:
      case Node::Alias: use(n->args[0], false, n->scope); break;
      case Node::Carried:
      case Node::LoopResult: defineLoop(*n->loop); break;
      case Node::Input:
      case Node::ScalarInput: reachedInputs_.insert(n); break;
      case Node::StencilParam: break;
      default:  // a point-wise stage: what its expression reads
        requireStage(n);
        if (n->kind == Node::Read) use(n->args[0], false, nullptr);
        else
          for (const Node* a : n->args) operand(a);
    }
  }

  void defineLoop(const LoopInfo& L) {
    if (!loopsDefined_.insert(&L).second) return;
    for (const Node* x : L.init) use(x, false, &s_.pipeline);
    for (const Node* x : L.next) use(x, false, L.scope.get());
    conditions_.insert(L.condition);
    use(L.condition, true, L.scope.get());
  }

  // Whether an operand is computed where it is used (else it is a stage,
  // read by name): an unnamed point-wise value, or a scalar one.
  static bool inlined(const Node* m) { return m->pointwise() && (m->userName.empty() || m->rank == 0); }

  static bool isView(const Node* a) { return a->kind == Node::Read && a->offsets.empty(); }

  void requireStage(const Node* n) const {
    if (n->kind == Node::Literal || (n->pointwise() && n->rank == 0))
      fail(n->loc, describe(n) + " is a scalar expression; the pipeline computes images and reductions, so compute it "
                                 "inside the stencil that uses it");
  }

  bool isStatement(const Node* n) const {
    switch (n->kind) {
      case Node::Apply: case Node::Reduce: case Node::Histogram: case Node::Selection: case Node::Scan:
      case Node::Alias: return uses_.count(n) > 0;
      default: return n->pointwise() && uses_.count(n) > 0;
    }
  }

  bool nested(const Node* n) const {
    auto u = uses_.find(n);
    if (u == uses_.end() || u->second.count != 1 || !u->second.nestable || !n->userName.empty() || refs_.count(n))
      return false;
    return n->kind == Node::Apply || n->pointwise() || (n->kind == Node::Reduce && conditions_.count(n));
  }

  // ------------------------------------------------------------ names
  // A generated name: base1, base2, ... (never one the program uses).
  std::string fresh(const std::string& base) {
    std::string name;
    for (int k = 1; name.empty() || taken_.count(name); ++k) name = base + std::to_string(k);
    taken_.insert(name);
    return name;
  }

  static ast::IndexedName indexed(const std::string& iterator, long long delta) {
    ast::IndexedName i;
    i.present = true;
    i.iterator = iterator;
    i.delta = delta;
    return i;
  }

  // Carried images: X<0> before the loop, X<i-1> and X<i> in it, X<i> after.
  // An unnamed stage that starts (or continues) a carried image is that
  // statement itself; anything else is copied by name (`X<0> = img;`).
  void nameLoops() {
    for (const auto& lp : s_.loops) {
      const LoopInfo& L = *lp;
      if (!loopsDefined_.count(&L)) continue;
      std::string it = loopIterators_.size() == 0 ? "i" : "i" + std::to_string(loopIterators_.size());
      loopIterators_[&L] = it;
      for (size_t j = 0; j < L.init.size(); ++j) {
        const Node* init = L.init[j];
        bool claim = isStatement(init) && !refs_.count(init);
        std::string x = carriedNames_.count(init->userName) || init->userName.empty() ? freshCarried("x")
                                                                                       : freshCarried(init->userName);
        carried_[&L].push_back(x);
        if (claim) refs_[init] = Ref{x, indexed("", 0)};
        const Node* next = L.next[j];
        bool claimNext = isStatement(next) && !refs_.count(next) && next->scope == L.scope.get() &&
                         (next->userName.empty() || next->userName == x);
        if (claimNext) refs_[next] = Ref{x, indexed(it, 0)};
        refs_[L.carried[j]] = Ref{x, indexed(it, -1)};
        refs_[L.results[j]] = Ref{x, indexed(it, 0)};
      }
    }
  }

  std::string freshCarried(const std::string& base) {
    std::string name = base;
    for (int k = 1; carriedNames_.count(name); ++k) name = base + std::to_string(k);
    carriedNames_.insert(name);
    return name;
  }

  void nameStages() {
    for (const auto& n : s_.nodes) {
      if (refs_.count(n.get())) continue;
      if (n->kind == Node::Input || n->kind == Node::ScalarInput) refs_[n.get()] = Ref{n->userName, {}};
      if (!isStatement(n.get()) || nested(n.get())) continue;
      std::string base = n->pointwise() ? "v" : n->op;
      refs_[n.get()] = Ref{n->userName.empty() ? fresh(base) : n->userName, {}};
    }
  }

  // ------------------------------------------------------------ declarations
  // The inputs the outputs read (an input nothing reads is not part of the
  // pipeline), and the parameters of their extents and of the loops' rounds.
  void declarations() {
    std::set<std::string> params;
    for (const Node* in : reachedInputs_)
      if (in->kind == Node::Input)
        for (const auto& e : s_.extents.at(const_cast<Node*>(in))) params.insert(e);
    for (const LoopInfo* L : loopsDefined_)
      if (!L->roundsParam.empty()) params.insert(L->roundsParam);
    for (const auto& p : s_.paramNames) {
      if (!params.count(p)) continue;
      ast::ParamDecl d;
      d.loc = s_.outputsLoc;
      d.name = p;
      prog_->params.push_back(d);
    }
    for (const Node* in : s_.inputs) {
      if (!reachedInputs_.count(in)) continue;
      ast::InputDecl d;
      d.loc = in->loc;
      d.name = in->userName;
      d.rank = in->rank;
      d.type = typeName(in->type, in->loc);
      if (in->kind == Node::Input)
        for (const auto& e : s_.extents.at(const_cast<Node*>(in))) {
          auto size = std::make_unique<ast::SizeExpr>();
          size->kind = ast::SizeExpr::Param;
          size->loc = in->loc;
          size->name = e;
          d.extent.push_back(std::move(size));
        }
      prog_->inputs.push_back(std::move(d));
    }
  }

  // ------------------------------------------------------------ statements
  using Stmts = std::vector<std::unique_ptr<ast::Stmt>>;

  void statements() {
    std::vector<const LoopInfo*> loops;
    for (const auto& L : s_.loops)
      if (loopsDefined_.count(L.get())) loops.push_back(L.get());
    size_t nextLoop = 0;
    for (const auto& n : s_.nodes) {
      while (nextLoop < loops.size() && loops[nextLoop]->id <= n->id) emitLoop(*loops[nextLoop++]);
      if (!isStatement(n.get()) || nested(n.get())) continue;
      const Ref& r = refs_.at(n.get());
      body(n->scope).push_back(assign(r, call(n.get()), n->loc));
    }
    while (nextLoop < loops.size()) emitLoop(*loops[nextLoop++]);
  }

  Stmts& body(const Scope* scope) { return scope == &s_.pipeline ? prog_->stmts : bodies_[scope]; }

  static std::unique_ptr<ast::Stmt> assign(const Ref& r, VExprP value, const SourceLoc& loc) {
    auto st = std::make_unique<ast::Stmt>();
    st->kind = ast::Stmt::Assign;
    st->loc = loc;
    st->target = r.name;
    st->targetIndex = r.index;
    st->value = std::move(value);
    return st;
  }

  void emitLoop(const LoopInfo& L) {
    const std::string& it = loopIterators_.at(&L);
    for (size_t j = 0; j < L.init.size(); ++j)
      if (refs_.at(L.init[j]).name != carried_[&L][j] || !refs_.at(L.init[j]).index.present)
        prog_->stmts.push_back(assign(Ref{carried_[&L][j], indexed("", 0)}, vexpr(L.init[j]), L.loc));
    Stmts& inner = body(L.scope.get());
    for (size_t j = 0; j < L.next.size(); ++j) {
      const Ref& r = refs_.at(L.next[j]);
      if (r.name != carried_[&L][j] || r.index.iterator != it || r.index.delta != 0)
        inner.push_back(assign(Ref{carried_[&L][j], indexed(it, 0)}, vexpr(L.next[j]), L.loc));
    }
    auto st = std::make_unique<ast::Stmt>();
    st->kind = ast::Stmt::DoWhile;
    st->loc = L.loc;
    st->iterator = it;
    st->from = 1;
    st->to = L.rounds;
    st->toParam = L.roundsParam;
    st->toLoc = L.loc;
    st->body = std::move(inner);
    st->condition = vexpr(L.condition);
    prog_->stmts.push_back(std::move(st));
  }

  // ------------------------------------------------------------ image expressions
  static VExprP vnode(ast::VExpr::Kind kind, const SourceLoc& loc) {
    auto e = std::make_unique<ast::VExpr>();
    e->kind = kind;
    e->loc = loc;
    return e;
  }

  // How a statement or an argument names `n`: by its name, or its call.
  VExprP vexpr(const Node* n) {
    if (nested(n)) return call(n);
    auto r = refs_.find(n);
    if (r == refs_.end()) throw InternalError("builder: no name for node " + std::to_string(n->id));
    auto e = vnode(ast::VExpr::Ref, n->loc);
    e->name = r->second.name;
    e->index = r->second.index;
    return e;
  }

  ast::CallArg argument(const Node* a, bool nestable) {
    ast::CallArg c;
    c.loc = a->loc;
    if (a->kind == Node::Literal) {
      c.literal = literal(a);
    } else if (isView(a) && nestable) {
      c.value = vexpr(a->args[0]);
      c.boundary = a->boundary;
    } else {
      c.value = vexpr(a);
    }
    return c;
  }

  ast::CallArg number(double v, bool isInt, const SourceLoc& loc) {
    ast::CallArg c;
    c.loc = loc;
    c.literal = exprNode(isInt ? ast::Expr::IntLit : ast::Expr::DoubleLit, loc);
    c.literal->intValue = static_cast<long long>(v);
    c.literal->floatValue = v;
    return c;
  }

  // The call that computes stage `n`.
  VExprP call(const Node* n) {
    if (n->kind == Node::Alias) return vexpr(n->args[0]);
    auto e = vnode(ast::VExpr::Call, n->loc);
    e->name = n->op;
    switch (n->kind) {
      case Node::Apply:
        stencilDef(*s_.stencils[static_cast<size_t>(n->stencil)]);
        for (const Node* a : n->args) e->args.push_back(argument(a, true));
        return e;
      case Node::Reduce:
      case Node::Scan:
        e->args.push_back(argument(n->args[0], false));
        if (n->dim >= 0) e->args.push_back(number(n->dim, true, n->loc));
        if (n->resultType) {
          ast::CallArg t;
          t.loc = n->loc;
          t.typeArg = *n->resultType;
          e->args.push_back(std::move(t));
        }
        return e;
      case Node::Histogram:
        e->args.push_back(argument(n->args[0], false));
        e->args.push_back(number(static_cast<double>(n->count), true, n->loc));
        e->args.push_back(number(n->lo, n->lo == static_cast<double>(static_cast<long long>(n->lo)), n->loc));
        e->args.push_back(number(n->hi, n->hi == static_cast<double>(static_cast<long long>(n->hi)), n->loc));
        return e;
      case Node::Selection:
        e->args.push_back(argument(n->args[0], false));
        e->args.push_back(number(static_cast<double>(n->count), true, n->loc));
        return e;
      default: return pointwiseStage(n);
    }
  }

  // A point-wise image expression as a stencil of its own, applied to the
  // images (with their boundary conditions) and scalars it reads.
  VExprP pointwiseStage(const Node* n) {
    ast::StencilDef def;
    def.loc = n->loc;
    def.name = fresh("expr");
    std::vector<std::pair<const Node*, ast::Boundary>> args;
    auto paramFor = [&](const Node* src, const ast::Boundary& b) {
      for (size_t i = 0; i < args.size(); ++i)
        if (args[i].first == src && args[i].second.mode == b.mode && args[i].second.constant == b.constant)
          return def.params[i].name;
      std::string base = refs_.count(src) ? refs_.at(src).name : "X";
      std::string name = base;
      for (int k = 1; std::any_of(def.params.begin(), def.params.end(), [&](const ast::StencilParam& p) {
             return p.name == name;
           });
           ++k)
        name = base + "_" + std::to_string(k);
      ast::StencilParam p;
      p.loc = src->loc;
      p.name = name;
      p.rank = src->rank;
      p.type = typeName(src->type, src->loc);
      def.params.push_back(p);
      args.emplace_back(src, b);
      return name;
    };
    Leaf leaf = [&](const Node* m) -> ExprP {
      if (m != n && !inlined(m)) return read(paramFor(m, ast::Boundary{}), {}, m->loc);
      if (m->kind == Node::Read) return read(paramFor(m->args[0], m->boundary), m->offsets, m->loc);
      return nullptr;
    };
    def.result = expression(n, leaf);
    auto e = vnode(ast::VExpr::Call, n->loc);
    e->name = def.name;
    for (const auto& [src, b] : args) {
      ast::CallArg c;
      c.loc = n->loc;
      c.value = vexpr(src);
      c.boundary = b;
      e->args.push_back(std::move(c));
    }
    prog_->stencils.push_back(std::move(def));
    return e;
  }

  // A stencil traced from its function: parameters, locals (its named
  // values, in the order they were made), result.
  void stencilDef(const StencilInfo& st) {
    if (!stencilsEmitted_.insert(&st).second) return;
    ast::StencilDef def;
    def.loc = st.loc;
    def.name = st.name;
    for (const Node* p : st.paramNodes) {
      ast::StencilParam sp;
      sp.loc = st.loc;
      sp.name = p->userName;
      sp.rank = p->rank;
      sp.type = typeName(p->type, st.loc);
      def.params.push_back(sp);
    }
    std::set<const Node*> seen;
    std::vector<const Node*> locals;
    std::function<void(const Node*)> collect = [&](const Node* m) {
      if (!seen.insert(m).second) return;
      for (const Node* a : m->args) collect(a);
      if (m->pointwise() && !m->userName.empty() && m != st.result) locals.push_back(m);
    };
    collect(st.result);
    std::sort(locals.begin(), locals.end(), [](const Node* a, const Node* b) { return a->id < b->id; });
    auto spell = [](const Node* top) {
      return [top](const Node* m) -> ExprP {
        if (m->kind == Node::StencilParam || (m != top && m->pointwise() && !m->userName.empty()))
          return read(m->userName, {}, m->loc);
        if (m->kind == Node::Read) return read(m->args[0]->userName, m->offsets, m->loc);
        return nullptr;
      };
    };
    for (const Node* l : locals) {
      ast::LocalAssign a;
      a.loc = l->loc;
      a.name = l->userName;
      a.value = expression(l, spell(l));
      def.body.push_back(std::move(a));
    }
    def.result = expression(st.result, spell(st.result));
    prog_->stencils.push_back(std::move(def));
  }

  const State& s_;
  std::unique_ptr<ast::Program> prog_ = std::make_unique<ast::Program>();
  std::map<const Node*, Use> uses_;
  std::set<const Node*> defined_;
  std::set<const LoopInfo*> loopsDefined_;
  std::set<const Node*> reachedInputs_;
  std::set<const Node*> conditions_;
  std::map<const Node*, Ref> refs_;
  std::set<std::string> taken_;
  std::set<std::string> carriedNames_;
  std::map<const LoopInfo*, std::string> loopIterators_;
  std::map<const LoopInfo*, std::vector<std::string>> carried_;
  std::map<const Scope*, Stmts> bodies_;
  std::set<const StencilInfo*> stencilsEmitted_;
};

}  // namespace

std::unique_ptr<ast::Program> toAst(const State& s) { return Emitter(s).run(); }

}  // namespace formac::builder
