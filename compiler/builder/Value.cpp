// Values and their point-wise operations: each records a node typed by
// sema's own rules (sema/ExprBuilder.h), so a type error is the language's
// message at the C++ line that wrote the operation.
#include <cctype>

#include "builder/Node.h"
#include "sema/ExprBuilder.h"

namespace formac::builder {
namespace {

State* stateOf(const std::vector<const Operand*>& ops) {
  State* s = nullptr;
  for (const Operand* o : ops) {
    if (o->literal != ast::Expr::Name) continue;
    if (!o->value.valid()) throw UserError("an operand is an empty formac::builder::Value");
    if (s && s != o->value.state()) throw UserError("values of two different Builders are combined");
    s = o->value.state();
  }
  return s;
}

}  // namespace

Node* operandNode(State& s, const Operand& o) {
  if (o.literal == ast::Expr::Name) return o.value.node();
  Node* n = s.add(Node::Literal, s.locate(o.site));
  n->literal = o.literal;
  n->number = o.number;
  n->type = o.literal == ast::Expr::IntLit ? Type::Int : o.literal == ast::Expr::FloatLit ? Type::Float : Type::Double;
  n->shadow = o.literal == ast::Expr::IntLit ? sema::constInt(static_cast<long long>(o.number))
                                              : sema::constFloating(o.number, n->type);
  return n;
}

namespace {

// A point-wise operation of `ops`; `typed` gives its shadow from theirs.
template <class Typed>
Value pointwise(Node::Kind kind, const std::string& op, const std::vector<const Operand*>& ops, Typed typed) {
  State* s = stateOf(ops);
  if (!s) throw UserError("'" + op + "' of numbers only: write the number itself");
  SourceLoc loc = s->locate(ops.front()->site);
  std::vector<Node*> args;
  std::vector<ir::ExprPtr> shadows;
  int rank = 0;
  const Node* ranked = nullptr;
  for (const Operand* o : ops) {
    Node* a = operandNode(*s, *o);
    if (a->rank > 0 && ranked && a->rank != rank)
      fail(loc, "'" + op + "' combines " + describe(ranked) + ", of rank " + std::to_string(rank) + ", with " +
                    describe(a) + ", of rank " + std::to_string(a->rank));
    if (a->rank > 0) rank = a->rank, ranked = a;
    args.push_back(a);
    shadows.push_back(a->shadow);
  }
  Scope* scope = scopeOf(*s, args, loc);
  ir::ExprPtr shadow = typed(shadows, loc);
  Node* n = s->add(kind, loc);
  n->op = op;
  n->args = args;
  n->rank = rank;
  n->scope = scope;
  n->shadow = shadow;
  n->type = sema::formaType(shadow).scalar;
  return s->value(n);
}

Value binaryOp(ir::BinOp op, const char* spelling, const Operand& a, const Operand& b) {
  return pointwise(Node::Binary, spelling, {&a, &b}, [op](const std::vector<ir::ExprPtr>& x, const SourceLoc& loc) {
    return sema::binary(op, x[0], x[1], loc);
  });
}

Value unaryOp(ir::UnOp op, const char* spelling, const Operand& a) {
  return pointwise(Node::Unary, spelling, {&a}, [op](const std::vector<ir::ExprPtr>& x, const SourceLoc& loc) {
    return sema::unary(op, x[0], loc);
  });
}

void requireValue(const Node* n) {
  if (!n) throw UserError("an empty formac::builder::Value is used");
}

}  // namespace

Operand::Operand(int v, Site s) : site(s), literal(ast::Expr::IntLit), number(v) {}
Operand::Operand(double v, Site s) : site(s), literal(ast::Expr::DoubleLit), number(v) {}
Operand::Operand(float v, Site s) : site(s), literal(ast::Expr::FloatLit), number(v) {}

int Value::rank() const { return n_ ? n_->rank : 0; }
Type Value::type() const { return n_ ? n_->type : Type::Int; }
std::string Value::name() const { return n_ ? n_->userName : ""; }

Value Value::named(const std::string& name, Site site) const {
  requireValue(n_);
  SourceLoc loc = s_->locate(site);
  requireIdentifier(name, "a value", loc);
  bool leaf = n_->kind == Node::Literal || n_->kind == Node::Input || n_->kind == Node::ScalarInput ||
              n_->kind == Node::StencilParam || n_->kind == Node::Carried || n_->kind == Node::LoopResult;
  if (!leaf && n_->userName.empty()) {
    n_->userName = name;
    return *this;
  }
  if (n_->kind == Node::Literal || n_->kind == Node::StencilParam || n_->kind == Node::ScalarInput)
    fail(loc, describe(n_) + " is named where it is declared; a number is named by the stencil that reads it");
  Node* alias = s_->add(Node::Alias, loc);
  alias->args = {n_};
  alias->type = n_->type;
  alias->rank = n_->rank;
  alias->scope = scopeOf(*s_, {n_}, loc);
  alias->shadow = n_->shadow;
  alias->userName = name;
  return s_->value(alias);
}

Value Value::atAxes(const std::vector<Offset>& axes, Site site) const {
  requireValue(n_);
  SourceLoc loc = s_->locate(site);
  requireImage(n_, "'.at' reads an image at an offset", loc);
  if (static_cast<int>(axes.size()) != n_->rank)
    fail(loc, describe(n_) + " has rank " + std::to_string(n_->rank) + ", but " + std::to_string(axes.size()) +
                  " offset" + (axes.size() == 1 ? " is" : "s are") + " given");
  Node* base = n_;
  ast::Boundary boundary;
  // A boundary view read at an offset: one read, as `f(X:mirror)` reads X@[...].
  if (base->kind == Node::Read && base->offsets.empty()) {
    boundary = base->boundary;
    base = base->args[0];
  }
  if (s_->current->kind == Scope::StencilTrace && base->kind != Node::StencilParam)
    fail(loc, "inside stencil '" + s_->current->stencil + "' only its image parameters are read at offsets, not " +
                  describe(base));
  Node* n = s_->add(Node::Read, loc);
  n->args = {base};
  for (const Offset& a : axes) n->offsets.push_back({a.offset, a.scale});
  n->boundary = boundary;
  n->type = base->type;
  n->rank = base->rank;
  n->scope = scopeOf(*s_, {base}, loc);
  n->shadow = shadowLeaf(n->type);
  return s_->value(n);
}

Value Value::withBoundary(BoundaryMode mode, double constant, bool constantIsInt, Site site) const {
  requireValue(n_);
  SourceLoc loc = s_->locate(site);
  requireImage(n_, std::string("':") + boundaryName(mode) + "' is a boundary condition of an image", loc);
  if (s_->current->kind == Scope::StencilTrace)
    fail(loc, "a boundary condition is given where a stencil is applied, not inside stencil '" +
                  s_->current->stencil + "'");
  Node* n = s_->add(Node::Read, loc);
  n->args = {n_};
  n->boundary.loc = loc;
  n->boundary.mode = mode;
  n->boundary.constant = constant;
  n->boundary.constantIsInt = constantIsInt;
  n->boundary.constantLoc = loc;
  n->type = n_->type;
  n->rank = n_->rank;
  n->scope = scopeOf(*s_, {n_}, loc);
  n->shadow = shadowLeaf(n->type);
  return s_->value(n);
}

Value Value::clamped(Site site) const { return withBoundary(BoundaryMode::Clamped, 0, true, site); }
Value Value::extend(Site site) const { return withBoundary(BoundaryMode::Extend, 0, true, site); }
Value Value::mirror(Site site) const { return withBoundary(BoundaryMode::Mirror, 0, true, site); }
Value Value::wrap(Site site) const { return withBoundary(BoundaryMode::Wrap, 0, true, site); }
Value Value::constant(double c, Site site) const {
  return withBoundary(BoundaryMode::Constant, c, c == static_cast<double>(static_cast<long long>(c)), site);
}

Value operator+(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Add, "+", a, b); }
Value operator-(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Sub, "-", a, b); }
Value operator*(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Mul, "*", a, b); }
Value operator/(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Div, "/", a, b); }
Value operator%(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Mod, "%", a, b); }
Value operator<(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Lt, "<", a, b); }
Value operator>(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Gt, ">", a, b); }
Value operator<=(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Le, "<=", a, b); }
Value operator>=(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Ge, ">=", a, b); }
Value operator==(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Eq, "==", a, b); }
Value operator!=(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Ne, "!=", a, b); }
Value operator&&(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::And, "&&", a, b); }
Value operator||(const Operand& a, const Operand& b) { return binaryOp(ir::BinOp::Or, "||", a, b); }
Value operator-(const Operand& a) { return unaryOp(ir::UnOp::Neg, "-", a); }
Value operator!(const Operand& a) { return unaryOp(ir::UnOp::Not, "!", a); }

Value select(const Operand& c, const Operand& a, const Operand& b) {
  return pointwise(Node::Select, "?:", {&c, &a, &b}, [](const std::vector<ir::ExprPtr>& x, const SourceLoc& loc) {
    return sema::select(x[0], x[1], x[2], loc);
  });
}

Value cast(Type t, const Operand& e) {
  return pointwise(Node::Cast, std::string("cast<") + scalarName(t) + ">", {&e},
                   [t](const std::vector<ir::ExprPtr>& x, const SourceLoc& loc) { return sema::cast(x[0], t, loc); });
}

Value call(const std::string& fn, const std::vector<Operand>& args) {
  std::vector<const Operand*> ops;
  for (const Operand& a : args) ops.push_back(&a);
  if (ops.empty()) throw UserError("'" + fn + "' needs arguments");
  return pointwise(Node::Call, fn, ops, [&fn](const std::vector<ir::ExprPtr>& x, const SourceLoc& loc) {
    return sema::call(fn, x, loc);
  });
}

Value sqrt(const Operand& a) { return call("sqrt", {a}); }
Value exp(const Operand& a) { return call("exp", {a}); }
Value log(const Operand& a) { return call("log", {a}); }
Value sin(const Operand& a) { return call("sin", {a}); }
Value cos(const Operand& a) { return call("cos", {a}); }
Value tan(const Operand& a) { return call("tan", {a}); }
Value atan(const Operand& a) { return call("atan", {a}); }
Value fabs(const Operand& a) { return call("fabs", {a}); }
Value abs(const Operand& a) { return call("abs", {a}); }
Value floor(const Operand& a) { return call("floor", {a}); }
Value ceil(const Operand& a) { return call("ceil", {a}); }
Value round(const Operand& a) { return call("round", {a}); }
Value pow(const Operand& a, const Operand& b) { return call("pow", {a, b}); }
Value atan2(const Operand& a, const Operand& b) { return call("atan2", {a, b}); }
Value absd(const Operand& a, const Operand& b) { return call("absd", {a, b}); }
Value min(const Operand& a, const Operand& b) { return call("min", {a, b}); }
Value max(const Operand& a, const Operand& b) { return call("max", {a, b}); }

}  // namespace formac::builder
