#include "ir/Pipeline.h"

#include <cctype>
#include <functional>
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
// stays a short message, and its recursion shallow.
constexpr size_t kMaxTextLength = 100;

void appendUserText(const Pipeline& p, int id, std::string& out) {
  const Stage& s = p.stages[static_cast<size_t>(id)];
  if (!s.userName.empty()) {
    out += s.userName;
    return;
  }
  // The origin names unnamed operands by their generated names (_t3 is stage 3).
  const std::string& o = s.origin;
  auto word = [&](size_t k) { return isalnum(static_cast<unsigned char>(o[k])) || o[k] == '_'; };
  for (size_t i = 0; i < o.size();) {
    if (out.size() > kMaxTextLength) {
      out += "...";
      return;
    }
    bool atName = o.compare(i, 2, "_t") == 0 && i + 2 < o.size() &&
                  isdigit(static_cast<unsigned char>(o[i + 2])) && (i == 0 || !word(i - 1));
    if (!atName) {
      out += o[i++];
      continue;
    }
    size_t end = i + 2;
    while (end < o.size() && isdigit(static_cast<unsigned char>(o[end]))) ++end;
    std::string token = o.substr(i, end - i);
    int operand = end - i <= 11 ? std::stoi(token.substr(2)) : id;
    // A program's own image may be called _t3 too: only a stage still so named counts.
    if (operand < id && p.stages[static_cast<size_t>(operand)].name == token)
      appendUserText(p, operand, out);
    else
      out += token;
    i = end;
  }
}

}  // namespace

std::string userText(const Pipeline& p, int id) {
  std::string out;
  appendUserText(p, id, out);
  return out;
}

std::string describeStage(const Pipeline& p, int id) {
  const Stage& s = p.stages[static_cast<size_t>(id)];
  if (!s.userName.empty()) return "'" + s.userName + "'";
  return "the result of '" + userText(p, id) + "' (line " + std::to_string(s.loc.line) + ")";
}

}  // namespace formac::ir
