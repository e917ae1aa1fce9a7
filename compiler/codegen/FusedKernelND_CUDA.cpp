// The fused kernel of a group whose sink is not of rank 2 (FusedKernel_CUDA.h):
// blocks of kCudaThreads threads take the sink's tiles in turn (tile b,
// b + gridDim.x, ...; the tile's position from b, last dimension fastest).
// Per tile, each member with a tile computes its region (row-major, one point
// a thread and pass) into shared memory, then the sink computes its tile into
// memory. Interior tiles (every region inside its stage's exact box) run
// check-free code; the others test each point against its stage's box and
// resolve boundary modes where they reach out of the image.
#include "codegen/FusedKernelND_CUDA.h"

#include <sstream>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedStages_CUDA.h"
#include "codegen/StageFacts.h"

namespace formac::codegen {
namespace {

// Where the members' tiles lie in shared memory (16-byte aligned, member order).
struct NdLayout {
  std::map<int, long long> at;
  long long bytes = 0;
  NdLayout(const ir::Pipeline& p, const passes::FusionGroup& g) {
    GroupMembers m(p, g);
    for (const auto& mem : g.members) {
      if (mem.inlined) continue;
      long long n = static_cast<long long>(typeSize(m.stage(mem.stage).type));
      for (size_t d = 0; d < g.tile.size(); ++d) n *= m.span(mem.stage, d);
      at[mem.stage] = bytes;
      bytes = (bytes + n + 15) / 16 * 16;
    }
  }
};

class NdWriter : public FusedStages {
 public:
  explicit NdWriter(const FusedKernelRequest& r) : FusedStages(r), layout_(p_, g_) {}

  std::string run() const {
    std::ostringstream os;
    std::string tile, tiled, recomputed;
    for (size_t d = 0; d < rank(); ++d) tile += (d ? "x" : "") + std::to_string(g_.tile[d]);
    for (const auto& m : g_.members) {
      std::string& list = m.inlined ? recomputed : tiled;
      list += (list.empty() ? "" : ", ") + name(m.stage);
    }
    os << "/* Fused: ";
    for (int id : ids_) os << name(id) << (id == g_.sink ? "" : ", ");
    os << " -- blocks take the " << tile << " tiles of " << name(g_.sink) << " in turn (rank " << rank()
       << ").\n   In shared memory: " << (tiled.empty() ? "nothing" : tiled)
       << ". Recomputed where read: " << (recomputed.empty() ? "nothing" : recomputed) << ". */\n";
    for (int id : ids_) os << stageComment(p_, n_, stage(id), r_.sourcePath);
    std::vector<Stmt> body = tiles();
    body.push_back(decl("int", "formac_tid", "threadIdx.x"));
    for (Stmt& st : boxes()) body.push_back(std::move(st));
    std::vector<Stmt> perTile = tileStart();
    for (Stmt& st : lambdas()) perTile.push_back(std::move(st));
    for (const auto& m : g_.members)
      if (!m.inlined) {
        perTile.push_back(regionCode(m.stage));
        perTile.push_back(eval("__syncthreads()"));
      }
    perTile.push_back(regionCode(g_.sink));
    if (!layout_.at.empty()) {
      perTile.push_back(comment("The next tile reuses the tiles."));
      perTile.push_back(eval("__syncthreads()"));
    }
    body.push_back(tileLoop(std::move(perTile)));
    os << printerFor(true).print(kernelFunction(std::move(body))) << "\n";
    return os.str();
  }

 private:
  std::vector<Stmt> tiles() const {
    if (layout_.at.empty()) return {};
    std::vector<Stmt> t = {sharedMemory()};
    for (const auto& [id, at] : layout_.at) {
      std::string T = cType(stage(id).type), dims;
      for (size_t d = 0; d < rank(); ++d) dims += (d ? " x " : "") + std::to_string(span(id, d));
      t.push_back(comment(dims));
      t.push_back(decl(T + "* const", "tile_" + name(id),
                       "reinterpret_cast<" + T + "*>(formac_smem + " + std::to_string(at) + ")", false));
    }
    return t;
  }

  // The loop over the sink's tiles around `tile`, the statements of one.
  Stmt tileLoop(std::vector<Stmt> tile) const {
    std::string count = "(long long)1";
    std::vector<Stmt> t;
    for (size_t d = 0; d < rank(); ++d) {
      std::string D = std::to_string(d), T = std::to_string(g_.tile[d]);
      // At least 1: an empty extent is never launched, but nvcc warns of a
      // constant 0 divisor below.
      std::string E = "(I)(" + extent(g_.sink, d) + ")";
      t.push_back(decl("I", "formac_n" + D, E + " > 0 ? (" + E + " + " + T + " - 1) / " + T + " : 1"));
      count += " * formac_n" + D;
    }
    t.push_back(decl("long long", "formac_tiles", count));
    return seq({seq(std::move(t)), forLoop("long long formac_b = blockIdx.x", "formac_b < formac_tiles",
                                           "formac_b += gridDim.x", std::move(tile))});
  }

  // A tile's first point (t0, t1, ...), from formac_b, and whether it is
  // interior (every region inside its stage's exact box).
  std::vector<Stmt> tileStart() const {
    std::vector<Stmt> t = {decl("long long", "formac_rest", "formac_b", false)};
    for (size_t k = rank(); k-- > 0;) {
      std::string D = std::to_string(k);
      t.push_back(decl("I", "t" + D, "(I)(formac_rest % formac_n" + D + ") * " + std::to_string(g_.tile[k])));
      if (k) t.push_back(eval("formac_rest /= formac_n" + D));
    }
    t.push_back(eval("(void)formac_rest"));
    for (Stmt& st : interiorFlag()) t.push_back(std::move(st));
    return t;
  }

  // Stage `id` over its region (the sink: its tile, stored to memory where
  // it lies in the image), one point a thread and pass.
  Stmt regionCode(int id) const {
    const bool sink = id == g_.sink;
    long long points = 1;
    for (size_t d = 0; d < rank(); ++d) points *= span(id, d);
    std::string inner = "i";
    std::vector<Stmt> q;
    std::vector<std::string> at;
    for (size_t k = rank(); k-- > 0;) {
      std::string D = std::to_string(k), S = std::to_string(span(id, k));
      q.insert(q.begin(), decl("I", "q" + D, regionOrigin(id, k) + " + " + (k ? "(" + inner + " % " + S + ")" : inner)));
      inner = "(" + inner + " / " + S + ")";
      at.insert(at.begin(), "q" + D);
    }
    std::string store = sink ? memoryElement(g_.sink, at) : "tile_" + name(id) + "[i]";
    std::string inImage;
    for (size_t d = 0; sink && d < rank(); ++d)
      inImage += std::string(d ? " && " : "") + "q" + std::to_string(d) + " < (I)(" + extent(id, d) + ")";
    auto stored = [&](bool checked) {
      std::vector<Stmt> t = pointValue(id, checked);
      t.push_back(assign(store, "v"));
      return t;
    };
    Stmt edge = sink ? ifThen(inImage, stored(true)) : block(stored(true));
    q.push_back(ifThen("formac_interior", stored(false), {edge}));
    return seq({comment(name(id) + (sink ? ": every point of the tile (0 outside its valid box)"
                                        : ": its region, into shared memory")),
                forLoop("int i = formac_tid", "i < " + std::to_string(points), "i += " + std::to_string(kCudaThreads),
                        std::move(q))});
  }

  const NdLayout layout_;
};

}  // namespace

std::string fusedKernelSourceND(const FusedKernelRequest& r) { return NdWriter(r).run(); }

long long fusedSharedBytesND(const ir::Pipeline& p, const passes::FusionGroup& g) { return NdLayout(p, g).bytes; }

}  // namespace formac::codegen
