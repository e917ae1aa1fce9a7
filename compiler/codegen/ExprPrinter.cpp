#include "codegen/ExprPrinter.h"

#include "codegen/ExprForms.h"

#include <cmath>
#include <cstdio>

namespace formac::codegen {
namespace {

using ir::BinOp;
using ir::Expr;
using ir::MathFn;

std::string suffixFor(ScalarKind k) {
  switch (k) {
    case ScalarKind::Float: return "f";
    case ScalarKind::Double: return "d";
    case ScalarKind::Int64: return "l";
    default: return "i";
  }
}

std::string mathCall(const Expr& e, const std::vector<std::string>& a, bool cuda) {
  ScalarKind k = e.type.scalar;
  bool f = k == ScalarKind::Float;
  auto libm = [&](const char* name) { return std::string(name) + (f ? "f" : "") + "(" + a[0] + ")"; };
  switch (e.fn) {
    case MathFn::Sqrt:
      if (cuda) return std::string(f ? "__fsqrt_rn(" : "__dsqrt_rn(") + a[0] + ")";
      return libm("sqrt");
    case MathFn::Exp: return libm("exp");
    case MathFn::Log: return libm("log");
    case MathFn::Sin: return libm("sin");
    case MathFn::Cos: return libm("cos");
    case MathFn::Tan: return libm("tan");
    case MathFn::Atan: return libm("atan");
    case MathFn::Floor: return libm("floor");
    case MathFn::Ceil: return libm("ceil");
    case MathFn::Round: return libm("round");
    case MathFn::Pow:
      if (cuda) return std::string(f ? "formac_pow_f(" : "formac_pow_d(") + a[0] + ", " + a[1] + ")";
      return std::string(f ? "powf(" : "pow(") + a[0] + ", " + a[1] + ")";
    case MathFn::Atan2: return std::string(f ? "atan2f(" : "atan2(") + a[0] + ", " + a[1] + ")";
    case MathFn::Fabs:
    case MathFn::Abs:
      if (isFloating(k)) return libm("fabs");
      return "formac_abs_" + suffixFor(k) + "(" + a[0] + ")";
    case MathFn::Absd: return "formac_absd_" + suffixFor(k) + "(" + a[0] + ", " + a[1] + ")";
    case MathFn::Min: return "formac_min_" + suffixFor(k) + "(" + a[0] + ", " + a[1] + ")";
    case MathFn::Max: return "formac_max_" + suffixFor(k) + "(" + a[0] + ", " + a[1] + ")";
  }
  return "?";
}

// The narrow integer type whose value `a` holds, converted to int: a Cast to
// int of an 8- or 16-bit value, or a let holding one (common subexpressions
// are bound to lets); Int otherwise.
ScalarKind narrowOperand(const Expr& a, const ExprContext& ctx) {
  const Expr* v = &a;
  if (a.kind == Expr::Local && a.local >= 0 && static_cast<size_t>(a.local) < ctx.letValues.size() &&
      ctx.letValues[static_cast<size_t>(a.local)])
    v = ctx.letValues[static_cast<size_t>(a.local)];
  if (v->kind != Expr::Cast || v->type.isStruct() || v->type.scalar != ScalarKind::Int || v->args[0]->type.isStruct())
    return ScalarKind::Int;
  const ScalarKind k = v->args[0]->type.scalar;
  return k == ScalarKind::Int8 || k == ScalarKind::Uint16 || k == ScalarKind::Int16 ? k : ScalarKind::Int;
}

// The suffix of the narrow helper computing min or max call `e` when both
// its arguments hold values of one narrow integer type (narrowOperand), else
// null.
const char* narrowMinMax(const Expr& e, const ExprContext& ctx) {
  if ((e.fn != MathFn::Min && e.fn != MathFn::Max) || e.type.isStruct() || e.type.scalar != ScalarKind::Int ||
      e.args.size() != 2)
    return nullptr;
  const ScalarKind k = narrowOperand(*e.args[0], ctx);
  if (k == ScalarKind::Int || narrowOperand(*e.args[1], ctx) != k) return nullptr;
  return k == ScalarKind::Int8 ? "uc" : k == ScalarKind::Uint16 ? "us" : "s";
}

// Operand `a` (narrowOperand) as its narrow value.
std::string narrowValue(const Expr& a, const ExprContext& ctx) {
  if (a.kind == Expr::Cast) return printCExpr(*a.args[0], ctx);
  return "(" + std::string(scalarCType(ctx.letValues[static_cast<size_t>(a.local)]->args[0]->type.scalar)) + ")" +
         printCExpr(a, ctx);
}

const char* resolver(ir::BoundaryMode m) {
  switch (m) {
    case ir::BoundaryMode::Clamped:
    case ir::BoundaryMode::Extend: return "formac_clamp";
    case ir::BoundaryMode::Mirror: return "formac_mirror";
    case ir::BoundaryMode::Wrap: return "formac_wrap";
    default: return nullptr;
  }
}

// The index along one dimension of an ImageRead, before boundary resolution.
std::string axisIndex(const Expr& e, size_t d, const ExprContext& ctx) {
  const auto& ax = e.axes[d];
  std::string q = ctx.q.at(static_cast<size_t>(e.firstDim) + d);
  std::string t = ax.scale == 1 ? q : std::to_string(ax.scale) + " * " + q;
  long long off = ax.offset;
  if (d < e.origin.size()) {
    long long c;
    if (ir::isConst(e.origin[d], &c)) off += c;
    else t += " + (" + ir::printSize(e.origin[d], ctx.params) + ")";
  }
  if (off > 0) t += " + " + std::to_string(off);
  if (off < 0) t += " - " + std::to_string(-off);
  return t;
}

std::string linearIndex(const std::vector<std::string>& idx, int producer, const ExprContext& ctx) {
  if (idx.empty()) return "0";  // a scalar of the pipeline (a reduction)
  std::string t = "(" + idx[0] + ")";
  for (size_t d = 1; d < idx.size(); ++d)
    t = "(" + t + " * " + ctx.extent(producer, static_cast<int>(d)) + " + (" + idx[d] + "))";
  return t;
}

bool hasSymbolicOrigin(const Expr& e) {
  for (const auto& o : e.origin)
    if (!ir::isConst(o)) return true;
  return false;
}

std::string inRange(const std::vector<std::string>& idx, int producer, const ExprContext& ctx) {
  std::string t;
  for (size_t d = 0; d < idx.size(); ++d)
    t += (d ? " && " : "") + std::string("formac_in_range(") + idx[d] + ", " +
         ctx.extent(producer, static_cast<int>(d)) + ")";
  return t;
}

std::string fieldSuffix(const Expr& e, const ExprContext& ctx) {
  if (e.field < 0) return "";
  const auto& st = *ctx.pipeline->stages[static_cast<size_t>(e.producer)].type.structType;
  return "." + st.fields[static_cast<size_t>(e.field)].name;
}

// The value a Constant-mode read yields outside, of the read's type.
std::string structValue(const Type& t, const std::vector<std::string>& fields, bool cuda) {
  std::string s = cuda ? "formac_make_" + t.structType->name + "(" : "((" + cType(t) + "){";
  for (size_t i = 0; i < fields.size(); ++i) s += (i ? ", " : "") + fields[i];
  return s + (cuda ? ")" : "})");
}

// The constant converted to `k` as the evaluator does it, as a C literal: an
// integer type gets the converted integer (truncated toward zero; sema has
// checked that it fits, LANGUAGE.md §7), an int64 a long long literal.
std::string constantOfKind(double c, ScalarKind k) {
  if (k == ScalarKind::Int64) {
    Expr lit;
    lit.kind = Expr::Const;
    lit.type = Type::of(k);
    lit.intValue = floatingToInteger(c, k);
    return cLiteral(lit);
  }
  char buf[64];
  if (isFloating(k)) {
    std::snprintf(buf, sizeof buf, "%.17g", c);
  } else {
    std::snprintf(buf, sizeof buf, "%lld", floatingToInteger(c, k));
  }
  return "(" + std::string(scalarCType(k)) + ")(" + buf + ")";
}

std::string constantValue(const Expr& e, bool cuda) {
  if (!e.type.isStruct()) return constantOfKind(e.constant, e.type.scalar);
  std::vector<std::string> fields;
  for (const auto& f : e.type.structType->fields) fields.push_back(constantOfKind(e.constant, f.type));
  return structValue(e.type, fields, cuda);
}

// 0 of type `t` (every field 0 for a struct), as a C expression.
std::string zeroValue(const Type& t, bool cuda) {
  if (!t.isStruct()) return "(" + cType(t) + ")0";
  return structValue(t, std::vector<std::string>(t.structType->fields.size(), "0"), cuda);
}

std::string access(const Expr& e, const std::vector<std::string>& idx, const std::string& field,
                   const ExprContext& ctx) {
  // A scalar of the pipeline (a reduction) is read from its buffer wherever
  // the reader's tiles come from.
  if (ctx.access && !idx.empty()) return ctx.access(e.producer, idx) + field;
  return ctx.buffer(e.producer) + "[" + linearIndex(idx, e.producer, ctx) + "]" + field;
}

std::string printRead(const Expr& e, const ExprContext& ctx) {
  if (ctx.preloaded) {
    std::string v = ctx.preloaded(e);
    if (!v.empty()) return v + fieldSuffix(e, ctx);
  }
  std::vector<std::string> idx;
  if (e.kind == Expr::IndexRead) {
    for (const auto& a : e.args) idx.push_back(printCExpr(*a, ctx));
  } else {
    for (size_t d = 0; d < e.axes.size(); ++d) idx.push_back(axisIndex(e, d, ctx));
  }
  std::string field = fieldSuffix(e, ctx);
  const char* fix = resolver(e.mode);
  bool dynamic = e.kind == Expr::IndexRead || hasSymbolicOrigin(e);
  const bool checked = ctx.checked && !(ctx.resolved && ctx.resolved(e.producer));
  if (fix && (checked || dynamic)) {
    for (size_t d = 0; d < idx.size(); ++d)
      idx[d] = std::string(fix) + "(" + idx[d] + ", " + ctx.extent(e.producer, static_cast<int>(d)) + ")";
    if (e.kind != Expr::IndexRead) return access(e, idx, field, ctx);
    // A directly indexed image may be empty where the reading stage is not
    // (it does not count for the extent): nothing to resolve to, the read
    // gives 0 (the evaluator's resolveIndex), and the helpers must not
    // divide by its extent.
    std::string nonEmpty;
    for (size_t d = 0; d < idx.size(); ++d)
      nonEmpty += (d ? " && " : "") + ctx.extent(e.producer, static_cast<int>(d)) + " > 0";
    return "(" + nonEmpty + " ? " + access(e, idx, field, ctx) + " : " + zeroValue(e.type, ctx.cuda) + ")";
  }
  bool guard = (e.mode == ir::BoundaryMode::Constant && (checked || dynamic)) ||
               (e.mode == ir::BoundaryMode::None && dynamic);
  if (guard) {
    std::string outside = e.mode == ir::BoundaryMode::Constant ? constantValue(e, ctx.cuda) : zeroValue(e.type, ctx.cuda);
    // The ?: evaluates the read only when its index is in range.
    return "(" + inRange(idx, e.producer, ctx) + " ? " + access(e, idx, field, ctx) + " : " +
           outside + ")";
  }
  return access(e, idx, field, ctx);
}

bool isComparison(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Gt || op == BinOp::Le || op == BinOp::Ge ||
         op == BinOp::Eq || op == BinOp::Ne;
}

// Integer +, -, * and negation: they wrap, as in the evaluator, through
// unsigned arithmetic (helperPrelude's formac_add_i, formac_add_l & co.):
// signed overflow is undefined in C and CUDA, clang has no pragma for -fwrapv
// and nvcc no flag, and both fold `x + 2147483647 > x` to true.
bool wraps(const Expr& e) {
  return !e.type.isStruct() && (e.type.scalar == ScalarKind::Int || e.type.scalar == ScalarKind::Int64);
}

bool isPositiveZero(const Expr& e) {
  return e.kind == Expr::Const && isFloating(e.type.scalar) && e.floatValue == 0.0 && !std::signbit(e.floatValue);
}

// Whether C sees `e` as a truth value (a comparison, && || or !), under
// any casts, which gcc looks through.
bool isTruthValue(const Expr& e) {
  const Expr* x = &e;
  while (x->kind == Expr::Cast && !x->args.empty()) x = x->args[0].get();
  if (x->kind == Expr::Unary) return x->unOp == ir::UnOp::Not;
  return x->kind == Expr::Binary &&
         (isComparison(x->binOp) || x->binOp == BinOp::And || x->binOp == BinOp::Or);
}

// `e` where C takes a condition (?:, && || !): compared with 0 unless it is
// a truth value already; gcc warns about `a * b`, or `c ? 1 : 2`, there
// (-Wint-in-bool-context). The value is the same.
std::string condition(const Expr& e, const ExprContext& ctx) {
  std::string t = printCExpr(e, ctx);
  return isTruthValue(e) ? t : "(" + t + " != 0)";
}

// Whether `e` is a conversion of, or through, an int8, int16 or uint16 value
// (C promotes them, and gcc knows the range): `cast<int16>(x)` compared too.
bool isNarrowInteger(const Expr& e) {
  for (const Expr* x = &e; x->kind == Expr::Cast && !x->args.empty();) {
    x = x->args[0].get();
    if (!x->type.isStruct() && promote(x->type.scalar) == ScalarKind::Int && x->type.scalar != ScalarKind::Int)
      return true;
  }
  return false;
}

// The identity of `e`'s integer type, which hides from gcc and clang what they
// know about `t`: formac_int, or formac_int64 for an int64.
std::string opaque(const Expr& e, const std::string& t) {
  return (e.type.scalar == ScalarKind::Int64 ? "formac_int64(" : "formac_int(") + t + ")";
}

// An operand of a comparison: a truth value or a promoted int8 / int16 /
// uint16 goes through formac_int, or gcc warns that `(a || b) <= 2` or
// `(int)uchar <= 255` is always true (-Wbool-compare, -Wtype-limits), as
// it is. The value is the same.
std::string compared(const Expr& e, const ExprContext& ctx) {
  std::string t = printCExpr(e, ctx);
  return isTruthValue(e) || isNarrowInteger(e) ? opaque(e, t) : t;
}

}  // namespace

std::string cIdentifier(const std::string& name) {
  std::string out;
  for (char c : name) out += (isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  return out;
}

std::string cType(const Type& t) { return t.cName(); }

std::string cLiteral(const Expr& e) {
  if (e.type.scalar == ScalarKind::Int64) {
    // long long literals (3000000000 alone is a long, not a long long);
    // -9223372036854775808 is the negation of a literal too large for one.
    if (e.intValue == INT64_MIN) return "(-9223372036854775807LL - 1)";
    std::string v = std::to_string(e.intValue) + "LL";
    return e.intValue < 0 ? "(" + v + ")" : v;
  }
  if (!isFloating(e.type.scalar)) {
    // -2147483648 would be a long in C (the negation of 2147483648).
    if (e.intValue == -2147483647LL - 1) return "(-2147483647 - 1)";
    std::string v = std::to_string(e.intValue);
    if (e.type.scalar != ScalarKind::Int) v = "(" + cType(e.type) + ")" + v;
    return e.intValue < 0 ? "(" + v + ")" : v;
  }
  // Folded constants (eval::foldConstants) may be infinite or x86's NaN.
  std::string ty = e.type.scalar == ScalarKind::Float ? "" : "(double)";
  if (std::isnan(e.floatValue)) return std::string(std::signbit(e.floatValue) ? "(-" : "(") + ty + "NAN)";
  if (std::isinf(e.floatValue)) return std::string(e.floatValue < 0 ? "(-" : "(") + ty + "INFINITY)";
  char buf[64];
  if (e.type.scalar == ScalarKind::Float)
    std::snprintf(buf, sizeof buf, "%.9g", e.floatValue);
  else
    std::snprintf(buf, sizeof buf, "%.17g", e.floatValue);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (e.type.scalar == ScalarKind::Float) s += "f";
  return e.floatValue < 0 || std::signbit(e.floatValue) ? "(" + s + ")" : s;
}

namespace {

// Prints into one string, children in place: a deep expression (a sum of
// 200,000 terms) costs time linear in its text, where returning each
// child's text and concatenating copies it once per level above.
class CExprPrinter {
 public:
  CExprPrinter(const ExprContext& ctx, std::string& out) : ctx_(ctx), out_(out) {}

  void print(const Expr& e) {
    switch (e.kind) {
      case Expr::Const: out_ += cLiteral(e); return;
      case Expr::ImageRead:
      case Expr::IndexRead: out_ += printRead(e, ctx_); return;
      case Expr::ScalarIn: out_ += ctx_.scalar(e.scalar); return;
      case Expr::Local: out_ += ctx_.lets.at(static_cast<size_t>(e.local)); return;
      case Expr::Unary:
        if (e.unOp == ir::UnOp::Not) return text("(!", condition(*e.args[0], ctx_), ")");
        return call(wraps(e) ? "formac_neg_" + suffixFor(e.type.scalar) + "(" : "(-", e, ")");
      case Expr::Binary: return binary(e);
      case Expr::Select:
        if (!ctx_.cuda && truthValued(e) && !hasSelect(*e.args[0]) && !sameConstant(*e.args[1], *e.args[2])) {
          // C: a choice between truth values as bitwise operations, which
          // vectorizers take where gcc 12 leaves a ?: of two comparisons
          // scalar (canny_opencv's direction tests). The same 0 or 1.
          return truthChoice(e);
        }
        out_ += "(" + condition(*e.args[0], ctx_) + " ? ";
        return call("", e, " : ", ")", 1);
      case Expr::Call: {
        const char* narrow = ctx_.cuda ? nullptr : narrowMinMax(e, ctx_);
        if (narrow) {
          // min and max of two values of one narrow type promoted to int: the
          // narrow type's own (the same value, promoted), which gcc vectorizes
          // as byte or halfword operations instead of widening each value to
          // 32 bits (opening8's 3x3 erosion: 4x fewer lanes an instruction).
          out_ += std::string("((int)formac_") + (e.fn == MathFn::Min ? "min_" : "max_") + narrow + "(" +
                  narrowValue(*e.args[0], ctx_) + ", " + narrowValue(*e.args[1], ctx_) + "))";
          return;
        }
        std::vector<std::string> a;
        for (const auto& x : e.args) a.push_back(printCExpr(*x, ctx_));
        out_ += mathCall(e, a, ctx_.cuda);
        return;
      }
      case Expr::Cast:
        // Floating -> integer as the evaluator does it, x86's conversion
        // (ir/Types.h floatingToInteger): C leaves values outside the target
        // type undefined, and gcc folds constants (-2.0 to unsigned char is 0
        // folded, 254 at run time); CUDA's own conversion saturates. The
        // helpers (helperPrelude) go through int, from
        // which the narrowing keeps the low bits.
        if (!e.type.isStruct() && !isFloating(e.type.scalar) && isFloating(e.args[0]->type.scalar)) {
          if (e.type.scalar == ScalarKind::Int64) return call("formac_ftoi_l(", e, ")");
          bool f = !ctx_.cuda && e.args[0]->type.scalar == ScalarKind::Float;
          out_ += "((" + cType(e.type) + ")";
          return call(f ? "formac_ftoi_f(" : "formac_ftoi(", e, "))");
        }
        // C: a float just rounded from a double and widened again goes
        // through formac_widen_rounded, which gcc 12's basic-block vectorizer
        // cannot fold to the double itself (it drops the rounding of
        // (double)(float)x, also through a local; progfuzz s2828000093).
        if (!ctx_.cuda && !e.type.isStruct() && e.type.scalar == ScalarKind::Double && roundedFromDouble(*e.args[0]))
          return call("formac_widen_rounded(", e, ")");
        out_ += "((" + cType(e.type) + ")";
        return call("", e, ")");
      case Expr::Field:
        return call("", e, "." + e.args[0]->type.structType->fields[static_cast<size_t>(e.field)].name);
      case Expr::MakeStruct: {
        std::vector<std::string> fields;
        for (const auto& x : e.args) fields.push_back(printCExpr(*x, ctx_));
        out_ += structValue(e.type, fields, ctx_.cuda);
        return;
      }
    }
    out_ += "?";
  }

 private:
  void text(const std::string& a, const std::string& b, const std::string& c) { out_ += a, out_ += b, out_ += c; }

  // c ? a : b of truth values as (c & a) | (!c & b), written without the
  // terms a constant arm makes trivial: c ? 1 : x is c | x, c ? x : 0 is c & x
  // (c ? 1 : 1 and c ? 0 : 0 keep their ?:, sameConstant).
  void truthChoice(const Expr& e) {
    const std::string c = condition(*e.args[0], ctx_), notC = "(" + c + " == 0)";
    auto constant = [](const Expr& x, long long v) { return x.kind == Expr::Const && x.intValue == v; };
    const Expr &a = *e.args[1], &b = *e.args[2];
    // truth & x; the truth through formac_int, so that clang does not call
    // & or | of two comparisons a mistaken && or || (-Wbitwise-instead-of-logical,
    // when an operand calls a function: a read through a boundary mode).
    auto term = [&](const std::string& truth, const Expr& x) {
      if (constant(x, 1)) return out_ += truth, void();
      out_ += "(formac_int" + truth + " & (";
      print(x);
      out_ += "))";
    };
    if (constant(b, 0)) return term(c, a);
    if (constant(a, 0)) return term(notC, b);
    out_ += "(";
    if (constant(a, 1)) out_ += c;
    else term(c, a);
    out_ += " | ";
    if (constant(b, 1)) out_ += notC;
    else term(notC, b);
    out_ += ")";
  }

  // The value of the let `x` reads, where known (else, or not a local, null).
  const Expr* letValue(const Expr& x) const {
    if (x.kind != Expr::Local || static_cast<size_t>(x.local) >= ctx_.letValues.size()) return nullptr;
    return ctx_.letValues[static_cast<size_t>(x.local)];
  }

  // Whether `x` is an int that is 0 or 1: a truth value, such a local, the
  // constants 0 and 1, or a choice between two such.
  bool truthValued(const Expr& x) const {
    if (x.type.isStruct() || x.type.scalar != ScalarKind::Int) return false;
    if (isTruthValue(x)) return true;
    if (x.kind == Expr::Const) return x.intValue == 0 || x.intValue == 1;
    if (x.kind == Expr::Select) return truthValued(*x.args[1]) && truthValued(*x.args[2]);
    const Expr* v = letValue(x);
    return v && truthValued(*v);
  }
  // Whether a and b are the same constant: c ? 0 : 0 printed as 0 would leave
  // c's lets unread (-Wunused-variable; progfuzz z29l51).
  static bool sameConstant(const Expr& a, const Expr& b) {
    return a.kind == Expr::Const && b.kind == Expr::Const && a.intValue == b.intValue;
  }
  // Whether `x` has a ?: (printed twice, as a condition, it would double at each level).
  static bool hasSelect(const Expr& x) {
    if (x.kind == Expr::Select) return true;
    for (const auto& a : x.args)
      if (hasSelect(*a)) return true;
    return false;
  }

  // Whether `x` is a float rounded from a double: a cast, or a local whose value is one.
  bool roundedFromDouble(const Expr& x) const {
    if (x.type.isStruct() || x.type.scalar != ScalarKind::Float) return false;
    if (x.kind == Expr::Cast)
      return !x.args.empty() && !x.args[0]->type.isStruct() && x.args[0]->type.scalar == ScalarKind::Double;
    const Expr* v = letValue(x);
    return v && roundedFromDouble(*v);
  }

  // open, then the arguments from `first` on separated by `sep`, then close.
  void call(const std::string& open, const Expr& e, const std::string& sep, const std::string& close,
            size_t first = 0) {
    out_ += open;
    for (size_t i = first; i < e.args.size(); ++i) {
      if (i > first) out_ += sep;
      print(*e.args[i]);
    }
    out_ += close;
  }
  void call(const std::string& open, const Expr& e, const std::string& close) { call(open, e, ", ", close); }

  void binary(const Expr& e) {
    bool floating = isFloating(e.type.scalar);
    bool addSub = e.binOp == BinOp::Add || e.binOp == BinOp::Sub;
    if (!floating && (e.binOp == BinOp::Div || e.binOp == BinOp::Mod))
      return call(std::string(e.binOp == BinOp::Div ? "formac_idiv" : "formac_imod") +
                      (e.type.scalar == ScalarKind::Int64 ? "_l(" : "("),
                  e, ")");
    if (ctx_.cuda && floating && addSub) {
      // s + c * x with c * x exact (scaledBoundedRead) rounds once either
      // way: one fma. The right operand first: a running sum's new term.
      for (size_t i : {size_t(1), size_t(0)}) {
        const Expr* c = nullptr;
        const Expr* x = scaledBoundedRead(*e.args[i], ctx_, &c);
        if (!x) continue;
        if (ctx_.boundedFormUsed) *ctx_.boundedFormUsed = true;
        Expr k = *c;
        if (e.binOp == BinOp::Sub && i == 1) k.floatValue = -k.floatValue;  // s - c * x
        bool negated = e.binOp == BinOp::Sub && i == 0;                     // c * x - s
        out_ += std::string(e.type.scalar == ScalarKind::Float ? "__fmaf_rn(" : "__fma_rn(") + cLiteral(k) + ", ";
        print(*x);
        out_ += negated ? ", (-" : ", ";
        print(*e.args[1 - i]);
        out_ += negated ? "))" : ")";
        return;
      }
    }
    if (ctx_.cuda && floating && (e.binOp == BinOp::Mul || e.binOp == BinOp::Div)) {
      bool f = e.type.scalar == ScalarKind::Float;
      // x / 2^k is exactly x * 2^-k (the same real value, so the same
      // rounding): a multiply instead of the division's iteration.
      double recip;
      if (e.binOp == BinOp::Div && exactReciprocal(*e.args[1], f, &recip)) {
        Expr c = *e.args[1];
        c.kind = Expr::Const;
        c.type = e.type;
        c.floatValue = recip;
        out_ += f ? "__fmul_rn(" : "__dmul_rn(";
        print(*e.args[0]);
        return text(", ", cLiteral(c), ")");
      }
      if (const Expr* divisor = e.binOp == BinOp::Div ? oddIntegerDivisor(*e.args[1]) : nullptr) {
        // A finite x: formac_div_odd_finite_f, for c > 0 (x / -c is -(x / c)).
        const bool finite = magnitudeBound(*e.args[0], ctx_) < std::ldexp(1.0, 127);
        if (finite && ctx_.boundedFormUsed) *ctx_.boundedFormUsed = true;
        Expr c = *divisor, r = *divisor;
        if (finite) c.floatValue = std::fabs(c.floatValue);
        r.floatValue = 1.0f / static_cast<float>(c.floatValue);  // RN(1/c) in float
        bool negated = finite && divisor->floatValue < 0;
        out_ += negated ? "(-" : "";
        out_ += finite ? "formac_div_odd_finite_f(" : "formac_div_odd_f(";
        print(*e.args[0]);
        return text(", " + cLiteral(c) + ", ", cLiteral(r), negated ? "))" : ")");
      }
      return call(e.binOp == BinOp::Mul ? (f ? "__fmul_rn(" : "__dmul_rn(") : (f ? "__fdiv_rn(" : "__ddiv_rn("),
                  e, ")");
    }
    if (wraps(e) && (addSub || e.binOp == BinOp::Mul))
      return call(std::string(e.binOp == BinOp::Add ? "formac_add_" : e.binOp == BinOp::Sub ? "formac_sub_" : "formac_mul_") +
                      suffixFor(e.type.scalar) + "(",
                  e, ")");
    if (!ctx_.cuda && floating && addSub) {
      // gcc 12 folds 0.0f - (float)i and -(float)i + 0.0f to -(float)i,
      // -0 for i == 0 where IEEE (and the evaluator) give +0, even at -O0:
      // an addition of +0, or +0 minus x, goes through a helper that
      // keeps the zero's sign (Prelude.h's cpuPrelude).
      std::string suf = e.type.scalar == ScalarKind::Float ? "f(" : "d(";
      if (isPositiveZero(*e.args[0])) {
        out_ += (e.binOp == BinOp::Add ? "formac_zadd_" : "formac_zsub_") + suf;
        print(*e.args[1]);
        out_ += ")";
        return;
      }
      if (e.binOp == BinOp::Add && isPositiveZero(*e.args[1])) {
        out_ += "formac_zadd_" + suf;
        print(*e.args[0]);
        out_ += ")";
        return;
      }
    }
    std::string op = std::string(" ") + ir::binOpSpelling(e.binOp) + " ";
    if (e.binOp == BinOp::And || e.binOp == BinOp::Or)
      return text("(" + condition(*e.args[0], ctx_), op, condition(*e.args[1], ctx_) + ")");
    if (isComparison(e.binOp)) {
      std::string a = compared(*e.args[0], ctx_), b = compared(*e.args[1], ctx_);
      // `t != t` of an integer: clang warns that it is always false
      // (-Wtautological-compare), as it is.
      if (a == b && !isFloating(e.args[0]->type.scalar)) a = opaque(*e.args[0], a);
      return text("(" + a, op, b + ")");
    }
    call("(", e, op, ")");
  }

  const ExprContext& ctx_;
  std::string& out_;
};

}  // namespace

std::string printCExpr(const Expr& e, const ExprContext& ctx) {
  std::string out;
  CExprPrinter(ctx, out).print(e);
  return out;
}

}  // namespace formac::codegen
