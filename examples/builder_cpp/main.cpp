// Harris corners built in C++ with formac's embedded builder — no program
// text — compiled in-process and run on a picture:
//
//   builder_cpp IN.png OUT.npy [k]
//
// writes the corner response R (float) and checks that it is bit for bit
// what examples/harris/harris.idsl computes (the same pipeline as text).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "builder/Builder.h"
#include "run/ImageIO.h"

using namespace formac::builder;
using Type = formac::builder::Type;

// The pipeline of harris.idsl, step by step.
static void harris(Builder& b) {
  Value img = b.input("img", Type::Float, 2);
  Value k = b.scalar("k", Type::Float);
  Stencil sobelX = b.stencil("sobel_x", {"I"}, [](Value I) {
    return (I.at(-1, 1) - I.at(-1, -1)) + 2.0f * (I.at(0, 1) - I.at(0, -1)) + (I.at(1, 1) - I.at(1, -1));
  });
  Stencil sobelY = b.stencil("sobel_y", {"I"}, [](Value I) {
    return (I.at(1, -1) - I.at(-1, -1)) + 2.0f * (I.at(1, 0) - I.at(-1, 0)) + (I.at(1, 1) - I.at(-1, 1));
  });
  Stencil gauss = b.stencil("gaussian3x3", [](Value X) {
    return (X.at(-1, -1) + 2.0f * X.at(-1, 0) + X.at(-1, 1) + 2.0f * X.at(0, -1) + 4.0f * X + 2.0f * X.at(0, 1) +
            X.at(1, -1) + 2.0f * X.at(1, 0) + X.at(1, 1)) / 16.0f;
  });
  Stencil product = b.stencil("product", {"A", "B"}, [](Value A, Value B) { return A * B; });
  Stencil response = b.stencil("response", {"Sxx", "Syy", "Sxy", "k"}, [](Value Sxx, Value Syy, Value Sxy, Value kk) {
    Value det = (Sxx * Syy - Sxy * Sxy).named("det");
    Value trace = (Sxx + Syy).named("trace");
    return det - kk * trace * trace;
  });
  Value ix = sobelX(img.mirror()).named("ix");
  Value iy = sobelY(img.mirror()).named("iy");
  Value sxx = gauss(product(ix, ix).named("ixx").mirror()).named("sxx");
  Value syy = gauss(product(iy, iy).named("iyy").mirror()).named("syy");
  Value sxy = gauss(product(ix, iy).named("ixy").mirror()).named("sxy");
  b.outputs({response(sxx, syy, sxy, k)});
}

static std::vector<unsigned char> run(formac::CompiledPipeline& p, formac::run::HostImage& in, double k) {
  std::vector<unsigned char> out(in.bytes.size());
  p.run({{in.bytes.data(), in.extent}}, {{"k", k}}, {{out.data(), in.extent}});
  return out;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: builder_cpp IN.png OUT.npy [k]\n");
    return 1;
  }
  try {
    double k = argc > 3 ? std::atof(argv[3]) : 0.04;
    Builder b;
    harris(b);
    formac::CompiledPipeline built = compile(b);
    formac::run::HostImage in =
        formac::run::readInputImage(argv[1], "img", formac::Type::of(formac::ScalarKind::Float), 2, true).image;
    formac::run::HostImage out{in.type, in.extent, run(built, in, k)};
    formac::run::writeOutputImage(argv[2], "R", out, formac::run::SampleFormat::F32);

    formac::CompileOptions text;
    text.sourcePath = std::string(FORMAC_SOURCE_DIR) + "/examples/harris/harris.idsl";
    std::string source;
    if (FILE* f = std::fopen(text.sourcePath.c_str(), "rb")) {
      for (int c; (c = std::fgetc(f)) != EOF;) source += static_cast<char>(c);
      std::fclose(f);
    }
    formac::CompiledPipeline fromText = formac::compile(source, text);
    bool same = run(fromText, in, k) == out.bytes;
    std::printf("builder_cpp: harris %lldx%lld (%s), k = %g: %s harris.idsl's output\n", in.extent[0], in.extent[1],
                formac::backendName(built.backend()), k, same ? "bit for bit" : "DIFFERENT from");
    return same ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s", e.what());
    return 1;
  }
}
