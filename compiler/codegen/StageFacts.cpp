#include "codegen/StageFacts.h"

#include <sstream>

#include "codegen/ExprPrinter.h"
#include "ir/Edges.h"
#include "passes/FusionPlan.h"

namespace formac::codegen {

bool coversExtent(const ir::Pipeline& p, const ir::Stage& s) { return passes::coversWholeExtent(p, s); }

bool outputOwner(const ir::Pipeline& p, size_t i) {
  int id = p.outputs[i];
  if (p.stages[static_cast<size_t>(id)].kind == ir::Stage::Input) return false;
  for (size_t j = 0; j < i; ++j)
    if (p.outputs[j] == id) return false;
  return true;
}

int ownedOutput(const ir::Pipeline& p, int stage) {
  for (size_t i = 0; i < p.outputs.size(); ++i)
    if (p.outputs[i] == stage && outputOwner(p, i)) return static_cast<int>(i);
  return -1;
}

bool hasReductions(const ir::Pipeline& p) {
  for (const auto& s : p.stages)
    if (s.kind == ir::Stage::Reduce || (s.kind == ir::Stage::LoopResult && hasReductions(*s.loop->body))) return true;
  return false;
}

bool hasScans(const ir::Pipeline& p) {
  for (const auto& s : p.stages)
    if (s.kind == ir::Stage::Scan || (s.kind == ir::Stage::LoopResult && hasScans(*s.loop->body))) return true;
  return false;
}

std::set<int> producersOf(const ir::Pipeline& p, const std::vector<int>& stages) {
  std::set<int> inside(stages.begin(), stages.end()), out;
  for (int id : stages)
    ir::forEachPiece(p.stages[static_cast<size_t>(id)], [&](const ir::Piece& pc) {
      forEachExpr(pc.body, [&](const ir::Expr& e) {
        if ((e.kind == ir::Expr::ImageRead || e.kind == ir::Expr::IndexRead) && !inside.count(e.producer))
          out.insert(e.producer);
      });
    });
  return out;
}

std::set<int> scalarsOf(const ir::Pipeline& p, const std::vector<int>& stages) {
  std::set<int> out;
  for (int id : stages)
    ir::forEachPiece(p.stages[static_cast<size_t>(id)], [&](const ir::Piece& pc) {
      forEachExpr(pc.body, [&](const ir::Expr& e) {
        if (e.kind == ir::Expr::ScalarIn) out.insert(e.scalar);
      });
    });
  return out;
}

std::string stageComment(const ir::Pipeline& p, const Names& n, const ir::Stage& s,
                         const std::string& sourcePath) {
  std::string t = "/* " + n.stage[static_cast<size_t>(s.id)] + " = " + s.origin + "   [" + sourcePath +
                  ":" + std::to_string(s.loc.line) + "]\n   " + cType(s.type) + "[";
  for (int d = 0; d < s.rank(); ++d)
    t += (d ? "][" : "") + ir::printSize(s.extent[static_cast<size_t>(d)], n.param);
  (void)p;
  return t + "] */\n";
}

std::string extentChecks(const ir::Pipeline& p, const Names& n, const std::string& kernel) {
  std::string t;
  std::set<std::string> seen;
  for (const auto& s : p.stages)
    for (const auto& e : s.extent) {
      long long c;
      if (ir::isConst(e, &c) && c >= 0) continue;
      std::string text = ir::printSize(e, n.param);
      if (seen.insert(text).second)
        t += "  if ((" + text + ") < 0) { " + kernel + "_destroy(ws); return NULL; }\n";
    }
  return t;
}

std::vector<const ir::Stage*> loopsOf(const ir::Pipeline& p) {
  std::vector<const ir::Stage*> v;
  for (const auto& s : p.stages)
    if (s.kind == ir::Stage::LoopResult && s.loopIndex == 0) v.push_back(&s);
  return v;
}

std::string workspacePrototypes(const ir::Pipeline& p, const Names& n, const std::string& K) {
  std::string rp = runParameters(p, n);
  std::string t = "typedef struct " + K + "_workspace " + K + "_workspace;\n" + K + "_workspace* " + K + "_create(" +
                  createParameters(p, n) + ");\n" + "int " + K + "_run(" + K + "_workspace* ws" +
                  (rp.empty() ? "" : ", " + rp) + ");\n" + "void " + K + "_destroy(" + K + "_workspace* ws);\n";
  if (!loopsOf(p).empty())
    t += "/* The rounds each do loop ran in the workspace's last run, in the program's order,\n"
         "   into rounds[0..] (when not NULL); returns the number of loops (CUDA: after the\n"
         "   device's work, -1 if it cannot be read). */\n"
         "int " + K + "_loop_rounds(" + K + "_workspace* ws, long long* rounds);\n";
  return t + "\n";
}

std::string cachedEntryPoint(const ir::Pipeline& p, const Names& n, const EntryPointText& t) {
  const std::string& K = t.kernel;
  std::string W = K + "_workspace";
  std::string same;
  for (const auto& prm : n.param) same += " || " + K + "_cached->" + prm + " != " + prm;
  std::string ra = runArguments(p, n);
  std::ostringstream os;
  os << "/* One workspace is kept between calls; a call of another size replaces\n"
     << "   it, and a concurrent call uses a workspace of its own. */\n"
     << "static " << W << "* " << K << "_cached = NULL;\n"
     << "static int " << K << "_cached_busy = 0;\n\n"
     << t.linkage << "void " << K << "(" << entryParameters(p, n) << ") {\n"
     << "  " << W << "* ws = NULL;\n  int cached = 0;\n"
     << "  if (__atomic_exchange_n(&" << K << "_cached_busy, 1, __ATOMIC_ACQUIRE) == 0) {\n"
     << "    cached = 1;\n"
     << "    if (" << K << "_cached" << (same.empty() ? " && 0" : " && (0" + same + ")") << ") {\n"
     << "      " << K << "_destroy(" << K << "_cached);\n      " << K << "_cached = NULL;\n    }\n"
     << "    if (!" << K << "_cached) " << K << "_cached = " << K << "_create(" << createArguments(p, n) << ");\n"
     << "    ws = " << K << "_cached;\n"
     << "  } else {\n    ws = " << K << "_create(" << createArguments(p, n) << ");\n  }\n"
     << "  if (!ws)\n    fprintf(stderr, \"" << K << ": " << t.failureNote << "\\n\");\n";
  std::string call = K + "_run(ws" + (ra.empty() ? "" : ", " + ra) + ")";
  if (t.reportRunFailure)
    os << "  else if (" << call << " != 0)\n    fprintf(stderr, \"" << K << ": the computation failed\\n\");\n";
  else
    os << "  else\n    " << call << ";\n";
  os << "  if (cached) __atomic_store_n(&" << K << "_cached_busy, 0, __ATOMIC_RELEASE);\n"
     << "  else " << K << "_destroy(ws);\n}\n";
  return os.str();
}

}  // namespace formac::codegen
