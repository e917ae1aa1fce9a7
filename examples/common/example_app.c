/* example_app.c — see example_app.h. */
#include "example_app.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formac_timer.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* The value a file stores for white: 255, 65535, or 1.0 for float files. */
static double full_scale_of(formac_pixel_type t) {
    switch (t) {
    case FORMAC_U8: return 255.0;
    case FORMAC_U16: return 65535.0;
    default: return 1.0;
    }
}

int example_load_gray(const char* app, const char* path, formac_pixel_type type,
                      double white, formac_image* out) {
    char err[512];
    formac_image file, gray;
    double scale;
    if (formac_image_read(path, &file, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", app, err);
        return 1;
    }
    scale = white / full_scale_of(file.type);
    if (file.channels == 1) {
        gray = file;
    } else {
        /* Colour: luma = 0.299 R + 0.587 G + 0.114 B, in double. */
        formac_image rgb;
        size_t i, n = (size_t)file.width * (size_t)file.height;
        const int c = file.channels;
        if (formac_image_convert(&file, &rgb, FORMAC_F64, 1.0) ||
            formac_image_alloc(&gray, file.width, file.height, 1, FORMAC_F64)) {
            fprintf(stderr, "%s: out of memory reading '%s'\n", app, path);
            formac_image_free(&file);
            return 1;
        }
        for (i = 0; i < n; ++i) {
            const double* p = (const double*)rgb.data + i * (size_t)c;
            ((double*)gray.data)[i] = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
        }
        formac_image_free(&rgb);
        formac_image_free(&file);
    }
    if (formac_image_convert(&gray, out, type, scale)) {
        fprintf(stderr, "%s: out of memory reading '%s'\n", app, path);
        formac_image_free(&gray);
        return 1;
    }
    formac_image_free(&gray);
    return 0;
}

static int has_extension(const char* path, const char* ext) {
    size_t n = strlen(path), e = strlen(ext), i;
    if (n < e) return 0;
    for (i = 0; i < e; ++i) {
        char a = path[n - e + i], b = ext[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

int example_save_gray(const char* app, const char* path, const formac_image* img,
                      double white) {
    char err[512];
    formac_image file;
    const int keep_float = has_extension(path, ".pfm");
    if (formac_image_convert(img, &file, keep_float ? FORMAC_F32 : FORMAC_U8,
                             (keep_float ? 1.0 : 255.0) / white)) {
        fprintf(stderr, "%s: out of memory writing '%s'\n", app, path);
        return 1;
    }
    if (formac_image_write(path, &file, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", app, err);
        formac_image_free(&file);
        return 1;
    }
    formac_image_free(&file);
    return 0;
}

int example_parse_float(const char* app, const char* what, const char* text, float* out) {
    char* end;
    double v;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE) {
        fprintf(stderr, "%s: %s '%s' is not a number\n", app, what, text);
        return 1;
    }
    *out = (float)v;
    return 0;
}

int example_parse_int(const char* app, const char* what, const char* text, int lo, int hi,
                      int* out) {
    char* end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "%s: %s '%s' is not an integer in [%d, %d]\n", app, what, text, lo,
                hi);
        return 1;
    }
    *out = (int)v;
    return 0;
}

example_timing example_run_timed(void (*run)(void* ctx), void* ctx) {
    enum { MAX_RUNS = 20 };
    double times[MAX_RUNS], start, total = 0.0;
    example_timing t;
    int runs = 0;
    run(ctx);
    while (runs < MAX_RUNS && total < 0.5) {
        start = formac_now_seconds();
        run(ctx);
        times[runs] = formac_now_seconds() - start;
        total += times[runs++];
    }
    t.median_ms = 1e3 * formac_median(times, (size_t)runs);
    t.runs = runs;
    return t;
}

void example_report(const char* app, const formac_image* in, const char* in_path,
                    const char* out_path, example_timing t) {
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    printf("%s: %dx%d %s -> %s, %.3f ms per run (median of %d runs, %d thread%s)\n", app,
           in->width, in->height, in_path, out_path, t.median_ms, t.runs, threads,
           threads == 1 ? "" : "s");
}
