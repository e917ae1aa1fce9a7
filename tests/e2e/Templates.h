// Helpers for the program templates of the e2e matrix (ProgramMatrix.cpp,
// Constructs.cpp): placeholder substitution, boundary modes, standard sizes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "CRunner.h"

namespace formac::e2e {

using Subs = std::vector<std::pair<std::string, std::string>>;

// Replaces every %KEY% of `subs` in `text`.
std::string fill(std::string text, const Subs& subs);

struct Mode {
  std::string spelling;  // "" for none
  std::string tag;
};
const std::vector<Mode>& allModes();
Mode mode(const std::string& tag);
// `image` or `image:mode`.
std::string withMode(const std::string& image, const Mode& m);

// Runs for 2-D programs with parameters M, N: a prime shape, 1x1, 1xN, Nx1,
// smaller than the reach of the stencils, offsets larger than the image,
// empty, and larger than a tile.
extern const std::vector<std::vector<long long>> k2D;
// Several tiles of a fused group in both directions.
extern const std::vector<std::vector<long long>> kLarge;
// The 3-field struct of the matrix (4 + 2 + 1 bytes and one of padding).
extern const char* const kStruct;

ProgramCase make(const std::string& name, const std::string& source,
                 std::vector<std::vector<long long>> runs = k2D);

// Every construct with float and int8, and the struct programs.
void constructs(std::vector<ProgramCase>& out);

// sum, min, max, count, any, all: types, ranks, dimensions, chunk-crossing
// sizes, reductions feeding stencils (Reductions.cpp).
void reductions(std::vector<ProgramCase>& out);

// Chains whose every read wraps, fused as periodic groups on the GPU (Periodic.cpp).
void periodic(std::vector<ProgramCase>& out);

// Placements and crops rewritten by placement-reads and fold-crops (Reframed.cpp).
void reframed(std::vector<ProgramCase>& out);

}  // namespace formac::e2e
