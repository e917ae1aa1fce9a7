#include "codegen/CommonSubexpressions.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
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

// Value numbering: equal numbers mean equal expressions. Two nodes get one
// number when their own fields are equal (floats bit for bit, so -0.0 and 0.0
// differ) and so are their operands' numbers; a node's operands are numbered
// first, so numbering a body is linear in its size (a 200,000-term sum
// included). Nothing is printed or allocated per node but the tables' entries.
class Numbering {
 public:
  std::vector<int> sizes;  // nodes per number

  int number(const Expr& e) {
    auto known = of.find(&e);
    if (known != of.end()) return known->second;
    std::vector<int> ids;
    ids.reserve(e.args.size());
    int n = 1;
    for (const auto& a : e.args) {
      ids.push_back(number(*a));
      n += sizes[static_cast<size_t>(ids.back())];
    }
    uint64_t h = hashOf(e, ids);
    auto first = byHash.find(h);
    int id = first == byHash.end() ? -1 : first->second;
    while (id >= 0 && !same(*sample[static_cast<size_t>(id)], e, id, ids)) id = nextSameHash[static_cast<size_t>(id)];
    if (id < 0) {
      id = static_cast<int>(sizes.size());
      sizes.push_back(n);
      sample.push_back(&e);
      argStart.push_back(argPool.size());
      argPool.insert(argPool.end(), ids.begin(), ids.end());
      nextSameHash.push_back(first == byHash.end() ? -1 : first->second);
      byHash[h] = id;
    }
    of.emplace(&e, id);
    return id;
  }

 private:
  std::unordered_map<const Expr*, int> of;
  std::unordered_map<uint64_t, int> byHash;  // the newest number of each hash
  std::vector<int> nextSameHash;             // the next older number of that hash, or -1
  std::vector<const Expr*> sample;           // a node of each number
  std::vector<size_t> argStart;              // its operands' numbers in argPool
  std::vector<int> argPool;

  static uint64_t bits(double d) {
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
  }

  static uint64_t hashOf(const Expr& e, const std::vector<int>& ids) {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; h ^= h >> 29; };
    for (uint64_t v : {static_cast<uint64_t>(e.kind), static_cast<uint64_t>(e.type.scalar),
                       reinterpret_cast<uint64_t>(e.type.structType), static_cast<uint64_t>(e.intValue),
                       bits(e.floatValue), bits(e.constant), static_cast<uint64_t>(e.producer),
                       static_cast<uint64_t>(e.firstDim), static_cast<uint64_t>(e.mode),
                       static_cast<uint64_t>(e.field), static_cast<uint64_t>(e.scalar),
                       static_cast<uint64_t>(e.local), static_cast<uint64_t>(e.unOp),
                       static_cast<uint64_t>(e.binOp), static_cast<uint64_t>(e.fn), e.axes.size(), e.origin.size()})
      mix(v);
    for (const auto& a : e.axes) mix(static_cast<uint64_t>(a.offset) * 31 + static_cast<uint64_t>(a.scale));
    for (int id : ids) mix(static_cast<uint64_t>(id));
    return h;
  }

  // Whether `e`, whose operands are numbered `ids`, is an instance of number
  // `id`, whose sample is `r`.
  bool same(const Expr& r, const Expr& e, int id, const std::vector<int>& ids) const {
    if (r.kind != e.kind || r.type.scalar != e.type.scalar || r.type.structType != e.type.structType ||
        r.intValue != e.intValue || bits(r.floatValue) != bits(e.floatValue) ||
        bits(r.constant) != bits(e.constant) || r.producer != e.producer || r.firstDim != e.firstDim ||
        r.mode != e.mode || r.field != e.field || r.scalar != e.scalar || r.local != e.local ||
        r.unOp != e.unOp || r.binOp != e.binOp || r.fn != e.fn || r.axes.size() != e.axes.size() ||
        r.origin.size() != e.origin.size() || r.args.size() != ids.size())
      return false;
    for (size_t i = 0; i < e.axes.size(); ++i)
      if (r.axes[i].offset != e.axes[i].offset || r.axes[i].scale != e.axes[i].scale) return false;
    for (size_t i = 0; i < e.origin.size(); ++i)
      if (ir::printSize(r.origin[i], {}) != ir::printSize(e.origin[i], {})) return false;
    const int* mine = argPool.data() + argStart[static_cast<size_t>(id)];
    return std::equal(ids.begin(), ids.end(), mine);
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

// Every compound scalar subexpression of the body, by number (count 0: not
// one). A shared node (the same pointer at several places) counts at each
// place.
std::vector<Candidate> survey(const ir::Body& b, Numbering& num) {
  std::vector<Candidate> found;
  struct Walk {
    Numbering& num;
    std::vector<Candidate>& found;
    void operator()(const ExprPtr& e, int owner, bool conditional) {
      bool compound = !e->args.empty() && e->kind != Expr::IndexRead && e->kind != Expr::MakeStruct;
      if (compound && !e->type.isStruct()) {
        size_t id = static_cast<size_t>(num.number(*e));
        if (id >= found.size()) found.resize(id + 1);
        Candidate& c = found[id];
        if (c.count++ == 0) c.owner = owner, c.sample = e;
        c.unconditional = c.unconditional || !conditional;
      }
      bool shortCircuit = e->kind == Expr::Binary && (e->binOp == ir::BinOp::And || e->binOp == ir::BinOp::Or);
      for (size_t i = 0; i < e->args.size(); ++i)
        (*this)(e->args[i], owner, conditional || (e->kind == Expr::Select && i > 0) || (shortCircuit && i > 0));
    }
  } walk{num, found};
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
    std::vector<Candidate> found = survey(b, num);
    for (int id = 0; id < static_cast<int>(found.size()); ++id) {
      const Candidate& cand = found[static_cast<size_t>(id)];
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
