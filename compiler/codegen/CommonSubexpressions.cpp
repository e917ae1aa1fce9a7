#include "codegen/CommonSubexpressions.h"

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace formac::codegen {
namespace {

using ir::Expr;
using ir::ExprPtr;

// A bound on the lets added to one body: each costs a pass over it.
constexpr int kMaxHoisted = 64;

// Value numbering: equal numbers mean equal expressions. A node's key is its
// own fields (floats spelled exactly, in hex) and its operands' numbers, so
// numbering a body is linear in its size (a 20000-term sum included).
struct Numbering {
  std::map<std::string, int> byKey;
  std::unordered_map<const Expr*, int> of;
  std::vector<int> sizes;  // nodes per number

  int number(const Expr& e) {
    auto known = of.find(&e);
    if (known != of.end()) return known->second;
    char f[96];
    std::snprintf(f, sizeof f, "%d/%s/%lld/%a/%a/", static_cast<int>(e.kind), e.type.name().c_str(), e.intValue,
                  e.floatValue, e.constant);
    std::string k = f;
    k += std::to_string(e.producer) + "/" + std::to_string(e.firstDim) + "/" +
         std::to_string(static_cast<int>(e.mode)) + "/" + std::to_string(e.field) + "/" + std::to_string(e.scalar) +
         "/" + std::to_string(e.local) + "/" + std::to_string(static_cast<int>(e.unOp)) + "/" +
         std::to_string(static_cast<int>(e.binOp)) + "/" + std::to_string(static_cast<int>(e.fn));
    for (const auto& a : e.axes) k += "/" + std::to_string(a.offset) + "*" + std::to_string(a.scale);
    for (const auto& o : e.origin) k += "/@" + ir::printSize(o, {});
    k += "(";
    int n = 1;
    for (const auto& a : e.args) {
      int id = number(*a);
      k += std::to_string(id) + ",";
      n += sizes[static_cast<size_t>(id)];
    }
    auto [it, fresh] = byKey.emplace(k, static_cast<int>(sizes.size()));
    if (fresh) sizes.push_back(n);
    of[&e] = it->second;
    return it->second;
  }
};

bool isComparison(ir::BinOp op) {
  switch (op) {
    case ir::BinOp::Lt: case ir::BinOp::Gt: case ir::BinOp::Le:
    case ir::BinOp::Ge: case ir::BinOp::Eq: case ir::BinOp::Ne: return true;
    default: return false;
  }
}

// Whether evaluating `e` where the program might not is harmless: no read,
// nothing C leaves undefined (integer overflow or division by zero, an
// out-of-range float-to-integer conversion).
bool speculatable(const Expr& e) {
  bool floating = !e.type.isStruct() && isFloating(e.type.scalar);
  bool ok = false;
  switch (e.kind) {
    case Expr::Const: case Expr::Local: case Expr::ScalarIn: return true;
    case Expr::ImageRead: case Expr::IndexRead: case Expr::MakeStruct: return false;
    case Expr::Unary: ok = floating || e.unOp == ir::UnOp::Not; break;
    case Expr::Binary:
      ok = floating || isComparison(e.binOp) || e.binOp == ir::BinOp::And || e.binOp == ir::BinOp::Or;
      break;
    case Expr::Select: case Expr::Field: ok = true; break;
    case Expr::Call: ok = floating; break;
    case Expr::Cast: ok = floating || !isFloating(e.args[0]->type.scalar); break;
  }
  if (!ok) return false;
  for (const auto& a : e.args)
    if (!speculatable(*a)) return false;
  return true;
}

struct Candidate {
  int count = 0;
  int owner = 0;  // the first let (or the result, at lets.size()) using it
  bool unconditional = false;
  ExprPtr sample;
};

// Every compound scalar subexpression of the body, by number. A shared node
// (the same pointer at several places) counts at each place.
std::map<int, Candidate> survey(const ir::Body& b, Numbering& num) {
  std::map<int, Candidate> found;
  std::function<void(const ExprPtr&, int, bool)> walk = [&](const ExprPtr& e, int owner, bool conditional) {
    bool compound = !e->args.empty() && e->kind != Expr::IndexRead && e->kind != Expr::MakeStruct;
    if (compound && !e->type.isStruct()) {
      auto [it, fresh] = found.emplace(num.number(*e), Candidate{});
      Candidate& c = it->second;
      if (fresh) c.owner = owner, c.sample = e;
      ++c.count;
      c.unconditional = c.unconditional || !conditional;
    }
    bool shortCircuit = e->kind == Expr::Binary && (e->binOp == ir::BinOp::And || e->binOp == ir::BinOp::Or);
    for (size_t i = 0; i < e->args.size(); ++i)
      walk(e->args[i], owner, conditional || (e->kind == Expr::Select && i > 0) || (shortCircuit && i > 0));
  };
  for (size_t i = 0; i < b.lets.size(); ++i) walk(b.lets[i].value, static_cast<int>(i), false);
  walk(b.result, static_cast<int>(b.lets.size()), false);
  return found;
}

// A read of let `n`, of type `t`.
ExprPtr makeLocal(const Type& t, int n) {
  auto l = std::make_shared<Expr>();
  l->kind = Expr::Local;
  l->type = t;
  l->local = n;
  return l;
}

// `e` with Locals at or above `at` moved up by one and every subexpression
// numbered `id` replaced by Local `at`.
ExprPtr replace(const ExprPtr& e, int id, int at, Numbering& num) {
  if (!e->args.empty() && num.number(*e) == id) return makeLocal(e->type, at);
  bool changed = e->kind == Expr::Local && e->local >= at;
  std::vector<ExprPtr> args;
  for (const auto& a : e->args) {
    args.push_back(replace(a, id, at, num));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto c = std::make_shared<Expr>(*e);
  c->args = std::move(args);
  if (c->kind == Expr::Local && c->local >= at) ++c->local;
  return c;
}

// Whether printRead prints this read's indices twice: a directly indexed read
// with no mode or a constant one tests them for range, then reads with them.
bool guardedIndexRead(const Expr& e) {
  return e.kind == Expr::IndexRead &&
         (e.mode == ir::BoundaryMode::None || e.mode == ir::BoundaryMode::Constant);
}

}  // namespace

int bindReadIndices(ir::Body& b) {
  std::vector<ir::Let> lets;
  std::vector<int> moved;  // old let -> its place in `lets`
  int added = 0;
  std::function<ExprPtr(const ExprPtr&)> bind = [&](const ExprPtr& e) -> ExprPtr {
    if (e->kind == Expr::Local) {
      if (moved[static_cast<size_t>(e->local)] == e->local) return e;
      auto l = std::make_shared<Expr>(*e);
      l->local = moved[static_cast<size_t>(e->local)];
      return l;
    }
    std::vector<ExprPtr> args;
    bool changed = false;
    for (const auto& a : e->args) {
      ExprPtr x = bind(a);
      if (guardedIndexRead(*e) && !x->args.empty()) {
        lets.push_back(ir::Let{"index", x->type, x});
        ++added;
        x = makeLocal(x->type, static_cast<int>(lets.size()) - 1);
      }
      changed = changed || x != a;
      args.push_back(std::move(x));
    }
    if (!changed) return e;
    auto c = std::make_shared<Expr>(*e);
    c->args = std::move(args);
    return c;
  };
  for (size_t i = 0; i < b.lets.size(); ++i) {
    ExprPtr v = bind(b.lets[i].value);
    moved.push_back(static_cast<int>(lets.size()));
    lets.push_back(ir::Let{b.lets[i].name, b.lets[i].type, v});
  }
  b.result = bind(b.result);
  b.lets = std::move(lets);
  return added;
}

int hoistCommonSubexpressions(ir::Body& b) {
  int added = 0;
  for (; added < kMaxHoisted; ++added) {
    Numbering num;
    int best = -1, bestSize = 0;
    Candidate c;
    for (const auto& [id, cand] : survey(b, num)) {
      if (cand.count < 2 || !(cand.unconditional || speculatable(*cand.sample))) continue;
      int n = num.sizes[static_cast<size_t>(id)];
      if (n > bestSize) best = id, bestSize = n, c = cand;
    }
    if (best < 0) break;
    // Its Locals all name lets before c.owner, which keep their numbers.
    for (size_t i = static_cast<size_t>(c.owner); i < b.lets.size(); ++i)
      b.lets[i].value = replace(b.lets[i].value, best, c.owner, num);
    b.result = replace(b.result, best, c.owner, num);
    b.lets.insert(b.lets.begin() + c.owner, ir::Let{"common", c.sample->type, c.sample});
  }
  return added;
}

}  // namespace formac::codegen
