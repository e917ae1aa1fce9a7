// Image expressions: names, struct images and fields, sub-domains, samples and
// compositions, each a stage of its own; and the placements of a statement's
// target (`out[a..] = e;`, `out@[(a,s)] = e;`).
#include "sema/ExprBuilder.h"
#include "sema/PipelineBuilder.h"
#include "support/Suggest.h"

namespace formac::sema {
namespace {

ast::SizeExpr cloneSize(const ast::SizeExpr& e) {
  ast::SizeExpr c;
  c.kind = e.kind;
  c.loc = e.loc;
  c.value = e.value;
  c.name = e.name;
  if (e.lhs) c.lhs = std::make_unique<ast::SizeExpr>(cloneSize(*e.lhs));
  if (e.rhs) c.rhs = std::make_unique<ast::SizeExpr>(cloneSize(*e.rhs));
  return c;
}

Size countOf(const Size& lo, const Size& hi) {
  return ir::sizeAdd(ir::sizeSub(hi, lo), ir::sizeConst(1));
}

// A compose's extent along one axis: the largest its parts need.
void widen(Size& extent, const Size& need) { extent = extent ? ir::sizeMax(extent, need) : need; }

// Every lattice point of the piece is computed.
void setFullValidBox(ir::Piece& piece) {
  piece.validLo.clear();
  piece.validHi.clear();
  for (const auto& a : piece.axes) {
    piece.validLo.push_back(ir::sizeConst(0));
    piece.validHi.push_back(ir::sizeSub(a.count, ir::sizeConst(1)));
  }
}

std::vector<ir::ReadAxis> zeroAxes(int rank) {
  return std::vector<ir::ReadAxis>(static_cast<size_t>(rank));
}

}  // namespace

// ------------------------------------------------------------ vector expressions
Value PipelineBuilder::imageValue(int stageId) {
  Value v;
  v.stage = stageId;
  return v;
}

Value PipelineBuilder::vexpr(const ast::VExpr& e, Scope& sc) {
  switch (e.kind) {
    case ast::VExpr::Ref: {
      std::string key = indexedKey(e.name, e.index, sc, e.loc);
      auto it = sc.names.find(key);
      if (it == sc.names.end() && sc.outer) {
        if (auto imported = importOuter(sc, key)) return *imported;
        if (e.index.present && e.index.iterator == sc.doIterator && e.index.delta == -1)
          userError(e.loc, "'" + e.name + "<" + sc.doIterator + "-1>' in the first round is '" + key +
                               "', which is not defined before the loop");
      }
      if (it == sc.names.end()) {
        if (stencils_.count(e.name) || vectorFns_.count(e.name))
          userError(e.loc, "'" + e.name + "' is a function; call it with '" + e.name + "(...)'");
        unknown(e.name, e.loc, "unknown image '" + key + "'" + didYouMean(key, keys(sc.names)));
      }
      if (it->second.stage >= 0) used_.insert(it->second.stage);
      return it->second;
    }
    case ast::VExpr::Call: return callValue(e, sc);
    case ast::VExpr::MakeStruct: return makeStructImage(e, sc);
    case ast::VExpr::Field: return fieldImage(e, sc);
    case ast::VExpr::SubDomain: return subDomainImage(e, sc);
    case ast::VExpr::Sample: return sampleImage(e, sc);
    case ast::VExpr::Compose: return composeImage(e, sc);
  }
  throw InternalError("unhandled vector expression kind");
}

int PipelineBuilder::imageOf(const ast::VExpr& e, Scope& sc) {
  Value v = vexpr(e, sc);
  if (v.kind != Value::Image) userError(e.loc, "expected an image here, found a scalar");
  return v.stage;
}

Value PipelineBuilder::makeStructImage(const ast::VExpr& e, Scope& sc) {
  auto it = structs_.find(e.name);
  if (it == structs_.end())
    unknown(e.name, e.loc, "unknown struct '" + e.name + "'" + didYouMean(e.name, keys(structs_)));
  std::vector<ir::ExprPtr> fields;
  int first = -1;
  for (const auto& a : e.args) {
    int img = imageOf(*a.value, sc);
    if (stage(img).type.isStruct())
      userError(a.loc, "a struct image is built from images of numbers, but " + shown(img) +
                           " holds '" + stage(img).type.name() + "'");
    if (first < 0) first = img;
    else checkSameExtent(stage(first), stage(img), a.loc);
    fields.push_back(plainRead(img, zeroAxes(stage(img).rank()), {}));
  }
  ir::ExprPtr body = sema::makeStruct(it->second, fields, e.loc);
  return imageValue(pointwiseStage(body, stage(first).extent, e.loc, "struct " + e.name));
}

Value PipelineBuilder::fieldImage(const ast::VExpr& e, Scope& sc) {
  int img = imageOf(*e.base, sc);
  ir::ExprPtr r = plainRead(img, zeroAxes(stage(img).rank()), {});
  ir::ExprPtr body = sema::field(r, e.name, e.loc);
  return imageValue(pointwiseStage(body, stage(img).extent, e.loc, stage(img).name + "." + e.name));
}

Value PipelineBuilder::subDomainImage(const ast::VExpr& e, Scope& sc) {
  int img = imageOf(*e.base, sc);
  const Stage& src = stage(img);
  checkAxes(e.domain.axes.size(), src, e.loc);
  std::vector<Size> extent;
  std::vector<Size> origin;
  for (size_t d = 0; d < e.domain.axes.size(); ++d) {
    auto [lo, hi] = rangeBounds(e.domain.axes[d], src.extent[d]);
    extent.push_back(ir::sizeAdd(ir::sizeSub(hi, lo), ir::sizeConst(1)));
    origin.push_back(lo);
  }
  return imageValue(pointwiseStage(plainRead(img, zeroAxes(src.rank()), origin), extent, e.loc,
                                   src.name + "[...]"));
}

Value PipelineBuilder::sampleImage(const ast::VExpr& e, Scope& sc) {
  int img = imageOf(*e.base, sc);
  const Stage& src = stage(img);
  checkAxes(e.offsets.size(), src, e.loc);
  std::vector<Size> extent;
  std::vector<ir::ReadAxis> axes;
  for (size_t d = 0; d < e.offsets.size(); ++d) {
    extent.push_back(ir::sizeDiv(src.extent[d], e.offsets[d].scale));
    axes.push_back(ir::ReadAxis{e.offsets[d].offset, e.offsets[d].scale});
  }
  int id = pointwiseStage(plainRead(img, axes, {}), extent, e.loc, src.name + "@[...]");
  // Forma computes q in [max(0, -floor(a/s)), n/s - 1 - max(0, floor(a/s))].
  ir::Piece& pc = p_.stages[static_cast<size_t>(id)].pieces[0];
  for (size_t d = 0; d < axes.size(); ++d) {
    long long f = ir::floorDiv(axes[d].offset, axes[d].scale);
    pc.validLo[d] = ir::sizeConst(std::max(0LL, -f));
    pc.validHi[d] = ir::sizeSub(extent[d], ir::sizeConst(1 + std::max(0LL, f)));
  }
  return imageValue(id);
}

Value PipelineBuilder::composeImage(const ast::VExpr& e, Scope& sc) {
  std::vector<ir::Piece> pieces;
  std::vector<Size> extent;
  Type type;
  bool typed = false;
  int rank = -1;
  for (const auto& part : e.parts) {
    ir::Piece piece;
    piece.loc = part.loc;
    int img = -1;
    if (part.value) img = imageOf(*part.value, sc);
    int partRank = part.byOffsets ? static_cast<int>(part.offsets.size())
                                  : static_cast<int>(part.domain.axes.size());
    if (img >= 0 && stage(img).rank() != partRank)
      userError(part.loc, "the compose part has " + std::to_string(partRank) +
                              " axes but its image has rank " + std::to_string(stage(img).rank()));
    if (rank >= 0 && partRank != rank)
      userError(part.loc, "compose parts have different ranks");
    rank = partRank;
    if (extent.empty()) extent.assign(static_cast<size_t>(rank), Size());
    Type partType = img >= 0 ? stage(img).type
                             : Type::of(part.literal->kind == ast::Expr::IntLit
                                            ? ScalarKind::Int
                                            : part.literal->kind == ast::Expr::FloatLit
                                                  ? ScalarKind::Float
                                                  : ScalarKind::Double);
    if (!typed) {
      type = partType;
      typed = true;
    } else if (type != partType) {
      if (type.isStruct() || partType.isStruct())
        userError(part.loc, "compose parts have different types '" + type.name() + "' and '" +
                                partType.name() + "'");
      type = Type::of(arithmeticResult(type.scalar, partType.scalar));
    }
    for (int d = 0; d < rank; ++d) {
      if (part.byOffsets) {
        if (img < 0) userError(part.loc, "a compose part placed with '@[...]' needs an image");
        const auto& o = part.offsets[static_cast<size_t>(d)];
        const Size& n = stage(img).extent[static_cast<size_t>(d)];
        piece.axes.push_back(ir::PieceAxis{ir::sizeConst(o.offset), o.scale, n});
        widen(extent[static_cast<size_t>(d)], ir::sizeMul(n, ir::sizeConst(o.scale)));
      } else if (img >= 0) {
        const ast::Range& r = part.domain.axes[static_cast<size_t>(d)];
        Size lo = r.lo ? size(*r.lo) : ir::sizeConst(0);
        Size count = stage(img).extent[static_cast<size_t>(d)];
        if (!r.isRange || r.hi)
          count = ir::sizeMin(count, countOf(lo, r.isRange ? size(*r.hi) : lo));
        piece.axes.push_back(ir::PieceAxis{lo, 1, count});
        widen(extent[static_cast<size_t>(d)], ir::sizeAdd(stage(img).extent[static_cast<size_t>(d)], lo));
      } else {
        const ast::Range& r = part.domain.axes[static_cast<size_t>(d)];
        if (!r.lo || (r.isRange && !r.hi))
          userError(r.loc, "a compose part that sets a constant needs both bounds of its range");
        auto [lo, hi] = rangeBounds(r, ir::sizeConst(0));
        piece.axes.push_back(ir::PieceAxis{lo, 1, countOf(lo, hi)});
        widen(extent[static_cast<size_t>(d)], ir::sizeAdd(hi, ir::sizeConst(1)));
      }
    }
    setFullValidBox(piece);
    if (img >= 0) {
      piece.body.result = plainRead(img, zeroAxes(rank), {});
    } else {
      bool isInt = part.literal->kind == ast::Expr::IntLit;
      piece.body.result = isInt ? sema::constInt(part.literal->intValue)
                                : sema::constFloating(part.literal->floatValue, partType.scalar);
    }
    pieces.push_back(std::move(piece));
  }
  Stage out = newStage(type, extent, e.loc, "compose");
  for (auto& pc : pieces) {
    if (!pc.body.result->type.isStruct()) pc.body.result = sema::convert(pc.body.result, type);
    out.pieces.push_back(std::move(pc));
  }
  return imageValue(addStage(std::move(out)));
}

// ------------------------------------------------------------ placements
int PipelineBuilder::placeSubDomain(const ast::Stmt& s, int src) {
  const Stage& e = stage(src);
  if (static_cast<int>(s.domain.axes.size()) < e.rank())
    userError(s.domain.loc, shown(src) + " has rank " + std::to_string(e.rank()) +
                                " but the placement gives only " +
                                std::to_string(s.domain.axes.size()) +
                                (s.domain.axes.size() == 1 ? " axis" : " axes"));
  size_t extra = s.domain.axes.size() - static_cast<size_t>(e.rank());
  std::vector<Size> extent;
  ir::Piece piece;
  piece.loc = s.loc;
  for (size_t d = 0; d < extra; ++d) {
    const ast::Range& r = s.domain.axes[d];
    if (r.isRange && r.hi)
      userError(r.loc, "a leading placement axis takes a single position ('a..' or 'a')");
    Size lo = r.lo ? size(*r.lo) : ir::sizeConst(0);
    piece.axes.push_back(ir::PieceAxis{lo, 1, ir::sizeConst(1)});
    extent.push_back(ir::sizeAdd(lo, ir::sizeConst(1)));
  }
  ast::Domain rest;
  rest.loc = s.domain.loc;
  for (size_t d = extra; d < s.domain.axes.size(); ++d) {
    ast::Range r;
    r.loc = s.domain.axes[d].loc;
    r.isRange = s.domain.axes[d].isRange;
    if (s.domain.axes[d].lo) r.lo = std::make_unique<ast::SizeExpr>(cloneSize(*s.domain.axes[d].lo));
    if (s.domain.axes[d].hi) r.hi = std::make_unique<ast::SizeExpr>(cloneSize(*s.domain.axes[d].hi));
    rest.axes.push_back(std::move(r));
  }
  placementAxes(rest, e, piece, extent);
  Stage out = newStage(e.type, extent, s.loc, "placement of " + e.name);
  setFullValidBox(piece);
  auto read = std::make_shared<ir::Expr>(*plainRead(src, zeroAxes(e.rank()), {}));
  read->firstDim = static_cast<int>(extra);
  piece.body.result = read;
  out.pieces.push_back(std::move(piece));
  return addStage(std::move(out));
}

void PipelineBuilder::placementAxes(const ast::Domain& dom, const Stage& e, ir::Piece& piece,
                                    std::vector<Size>& extent) {
  for (size_t d = 0; d < dom.axes.size(); ++d) {
    const ast::Range& r = dom.axes[d];
    Size lo = r.lo ? size(*r.lo) : ir::sizeConst(0);
    Size count = e.extent[d];
    if (!r.isRange || r.hi) {
      Size hi = r.isRange ? size(*r.hi) : lo;
      count = ir::sizeMin(count, countOf(lo, hi));
    }
    piece.axes.push_back(ir::PieceAxis{lo, 1, count});
    extent.push_back(ir::sizeAdd(e.extent[d], lo));
  }
}

int PipelineBuilder::scatter(const ast::Stmt& s, int src) {
  const Stage& e = stage(src);
  checkAxes(s.offsets.size(), e, s.loc);
  std::vector<Size> extent;
  ir::Piece piece;
  piece.loc = s.loc;
  for (size_t d = 0; d < s.offsets.size(); ++d) {
    const auto& o = s.offsets[d];
    extent.push_back(ir::sizeMul(e.extent[d], ir::sizeConst(o.scale)));
    piece.axes.push_back(ir::PieceAxis{ir::sizeConst(o.offset), o.scale, e.extent[d]});
  }
  setFullValidBox(piece);
  Stage out = newStage(e.type, extent, s.loc, "scatter of " + e.name);
  piece.body.result = plainRead(src, zeroAxes(e.rank()), {});
  out.pieces.push_back(std::move(piece));
  return addStage(std::move(out));
}

// ------------------------------------------------------------ stages
void PipelineBuilder::checkAxes(size_t given, const Stage& e, const SourceLoc& loc) {
  if (static_cast<int>(given) != e.rank())
    userError(loc, shown(e.id) + " has rank " + std::to_string(e.rank()) + " but " +
                       std::to_string(given) + (given == 1 ? " axis is given" : " axes are given"));
}

std::pair<Size, Size> PipelineBuilder::rangeBounds(const ast::Range& r, const Size& n) {
  Size lo = r.lo ? size(*r.lo) : ir::sizeConst(0);
  Size hi = r.isRange ? (r.hi ? size(*r.hi) : ir::sizeSub(n, ir::sizeConst(1))) : lo;
  return {lo, hi};
}

Stage PipelineBuilder::newStage(Type t, std::vector<Size> extent, const SourceLoc& loc, std::string origin) {
  Stage s;
  s.name = "_t" + std::to_string(p_.stages.size());
  s.type = t;
  s.extent = std::move(extent);
  s.loc = loc;
  s.origin = std::move(origin);
  return s;
}

ir::ExprPtr PipelineBuilder::plainRead(int src, std::vector<ir::ReadAxis> axes, std::vector<Size> origin) {
  auto e = std::make_shared<ir::Expr>();
  e->kind = ir::Expr::ImageRead;
  e->type = stage(src).type;
  e->producer = src;
  e->axes = std::move(axes);
  e->origin = std::move(origin);
  used_.insert(src);
  return e;
}

ir::Piece PipelineBuilder::wholePiece(const std::vector<Size>& extent, const SourceLoc& loc) {
  ir::Piece piece;
  piece.loc = loc;
  for (const auto& n : extent) piece.axes.push_back(ir::PieceAxis{ir::sizeConst(0), 1, n});
  setFullValidBox(piece);
  return piece;
}

int PipelineBuilder::pointwiseStage(ir::ExprPtr body, std::vector<Size> extent, const SourceLoc& loc,
                                    std::string origin) {
  Stage out = newStage(body->type, extent, loc, std::move(origin));
  ir::Piece piece = wholePiece(extent, loc);
  piece.body.result = std::move(body);
  out.pieces.push_back(std::move(piece));
  return addStage(std::move(out));
}

void PipelineBuilder::checkSameExtent(const Stage& a, const Stage& b, const SourceLoc& loc) {
  bool same = a.rank() == b.rank();
  for (int d = 0; same && d < a.rank(); ++d)
    same = ir::sameSize(a.extent[static_cast<size_t>(d)], b.extent[static_cast<size_t>(d)],
                        static_cast<int>(p_.params.size()));
  if (!same)
    userError(loc, "image " + shown(b.id) + " has extent " + extentText(b) + " but " + shown(a.id) +
                       " has " + extentText(a));
}

std::string PipelineBuilder::extentText(const std::vector<Size>& extent) const {
  std::string t = "[";
  auto names = p_.paramNames();
  for (size_t d = 0; d < extent.size(); ++d) t += (d ? "," : "") + ir::printSize(extent[d], names);
  return t + "]";
}

}  // namespace formac::sema
