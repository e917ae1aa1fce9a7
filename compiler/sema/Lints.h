// Warnings for legal but suspicious stencil applications (Sema adds them).
#pragma once

#include <string>
#include <vector>

#include "ir/Pipeline.h"
#include "parse/AST.h"

namespace formac::sema {

// A stencil applied to float data that computes in double because of a
// double literal (`0.5`, not `0.5f`) and has no cast<double> that says so:
// warns at the first such literal, saying how to write it. `argTypes` are the element types of the call's images and
// the declared types of its scalar parameters. Returns whether it warned.
bool warnDoubleLiteral(const ast::StencilDef& def, const std::vector<ScalarKind>& argTypes,
                       const Type& result, Warnings& warnings);

// Why a stage is 0 near its edges: a stencil read an image at offsets
// without a boundary mode, so its outermost `width` points are not computed.
struct ZeroBorder {
  long long width = 0;
  std::string stencil;  // the stencil applied
  int image = -1;       // the stage it read without a boundary mode
  SourceLoc call;
};

// "'out' is 0 in a border of 2 pixels because 'blur' reads 'x' without a
// boundary mode (line 7)", for stage `output`.
std::string zeroBorderMessage(const ir::Pipeline& p, int output, const ZeroBorder& border);

}  // namespace formac::sema
