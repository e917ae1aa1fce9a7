#include "codegen/CodeGen_CUDA.h"

#include "support/Diagnostics.h"

namespace formac::codegen {

GeneratedCuda generateCuda(const ir::Pipeline&, const CudaOptions&) {
  throw UserError("the CUDA backend is not built yet");
}

}  // namespace formac::codegen
