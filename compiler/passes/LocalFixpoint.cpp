#include "passes/LocalFixpoint.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "ir/Edges.h"
#include "passes/LoopStep.h"

namespace formac::passes {
namespace {

using ir::Expr;
using ir::ExprPtr;

// ---------------------------------------------------------------- the shape

bool isInteger(const Type& t) { return !t.isStruct() && !isFloating(t.scalar); }

bool holds(ScalarKind to, ScalarKind from) {
  long long tl, th, fl, fh;
  integerRange(to, &tl, &th);
  integerRange(from, &fl, &fh);
  return tl <= fl && fh <= th;
}

// `e` without conversions that keep every value (int8 -> int).
const Expr& stripWidening(const Expr& e) {
  const Expr* x = &e;
  while (x->kind == Expr::Cast && isInteger(x->type) && isInteger(x->args[0]->type) &&
         holds(x->type.scalar, x->args[0]->type.scalar))
    x = x->args[0].get();
  return *x;
}

// Whether `e` is X<i> != X<i-1> (either order).
bool isChangeTest(const Expr& e, int next, int carried) {
  const Expr& t = stripWidening(e);
  if (t.kind != Expr::Binary || t.binOp != ir::BinOp::Ne) return false;
  const Expr& a = stripWidening(*t.args[0]);
  const Expr& b = stripWidening(*t.args[1]);
  return (readsAtCentre(a, next) && readsAtCentre(b, carried)) ||
         (readsAtCentre(a, carried) && readsAtCentre(b, next));
}

// ------------------------------------------------------- polarity analysis

// How a value moves when X<i-1> grows point by point.
enum class Pol { Const, Inc, Dec, Unknown };
Pol flip(Pol p) { return p == Pol::Inc ? Pol::Dec : p == Pol::Dec ? Pol::Inc : p; }
// Of a sum, a min, a max: both non-decreasing, or both non-increasing.
Pol both(Pol a, Pol b) {
  if (a == Pol::Const) return b;
  if (b == Pol::Const) return a;
  return a == b ? a : Pol::Unknown;
}

struct Fact {
  Pol pol = Pol::Unknown;
  long double lo = -INFINITY, hi = INFINITY;  // integer expressions: the values it can take
};

class Polarity {
 public:
  Polarity(const ir::Body& b, int carried) : body_(b), carried_(carried), lets_(b.lets.size()) {}
  Pol result() { return of(*body_.result).pol; }
  // Whether every value that depends on X<i-1> is a read of it, a min or a
  // max, a ?: on a condition that does not, or a conversion that keeps the
  // value: f then picks each point's value among its inputs (LocalFixpoint.h).
  bool selective() {
    result();
    return selective_;
  }

 private:
  Fact of(const Expr& e) {
    Fact f = compute(e);
    if (!isInteger(e.type)) f = Fact{f.pol == Pol::Const ? Pol::Const : Pol::Unknown};
    long long lo, hi;
    if (isInteger(e.type)) integerRange(e.type.scalar, &lo, &hi);
    if (isInteger(e.type) && (f.lo < lo || f.hi > hi)) {  // it could wrap or overflow: no longer ordered
      f.pol = f.pol == Pol::Const ? Pol::Const : Pol::Unknown;
      f.lo = lo;
      f.hi = hi;
    }
    const bool picks = e.kind == Expr::ImageRead || e.kind == Expr::Local ||
                       (e.kind == Expr::Call && (e.fn == ir::MathFn::Min || e.fn == ir::MathFn::Max)) ||
                       (e.kind == Expr::Select && of(*e.args[0]).pol == Pol::Const) ||
                       (e.kind == Expr::Cast && f.pol != Pol::Unknown && isInteger(e.type));
    if (f.pol != Pol::Const && !picks) selective_ = false;
    return f;
  }
  Fact range(const Type& t, Pol p) {
    Fact f{p};
    if (isInteger(t)) {
      long long lo, hi;
      integerRange(t.scalar, &lo, &hi);
      f.lo = lo;
      f.hi = hi;
    }
    return f;
  }
  Fact compute(const Expr& e) {
    switch (e.kind) {
      case Expr::Const: return Fact{Pol::Const, (long double)e.intValue, (long double)e.intValue};
      case Expr::ImageRead: return range(e.type, e.producer == carried_ ? Pol::Inc : Pol::Const);
      case Expr::ScalarIn: return range(e.type, Pol::Const);
      case Expr::Local: {
        auto& m = lets_[static_cast<size_t>(e.local)];
        if (!m) m = of(*body_.lets[static_cast<size_t>(e.local)].value);
        return *m;
      }
      case Expr::Unary: {
        Fact a = of(*e.args[0]);
        if (e.unOp == ir::UnOp::Neg) return Fact{flip(a.pol), -a.hi, -a.lo};
        return Fact{a.lo >= 0 ? flip(a.pol) : (a.pol == Pol::Const ? Pol::Const : Pol::Unknown), 0, 1};
      }
      case Expr::Binary: return binary(e);
      case Expr::Select: {
        Fact c = of(*e.args[0]), a = of(*e.args[1]), b = of(*e.args[2]);
        Pol p = c.pol == Pol::Const ? both(a.pol, b.pol) : Pol::Unknown;
        return Fact{p, std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
      }
      case Expr::Call: {
        std::vector<Fact> a;
        for (const auto& x : e.args) a.push_back(of(*x));
        if ((e.fn == ir::MathFn::Min || e.fn == ir::MathFn::Max) && a.size() == 2)
          return Fact{both(a[0].pol, a[1].pol), e.fn == ir::MathFn::Min ? std::min(a[0].lo, a[1].lo) : std::max(a[0].lo, a[1].lo),
                      e.fn == ir::MathFn::Min ? std::min(a[0].hi, a[1].hi) : std::max(a[0].hi, a[1].hi)};
        if (e.fn == ir::MathFn::Abs && a.size() == 1 && isInteger(e.type)) {
          if (a[0].lo >= 0) return a[0];
          if (a[0].hi <= 0) return Fact{flip(a[0].pol), -a[0].hi, -a[0].lo};
        }
        return allConst(e, a);
      }
      case Expr::Cast: {
        Fact a = of(*e.args[0]);
        if (isInteger(e.type) && isInteger(e.args[0]->type)) return a;  // of() checks the range
        return Fact{a.pol == Pol::Const ? Pol::Const : Pol::Unknown};
      }
      default: {  // IndexRead, Field, MakeStruct: ordered only when nothing moves
        std::vector<Fact> a;
        for (const auto& x : e.args) a.push_back(of(*x));
        if (e.kind == Expr::IndexRead && e.producer == carried_) return Fact{};
        return allConst(e, a);
      }
    }
  }
  Fact allConst(const Expr& e, const std::vector<Fact>& a) {
    for (const auto& f : a)
      if (f.pol != Pol::Const) return Fact{};
    return range(e.type, Pol::Const);
  }
  Fact binary(const Expr& e) {
    Fact a = of(*e.args[0]), b = of(*e.args[1]);
    using ir::BinOp;
    switch (e.binOp) {
      case BinOp::Add: return Fact{both(a.pol, b.pol), a.lo + b.lo, a.hi + b.hi};
      case BinOp::Sub: return Fact{both(a.pol, flip(b.pol)), a.lo - b.hi, a.hi - b.lo};
      case BinOp::Mul: {
        long double p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
        Fact r{Pol::Unknown, *std::min_element(p, p + 4), *std::max_element(p, p + 4)};
        if (std::isnan(r.lo) || std::isnan(r.hi)) r.lo = -INFINITY, r.hi = INFINITY;
        if (a.pol == Pol::Const && b.pol == Pol::Const) r.pol = Pol::Const;
        else if (a.pol == Pol::Const) r.pol = a.lo >= 0 ? b.pol : a.hi <= 0 ? flip(b.pol) : Pol::Unknown;
        else if (b.pol == Pol::Const) r.pol = b.lo >= 0 ? a.pol : b.hi <= 0 ? flip(a.pol) : Pol::Unknown;
        else if (a.lo >= 0 && b.lo >= 0) r.pol = both(a.pol, b.pol);
        return r;
      }
      case BinOp::Div: {
        long double m = std::max(std::fabs(a.lo), std::fabs(a.hi));
        Fact r{Pol::Unknown, -m, m};
        if (a.pol == Pol::Const && b.pol == Pol::Const) r.pol = Pol::Const;
        else if (b.pol == Pol::Const && b.lo > 0) r.pol = a.pol;
        else if (b.pol == Pol::Const && b.hi < 0) r.pol = flip(a.pol);
        return r;
      }
      case BinOp::Lt:
      case BinOp::Le: return Fact{both(flip(a.pol), b.pol), 0, 1};
      case BinOp::Gt:
      case BinOp::Ge: return Fact{both(a.pol, flip(b.pol)), 0, 1};
      case BinOp::And:
      case BinOp::Or:
        return Fact{a.lo >= 0 && b.lo >= 0 ? both(a.pol, b.pol)
                                           : (a.pol == Pol::Const && b.pol == Pol::Const ? Pol::Const : Pol::Unknown),
                    0, 1};
      default: {  // Mod, Pow, Eq, Ne
        Fact r = range(e.type, a.pol == Pol::Const && b.pol == Pol::Const ? Pol::Const : Pol::Unknown);
        if (e.binOp == BinOp::Eq || e.binOp == BinOp::Ne) r.lo = 0, r.hi = 1;
        return r;
      }
    }
  }

  const ir::Body& body_;
  int carried_;
  std::vector<std::optional<Fact>> lets_;
  bool selective_ = true;
};

// ------------------------------------------------------------ enumeration

// C's conversion of an integer to integer type `k` (modulo 2^bits).
long long wrapTo(long long v, ScalarKind k) {
  switch (k) {
    case ScalarKind::Int8: return static_cast<unsigned char>(v);
    case ScalarKind::Int16: return static_cast<short>(v);
    case ScalarKind::Uint16: return static_cast<unsigned short>(v);
    case ScalarKind::Int: return static_cast<int>(v);
    default: return v;
  }
}

// One C operation on integer values of result type `t`; nullopt where C
// leaves it undefined (overflow, division by zero) or it is not integer.
std::optional<long long> applyBinary(ir::BinOp op, long long a, long long b, ScalarKind t) {
  using ir::BinOp;
  __int128 r;
  switch (op) {
    case BinOp::Add: r = (__int128)a + b; break;
    case BinOp::Sub: r = (__int128)a - b; break;
    case BinOp::Mul: r = (__int128)a * b; break;
    case BinOp::Div:
    case BinOp::Mod:
      if (b == 0) return std::nullopt;
      r = op == BinOp::Div ? (__int128)a / b : (__int128)a % b;
      break;
    case BinOp::Lt: return a < b;
    case BinOp::Gt: return a > b;
    case BinOp::Le: return a <= b;
    case BinOp::Ge: return a >= b;
    case BinOp::Eq: return a == b;
    case BinOp::Ne: return a != b;
    case BinOp::And: return a && b;
    case BinOp::Or: return a || b;
    default: return std::nullopt;
  }
  long long lo, hi;
  integerRange(t, &lo, &hi);
  if (r < lo || r > hi) return std::nullopt;
  return static_cast<long long>(r);
}

// The body of X<i> evaluated with X<i-1>'s taps given.
class Interpreter {
 public:
  Interpreter(const ir::Body& b, int carried, const std::map<std::array<int, 2>, int>& tap)
      : body_(b), carried_(carried), tap_(tap) {}
  std::optional<long long> run(const std::vector<long long>& taps) {
    taps_ = &taps;
    lets_.clear();
    for (const auto& l : body_.lets) {
      auto v = eval(*l.value);
      if (!v) return std::nullopt;
      lets_.push_back(*v);
    }
    return eval(*body_.result);
  }

 private:
  std::optional<long long> eval(const Expr& e) {
    if (!isInteger(e.type)) return std::nullopt;
    switch (e.kind) {
      case Expr::Const: return e.intValue;
      case Expr::ImageRead: {
        if (e.producer != carried_) return std::nullopt;
        auto it = tap_.find({e.axes[0].offset, e.axes[1].offset});
        return (*taps_)[static_cast<size_t>(it->second)];
      }
      case Expr::Local: return lets_[static_cast<size_t>(e.local)];
      case Expr::Unary: {
        auto a = eval(*e.args[0]);
        if (!a) return std::nullopt;
        if (e.unOp == ir::UnOp::Not) return static_cast<long long>(!*a);
        return applyBinary(ir::BinOp::Sub, 0, *a, e.type.scalar);
      }
      case Expr::Binary: {
        auto a = eval(*e.args[0]), b = eval(*e.args[1]);
        if (!a || !b) return std::nullopt;
        return applyBinary(e.binOp, *a, *b, e.type.scalar);
      }
      case Expr::Select: {
        auto c = eval(*e.args[0]);
        if (!c) return std::nullopt;
        return eval(*e.args[*c ? 1 : 2]);
      }
      case Expr::Call: {
        auto a = eval(*e.args[0]);
        if (!a) return std::nullopt;
        if (e.fn == ir::MathFn::Abs) return applyBinary(ir::BinOp::Mul, *a, *a < 0 ? -1 : 1, e.type.scalar);
        if (e.args.size() != 2) return std::nullopt;
        auto b = eval(*e.args[1]);
        if (!b) return std::nullopt;
        if (e.fn == ir::MathFn::Min) return std::min(*a, *b);
        if (e.fn == ir::MathFn::Max) return std::max(*a, *b);
        return std::nullopt;
      }
      case Expr::Cast: {
        auto a = eval(*e.args[0]);
        if (!a) return std::nullopt;
        return wrapTo(*a, e.type.scalar);
      }
      default: return std::nullopt;
    }
  }

  const ir::Body& body_;
  int carried_;
  const std::map<std::array<int, 2>, int>& tap_;
  const std::vector<long long>* taps_ = nullptr;
  std::vector<long long> lets_;
};

constexpr size_t kMostValues = 64;

// The values the stages of `p` can hold, where there are few of them
// (nullopt: too many, or not known).
class ValueSets {
 public:
  explicit ValueSets(const ir::Pipeline& p) : p_(p) {}
  using Set = std::optional<std::set<long long>>;

  Set ofStage(int id) {
    auto it = stages_.find(id);
    if (it != stages_.end()) return it->second;
    stages_[id] = std::nullopt;  // a cycle cannot happen; this bounds the recursion anyway
    const ir::Stage& s = p_.stages[static_cast<size_t>(id)];
    Set r;
    if (s.kind == ir::Stage::Computed && isInteger(s.type)) {
      r = std::set<long long>{0};  // points no piece computes
      for (const auto& pc : s.pieces) {
        std::vector<Set> lets;
        for (const auto& l : pc.body.lets) lets.push_back(of(*l.value, lets));
        r = unite(r, of(*pc.body.result, lets));
      }
    }
    return stages_[id] = r;
  }

 private:
  static Set unite(const Set& a, const Set& b) {
    if (!a || !b) return std::nullopt;
    std::set<long long> u = *a;
    u.insert(b->begin(), b->end());
    if (u.size() > kMostValues) return std::nullopt;
    return u;
  }
  Set of(const Expr& e, const std::vector<Set>& lets) {
    using ir::BinOp;
    if (e.kind == Expr::Binary && e.binOp >= BinOp::Lt) return std::set<long long>{0, 1};  // comparisons, && ||
    if (e.kind == Expr::Unary && e.unOp == ir::UnOp::Not) return std::set<long long>{0, 1};
    if (!isInteger(e.type)) return std::nullopt;
    switch (e.kind) {
      case Expr::Const: return std::set<long long>{e.intValue};
      case Expr::Local: return lets[static_cast<size_t>(e.local)];
      case Expr::ImageRead: {
        Set r = e.field < 0 ? ofStage(e.producer) : std::nullopt;
        if (e.mode == BoundaryMode::Constant) r = unite(r, std::set<long long>{wrapTo((long long)e.constant, e.type.scalar)});
        return r;
      }
      case Expr::Select: return unite(of(*e.args[1], lets), of(*e.args[2], lets));
      case Expr::Cast: {
        Set a = of(*e.args[0], lets);
        if (!a) return std::nullopt;
        std::set<long long> r;
        for (long long v : *a) r.insert(wrapTo(v, e.type.scalar));
        return r;
      }
      case Expr::Binary:
      case Expr::Call: {
        if (e.args.size() != 2) return std::nullopt;
        Set a = of(*e.args[0], lets), b = of(*e.args[1], lets);
        if (!a || !b || a->size() * b->size() > 4096) return std::nullopt;
        std::set<long long> r;
        for (long long x : *a)
          for (long long y : *b) {
            std::optional<long long> v;
            if (e.kind == Expr::Binary) v = applyBinary(e.binOp, x, y, e.type.scalar);
            else if (e.fn == ir::MathFn::Min) v = std::min(x, y);
            else if (e.fn == ir::MathFn::Max) v = std::max(x, y);
            if (!v) return std::nullopt;
            r.insert(*v);
          }
        if (r.size() > kMostValues) return std::nullopt;
        return r;
      }
      default: return std::nullopt;
    }
  }

  const ir::Pipeline& p_;
  std::map<int, Set> stages_;
};

// Whether f (the body) is monotone on every tuple of values from the values
// X can hold, closed under f. Fills `why`, and `stable` with the values v for
// which f gives v on every tuple whose centre (tap 0, 0) holds v.
bool monotoneByEnumeration(const ir::Body& b, int carried, const std::vector<std::array<int, 2>>& taps,
                           std::set<long long> values, std::string* why, std::vector<long long>* stable) {
  std::map<std::array<int, 2>, int> index;
  for (size_t k = 0; k < taps.size(); ++k) index[taps[k]] = static_cast<int>(k);
  Interpreter f(b, carried, index);
  const size_t T = taps.size();
  auto tuples = [&](size_t n) {
    double c = std::pow(static_cast<double>(n), static_cast<double>(T));
    return c * static_cast<double>(T * n) <= double(1 << 24);
  };
  // Visits every tuple of `vs`; stops when `visit` returns false.
  auto each = [&](const std::vector<long long>& vs, auto&& visit) {
    std::vector<size_t> at(T, 0);
    std::vector<long long> t(T, vs[0]);
    for (;;) {
      if (!visit(t, at)) return false;
      size_t k = 0;
      while (k < T && ++at[k] == vs.size()) at[k] = 0, t[k] = vs[0], ++k;
      if (k == T) return true;
      t[k] = vs[at[k]];
    }
  };
  for (;;) {  // close the values under f
    if (!tuples(values.size())) {
      *why = "its body reads only X<i-1>, but X can hold too many values to try each";
      return false;
    }
    std::vector<long long> vs(values.begin(), values.end());
    std::set<long long> more = values;
    bool defined = each(vs, [&](const std::vector<long long>& t, const std::vector<size_t>&) {
      auto v = f.run(t);
      if (v) more.insert(*v);
      return v.has_value();
    });
    if (!defined) {
      *why = "its body is not defined (overflow, division by zero) on some values X can hold";
      return false;
    }
    if (more.size() == values.size()) break;
    values = more;
  }
  std::vector<long long> vs(values.begin(), values.end());
  // The centre's values that f changes on some tuple: the others are stable.
  auto centre = index.find({0, 0});
  std::set<long long> moves;
  bool monotone = each(vs, [&](std::vector<long long> t, const std::vector<size_t>& at) {
    const long long base = *f.run(t);
    if (centre != index.end() && base != t[static_cast<size_t>(centre->second)])
      moves.insert(t[static_cast<size_t>(centre->second)]);
    for (size_t k = 0; k < T; ++k) {
      const long long keep = t[k];
      for (size_t w = at[k] + 1; w < vs.size(); ++w) {
        t[k] = vs[w];
        if (*f.run(t) < base) return false;
      }
      t[k] = keep;
    }
    return true;
  });
  if (monotone && centre != index.end())
    for (long long v : vs)
      if (!moves.count(v)) stable->push_back(v);
  std::string list;
  for (long long v : vs) list += (list.empty() ? "" : ", ") + std::to_string(v);
  *why = monotone ? "monotone: tried on every combination of the values X can hold {" + list + "}"
                  : "its body is not monotone in X<i-1> on the values X can hold {" + list + "}";
  return monotone;
}

}  // namespace

LocalFixpoint analyseLocalFixpoint(const ir::Pipeline& outer, const ir::Stage& first) {
  LocalFixpoint r;
  const ir::Loop& loop = *first.loop;
  const ir::Pipeline& body = *loop.body;
  auto no = [&](const std::string& why) {
    r.why = why;
    return r;
  };
  if (loop.carried.size() != 1) return no("it carries several images");
  r.carried = loop.carried[0].inner;
  r.next = loop.next[0];
  const ir::Stage& x = body.stages[static_cast<size_t>(r.carried)];
  const ir::Stage& next = body.stages[static_cast<size_t>(r.next)];
  if (x.rank() != 2 || !isInteger(x.type)) return no("its image is not a 2-D image of an integer type");
  if (next.kind != ir::Stage::Computed || next.pieces.size() != 1 || next.type != x.type ||
      !wholeImage(next.pieces[0], next.extent, static_cast<int>(body.params.size())))
    return no("X<i> is not one piece over the whole image");

  // The condition: any(X<i> != X<i-1>), maybe through a stage computing the test.
  const ir::Stage& cond = body.stages[static_cast<size_t>(loop.condition)];
  if (cond.kind != ir::Stage::Reduce || cond.reduction.op != ir::ReduceOp::Any || cond.reduction.dim != -1 ||
      !wholeImage(cond.reduction.input, next.extent, static_cast<int>(body.params.size())))
    return no("its condition is not any() of the whole image");
  int test = -1;
  const Expr& c = *cond.reduction.input.body.result;
  if (!isChangeTest(c, r.next, r.carried)) {
    const Expr& read = stripWidening(c);
    if (read.kind == Expr::ImageRead && readsAtCentre(read, read.producer)) {
      const ir::Stage& t = body.stages[static_cast<size_t>(read.producer)];
      if (t.kind == ir::Stage::Computed && t.pieces.size() == 1 &&
          wholeImage(t.pieces[0], t.extent, static_cast<int>(body.params.size())) &&
          isChangeTest(*t.pieces[0].body.result, r.next, r.carried))
        test = t.id;
    }
    if (test < 0) return no("its condition is not any(X<i> != X<i-1>)");
  }
  std::set<int> others = {cond.id};
  if (test >= 0) others.insert(test);
  std::string why;
  if (!flattenStep(body, r.next, others, &r.body, &why)) return no(why);

  // The taps of X<i-1>.
  std::set<std::array<int, 2>> taps;
  bool bad = false, modeSet = false;
  ir::forEachExpr(r.body, [&](const Expr& e) {
    if ((e.kind != Expr::ImageRead && e.kind != Expr::IndexRead) || e.producer != r.carried) return;
    if (e.kind == Expr::IndexRead || e.field >= 0 || !e.origin.empty() || e.firstDim != 0) return void(bad = true);
    std::array<int, 2> o{};
    for (int d = 0; d < 2; ++d) {
      if (e.axes[static_cast<size_t>(d)].scale != 1) return void(bad = true);
      o[static_cast<size_t>(d)] = e.axes[static_cast<size_t>(d)].offset;
      r.radius = std::max(r.radius, std::abs(o[static_cast<size_t>(d)]));
    }
    taps.insert(o);
    if (o == std::array<int, 2>{0, 0}) return;
    if (e.mode == BoundaryMode::Wrap || e.mode == BoundaryMode::None) return void(bad = true);
    if (modeSet && (e.mode != r.mode || e.constant != r.constant)) return void(bad = true);
    r.mode = e.mode;
    r.constant = e.constant;
    modeSet = true;
  });
  if (bad) return no("it reads X<i-1> other than at constant offsets with one of constant, clamped, extend, mirror");
  if (r.radius > 8) return no("it reads X<i-1> more than 8 points away");
  if (taps.empty()) return no("its body does not read X<i-1>: round 2 changes nothing, there is nothing to settle");
  r.taps.assign(taps.begin(), taps.end());

  Polarity polarity(r.body, r.carried);
  const Pol pol = polarity.result();
  r.selective = polarity.selective();
  const std::string picks = r.selective ? "; it picks each value among its inputs: the rounds needed are at most "
                                          "the points it changes" : "";
  if (pol == Pol::Inc || pol == Pol::Const) {
    r.ok = true;
    r.why = "monotone: its body is built from operations that keep the order of X<i-1> (polarity analysis)" + picks;
    return r;
  }
  bool closed = true;
  ir::forEachExpr(r.body, [&](const Expr& e) {
    if ((e.kind == Expr::ImageRead || e.kind == Expr::IndexRead) && e.producer != r.carried) closed = false;
    if (e.kind == Expr::ScalarIn) closed = false;
  });
  if (!closed) return no("the polarity analysis cannot show its body monotone, and it reads more than X<i-1>");
  ValueSets sets(outer);
  auto start = sets.ofStage(loop.carried[0].outer);
  if (!start) return no("the polarity analysis cannot show its body monotone, and X<0> can hold too many values");
  if (modeSet && r.mode == BoundaryMode::Constant) start->insert(wrapTo((long long)r.constant, x.type.scalar));
  r.ok = monotoneByEnumeration(r.body, r.carried, r.taps, *start, &r.why, &r.stable);
  if (r.ok) r.why += picks;
  return r;
}

}  // namespace formac::passes
