#include "ir/Size.h"

#include <algorithm>
#include <climits>

#include "support/Diagnostics.h"

namespace formac::ir {
namespace {

// Size arithmetic on 64-bit integers. A size that does not fit is the
// program's fault (`[2147483647*2147483647*2147483647]`), reported as a user
// error without a location; sema gives it the statement's.
[[noreturn]] void overflow() {
  throw UserError("an image size does not fit in a 64-bit integer");
}
long long add(long long a, long long b) {
  long long r;
  if (__builtin_add_overflow(a, b, &r)) overflow();
  return r;
}
long long sub(long long a, long long b) {
  long long r;
  if (__builtin_sub_overflow(a, b, &r)) overflow();
  return r;
}
long long mul(long long a, long long b) {
  long long r;
  if (__builtin_mul_overflow(a, b, &r)) overflow();
  return r;
}

Size make(SizeNode::Kind k, Size a, Size b, long long v = 0) {
  auto n = std::make_shared<SizeNode>();
  n->kind = k;
  n->lhs = std::move(a);
  n->rhs = std::move(b);
  n->value = v;
  return n;
}

long long checkedFloorDiv(long long a, long long b) {
  if (b == 0 || (b == -1 && a == LLONG_MIN)) overflow();
  return floorDiv(a, b);
}

int precedence(SizeNode::Kind k) {
  switch (k) {
    case SizeNode::Add: case SizeNode::Sub: return 1;
    case SizeNode::Mul: case SizeNode::Div: return 2;
    default: return 3;
  }
}

}  // namespace

long long floorDiv(long long a, long long b) {
  long long q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

Size sizeConst(long long v) {
  auto n = std::make_shared<SizeNode>();
  n->kind = SizeNode::Const;
  n->value = v;
  return n;
}

Size sizeParam(int index) {
  auto n = std::make_shared<SizeNode>();
  n->kind = SizeNode::Param;
  n->param = index;
  return n;
}

bool isConst(const Size& s, long long* value) {
  if (s->kind != SizeNode::Const) return false;
  if (value) *value = s->value;
  return true;
}

Size sizeAdd(Size a, Size b) {
  long long x, y;
  if (isConst(a, &x) && isConst(b, &y)) return sizeConst(add(x, y));
  if (isConst(b, &y) && y == 0) return a;
  if (isConst(a, &x) && x == 0) return b;
  if (isConst(b, &y) && y < 0) return make(SizeNode::Sub, a, sizeConst(sub(0, y)));
  // (x - c1) + c2 folds the constants
  if (isConst(b, &y) && a->kind == SizeNode::Sub && isConst(a->rhs, &x))
    return sizeAdd(a->lhs, sizeConst(sub(y, x)));
  if (isConst(b, &y) && a->kind == SizeNode::Add && isConst(a->rhs, &x))
    return sizeAdd(a->lhs, sizeConst(add(x, y)));
  return make(SizeNode::Add, a, b);
}

Size sizeSub(Size a, Size b) {
  long long x, y;
  if (isConst(a, &x) && isConst(b, &y)) return sizeConst(sub(x, y));
  if (isConst(b, &y)) return sizeAdd(a, sizeConst(sub(0, y)));
  return make(SizeNode::Sub, a, b);
}

Size sizeMul(Size a, Size b) {
  long long x, y;
  if (isConst(a, &x) && isConst(b, &y)) return sizeConst(mul(x, y));
  if (isConst(b, &y) && y == 1) return a;
  if (isConst(a, &x) && x == 1) return b;
  return make(SizeNode::Mul, a, b);
}

Size sizeDiv(Size a, long long d) {
  long long x;
  if (d == 1) return a;
  if (isConst(a, &x)) return sizeConst(checkedFloorDiv(x, d));
  return make(SizeNode::Div, a, sizeConst(d));
}

// Structural equality: the same tree (what max/min of equal sizes folds).
static bool sameTree(const Size& a, const Size& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->value != b->value || a->param != b->param) return false;
  return (a->lhs == nullptr) == (b->lhs == nullptr) && (!a->lhs || sameTree(a->lhs, b->lhs)) &&
         (a->rhs == nullptr) == (b->rhs == nullptr) && (!a->rhs || sameTree(a->rhs, b->rhs));
}

Size sizeMax(Size a, Size b) {
  long long x, y;
  if (isConst(a, &x) && isConst(b, &y)) return sizeConst(std::max(x, y));
  if (sameTree(a, b)) return a;
  return make(SizeNode::Max, a, b);
}

Size sizeMin(Size a, Size b) {
  long long x, y;
  if (isConst(a, &x) && isConst(b, &y)) return sizeConst(std::min(x, y));
  if (sameTree(a, b)) return a;
  return make(SizeNode::Min, a, b);
}

long long evalSize(const Size& s, const std::vector<long long>& params) {
  switch (s->kind) {
    case SizeNode::Const: return s->value;
    case SizeNode::Param: return params.at(static_cast<size_t>(s->param));
    case SizeNode::Add: return add(evalSize(s->lhs, params), evalSize(s->rhs, params));
    case SizeNode::Sub: return sub(evalSize(s->lhs, params), evalSize(s->rhs, params));
    case SizeNode::Mul: return mul(evalSize(s->lhs, params), evalSize(s->rhs, params));
    case SizeNode::Div: return checkedFloorDiv(evalSize(s->lhs, params), evalSize(s->rhs, params));
    case SizeNode::Max: return std::max(evalSize(s->lhs, params), evalSize(s->rhs, params));
    case SizeNode::Min: return std::min(evalSize(s->lhs, params), evalSize(s->rhs, params));
  }
  return 0;
}

std::string printSize(const Size& s, const std::vector<std::string>& names) {
  auto sub = [&](const Size& c, bool rightOfNonCommutative) {
    std::string t = printSize(c, names);
    int pc = precedence(c->kind), ps = precedence(s->kind);
    if (pc < ps || (rightOfNonCommutative && pc == ps)) return "(" + t + ")";
    return t;
  };
  switch (s->kind) {
    case SizeNode::Const: return std::to_string(s->value);
    case SizeNode::Param: return names.at(static_cast<size_t>(s->param));
    case SizeNode::Add: return sub(s->lhs, false) + " + " + sub(s->rhs, false);
    case SizeNode::Sub: return sub(s->lhs, false) + " - " + sub(s->rhs, true);
    case SizeNode::Mul: return sub(s->lhs, false) + " * " + sub(s->rhs, false);
    case SizeNode::Div: return sub(s->lhs, false) + " / " + sub(s->rhs, true);
    case SizeNode::Max:
      return "FORMAC_MAX(" + printSize(s->lhs, names) + ", " + printSize(s->rhs, names) + ")";
    case SizeNode::Min:
      return "FORMAC_MIN(" + printSize(s->lhs, names) + ", " + printSize(s->rhs, names) + ")";
  }
  return "?";
}

// Sizes are small integer polynomials with floor division; agreeing on a
// spread of parameter values (including non-multiples of small divisors) is
// taken as agreeing everywhere.
bool constantDifference(const Size& a, const Size& b, int paramCount, long long* difference) {
  static const long long samples[] = {1, 2, 3, 5, 7, 13, 64, 97, 1000, 1023, 4099};
  long long first = 0;
  std::vector<long long> p(static_cast<size_t>(paramCount));
  for (int trial = 0; trial < 11; ++trial) {
    for (int i = 0; i < paramCount; ++i) p[static_cast<size_t>(i)] = samples[(trial + 3 * i) % 11];
    long long d;
    if (__builtin_sub_overflow(evalSize(b, p), evalSize(a, p), &d)) return false;
    if (trial == 0) first = d;
    if (d != first) return false;
  }
  if (difference) *difference = first;
  return true;
}

bool sameSize(const Size& a, const Size& b, int paramCount) {
  if (sameTree(a, b)) return true;
  long long d;
  return constantDifference(a, b, paramCount, &d) && d == 0;
}

}  // namespace formac::ir
