#include "codegen/FusedStaging_CUDA.h"

#include <algorithm>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedKernel_CUDA.h"

namespace formac::codegen {

// Interior blocks whose staged inputs are 16-byte aligned (rows too) and
// whose copies lie inside the images: the condition, and the copies.
std::string StagedCopies::condition(const std::vector<const Staged*>& staged) const {
  std::string t = "formac_interior";
  for (const Staged* s : staged) {
    std::string rows = extent(s->input, 0), cols = extent(s->input, 1);
    t += " &&\n      (reinterpret_cast<unsigned long long>(" + name(s->input) + ") & 15) == 0 && (I)(" + cols +
         ") % " + std::to_string(s->vec) + " == 0 && " + origin(*s, 0) + " >= 0 && " + origin(*s, 0) + " + " +
         std::to_string(s->size[0] - 1) + " < (I)(" + rows + ") && " + origin(*s, 1) + " >= 0 && " + origin(*s, 1) +
         " + " + std::to_string(s->size[1] - 1) + " < (I)(" + cols + ")";
  }
  return t;
}
// How the threads copy a staged input, 16 bytes (a piece) at a time. Rows
// of at most kCudaThreads pieces: thread t copies piece t % perRow of rows
// t / perRow + k * step (k = 0, 1, ...; step rows a round), so its
// addresses move by a constant from one round to the next and it computes
// its row and column once (against a division and a remainder a piece).
// Wider rows: piece i (row i / perRow) by thread i % kCudaThreads.
StagedCopies::CopyPlan StagedCopies::copyPlan(const Staged& s) {
  CopyPlan c;
  c.perRow = s.size[1] / s.vec;
  if (c.perRow > kCudaThreads) return c;
  c.step = kCudaThreads / c.perRow;
  for (int r = 0; r < s.size[0]; r += c.step) c.last.push_back(std::min(c.step, s.size[0] - r));
  return c;
}
// formac_cr_X / formac_cc_X: the row and element column of the thread's piece.
std::string StagedCopies::copyRow(const Staged& s) const { return "formac_cr_" + name(s.input); }
std::string StagedCopies::copyCol(const Staged& s) const { return "formac_cc_" + name(s.input); }
// The row of the thread's piece in round k.
std::string StagedCopies::copyRowAt(const Staged& s, size_t k, const CopyPlan& c) const {
  return k ? "(" + copyRow(s) + " + " + std::to_string(k * static_cast<size_t>(c.step)) + ")" : copyRow(s);
}
// Each round's statement, `line(round)`, under the plan's thread test (and
// the round's own where it has fewer rows).
Stmt StagedCopies::copyRounds(const Staged& s, const CopyPlan& c, const std::function<Stmt(size_t)>& line) const {
  std::vector<Stmt> rounds;
  for (size_t k = 0; k < c.last.size(); ++k)
    rounds.push_back(c.last[k] < c.step ? ifThen(copyRow(s) + " < " + std::to_string(c.last[k]), {line(k)}) : line(k));
  return ifThen("formac_tid < " + std::to_string(c.step * c.perRow), std::move(rounds));
}
std::vector<Stmt> StagedCopies::copies(const std::vector<const Staged*>& staged) const {
  std::vector<Stmt> t;
  for (const Staged* s : staged) {
    const CopyPlan c = copyPlan(*s);
    std::string R = std::to_string(c.perRow), V = std::to_string(s->vec), n = name(s->input);
    std::string cols = extent(s->input, 1), W = std::to_string(s->size[1]);
    t.push_back(comment(n + ": rows " + origin(*s, 0) + ".., columns " + origin(*s, 1) + ".., 16 bytes a copy" +
                        (c.step ? "; thread t: piece t % " + R + " of rows t / " + R + " + " + std::to_string(c.step) + " k"
                                : "")));
    if (!c.step) {
      t.push_back(forLoop("int i = formac_tid", "i < " + std::to_string(s->size[0] * c.perRow),
                          "i += " + std::to_string(kCudaThreads),
                          {decl("int", "r", "i / " + R), decl("int", "c", "(i % " + R + ") * " + V),
                           eval("formac_copy16(" + copyName(s->input) + " + r * " + W + " + c, " + n + " + ((" +
                                origin(*s, 0) + " + r) * (" + cols + ") + (" + origin(*s, 1) + " + c)))")}));
      continue;
    }
    t.push_back(decl("int", copyRow(*s), "formac_tid / " + R));
    t.push_back(decl("int", copyCol(*s), "(formac_tid % " + R + ") * " + V));
    t.push_back(copyRounds(*s, c, [&](size_t k) {
      std::string r = copyRowAt(*s, k, c);
      return eval("formac_copy16(" + copyName(s->input) + " + " + r + " * " + W + " + " + copyCol(*s) + ", " + n +
                  " + ((" + origin(*s, 0) + " + " + r + ") * (" + cols + ") + (" + origin(*s, 1) + " + " + copyCol(*s) +
                  ")))");
    }));
  }
  t.push_back(eval("formac_copy_wait()"));
  return t;
}
// Whether wide() checks the magnitude of `s`'s values: those of a
// floating type. Not a struct's fields, even a lone float's: its reads are
// not bounded (ExprContext::boundedRead).
bool StagedCopies::checksBound(const Staged& s) const {
  const Type& t = stage(s.input).type;
  return !t.isStruct() && isFloating(t.scalar);
}
// Whether some staged value reaches 2^100 in magnitude (2^1000 for double;
// NaN does not count): each thread looks at the pieces it copied (its own
// writes, complete after formac_copy_wait), and the block's barrier then
// ORs the answers.
std::vector<Stmt> StagedCopies::wide(const std::vector<const Staged*>& staged) const {
  std::vector<Stmt> t = {decl("bool", "formac_wide", "false", false)};
  for (const Staged* s : staged) {
    if (!checksBound(*s)) continue;
    const bool f = stage(s->input).type.scalar == ScalarKind::Float;
    const std::string piece = f ? "float4" : "double2", max = f ? "fmaxf" : "fmax";
    const CopyPlan c = copyPlan(*s);
    std::string v = "reinterpret_cast<const " + piece + "*>(" + copyName(s->input) + ")";
    std::vector<Stmt> m = {decl(f ? "float" : "double", "m", "0", false)};
    auto widest = [&](const std::string& at) { return assign("m", max + "(m, formac_max_abs16(" + v + "[" + at + "]))"); };
    if (!c.step) {
      // Piece i was copied by thread i % kCudaThreads: one line a round, so
      // that nvcc need not know formac_tid < kCudaThreads.
      const int pieces = s->size[0] * c.perRow;
      for (int at = 0; at < pieces; at += kCudaThreads) {
        Stmt one = widest("formac_tid + " + std::to_string(at));
        m.push_back(pieces - at < kCudaThreads ? ifThen("formac_tid < " + std::to_string(pieces - at), {one}) : one);
      }
    } else {
      m.push_back(copyRounds(*s, c, [&](size_t k) {
        return widest(copyRowAt(*s, k, c) + " * " + std::to_string(c.perRow) + " + " + copyCol(*s) + " / " +
                      std::to_string(s->vec));
      }));
    }
    m.push_back(assign("formac_wide", std::string("formac_wide || !(m < ") + (f ? "1.26765060e30f" : "1.0715086071862673e301") + ")"));
    t.push_back(block(std::move(m)));
  }
  return t;
}

std::string asyncCopyHelpers() {
  return "/* A 16-byte copy from global to shared memory that does not wait (cp.async, sm_80 on),\n"
         "   and the wait for this thread's copies; the block then synchronises. */\n"
         "static __device__ __forceinline__ void formac_copy16(void* dst, const void* src) {\n"
         "#if __CUDA_ARCH__ >= 800\n"
         "  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\"\n"
         "               :: \"r\"((unsigned)__cvta_generic_to_shared(dst)), \"l\"(src) : \"memory\");\n"
         "#else\n"
         "  *reinterpret_cast<int4*>(dst) = *reinterpret_cast<const int4*>(src);\n"
         "#endif\n"
         "}\n"
         "static __device__ __forceinline__ void formac_copy_wait() {\n"
         "#if __CUDA_ARCH__ >= 800\n"
         "  asm volatile(\"cp.async.wait_all;\" ::: \"memory\");\n"
         "#endif\n"
         "}\n"
         "/* The largest magnitude in 16 copied bytes (NaN ignored). */\n"
         "static __device__ __forceinline__ float formac_max_abs16(const float4 v) {\n"
         "  return fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w)));\n"
         "}\n"
         "static __device__ __forceinline__ double formac_max_abs16(const double2 v) { return fmax(fabs(v.x), fabs(v.y)); }\n";
}

}  // namespace formac::codegen
