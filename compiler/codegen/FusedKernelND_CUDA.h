// The fused CUDA kernel of a group whose sink is not of rank 2 (rank 1, 3,
// 4, ...): one block at a time per tile of the sink, the members' regions in
// shared memory, interior tiles check-free (FusedKernelND_CUDA.cpp says how).
// fusedKernelSource and fusedSharedBytes (FusedKernel_CUDA.h) call these.
#pragma once

#include <string>

#include "codegen/FusedKernel_CUDA.h"

namespace formac::codegen {

std::string fusedKernelSourceND(const FusedKernelRequest& r);
long long fusedSharedBytesND(const ir::Pipeline& p, const passes::FusionGroup& g);

}  // namespace formac::codegen
