#include "codegen/SettleBody.h"

#include <set>

namespace formac::codegen {

std::vector<std::string> SettleParameters::arguments(const std::vector<std::string>& r,
                                                     const std::vector<std::string>& s,
                                                     const std::vector<std::string>& p) const {
  std::vector<std::string> a;
  for (int k : reads) a.push_back(r[static_cast<size_t>(k)]);
  for (int k : scalars) a.push_back(s[static_cast<size_t>(k)]);
  for (int k : params) a.push_back(p[static_cast<size_t>(k)]);
  return a;
}

std::string printSettleValue(const ir::Body& b, ExprContext& ctx, const std::string& indent) {
  ctx.lets.clear();
  std::string v;
  std::set<std::string> taken;
  for (const auto& l : b.lets) {
    std::string n = "v_" + cIdentifier(l.name);
    for (int k = 2; !taken.insert(n).second; ++k) n = "v_" + cIdentifier(l.name) + "_" + std::to_string(k);
    v += indent + "const " + cType(l.type) + " " + n + " = " + printCExpr(*l.value, ctx) + ";\n";
    ctx.lets.push_back(n);
  }
  return v + indent + "formac_v = " + printCExpr(*b.result, ctx) + ";\n";
}

SettleParameters settleParameters(const ir::Loop& loop, const Names& bn, const std::string& text,
                                  bool restrictPointers) {
  const ir::Pipeline& body = *loop.body;
  SettleParameters s;
  for (size_t k = 0; k < loop.reads.size(); ++k) {
    const std::string& n = bn.stage[static_cast<size_t>(loop.reads[k].inner)];
    if (!mentions(text, n)) continue;
    s.reads.push_back(static_cast<int>(k));
    const std::string T = cType(body.stages[static_cast<size_t>(loop.reads[k].inner)].type);
    s.list.push_back(restrictPointers ? Param{T, n, true, true} : Param{T + "*", n, false, true});
  }
  for (size_t k = 0; k < body.scalars.size(); ++k) {
    if (!mentions(text, bn.scalar[k])) continue;
    s.scalars.push_back(static_cast<int>(k));
    s.list.push_back(Param{scalarCType(body.scalars[k].type), bn.scalar[k]});
  }
  for (size_t k = 0; k < bn.param.size(); ++k) {
    if (!mentions(text, bn.param[k])) continue;
    s.params.push_back(static_cast<int>(k));
    s.list.push_back(Param{"long long", bn.param[k]});
  }
  return s;
}

}  // namespace formac::codegen
