// The point-wise inputs of a CUDA reduction, read 16 bytes a lane.
//
// A Reduce stage whose input body reads its producers only at the point
// itself (no neighbour, no index, no struct field; every producer of the
// domain's shape, stored row-major) has its value at point k from the
// elements [k] of those producers. Its kernels then load `per` consecutive
// points a lane at once: 16 bytes of the widest producer (fewer of the
// narrower ones), and compute the body for each of them from registers.
// Reduce_CUDA.cpp (sum, min, max, count, any, all) and Select_CUDA.cpp
// (histograms) use it; everything else reads point by point.
#pragma once

#include <string>
#include <vector>

#include "codegen/Reduce_CUDA.h"

namespace formac::codegen {

struct FlatReads {
  std::vector<int> producers;  // the stages read, each at the point itself
  int per = 0;                 // points a lane loads at once (0: the body is not point-wise)
};

FlatReads flatReads(const ReduceCuda& r);

namespace reduce_flat {
// Whether `e` reads a scalar image of the domain's shape at q + constant
// offsets (ReduceWindow_CUDA.h's reads; at offset 0, this file's).
bool readsDomainShape(const ReduceCuda& r, const ir::Expr& e);
// The C type of `bytes` loaded at once ("uint4" for 16).
std::string loadType(int bytes);
// An expression: every producer's pointer aligned to its load (per elements).
std::string aligned(const ReduceCuda& r, const FlatReads& f);
// Statements declaring formac_l<id>[batch], producer id's loads of `per`
// elements from element `at` + b * 32 * per (b < batch).
std::vector<Stmt> loads(const ReduceCuda& r, const FlatReads& f, int batch, const std::string& at);
// Statements declaring formac_e<id>[per], load b's elements.
std::vector<Stmt> unpack(const ReduceCuda& r, const FlatReads& f, const std::string& b);
// Statements declaring formac_v, the body's value: at element formac_u of
// formac_e<id> (vector) or at point formac_k of the producers (not vector).
std::vector<Stmt> value(const ReduceCuda& r, bool vector);
}  // namespace reduce_flat

}  // namespace formac::codegen
