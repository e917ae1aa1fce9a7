// The Builder: declarations, stencils (traced once), loops (traced once),
// outputs, and the checks that keep a value where it may be used.
#include "builder/Builder.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "builder/Node.h"
#include "builder/ToAst.h"
#include "frontend/Frontend.h"

namespace formac::builder {

SourceLoc State::locate(const Site& site) {
  auto it = filesByPath.find(site.file);
  const SourceFile* f = it == filesByPath.end() ? nullptr : it->second;
  if (!f) {
    auto file = std::make_unique<SourceFile>();
    file->path = site.file;
    std::ifstream in(site.file, std::ios::binary);
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      file->text = text.str();
    }
    f = file.get();
    files->push_back(std::move(file));
    filesByPath[site.file] = f;
  }
  return SourceLoc{f, site.line, site.col > 0 ? site.col : 1};
}

Node* State::add(Node::Kind kind, const SourceLoc& loc) {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  n->id = static_cast<int>(nodes.size());
  n->loc = loc;
  nodes.push_back(std::move(n));
  return nodes.back().get();
}

void fail(const SourceLoc& loc, const std::string& message) { throw UserError(loc, message); }

std::string describe(const Node* n) {
  std::string line = " (line " + std::to_string(n->loc.line) + ")";
  if (!n->userName.empty()) return "'" + n->userName + "'";
  switch (n->kind) {
    case Node::Literal: return "a number";
    case Node::Apply: return "the result of stencil '" + n->op + "'" + line;
    case Node::Reduce:
    case Node::Histogram:
    case Node::Selection:
    case Node::Scan: return "the result of '" + n->op + "'" + line;
    case Node::Carried: return "carried image " + std::to_string(n->index) + " of the 'do' loop";
    case Node::LoopResult: return "result " + std::to_string(n->index) + " of the 'do' loop" + line;
    default: return "the value of '" + n->op + "'" + line;
  }
}

void requireIdentifier(const std::string& name, const std::string& what, const SourceLoc& loc) {
  static const char* keywords[] = {"stencil", "vector", "parameter", "return", "struct", "cast", "for",
                                   "endfor", "do", "while", "float", "double", "int", "int16", "int8",
                                   "uint16", "int64", "mirror", "clamped", "extend", "wrap", "constant",
                                   "import"};
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  for (const char* k : keywords) ok = ok && name != k;
  if (!ok) fail(loc, "'" + name + "' cannot name " + what + ": a name is letters, digits and '_', not a keyword");
}

Scope* scopeOf(State& s, const std::vector<Node*>& args, const SourceLoc& loc) {
  Scope* inner = nullptr;
  for (Node* a : args) {
    if (!a->scope) continue;
    if (!s.current->sees(a->scope)) {
      if (a->scope->kind == Scope::StencilTrace)
        fail(loc, describe(a) + " is a value of stencil '" + a->scope->stencil +
                      "': it is used only inside that stencil's function");
      if (s.current->kind == Scope::StencilTrace)
        fail(loc, "stencil '" + s.current->stencil + "' reads " + describe(a) +
                      ", which is not one of its parameters: pass it as an argument");
      fail(loc, describe(a) + " is computed in a 'do' loop's body; after the loop, use the images the loop returns");
    }
    if (!inner || a->scope->sees(inner)) inner = a->scope;
  }
  return inner;
}

ir::ExprPtr shadowLeaf(Type t) {
  auto e = std::make_shared<ir::Expr>();
  e->kind = ir::Expr::Local;  // not a literal: sema folds nothing into it
  e->type = formac::Type::of(t);
  return e;
}

void requireImage(const Node* n, const std::string& what, const SourceLoc& loc) {
  if (n->rank > 0) return;
  bool reduction = n->kind == Node::Reduce;
  fail(loc, what + ", but " + describe(n) + " is a scalar" +
                (reduction ? " (a reduction of the whole image)" : ""));
}

namespace {

// Guards the scope current while a stencil's or a loop body's function runs.
struct Entered {
  Entered(State& s, Scope* scope) : s_(s), saved_(s.current) { s.current = scope; }
  ~Entered() { s_.current = saved_; }
  State& s_;
  Scope* saved_;
};

void requirePipelineScope(State& s, const std::string& what, const SourceLoc& loc) {
  if (s.current->kind == Scope::StencilTrace)
    fail(loc, what + " is a statement of the pipeline, not part of stencil '" + s.current->stencil + "'");
}

Node* globalOp(Node::Kind kind, const std::string& op, const Value& img, const Site& site) {
  if (!img.valid()) throw UserError("'" + op + "' of an empty formac::builder::Value");
  State& s = *img.state();
  SourceLoc loc = s.locate(site);
  requirePipelineScope(s, "'" + op + "'", loc);
  requireImage(img.node(), "'" + op + "' takes an image", loc);
  scopeOf(s, {img.node()}, loc);
  Node* n = s.add(kind, loc);
  n->op = op;
  n->args = {img.node()};
  n->scope = s.current;
  n->rank = img.rank();
  return n;
}

void requireDimension(const Node* img, int dim, const std::string& op, const SourceLoc& loc) {
  if (dim < 0 || dim >= img->rank)
    fail(loc, describe(img) + " has rank " + std::to_string(img->rank) + ", so it has no dimension " +
                  std::to_string(dim) + " for '" + op + "' (0 is the first)");
}

}  // namespace

Value reduce(ir::ReduceOp op, const Value& img, int dim, Site site) {
  Node* n = globalOp(Node::Reduce, ir::reduceOpName(op), img, site);
  if (dim != -1) requireDimension(img.node(), dim, n->op, n->loc);
  n->reduceOp = op;
  n->dim = dim;
  n->rank = dim < 0 ? 0 : img.rank() - 1;
  n->type = ir::reduceResultType(op, img.type());
  n->shadow = shadowLeaf(n->type);
  return img.state()->value(n);
}
Value sum(const Value& img, int dim, Site site) { return reduce(ir::ReduceOp::Sum, img, dim, site); }
Value count(const Value& img, int dim, Site site) { return reduce(ir::ReduceOp::Count, img, dim, site); }
Value any(const Value& img, int dim, Site site) { return reduce(ir::ReduceOp::Any, img, dim, site); }
Value all(const Value& img, int dim, Site site) { return reduce(ir::ReduceOp::All, img, dim, site); }
Value min(const Value& img, Site site) { return reduce(ir::ReduceOp::Min, img, -1, site); }
Value max(const Value& img, Site site) { return reduce(ir::ReduceOp::Max, img, -1, site); }

Value histogram(const Value& img, long long bins, double lo, double hi, Site site) {
  Node* n = globalOp(Node::Histogram, "histogram", img, site);
  n->count = bins;
  n->lo = lo;
  n->hi = hi;
  n->rank = 1;
  n->type = Type::Int64;
  n->shadow = shadowLeaf(n->type);
  return img.state()->value(n);
}

namespace {
Value selection(ir::ReduceOp op, const Value& img, long long k, const Site& site) {
  Node* n = globalOp(Node::Selection, ir::reduceOpName(op), img, site);
  n->reduceOp = op;
  n->count = k;
  n->rank = 1;
  n->type = Type::Int64;
  n->shadow = shadowLeaf(n->type);
  return img.state()->value(n);
}
Value scanOf(const Value& img, int dim, std::optional<Type> type, const Site& site) {
  Node* n = globalOp(Node::Scan, dim < 0 ? "sat" : "scan", img, site);
  if (dim != -1) requireDimension(img.node(), dim, n->op, n->loc);
  n->dim = dim;
  n->resultType = type;
  n->type = type ? *type : isFloating(img.type()) ? Type::Double : Type::Int64;
  n->shadow = shadowLeaf(n->type);
  return img.state()->value(n);
}
}  // namespace

Value where(const Value& mask, long long k, Site site) { return selection(ir::ReduceOp::Where, mask, k, site); }
Value topk(const Value& img, long long k, Site site) { return selection(ir::ReduceOp::TopK, img, k, site); }
Value scan(const Value& img, int dim, Site site) { return scanOf(img, dim, std::nullopt, site); }
Value scan(const Value& img, int dim, Type type, Site site) { return scanOf(img, dim, type, site); }
Value sat(const Value& img, Site site) { return scanOf(img, -1, std::nullopt, site); }
Value sat(const Value& img, Type type, Site site) { return scanOf(img, -1, type, site); }

// ---------------------------------------------------------------- the Builder
Builder::Builder() : s_(std::make_unique<State>()) {}
Builder::~Builder() = default;

Value Builder::input(const std::string& name, Type type, int rank, Site site) {
  static const std::vector<std::string> names = {"K", "L", "M", "N"};
  if (rank < 1 || rank > 4) fail(s_->locate(site), "an image has rank 1 to 4, not " + std::to_string(rank));
  return input(name, type, std::vector<std::string>(names.end() - rank, names.end()), site);
}

Value Builder::input(const std::string& name, Type type, const std::vector<std::string>& extents, Site site) {
  SourceLoc loc = s_->locate(site);
  requirePipelineScope(*s_, "an input", loc);
  requireIdentifier(name, "an input", loc);
  if (extents.empty() || extents.size() > 4)
    fail(loc, "an image has rank 1 to 4, not " + std::to_string(extents.size()));
  for (const auto& e : extents) {
    requireIdentifier(e, "an extent", loc);
    if (std::find(s_->paramNames.begin(), s_->paramNames.end(), e) == s_->paramNames.end())
      s_->paramNames.push_back(e);
  }
  Node* n = s_->add(Node::Input, loc);
  n->userName = name;
  n->type = type;
  n->rank = static_cast<int>(extents.size());
  n->scope = &s_->pipeline;
  n->shadow = shadowLeaf(type);
  s_->inputs.push_back(n);
  s_->extents[n] = extents;
  return s_->value(n);
}

Value Builder::scalar(const std::string& name, Type type, Site site) {
  SourceLoc loc = s_->locate(site);
  requirePipelineScope(*s_, "a scalar input", loc);
  requireIdentifier(name, "a scalar input", loc);
  Node* n = s_->add(Node::ScalarInput, loc);
  n->userName = name;
  n->type = type;
  n->scope = &s_->pipeline;
  n->shadow = shadowLeaf(type);
  s_->inputs.push_back(n);
  return s_->value(n);
}

Stencil Builder::makeStencil(const std::string& name, const std::vector<Param>& params, size_t arity,
                             StencilBody body, const Site& site) {
  SourceLoc loc = s_->locate(site);
  requireIdentifier(name, "a stencil", loc);
  if (arity == 0) fail(loc, "stencil '" + name + "' takes no parameter; it needs an image to compute on");
  if (!params.empty() && params.size() != arity)
    fail(loc, "stencil '" + name + "' names " + std::to_string(params.size()) + " parameters, but its function takes " +
                  std::to_string(arity));
  auto st = std::make_unique<StencilInfo>();
  st->name = name;
  st->arity = arity;
  st->body = std::move(body);
  st->loc = loc;
  for (size_t i = 0; i < arity; ++i) {
    Param p = !params.empty() ? params[i] : Param(arity == 1 ? "X" : "X" + std::to_string(i));
    requireIdentifier(p.name, "a parameter", loc);
    st->params.push_back(p);
  }
  s_->stencils.push_back(std::move(st));
  return Stencil(s_.get(), static_cast<int>(s_->stencils.size()) - 1);
}

namespace {

// Records the stencil's function once, on parameters shaped like `args`.
void trace(State& s, StencilInfo& st, const std::vector<Node*>& args) {
  st.scope = std::make_unique<Scope>();
  st.scope->kind = Scope::StencilTrace;
  st.scope->stencil = st.name;
  std::vector<Value> params;
  for (size_t i = 0; i < args.size(); ++i) {
    Node* p = s.add(Node::StencilParam, st.loc);
    p->index = static_cast<int>(i);
    p->type = st.params[i].type.value_or(args[i]->type);
    p->rank = args[i]->rank;
    p->scope = st.scope.get();
    p->shadow = shadowLeaf(p->type);
    p->userName = st.params[i].name;
    st.paramNodes.push_back(p);
    params.push_back(s.value(p));
  }
  Node* r = nullptr;
  {
    Entered in(s, st.scope.get());
    Operand result = st.body(params);
    if (result.literal == ast::Expr::Name && (!result.value.valid() || result.value.state() != &s))
      fail(st.loc, "the function of stencil '" + st.name + "' returns no value of this builder");
    r = operandNode(s, result);
  }
  if (r->scope && r->scope != st.scope.get())
    fail(r->loc, "stencil '" + st.name + "' returns " + describe(r) + ", which is not computed from its parameters");
  st.result = r;
  st.traced = true;
}

}  // namespace

Value Stencil::apply(const std::vector<Operand>& args) const {
  StencilInfo& st = *s_->stencils.at(static_cast<size_t>(index_));
  SourceLoc loc = s_->locate(args.front().site);
  requirePipelineScope(*s_, "applying stencil '" + st.name + "'", loc);
  if (args.size() != st.arity)
    fail(loc, "stencil '" + st.name + "' takes " + std::to_string(st.arity) + " argument" +
                  (st.arity == 1 ? "" : "s") + ", " + std::to_string(args.size()) + " given");
  std::vector<Node*> nodes;
  int rank = 0;
  for (const Operand& a : args) {
    Node* n = operandNode(*s_, a);
    if (a.literal != ast::Expr::Name) {
      nodes.push_back(n);
      continue;
    }
    if (!n || a.value.state() != s_) throw UserError("stencil '" + st.name + "' is given an empty or foreign Value");
    if (n->rank == 0 && n->pointwise())
      fail(s_->locate(a.site), "a scalar argument of stencil '" + st.name +
                                   "' is a number, a scalar input or a reduction; compute " + describe(n) +
                                   " inside the stencil from those");
    rank = std::max(rank, n->rank);
    nodes.push_back(n);
  }
  scopeOf(*s_, nodes, loc);
  if (rank == 0) fail(loc, "stencil '" + st.name + "' is given no image, so its result has no extent");
  if (!st.traced) trace(*s_, st, nodes);
  Node* n = s_->add(Node::Apply, loc);
  n->op = st.name;
  n->stencil = index_;
  n->args = nodes;
  n->rank = rank;
  n->scope = s_->current;
  n->type = st.result->type;
  n->shadow = shadowLeaf(n->type);
  return s_->value(n);
}

// ---------------------------------------------------------------- loops
std::vector<Value> Builder::loop(int rounds, const std::vector<Value>& init, const LoopBody& body, Site site) {
  return loopImpl(rounds, "", init, body, site);
}

std::vector<Value> Builder::loop(const std::string& roundsParam, const std::vector<Value>& init,
                                 const LoopBody& body, Site site) {
  return loopImpl(0, roundsParam, init, body, site);
}

std::vector<Value> Builder::loopImpl(int rounds, const std::string& param, const std::vector<Value>& init,
                                     const LoopBody& body, const Site& site) {
  State& s = *s_;
  SourceLoc loc = s.locate(site);
  if (s.current != &s.pipeline)
    fail(loc, "a 'do' loop is a statement of the pipeline, not part of a stencil or of another loop");
  if (init.empty()) fail(loc, "a 'do' loop carries at least one image");
  auto lp = std::make_unique<LoopInfo>();
  LoopInfo& L = *lp;
  s.loops.push_back(std::move(lp));
  L.loc = loc;
  L.rounds = rounds;
  L.roundsParam = param;
  if (!param.empty()) {
    requireIdentifier(param, "a parameter", loc);
    if (std::find(s.paramNames.begin(), s.paramNames.end(), param) == s.paramNames.end())
      s.paramNames.push_back(param);
  }
  L.scope = std::make_unique<Scope>();
  L.scope->kind = Scope::LoopBody;
  L.scope->parent = &s.pipeline;
  std::vector<Value> carried;
  for (size_t i = 0; i < init.size(); ++i) {
    Node* x = init[i].node();
    if (!init[i].valid() || init[i].state() != &s) throw UserError("a 'do' loop is given an empty or foreign Value");
    requireImage(x, "a 'do' loop carries images", loc);
    scopeOf(s, {x}, loc);
    L.init.push_back(x);
    Node* c = s.add(Node::Carried, loc);
    c->index = static_cast<int>(i);
    c->loop = &L;
    c->type = x->type;
    c->rank = x->rank;
    c->scope = L.scope.get();
    c->shadow = shadowLeaf(c->type);
    L.carried.push_back(c);
    carried.push_back(s.value(c));
  }
  Round r;
  {
    Entered in(s, L.scope.get());
    r = body(carried);
  }
  if (r.next.size() != init.size())
    fail(loc, "the 'do' loop carries " + std::to_string(init.size()) + " image(s), but its body returns " +
                  std::to_string(r.next.size()));
  std::vector<Node*> ends;
  for (const Value& v : r.next) ends.push_back(v.node());
  if (!r.condition.valid()) fail(loc, "the body of the 'do' loop returns no condition");
  ends.push_back(r.condition.node());
  {
    Entered in(s, L.scope.get());
    scopeOf(s, ends, loc);
  }
  for (const Value& v : r.next) L.next.push_back(v.node());
  L.condition = r.condition.node();
  L.id = static_cast<int>(s.nodes.size());
  std::vector<Value> results;
  for (size_t i = 0; i < init.size(); ++i) {
    Node* res = s.add(Node::LoopResult, loc);
    res->index = static_cast<int>(i);
    res->loop = &L;
    res->type = init[i].type();
    res->rank = init[i].rank();
    res->scope = &s.pipeline;
    res->shadow = shadowLeaf(res->type);
    L.results.push_back(res);
    results.push_back(s.value(res));
  }
  return results;
}

// ---------------------------------------------------------------- outputs
void Builder::outputs(const std::vector<Value>& results, Site site) {
  SourceLoc loc = s_->locate(site);
  if (s_->current != &s_->pipeline) fail(loc, "the outputs are given for the pipeline, not inside a stencil or a loop");
  if (results.empty()) fail(loc, "a pipeline returns at least one value");
  std::vector<Node*> nodes;
  for (const Value& v : results) {
    if (!v.valid() || v.state() != s_.get()) throw UserError("an output is an empty or foreign Value");
    nodes.push_back(v.node());
  }
  scopeOf(*s_, nodes, loc);
  s_->outputs = nodes;
  s_->outputsLoc = loc;
}

Builder::Program Builder::program() const {
  if (s_->outputs.empty()) throw UserError("the builder's pipeline has no outputs: call outputs({...}) first");
  return Program{toAst(*s_), s_->files};
}

CompiledPipeline compile(const Builder& b, const CompileOptions& options) {
  Builder::Program p = b.program();
  return formac::compile(*p.ast, p.files, options);
}

ir::Pipeline checkedPipeline(const Builder& b, Warnings& warnings) {
  Builder::Program p = b.program();
  return formac::checkedPipeline(*p.ast, "pipeline", warnings);
}

}  // namespace formac::builder
