#include "sema/Lints.h"

#include <cctype>

namespace formac::sema {
namespace {

const ast::Expr* firstDoubleLiteral(const ast::Expr& e) {
  if (e.kind == ast::Expr::DoubleLit) return &e;
  // A cast decides its own type: a literal under it does not reach the result.
  if (e.kind == ast::Expr::Cast) return nullptr;
  for (const auto& a : e.args)
    if (const ast::Expr* found = firstDoubleLiteral(*a)) return found;
  return nullptr;
}

bool castsToDouble(const ast::Expr& e) {
  if (e.kind == ast::Expr::Cast && e.castType.basic == ScalarKind::Double) return true;
  for (const auto& a : e.args)
    if (castsToDouble(*a)) return true;
  return false;
}

// The literal as written, read back from its source line.
std::string spelling(const SourceLoc& loc) {
  std::string line = loc.file->lineText(loc.line);
  std::string out;
  for (size_t i = static_cast<size_t>(loc.col) - 1; i < line.size(); ++i) {
    char c = line[i];
    bool sign = (c == '+' || c == '-') && !out.empty() && (out.back() == 'e' || out.back() == 'E');
    if (!isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != 'E' && !sign) break;
    out += c;
  }
  return out;
}

}  // namespace

bool warnDoubleLiteral(const ast::StencilDef& def, const std::vector<ScalarKind>& argTypes,
                       const Type& result, Warnings& warnings) {
  if (result.isStruct() || result.scalar != ScalarKind::Double) return false;
  bool sawFloat = false;
  for (ScalarKind k : argTypes) {
    if (k == ScalarKind::Double) return false;  // double data: double is what it asks for
    sawFloat = sawFloat || k == ScalarKind::Float;
  }
  if (!sawFloat) return false;
  // An explicit cast<double> says that double is meant.
  bool meant = castsToDouble(*def.result);
  const ast::Expr* literal = nullptr;
  for (const auto& a : def.body) {
    meant = meant || castsToDouble(*a.value);
    if (!literal) literal = firstDoubleLiteral(*a.value);
  }
  if (!literal) literal = firstDoubleLiteral(*def.result);
  if (!literal || meant) return false;
  std::string text = spelling(literal->loc);
  warnings.add(literal->loc, "the double literal '" + text + "' makes '" + def.name +
                                 "' compute in double although its data is float; write '" +
                                 text + "f' to stay in float");
  return true;
}

std::string zeroBorderMessage(const ir::Pipeline& p, int output, const ZeroBorder& border) {
  std::string image = ir::userText(p, border.image);
  // An unnamed output is the call in the `return` the warning points at.
  bool named = !p.stages[static_cast<size_t>(output)].userName.empty();
  std::string where = named ? " (line " + std::to_string(border.call.line) + ")" : "";
  return (named ? ir::describeStage(p, output) : "'" + ir::userText(p, output) + "'") +
         " is 0 in a border of " + std::to_string(border.width) +
         (border.width == 1 ? " pixel" : " pixels") + " because '" + border.stencil + "' reads '" +
         image + "' without a boundary mode" + where + "; give one at the call, e.g. '" + image +
         ":mirror'";
}

}  // namespace formac::sema
