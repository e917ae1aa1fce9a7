#include "ir/Pipeline.h"

#include <cctype>
#include <functional>
#include <map>
#include <string>

namespace formac::ir {

const char* binOpSpelling(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::Mod: return "%";
    case BinOp::Pow: return "pow";
    case BinOp::Lt: return "<";
    case BinOp::Gt: return ">";
    case BinOp::Le: return "<=";
    case BinOp::Ge: return ">=";
    case BinOp::Eq: return "==";
    case BinOp::Ne: return "!=";
    case BinOp::And: return "&&";
    case BinOp::Or: return "||";
  }
  return "?";
}

const char* mathFnName(MathFn f) {
  switch (f) {
    case MathFn::Sqrt: return "sqrt";
    case MathFn::Exp: return "exp";
    case MathFn::Log: return "log";
    case MathFn::Pow: return "pow";
    case MathFn::Sin: return "sin";
    case MathFn::Cos: return "cos";
    case MathFn::Tan: return "tan";
    case MathFn::Atan: return "atan";
    case MathFn::Atan2: return "atan2";
    case MathFn::Fabs: return "fabs";
    case MathFn::Abs: return "abs";
    case MathFn::Absd: return "absd";
    case MathFn::Min: return "min";
    case MathFn::Max: return "max";
    case MathFn::Floor: return "floor";
    case MathFn::Ceil: return "ceil";
    case MathFn::Round: return "round";
  }
  return "?";
}

const char* reduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
    case ReduceOp::Count: return "count";
    case ReduceOp::Any: return "any";
    case ReduceOp::All: return "all";
    case ReduceOp::Histogram: return "histogram";
    case ReduceOp::Where: return "where";
    case ReduceOp::TopK: return "topk";
  }
  return "?";
}

ScalarKind reduceResultType(ReduceOp op, ScalarKind element) {
  switch (op) {
    case ReduceOp::Sum: return isFloating(element) ? ScalarKind::Double : ScalarKind::Int64;
    case ReduceOp::Min:
    case ReduceOp::Max: return element;
    case ReduceOp::Count:
    case ReduceOp::Histogram:
    case ReduceOp::Where:
    case ReduceOp::TopK: return ScalarKind::Int64;
    case ReduceOp::Any:
    case ReduceOp::All: return ScalarKind::Int;
  }
  return element;
}

void dropUnusedLets(Body& b) {
  std::vector<bool> needed(b.lets.size(), false);
  std::function<void(const Expr&)> mark = [&](const Expr& e) {
    if (e.kind == Expr::Local && !needed[static_cast<size_t>(e.local)]) {
      needed[static_cast<size_t>(e.local)] = true;
      mark(*b.lets[static_cast<size_t>(e.local)].value);
    }
    for (const auto& a : e.args) mark(*a);
  };
  mark(*b.result);
  std::vector<int> renumber(b.lets.size(), -1);
  std::vector<Let> kept;
  for (size_t i = 0; i < b.lets.size(); ++i) {
    if (!needed[i]) continue;
    renumber[i] = static_cast<int>(kept.size());
    kept.push_back(b.lets[i]);
  }
  if (kept.size() == b.lets.size()) return;
  std::function<ExprPtr(const ExprPtr&)> relink = [&](const ExprPtr& e) -> ExprPtr {
    std::vector<ExprPtr> args;
    bool changed = false;
    for (const auto& a : e->args) {
      args.push_back(relink(a));
      changed = changed || args.back() != a;
    }
    bool local = e->kind == Expr::Local && renumber[static_cast<size_t>(e->local)] != e->local;
    if (!changed && !local) return e;
    auto c = std::make_shared<Expr>(*e);
    c->args = std::move(args);
    if (local) c->local = renumber[static_cast<size_t>(e->local)];
    return c;
  };
  for (auto& l : kept) l.value = relink(l.value);
  b.result = relink(b.result);
  b.lets = std::move(kept);
}

std::vector<std::string> Pipeline::paramNames() const {
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  return names;
}

namespace {

// Appends what the program wrote for stage `id` to `out`, up to about
// kMaxTextLength characters (then "..."): a chain of a million unnamed calls
// stays a short message, and its recursion shallow. `renamed` maps the C names
// of named stages to the program's names (g_4 -> g<4>).
constexpr size_t kMaxTextLength = 100;

void appendUserText(const Pipeline& p, int id, const std::map<std::string, std::string>& renamed,
                    std::string& out) {
  const Stage& s = p.stages[static_cast<size_t>(id)];
  if (!s.userName.empty()) {
    out += s.userName;
    return;
  }
  // The origin names its operands by their stage names: _t3 (stage 3) for an
  // unnamed one, spelt out in turn, the C name of a named one.
  const std::string& o = s.origin;
  auto word = [&](size_t k) { return isalnum(static_cast<unsigned char>(o[k])) || o[k] == '_'; };
  for (size_t i = 0; i < o.size();) {
    if (out.size() > kMaxTextLength) {
      out += "...";
      return;
    }
    if (!word(i)) {
      out += o[i++];
      continue;
    }
    size_t end = i;
    while (end < o.size() && word(end)) ++end;
    std::string token = o.substr(i, end - i);
    i = end;
    bool generated = token.size() > 2 && token.size() <= 11 && token.compare(0, 2, "_t") == 0 &&
                     token.find_first_not_of("0123456789", 2) == std::string::npos;
    int operand = generated ? std::stoi(token.substr(2)) : id;
    auto r = renamed.find(token);
    // A program's own image may be called _t3 too: only a stage still so named counts.
    if (operand < id && p.stages[static_cast<size_t>(operand)].name == token)
      appendUserText(p, operand, renamed, out);
    else
      out += r != renamed.end() ? r->second : token;
  }
}

}  // namespace

std::string userText(const Pipeline& p, int id) {
  std::map<std::string, std::string> renamed;
  for (const auto& s : p.stages)
    if (!s.userName.empty() && s.userName != s.name) renamed[s.name] = s.userName;
  std::string out;
  appendUserText(p, id, renamed, out);
  return out;
}

std::string describeStage(const Pipeline& p, int id) {
  const Stage& s = p.stages[static_cast<size_t>(id)];
  if (!s.userName.empty()) return "'" + s.userName + "'";
  return "the result of '" + userText(p, id) + "' (line " + std::to_string(s.loc.line) + ")";
}

std::string displayName(const Pipeline& p, int id) {
  const Stage& s = p.stages[static_cast<size_t>(id)];
  return s.userName.empty() ? userText(p, id) : "'" + s.userName + "'";
}

}  // namespace formac::ir
