#include "codegen/Settle_C.h"

#include <cctype>
#include <set>

#include "codegen/ExprPrinter.h"
#include "codegen/SettleBody.h"

namespace formac::codegen {
namespace {

// The points whose value reads (i, j), queued for band b: (i, j) minus each
// tap, and near a border whose mode reads inside the image (clamped, extend,
// mirror), every point within the reach (a reflected read of theirs may land on
// (i, j): mirror reads row r for row -r, so "near" is within r + 1). A point
// holding a stable value (LocalFixpoint::stable) never changes: not queued.
std::string reachFunction(const passes::LocalFixpoint& lf, const std::string& name, const std::string& T) {
  std::string keep;  // the test that the value at point p is stable
  if (lf.stable.size() <= 8)
    for (long long v : lf.stable) keep += (keep.empty() ? "" : " || ") + std::string("x[p] == ") + std::to_string(v);
  std::string t = "/* Queues the points that read (i, j) when it changes" +
                  std::string(keep.empty() ? "" : ", but those holding a value that never changes") + ". */\n"
                  "static int " + name + "_reach(const " + T + "* x, formac_points* todo, unsigned char* queued, long long b,\n"
                  "    long long i, long long j, long long rows, long long cols, long long band) {\n"
                  "  int failed = 0;\n";
  auto queue = [&](const std::string& di, const std::string& dj, const std::string& in) {
    if (keep.empty()) return in + "failed |= formac_settle_queue(todo, queued, b, " + di + ", " + dj + ", rows, cols, band);\n";
    return in + "{\n" + in + "  const long long qi = " + di + ", qj = " + dj + ", p = qi * cols + qj;\n" + in +
           "  if (qi >= 0 && qi < rows && qj >= 0 && qj < cols && !(" + keep + "))\n" + in +
           "    failed |= formac_settle_enqueue(todo, queued, b, qi, qj, cols, band);\n" + in + "}\n";
  };
  for (const auto& o : lf.taps)
    t += queue("i - (" + std::to_string(o[0]) + ")", "j - (" + std::to_string(o[1]) + ")", "  ");
  if (lf.mode != BoundaryMode::Constant && lf.radius > 0) {
    const std::string r = std::to_string(lf.radius);
    t += "  if (i <= " + r + " || j <= " + r + " || i >= rows - 1 - " + r + " || j >= cols - 1 - " + r + ") {\n"
         "    long long di, dj;\n"
         "    for (di = -" + r + "; di <= " + r + "; ++di)\n"
         "      for (dj = -" + r + "; dj <= " + r + "; ++dj)\n" + queue("i + di", "j + dj", "        ") +
         "  }\n";
  }
  return t + (keep.empty() ? "  (void)x;\n" : "") + "  return failed;\n}\n";
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
  s.takes = settleParameters(loop, bn, value + rows + cols, "");
  const std::string& params = s.takes.list;
  const std::string band = std::to_string(std::max(64, lf.radius));
  const std::string pragma = [&](const std::string& clause) {
    return openmp ? "  FORMAC_PRAGMA(omp parallel for " + clause + ")\n" : std::string();
  }("reduction(|:formac_up, formac_down, formac_failed) reduction(+:formac_moved) schedule(static)");
  const std::string phasePragma =
      openmp ? "      FORMAC_PRAGMA(omp parallel for reduction(|:formac_failed) reduction(+:formac_moved) schedule(dynamic, 1))\n"
             : "";
  // A selective body counts the points changed: the band sees X<0> too.
  const std::string x0 = lf.selective ? ", const " + T + "* formac_x0" : "";
  std::vector<std::string> inner;
  for (const auto& r : loop.reads) inner.push_back(bn.stage[static_cast<size_t>(r.inner)]);
  std::string args = lf.selective ? "formac_x, formac_x0" : "formac_x";
  for (const auto& a : s.takes.arguments(inner, bn.scalar, bn.param)) args += ", " + a;

  s.function = reachFunction(lf, name, T) +
      "/* Band b's points to its local fixed point: pops a point, recomputes it, and\n"
      "   where it changes queues the points that read it. */\n"
      "static int " + name + "_band(" + T + "* formac_x" + x0 + params + ",\n"
      "    formac_points* formac_todo, unsigned char* formac_queued, long long formac_b, long long formac_band,\n"
      "    unsigned long long* formac_moved) {\n"
      "  const long long formac_rows = " + rows + ", formac_cols = " + cols + ";\n"
      "  formac_points* formac_own = &formac_todo[3 * formac_b];\n"
      "  long long formac_k, formac_side;\n"
      "  for (formac_side = 1; formac_side <= 2; ++formac_side) {  /* what the bands around handed it */\n"
      "    formac_points* formac_in = &formac_todo[3 * formac_b + formac_side];\n"
      "    for (formac_k = 0; formac_k < formac_in->n; ++formac_k)\n"
      "      if (formac_points_push(formac_own, formac_in->v[formac_k])) return 1;\n"
      "    formac_in->n = 0;\n"
      "  }\n"
      "  while (formac_own->head < formac_own->n) {  /* first in, first out: fronts advance together */\n"
      "    const long long formac_p = formac_own->v[formac_own->head++];\n"
      "    " + T + " formac_v;\n"
      "    const long long formac_i = formac_p / formac_cols, formac_j = formac_p % formac_cols;\n"
      "    formac_queued[formac_p] = 0;\n"
      "    if (" + inside + ") {  /* every read inside the image */\n" + valueInside +
      "    } else {\n" + value + "    }\n"
      "    {\n"
      "      if (formac_v != formac_x[formac_p]) {\n"
      + std::string(lf.selective
            ? "        *formac_moved += formac_x[formac_p] == formac_x0[formac_p];  /* the point's first change */\n"
            : "        *formac_moved += formac_v > formac_x[formac_p] ? (unsigned long long)formac_v - (unsigned long long)formac_x[formac_p]\n"
              "                                                       : (unsigned long long)formac_x[formac_p] - (unsigned long long)formac_v;\n") +
      "        formac_x[formac_p] = formac_v;\n"
      "        if (" + name + "_reach(formac_x, formac_todo, formac_queued, formac_b, formac_i, formac_j, formac_rows, formac_cols, formac_band)) return 1;\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "  formac_own->head = formac_own->n = 0;\n"
      "  return 0;\n"
      "}\n"
      "/* The do loop over '" + loop.iterator + "' (line " + std::to_string(loop.loc.line) + ") from round 1's\n"
      "   image x (x0 before it) to its fixed point, in place: " + lf.why + ".\n"
      "   0: x holds the loop's result (passes/LocalFixpoint.h says why it is the\n"
      "   same); 1: run the rounds one by one (round 1 moved points both ways, the\n"
      "   rounds the loop needs may exceed `limit`, or memory ran out). */\n"
      "static int " + name + "(" + T + "* formac_x, const " + T + "* formac_x0" + params +
      ", formac_settle_scratch* formac_s, long long formac_limit, long long* formac_passes) {\n"
      "  const long long formac_rows = " + rows + ", formac_cols = " + cols + ", formac_band = " + band + ";\n"
      "  const long long formac_bands = (formac_rows + formac_band - 1) / formac_band;\n"
      "  if (formac_settle_prepare(formac_s, 3 * formac_bands, formac_rows * formac_cols)) return 1;\n"
      "  formac_points* const formac_todo = formac_s->todo;\n"
      "  unsigned char* const formac_queued = formac_s->queued;\n"
      "  unsigned long long formac_moved = 0;  /* bounds the rounds: " + (lf.selective ? "the points changed" : "the sum of |x - x0|") + " */\n"
      "  int formac_up = 0, formac_down = 0, formac_failed = 0;\n"
      "  long long formac_b;\n"
      "  formac_s->dirty = 1;  /* until every list is empty again */\n"
      "  /* Round 1's changes: their direction, their size, and the points that read them. */\n" + pragma +
      "  for (formac_b = 0; formac_b < formac_bands; ++formac_b) {\n"
      "    const long long formac_end = formac_b * formac_band + formac_band < formac_rows ? formac_b * formac_band + formac_band : formac_rows;\n"
      "    long long formac_i, formac_j;\n"
      "    for (formac_i = formac_b * formac_band; formac_i < formac_end; ++formac_i)\n"
      "      for (formac_j = 0; formac_j < formac_cols; ++formac_j) {\n"
      "        const long long formac_p = formac_i * formac_cols + formac_j;\n"
      "        if (formac_x[formac_p] == formac_x0[formac_p]) continue;\n"
      "        if (formac_x[formac_p] > formac_x0[formac_p]) {\n"
      "          formac_up = 1;\n"
      "          formac_moved += " + std::string(lf.selective ? "1" : "(unsigned long long)formac_x[formac_p] - (unsigned long long)formac_x0[formac_p]") + ";\n"
      "        } else {\n"
      "          formac_down = 1;\n"
      "          formac_moved += " + std::string(lf.selective ? "1" : "(unsigned long long)formac_x0[formac_p] - (unsigned long long)formac_x[formac_p]") + ";\n"
      "        }\n"
      "        formac_failed |= " + name + "_reach(formac_x, formac_todo, formac_queued, formac_b, formac_i, formac_j, formac_rows, formac_cols, formac_band);\n"
      "      }\n"
      "  }\n"
      "  while (!formac_failed && !(formac_up && formac_down) && formac_moved <= (unsigned long long)formac_limit) {\n"
      "    int formac_waiting = 0, formac_parity;\n"
      "    for (formac_b = 0; formac_b < 3 * formac_bands; ++formac_b) formac_waiting |= formac_todo[formac_b].n > 0;\n"
      "    if (!formac_waiting) {\n"
      "      formac_s->dirty = 0;  /* every point popped: every mark clear */\n"
      "      return 0;\n"
      "    }\n"
      "    ++*formac_passes;\n"
      "    for (formac_parity = 0; formac_parity < 2; ++formac_parity) {\n" + phasePragma +
      "      for (formac_b = formac_parity; formac_b < formac_bands; formac_b += 2)\n"
      "        formac_failed |= " + name + "_band(" + args + ", formac_todo, formac_queued, formac_b, formac_band, &formac_moved);\n"
      "    }\n"
      "  }\n"
      "  return 1;\n"
      "}\n\n";
  return s;
}

}  // namespace formac::codegen
