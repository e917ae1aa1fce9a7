// The `do` loop programs (Loops.h). Every program carries a round counter
// (cnt<0> = 0, cnt<i> = cnt<i-1> + 1) and returns it first, then the images
// it carries, so that a round too many or too few, or a carried buffer
// swapped wrongly, shows in an output.
#include "Loops.h"

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "Templates.h"

namespace formac::e2e {
namespace {

// The counter's stencils for images of rank `rank` and element type `t`.
std::string counter(int rank, const std::string& t) {
  std::string v = "vector#" + std::to_string(rank);
  return "stencil zero(" + v + " " + t + " X) { return 0; }\nstencil inc(" + v +
         " int C) { return C + 1; }\n";
}

const char* const kDiffers = "stencil differs(vector#2 %T% A, vector#2 %T% B) { return A != B; }\n";

// Sizes M, N and the rounds parameter R.
const std::vector<std::vector<long long>> kRoundOneRuns = {{5, 7, 5},  {1, 1, 5}, {37, 131, 5}, {0, 5, 5},
                                                           {5, 0, 5},  {5, 7, 0}, {5, 7, -2},   {5, 7, 1}};
const std::vector<long long> kRoundOneRounds = {1, 1, 1, -1, -1, 0, 0, 1};
const std::vector<std::vector<long long>> kCapRuns = {{5, 7, 0}, {5, 7, 2}, {5, 7, 3}, {37, 131, 9},
                                                      {1, 1, 4}, {0, 4, 9}, {3, 0, 9}};
const std::vector<long long> kCapRounds = {0, 0, 1, 7, 2, -1, -1};  // do i = 3..R: R - 2 rounds

// A body that changes nothing: a fixed point at once, the loop stops after
// round 1 (no round when R <= 0).
std::string roundOne(const std::string& t) {
  return fill(counter(2, "%T%") + kDiffers + R"(stencil keep(vector#2 %T% E, vector#2 %T% X) { return X > 1000000 ? E@[0,1] : E; }
parameter M, N, R;
vector#2 %T% img[M,N];
e<0> = img;
cnt<0> = zero(img);
do i = 1..R
  e<i> = keep(e<i-1>:clamped, img);
  cnt<i> = inc(cnt<i-1>);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
return cnt<i>, e<i>;
)", {{"%T%", t}});
}

// A body that changes its image, a condition never true: one round.
std::string never(const std::string& t) {
  return fill(counter(2, "%T%") + R"(stencil step(vector#2 %T% E, vector#2 %T% X) { return cast<%T%>(E / 2 + X@[-1,1]); }
stencil never(vector#2 %T% X) { return X < X; }
parameter M, N;
vector#2 %T% img[M,N];
e<0> = img;
cnt<0> = zero(img);
do i = 1..50
  e<i> = step(e<i-1>:mirror, img:wrap);
  cnt<i> = inc(cnt<i-1>);
  z<i> = never(e<i>);
while (count(z<i>));
return cnt<i>, e<i>;
)", {{"%T%", t}});
}

// A condition always true (also on an empty image: all() of no point is 1):
// the loop runs to its cap, R - 2 rounds from 3.
std::string cap(const std::string& t) {
  return fill(counter(2, "%T%") + R"(stencil step(vector#2 %T% E, vector#2 %T% X) { return cast<%T%>(E / 2 + X@[1,-1]); }
stencil always(vector#2 %T% X) { return X == X || X != X; }
parameter M, N, R;
vector#2 %T% img[M,N];
e<2> = img;
cnt<2> = zero(img);
do i = 3..R
  e<i> = step(e<i-1>:mirror, img);
  cnt<i> = inc(cnt<i-1>);
  a<i> = always(e<i>);
while (all(a<i>));
return cnt<i>, e<i>;
)", {{"%T%", t}});
}

// Region growing from the largest value over points above the middle of
// the range, until a round adds no point (a literal cap never reached).
std::string grow(const std::string& t) {
  return fill(counter(2, "%T%") + R"(stencil seed(vector#2 %T% X, %T% m) { return X == m; }
stencil grow(vector#2 int E, vector#2 %T% X, %T% m, %T% lo) {
  return E != 0 || (X > lo + (m - lo) / 3 && (E@[-1,0] != 0 || E@[1,0] != 0 || E@[0,-1] != 0 || E@[0,1] != 0)) ? 1 : 0;
}
stencil differs(vector#2 int A, vector#2 int B) { return A != B; }
parameter M, N;
vector#2 %T% img[M,N];
m = max(img);
lo = min(img);
e<0> = seed(img, m);
cnt<0> = zero(img);
do i = 1..100000
  e<i> = grow(e<i-1>:constant(0), img, m, lo);
  cnt<i> = inc(cnt<i-1>);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
k = count(e<i>);
return cnt<i>, e<i>, k;
)", {{"%T%", t}});
}

// A spiral path computed from the coordinates (scans of ones): ring k of the
// image (the points k away from its nearest border) is open when k is even,
// except the point (k+1, k) that cuts it, and walled when k is odd, except
// the point (k+1, k) that leads into ring k+1. Filled from (0, 0) one point
// a round, it runs right, down, left and up around every ring: across the
// fused C tiles (bands of rows) down and back up, hundreds of rounds.
// The spiral's path and seed; `grow`, `differs` and the loop come after it.
const char* const kSpiralPath = R"(stencil one(vector#2 float X) { return 1; }
stencil spiral(vector#2 int Rows, vector#2 int Cols, int m, int n) {
  r = Rows - 1;
  c = Cols - 1;
  k = min(min(r, c), min(m - 1 - r, n - 1 - c));
  gap = r == k + 1 && c == k;
  return k % 2 == 0 ? !gap : gap;
}
stencil seed(vector#2 int Rows, vector#2 int Cols) { return Rows == 1 && Cols == 1; }
stencil differs(vector#2 int A, vector#2 int B) { return A != B; }
)";
const char* const kSpiralStart = R"(parameter M, N;
vector#2 float img[M,N];
o = one(img);
rows = scan(o, 0, int);
cols = scan(o, 1, int);
m = max(rows);
n = max(cols);
path = spiral(rows, cols, m, n);
e<0> = seed(rows, cols);
)";
const std::string kSpiral = std::string(kSpiralPath) + R"(stencil grow(vector#2 int E, vector#2 int P) {
  return E != 0 || (P != 0 && (E@[-1,0] != 0 || E@[1,0] != 0 || E@[0,-1] != 0 || E@[0,1] != 0)) ? 1 : 0;
}
stencil zero(vector#2 int X) { return 0; }
stencil inc(vector#2 int C) { return C + 1; }
)" + kSpiralStart + R"(cnt<0> = zero(rows);
do i = 1..100000
  e<i> = grow(e<i-1>:constant(0), path);
  cnt<i> = inc(cnt<i-1>);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
return cnt<i>, e<i>, path;
)";
const std::vector<std::vector<long long>> kSpiralRuns = {{1, 1}, {2, 3}, {40, 40}, {23, 57}, {64, 9}, {0, 4}};

// The rounds the spiral's fill takes: one per point of the longest path from
// (0, 0) through open points, and one that adds nothing (a breadth-first
// search over the program's own mask).
long long spiralRounds(long long m, long long n) {
  if (m <= 0 || n <= 0) return -1;
  auto open = [&](long long r, long long c) {
    long long k = std::min(std::min(r, c), std::min(m - 1 - r, n - 1 - c));
    bool gap = r == k + 1 && c == k;
    return k % 2 == 0 ? !gap : gap;
  };
  std::vector<long long> dist(static_cast<size_t>(m * n), -1);
  std::deque<long long> queue = {0};
  dist[0] = 0;
  long long far = 0;
  while (!queue.empty()) {
    long long p = queue.front();
    queue.pop_front();
    far = std::max(far, dist[static_cast<size_t>(p)]);
    const long long r = p / n, c = p % n, dr[] = {-1, 1, 0, 0}, dc[] = {0, 0, -1, 1};
    for (int d = 0; d < 4; ++d) {
      long long rr = r + dr[d], cc = c + dc[d];
      if (rr < 0 || rr >= m || cc < 0 || cc >= n || !open(rr, cc) || dist[static_cast<size_t>(rr * n + cc)] >= 0)
        continue;
      dist[static_cast<size_t>(rr * n + cc)] = dist[static_cast<size_t>(p)] + 1;
      queue.push_back(rr * n + cc);
    }
  }
  return far + 1;
}

// Four carried images of four types and two extents (a double row of sums
// first, then an int halved to 0, a double smoothed through a summed-area
// table taken in the body, an int8 flag: the C workspace once gave every
// carried image the first one's type and extent), an outer reduction and an
// outer image read in the body, a body image read by later body stages and a
// body reduction passed to a stencil's scalar parameter.
const char* const kCarried = R"(stencil toint(vector#2 float X) { return cast<int>(X * 1000); }
stencil widen(vector#2 float X) { return cast<double>(X); }
stencil flag0(vector#2 float X) { return cast<int8>(X > 0); }
stencil half(vector#2 int X) { return X / 2; }
stencil nz(vector#2 int H) { return H != 0; }
stencil box(vector#2 double I) { return (I@[1,1] - I@[-2,1] - I@[1,-2] + I@[-2,-2]) / 9.0; }
stencil acc(vector#2 double S, vector#2 int H, vector#2 float X, float mx) { return S + H * 0.5 + X@[0,1] - mx; }
stencil flag(vector#2 int8 F, vector#2 int H, int64 n) { return cast<int8>(F + (H != 0) + n % 3); }
stencil vhalf(vector#1 double V) { return V@[1] * 0.5; }
stencil zero(vector#2 float X) { return 0; }
stencil inc(vector#2 int C) { return C + 1; }
parameter M, N;
vector#2 float img[M,N];
mx = max(img);
v<0> = sum(img, 1);
h<0> = toint(img);
s<0> = widen(img);
f<0> = flag0(img);
cnt<0> = zero(img);
do i = 1..30
  v<i> = vhalf(v<i-1>:clamped);
  h<i> = half(h<i-1>);
  z<i> = nz(h<i>);
  k<i> = count(z<i>);
  t<i> = sat(s<i-1>);
  s<i> = acc(box(t<i>:clamped), h<i>, img:mirror, mx);
  f<i> = flag(f<i-1>, h<i>, k<i>);
  cnt<i> = inc(cnt<i-1>);
while (any(z<i>));
return cnt<i>, h<i>, s<i>, f<i>, v<i>;
)";

// Rank 1: the largest value spreads right one point a round (int8) while a
// float diffuses and a scan of it is taken in the body.
const char* const kRank1 = R"(stencil right(vector#1 int8 X) { return cast<int8>(max(X, X@[-1])); }
stencil diffuse(vector#1 float X, vector#1 double S) { return (X@[-1] + X + X@[1]) / 3.0f + cast<float>((S - S@[-1]) * 0.01); }
stencil differs(vector#1 int8 A, vector#1 int8 B) { return A != B; }
stencil tof(vector#1 int8 X) { return cast<float>(X) * 0.25f; }
stencil zero(vector#1 int8 X) { return 0; }
stencil inc(vector#1 int C) { return C + 1; }
parameter N, R;
vector#1 int8 img[N];
e<0> = img;
d<0> = tof(img);
cnt<0> = zero(img);
do i = 1..R
  e<i> = right(e<i-1>:clamped);
  s<i> = scan(d<i-1>, 0);
  d<i> = diffuse(d<i-1>:mirror, s<i>);
  cnt<i> = inc(cnt<i-1>);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
return cnt<i>, e<i>, d<i>;
)";

// Rank 3: the smallest value spreads along all three dimensions (int) under
// clamped reads; the condition is a name bound to a count.
const char* const kRank3 = R"(stencil spread(vector#3 int X) {
  return min(min(X, min(X@[-1,0,0], X@[1,0,0])), min(min(X@[0,-1,0], X@[0,1,0]), min(X@[0,0,-1], X@[0,0,1])));
}
stencil differs(vector#3 int A, vector#3 int B) { return A != B; }
stencil zero(vector#3 int X) { return 0; }
stencil inc(vector#3 int C) { return C + 1; }
parameter A, B, C;
vector#3 int img[A,B,C];
e<0> = img;
cnt<0> = zero(img);
do i = 1..1000
  e<i> = spread(e<i-1>:clamped);
  cnt<i> = inc(cnt<i-1>);
  c<i> = differs(e<i>, e<i-1>);
  w<i> = count(c<i>);
while (w<i>);
return cnt<i>, e<i>;
)";

// Loops one after another, each with another form of condition, the later
// ones carrying the earlier ones' results: a sum of a body image; count(..) >
// 3 (a stencil of the count); max(..) > 100 (a stencil of the maximum); the
// minimum of a floating body image. The results are read by stencils after.
const char* const kConditions = R"(stencil toint(vector#2 double X) { return cast<int>(X * 300); }
stencil half(vector#2 int X) { return X / 2; }
stencil differs(vector#2 int A, vector#2 int B) { return A != B; }
stencil above(vector#2 int X, int64 n) { return X != 0 && n > 3; }
stencil down(vector#2 int X, vector#2 int Y) { return X - 7 + (Y@[0,1] > 5000); }
stencil top(vector#2 int X, int m) { return X >= m && m > 100; }
stencil gap(vector#2 int X) { return fabs(cast<float>(X)) * 0.5f + 0.75f; }
stencil shrink(vector#2 float X) { return X > 0.5f ? X * 0.5f : 0; }
stencil blur(vector#2 int X, vector#2 float Y) { return X@[-1,0] + X@[1,0] + Y@[0,2]; }
stencil zero(vector#2 double X) { return 0; }
stencil inc(vector#2 int C) { return C + 1; }
parameter M, N;
vector#2 double img[M,N];
a<0> = toint(img);
na<0> = zero(img);
do i = 1..20
  a<i> = half(a<i-1>);
  na<i> = inc(na<i-1>);
while (sum(a<i>));
b<0> = a<i>;
nb<0> = zero(img);
do k = 1..40
  b<k> = half(b<k-1>);
  c<k> = differs(b<k>, b<k-1>);
  n<k> = count(c<k>);
  nb<k> = inc(nb<k-1>);
while (any(above(c<k>, n<k>)));
x<0> = toint(img);
nx<0> = zero(img);
do t = 1..1000
  x<t> = down(x<t-1>, b<k>:wrap);
  m<t> = max(x<t>);
  nx<t> = inc(nx<t-1>);
while (any(top(x<t>, m<t>)));
y<0> = gap(x<t>);
ny<0> = zero(img);
do j = 1..200
  y<j> = shrink(y<j-1>:clamped);
  ny<j> = inc(ny<j-1>);
while (min(y<j>));
return na<i>, nb<k>, nx<t>, ny<j>, blur(a<i>:mirror, y<j>:clamped), x<t>;
)";

// Monotone propagations (passes/LocalFixpoint.h): the C code runs round 1,
// then settles the rest in place from worklists. No round counter (a second
// carried image is not a propagation); the settled image must equal the
// evaluator's rounds one by one, also when round 1 moves points both ways or
// the limit R stops the rounds early (both run the rounds one by one).
const char* const kDiffersInt8 = "stencil differs(vector#2 int8 A, vector#2 int8 B) { return A != B; }\n";

// Canny's hysteresis, proved by trying the values {0, 1, 2}; R from 1 (no
// settling) to the limit that stops it early, to enough.
const std::string kSettleHysteresis = std::string(kDiffersInt8) + R"(stencil classify(vector#2 int8 X) { return cast<int8>(X > 200 ? 2 : (X > 100 ? 1 : 0)); }
stencil grow(vector#2 int8 S) {
  near = max(max(max(S@[-1,-1], S@[-1,0]), max(S@[-1,1], S@[0,-1])),
             max(max(S@[0,1], S@[1,-1]), max(S@[1,0], S@[1,1])));
  return cast<int8>(S + (S == 1) * (near == 2));
}
parameter M, N, R;
vector#2 int8 img[M,N];
s<0> = classify(img);
do i = 1..R
  s<i> = grow(s<i-1>:constant(0));
  c<i> = differs(s<i>, s<i-1>);
while (any(c<i>));
return s<i>;
)";
const std::vector<std::vector<long long>> kSettleHysteresisRuns = {
    {1, 1, 5}, {2, 3, 100000}, {37, 131, 100000}, {300, 200, 1000000}, {70, 130, 2},
    {70, 130, 3}, {130, 70, 1}, {0, 5, 9}, {5, 7, 0}, {200, 9, 40}};

// Geodesic dilation under the image (polarity), int16 with negative values,
// a scalar, mirrored reads two points away. The limit is above the sum of
// the changes (up to 65535 a point), so that the C code settles.
const char* const kSettleGeodesic = R"(stencil seed(vector#2 int16 X, int16 t) { return cast<int16>(X > t ? X : -32768); }
stencil spread(vector#2 int16 E, vector#2 int16 X) {
  return cast<int16>(max(E, min(X, max(max(E@[-2,0], E@[1,0]), max(E@[0,-1], E@[0,2])))));
}
stencil differs(vector#2 int16 A, vector#2 int16 B) { return A != B; }
parameter M, N;
vector#2 int16 img[M,N];
int16 t;
e<0> = seed(img, t);
do i = 1..2000000000
  e<i> = spread(e<i-1>:mirror, img);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
return e<i>;
)";

// The hysteresis with its neighbourhood in a stage of its own, which X<i>
// reads at the point (inlined into the step: passes/LoopStep.h).
const std::string kSettleHelper = std::string(kDiffersInt8) + R"(stencil classify(vector#2 int8 X) { return cast<int8>(X > 200 ? 2 : (X > 100 ? 1 : 0)); }
stencil near(vector#2 int8 S) {
  return cast<int8>(max(max(max(S@[-1,-1], S@[-1,0]), max(S@[-1,1], S@[0,-1])),
                        max(max(S@[0,1], S@[1,-1]), max(S@[1,0], S@[1,1]))));
}
stencil grow(vector#2 int8 S, vector#2 int8 N) { return cast<int8>(S + (S == 1) * (N == 2)); }
parameter M, N, R;
vector#2 int8 img[M,N];
s<0> = classify(img);
do i = 1..R
  n<i> = near(s<i-1>:constant(0));
  s<i> = grow(s<i-1>, n<i>);
  c<i> = differs(s<i>, s<i-1>);
while (any(c<i>));
return s<i>;
)";

// One diagonal tap read through a mirror, capped by an int64 image (progfuzz
// seed 1048: a change on row 1 is read by row 0 through the reflection).
const char* const kSettleMirror = R"(stencil start(vector#2 int16 X) { return cast<int16>(X / 3); }
stencil spread(vector#2 int16 X, vector#2 int64 K) { return cast<int16>(max(X, min(cast<int16>(K), X@[-1,1]))); }
stencil differs(vector#2 int16 A, vector#2 int16 B) { return A != B; }
stencil wide(vector#2 int16 X) { return cast<int64>(X) * 3; }
parameter M, N;
vector#2 int16 img[M,N];
k = wide(img);
e<0> = start(img);
do i = 1..1000000
  e<i> = spread(e<i-1>:mirror, k);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
return e<i>;
)";

// Reconstruction by erosion (fill holes): the rounds move down, uint16,
// clamped reads.
const char* const kSettleErode = R"(stencil marker(vector#2 uint16 X) { return cast<uint16>(X < 20000 ? X : 65535); }
stencil erode(vector#2 uint16 E, vector#2 uint16 X) {
  return cast<uint16>(max(min(min(E@[-1,0], E@[1,0]), min(min(E@[0,-1], E@[0,1]), E)), X));
}
stencil differs(vector#2 uint16 A, vector#2 uint16 B) { return A != B; }
parameter M, N;
vector#2 uint16 img[M,N];
e<0> = marker(img);
do i = 1..2000000000
  e<i> = erode(e<i-1>:clamped, img);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
return e<i>;
)";

// Monotone, but round 1 moves points both ways (a local maximum falls): the
// rounds run one by one.
const char* const kSettleMixed = R"(stencil apart(vector#2 int S) { return max(S@[0,-1], S@[0,1]); }
stencil differs(vector#2 int A, vector#2 int B) { return A != B; }
parameter M, N, R;
vector#2 int img[M,N];
s<0> = img;
do i = 1..R
  s<i> = apart(s<i-1>:mirror);
  c<i> = differs(s<i>, s<i-1>);
while (any(c<i>));
return s<i>;
)";
const std::vector<std::vector<long long>> kSettleMixedRuns = {{5, 7, 3}, {37, 131, 1000}, {13, 17, 2}, {1, 9, 50}};

// The spiral of loop_spiral without its counter, as a monotone spread: the
// fill must cross the C bands down and back up many times.
const std::string kSettleSpiral = std::string(kSpiralPath) + R"(stencil grow(vector#2 int E, vector#2 int P) {
  return max(E, min(P, max(max(E@[-1,0], E@[1,0]), max(E@[0,-1], E@[0,1]))));
}
)" + kSpiralStart + R"(do i = 1..100000
  e<i> = grow(e<i-1>:constant(0), path);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
return e<i>;
)";

// The loop's buffers shared with the stages around it (loopInPlaceCuda):
// g<0> is read by nothing but the loop, so it is computed into the loop's
// buffer; e<0> is read again after the loop, so it keeps its own; the
// results e<i> and g<i> are read by later stages from the loop's buffers;
// e<i>, in the first loop's buffer, is the second loop's initial image
// (copied into the second loop's own). A wrong sharing shows in an output.
std::string inPlace(const std::string& t) {
  return fill(counter(2, "%T%") + kDiffers + R"(stencil seed(vector#2 %T% X) { return cast<%T%>(X > 3 ? 2 : (X > 1 ? 1 : 0)); }
stencil grow(vector#2 %T% E) { return cast<%T%>(E == 1 && max(E@[0,-1], E@[1,0]) == 2 ? 2 : E); }
stencil diff(vector#2 %T% A, vector#2 %T% B) { return A - B + 0.5 * A; }
stencil twice(vector#2 %T% A, vector#2 %T% B) { return A * 2 + B; }
parameter M, N, R;
vector#2 %T% img[M,N];
cnt<0> = zero(img);
e<0> = seed(img);
g<0> = seed(img@[0,1]:clamped);
do i = 1..R
  e<i> = grow(e<i-1>:constant(0));
  g<i> = grow(g<i-1>:mirror);
  cnt<i> = inc(cnt<i-1>);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
f<0> = e<i>;
do j = 1..R
  f<j> = grow(f<j-1>:clamped);
  d<j> = differs(f<j>, f<j-1>);
while (any(d<j>));
return cnt<i>, diff(e<i>, e<0>), twice(g<i>, e<i>), f<j>;
)", {{"%T%", t}});
}

}  // namespace

std::vector<ProgramCase> loopCases() {
  std::vector<ProgramCase> out;
  for (const char* t : {"int16", "float"}) out.push_back(make(std::string("loop_round_one_") + t, roundOne(t), kRoundOneRuns));
  for (const char* t : {"int8", "double"}) out.push_back(make(std::string("loop_never_") + t, never(t)));
  for (const char* t : {"int", "double"}) out.push_back(make(std::string("loop_cap_") + t, cap(t), kCapRuns));
  ProgramCase special = make("loop_cap_double_special", cap("double"), {{5, 7, 4}, {37, 131, 6}});
  special.specialValues = true;
  out.push_back(special);
  for (const char* t : {"int16", "float"})
    out.push_back(make(std::string("loop_grow_") + t, grow(t), {{1, 1}, {2, 3}, {13, 17}, {37, 131}, {0, 5}, {70, 130}}));
  out.push_back(make("loop_spiral", kSpiral, kSpiralRuns));
  out.push_back(make("loop_carried", kCarried, {{1, 1}, {2, 3}, {13, 17}, {37, 131}, {4, 0}}));
  out.push_back(make("loop_rank1", kRank1, {{1, 100}, {2, 100}, {37, 100}, {300, 400}, {4099, 3}, {0, 5}, {13, 0}}));
  out.push_back(make("loop_rank3", kRank3, {{1, 1, 1}, {2, 3, 4}, {5, 7, 3}, {9, 11, 10}, {0, 3, 4}, {3, 1, 70}}));
  out.push_back(make("settle_hysteresis", kSettleHysteresis, kSettleHysteresisRuns));
  out.push_back(make("settle_geodesic", kSettleGeodesic, {{1, 1}, {2, 3}, {13, 17}, {37, 131}, {260, 70}, {0, 5}}));
  out.push_back(make("settle_erode", kSettleErode, {{1, 1}, {2, 3}, {13, 17}, {37, 131}, {150, 140}}));
  out.push_back(make("settle_mixed", kSettleMixed, kSettleMixedRuns));
  out.push_back(make("settle_helper", kSettleHelper, {{1, 1, 5}, {37, 131, 100000}, {200, 150, 100000}, {70, 130, 2}}));
  out.push_back(make("settle_mirror", kSettleMirror, {{5, 7}, {2, 3}, {1, 4}, {9, 1}, {13, 17}, {70, 90}}));
  out.push_back(make("settle_spiral", kSettleSpiral, {{1, 1}, {2, 3}, {40, 40}, {23, 57}, {150, 9}, {0, 4}}));
  for (const char* t : {"int8", "float"})
    out.push_back(make(std::string("loop_in_place_") + t, inPlace(t),
                       {{1, 1, 9}, {2, 3, 0}, {13, 17, 100}, {37, 131, 3}, {0, 4, 5}, {70, 90, 100000}}));
  out.push_back(make("loop_conditions", kConditions, {{1, 1}, {2, 3}, {13, 17}, {37, 131}, {0, 3}}));
  return out;
}

std::vector<LoopRounds> loopRounds() {
  std::vector<LoopRounds> out = {{"loop_round_one_int16", kRoundOneRounds}, {"loop_round_one_float", kRoundOneRounds},
                                 {"loop_cap_int", kCapRounds},           {"loop_cap_double", kCapRounds}};
  std::vector<long long> one;
  for (const auto& run : k2D) one.push_back(run[0] * run[1] == 0 ? -1 : 1);
  out.push_back({"loop_never_int8", one});
  out.push_back({"loop_never_double", one});
  std::vector<long long> spiral;
  for (const auto& run : kSpiralRuns) spiral.push_back(spiralRounds(run[0], run[1]));
  out.push_back({"loop_spiral", spiral});
  return out;
}

}  // namespace formac::e2e
