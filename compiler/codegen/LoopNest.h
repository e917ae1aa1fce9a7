// Emits the loop nest of one stage piece as C statements (used by the C
// backend; the CUDA backend emits the same body per thread).
//
// The nest covers the piece's lattice indices q inside its valid box and the
// stage's extent. Along the innermost dimension it splits into a check-free
// run (where every boundary-mode read is in range, seed 002's interior tile
// class) and checked runs at both ends; outer dimensions choose between the
// two per row.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/IndexBounds.h"
#include "codegen/NameScope.h"
#include "codegen/Naming.h"
#include "codegen/Stmt.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

// Whether a None-mode read may leave its producer, by pipeline, piece, stage
// and the read's producer and offsets: a 200,000-term sum asks that of every
// read, several times (LoopNest.cpp); and per pipeline, the parameter values
// it is decided on (those giving no stage a negative extent): computed for
// each read, they made a chain of n stages cost n^2 (a 2,500-stage chain:
// 71% of --emit=c's time).
struct ReadOutsideCache {
  std::map<std::vector<long long>, bool> reads;
  std::map<const ir::Pipeline*, std::vector<std::vector<long long>>> samples;
};

// Which lets of a point emitPointBody prints: all; all but those that depend
// on no point (no read: scalars, parameters and constants), which the caller
// prints once before its loop with emitInvariantLets (a conversion of a
// scalar inside the loop, a ?: gcc 12 cannot vectorize, kept canny_opencv's
// suppression scalar); or only those.
enum class PointLets { All, PointDependent, OnlyInvariant };

struct LoopNestOptions {
  const ir::Pipeline* pipeline = nullptr;
  const ir::Stage* stage = nullptr;
  const ir::Piece* piece = nullptr;
  const Names* names = nullptr;
  bool openmp = true;
  int indent = 1;
  // CUDA flavour of the expressions (see ExprContext::cuda).
  bool cuda = false;
  // Reads of producers served from elsewhere (on-chip tiles); see ExprContext::access.
  std::function<std::string(int id, const std::vector<std::string>& idx)> access;
  // Reads whose value the caller loaded already; see ExprContext::preloaded.
  std::function<std::string(const ir::Expr& read)> preloaded;
  // Reads whose magnitude the caller has bounded; see ExprContext::boundedRead.
  std::function<bool(const ir::Expr& read)> boundedRead;
  bool* boundedFormUsed = nullptr;  // see ExprContext::boundedFormUsed
  // Producers whose reads `access` serves unresolved in border code too; see
  // ExprContext::resolved.
  std::function<bool(int id)> resolved;
  // When set, the point's value is assigned to this variable instead of
  // being stored into the stage's buffer.
  std::string resultVariable;
  // Reads in a branch of ?: of the producers it accepts become lets
  // evaluated first: C vectorizers then see plain loads and a blend, not
  // conditional loads; CUDA selects instead of branches around each load.
  // Every read of a point body is in range or guarded, so loading it
  // unconditionally is safe; the values are the same.
  std::function<bool(int producer)> hoistBranchReads;
  // When set, the reads of producers it accepts that are not under a branch
  // of ?: are loaded before the point's other statements: declared (one line
  // each) into *preloadDeclarations and assigned into *preloadAssignments,
  // under names starting with preloadPrefix; the caller places them, e.g. the
  // loads of several points before any of their arithmetic (CUDA: a correctly
  // rounded division branches, and nvcc does not move loads across it).
  std::function<bool(int producer)> preload;
  std::string preloadPrefix;
  std::vector<Stmt>* preloadDeclarations = nullptr;
  std::vector<Stmt>* preloadAssignments = nullptr;
  PointLets invariantLets = PointLets::All;
  // What deciding whether reads may leave their producers keeps (see
  // ReadOutsideCache). Copies share it; a generator shares one among all its
  // stages' options.
  std::shared_ptr<ReadOutsideCache> outsideCache = std::make_shared<ReadOutsideCache>();
  // The names declared around the statements (the lattice indices q0, q1, ...
  // are the caller's): the nest's bounds and the point's lets are fresh in it.
  const NameScope* scope = nullptr;
};

// The piece's loops: its bounds, then one loop per dimension over q0, q1, ...
Stmt pieceLoops(const LoopNestOptions& o);
// pieceLoops printed at o.indent levels.
std::string emitPieceLoops(const LoopNestOptions& o);

// Whether some read of the piece may leave its image inside the valid box
// (a boundary mode, or a crop beyond its image): the piece then has border
// runs that resolve reads, and a check-free box bounded by the fast bounds.
bool needsBorderChecks(const LoopNestOptions& o);

// Pieces below share these with other backends.
// C expressions for the first and last q computed along dimension d.
std::string pieceFirstIndex(const LoopNestOptions& o, size_t d);
std::string pieceLastIndex(const LoopNestOptions& o, size_t d);
// The bounds of where every boundary-mode read is in range along d, one a
// read (empty when no read constrains d): as terms, and as C (each once).
std::vector<IndexTerm> fastLowerTerms(const LoopNestOptions& o, size_t d);
std::vector<IndexTerm> fastUpperTerms(const LoopNestOptions& o, size_t d);
std::vector<std::string> fastLowerBounds(const LoopNestOptions& o, size_t d);
std::vector<std::string> fastUpperBounds(const LoopNestOptions& o, size_t d);
// The first and last q along d where the piece is computed and every
// boundary-mode read is in range, as C folded where the terms allow
// (max(0, -1, 0, 1) is 1, min(M - 1, (M) - 1 - 1) is (M) - 2).
std::string fastFirstIndex(const LoopNestOptions& o, size_t d);
std::string fastLastIndex(const LoopNestOptions& o, size_t d);
// The statements computing one point at lattice index (q0, q1, ...): lets,
// then the store into the stage buffer.
std::vector<Stmt> pointBody(const LoopNestOptions& o, bool checked);
// The lets of a point that depend on no point (PointLets), under the names
// pointBody gives them.
std::vector<Stmt> invariantLets(const LoopNestOptions& o);
// The two above printed at `indent`.
std::string emitPointBody(const LoopNestOptions& o, bool checked, const std::string& indent);
std::string emitInvariantLets(const LoopNestOptions& o, const std::string& indent);

}  // namespace formac::codegen
