// Compiles a 3x3 blur from a string once, runs it twice on this program's
// own buffers, and checks a point against the arithmetic done here.
#include <cmath>
#include <cstdio>
#include <vector>

#include "run/Pipeline.h"

static const char* kBlur = R"(
stencil bx(vector#2 float X) { return (X@[-1,0] + X + X@[1,0]) / 3.0f; }
stencil by(vector#2 float X) { return (X@[0,-1] + X + X@[0,1]) / 3.0f; }
parameter M, N;
vector#2 float img[M,N];
return by(bx(img:mirror):mirror);
)";

int main() {
  try {
    formac::CompiledPipeline blur = formac::compile(kBlur);
    const long long M = 5, N = 7;
    std::vector<float> in(M * N), out(M * N);
    for (long long i = 0; i < M * N; ++i) in[i] = static_cast<float>(i % 11) * 0.25f;
    for (int call = 0; call < 2; ++call)
      blur.run({formac::ImageRef{in.data(), {M, N}}}, {}, {formac::ImageRef{out.data(), {M, N}}});
    // Point (2, 3): rows 1..3 averaged per column, then columns 2..4.
    float cols[3];
    for (int c = 0; c < 3; ++c)
      cols[c] = (in[1 * N + 2 + c] + in[2 * N + 2 + c] + in[3 * N + 2 + c]) / 3.0f;
    float want = (cols[0] + cols[1] + cols[2]) / 3.0f;
    std::printf("run_api: %s backend, out(2,3) = %g (want %g)\n", formac::backendName(blur.backend()),
                out[2 * N + 3], want);
    return out[2 * N + 3] == want ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "run_api: %s\n", e.what());
    return 1;
  }
}
