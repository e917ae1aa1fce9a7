// Symbolic sizes: integer expressions over the program's parameters
// (`M-2`, `N/2`, `2*M+1`). Extents, sub-domain bounds and scatter extents are
// Sizes; backends print them as C and the evaluator computes them.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace formac::ir {

struct SizeNode;
using Size = std::shared_ptr<const SizeNode>;

struct SizeNode {
  enum Kind { Const, Param, Add, Sub, Mul, Div, Max, Min } kind = Const;
  long long value = 0;  // Const
  int param = -1;       // Param: index into Pipeline::params
  Size lhs, rhs;        // binary; Div is C division of non-negative values (floor)
};

Size sizeConst(long long v);
Size sizeParam(int index);
// These fold constants and identities (x+0, x*1, x/1).
Size sizeAdd(Size a, Size b);
Size sizeSub(Size a, Size b);
Size sizeMul(Size a, Size b);
Size sizeDiv(Size a, long long divisor);
Size sizeMax(Size a, Size b);
Size sizeMin(Size a, Size b);

// a / b rounded toward negative infinity (b != 0, and not LLONG_MIN / -1).
long long floorDiv(long long a, long long b);

bool isConst(const Size& s, long long* value = nullptr);
long long evalSize(const Size& s, const std::vector<long long>& params);
// Prints with parameter names, fully parenthesised where needed: "M - 2", "(N + 1) / 2".
std::string printSize(const Size& s, const std::vector<std::string>& paramNames);
// Equal for all parameter values (tested structurally, then on sample values).
bool sameSize(const Size& a, const Size& b, int paramCount);
// Whether b - a is one constant for all parameter values (sampled as sameSize
// samples), and which: `M - 1` and `M + 1 - 1` differ by 1.
bool constantDifference(const Size& a, const Size& b, int paramCount, long long* difference);

}  // namespace formac::ir
