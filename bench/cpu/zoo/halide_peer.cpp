// bench/cpu/zoo/halide_peer.cpp — Halide 14's hand schedules of the zoo programs that
// have one (peer.h says the command line): blur, harris and canny are bench/cpu's
// generators (../halide/), maxfilter is halide/maxfilter_generator.cpp. AOT-compiled for
// BENCH_HALIDE_TARGET (CMakeLists.txt). Halide's blur computes the interior only (the
// program's border is 0); its canny writes 8-bit classes where the zoo's copy of the GPU
// program writes float ones.
#include <memory>

#include "HalideBuffer.h"
#include "HalideRuntime.h"
#include "peer.h"
#include "zoo_blur_halide.h"
#include "zoo_canny_halide.h"
#include "zoo_harris_halide.h"
#include "zoo_maxfilter_halide.h"

namespace {

using Image = Halide::Runtime::Buffer<float>;

// An M x N float input (x = column) filled as the drivers fill it, and an output of T.
template <typename T>
struct Io {
    Image in;
    Halide::Runtime::Buffer<T> out;
    Io(long long M, long long N) : in((int)N, (int)M), out((int)N, (int)M) {
        peer_fill(in.data(), in.number_of_elements());
    }
    size_t bytes() const { return in.size_in_bytes() + in.number_of_elements() * sizeof(float); }
};

PeerRun blur(const std::vector<long long>& p) {
    auto io = std::make_shared<Io<float>>(p[0], p[1]);
    // Listing 1 has no boundary mode: Halide computes the interior [1, N-2] x [1, M-2].
    auto crop = std::make_shared<Image>(io->out.cropped(0, 1, p[1] - 2).cropped(1, 1, p[0] - 2));
    return {[io, crop] { blur_halide(io->in, *crop); }, io->bytes()};
}

PeerRun harris(const std::vector<long long>& p) {
    auto io = std::make_shared<Io<float>>(p[0], p[1]);
    return {[io] { harris_halide(io->in, 0.04f, io->out); }, io->bytes()};
}

PeerRun canny(const std::vector<long long>& p) {
    auto io = std::make_shared<Io<uint8_t>>(p[0], p[1]);
    return {[io] { canny_halide(io->in, 0.25f, 0.40f, io->out); }, io->bytes()};
}

PeerRun maxfilter(const std::vector<long long>& p) {
    auto io = std::make_shared<Io<float>>(p[0], p[1]);
    return {[io] { maxfilter_halide(io->in, io->out); }, io->bytes()};
}

void set_threads(int t) { halide_set_num_threads(t); }

}  // namespace

int main(int argc, char** argv) {
    return peer_main(argc, argv,
                     {{"blur", blur}, {"harris", harris}, {"canny", canny}, {"maxfilter", maxfilter}},
                     set_threads);
}
