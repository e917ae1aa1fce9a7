#include "sema/StencilBody.h"

#include "sema/ExprBuilder.h"
#include "sema/GlobalOps.h"
#include "support/Suggest.h"

#include <algorithm>

namespace formac::sema {
namespace {

using ir::BinOp;
using ir::ExprPtr;

class BodyLowering {
 public:
  BodyLowering(const ast::StencilDef& def, const std::map<std::string, StencilBinding>& b,
               const std::map<std::string, const StructType*>& structs, int rank)
      : def_(def), bindings_(b), structs_(structs) {
    (void)rank;
  }

  LoweredStencil run() {
    LoweredStencil out;
    for (const auto& a : def_.body) {
      if (bindings_.count(a.name))
        userError(a.loc, "'" + a.name + "' is a parameter of stencil '" + def_.name +
                             "' and cannot be assigned");
      // A reassignment rebinds the name (with the new value's type), as in Forma.
      ExprPtr v = lower(*a.value);
      std::string name = a.name;
      if (locals_.count(a.name)) name += "_" + std::to_string(++versions_[a.name]);
      body_.lets.push_back(ir::Let{name, v->type, v});
      locals_[a.name] = static_cast<int>(body_.lets.size()) - 1;
    }
    body_.result = lower(*def_.result);
    // Locals the result does not need (Forma accepts them) are dropped; their
    // reads still count for the extent and the valid box (uses_).
    ir::dropUnusedLets(body_);
    out.body = std::move(body_);
    out.uses = std::move(uses_);
    return out;
  }

 private:
  // The parameters and the locals assigned so far.
  std::vector<std::string> namesInScope() const {
    std::vector<std::string> out;
    for (const auto& kv : bindings_) out.push_back(kv.first);
    for (const auto& kv : locals_) out.push_back(kv.first);
    return out;
  }

  const StencilBinding& image(const ast::Expr& e) {
    auto it = bindings_.find(e.name);
    if (it == bindings_.end()) {
      if (locals_.count(e.name))
        userError(e.loc, "'" + e.name + "' is a local value, not an image: it cannot be read "
                         "at an offset");
      userError(e.loc, "unknown image '" + e.name + "' in stencil '" + def_.name + "'" +
                           didYouMean(e.name, namesInScope()));
    }
    if (!it->second.isImage)
      userError(e.loc, "'" + e.name + "' is a scalar parameter, not an image");
    return it->second;
  }

  ExprPtr read(const std::string& param, const StencilBinding& b, std::vector<ir::ReadAxis> axes,
               const SourceLoc& loc) {
    auto e = std::make_shared<ir::Expr>();
    e->kind = ir::Expr::ImageRead;
    e->type = b.elemType;
    e->producer = b.stage;
    e->field = b.field;
    ParamUse& use = uses_[param];
    if (!use.readAtOffsets) {
      use.readAtOffsets = true;
      for (const auto& a : axes) {
        use.scale.push_back(a.scale);
        use.minOffset.push_back(a.offset);
        use.maxOffset.push_back(a.offset);
      }
    }
    for (size_t d = 0; d < axes.size(); ++d) {
      if (axes[d].scale != use.scale[d])
        userError(loc, "'" + param + "' is read with scale " + std::to_string(use.scale[d]) +
                           " and scale " + std::to_string(axes[d].scale) + " in dimension " +
                           std::to_string(d + 1) + "; one stencil reads an image with one scale "
                           "per dimension");
      use.minOffset[d] = std::min(use.minOffset[d], axes[d].offset);
      use.maxOffset[d] = std::max(use.maxOffset[d], axes[d].offset);
    }
    e->axes = std::move(axes);
    e->mode = b.boundary.mode;
    e->constant = b.boundary.constant;
    return e;
  }

  ExprPtr lower(const ast::Expr& e) {
    using K = ast::Expr;
    switch (e.kind) {
      case K::IntLit: return constInt(e.intValue);
      case K::FloatLit: return constFloating(e.floatValue, ScalarKind::Float);
      case K::DoubleLit: return constFloating(e.floatValue, ScalarKind::Double);
      case K::Name: {
        auto l = locals_.find(e.name);
        if (l != locals_.end()) {
          auto r = std::make_shared<ir::Expr>();
          r->kind = ir::Expr::Local;
          r->local = l->second;
          r->type = body_.lets[static_cast<size_t>(l->second)].type;
          return r;
        }
        auto it = bindings_.find(e.name);
        if (it == bindings_.end())
          userError(e.loc, "unknown name '" + e.name + "' in stencil '" + def_.name + "'" +
                               didYouMean(e.name, namesInScope()));
        if (!it->second.isImage) return it->second.scalar;
        return read(e.name, it->second,
                    std::vector<ir::ReadAxis>(static_cast<size_t>(it->second.rank)), e.loc);
      }
      case K::OffsetRead: {
        const StencilBinding& b = image(e);
        if (static_cast<int>(e.offsets.size()) != b.rank)
          userError(e.loc, "'" + e.name + "' has rank " + std::to_string(b.rank) + " but " +
                               std::to_string(e.offsets.size()) +
                               (e.offsets.size() == 1 ? " offset is given" : " offsets are given"));
        std::vector<ir::ReadAxis> axes;
        for (const auto& o : e.offsets) axes.push_back(ir::ReadAxis{o.offset, o.scale});
        return read(e.name, b, axes, e.loc);
      }
      case K::IndexRead: {
        const StencilBinding& b = image(e);
        if (static_cast<int>(e.args.size()) != b.rank)
          userError(e.loc, "'" + e.name + "' has rank " + std::to_string(b.rank) + " but " +
                               std::to_string(e.args.size()) +
                               (e.args.size() == 1 ? " index is given" : " indices are given"));
        if (b.field >= 0)
          userError(e.loc, "'" + e.name + "' is applied field by field (a struct image for a parameter of "
                           "its fields' type): it can be read at offsets, not indexed");
        uses_[e.name];  // directly indexed: known, not read at offsets
        auto r = std::make_shared<ir::Expr>();
        r->kind = ir::Expr::IndexRead;
        r->type = b.elemType;
        r->producer = b.stage;
        r->mode = b.boundary.mode;
        r->constant = b.boundary.constant;
        for (const auto& a : e.args) {
          ExprPtr i = lower(*a);
          if (i->type.isStruct() || isFloating(i->type.scalar))
            userError(a->loc, "an index must be an integer, found '" + i->type.name() + "'");
          r->args.push_back(convert(i, Type::of(ScalarKind::Int)));
        }
        return r;
      }
      case K::Field: return field(lower(*e.args[0]), e.name, e.loc);
      case K::Unary:
        return unary(e.name == "!" ? ir::UnOp::Not : ir::UnOp::Neg, lower(*e.args[0]), e.loc);
      // Operands are lowered left to right (not in a function call's
      // unspecified order), so that errors and read hulls do not depend on
      // the C++ compiler that built formac.
      case K::Binary: {
        ExprPtr a = lower(*e.args[0]);
        ExprPtr b = lower(*e.args[1]);
        return binary(binOp(e.name), a, b, e.loc);
      }
      case K::Ternary: {
        ExprPtr c = lower(*e.args[0]);
        ExprPtr a = lower(*e.args[1]);
        ExprPtr b = lower(*e.args[2]);
        return select(c, a, b, e.loc);
      }
      case K::Call: {
        // sum(X), max(X): a reduction, which only the pipeline computes (LANGUAGE.md §7).
        bool minMax = e.name == "min" || e.name == "max";
        if (reductionNamed(e.name) && (!minMax || e.args.size() == 1))
          userError(e.loc, "'" + e.name + "' of an image is a reduction, a statement of the pipeline ('m = " +
                               e.name + "(img);'), not part of a stencil body; pass its result as a scalar parameter" +
                               (minMax ? "; in a body '" + e.name + "(a, b)' takes two values" : std::string()));
        if (e.name == "scan" || e.name == "sat")
          userError(e.loc, "'" + e.name + "' makes an image, a statement of the pipeline ('S = " + e.name +
                               (e.name == "scan" ? "(img, 1);" : "(img);") +
                               "'), not part of a stencil body; pass its result to the stencil as an image");
        std::vector<ExprPtr> args;
        for (const auto& a : e.args) args.push_back(lower(*a));
        return call(e.name, std::move(args), e.loc);
      }
      case K::Cast: return cast(lower(*e.args[0]), *e.castType.basic, e.loc);
      case K::MakeStruct: {
        auto s = structs_.find(e.name);
        if (s == structs_.end()) userError(e.loc, "unknown struct '" + e.name + "'");
        std::vector<ExprPtr> args;
        for (const auto& a : e.args) args.push_back(lower(*a));
        return makeStruct(s->second, std::move(args), e.loc);
      }
    }
    throw InternalError("unhandled expression kind");
  }

  static BinOp binOp(const std::string& op) {
    static const std::map<std::string, BinOp> ops = {
        {"+", BinOp::Add}, {"-", BinOp::Sub}, {"*", BinOp::Mul}, {"/", BinOp::Div},
        {"%", BinOp::Mod}, {"^", BinOp::Pow}, {"<", BinOp::Lt},  {">", BinOp::Gt},
        {"<=", BinOp::Le}, {">=", BinOp::Ge}, {"==", BinOp::Eq}, {"!=", BinOp::Ne},
        {"&&", BinOp::And}, {"||", BinOp::Or}};
    return ops.at(op);
  }

  const ast::StencilDef& def_;
  const std::map<std::string, StencilBinding>& bindings_;
  const std::map<std::string, const StructType*>& structs_;
  std::map<std::string, ParamUse> uses_;
  ir::Body body_;
  std::map<std::string, int> locals_;  // name -> index of its latest Let
  std::map<std::string, int> versions_;
};

}  // namespace

LoweredStencil lowerStencilBody(const ast::StencilDef& def,
                                const std::map<std::string, StencilBinding>& bindings,
                                const std::map<std::string, const StructType*>& structs,
                                int rank) {
  return BodyLowering(def, bindings, structs, rank).run();
}

namespace {

// `e` with every Local index moved up by `base` (a body appended after others).
ExprPtr shiftLocals(const ExprPtr& e, int base) {
  if (e->kind == ir::Expr::Local) {
    auto c = std::make_shared<ir::Expr>(*e);
    c->local += base;
    return c;
  }
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(shiftLocals(a, base));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto c = std::make_shared<ir::Expr>(*e);
  c->args = std::move(args);
  return c;
}

}  // namespace

ir::Body bodyByField(const ast::StencilDef& def, std::map<std::string, StencilBinding> bindings,
                     const std::map<std::string, const StructType*>& structs, int rank,
                     const StructType& st) {
  ir::Body out;
  auto make = std::make_shared<ir::Expr>();
  make->kind = ir::Expr::MakeStruct;
  make->type = Type::ofStruct(&st);
  for (size_t f = 0; f < st.fields.size(); ++f) {
    for (auto& [name, b] : bindings)
      if (b.field >= 0) b.field = static_cast<int>(f);
    ir::Body body = lowerStencilBody(def, bindings, structs, rank).body;
    int base = static_cast<int>(out.lets.size());
    for (auto& let : body.lets) {
      let.name += "_" + st.fields[f].name;
      let.value = shiftLocals(let.value, base);
      out.lets.push_back(std::move(let));
    }
    make->args.push_back(convert(shiftLocals(body.result, base), Type::of(st.fields[f].type)));
  }
  out.result = make;
  return out;
}

}  // namespace formac::sema
