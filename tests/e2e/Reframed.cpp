// Placements and crops that the passes placement-reads and fold-crops rewrite
// (passes/PlacementReads.h, passes/FoldCrops.h): OpenCV's integral layout
// (an image placed at (1,1), its sat, a box filter read back cropped) in float
// and int8; crops at offsets, a crop of a crop, a crop that reaches a stencil's
// zero border (left alone); placements at offsets read by stencils under
// every kind of mode, and a placement of a computed image.
#include <string>
#include <vector>

#include "Templates.h"

namespace formac::e2e {

void reframed(std::vector<ProgramCase>& out) {
  const std::vector<std::vector<long long>> sizes = {{4, 4}, {5, 6}, {13, 17}, {1, 9}, {70, 130}, {3, 513}};
  out.push_back(make("reframe_integral_box", R"(stencil box(vector#2 double I) {
  return cast<float>((I@[3,3] - I@[-2,3] - I@[3,-2] + I@[-2,-2]) / 25.0);
}
stencil boxi(vector#2 int I) { return I@[1,1] - I@[-1,1] - I@[1,-1] + I@[-1,-1]; }
parameter M, N;
vector#2 float img[M,N];
vector#2 int8 b8[M,N];
Z[1.., 1..] = img;
I = sat(Z);
B = box(I:clamped);
out = B[0..M-1, 0..N-1];
Y[1.., 1..] = b8;
J = sat(Y, int);
C = boxi(J:mirror);
out2 = C[1..M, 1..N];
return out, out2;
)", sizes));
  out.push_back(make("reframe_crops", R"(stencil g(vector#2 float X) { return X@[-1,0] * 0.5f + X@[1,1] - X; }
stencil h(vector#2 float X) { return X@[0,-1] + X@[2,0]; }
parameter M, N;
vector#2 float img[M,N];
a = g(img);
c1 = a[1..M-2, 0..N-2];
b = h(img:mirror);
c2 = b[0..M-1, 1..N-1];
e = g(img);
c4 = e[0..M-1, 0..N-1];
f = h(img:wrap);
c5 = f[1..M-1, ..];
c6 = c5[1..M-3, 1..N-1];
return c1, c2, c4, c6;
)", {{4, 4}, {5, 6}, {13, 17}, {70, 130}, {4, 513}}));
  out.push_back(make("reframe_placements", R"(stencil blur(vector#2 float X) { return (X@[-1,0] + X@[0,1] + X + X@[1,-1]) / 4.0f; }
stencil twice(vector#2 float X) { return X * 2.0f; }
stencil blur16(vector#2 int16 X) { return X@[-1,0] + X@[0,2] - X; }
parameter M, N;
vector#2 float img[M,N];
vector#2 int16 v[M,N];
Z[2.., 1..] = img;
out = blur(Z:mirror);
W[0.., 3..] = v;
out2 = blur16(W:clamped);
P[1.., 1..] = twice(img);
Q[1.., 2..] = img;
return out, out2, blur(P:wrap), blur(Q), blur(Q:constant(3));
)", sizes));
}

}  // namespace formac::e2e
