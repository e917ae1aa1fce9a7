/* formac_image.h — image buffers and file I/O for applications that link
 * formac-generated pipelines.
 *
 * Plain C99. Every function that can fail returns 0 on success and nonzero on
 * failure; functions taking (err, errlen) then write a one-line message that
 * names the file, e.g. "cannot open 'x.png': No such file or directory".
 * Nothing here aborts, exits or prints.
 */
#ifndef FORMAC_IMAGE_H
#define FORMAC_IMAGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    FORMAC_U8,  /* uint8_t  */
    FORMAC_U16, /* uint16_t (host byte order in memory) */
    FORMAC_I16, /* int16_t  */
    FORMAC_I32, /* int32_t  */
    FORMAC_F32, /* float    */
    FORMAC_F64, /* double   */
    FORMAC_I64  /* int64_t (formac run's int64 images, .npy <i8) */
} formac_pixel_type;

/* Row-major, channels interleaved: sample (x, y, c) of page p is element
 * ((p * height + y) * width + x) * channels + c of `data`, which is owned by
 * the struct (allocated by formac_image_alloc / _read / _convert, released
 * by _free). `pages` > 1 only for a 3-D volume (a multi-page TIFF read with
 * FORMAC_READ_PAGES); 0 counts as 1. */
typedef struct {
    int width, height, channels;
    formac_pixel_type type;
    void* data;
    int pages;
} formac_image;

/* Largest accepted width * height * channels (number of samples). */
#define FORMAC_IMAGE_MAX_SAMPLES ((size_t)1 << 31)
/* libjpeg quality (0-100) of written JPEG files. */
#define FORMAC_JPEG_QUALITY 95

/* Bytes per sample of `t` (0 for an invalid type). */
size_t formac_pixel_type_size(formac_pixel_type t);
/* "u8", "u16", "i16", "i32", "f32", "f64" ("?" for an invalid type). */
const char* formac_pixel_type_name(formac_pixel_type t);
/* width * height * channels * pages, and that times the sample size. */
size_t formac_image_samples(const formac_image* img);
size_t formac_image_bytes(const formac_image* img);

/* Allocates a zero-filled w x h x channels image of type t into *img
 * (any previous contents of *img are overwritten, not freed). Fails (and
 * leaves *img zeroed) on w, h, channels < 1, an invalid type, more than
 * FORMAC_IMAGE_MAX_SAMPLES samples, or out of memory. */
int formac_image_alloc(formac_image* img, int w, int h, int channels,
                       formac_pixel_type t);
/* The same for a volume of `pages` w x h pages (pages >= 1). */
int formac_image_alloc_pages(formac_image* img, int w, int h, int pages,
                             int channels, formac_pixel_type t);
/* Frees the data and zeroes *img. Safe on a zeroed struct and on NULL. */
void formac_image_free(formac_image* img);

/* Reads an image; the format is chosen by the file's magic bytes.
 *   PNG  8/16-bit gray, gray+alpha, RGB, RGBA, palette (expanded; low bit
 *        depths expanded to 8). Alpha is dropped: result has 1 channel (gray)
 *        or 3 (RGB/palette). 8-bit -> FORMAC_U8, 16-bit -> FORMAC_U16.
 *   JPEG 8-bit gray (1 channel) or colour (3, RGB); CMYK is rejected, and so
 *        is corrupt or truncated data (which libjpeg would pad).
 *   TIFF 8/16-bit unsigned (U8/U16) or 32-bit float (F32) samples, 1 to 4
 *        channels interleaved (gray, gray+alpha, RGB, RGBA; alpha dropped as
 *        for PNG), strips or tiles, any compression libtiff decodes; the
 *        first page only.
 *   PGM  P5 (binary) / P2 (ASCII), 1 channel; maxval <= 255 -> U8,
 *        <= 65535 -> U16. Samples are returned as stored (not rescaled).
 *   PPM  P6 (binary) / P3 (ASCII), 3 channels, same maxval rule.
 *   PFM  "Pf" (1 channel) / "PF" (3 channels), FORMAC_F32; the sign of the
 *        scale gives the byte order; rows are flipped so row 0 is the top.
 * On success *out holds a new image (free it with formac_image_free); on
 * failure *out is zeroed. */
int formac_image_read(const char* path, formac_image* out, char* err,
                      size_t errlen);

/* formac_image_read with `flags`, an OR of: */
#define FORMAC_READ_ALPHA 1 /* keep alpha: PNG/TIFF give 2 or 4 channels */
#define FORMAC_READ_PAGES 2 /* every page of a TIFF (equal in size and
                             * layout) into img->pages */
int formac_image_read_flags(const char* path, formac_image* out, int flags,
                            char* err, size_t errlen);

/* Writes an image; the format is chosen by the extension (case-insensitive):
 *   .png  U8/U16, 1 (gray), 2 (gray+alpha), 3 (RGB) or 4 (RGBA) channels
 *   .pgm  U8/U16, 1 channel (P5; maxval 255 or 65535, 16-bit big-endian)
 *   .ppm  U8/U16, 3 channels (P6)
 *   .pnm  .pgm or .ppm by channel count
 *   .pfm  F32, 1 ("Pf") or 3 ("PF") channels, little-endian (scale -1),
 *         rows bottom-to-top as the format requires.
 *   .jpg/.jpeg  U8, 1 or 3 channels, quality FORMAC_JPEG_QUALITY, 4:4:4.
 *   .tif/.tiff  U8/U16/F32, 1 to 4 channels (2 and 4: the last is alpha),
 *         uncompressed; one page per img->pages.
 * Only TIFF takes more than one page. PNG is written for speed, not the
 * smallest file: the Up filter on every row and libdeflate's level 1
 * (bench/io has the times). A partially written file is removed on
 * failure. */
int formac_image_write(const char* path, const formac_image* img, char* err,
                       size_t errlen);

/* out = in * scale, converted to type `to`. Integer outputs are rounded to
 * nearest (halfway cases away from zero) and saturated to the type's range;
 * NaN becomes 0. *out is overwritten (not freed) — except that out == in is
 * allowed and replaces the image in place. */
int formac_image_convert(const formac_image* in, formac_image* out,
                         formac_pixel_type to, double scale);

#ifdef __cplusplus
}
#endif

#endif /* FORMAC_IMAGE_H */
