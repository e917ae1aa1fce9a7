// bench/cpu/bench.h — what the harness (bench.cpp) and the pipeline set-ups
// (pipelines.cpp) share.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "HalideBuffer.h"

// One implementation of a pipeline, ready to run on the current input.
struct Variant {
    std::string name;
    std::function<void()> run;  // computes this variant's output from the input
    const void* output;         // M x N, row-major: float, or uint8_t where Bench::u8_output
    bool same_function = true;  // false: another function, timed for scale only
};

// All variants of one pipeline at one size (and one thread count: formac's fused
// workspace takes the thread count at create time).
struct Bench {
    int margin = 0;                           // rows/columns left out of the interior comparison
    bool u8_output = false;                   // canny: 8-bit classes 0/128/255
    std::vector<Variant> variants;            // variants[0] is formac fused, the reference
    std::vector<std::shared_ptr<void>> keep;  // outputs, workspaces, buffers
};

// The input image, M rows of N floats, seen by each library.
struct Input {
    int M, N;
    float* data;
    cv::Mat mat;                        // M x N CV_32F over data
    Halide::Runtime::Buffer<float> hl;  // x = column (N), y = row (M), over data
};

extern const float kHarrisK;
extern const float kCannyLow, kCannyHigh;

// Builds the variants of "blur", "harris" or "canny"; with other_functions also the
// OpenCV calls that compute another function (cv::cornerHarris, cv::Canny), timed for
// scale only. False for another name or when a formac workspace cannot be created.
bool make_bench(const std::string& pipeline, const Input& in, bool other_functions, Bench* out);
