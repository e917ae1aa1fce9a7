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

}  // namespace formac::sema
