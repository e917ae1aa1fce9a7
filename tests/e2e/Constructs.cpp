// The construct programs of the e2e matrix (declared in Templates.h).
#include <string>
#include <vector>

#include "Templates.h"

namespace formac::e2e {
namespace {

// ------------------------------------------------------------ constructs
// Each template is instantiated for float and int8 (%T%); the bodies cast
// their results to %T% so int8 programs keep int8 images.
struct Template {
  std::string name;
  std::string floatSource, int8Source;  // int8Source empty: the float one with %T% = int8
};

std::string forType(const Template& tp, const std::string& t) {
  const std::string& src = (t == "int8" && !tp.int8Source.empty()) ? tp.int8Source : tp.floatSource;
  return fill(src, {{"%T%", t}});
}

std::vector<Template> constructTemplates() {
  std::vector<Template> v;
  const char* header = "parameter M, N;\nvector#2 %T% img[M,N];\n";
  auto chain = [&](const std::string& m1, const std::string& m2) {
    return Template{"chain_" + m1 + "_" + m2,
                    std::string(R"(stencil bx(vector#2 %T% X) { return cast<%T%>((X@[0,-1] + 2 * X + X@[0,1]) / 4); }
stencil by(vector#2 %T% Y) { return cast<%T%>((Y@[-1,0] + 2 * Y + Y@[1,0]) / 4); }
)") + header + "tmp = bx(" + withMode("img", mode(m1)) + ");\nout = by(" + withMode("tmp", mode(m2)) +
                        ");\nreturn out;\n",
                    ""};
  };
  v.push_back(chain("none", "none"));
  v.push_back(chain("mirror", "none"));
  v.push_back(chain("none", "wrap"));
  v.push_back(chain("clamped", "constant"));
  v.push_back(chain("wrap", "mirror"));

  auto two = [&](const std::string& tag, const std::string& a, const std::string& b) {
    return Template{"twoargs_" + tag,
                    std::string(R"(stencil two(vector#2 %T% P, vector#2 %T% Q) {
  return cast<%T%>(P@[-3,-2] + P@[2,3] - Q@[-2,-3] + Q@[3,2]);
}
parameter M, N;
vector#2 %T% one[M,N];
vector#2 %T% other[M,N];
)") + "out = two(" + a + ", " + b + ");\nreturn out;\n",
                    ""};
  };
  v.push_back(two("none_wrap", "one", "other:wrap"));
  v.push_back(two("clamped_mirror", "one:clamped", "other:mirror"));
  v.push_back(two("same_mirror_wrap", "one:mirror", "one:wrap"));
  v.push_back(two("constant_none", "one:constant(2)", "other"));
  v.push_back(two("extend_constant7", "one:extend", "other:constant(7)"));

  v.push_back({"scalar_inputs", R"(stencil sc(vector#2 %T% X, float k, int n) {
  return cast<%T%>(X * k + X@[0,1] / n);
}
parameter M, N;
float k;
vector#2 %T% img[M,N];
int n;
return sc(img:mirror, k, n);
)", ""});
  v.push_back({"scalar_literals", R"(stencil sc(vector#2 %T% X, double k, int8 n) {
  return cast<%T%>(X * k - X@[1,0] / n + n);
}
double w;
parameter M, N;
vector#2 %T% img[M,N];
int8 n;
out = sc(img, 2.5, n);
return out;
)", ""});
  v.push_back({"ternary", R"(stencil t(vector#2 %T% X, vector#2 %T% Y) {
  c = (X > Y ? X - Y : Y@[0,1] * 2);
  d = (X@[1,0] == Y ? 1 : (X < 0.5 ? -1 : 0));
  e = X > 1 && Y < 3 || !(X == Y) ? 1 : 0;
  return cast<%T%>(c + d + e + (X > 0 ? X : -X));
}
parameter M, N;
vector#2 %T% img[M,N];
vector#2 %T% other[M,N];
return t(img:wrap, other);
)", ""});
  v.push_back({"math", R"(stencil m(vector#2 float X, vector#2 float Y) {
  a = sqrt(fabs(X)) + exp(X / 4) - log(fabs(Y) + 1);
  b = min(X, Y) * max(X@[0,1], Y) + abs(X - Y) - absd(X, Y@[1,0]);
  c = floor(X * 3) + ceil(Y) + round(X - Y) + X ^ 2 + fabs(Y) ^ 0.5;
  d = sin(X) * cos(Y) + atan(X) + atan2(Y, X) + tan(X / 8);
  e = sqrtf(fabs(Y)) + expf(Y / 8) + fminf(X, 1.5f) + fmaxf(Y, -0.5f) + min(X, 2);
  return a + b + c + d + e;
}
parameter M, N;
vector#2 float img[M,N];
vector#2 float other[M,N];
return m(img:mirror, other:clamped);
)", R"(stencil m(vector#2 int8 X, vector#2 int8 Y) {
  a = abs(X - Y) + absd(X, Y@[0,1]) + min(X, Y@[1,0]) - max(X, 100);
  b = sqrt(X) + floor(X / 3) + (X / 16) ^ 2 - cast<int>(exp(Y / 64.0)) + absd(Y, 200);
  return cast<int8>(a + b);
}
parameter M, N;
vector#2 int8 img[M,N];
vector#2 int8 other[M,N];
return m(img:mirror, other:clamped);
)"});
  v.push_back({"math_double", R"(stencil m(vector#2 double X) {
  a = sqrt(fabs(X)) + exp(X / 4) - log(fabs(X@[1,0]) + 1) + X ^ 3 + pow(fabs(X), 1.5);
  b = min(X, X@[0,1]) - max(X, 0.25) + abs(X@[-1,0]) + absd(X, 1) + floor(X) + ceil(X) + round(X);
  return a * b + sin(X) + cos(X) + atan2(X, X@[0,-1]) + cast<float>(X) * 3.0f;
}
parameter M, N;
vector#2 double img[M,N];
return m(img:wrap);
)", R"(stencil m(vector#2 int8 X) {
  return abs(X - 128) + absd(X, X@[1,0]) + min(X, X@[0,1]) + max(X, 7) + sqrt(X);
}
parameter M, N;
vector#2 int8 img[M,N];
return m(img:wrap);
)"});
  v.push_back({"casts", R"(stencil c(vector#2 float X) {
  a = cast<int>(X * 7.5) % 11;
  b = cast<float>(cast<int16>(X * 1000)) / 3;
  d = cast<double>(X) / 7 + cast<int8>(fabs(X) * 20);
  e = cast<float>(cast<double>(X) * 0.1) + cast<int>(X) / 2;
  return a + b + d + e;
}
parameter M, N;
vector#2 float img[M,N];
return c(img:extend);
)", R"(stencil c(vector#2 int8 X) {
  a = cast<int16>(X * 100) + cast<int8>(X + 200);
  b = cast<float>(X) / 7 + cast<double>(X) / 3.0;
  d = cast<int8>(X / 2.0 + 3) + cast<int>(b) % 5;
  return cast<int8>(a - d) + cast<int>(b * 4) + cast<int8>(-X);
}
parameter M, N;
vector#2 int8 img[M,N];
return c(img:extend);
)"});
  v.push_back({"intdiv", R"(stencil d(vector#2 float X, vector#2 float Y) {
  x = cast<int>(X * 250);
  y = cast<int>(Y * 250);
  a = x / (y % 7);
  b = x % (cast<int>(Y@[0,1] * 3) / 4 - 1);
  return a * 3 + b - cast<int>(X@[1,0] * 100) / -4 + x % -3;
}
parameter M, N;
vector#2 float img[M,N];
vector#2 float other[M,N];
return d(img:mirror, other);
)", R"(stencil d(vector#2 int8 X, vector#2 int8 Y) {
  a = X / (Y % 7) + (X - 128) / (Y - 128);
  b = (X - 200) % (Y@[0,1] / 64 - 1);
  return a * 3 + b - X@[1,0] / -4 + (X - 100) % -3 + -X % 7;
}
parameter M, N;
vector#2 int8 img[M,N];
vector#2 int8 other[M,N];
return d(img:mirror, other);
)"});
  // Float division by constants: powers of two and odd integers take CUDA's
  // shortcuts (a product; formac_div_odd_f), even ones __fdiv_rn; the scaled
  // ones put the quotients among the subnormals and the infinities.
  v.push_back({"constdiv", R"(stencil a(vector#2 float X) { return X / 3; }
stencil b(vector#2 float X) { return X@[0,1] / -7.0f + X / -0.25f; }
stencil c(vector#2 float X) { return X / 159.0f + X / 2097151; }
stencil d(vector#2 float X) { return X / 6 + X / 0.125f; }
stencil e(vector#2 float X) { return (X * 1e-40f) / 3 + (X * 1e-39f) / -1025; }
stencil g(vector#2 float X) { return (X * 3e38f) / 3; }
parameter M, N;
vector#2 float img[M,N];
return a(img), b(img:mirror), c(img), d(img), e(img), g(img);
)", R"(stencil a(vector#2 int8 X) { return cast<int8>(cast<float>(X) / 3 + cast<float>(X@[0,1]) / -7); }
parameter M, N;
vector#2 int8 img[M,N];
return a(img:wrap);
)"});
  // int +, -, * and negation wrap (the evaluator's rule); compilers that take
  // signed overflow as undefined fold `x + 2147483647 > x` to 1.
  v.push_back({"intdiv_wrap", R"(stencil w(vector#2 float X) {
  x = cast<int>(X * 1e9);
  t = -x;
  return cast<float>(t * 46341 * 46341 + x * 3 + absd(x, t) + (x + 2147483647 > x) + (x - 2147483647 < x)
                     + (t != t) + X@[0,1] * 0.5);
}
parameter M, N;
vector#2 float img[M,N];
return w(img:wrap);
)", R"(stencil w(vector#2 int8 X) {
  x = cast<int>(X) * 16843009;
  t = -x;
  return cast<int8>((t * 46341 * 46341 + x * 3 + absd(x, t)) / 65536 + (x + 2147483647 > x) + (x * 127 != x * 127)
                    + X@[1,0]);
}
parameter M, N;
vector#2 int8 img[M,N];
return w(img:clamped);
)"});
  for (const char* tag : {"none", "mirror", "wrap", "clamped", "constant"}) {
    Mode m = mode(tag);
    v.push_back({std::string("downsample_") + tag, std::string(R"(stencil dn(vector#2 %T% A) {
  return cast<%T%>((A@[(-1,2),(5,3)] + A@[(0,2),(0,3)] * 2 + A@[(1,2),(-4,3)] + A@[(3,2),(8,3)]) / 5);
}
)") + header + "return dn(" + withMode("img", m) + ");\n", ""});
  }
  v.push_back({"downsample_mixed", std::string(R"(stencil dr(vector#2 %T% A) {
  return cast<%T%>(A@[(-2,2),1] + A@[(2,2),-1] - A@[(0,2),0]);
}
stencil dc(vector#2 %T% B) { return cast<%T%>(B@[0,(-1,2)] + B@[0,(1,2)]); }
)") + header + "return dc(dr(img:mirror));\n", ""});
  const char* samples[][2] = {{"sample_m1_2_5_3", "img@[(-1,2),(5,3)]"},
                              {"sample_0_2_0_2", "img@[(0,2),(0,2)]"},
                              {"sample_3_3_m4_2", "img@[(3,3),(-4,2)]"},
                              {"sample_shift", "img@[1,-2]"}};
  for (auto& s : samples)
    v.push_back({s[0], std::string(header) + "picked = " + s[1] + ";\nreturn picked;\n", ""});
  v.push_back({"scatter", std::string(header) + "dest@[(-7,3),(5,2)] = img;\nreturn dest;\n", ""});
  v.push_back({"scatter_call", std::string("stencil f(vector#2 %T% X) { return cast<%T%>(X@[1,0] + X); }\n") +
                                   header + "dest@[(1,2),(0,1)] = f(img:mirror);\nreturn dest;\n", ""});
  v.push_back({"scatter_shift", std::string(header) + "dest@[2,-1] = img;\nreturn dest;\n", ""});
  v.push_back({"compose_rows", std::string(R"(stencil e(vector#2 %T% S) { return cast<%T%>(S@[-1,0] / 4 + S * 3 / 4); }
stencil o(vector#2 %T% S) { return cast<%T%>(S@[1,0] / 4 + S * 3 / 4); }
)") + header + "return ( @[(0,2),(0,1)] = e(img);\n         @[(1,2),(0,1)] = o(img); );\n", ""});
  v.push_back({"compose_up2d", R"(stencil r0(vector#2 %T% A) { return cast<%T%>(A@[-1,0] / 4 + A * 3 / 4); }
stencil r1(vector#2 %T% A) { return cast<%T%>(A@[1,0] / 4 + A * 3 / 4); }
vector uprows(vector#2 %T% A) {
  return ( @[(0,2),(0,1)] = r0(A:mirror); @[(1,2),(0,1)] = r1(A:mirror); );
}
stencil c0(vector#2 %T% B) { return cast<%T%>(B@[0,-1] / 4 + B * 3 / 4); }
stencil c1(vector#2 %T% B) { return cast<%T%>(B@[0,1] / 4 + B * 3 / 4); }
vector upcols(vector#2 %T% B) {
  return ( @[(0,1),(0,2)] = c0(B:wrap); @[(0,1),(1,2)] = c1(B); );
}
parameter M, N;
vector#2 %T% img[M,N];
return upcols(uprows(img));
)", ""});
  v.push_back({"compose_placed", std::string("stencil f(vector#2 %T% X) { return cast<%T%>(X@[1,0] - X); }\n") +
                                     header + "r = ( [0..M-1,0..N-1] = 3; [1.., 1..] = f(img); );\nreturn r;\n",
               ""});
  v.push_back({"compose_three", std::string("stencil sh(vector#2 %T% X) { return X@[-1,1]; }\n") + header +
                                    "w = sh(img:wrap);\nr = ( @[(0,3),(0,1)] = img; @[(1,3),(0,1)] = img@[1,0]; @[(2,3),(0,1)] = w; );\nreturn r;\n",
               ""});
  v.push_back({"crop_arg", std::string("stencil id(vector#2 %T% V) { return V; }\n") + header +
                               "res = id(img[3..M-1, 4..N-2]);\nreturn res;\n", ""});
  v.push_back({"crop_mode", std::string("stencil f(vector#2 %T% V) { return cast<%T%>(V@[-1,1] + V@[2,0]); }\n") +
                                header + "res = f(img[1..M-2, ..]:mirror);\nreturn res;\n", ""});
  v.push_back({"crop_beyond", std::string("stencil f(vector#2 %T% V) { return cast<%T%>(V + V@[0,1]); }\n") +
                                  header + "res = f(img[2..5, 1..]);\nreturn res;\n", ""});
  v.push_back({"crop_return", std::string("stencil f(vector#2 %T% V) { return cast<%T%>(V@[1,1] * 2); }\n") +
                                  header + "whole = f(img:wrap);\nreturn whole[1..M-2, 2..N-3];\n", ""});
  v.push_back({"place_call", std::string("stencil f(vector#2 %T% V) { return cast<%T%>(V@[0,-1] + V); }\n") +
                                 header + "out[2..,3..] = f(img:clamped);\nreturn out;\n", ""});
  v.push_back({"place_3d", std::string(header) + "placed[1..,3..,5..] = img;\nreturn placed;\n", ""});
  v.push_back({"place_open", std::string(header) + "out[..,4..] = img;\nreturn out;\n", ""});
  v.push_back({"vector_functions", R"(stencil blur(vector#2 %T% X) { return cast<%T%>((X@[-1,0] + X + X@[1,0]) / 3); }
stencil diff(vector#2 %T% A, vector#2 %T% B) { return cast<%T%>(A - B + 1); }
vector smooth(vector#2 %T% X) {
  blur = blur(X:mirror);
  return blur(blur:mirror);
}
vector dog(vector#2 %T% X) { return diff(smooth(X), X); }
parameter M, N;
vector#2 %T% img[M,N];
vector#2 %T% other[M,N];
a = dog(img);
b = dog(other);
return diff(a, b:wrap);
)", ""});
  v.push_back({"vector_function_nested_modes", R"(stencil sh(vector#2 %T% X) { return X@[-2,3]; }
vector twice(vector#2 %T% X) { return sh(sh(X:wrap):mirror); }
vector four(vector#2 %T% X) { return twice(twice(X)); }
parameter M, N;
vector#2 %T% img[M,N];
return four(img);
)", ""});
  v.push_back({"for_loop_mirror", R"(stencil step(vector#2 %T% X) {
  return cast<%T%>((X@[-1,0] + X@[1,0] + X + X@[0,-1] + X@[0,1]) / 5);
}
parameter M, N;
vector#2 %T% img[M,N];
g<0> = img;
for t = 1..4
  g<t> = step(g<t-1>:mirror);
endfor
return g<4>;
)", ""});
  v.push_back({"for_loop_zero_ring", R"(stencil step(vector#2 %T% X) { return cast<%T%>((X@[-1,0] + X@[1,1]) / 2 + X); }
stencil add(vector#2 %T% A, vector#2 %T% B) { return cast<%T%>(A - B); }
parameter M, N;
vector#2 %T% img[M,N];
h<1> = img;
for i = 2..5
  h<i> = step(h<i-1>);
endfor
for j = 1..2
  d<j> = add(h<j+3>, h<j>:wrap);
endfor
return add(d<1>, d<2>);
)", ""});
  // A member read only at its own point by the next (mix reads dx and dy at
  // the point: on the GPU it joins their loop and reads them from registers),
  // whose consumer reads it on one side only (the loop's region is 65
  // columns wide: the 2-column sweep guards its last column); in a heavy
  // group (the sweep) and a light one (one pass, loads first).
  const std::string joinTail = R"(parameter M, N;
vector#2 %T% img[M,N];
a = dx(img:mirror);
b = dy(img:clamped);
c = mix(a, b);
return pick(a, b, c);
)";
  v.push_back({"pointwise_join_heavy",
               R"(stencil dx(vector#2 %T% X) {
  return cast<%T%>((X@[-1,1] - X@[-1,0]) + 2 * (X@[0,1] - X) + (X@[1,1] - X@[1,0]) + (X@[2,1] - X@[2,0]) * 3 - X@[1,1] * X@[1,0]);
}
stencil dy(vector#2 %T% X) {
  return cast<%T%>((X@[1,0] - X@[-1,0]) + (X@[1,1] - X@[-1,1]) + (X@[2,1] - X@[2,0]) * 3 - X@[1,1] * X@[1,0]);
}
stencil mix(vector#2 %T% A, vector#2 %T% B) { return cast<%T%>(A * 3 - B + (A > B ? A : B)); }
stencil pick(vector#2 %T% A, vector#2 %T% B, vector#2 %T% C) {
  return cast<%T%>(A > B ? C@[0,-1] + C@[1,0] : C - C@[-1,0] + C@[1,-1]);
}
)" + joinTail,
               ""});
  v.push_back({"pointwise_join_light",
               R"(stencil dx(vector#2 %T% X) { return cast<%T%>(X@[0,1] - X); }
stencil dy(vector#2 %T% X) { return cast<%T%>(X@[1,0] - X); }
stencil mix(vector#2 %T% A, vector#2 %T% B) { return cast<%T%>(A * 3 - B + (A > B ? A : B)); }
stencil pick(vector#2 %T% A, vector#2 %T% B, vector#2 %T% C) { return cast<%T%>(A > B ? C@[0,-1] : C@[1,0]); }
)" + joinTail,
               ""});
  // Names the generated code uses for itself (the CUDA kernels' index type I,
  // run_async's stream, locals and members): each must be renamed.
  v.push_back({"names_of_generated_code", R"(stencil bx(vector#2 %T% X) { return cast<%T%>((X@[0,-1] + 2 * X + X@[0,1]) / 4); }
stencil by(vector#2 %T% Y) { return cast<%T%>((Y@[-1,0] + 2 * Y + Y@[1,0]) / 4); }
parameter I, stream;
vector#2 %T% ws[I,stream];
grid = bx(ws:mirror);
block = by(grid:clamped);
return block;
)", ""});
  return v;
}

}  // namespace

void constructs(std::vector<ProgramCase>& out) {
  for (const Template& tp : constructTemplates())
    for (const char* t : {"float", "int8"}) out.push_back(make(tp.name + "_" + t, forType(tp, t)));
  // Structs: construction, field access, projections, struct selects.
  out.push_back(make("struct_build", std::string(kStruct) + R"(stencil mk(vector#2 float X, vector#2 int8 Y) {
  return struct s3(X@[0,1] * 2, cast<int16>(X * 1000) + Y, Y@[1,0] + 200);
}
stencil use(vector#2 s3 S) {
  v = (S.a > 0 ? S : S@[1,1]);
  return struct s3(v.a + S@[-1,0].a, v.b - S.b, v.c);
}
parameter M, N;
vector#2 float x[M,N];
vector#2 int8 y[M,N];
s = mk(x:mirror, y:wrap);
return use(s:constant(2));
)"));
  out.push_back(make("struct_statement", R"(struct pix { int8 r; int8 g; int8 b; }
stencil red(vector#2 pix P) { return cast<int8>(P.r + P@[1,0].g); }
parameter M, N;
vector#2 pix photo[M,N];
whole = struct pix(red(photo:clamped), photo.g, photo.b);
return whole[1..M-2, 2..N-3];
)"));
  out.push_back(make("struct_projection", std::string(kStruct) + R"(stencil f(vector#2 float A, vector#2 int16 B) { return A * B; }
parameter M, N;
vector#2 s3 img[M,N];
a = img.a;
b = img.b;
return f(a:mirror, b:wrap);
)"));
  out.push_back(make("struct_double_copy", R"(struct rgbd { double r; double g; double b; }
stencil sh(vector#2 rgbd P) { return P@[-2,3]; }
stencil lum(vector#2 rgbd P) { return 0.25 * P.r + 0.5 * P.g + 0.25 * P@[0,1].b; }
parameter M, N;
vector#2 rgbd img[M,N];
s = sh(img:constant(2));
t = sh(s:mirror);
return lum(t);
)"));
  // Stencils of a scalar type applied field by field to struct images whose
  // fields all have that type (docs/language-decisions.md): a fused chain, a
  // local, a scalar argument, a plain image beside the struct one, and an
  // int8 struct whose int results convert back to int8 per field.
  out.push_back(make("struct_by_field", R"(struct rgb { float r; float g; float b; }
struct rgb8 { int8 r; int8 g; int8 b; }
stencil blur(vector#2 float X) { t = X@[0,-1] + X + X@[0,1]; return t / 3.0f; }
stencil sharpen(vector#2 float X, vector#2 float W, float k) { return X + k * (X - X@[1,0]) * W; }
stencil mean8(vector#2 int8 X) { return (X@[-1,0] + X + X@[1,1]) / 2; }
parameter M, N;
vector#2 rgb img[M,N];
vector#2 float weight[M,N];
vector#2 rgb8 small[M,N];
b = blur(img:mirror);
s = sharpen(b:clamped, weight, 0.5f);
return s, mean8(small:wrap);
)"));
  out.push_back(make("struct_padding", R"(struct mix { int8 tag; double v; int16 w; }
stencil f(vector#2 mix P) { return struct mix(P@[0,1].tag, P.v * P@[1,0].w, P.w / 3); }
parameter M, N;
vector#2 mix img[M,N];
return f(img:wrap);
)"));
  // uint16 and int64 (LANGUAGE.md §7): promotions, wrapping int64 arithmetic,
  // division by zero, conversions from floating values out of range, mixed
  // ?:, min/max/abs/absd, boundary constants and literal arguments at the
  // types' edges, a scalar input, struct fields.
  out.push_back(make("wide_types", R"(stencil f(vector#2 uint16 U, vector#2 int64 W, vector#2 float X, uint16 k, int64 big) {
  a = U@[-1,1] + U@[1,-1] * k;
  b = W@[0,1] * W - W@[-1,0] * 3 + big;
  c = W / (U - U@[0,1]) + W % (k + U) + W@[1,1] / -1;
  d = cast<int64>(X * 1e12f) + cast<int64>(X * 1e30f) + cast<int64>(1e30) + cast<int64>(X * 3.5);
  e = cast<uint16>(X * 30000.5f) + cast<uint16>(-1.0) + cast<uint16>(a) + cast<uint16>(-X * 9.25);
  g = (U > cast<int16>(X) ? U : cast<int16>(X * 100));
  h = -W + abs(W - big) + absd(W, b) + min(W, b) + max(a, e) + max(U, U@[0,-1]);
  return b + c + d + g + h + cast<int64>(a) * 65536 * 65536 + (W == W) + (U <= 65535);
}
stencil half(vector#2 int64 W, vector#2 uint16 U) { return cast<float>(W) * 0.5f + cast<double>(U) + cast<int>(W); }
parameter M, N;
vector#2 uint16 u[M,N];
vector#2 int64 w[M,N];
vector#2 float x[M,N];
int64 s;
return f(u:constant(65535), w:constant(3000000000.0), x:mirror, 40000, s), half(w:constant(-9e18), u:wrap);
)"));
  // Comparisons a narrower value cannot change: a constant outside the values
  // of the type the operand was widened from (`(long long)i < LLONG_MIN`, an
  // int8 read against 300). Folded to their result (eval/Fold.cpp): printed
  // as they are, gcc's -Wtype-limits rejects them under -Werror (progfuzz
  // s35m378). `B < 255` and `S < 300` are not decided.
  out.push_back(make("decided_comparisons", R"(stencil f(vector#2 int X, vector#2 int8 B, vector#2 int16 S, vector#2 uint16 U) {
  a = (cast<int64>(X - X@[0,1]) < cast<int64>(1e30)) + 2 * (cast<int64>(X) > cast<int64>(-1e30));
  b = 4 * (B > 300) + 8 * (B >= 0) + 16 * (300 > B) + 32 * (S == 40000) + 64 * (U != -1);
  c = 128 * (cast<int64>(S) < 40000) + 256 * (B <= 255) + 512 * (B < 255) + 1024 * (S < 300);
  return a + b + c + 2048 * (cast<int64>(U) >= 0) + 4096 * (-40000 < cast<int>(S@[1,0]));
}
parameter M, N;
vector#2 int x[M,N];
vector#2 int8 b[M,N];
vector#2 int16 s[M,N];
vector#2 uint16 u[M,N];
return f(x:mirror, b, s:clamped, u);
)"));
  // abs of the most negative int and int64 is itself (it wraps): `abs(x) < 0`
  // holds there and a computed read at it is outside the image (0). ptxas once
  // dropped both checks after its IABS (progfuzz gl5). The _special run gives
  // INT_MIN and LLONG_MIN among the inputs.
  out.push_back(make("unary_abs_index", R"(stencil f(vector#2 int X, vector#2 int64 W, vector#1 int T, vector#1 int64 U) {
  a = abs(X);
  b = abs(W@[0,1]);
  return (a < 0) + 2 * (b < 0) + 4 * (a >= 0) + T[a] + T[abs(X@[1,0])] + cast<int>(U[b] % 1000) + cast<int>(U[abs(W)] % 7);
}
parameter M, N;
vector#2 int x[M,N];
vector#2 int64 w[M,N];
vector#1 int t[M];
vector#1 int64 u[N];
return f(x:wrap, w:wrap, t, u);
)"));
  // Comparisons with a constant outside a narrowing cast's range (always true
  // or false: gcc's -Wtype-limits saw through `(int)(short)x`, and through
  // abs of an int8, a uint8, compared with a folded scalar; progfuzz seeds
  // s26520208, s26540100).
  out.push_back(make("compare_narrow_cast", R"(stencil f(vector#2 double X, vector#2 float Y) {
  return (65536 > cast<int16>(X)) + 2 * (cast<int8>(Y) <= -129) + 4 * (cast<float>(cast<uint16>(X)) >= -1)
       + 8 * (cast<int>(cast<int8>(X)) != 300);
}
stencil g(vector#2 int8 Z, int n) { return n <= abs(Z); }
parameter M, N;
vector#2 double x[M,N];
vector#2 float y[M,N];
vector#2 int8 z[M,N];
return f(x, y), g(z, -2);
)"));
  // A float rounded from a double and widened again, in a struct's fields
  // and through a local: gcc 12's basic-block vectorizer folded
  // (double)(float)x to x (progfuzz s2828000093); formac_widen_rounded.
  // C prints a ?: of truth values as bitwise and/or: every shape of arms,
  // the condition a read through a let (c ? 0 : 0 once dropped the let,
  // progfuzz z29l51), nested, arms that read through a boundary mode (a
  // call: clang's -Wbitwise-instead-of-logical; ctest e2e_c_clang_selects),
  // and the thresholds computed from scalars before the loops
  // (canny_opencv's suppression).
  out.push_back(make("truth_choices", R"(stencil same(vector#2 int16 X, int c) {
  g = X@[1,-1];
  return cast<int16>(g ? c : c);
}
stencil pick(vector#2 int16 X, int lo, float s) {
  e = X@[0,1];
  t = cast<int>(floor(s * 2.5f));
  a = e ? 0 : 0;
  b = X > lo ? 1 : (X < -lo ? 0 : X@[1,0] > t);
  c = X@[-1,0] >= e ? X@[0,-1] < t : 0;
  d = e != 0 ? 1 : 1;
  h = X > 0 ? X@[0,2] < lo : 1;
  f = (X > t ? e > 0 && X@[1,1] != 0 : e < 0 || X == 3) ? X < 0 : X > lo;
  return cast<int16>(a + 2 * b + 4 * c + 8 * d + 16 * f + 32 * h);
}
parameter M, N;
vector#2 int16 img[M,N];
int lo;
float s;
return pick(img:mirror, lo, s), same(img:wrap, 0);
)"));
  out.push_back(make("round_trip_float", R"(struct u3 { double x; double y; double z; }
stencil f(vector#2 double Y) { return cast<float>(Y@[0,1]); }
stencil g(vector#2 double X, double s) {
  a = cast<float>(X * s);
  b = cast<float>(X@[1,0] - s);
  return cast<double>(a) * 2.0 + cast<double>(b);
}
parameter M, N;
vector#2 u3 col[M,N];
vector#2 double d[M,N];
double s;
return f(col:clamped), g(d:mirror, s);
)"));
  out.push_back(make("wide_struct", R"(struct deep { uint16 u; int64 w; int8 c; }
stencil mk(vector#2 uint16 U, vector#2 int64 W) { return struct deep(U@[0,1] * 2, W * U, U / 257); }
stencil use(vector#2 deep D, int64 k) { return cast<uint16>(D.u + D@[1,0].w % 1000 + D.c + k); }
parameter M, N;
vector#2 uint16 u[M,N];
vector#2 int64 w[M,N];
d = mk(u:wrap, w:clamped);
return use(d:constant(7), -2000000000), d;
)"));
}

}  // namespace formac::e2e
