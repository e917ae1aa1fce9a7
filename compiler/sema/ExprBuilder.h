// ExprBuilder: typed IR expressions following C's rules.
//
// Each builder takes operands, checks them, and returns a node whose type is
// the C type of the result; implicit conversions are made explicit as Cast
// nodes so that every backend and the evaluator compute in the same types.
#pragma once

#include "ir/Pipeline.h"

namespace formac::sema {

using ir::ExprPtr;

ExprPtr constInt(long long v);
ExprPtr constFloating(double v, ScalarKind k);
ExprPtr constOf(double v, bool isInt, ScalarKind target);  // literal converted to target
// A literal that does not fit the type `k` it becomes is an error at `loc`
// (LANGUAGE.md §7): `what` says so, with %v where the literal goes, and the
// message ends with the type and its range ("... its type 'int8' (0 to 255)").
void requireLiteralFits(double v, bool isInt, ScalarKind k, const SourceLoc& loc, const std::string& what);
ExprPtr convert(ExprPtr e, const Type& to);  // no-op when already of type `to`
ExprPtr unary(ir::UnOp op, ExprPtr a, const SourceLoc& loc);
ExprPtr binary(ir::BinOp op, ExprPtr a, ExprPtr b, const SourceLoc& loc);
ExprPtr select(ExprPtr c, ExprPtr a, ExprPtr b, const SourceLoc& loc);
ExprPtr cast(ExprPtr a, ScalarKind to, const SourceLoc& loc);
ExprPtr field(ExprPtr a, const std::string& name, const SourceLoc& loc);
ExprPtr makeStruct(const StructType* s, std::vector<ExprPtr> args, const SourceLoc& loc);
// The type Forma gives an expression: its C type, except that a unary minus
// keeps its operand's type (-X of an int8 X is int8 where it is stored).
Type formaType(const ExprPtr& e);
// A built-in math function by its Forma name; throws on an unknown name.
// The result has the widest argument type; transcendental functions are
// computed in double and converted (what Forma's C does).
ExprPtr call(const std::string& name, std::vector<ExprPtr> args, const SourceLoc& loc);

}  // namespace formac::sema
