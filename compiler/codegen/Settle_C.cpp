#include "codegen/Settle_C.h"

#include <cctype>
#include <set>
#include <vector>

#include "codegen/ExprPrinter.h"
#include "codegen/SettleBody.h"
#include "codegen/Stmt.h"

namespace formac::codegen {
namespace {

// The points whose value reads (i, j), queued for band b: (i, j) minus each
// tap, and near a border whose mode reads inside the image (clamped, extend,
// mirror), every point within the reach (a reflected read of theirs may land on
// (i, j): mirror reads row r for row -r, so "near" is within r + 1). A point
// holding a stable value (LocalFixpoint::stable) never changes: not queued.
std::vector<Stmt> reachFunction(const passes::LocalFixpoint& lf, const std::string& name, const std::string& T) {
  std::string keep;  // the test that the value at point p is stable
  if (lf.stable.size() <= 8)
    for (long long v : lf.stable) keep += (keep.empty() ? "" : " || ") + std::string("x[p] == ") + std::to_string(v);
  auto queue = [&](const std::string& di, const std::string& dj) {
    if (keep.empty()) return eval("failed |= formac_settle_queue(todo, queued, b, " + di + ", " + dj + ", rows, cols, band)");
    return block({decl("long long", "qi", di), decl("long long", "qj", dj), decl("long long", "p", "qi * cols + qj"),
                  ifThen("qi >= 0 && qi < rows && qj >= 0 && qj < cols && !(" + keep + ")",
                         {eval("failed |= formac_settle_enqueue(todo, queued, b, qi, qj, cols, band)")})});
  };
  std::vector<Stmt> t = {decl("int", "failed", "0", false)};
  for (const auto& o : lf.taps)
    t.push_back(queue("i - (" + std::to_string(o[0]) + ")", "j - (" + std::to_string(o[1]) + ")"));
  if (lf.mode != BoundaryMode::Constant && lf.radius > 0) {
    const std::string r = std::to_string(lf.radius);
    t.push_back(ifThen("i <= " + r + " || j <= " + r + " || i >= rows - 1 - " + r + " || j >= cols - 1 - " + r,
                       {declOnly("long long", "di"), declOnly("long long", "dj"),
                        forLoop("di = -" + r, "di <= " + r, "++di",
                                {forLoop("dj = -" + r, "dj <= " + r, "++dj", {queue("i + di", "j + dj")})})}));
  }
  t.push_back(eval("return failed"));
  std::vector<Param> params = {Param{T + "*", "x", false, true}, Param{"formac_points*", "todo"},
                               Param{"unsigned char*", "queued"}};
  for (const char* n : {"b", "i", "j", "rows", "cols", "band"}) params.push_back(Param{"long long", n});
  return {comment("Queues the points that read (i, j) when it changes" +
                  std::string(keep.empty() ? "" : ", but those holding a value that never changes") + "."),
          function("static", "int", name + "_reach", params, std::move(t), {"x"})};
}

}  // namespace

std::string settlePreludeC() {
  return R"(/* A list of points (row-major indices) to recompute, for settled loops. */
typedef struct {
  long long *v, head, n, cap; /* the points v[head..n), first in, first out */
} formac_points;
static int formac_points_push(formac_points* l, long long p) {
  if (l->n == l->cap) {
    const long long cap = l->cap ? 2 * l->cap : 1024;
    long long* v = (long long*)realloc(l->v, (size_t)cap * sizeof(long long));
    if (!v) return 1;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = p;
  return 0;
}
/* Queues (i, j), a point of the image, for the band that holds it, from band b:
   todo[3q] is band q's own list, todo[3q+1] what the band above hands it,
   todo[3q+2] what the band below hands it (each list has one writer). */
static int formac_settle_enqueue(formac_points* todo, unsigned char* queued, long long b, long long i, long long j,
                                 long long cols, long long band) {
  long long q;
  if (queued[i * cols + j]) return 0;
  queued[i * cols + j] = 1;  /* until popped: a point waits in one list at most once */
  q = i / band;
  return formac_points_push(&todo[3 * q + (q == b ? 0 : q > b ? 1 : 2)], i * cols + j);
}
/* formac_settle_enqueue for (i, j) if it is in the image (unused where every tap
   tests its point itself: LocalFixpoint::stable). */
FORMAC_HELPER int formac_settle_queue(formac_points* todo, unsigned char* queued, long long b, long long i, long long j,
                                      long long rows, long long cols, long long band) {
  if (i < 0 || i >= rows || j < 0 || j >= cols) return 0;
  return formac_settle_enqueue(todo, queued, b, i, j, cols, band);
}
static void formac_settle_free(formac_points* todo, long long lists) {
  long long k;
  for (k = 0; k < lists; ++k) free(todo[k].v);
  free(todo);
}
/* What settling keeps between runs, in the workspace: the lists and the marks of queued
   points, allocated by the first run that settles and reused (fresh pages for 16 MB of
   marks and the lists cost a tenth of canny_opencv's run at 4096²). A run that stops
   early leaves points queued: `dirty` has the next run clear them. */
typedef struct {
  formac_points* todo;
  unsigned char* queued;
  long long lists, points;
  int dirty;
} formac_settle_scratch;
static void formac_settle_release(formac_settle_scratch* s) {
  if (s->todo) formac_settle_free(s->todo, s->lists);
  free(s->queued);
  memset(s, 0, sizeof *s);
}
/* s ready for `lists` empty lists and `points` clear marks; 1 when memory ran out. */
static int formac_settle_prepare(formac_settle_scratch* s, long long lists, long long points) {
  long long k;
  if (s->todo && s->lists == lists && s->points == points) {
    if (s->dirty) {
      memset(s->queued, 0, (size_t)points + 1);
      for (k = 0; k < lists; ++k) s->todo[k].head = s->todo[k].n = 0;
    }
    s->dirty = 0;
    return 0;
  }
  formac_settle_release(s);
  s->todo = (formac_points*)calloc((size_t)lists, sizeof(formac_points));
  s->queued = (unsigned char*)calloc((size_t)points + 1, 1);
  if (!s->todo || !s->queued) {
    formac_settle_release(s);
    return 1;
  }
  s->lists = lists;
  s->points = points;
  return 0;
}

)";
}

SettleC settleFunctionC(const ir::Loop& loop, const passes::LocalFixpoint& lf, const std::string& name, bool openmp) {
  const ir::Pipeline& body = *loop.body;
  const Names bn = assignNames(body, name);
  const ir::Stage& x = body.stages[static_cast<size_t>(lf.carried)];
  const std::string T = cType(x.type);

  ExprContext ctx;
  ctx.pipeline = &body;
  ctx.params = bn.param;
  ctx.q = {"formac_i", "formac_j"};
  ctx.checked = true;
  ctx.extent = [&](int id, int d) {
    return "(" + ir::printSize(body.stages[static_cast<size_t>(id)].extent[static_cast<size_t>(d)], bn.param) + ")";
  };
  ctx.buffer = [&](int id) { return id == lf.carried ? std::string("formac_x") : bn.stage[static_cast<size_t>(id)]; };
  ctx.scalar = [&](int i) { return bn.scalar[static_cast<size_t>(i)]; };
  // Inside the image by the reach, X<i-1>'s reads need no boundary (the
  // other images' keep theirs: their extents may differ).
  auto print = [&](bool inside) {
    ctx.resolved = [&, inside](int id) { return inside && id == lf.carried; };
    return printSettleValue(lf.body, ctx, "      ");
  };
  const std::string value = print(false), valueInside = print(true);
  const std::string r = std::to_string(lf.radius);
  const std::string inside = "formac_i >= " + r + " && formac_i < formac_rows - " + r + " && formac_j >= " + r +
                             " && formac_j < formac_cols - " + r;
  const std::string rows = ctx.extent(lf.carried, 0), cols = ctx.extent(lf.carried, 1);

  // What the function takes besides x and x0: only what its text uses.
  SettleC s;
  s.takes = settleParameters(loop, bn, value + rows + cols, false);
  const std::string band = std::to_string(std::max(64, lf.radius));
  // A selective body counts the points changed: the band sees X<0> too.
  std::vector<Param> bandParams = {Param{T + "*", "formac_x"}};
  if (lf.selective) bandParams.push_back(Param{T + "*", "formac_x0", false, true});
  bandParams.insert(bandParams.end(), s.takes.list.begin(), s.takes.list.end());
  bandParams.insert(bandParams.end(), {Param{"formac_points*", "formac_todo"}, Param{"unsigned char*", "formac_queued"},
                                       Param{"long long", "formac_b"}, Param{"long long", "formac_band"},
                                       Param{"unsigned long long*", "formac_moved"}});
  std::vector<std::string> inner;
  for (const auto& r : loop.reads) inner.push_back(bn.stage[static_cast<size_t>(r.inner)]);
  std::string args = lf.selective ? "formac_x, formac_x0" : "formac_x";
  for (const auto& a : s.takes.arguments(inner, bn.scalar, bn.param)) args += ", " + a;
  const Stmt reached = ifThen(name + "_reach(formac_x, formac_todo, formac_queued, formac_b, formac_i, formac_j, "
                                     "formac_rows, formac_cols, formac_band)",
                              {eval("return 1")});
  std::vector<Stmt> bandBody = {
      decl("long long", "formac_rows", rows), decl("long long", "formac_cols", cols),
      decl("formac_points*", "formac_own", "&formac_todo[3 * formac_b]", false), declOnly("long long", "formac_k"),
      declOnly("long long", "formac_side"), comment("what the bands around handed it"),
      forLoop("formac_side = 1", "formac_side <= 2", "++formac_side",
              {decl("formac_points*", "formac_in", "&formac_todo[3 * formac_b + formac_side]", false),
               forLoop("formac_k = 0", "formac_k < formac_in->n", "++formac_k",
                       {ifThen("formac_points_push(formac_own, formac_in->v[formac_k])", {eval("return 1")})}),
               assign("formac_in->n", "0")}),
      comment("first in, first out: fronts advance together"),
      whileLoop("formac_own->head < formac_own->n",
                {decl("long long", "formac_p", "formac_own->v[formac_own->head++]"), declOnly(T, "formac_v"),
                 decl("long long", "formac_i", "formac_p / formac_cols"), decl("long long", "formac_j", "formac_p % formac_cols"),
                 assign("formac_queued[formac_p]", "0"),
                 ifThen(inside, {comment("every read inside the image"), text(valueInside)}, {text(value)}),
                 block({ifThen("formac_v != formac_x[formac_p]",
                               {lf.selective ? seq({comment("the point's first change"),
                                                    eval("*formac_moved += formac_x[formac_p] == formac_x0[formac_p]")})
                                             : eval("*formac_moved += formac_v > formac_x[formac_p] ? (unsigned long long)formac_v - "
                                                    "(unsigned long long)formac_x[formac_p] : (unsigned long long)formac_x[formac_p] - "
                                                    "(unsigned long long)formac_v"),
                                assign("formac_x[formac_p]", "formac_v"), reached})})}),
      assign("formac_own->head", "formac_own->n = 0"), eval("return 0")};

  std::vector<Param> params = {Param{T + "*", "formac_x"}, Param{T + "*", "formac_x0", false, true}};
  params.insert(params.end(), s.takes.list.begin(), s.takes.list.end());
  params.insert(params.end(), {Param{"formac_settle_scratch*", "formac_s"}, Param{"long long", "formac_limit"},
                               Param{"long long*", "formac_passes"}});
  auto moved = [&](const std::string& from, const std::string& to) {
    return eval("formac_moved += " + (lf.selective ? std::string("1")
                                                   : "(unsigned long long)" + to + " - (unsigned long long)" + from));
  };
  std::vector<Stmt> round1 = {
      decl("long long", "formac_p", "formac_i * formac_cols + formac_j"),
      ifThen("formac_x[formac_p] == formac_x0[formac_p]", {eval("continue")}),
      ifThen("formac_x[formac_p] > formac_x0[formac_p]",
             {assign("formac_up", "1"), moved("formac_x0[formac_p]", "formac_x[formac_p]")},
             {assign("formac_down", "1"), moved("formac_x[formac_p]", "formac_x0[formac_p]")}),
      eval("formac_failed |= " + name + "_reach(formac_x, formac_todo, formac_queued, formac_b, formac_i, formac_j, "
                                        "formac_rows, formac_cols, formac_band)")};
  std::vector<Stmt> t = {
      decl("long long", "formac_rows", rows), decl("long long", "formac_cols", cols), decl("long long", "formac_band", band),
      decl("long long", "formac_bands", "(formac_rows + formac_band - 1) / formac_band"),
      ifThen("formac_settle_prepare(formac_s, 3 * formac_bands, formac_rows * formac_cols)", {eval("return 1")}),
      decl("formac_points* const", "formac_todo", "formac_s->todo", false),
      decl("unsigned char* const", "formac_queued", "formac_s->queued", false),
      comment(std::string("bounds the rounds: ") + (lf.selective ? "the points changed" : "the sum of |x - x0|")),
      decl("unsigned long long", "formac_moved", "0", false), decl("int", "formac_up", "0", false),
      decl("int", "formac_down", "0", false), decl("int", "formac_failed", "0", false), declOnly("long long", "formac_b"),
      comment("until every list is empty again"), assign("formac_s->dirty", "1"),
      comment("Round 1's changes: their direction, their size, and the points that read them."),
      forLoop("formac_b = 0", "formac_b < formac_bands", "++formac_b",
              {decl("long long", "formac_end",
                    "formac_b * formac_band + formac_band < formac_rows ? formac_b * formac_band + formac_band : formac_rows"),
               declOnly("long long", "formac_i"), declOnly("long long", "formac_j"),
               forLoop("formac_i = formac_b * formac_band", "formac_i < formac_end", "++formac_i",
                       {forLoop("formac_j = 0", "formac_j < formac_cols", "++formac_j", std::move(round1))})},
              openmp ? "reduction(|:formac_up, formac_down, formac_failed) reduction(+:formac_moved) schedule(static)" : ""),
      whileLoop(
          "!formac_failed && !(formac_up && formac_down) && formac_moved <= (unsigned long long)formac_limit",
          {decl("int", "formac_waiting", "0", false), declOnly("int", "formac_parity"),
           forLoop("formac_b = 0", "formac_b < 3 * formac_bands", "++formac_b",
                   {eval("formac_waiting |= formac_todo[formac_b].n > 0")}),
           ifThen("!formac_waiting",
                  {comment("every point popped: every mark clear"), assign("formac_s->dirty", "0"), eval("return 0")}),
           eval("++*formac_passes"),
           forLoop("formac_parity = 0", "formac_parity < 2", "++formac_parity",
                   {forLoop("formac_b = formac_parity", "formac_b < formac_bands", "formac_b += 2",
                            {eval("formac_failed |= " + name + "_band(" + args +
                                  ", formac_todo, formac_queued, formac_b, formac_band, &formac_moved)")},
                            openmp ? "reduction(|:formac_failed) reduction(+:formac_moved) schedule(dynamic, 1)" : "")})}),
      eval("return 1")};

  std::vector<Stmt> out = reachFunction(lf, name, T);
  out.push_back(comment("Band b's points to its local fixed point: pops a point, recomputes it, and\n"
                        "where it changes queues the points that read it."));
  out.push_back(function("static", "int", name + "_band", std::move(bandParams), std::move(bandBody)));
  out.push_back(comment("The do loop over '" + loop.iterator + "' (line " + std::to_string(loop.loc.line) +
                        ") from round 1's\nimage x (x0 before it) to its fixed point, in place: " + lf.why +
                        ".\n0: x holds the loop's result (passes/LocalFixpoint.h says why it is the\n"
                        "same); 1: run the rounds one by one (round 1 moved points both ways, the\n"
                        "rounds the loop needs may exceed `limit`, or memory ran out)."));
  out.push_back(function("static", "int", name, std::move(params), std::move(t)));
  s.function = CPrinter().print(out) + "\n";
  return s;
}

}  // namespace formac::codegen
