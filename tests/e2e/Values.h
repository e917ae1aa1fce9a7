// Random inputs and exact comparison of images in C layout.
//
// Inputs are random, never all zero, and in ranges where the programs under
// test stay defined in C: int8 0..255, int16 -3000..3000, int -1000..1000,
// float/double uniform in [-4, 4] with small exact integers mixed in. Structs
// are filled field by field (formac::fieldOffset), padding left 0.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "ir/Types.h"

namespace formac::e2e {

// `count` random elements of type t, in C layout. With `special`, about one
// element in eight is instead a value at the edge of its type: for float and
// double NaN, +-inf, -0, a subnormal, the smallest normal, +-the largest
// finite, 2^24 + 1 (float) or 2^53 + 1 (double); for the integers their
// minimum and maximum, -1 and 0 (every operation the language has stays
// defined: integers wrap, floating -> integer conversions are x86's).
std::vector<unsigned char> randomImage(const Type& t, size_t count, std::mt19937& rng, bool special = false);

// A random scalar input: its value (as the evaluator takes it) and its bytes
// (as the C entry point takes it).
struct ScalarValue {
  double value = 0.0;
  std::vector<unsigned char> bytes;
};
ScalarValue randomScalar(ScalarKind k, std::mt19937& rng);

// The first element (field by field, padding ignored) where `got` differs
// from `want` bit for bit (any NaN equals any NaN: the sign and payload of a
// NaN an operation makes are the hardware's), described with its coordinates
// and both values; empty when they agree.
std::string firstDifference(const Type& t, const std::vector<long long>& extent,
                            const std::vector<unsigned char>& want,
                            const std::vector<unsigned char>& got);

}  // namespace formac::e2e
