/* formac_image_internal.h — what the runtime's format files share; not
 * installed, not for apps. */
#ifndef FORMAC_IMAGE_INTERNAL_H
#define FORMAC_IMAGE_INTERNAL_H

#include <stdio.h>

#include "formac_image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* printf-style message into err (when err and errlen are set). */
void formac__set_err(char* err, size_t errlen, const char* fmt, ...);
/* width*height*channels*pages with overflow and FORMAC_IMAGE_MAX_SAMPLES
 * checks; 0 if any is < 1 or the product is too large. */
size_t formac__checked_samples(long long w, long long h, long long c,
                               long long pages);

/* PNG (formac_png_write.c): U8/U16, 1 to 4 channels. The _chunked form
 * (for tests) takes the chunk size in bytes of the filtered rows and the
 * thread count (0: one per processor); formac__write_png uses 1 MiB, 0. */
int formac__write_png(FILE* f, const char* path, const formac_image* img,
                      char* err, size_t errlen);
int formac__write_png_chunked(FILE* f, const char* path, const formac_image* img,
                              size_t chunk, int threads, char* err, size_t errlen);

/* JPEG (formac_jpeg.c): 8-bit gray or RGB (YCbCr/CMYK files are converted
 * by libjpeg to RGB; CMYK is rejected). f is positioned at the start. */
int formac__read_jpeg(FILE* f, const char* path, formac_image* out,
                      char* err, size_t errlen);
int formac__write_jpeg(FILE* f, const char* path, const formac_image* img,
                       char* err, size_t errlen);

/* TIFF (formac_tiff.c), opened by path. `all_pages`: every page into
 * img->pages (they must agree in size and layout), else the first. */
int formac__read_tiff(const char* path, formac_image* out, int all_pages,
                      char* err, size_t errlen);
int formac__write_tiff(const char* path, const formac_image* img, char* err,
                       size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* FORMAC_IMAGE_INTERNAL_H */
