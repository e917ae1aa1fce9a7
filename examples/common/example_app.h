/* example_app.h — what every example app does around its pipeline call:
 * load a picture as a gray image of the pipeline's element type, save the
 * result as 8-bit, parse scalar arguments, time the call.
 *
 * Plain C99 over the formac runtime (formac_image.h, formac_timer.h). Every
 * function that can fail prints one line "APP: message" to stderr and returns
 * nonzero, so main() can just `return 1`.
 */
#ifndef EXAMPLE_APP_H
#define EXAMPLE_APP_H

#include "formac_image.h"

/* Reads `path` (PNG, PGM, PPM or PFM) as one gray channel of type `type`
 * whose full-scale value is `white`: 8-bit 255, 16-bit 65535 and PFM 1.0 all
 * become `white` (1.0 for float pipelines, 255 for int8 ones). Colour
 * pictures become gray (Rec. 601 luma). On success *out is a new image. */
int example_load_gray(const char* app, const char* path, formac_pixel_type type,
                      double white, formac_image* out);

/* Writes `img` (one channel, any type) scaled so that `white` becomes 255,
 * rounded and saturated to 0..255, in the format `path`'s extension names
 * (.png, .pgm; .pfm keeps floats: `white` becomes 1.0 and nothing is
 * clipped). */
int example_save_gray(const char* app, const char* path, const formac_image* img,
                      double white);

/* Parses a whole argument as a number; `what` names it in the error. */
int example_parse_float(const char* app, const char* what, const char* text, float* out);
/* Same for an integer in [lo, hi]. */
int example_parse_int(const char* app, const char* what, const char* text, int lo, int hi,
                      int* out);

/* How long one call of the pipeline took. */
typedef struct {
    double median_ms;
    int runs;
} example_timing;

/* Calls run(ctx) once (the result the app saves; it also allocates the
 * pipeline's cached workspace), then times further calls: 20 of them, or
 * fewer if they add up to more than half a second. */
example_timing example_run_timed(void (*run)(void* ctx), void* ctx);

/* Prints "APP: WxH IN -> OUT, X.XXX ms per run (median of K runs, T threads)". */
void example_report(const char* app, const formac_image* in, const char* in_path,
                    const char* out_path, example_timing t);

#endif /* EXAMPLE_APP_H */
