// Sema's builder (private to compiler/sema): the AST -> ir::Pipeline (Sema.h).
// One class; each section below names the Build*.cpp file that defines it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/Pipeline.h"
#include "parse/AST.h"
#include "sema/Lints.h"
#include "support/Diagnostics.h"

namespace formac::sema {

using ir::Size;
using ir::Stage;

// Limits that keep a hostile program from exhausting time or memory; real
// pipelines are far below them.
constexpr long long kMaxLoopIterations = 100000;  // one `for` loop, unrolled
constexpr size_t kMaxStages = 100000;             // images in the whole pipeline
constexpr size_t kMaxInlineDepth = 256;           // vector functions calling each other
constexpr long long kMaxInlinedCalls = 1000000;   // vector function calls, all inlined

// What a name stands for in a scope.
struct Value {
  enum Kind { Image, Scalar } kind = Image;
  int stage = -1;
  ast::Boundary boundary;  // a vector function's image argument may carry one
  ir::ExprPtr scalar;      // a scalar input or literal
  SourceLoc defined;
};

struct Scope {
  std::map<std::string, Value> names;
  std::map<std::string, long long> iterators;
  std::string prefix;  // for stage names made inside a vector function
  // A `do` loop's body: names it does not define come from `outer`, each
  // image becoming an input of the body's pipeline (importOuter).
  Scope* outer = nullptr;
  std::string doIterator;  // the body's iterator: indices i - 1 and i only
  // Finished `do` loops: iterator -> the suffix of their results' keys.
  std::map<std::string, std::string> finishedLoops;
};

class PipelineBuilder {
 public:
  PipelineBuilder(const ast::Program& prog, Warnings& w) : prog_(prog), warnings_(w) {}

  ir::Pipeline run(const std::string& name);

 private:
  // ------------------------------------------------------------ recovery (BuildPipeline.cpp)
  // Thrown where a statement needs a name whose definition failed: that
  // error is reported already, and this statement is abandoned silently.
  struct Cascade {};

  // Runs one definition, declaration or statement; a user error is recorded
  // (ErrorLog throws them all at its limit) and the unit abandoned, so that
  // the next one is checked too. Returns whether it succeeded.
  template <class Unit>
  bool recovering(Unit&& unit) {
    try {
      unit();
      return true;
    } catch (const Cascade&) {
      return false;
    } catch (const UserError& e) {
      errors_.add(e);
      return false;
    }
  }

  // After a failed statement: its images (every index of g<i>) are not
  // reported unknown later, and the loops and calls it was in are left.
  void abandon(const ast::Stmt& s, Scope& global);

  [[noreturn]] void unknown(const std::string& name, const SourceLoc& loc, const std::string& message);

  // ------------------------------------------------------------ declarations (BuildPipeline.cpp)
  void declareStruct(const ast::StructDef& s);
  Type resolveType(const ast::TypeName& t);
  void declareStencil(const ast::StencilDef& s);
  void declareVectorFn(const ast::VectorFnDef& f);

  template <class Map>
  static std::vector<std::string> keys(const Map& m) {
    std::vector<std::string> out;
    for (const auto& kv : m) out.push_back(kv.first);
    return out;
  }

  void declareParam(const ast::ParamDecl& prm);
  Size size(const ast::SizeExpr& e);
  void declareInput(const ast::InputDecl& in, Scope& global);
  int addStage(Stage s);
  const Stage& stage(int id) const { return p_.stages[static_cast<size_t>(id)]; }
  // How messages name a stage: never by a generated name (ir::describeStage).
  std::string shown(int id) const { return ir::describeStage(p_, id); }

  // ------------------------------------------------------------ statements (BuildPipeline.cpp)
  std::string indexedKey(const std::string& name, const ast::IndexedName& idx, const Scope& sc,
                         const SourceLoc& loc);
  void define(Scope& sc, const std::string& key, Value v, const SourceLoc& loc);
  static std::string sanitize(const std::string& key);

  // Size arithmetic reports an overflow without a location (ir/Size.cpp);
  // this gives such an error the location of the construct being built.
  template <class Build>
  auto located(const SourceLoc& loc, Build&& build) -> decltype(build()) {
    try {
      return build();
    } catch (const UserError& e) {
      if (e.loc().valid()) throw;
      userError(loc, e.message());
    }
  }

  void statement(const ast::Stmt& s, Scope& sc);

  // ------------------------------------------------------------ do loops (BuildLoops.cpp)
  // The state of the `do` loop being built: its body is built into p_ (the
  // enclosing pipeline set aside), its outer images imported as inputs.
  struct LoopBuild {
    ir::Pipeline outer;
    std::shared_ptr<ir::Loop> loop;
    std::map<int, int> imported;  // outer stage -> body input
  };
  std::vector<LoopBuild> loops_;

  // A body Input stage holding outer stage `outer`: once per stage read, and
  // one of its own per carried image (h<0> = a; s<0> = a; carry two images).
  int bodyInput(const Stage& outer, const std::string& name, bool carried = false);

  // `key` defined outside the loop body `sc`: images and reductions become
  // inputs of the body (reads of the enclosing pipeline's stages); scalar
  // inputs and constants are the same in the body.
  std::optional<Value> importOuter(Scope& sc, const std::string& key);

  // `do i = A..N body while (cond);` (LANGUAGE.md §7): the body becomes a
  // pipeline of its own, run round after round by a Loop; the images it
  // carries (X<i> defined in the body with X<A-1> defined before it) are
  // LoopResult stages after it, named X<i>.
  void doLoop(const ast::Stmt& s, Scope& sc);

  bool sameExtent(const std::vector<Size>& a, const std::vector<Size>& b) const;

  // ------------------------------------------------------------ vector expressions (BuildImages.cpp)
  Value imageValue(int stageId);
  Value vexpr(const ast::VExpr& e, Scope& sc);
  int imageOf(const ast::VExpr& e, Scope& sc);
  Value makeStructImage(const ast::VExpr& e, Scope& sc);
  Value fieldImage(const ast::VExpr& e, Scope& sc);

  // `v[lo..hi, ..]`: the image of the sub-domain, re-indexed from 0.
  Value subDomainImage(const ast::VExpr& e, Scope& sc);

  // `v@[(a,s), ...]`: out(q) = v(s*q + a); extent floor(n/s).
  Value sampleImage(const ast::VExpr& e, Scope& sc);

  // `( @[(a,s),...] = e1; [range] = e2; ... )`
  Value composeImage(const ast::VExpr& e, Scope& sc);

  // `out[a.., b..] = e;`: e(0,0) lands at out(a,b); out's extent is n+a per
  // dimension; the rest is 0. An upper bound, when written, cuts e off there.
  // Extra leading axes (`out[1..,3..,5..] = e2d;`) add dimensions of extent
  // a+1 in which e sits at index a.
  int placeSubDomain(const ast::Stmt& s, int src);

  // The lattice of `[a.., b..hi] = e` and the extent it needs.
  void placementAxes(const ast::Domain& dom, const Stage& e, ir::Piece& piece,
                     std::vector<Size>& extent);

  // `out@[(a,s), ...] = e;`: out(s*q + a) = e(q); out's extent is s*n per
  // dimension (offsets do not grow it); points that fall outside are dropped.
  int scatter(const ast::Stmt& s, int src);

  void checkAxes(size_t given, const Stage& e, const SourceLoc& loc);
  std::pair<Size, Size> rangeBounds(const ast::Range& r, const Size& n);
  Stage newStage(Type t, std::vector<Size> extent, const SourceLoc& loc, std::string origin);
  ir::ExprPtr plainRead(int src, std::vector<ir::ReadAxis> axes, std::vector<Size> origin);
  static ir::Piece wholePiece(const std::vector<Size>& extent, const SourceLoc& loc);
  int pointwiseStage(ir::ExprPtr body, std::vector<Size> extent, const SourceLoc& loc,
                     std::string origin);
  void checkSameExtent(const Stage& a, const Stage& b, const SourceLoc& loc);
  std::string extentText(const Stage& s) const { return extentText(s.extent); }
  std::string extentText(const std::vector<Size>& extent) const;

  // ------------------------------------------------------------ global operations (BuildGlobalOps.cpp)
  // `max(img)`, `sum(img, 1)` (LANGUAGE.md §7): a scalar, or an image of one
  // rank less.
  Value reductionValue(const ast::VExpr& e, ir::ReduceOp op, Scope& sc);

  std::string userText(int id) const { return ir::userText(p_, id); }

  // `scan(img, d[, type])`, `sat(img[, type])` (LANGUAGE.md §7): an image of
  // the input's extent.
  Value scanValue(const ast::VExpr& e, Scope& sc);

  // The image argument of a global operation `fn`: an image of numbers, read
  // without a boundary condition.
  int globalOperand(const std::string& fn, const ast::CallArg& a, Scope& sc, const std::string& verb = "reduces");

  // `histogram(img, BINS, LO, HI)` (LANGUAGE.md §7): int64[BINS].
  Value histogramValue(const ast::VExpr& e, Scope& sc);

  // `where(mask, K)`, `topk(img, K)` (LANGUAGE.md §7): int64[K].
  Value selectionValue(const ast::VExpr& e, ir::ReduceOp op, Scope& sc);

  // ------------------------------------------------------------ calls (BuildCalls.cpp)
  Value callValue(const ast::VExpr& e, Scope& sc);

  // A constant(c) boundary must fit the image's element type, each field's
  // for a struct (LANGUAGE.md §7).
  void requireConstantFits(const ast::Boundary& b, int image) const;

  // A stencil application: one stage, one piece covering the extent.
  int applyStencil(const ast::StencilDef& def, const ast::VExpr& call, Scope& sc);

  // The extents as the stencil reads its parameters (down-sampled reads
  // divide them), named by image and parameter.
  void checkSameSampledExtent(const Stage& a, const std::string& pa, const std::vector<Size>& ea,
                              const Stage& b, const std::string& pb, const std::vector<Size>& eb,
                              const SourceLoc& loc);

  Value inlineVectorFn(const ast::VectorFnDef& def, const ast::VExpr& call, Scope& caller);

  // ------------------------------------------------------------ warnings (BuildPipeline.cpp)
  // Imported definitions (from another file than the program's) may go unused.
  void warnUnused(const Scope& global);

  const ast::Program& prog_;
  Warnings& warnings_;
  ErrorLog errors_;
  std::set<std::string> failedNames_;  // definitions and images whose definition failed
  std::map<int, sema::ZeroBorder> zeroBorders_;       // stencil stages computed inside a border
  std::set<const ast::StencilDef*> doubleWarned_;     // warned once per stencil
  ir::Pipeline p_;
  std::map<std::string, const StructType*> structs_;
  std::map<std::string, const ast::StencilDef*> stencils_;
  std::map<std::string, const ast::VectorFnDef*> vectorFns_;
  std::map<std::string, int> paramIndex_;
  std::set<int> used_;
  int loopCount_ = 0;
  std::set<std::string> usedFns_;
  std::vector<const ast::VectorFnDef*> inlining_;  // the calls being inlined, outermost first
  long long inlinedCalls_ = 0;
};

}  // namespace formac::sema
