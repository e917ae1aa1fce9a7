// `do` loops (LANGUAGE.md §7): the body built as a pipeline of its own, the
// images it reads from before the loop imported as its inputs, and the images
// it carries given back as LoopResult stages after it.
#include <algorithm>
#include <functional>

#include "sema/GlobalOps.h"
#include "sema/PipelineBuilder.h"

namespace formac::sema {

int PipelineBuilder::bodyInput(const Stage& outer, const std::string& name, bool carried) {
  LoopBuild& lb = loops_.back();
  auto found = lb.imported.find(outer.id);
  if (!carried && found != lb.imported.end()) return found->second;
  Stage in;
  in.kind = Stage::Input;
  in.name = sanitize(name);
  in.userName = outer.userName.empty() ? name : outer.userName;
  in.type = outer.type;
  in.extent = outer.extent;
  in.loc = outer.loc;
  in.origin = "the loop's input";
  int id = addStage(std::move(in));
  p_.inputs.push_back({ir::EntryArg::Image, id});
  if (!carried) lb.imported[outer.id] = id;
  return id;
}

std::optional<Value> PipelineBuilder::importOuter(Scope& sc, const std::string& key) {
  auto it = sc.outer->names.find(key);
  if (it == sc.outer->names.end()) return std::nullopt;
  Value v = it->second;
  if (v.stage < 0) return v;
  const Stage& outer = loops_.back().outer.stages[static_cast<size_t>(v.stage)];
  int in = bodyInput(outer, key);
  if (std::none_of(loops_.back().loop->carried.begin(), loops_.back().loop->carried.end(),
                   [&](const ir::Loop::Binding& b) { return b.inner == in; }) &&
      std::none_of(loops_.back().loop->reads.begin(), loops_.back().loop->reads.end(),
                   [&](const ir::Loop::Binding& b) { return b.inner == in; }))
    loops_.back().loop->reads.push_back({v.stage, in});
  used_.insert(in);
  Value out = v;
  out.stage = in;
  if (v.kind == Value::Scalar) out.scalar = sema::scalarStageRead(p_, in);
  return out;
}

void PipelineBuilder::doLoop(const ast::Stmt& s, Scope& sc) {
  if (sc.outer) userError(s.loc, "a 'do' loop inside another 'do' loop is not supported");
  if (sc.iterators.count(s.iterator) || (!sc.doIterator.empty() && sc.doIterator == s.iterator))
    userError(s.loc, "'" + s.iterator + "' is already the iterator of an enclosing loop");
  Size rounds = ir::sizeConst(s.to - s.from + 1);
  if (!s.toParam.empty()) {
    auto prm = paramIndex_.find(s.toParam);
    if (prm == paramIndex_.end())
      userError(s.toLoc, "the last round of a 'do' loop is an integer or a parameter; '" + s.toParam +
                             "' is not a parameter");
    rounds = ir::sizeAdd(ir::sizeParam(prm->second), ir::sizeConst(1 - s.from));
  }
  // The names each round defines: X<i>.
  std::vector<std::string> perRound;
  std::function<void(const ast::Stmt&)> scan = [&](const ast::Stmt& st) {
    if (st.kind == ast::Stmt::DoWhile && &st != &s) return;
    for (const auto& b : st.body) scan(*b);
    if (st.kind != ast::Stmt::Assign || !st.targetIndex.present || st.targetIndex.iterator != s.iterator) return;
    if (st.targetIndex.delta != 0)
      userError(st.loc, "a 'do' loop's body defines '" + st.target + "<" + s.iterator + ">', this round's image, not '" +
                            st.target + "<" + s.iterator + (st.targetIndex.delta > 0 ? "+" : "") +
                            std::to_string(st.targetIndex.delta) + ">'");
    if (std::find(perRound.begin(), perRound.end(), st.target) == perRound.end()) perRound.push_back(st.target);
  };
  scan(s);

  LoopBuild lb;
  lb.loop = std::make_shared<ir::Loop>();
  lb.loop->iterator = s.iterator;
  lb.loop->loc = s.loc;
  lb.loop->rounds = rounds;
  ir::Pipeline body;
  body.name = p_.name + "_loop" + std::to_string(loopCount_);
  body.structs = p_.structs;
  body.params = p_.params;
  body.scalars = p_.scalars;
  for (const auto& a : p_.inputs)
    if (a.kind == ir::EntryArg::Scalar) body.inputs.push_back(a);
  lb.outer = std::move(p_);
  p_ = std::move(body);
  loops_.push_back(std::move(lb));
  std::set<int> outerUsed;
  std::swap(used_, outerUsed);
  std::map<int, sema::ZeroBorder> outerBorders;
  std::swap(zeroBorders_, outerBorders);
  auto restore = [&] {
    LoopBuild& back = loops_.back();
    ir::Pipeline built = std::move(p_);
    p_ = std::move(back.outer);
    std::swap(used_, outerUsed);
    std::swap(zeroBorders_, outerBorders);
    return built;
  };

  Scope inner;
  inner.outer = &sc;
  inner.doIterator = s.iterator;
  inner.iterators = sc.iterators;
  inner.iterators[s.iterator] = s.from;
  inner.prefix = sc.prefix;
  inner.finishedLoops = sc.finishedLoops;  // an earlier loop's X<j> is read in this body too
  ir::Pipeline built;
  int condition = -1;
  std::vector<std::string> carriedNames;  // X, per carried image
  try {
    // Carried images: X<A-1> before the loop is X<i-1> in the body.
    for (const auto& x : perRound) {
      std::string before = x + "<" + std::to_string(s.from - 1) + ">";
      auto init = sc.names.find(before);
      if (init == sc.names.end() || init->second.kind != Value::Image) continue;
      int in = bodyInput(loops_.back().outer.stages[static_cast<size_t>(init->second.stage)], before, true);
      loops_.back().loop->carried.push_back({init->second.stage, in});
      carriedNames.push_back(x);
      Value v = imageValue(in);
      v.defined = init->second.defined;
      inner.names[before] = v;
    }
    for (const auto& b : s.body) statement(*b, inner);
    Value cond = located(s.condition->loc, [&] { return vexpr(*s.condition, inner); });
    if (cond.kind != Value::Scalar)
      userError(s.condition->loc, "the condition of a 'do' loop is a scalar, such as 'any(c<" + s.iterator +
                                      ">)', not an image");
    if (cond.stage < 0 || p_.stages[static_cast<size_t>(cond.stage)].kind == Stage::Input)
      userError(s.condition->loc, "the condition of a 'do' loop must be computed in the loop (a reduction "
                                  "such as 'any(c<" + s.iterator + ">)'), or it never changes");
    condition = cond.stage;
    for (size_t j = 0; j < loops_.back().loop->carried.size(); ++j) {
      const auto& bind = loops_.back().loop->carried[j];
      const std::string& x = carriedNames[j];
      std::string name = x + "<" + std::to_string(s.from - 1) + ">";
      const Value& next = inner.names.at(x + "<" + std::to_string(s.from) + ">");
      const Stage& before = loops_.back().outer.stages[static_cast<size_t>(bind.outer)];
      if (next.kind != Value::Image || stage(next.stage).type != before.type ||
          !sameExtent(stage(next.stage).extent, before.extent))
        userError(next.defined, "'" + x + "<" + s.iterator + ">' must have the type and extent of '" + name +
                                    "' (" + before.type.name() + extentText(before) + "), which the loop carries");
      loops_.back().loop->next.push_back(next.stage);
      p_.outputs.push_back(next.stage);
    }
    p_.outputs.push_back(condition);
  } catch (...) {
    restore();
    loops_.pop_back();
    throw;
  }
  std::shared_ptr<ir::Loop> loop = loops_.back().loop;
  built = restore();
  loops_.pop_back();
  loop->condition = condition;
  loop->body = std::make_shared<ir::Pipeline>(std::move(built));
  ++loopCount_;
  for (const auto& b : loop->carried) used_.insert(b.outer);
  for (const auto& b : loop->reads) used_.insert(b.outer);
  // The carried images after the loop: X<i>.
  std::string suffix = loopCount_ > 1 ? "#" + std::to_string(loopCount_) : "";
  for (size_t j = 0; j < loop->carried.size(); ++j) {
    const Stage& init = stage(loop->carried[j].outer);
    const std::string& x = carriedNames[j];
    Stage r;
    r.kind = Stage::LoopResult;
    r.type = init.type;
    r.extent = init.extent;
    r.loop = loop;
    r.loopIndex = static_cast<int>(j);
    r.loc = s.loc;
    r.origin = "do " + s.iterator + " = " + std::to_string(s.from) + ".." +
               (s.toParam.empty() ? std::to_string(s.to) : s.toParam) + ": " + x + "<" + s.iterator + ">";
    r.name = "_t" + std::to_string(p_.stages.size());
    int id = addStage(std::move(r));
    used_.insert(id);  // carried: used in the loop whether or not read after it
    define(sc, x + "<" + s.iterator + ">" + suffix, imageValue(id), s.loc);
    p_.stages[static_cast<size_t>(id)].userName = x + "<" + s.iterator + ">";
  }
  sc.finishedLoops[s.iterator] = suffix;
}

bool PipelineBuilder::sameExtent(const std::vector<Size>& a, const std::vector<Size>& b) const {
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d)
    if (!ir::sameSize(a[d], b[d], static_cast<int>(p_.params.size()))) return false;
  return true;
}

}  // namespace formac::sema
