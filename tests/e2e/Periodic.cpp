// Periodic groups (passes/FusionPlan.h, FusionGroup::periodic): chains whose
// every read wraps, fused on the GPU with regions that reach past the image. Sizes smaller than the halos (1, 2, 3 points: the
// regions span several periods), primes, and more than one tile.
#include <string>
#include <vector>

#include "Templates.h"

namespace formac::e2e {

namespace {

// A scalar of the pipeline (a sum) and point-wise members inside a periodic
// group; a stage read with clamp beside it stays out of the group. Rank
// `rank`, the smoothing's four offsets, mag's two, the extents' parameters.
std::string mixed(int rank, const char* s0, const char* s1, const char* s2, const char* s3, const char* m0,
                  const char* m1, const std::string& params) {
  const std::string v = "vector#" + std::to_string(rank) + " float";
  return "stencil sm(" + v + " X) {\n  return 0.25f * (X@" + s0 + " + X@" + s1 + " + X@" + s2 + " + X@" + s3 +
         ");\n}\nstencil pw(" + v + " X, float k) { return X * k + 1.0f; }\nstencil mag(" + v + " X, " + v +
         " Y) { return X@" + m0 + " * Y@" + m1 + " - Y; }\nparameter " + params + ";\n" + v + " img[" + params +
         "];\nfloat k;\na = pw(img:wrap, k);\nb = sm(a:wrap);\nc = sm(img:clamped);\ns = sum(img);\n"
         "d = pw(b:wrap, s);\nreturn mag(d:wrap, b:wrap), mag(c:wrap, c:wrap);\n";
}

}  // namespace

void periodic(std::vector<ProgramCase>& out) {
  // Eight steps of the 1-D heat equation on a ring (the zoo's heat1d).
  out.push_back(make("periodic_r1_heat8", R"(stencil step(vector#1 double U, double r) {
  return U + r * (U@[-1] - 2.0 * U + U@[1]);
}
parameter L;
vector#1 double u[L];
double r;
t<0> = u;
for s = 1..8
  t<s> = step(t<s-1>:wrap, r);
endfor
return t<8>;
)", {{1}, {2}, {3}, {7}, {513}, {1031}, {4099}}));
  // Integers: an inlined point-wise member, uneven reaches, a member read at
  // its point only.
  out.push_back(make("periodic_r1_int", R"(stencil sq(vector#1 int X) { return X * X - 3; }
stencil cross(vector#1 int X) { return X@[-1] + X@[3] - X@[-2] * 2 + X; }
stencil dx(vector#1 int X) { return X@[1] - X@[-1]; }
stencil same(vector#1 int X, vector#1 int Y) { return X * 5 - Y; }
parameter L;
vector#1 int img[L];
a = sq(img:wrap);
b = cross(a:wrap);
c = dx(b:wrap);
d = same(c:wrap, b:wrap);
return dx(d:wrap);
)", {{1}, {2}, {5}, {13}, {300}, {1031}}));
  out.push_back(make("periodic_r3_mixed",
                     mixed(3, "[-1,0,0]", "[1,0,0]", "[0,-1,1]", "[0,1,-1]", "[1,1,0]", "[-1,0,-1]", "A, B, C"),
                     {{1, 1, 1}, {2, 3, 4}, {5, 7, 3}, {20, 33, 17}}));
  // Rank 2: a 5x5 mean and a Laplacian of it (the zoo's box5_wrap), an 8-bit
  // binomial blur, and the chain above with a point-wise member inlined.
  out.push_back(make("periodic_r2_box5", R"(stencil box5(vector#2 float X) {
  s = 0.0f;
  s = s + X@[-2,-2] + X@[-2,-1] + X@[-2,0] + X@[-2,1] + X@[-2,2];
  s = s + X@[-1,-2] + X@[-1,-1] + X@[-1,0] + X@[-1,1] + X@[-1,2];
  s = s + X@[0,-2] + X@[0,-1] + X + X@[0,1] + X@[0,2];
  s = s + X@[1,-2] + X@[1,-1] + X@[1,0] + X@[1,1] + X@[1,2];
  s = s + X@[2,-2] + X@[2,-1] + X@[2,0] + X@[2,1] + X@[2,2];
  return s / 25.0f;
}
stencil laplace(vector#2 float X) {
  return X@[-1,-1] + X@[-1,0] + X@[-1,1] + X@[0,-1] - 8.0f * X + X@[0,1] + X@[1,-1] + X@[1,0] + X@[1,1];
}
parameter M, N;
vector#2 float tex[M,N];
smooth = box5(tex:wrap);
return laplace(smooth:wrap);
)", {{1, 1}, {2, 3}, {5, 4}, {37, 71}, {130, 257}, {67, 300}}));
  out.push_back(make("periodic_r2_int8", R"(stencil gv(vector#2 int8 X) {
  return cast<int16>(X@[-2,0] + 4 * X@[-1,0] + 6 * X + 4 * X@[1,0] + X@[2,0]);
}
stencil gh(vector#2 int16 X) {
  return cast<int8>((X@[0,-2] + 4 * X@[0,-1] + 6 * X + 4 * X@[0,1] + X@[0,2] + 128) / 256);
}
parameter M, N;
vector#2 int8 img[M,N];
return gh(gv(img:wrap):wrap);
)", {{1, 1}, {2, 2}, {17, 300}, {130, 64}}));
  out.push_back(make("periodic_r2_mixed", mixed(2, "[-1,0]", "[1,0]", "[0,-1]", "[0,1]", "[1,1]", "[-1,-1]", "M, N"),
                     {{1, 1}, {4, 4}, {31, 65}, {66, 129}}));
  // Three steps of a 7-point 3-D Laplacian, and a 4-D chain of int8.
  out.push_back(make("periodic_r3_heat3", R"(stencil lap(vector#3 float U) {
  return U + 0.1f * (U@[-1,0,0] + U@[1,0,0] + U@[0,-1,0] + U@[0,1,0] + U@[0,0,-1] + U@[0,0,1] - 6.0f * U);
}
parameter A, B, C;
vector#3 float v[A,B,C];
t<0> = v;
for s = 1..3
  t<s> = lap(t<s-1>:wrap);
endfor
return t<3>;
)", {{1, 1, 1}, {2, 3, 5}, {7, 11, 13}, {20, 33, 17}}));
  out.push_back(make("periodic_r4_int8", R"(stencil f(vector#4 int8 X) { return cast<int8>(X@[-1,0,2,1] + X@[2,-3,0,-1] * 3 - X); }
stencil g(vector#4 int8 Y) { return cast<int8>(Y - Y@[0,1,-1,0] / 2 + Y@[-1,0,0,0]); }
parameter A, B, C, D;
vector#4 int8 img[A,B,C,D];
a = f(img:wrap);
b = g(a:wrap);
return g(b:wrap);
)", {{1, 1, 1, 1}, {2, 3, 1, 4}, {3, 5, 4, 2}, {6, 7, 5, 8}}));
}

}  // namespace formac::e2e
