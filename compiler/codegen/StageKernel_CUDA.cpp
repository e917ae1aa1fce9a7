#include "codegen/StageKernel_CUDA.h"

#include <algorithm>

#include "codegen/FusedKernel_CUDA.h"
#include "codegen/FusedStages_CUDA.h"
#include "codegen/IndexBounds.h"
#include "codegen/StageFacts.h"
#include "passes/Target.h"

namespace formac::codegen {

namespace {

// The statements of one point at (q0, q1, ...): check-free where every
// boundary-mode read is in range (fast_lo/fast_hi), resolved elsewhere.
std::vector<Stmt> cudaPoint(const LoopNestOptions& lo, bool fast) {
  if (!fast) return pointBody(lo, false);
  return {ifThen(fastCondition(lo.piece->axes.size()), pointBody(lo, false), pointBody(lo, true))};
}

// Grid-stride loops over q0..q(r-1) in [LO d, HI d] (LO and HI name the
// bounds: "lo" gives lo0, lo1, ...): x the innermost dimension, y the one
// before, z all outer ones flattened. Along x a thread takes `points` points
// a block's width (bx threads) apart. `inner` gives the statements of one
// point.
std::vector<Stmt> gridLoops(size_t rank, int points, const std::string& LO, const std::string& HI,
                            const std::function<std::vector<Stmt>()>& inner) {
  auto lo = [&](size_t d) { return LO + std::to_string(d); };
  auto hi = [&](size_t d) { return HI + std::to_string(d); };
  auto count = [&](size_t d) { return "(" + hi(d) + " - " + lo(d) + " + 1)"; };
  std::string L = std::to_string(rank - 1), X = "q" + L;
  std::vector<Stmt> loop;
  if (points == 1) {
    loop.push_back(forLoop("I " + X + " = " + lo(rank - 1) + " + (I)blockIdx.x * blockDim.x + threadIdx.x",
                           X + " <= " + hi(rank - 1), X + " += (I)gridDim.x * blockDim.x", inner()));
  } else {
    const std::string bx = std::to_string(rank == 1 ? kCudaThreads : 32), span = bx + " * " + std::to_string(points);
    Stmt point = unrolledLoop("int formac_j = 0", "formac_j < " + std::to_string(points), "++formac_j",
                              {decl("I", X, "formac_first + formac_j * " + bx), ifThen(X + " <= " + hi(rank - 1), inner())});
    loop.push_back(forLoop("I formac_first = " + lo(rank - 1) + " + (I)blockIdx.x * (" + span + ") + threadIdx.x",
                           "formac_first <= " + hi(rank - 1), "formac_first += (I)gridDim.x * (" + span + ")",
                           {point}));
  }
  if (rank >= 2) {
    std::string Y = "q" + std::to_string(rank - 2);
    loop = {forLoop("I " + Y + " = " + lo(rank - 2) + " + (I)blockIdx.y * blockDim.y + threadIdx.y",
                    Y + " <= " + hi(rank - 2), Y + " += (I)gridDim.y * blockDim.y", std::move(loop))};
  }
  if (rank < 3) return loop;
  std::string outerCount = "1";
  for (size_t d = 0; d + 2 < rank; ++d) outerCount += " * " + count(d);
  std::vector<Stmt> outer = {decl("I", "rest", "z", false)};
  for (size_t d = rank - 2; d-- > 0;) {
    outer.push_back(decl("I", "q" + std::to_string(d), lo(d) + " + rest % " + count(d)));
    outer.push_back(eval("rest /= " + count(d)));
  }
  outer.push_back(eval("(void)rest"));
  for (Stmt& s : loop) outer.push_back(std::move(s));
  return {decl("I", "outer_count", outerCount),
          forLoop("I z = (I)blockIdx.z * blockDim.z + threadIdx.z", "z < outer_count", "z += (I)gridDim.z * blockDim.z",
                  std::move(outer))};
}

std::string kernel(const StageKernelRequest& r, size_t piece, std::vector<Stmt> body) {
  Stmt k = function("__global__", "void", r.kernelName(piece), r.params, std::move(body), r.names->param);
  k.templateParams = "typename I";
  k.attributes = "__launch_bounds__(" + std::to_string(kCudaThreads) + ")";
  return r.comment + printerFor(true).print(k) + "\n";
}

// One kernel per piece, over the piece's box.
std::string pieceKernels(const StageKernelRequest& r) {
  std::string t;
  const size_t rank = r.stage->extent.size();
  for (size_t k = 0; k < r.stage->pieces.size(); ++k) {
    LoopNestOptions lo = r.options(r.stage->pieces[k]);
    bool fast = needsBorderChecks(lo);
    std::vector<Stmt> body = boxDeclarations(lo, fast);
    for (Stmt& s : gridLoops(rank, r.pointsPerThread, "lo", "hi", [&] { return cudaPoint(lo, fast); }))
      body.push_back(std::move(s));
    t += kernel(r, k, std::move(body));
  }
  return t;
}

// One kernel over the lattice: the union of the pieces' boxes (in lattice
// indices q), every piece's point computed where q lies in its own box.
std::string latticeKernel(const StageKernelRequest& r) {
  const ir::Stage& s = *r.stage;
  const size_t rank = s.extent.size();
  std::vector<Stmt> body = {comment("The lattice's box: the union of the pieces' (each piece's point p = start + step * q).")};
  for (size_t d = 0; d < rank; ++d) {
    body.push_back(declOnly("I", "formac_lo" + std::to_string(d)));
    body.push_back(declOnly("I", "formac_hi" + std::to_string(d)));
  }
  for (size_t k = 0; k < s.pieces.size(); ++k) {
    LoopNestOptions lo = r.options(s.pieces[k]);
    std::vector<Stmt> box = boxDeclarations(lo, false);
    for (size_t d = 0; d < rank; ++d) {
      std::string D = std::to_string(d), L = "formac_lo" + D, H = "formac_hi" + D;
      box.push_back(assign(L, k == 0 ? "lo" + D : "lo" + D + " < " + L + " ? lo" + D + " : " + L));
      box.push_back(assign(H, k == 0 ? "hi" + D : "hi" + D + " > " + H + " ? hi" + D + " : " + H));
    }
    body.push_back(block(std::move(box)));
  }
  auto point = [&] {
    std::vector<Stmt> t;
    for (size_t k = 0; k < s.pieces.size(); ++k) {
      LoopNestOptions lo = r.options(s.pieces[k]);
      bool fast = needsBorderChecks(lo);
      std::string inside;
      for (size_t d = 0; d < rank; ++d) {
        std::string D = std::to_string(d);
        inside += std::string(d ? " && " : "") + "q" + D + " >= lo" + D + " && q" + D + " <= hi" + D;
      }
      std::vector<Stmt> piece = boxDeclarations(lo, fast);
      piece.push_back(ifThen(inside, cudaPoint(lo, fast)));
      t.push_back(block(std::move(piece), "piece " + std::to_string(k)));
    }
    return t;
  };
  for (Stmt& st : gridLoops(rank, r.pointsPerThread, "formac_lo", "formac_hi", point)) body.push_back(std::move(st));
  return kernel(r, 0, std::move(body));
}

}  // namespace

int stagePointsPerThread(const ir::Pipeline& p, int sid) {
  size_t narrowest = typeSize(p.stages.at(static_cast<size_t>(sid)).type);
  for (int id : producersOf(p, {sid})) narrowest = std::min(narrowest, typeSize(p.stages.at(static_cast<size_t>(id)).type));
  return narrowest >= 16 ? 1 : static_cast<int>(std::min<size_t>(8, 16 / narrowest));
}

bool latticeComposite(const ir::Stage& s) {
  if (s.pieces.size() < 2) return false;
  bool strided = false;
  for (size_t d = 0; d < s.extent.size(); ++d) {
    const int step = s.pieces[0].axes[d].step;
    strided = strided || step > 1;
    for (const auto& pc : s.pieces) {
      long long start;
      if (pc.axes.size() != s.extent.size() || pc.axes[d].step != step || !ir::isConst(pc.axes[d].start, &start) ||
          start < 0 || start >= step)
        return false;
    }
  }
  return strided;
}

std::string stageKernelsCuda(const StageKernelRequest& r) {
  return latticeComposite(*r.stage) ? latticeKernel(r) : pieceKernels(r);
}

std::vector<Stmt> boxDeclarations(const LoopNestOptions& lo, bool fast) {
  std::vector<Stmt> t;
  for (size_t d = 0; d < lo.piece->axes.size(); ++d) {
    std::string D = std::to_string(d);
    t.push_back(decl("I", "lo" + D, "(I)(" + pieceFirstIndex(lo, d) + ")"));
    t.push_back(decl("I", "hi" + D, "(I)(" + pieceLastIndex(lo, d) + ")"));
    if (fast) {
      IndexBound flo{{textTerm("lo" + D)}}, fhi{{textTerm("hi" + D)}};
      flo.add({fastLowerTerms(lo, d)});
      fhi.add({fastUpperTerms(lo, d)});
      t.push_back(decl("I", "fast_lo" + D, "(I)(" + printLower(flo) + ")"));
      t.push_back(decl("I", "fast_hi" + D, "(I)(" + printUpper(fhi) + ")"));
    }
  }
  return t;
}

}  // namespace formac::codegen
