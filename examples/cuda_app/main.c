/* cuda_app — runs formac's CUDA output of gradient.idsl from C and checks it.
 *
 * The input is a ramp, 1000 per row and 3 per column, of an awkward size
 * (777 x 1001: partial tiles on both edges); every output point must be 3
 * (1.5 in the first and last columns). Runs the one-call entry point
 * gradient() and the workspace API (gradient_create / _run / _destroy) twice
 * on host pointers. Prints one line and exits 0 when every point matches, 1
 * when one does not or a call fails, 77 when there is no GPU. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "gradient.h"

enum { M = 777, N = 1001 };

/* The number of points of out that differ from the known values (the first
 * few printed). */
static long check(const float* out, const char* what)
{
    long bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float want = j == 0 || j == N - 1 ? 1.5f : 3.0f, got = out[(size_t)i * N + j];
            if (got != want && bad++ < 5)
                fprintf(stderr, "cuda_app: %s: output[%d][%d] = %g, want %g\n", what, i, j, got, want);
        }
    return bad;
}

int main(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("cuda_app: no CUDA device: nothing run\n");
        return 77;
    }
    float* in = malloc(sizeof(float) * M * N);
    float* out = malloc(sizeof(float) * M * N);
    if (!in || !out)
        return 1;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            in[(size_t)i * N + j] = 1000.0f * i + 3.0f * j;

    long bad = 0;
    for (size_t k = 0; k < (size_t)M * N; k++)
        out[k] = -1.0f;
    gradient(in, M, N, out);
    bad += check(out, "gradient()");

    gradient_workspace* ws = gradient_create(M, N);
    if (!ws) {
        fprintf(stderr, "cuda_app: gradient_create failed\n");
        return 1;
    }
    for (int run = 0; run < 2; run++) {
        for (size_t k = 0; k < (size_t)M * N; k++)
            out[k] = -1.0f;
        if (gradient_run(ws, in, out) != 0) {
            fprintf(stderr, "cuda_app: gradient_run failed\n");
            return 1;
        }
        bad += check(out, "gradient_run()");
    }
    gradient_destroy(ws);
    free(in);
    free(out);
    printf("cuda_app: %dx%d, 3 runs: %s\n", N, M, bad ? "MISMATCH" : "every point matches");
    return bad ? 1 : 0;
}
