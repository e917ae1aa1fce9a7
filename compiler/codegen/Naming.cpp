#include "codegen/Naming.h"

#include <set>

#include "codegen/ExprPrinter.h"

namespace formac::codegen {
namespace {

const std::set<std::string>& reserved() {
  static const std::set<std::string> words = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
      "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
      "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
      "typedef", "union", "unsigned", "void", "volatile", "while", "output", "ws", "main",
      "abs", "sqrt", "exp", "log", "pow", "sin", "cos", "tan", "atan", "atan2", "fabs", "floor",
      "ceil", "round", "min", "max", "memset", "memcpy", "malloc", "calloc", "free", "size_t",
      "class", "new", "delete", "template", "this", "bool", "true", "false", "namespace"};
  return words;
}

}  // namespace

Names assignNames(const ir::Pipeline& p, const std::string& kernelName) {
  Names n;
  std::set<std::string> taken = reserved();
  taken.insert(kernelName);
  auto claim = [&](std::string base) {
    base = cIdentifier(base);
    if (base.rfind("formac_", 0) == 0 || base.rfind("__", 0) == 0) base = "v" + base;
    std::string name = base;
    for (int k = 2; taken.count(name) || name.rfind(kernelName + "_", 0) == 0; ++k)
      name = base + "_" + std::to_string(k);
    taken.insert(name);
    return name;
  };
  for (const auto& prm : p.params) n.param.push_back(claim(prm.name));
  for (const auto& s : p.scalars) n.scalar.push_back(claim(s.name));
  for (const auto& s : p.stages) n.stage.push_back(claim(s.name));
  return n;
}

std::string outputName(const ir::Pipeline& p, size_t i) {
  return p.outputs.size() == 1 ? "output" : "output" + std::to_string(i);
}

static std::string inputParameters(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (const auto& in : p.inputs) {
    if (!t.empty()) t += ", ";
    if (in.kind == ir::EntryArg::Image)
      t += cType(p.stages[static_cast<size_t>(in.index)].type) + "* " + n.stage[static_cast<size_t>(in.index)];
    else
      t += std::string(scalarCType(p.scalars[static_cast<size_t>(in.index)].type)) + " " +
           n.scalar[static_cast<size_t>(in.index)];
  }
  return t;
}

static std::string outputParameters(const ir::Pipeline& p) {
  std::string t;
  for (size_t i = 0; i < p.outputs.size(); ++i)
    t += (i ? ", " : "") + cType(p.stages[static_cast<size_t>(p.outputs[i])].type) + "* " +
         outputName(p, i);
  return t;
}

std::string entryParameters(const ir::Pipeline& p, const Names& n) {
  std::string t = inputParameters(p, n);
  for (const auto& prm : n.param) t += (t.empty() ? "" : ", ") + std::string("int ") + prm;
  return t + (t.empty() ? "" : ", ") + outputParameters(p);
}

std::string runParameters(const ir::Pipeline& p, const Names& n) {
  std::string t = inputParameters(p, n);
  return t + (t.empty() ? "" : ", ") + outputParameters(p);
}

std::string runArguments(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (const auto& in : p.inputs)
    t += (t.empty() ? "" : ", ") +
         (in.kind == ir::EntryArg::Image ? n.stage[static_cast<size_t>(in.index)]
                                         : n.scalar[static_cast<size_t>(in.index)]);
  for (size_t i = 0; i < p.outputs.size(); ++i) t += (t.empty() ? "" : ", ") + outputName(p, i);
  return t;
}

std::string createParameters(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (const auto& prm : n.param) t += (t.empty() ? "" : ", ") + std::string("int ") + prm;
  (void)p;
  return t.empty() ? "void" : t;
}

std::string createArguments(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (const auto& prm : n.param) t += (t.empty() ? "" : ", ") + prm;
  (void)p;
  return t;
}

std::string outputExtentComment(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    const ir::Stage& s = p.stages[static_cast<size_t>(p.outputs[i])];
    t += "/* " + outputName(p, i) + ": " + cType(s.type) + "[";
    for (int d = 0; d < s.rank(); ++d)
      t += (d ? "][" : "") + ir::printSize(s.extent[static_cast<size_t>(d)], n.param);
    t += "] (row-major, last index contiguous) */\n";
  }
  return t;
}

}  // namespace formac::codegen
