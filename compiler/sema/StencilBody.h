// Lowers one stencil application: the stencil's body with its parameters
// bound to the call's arguments becomes an ir::Body.
#pragma once

#include <map>
#include <string>

#include "ir/Pipeline.h"
#include "parse/AST.h"

namespace formac::sema {

// What a stencil parameter stands for at one call.
struct StencilBinding {
  bool isImage = false;
  // image
  int stage = -1;
  int rank = 0;
  Type elemType;
  // >= 0: a struct image applied field by field (LANGUAGE.md-facing
  // docs/language-decisions.md): reads take this field, of type elemType.
  int field = -1;
  ast::Boundary boundary;
  // scalar
  ir::ExprPtr scalar;
};

// How the body reads one image parameter.
struct ParamUse {
  bool readAtOffsets = false;       // some X / X@[...] read (not only m[i,j])
  std::vector<int> scale;           // per dimension; one scale per dimension
  std::vector<int> minOffset, maxOffset;
};

struct LoweredStencil {
  ir::Body body;
  std::map<std::string, ParamUse> uses;  // by image parameter name
};

LoweredStencil lowerStencilBody(const ast::StencilDef& def,
                                const std::map<std::string, StencilBinding>& bindings,
                                const std::map<std::string, const StructType*>& structs,
                                int rank);

// The stencil applied field by field: `bindings` with field >= 0 are struct
// images of type `st`; the body computes the stencil once per field (reads
// taking that field, locals renamed NAME_field) and returns struct `st` of
// the results, each converted to its field's type, as `struct st(...)` would.
ir::Body bodyByField(const ast::StencilDef& def, std::map<std::string, StencilBinding> bindings,
                     const std::map<std::string, const StructType*>& structs, int rank,
                     const StructType& st);

}  // namespace formac::sema
