// Calls of the program's functions: a stencil applied (its arguments bound,
// its body lowered by StencilBody, its extent and valid box computed) and a
// vector function inlined; callValue also sends the global operations on.
#include <algorithm>

#include "sema/ExprBuilder.h"
#include "sema/GlobalOps.h"
#include "sema/Lints.h"
#include "sema/PipelineBuilder.h"
#include "sema/StencilBody.h"
#include "support/Suggest.h"

namespace formac::sema {
namespace {

// Why a Reduce stage given for a scalar is an image, and how to use it.
std::string imageReductionNote(const Stage& s) {
  switch (s.reduction.op) {
    case ir::ReduceOp::Histogram: return " (histogram's bins)";
    case ir::ReduceOp::Where:
    case ir::ReduceOp::TopK:
      return std::string(" (") + ir::reduceOpName(s.reduction.op) +
             "'s indices; pass it as a vector#1 int64 parameter and read one, e.g. T[0])";
    default: return " (a reduction along one dimension)";
  }
}

// A literal argument for a scalar parameter of type `k`: converted, and an
// error where it does not fit (LANGUAGE.md §7).
ir::ExprPtr literalArgument(const ast::CallArg& arg, ScalarKind k, const std::string& param,
                            const std::string& callee) {
  bool isInt = arg.literal->kind == ast::Expr::IntLit;
  double v = isInt ? static_cast<double>(arg.literal->intValue) : arg.literal->floatValue;
  sema::requireLiteralFits(v, isInt, k, arg.loc,
                           "the argument %v for parameter '" + param + "' of '" + callee + "' does not fit its type");
  return sema::constOf(v, isInt, k);
}

long long ceilDiv(long long a, long long b) { return -ir::floorDiv(-a, b); }

}  // namespace

Value PipelineBuilder::callValue(const ast::VExpr& e, Scope& sc) {
  bool builtinScan = (e.name == "scan" || e.name == "sat") && !stencils_.count(e.name) && !vectorFns_.count(e.name);
  for (const auto& a : e.args)
    if (a.typeArg && !builtinScan)
      userError(a.loc, "a type name is an argument only of 'scan' and 'sat' (the type of their result), not of '" +
                           e.name + "'");
  auto st = stencils_.find(e.name);
  if (st != stencils_.end()) {
    usedFns_.insert(e.name);
    return imageValue(applyStencil(*st->second, e, sc));
  }
  auto vf = vectorFns_.find(e.name);
  if (vf != vectorFns_.end()) {
    usedFns_.insert(e.name);
    return inlineVectorFn(*vf->second, e, sc);
  }
  if (auto op = sema::reductionNamed(e.name)) return reductionValue(e, *op, sc);
  if (e.name == "histogram") return histogramValue(e, sc);
  if (e.name == "where") return selectionValue(e, ir::ReduceOp::Where, sc);
  if (e.name == "topk") return selectionValue(e, ir::ReduceOp::TopK, sc);
  if (builtinScan) return scanValue(e, sc);
  std::vector<std::string> fns = keys(stencils_);
  for (const auto& [name, def] : vectorFns_) fns.push_back(name);
  for (const char* builtin : {"sum", "min", "max", "count", "any", "all", "histogram", "where", "topk", "scan", "sat"})
    fns.push_back(builtin);
  unknown(e.name, e.loc, "unknown function '" + e.name + "'" + didYouMean(e.name, fns));
}

void PipelineBuilder::requireConstantFits(const ast::Boundary& b, int image) const {
  const Stage& s = stage(image);
  if (!s.type.isStruct())
    sema::requireLiteralFits(b.constant, b.constantIsInt, s.type.scalar, b.constantLoc,
                             "constant(%v) does not fit the elements of '" + s.name + "', of type");
  else
    for (const auto& f : s.type.structType->fields)
      sema::requireLiteralFits(b.constant, b.constantIsInt, f.type, b.constantLoc,
                               "constant(%v) does not fit field '" + f.name + "' of '" + s.name + "', of type");
}

int PipelineBuilder::applyStencil(const ast::StencilDef& def, const ast::VExpr& call, Scope& sc) {
  if (call.args.size() != def.params.size())
    userError(call.loc, "stencil '" + def.name + "' takes " + std::to_string(def.params.size()) +
                            " argument" + (def.params.size() == 1 ? "" : "s") + ", " +
                            std::to_string(call.args.size()) + " given");
  std::map<std::string, sema::StencilBinding> bindings;
  std::vector<ScalarKind> argTypes;  // of the data it computes on, for the double-literal warning
  int firstImage = -1;
  const StructType* fieldwise = nullptr;  // struct images applied field by field
  std::string argList;
  for (size_t i = 0; i < def.params.size(); ++i) {
    const ast::StencilParam& prm = def.params[i];
    const ast::CallArg& arg = call.args[i];
    sema::StencilBinding b;
    Type declared = resolveType(prm.type);
    std::string argText;
    if (prm.rank == 0) {
      if (arg.literal) {
        b.scalar = literalArgument(arg, declared.scalar, prm.name, def.name);
      } else {
        Value v = vexpr(*arg.value, sc);
        if (v.kind != Value::Scalar)
          userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is a scalar, but " +
                                 (stage(v.stage).kind == Stage::Reduce
                                      ? shown(v.stage) + " is an image of rank " +
                                            std::to_string(stage(v.stage).rank()) + imageReductionNote(stage(v.stage))
                                      : std::string("an image is given")));
        b.scalar = sema::convert(v.scalar, declared);
      }
      argText = "scalar";
      if (!declared.isStruct()) argTypes.push_back(declared.scalar);
    } else {
      if (arg.literal)
        userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name +
                               "' is an image (vector#" + std::to_string(prm.rank) +
                               "), but a number is given");
      Value v = vexpr(*arg.value, sc);
      if (v.kind != Value::Image)
        userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is an image, but " +
                               (v.stage >= 0 ? shown(v.stage) + " is a scalar (a reduction of the whole image)"
                                             : std::string("a scalar is given")));
      const Stage& img = stage(v.stage);
      if (img.rank() != prm.rank)
        userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is vector#" +
                               std::to_string(prm.rank) + " but " + shown(v.stage) + " is vector#" +
                               std::to_string(img.rank()));
      // A struct image whose fields all have the parameter's scalar type:
      // the stencil runs on each field (docs/language-decisions.md).
      bool byField = img.type.isStruct() && !declared.isStruct() && !img.type.structType->builtinCuda;
      for (const auto& f : byField ? img.type.structType->fields : std::vector<StructField>{})
        byField = byField && f.type == declared.scalar;
      if (byField && fieldwise && fieldwise != img.type.structType)
        userError(arg.loc, "stencil '" + def.name + "' is applied field by field to '" + fieldwise->name +
                               "' images, but " + shown(v.stage) + " is '" + img.type.name() +
                               "': give it images of one struct type");
      if (byField) fieldwise = img.type.structType;
      if (!byField && (img.type.isStruct() != declared.isStruct() ||
                       (img.type.isStruct() && img.type != declared)))
        userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' has type '" +
                               declared.name() + "' but " + shown(v.stage) + " has type '" +
                               img.type.name() + "'");
      if (!byField && !img.type.isStruct() && img.type != declared)
        warnings_.add(arg.loc, shown(v.stage) + " holds " + img.type.name() + " but parameter '" +
                                   prm.name + "' of '" + def.name + "' is declared " +
                                   declared.name() + "; the stencil reads " + img.type.name() +
                                   " values, as Forma does");
      if (firstImage < 0) firstImage = v.stage;
      if (!img.type.isStruct() || byField) argTypes.push_back(declared.scalar);
      b.isImage = true;
      b.stage = v.stage;
      b.rank = prm.rank;
      b.elemType = byField ? declared : img.type;
      b.field = byField ? 0 : -1;
      b.boundary = arg.boundary.mode != ast::BoundaryMode::None ? arg.boundary : v.boundary;
      if (b.boundary.mode == ast::BoundaryMode::Constant) requireConstantFits(b.boundary, v.stage);
      argText = img.name;
      if (b.boundary.mode != ast::BoundaryMode::None)
        argText += std::string(":") + ast::boundaryName(b.boundary.mode);
    }
    argList += (i ? ", " : "") + argText;
    bindings[prm.name] = b;
  }
  if (firstImage < 0)
    userError(call.loc, "stencil '" + def.name + "' has no image parameter, so its output "
                        "has no extent");
  sema::LoweredStencil lowered =
      sema::lowerStencilBody(def, bindings, structs_, stage(firstImage).rank());
  if (fieldwise) lowered.body = sema::bodyByField(def, bindings, structs_, stage(firstImage).rank(), *fieldwise);
  // The output extent: each image argument read at offsets, down-sampled by
  // its read scale; all must agree. Directly indexed images do not count.
  std::vector<Size> extent;
  const Stage* extentFrom = nullptr;
  const ast::StencilParam* extentParam = nullptr;
  for (const auto& prm : def.params) {
    const sema::StencilBinding& b = bindings.at(prm.name);
    if (!b.isImage) continue;
    auto use = lowered.uses.find(prm.name);
    if (use != lowered.uses.end() && !use->second.readAtOffsets) continue;
    const Stage& img = stage(b.stage);
    std::vector<Size> e;
    for (int d = 0; d < img.rank(); ++d) {
      int scale = use == lowered.uses.end() ? 1 : use->second.scale[static_cast<size_t>(d)];
      e.push_back(ir::sizeDiv(img.extent[static_cast<size_t>(d)], scale));
    }
    if (!extentFrom) {
      extent = e;
      extentFrom = &img;
      extentParam = &prm;
    } else {
      checkSameSampledExtent(*extentFrom, extentParam->name, extent, img, prm.name, e,
                             call.args[static_cast<size_t>(&prm - &def.params[0])].loc);
    }
  }
  if (!extentFrom)
    userError(call.loc, "stencil '" + def.name + "' reads no image at an offset, so its "
                        "output has no extent");
  // The valid box (Forma's rule): each argument without a boundary mode
  // shrinks it by -floor(min(0,lo)/s) below and ceil(max(0,hi)/s) above.
  std::vector<long long> shrinkLo(extent.size(), 0), shrinkHi(extent.size(), 0);
  sema::ZeroBorder border{0, def.name, -1, call.loc};
  for (const auto& [name, use] : lowered.uses) {
    const sema::StencilBinding& b = bindings.at(name);
    if (!use.readAtOffsets || b.boundary.mode != ast::BoundaryMode::None) continue;
    for (size_t d = 0; d < extent.size(); ++d) {
      long long s = use.scale[d];
      long long neg = std::min(0, use.minOffset[d]), pos = std::max(0, use.maxOffset[d]);
      shrinkLo[d] = std::max(shrinkLo[d], -ir::floorDiv(neg, s));
      shrinkHi[d] = std::max(shrinkHi[d], ceilDiv(pos, s));
      if (std::max(shrinkLo[d], shrinkHi[d]) > border.width) {
        border.width = std::max(shrinkLo[d], shrinkHi[d]);
        border.image = b.stage;
      }
    }
  }
  ir::Body body = std::move(lowered.body);
  Type resultType = sema::formaType(body.result);
  if (!doubleWarned_.count(&def) && sema::warnDoubleLiteral(def, argTypes, resultType, warnings_))
    doubleWarned_.insert(&def);
  body.result = resultType.isStruct() ? body.result : sema::convert(body.result, resultType);
  Stage out = newStage(resultType, extent, call.loc, def.name + "(" + argList + ")");
  ir::Piece piece = wholePiece(extent, call.loc);
  for (size_t d = 0; d < extent.size(); ++d) {
    piece.validLo[d] = ir::sizeConst(shrinkLo[d]);
    piece.validHi[d] = ir::sizeSub(extent[d], ir::sizeConst(1 + shrinkHi[d]));
  }
  piece.body = std::move(body);
  out.pieces.push_back(std::move(piece));
  int id = addStage(std::move(out));
  if (border.width > 0) zeroBorders_[id] = border;
  return id;
}

void PipelineBuilder::checkSameSampledExtent(const Stage& a, const std::string& pa, const std::vector<Size>& ea,
                                             const Stage& b, const std::string& pb, const std::vector<Size>& eb,
                                             const SourceLoc& loc) {
  bool same = ea.size() == eb.size();
  for (size_t d = 0; same && d < ea.size(); ++d)
    same = ir::sameSize(ea[d], eb[d], static_cast<int>(p_.params.size()));
  if (!same)
    userError(loc, "image " + shown(b.id) + " (parameter '" + pb + "') has extent " +
                       extentText(eb) + " but " + shown(a.id) + " (parameter '" + pa + "') has " +
                       extentText(ea) +
                       "; the images of one stencil call must have the same extent");
}

Value PipelineBuilder::inlineVectorFn(const ast::VectorFnDef& def, const ast::VExpr& call, Scope& caller) {
  for (size_t i = 0; i < inlining_.size(); ++i) {
    if (inlining_[i] != &def) continue;
    std::string cycle;
    for (size_t j = i; j < inlining_.size(); ++j) cycle += inlining_[j]->name + " -> ";
    userError(call.loc, "vector function '" + def.name + "' calls itself (" + cycle +
                            def.name + "); recursion is not allowed");
  }
  if (inlining_.size() >= kMaxInlineDepth)
    userError(call.loc, "vector function calls nested more than " +
                            std::to_string(kMaxInlineDepth) + " levels deep");
  if (++inlinedCalls_ > kMaxInlinedCalls)
    userError(call.loc, "more than " + std::to_string(kMaxInlinedCalls) +
                            " vector function calls to inline; formac does not compile "
                            "pipelines that large");
  if (call.args.size() != def.params.size())
    userError(call.loc, "vector function '" + def.name + "' takes " +
                            std::to_string(def.params.size()) + " arguments, " +
                            std::to_string(call.args.size()) + " given");
  Scope sc;
  sc.prefix = caller.prefix + def.name + "_";
  for (size_t i = 0; i < def.params.size(); ++i) {
    const auto& prm = def.params[i];
    const auto& arg = call.args[i];
    Value v;
    if (arg.literal) {
      if (prm.rank != 0)
        userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is an image, "
                           "but a number is given");
      v.kind = Value::Scalar;
      v.scalar = literalArgument(arg, resolveType(prm.type).scalar, prm.name, def.name);
    } else {
      v = vexpr(*arg.value, caller);
      if ((v.kind == Value::Image) != (prm.rank > 0))
        userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is " +
                               (prm.rank > 0 ? "an image, but a scalar is given"
                                             : "a scalar, but an image is given"));
      if (v.kind == Value::Image && stage(v.stage).rank() != prm.rank)
        userError(arg.loc, "parameter '" + prm.name + "' of '" + def.name + "' is vector#" +
                               std::to_string(prm.rank) + " but the argument is vector#" +
                               std::to_string(stage(v.stage).rank()));
      if (arg.boundary.mode != ast::BoundaryMode::None) v.boundary = arg.boundary;
    }
    v.defined = prm.loc;
    sc.names[prm.name] = v;
  }
  inlining_.push_back(&def);
  for (const auto& s : def.body) statement(*s, sc);
  Value result = vexpr(*def.result, sc);
  inlining_.pop_back();
  return result;
}

}  // namespace formac::sema
