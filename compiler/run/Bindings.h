// Bindings: what one run of a pipeline takes, from what a caller gives.
//
// Takes the extents of the caller's input images (declaration order) and
// values by name (parameters and scalar inputs); returns every parameter's
// value and every scalar's, after checking that they fit the program. A
// parameter comes from, in order: its value given by name; the extent of an
// input image where it stands alone as an extent (`[M, N]`: M from the rows,
// N from the columns); its default (`parameter K = 3;`). Every error is a
// UserError that says what is wrong and what to give.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/Pipeline.h"

namespace formac::run {

struct GivenImage {
  std::vector<long long> extent;
  std::string origin;  // for messages: "'a.png'" or "image input 0"
};

struct Binding {
  std::vector<long long> params;  // one per Pipeline::params
  std::vector<double> scalars;    // one per Pipeline::scalars
};

// How a caller gives values, for messages: "--param NAME=VALUE" (the CLI) or
// "values[\"NAME\"]" (the C++ API); NAME is replaced.
struct BindStyle {
  std::string program;  // "canny.idsl"
  std::string giveValue = "--param NAME=VALUE";
  std::string giveImages = "--input";
};

// The stage ids of the image inputs, in declaration order.
std::vector<int> imageInputs(const ir::Pipeline& p);

Binding bind(const ir::Pipeline& p, const std::vector<GivenImage>& images,
             const std::map<std::string, double>& values, const BindStyle& style);

// The extent of stage `id` for these parameter values.
std::vector<long long> stageExtent(const ir::Pipeline& p, int id, const std::vector<long long>& params);

// Stores `v` as the C type of `k` at `slot` (8 bytes, suitably aligned): the
// pointer generated code's entry shim takes for a scalar input.
void storeScalarArgument(ScalarKind k, double v, void* slot);

}  // namespace formac::run
