#include "codegen/StageKernel_CUDA.h"

#include <algorithm>

#include "codegen/FusedKernel_CUDA.h"
#include "codegen/IndexBounds.h"
#include "codegen/StageFacts.h"
#include "passes/Target.h"

namespace formac::codegen {

namespace {

// Grid-stride loops over q0..q(r-1) in [LO d, HI d] (LO and HI name the
// bounds: "lo" gives lo0, lo1, ...): x the innermost dimension, y the one
// before, z all outer ones flattened. Along x a thread takes `points` points
// a block's width (bx threads) apart. `inner` prints the statements of one
// point at the indentation it is given.
std::string gridLoops(size_t rank, int points, const std::string& LO, const std::string& HI,
                      const std::function<std::string(const std::string&)>& inner) {
  std::string t, ind = "  ";
  auto lo = [&](size_t d) { return LO + std::to_string(d); };
  auto hi = [&](size_t d) { return HI + std::to_string(d); };
  auto count = [&](size_t d) { return "(" + hi(d) + " - " + lo(d) + " + 1)"; };
  if (rank >= 3) {
    t += ind + "const I outer_count = 1";
    for (size_t d = 0; d + 2 < rank; ++d) t += " * " + count(d);
    t += ";\n" + ind +
         "for (I z = (I)blockIdx.z * blockDim.z + threadIdx.z; z < outer_count; z += (I)gridDim.z * blockDim.z) {\n";
    ind += "  ";
    t += ind + "I rest = z;\n";
    for (size_t d = rank - 2; d-- > 0;) {
      t += ind + "const I q" + std::to_string(d) + " = " + lo(d) + " + rest % " + count(d) + ";\n";
      t += ind + "rest /= " + count(d) + ";\n";
    }
    t += ind + "(void)rest;\n";
  }
  if (rank >= 2) {
    std::string Y = std::to_string(rank - 2);
    t += ind + "for (I q" + Y + " = " + lo(rank - 2) + " + (I)blockIdx.y * blockDim.y + threadIdx.y; q" + Y +
         " <= " + hi(rank - 2) + "; q" + Y + " += (I)gridDim.y * blockDim.y) {\n";
    ind += "  ";
  }
  std::string L = std::to_string(rank - 1), X = "q" + L;
  if (points == 1) {
    t += ind + "for (I " + X + " = " + lo(rank - 1) + " + (I)blockIdx.x * blockDim.x + threadIdx.x; " + X + " <= " +
         hi(rank - 1) + "; " + X + " += (I)gridDim.x * blockDim.x) {\n";
    t += inner(ind + "  ") + ind + "}\n";
  } else {
    const std::string bx = std::to_string(rank == 1 ? kCudaThreads : 32), span = bx + " * " + std::to_string(points);
    t += ind + "for (I formac_first = " + lo(rank - 1) + " + (I)blockIdx.x * (" + span + ") + threadIdx.x; formac_first <= " +
         hi(rank - 1) + "; formac_first += (I)gridDim.x * (" + span + ")) {\n";
    t += ind + "  #pragma unroll\n";
    t += ind + "  for (int formac_j = 0; formac_j < " + std::to_string(points) + "; ++formac_j) {\n";
    t += ind + "    const I " + X + " = formac_first + formac_j * " + bx + ";\n";
    t += ind + "    if (" + X + " <= " + hi(rank - 1) + ") {\n";
    t += inner(ind + "      ") + ind + "    }\n" + ind + "  }\n" + ind + "}\n";
  }
  for (size_t d = 0; d < std::min<size_t>(rank, 3) - 1; ++d) {
    ind.resize(ind.size() - 2);
    t += ind + "}\n";
  }
  return t;
}

std::string kernelOpening(const StageKernelRequest& r, size_t piece) {
  return r.comment + "template <typename I>\n__global__ void __launch_bounds__(" + std::to_string(kCudaThreads) +
         ") " + r.kernelName(piece) + "(" + r.params + ") {\n";
}

std::string closing(const StageKernelRequest& r, const std::string& body) {
  return body + unusedParameters(r.names->param, body) + "}\n\n";
}

// One kernel per piece, over the piece's box.
std::string pieceKernels(const StageKernelRequest& r) {
  std::string t;
  const size_t rank = r.stage->extent.size();
  for (size_t k = 0; k < r.stage->pieces.size(); ++k) {
    LoopNestOptions lo = r.options(r.stage->pieces[k]);
    bool fast = needsBorderChecks(lo);
    std::string body = boxDeclarations(lo, fast, "  ") +
                       gridLoops(rank, r.pointsPerThread, "lo", "hi", [&](const std::string& in) { return cudaPointCode(lo, fast, in); });
    t += kernelOpening(r, k) + closing(r, body);
  }
  return t;
}

// One kernel over the lattice: the union of the pieces' boxes (in lattice
// indices q), every piece's point computed where q lies in its own box.
std::string latticeKernel(const StageKernelRequest& r) {
  const ir::Stage& s = *r.stage;
  const size_t rank = s.extent.size();
  std::string body = "  /* The lattice's box: the union of the pieces' (each piece's point p = start + step * q). */\n"
                     "  I";
  for (size_t d = 0; d < rank; ++d)
    body += std::string(d ? "," : "") + " formac_lo" + std::to_string(d) + ", formac_hi" + std::to_string(d);
  body += ";\n";
  for (size_t k = 0; k < s.pieces.size(); ++k) {
    LoopNestOptions lo = r.options(s.pieces[k]);
    body += "  {\n" + boxDeclarations(lo, false, "    ");
    for (size_t d = 0; d < rank; ++d) {
      std::string D = std::to_string(d), L = "formac_lo" + D, H = "formac_hi" + D;
      body += k == 0 ? "    " + L + " = lo" + D + ", " + H + " = hi" + D + ";\n"
                     : "    " + L + " = lo" + D + " < " + L + " ? lo" + D + " : " + L + ", " + H + " = hi" + D +
                           " > " + H + " ? hi" + D + " : " + H + ";\n";
    }
    body += "  }\n";
  }
  body += gridLoops(rank, r.pointsPerThread, "formac_lo", "formac_hi", [&](const std::string& in) {
    std::string t;
    for (size_t k = 0; k < s.pieces.size(); ++k) {
      LoopNestOptions lo = r.options(s.pieces[k]);
      bool fast = needsBorderChecks(lo);
      std::string inside;
      for (size_t d = 0; d < rank; ++d) {
        std::string D = std::to_string(d);
        inside += std::string(d ? " && " : "") + "q" + D + " >= lo" + D + " && q" + D + " <= hi" + D;
      }
      t += in + "{  /* piece " + std::to_string(k) + " */\n" + boxDeclarations(lo, fast, in + "  ") + in + "  if (" +
           inside + ") {\n" + cudaPointCode(lo, fast, in + "    ") + in + "  }\n" + in + "}\n";
    }
    return t;
  });
  return kernelOpening(r, 0) + closing(r, body);
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

std::string boxDeclarations(const LoopNestOptions& lo, bool fast, const std::string& ind) {
  std::string t;
  for (size_t d = 0; d < lo.piece->axes.size(); ++d) {
    std::string D = std::to_string(d);
    t += ind + "const I lo" + D + " = (I)(" + pieceFirstIndex(lo, d) + ");\n";
    t += ind + "const I hi" + D + " = (I)(" + pieceLastIndex(lo, d) + ");\n";
    if (fast) {
      IndexBound flo{{textTerm("lo" + D)}}, fhi{{textTerm("hi" + D)}};
      flo.add({fastLowerTerms(lo, d)});
      fhi.add({fastUpperTerms(lo, d)});
      t += ind + "const I fast_lo" + D + " = (I)(" + printLower(flo) + ");\n";
      t += ind + "const I fast_hi" + D + " = (I)(" + printUpper(fhi) + ");\n";
    }
  }
  return t;
}

}  // namespace formac::codegen
