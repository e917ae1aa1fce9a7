// The pipeline IR: a producer-consumer DAG of stages, the input of every pass
// and backend.
//
// Semantics (the evaluator in compiler/eval implements exactly this):
//  * A Stage is an image: an element type and an extent (one Size per
//    dimension, row-major, the last dimension contiguous). Input stages are
//    caller buffers. Every other stage is defined by Pieces.
//  * Every point of a computed stage starts as 0 (all fields 0 for structs).
//    Each Piece then defines the points of a lattice: along dimension d the
//    points p = start[d] + step[d]*q for q in [0, count[d]) that lie inside
//    the stage's extent. Pieces apply in order; a later one overwrites.
//  * At lattice index q, the piece's body runs: its Lets in order, then its
//    result. Inside the body, an ImageRead of producer P with axis (a, s) and
//    origin o reads P at index s*q[f+d] + a + o[d] along each dimension d (o is
//    a Size, empty meaning 0; f is the read's firstDim, non-zero only when a
//    lower-rank image is placed into a higher-rank one).
//  * A piece computes only the lattice indices q inside its valid box
//    [validLo, validHi] (inclusive, per dimension); elsewhere the stage keeps
//    its previous value (0). Sema derives the box from the reads that have no
//    boundary mode, as Forma does (LANGUAGE.md §5), so such reads stay inside
//    their producers there.
//  * An out-of-range read resolves by the read's boundary mode: Clamped /
//    Extend replicate the edge, Mirror reflects without repeating the edge
//    (-1 -> 1, n -> n-2, repeatedly until inside; n == 1 reads 0), Wrap takes
//    the index mod n, Constant reads the constant. A None-mode read that is
//    still out of range (an absolute index, a sub-domain beyond its image)
//    reads 0.
//  * Expressions follow C: the types recorded on each node are the C types,
//    arithmetic is done in those types, in the order of the tree.
//  * A Reduce stage (LANGUAGE.md §7) combines the values of its reduction's
//    input: a piece whose lattice is the reduced domain (start 0, step 1,
//    count the domain's extent, the whole valid box), its body the value at
//    each point. dim = -1 combines every point and the stage has rank 0 (one
//    value); dim = d combines along q[d] for each index of the other
//    dimensions, and the stage's extent is the domain's without d. Each op:
//      Sum    integers: int64, wrapping modulo 2^64; floating: double, every
//             value converted to double and added in the order of
//             ir::floatingSumOrder below, which every backend follows bit for
//             bit. An empty domain gives 0.
//      Min    the element type; floating: NaN values are skipped (NaN only if
//      Max    every value is NaN), -0 orders below +0. An empty domain gives
//             the type's highest (Min) or lowest (Max) value, +-inf floating.
//      Count  int64: the values != 0 (NaN counts).
//      Any    int: 1 if some value != 0, else 0.
//      All    int: 1 if every value != 0 (an empty domain too), else 0.
//      Histogram  int64[bins] (dim is -1, the stage has rank 1): value v
//             counts in bin b = floor(((double)v - lo) * bins / (hi - lo)),
//             computed in double in that order, when lo <= v < hi and
//             0 <= b < bins; other values (NaN too) are not counted.
//      Where  int64[k] (dim -1, rank 1): the row-major linear indices of the
//             first k points whose value != 0, in increasing order, then -1.
//      TopK   int64[k] (dim -1, rank 1): the indices of the k largest values
//             in decreasing order of value (floating: -0 below +0), equal
//             values by increasing index; NaN is never chosen; then -1.
//    The values run in row-major order of q (along d: in order of q[d]).
//  * A LoopResult stage is one image carried by a Loop (LANGUAGE.md §7 `do`)
//    after its last round. A Loop runs its body pipeline round after round,
//    at most `rounds` times (none when rounds <= 0): the body's inputs are the
//    carried images' values before the round (the initial stages' values
//    before the first) and the outer stages it reads; after a round the
//    carried images take the values of the body's `next` stages, and the
//    loop stops when the body's condition stage (rank 0) is 0. The loop's
//    LoopResult stages are consecutive, one per carried image, in order.
//  * A Scan stage (LANGUAGE.md §7) has the extent of its input piece (start
//    0, step 1, the whole domain). Each value is converted to the
//    accumulation type A (int64 for integer elements, double for floating
//    ones); dim = d replaces every line along d (one per index of the other
//    dimensions) by its inclusive prefix sums; dim = -1 (sat) does that along
//    the last dimension, then along each earlier one down to 0, the values
//    staying in A between dimensions. Each sum is then converted to the
//    stage's type as cast<T> converts. Integer sums are exact, wrapping
//    modulo 2^64; floating ones follow the floating Scan order below, which
//    every backend follows bit for bit.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/BoundaryMode.h"
#include "ir/Size.h"
#include "ir/Types.h"
#include "support/Diagnostics.h"

namespace formac::ir {

using formac::BoundaryMode;

struct ReadAxis {
  int offset = 0;
  int scale = 1;
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

enum class UnOp { Neg, Not };
enum class BinOp { Add, Sub, Mul, Div, Mod, Pow, Lt, Gt, Le, Ge, Eq, Ne, And, Or };
const char* binOpSpelling(BinOp op);  // C spelling; Pow prints as a call

// The built-in math functions (LANGUAGE.md §3).
enum class MathFn { Sqrt, Exp, Log, Pow, Sin, Cos, Tan, Atan, Atan2, Fabs, Abs, Absd, Min, Max,
                    Floor, Ceil, Round };
const char* mathFnName(MathFn f);

struct Expr {
  enum Kind {
    Const,      // a literal of `type` (intValue or floatValue)
    ImageRead,  // producer stage at (axes), boundary mode; `field` >= 0 reads one struct field
    IndexRead,  // producer stage at absolute indices args[d] (int), boundary mode
    ScalarIn,   // a scalar input of the pipeline (Pipeline::scalars[scalar])
    Local,      // the value of Let `local` of the enclosing body
    Unary,
    Binary,
    Select,     // args[0] ? args[1] : args[2]
    Call,       // math function
    Cast,       // conversion of args[0] to `type`
    Field,      // field `field` of struct-valued args[0]
    MakeStruct, // struct `type` from args (one per field, already converted)
  } kind = Const;
  Type type;
  long long intValue = 0;
  double floatValue = 0.0;
  int producer = -1;  // ImageRead / IndexRead: stage id
  std::vector<ReadAxis> axes;
  std::vector<Size> origin;  // ImageRead: symbolic shift per dimension (empty: none)
  int firstDim = 0;          // ImageRead: axis d uses lattice index q[firstDim + d]
  BoundaryMode mode = BoundaryMode::None;
  double constant = 0.0;  // BoundaryMode::Constant value
  int field = -1;
  int scalar = -1;
  int local = -1;
  UnOp unOp = UnOp::Neg;
  BinOp binOp = BinOp::Add;
  MathFn fn = MathFn::Sqrt;
  std::vector<ExprPtr> args;
};

// `t = e;` of a stencil body; every assignment is its own Let (SSA), already
// converted to the local's declared type.
struct Let {
  std::string name;  // source name (t, t_1 for a reassignment)
  Type type;
  ExprPtr value;
};

struct Body {
  std::vector<Let> lets;
  ExprPtr result;
};

// Drops the lets the result does not need (directly or through other lets)
// and renumbers the others: they have no effect, and a backend would declare
// variables it never reads (-Wunused-variable).
void dropUnusedLets(Body& b);

struct PieceAxis {
  Size start;    // first point
  int step = 1;  // distance between points
  Size count;    // number of points
};

struct Piece {
  std::vector<PieceAxis> axes;  // p = start + step*q, q in [0, count), per dimension
  std::vector<Size> validLo, validHi;  // the q computed, per dimension (inclusive)
  Body body;
  SourceLoc loc;
};

// The floating Sum order: the values x[0..n) in chunks of kSumChunk; in each
// chunk, lane j (j < kSumLanes) adds, starting from +0.0, the chunk's x[k] with
// k = j mod kSumLanes in increasing k; then the lanes fold pairwise, a[j] =
// a[j] + a[j+s] for j < s, s = 16, 8, 4, 2, 1, and a[0] is the chunk's sum.
// One chunk: its sum is the result; several: the chunk sums are summed by the
// same rule; none: +0.0. Chunks let a CPU thread or a GPU warp take one each,
// and lanes are a warp's, or a CPU vector's accumulators.
constexpr long long kSumChunk = 2048;
constexpr int kSumLanes = 32;

// The floating Scan order along one line x[0..n): the line is cut into runs
// of kScanRun consecutive values (the last may be shorter). Within run r
// (values x[rR..]), l[i] = ((+0.0 + x[rR]) + x[rR+1]) + ... + x[i], and the
// run's total t[r] is l at its last value. The run's exclusive prefix is
// E[0] = +0.0, E[r] = E[r - b] + G(r - b, b) with b = r & -r (r's lowest set
// bit), where G(s, 1) = t[s] and G(s, 2m) = G(s, m) + G(s + m, m): aligned
// groups summed as balanced trees. The result is S[i] = E[r] + l[i].
// G and E depend only on the runs before r, so a GPU block can publish its
// groups and a later block combine them in this order without waiting for a
// chain of prefixes (a deterministic decoupled look-back); a CPU computes G
// by a Blelloch up-sweep over the run totals.
constexpr int kScanRun = 8;

enum class ReduceOp { Sum, Min, Max, Count, Any, All, Histogram, Where, TopK };
const char* reduceOpName(ReduceOp op);  // the language's spelling: "sum"
// The result type of `op` over images of `element` (a scalar type).
ScalarKind reduceResultType(ReduceOp op, ScalarKind element);

struct Reduction {
  ReduceOp op = ReduceOp::Sum;
  int dim = -1;  // -1: every point; else the dimension combined
  Piece input;   // lattice: the reduced domain; body: the value at each point
  long long bins = 0;         // Histogram; Where, TopK: k
  double lo = 0.0, hi = 0.0;  // Histogram: the range counted, [lo, hi)
};

// A prefix sum (LANGUAGE.md §7 scan and sat).
struct Scan {
  int dim = -1;  // the dimension scanned; -1: every one (sat), last first
  Piece input;   // lattice: the stage's whole domain; body: the value at each point
  ScalarKind accumulate = ScalarKind::Int64;  // Int64 or Double
};

struct Pipeline;

// A `do` loop (LANGUAGE.md §7): its body is a pipeline of its own, with the
// outer pipeline's parameters and scalar inputs.
struct Loop {
  struct Binding {
    int outer = -1;  // a stage of the enclosing pipeline
    int inner = -1;  // the body's Input stage holding its value
  };
  std::shared_ptr<Pipeline> body;
  std::vector<Binding> carried;  // outer: the value before round 1 (X<A-1>); inner: X<i-1>
  std::vector<int> next;         // per carried image: the body stage of X<i>
  std::vector<Binding> reads;    // other outer stages the body reads
  int condition = -1;            // the body stage (rank 0) the loop continues while != 0
  Size rounds;                   // the most rounds
  std::string iterator;          // for messages and comments
  SourceLoc loc;
};

struct Stage {
  int id = -1;
  std::string name;  // the image name, or a generated one (_t3)
  enum Kind { Input, Computed, Reduce, Scan, LoopResult } kind = Computed;
  Type type;
  std::vector<Size> extent;
  std::vector<Piece> pieces;  // Computed
  Reduction reduction;        // Reduce
  ir::Scan scan;              // Scan
  std::shared_ptr<const Loop> loop;  // LoopResult: the loop, shared by its results
  int loopIndex = -1;                // LoopResult: which carried image
  SourceLoc loc;       // the statement that defines it
  std::string origin;  // what it computes, for comments: "blurx(input)"
  std::string userName;  // as the program names it ("g<4>"); empty: an unnamed result
  int rank() const { return static_cast<int>(extent.size()); }
};

// Calls `f` on every piece of stage `s` that defines values: its pieces, or
// its reduction's or scan's input.
template <typename F>
void forEachPiece(const Stage& s, F&& f) {
  if (s.kind == Stage::Reduce) f(s.reduction.input);
  if (s.kind == Stage::Scan) f(s.scan.input);
  for (const auto& pc : s.pieces) f(pc);
}
template <typename F>
void forEachPiece(Stage& s, F&& f) {
  if (s.kind == Stage::Reduce) f(s.reduction.input);
  if (s.kind == Stage::Scan) f(s.scan.input);
  for (auto& pc : s.pieces) f(pc);
}

struct Param {
  std::string name;
  bool hasDefault = false;
  long long defaultValue = 0;
};

struct ScalarInput {
  std::string name;
  ScalarKind type;
};

// An argument of the generated entry point, in order.
struct EntryArg {
  enum Kind { Image, Scalar } kind;
  int index;  // stage id for Image, index into scalars for Scalar
};

struct Pipeline {
  std::string name;
  std::vector<std::shared_ptr<StructType>> structs;  // owns the struct types
  std::vector<Param> params;
  std::vector<ScalarInput> scalars;
  std::vector<Stage> stages;  // topological order: producers before consumers
  std::vector<EntryArg> inputs;  // declaration order
  std::vector<int> outputs;      // stage ids returned
  std::vector<std::string> paramNames() const;
};

// What the program wrote for stage `id`: its name ("g<4>"), else the
// expression that computes it ("sobel_x(gaussian3x3(in:mirror):mirror)").
// Never a generated name (_t3, g_4): messages use these.
std::string userText(const Pipeline& p, int id);
// "'g<4>'", else "the result of 'blurx(input)' (line 7)".
std::string describeStage(const Pipeline& p, int id);
// The short form for dumps (--emit=plan): "'g<4>'", else "blurx(input)".
std::string displayName(const Pipeline& p, int id);

}  // namespace formac::ir
