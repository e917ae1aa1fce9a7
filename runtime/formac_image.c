/* formac_image.c — see formac_image.h. */
#include "formac_image.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "formac_image_internal.h"

/* ------------------------------------------------------------------ */
/* small helpers                                                      */
/* ------------------------------------------------------------------ */

void formac__set_err(char* err, size_t errlen, const char* fmt, ...)
{
    va_list ap;
    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

size_t formac_pixel_type_size(formac_pixel_type t)
{
    switch (t) {
    case FORMAC_U8: return 1;
    case FORMAC_U16: return 2;
    case FORMAC_I16: return 2;
    case FORMAC_I32: return 4;
    case FORMAC_F32: return 4;
    case FORMAC_F64: return 8;
    case FORMAC_I64: return 8;
    }
    return 0;
}

const char* formac_pixel_type_name(formac_pixel_type t)
{
    switch (t) {
    case FORMAC_U8: return "u8";
    case FORMAC_U16: return "u16";
    case FORMAC_I16: return "i16";
    case FORMAC_I32: return "i32";
    case FORMAC_F32: return "f32";
    case FORMAC_F64: return "f64";
    case FORMAC_I64: return "i64";
    }
    return "?";
}

size_t formac__checked_samples(long long w, long long h, long long c,
                               long long pages)
{
    long long dims[4];
    size_t n = 1;
    int i;
    dims[0] = w, dims[1] = h, dims[2] = c, dims[3] = pages;
    for (i = 0; i < 4; i++) {
        if (dims[i] < 1 ||
            (unsigned long long)dims[i] > FORMAC_IMAGE_MAX_SAMPLES / n)
            return 0;
        n *= (size_t)dims[i];
    }
    return n;
}

static size_t checked_samples(long long w, long long h, long long c)
{
    return formac__checked_samples(w, h, c, 1);
}

size_t formac_image_samples(const formac_image* img)
{
    if (!img)
        return 0;
    return formac__checked_samples(img->width, img->height, img->channels,
                                   img->pages > 1 ? img->pages : 1);
}

size_t formac_image_bytes(const formac_image* img)
{
    if (!img)
        return 0;
    return formac_image_samples(img) * formac_pixel_type_size(img->type);
}

int formac_image_alloc(formac_image* img, int w, int h, int channels,
                       formac_pixel_type t)
{
    return formac_image_alloc_pages(img, w, h, 1, channels, t);
}

int formac_image_alloc_pages(formac_image* img, int w, int h, int pages,
                             int channels, formac_pixel_type t)
{
    size_t n, es;
    if (!img)
        return 1;
    memset(img, 0, sizeof *img);
    es = formac_pixel_type_size(t);
    n = formac__checked_samples(w, h, channels, pages);
    if (es == 0 || n == 0 || n > SIZE_MAX / es)
        return 1;
    img->data = calloc(n, es);
    if (!img->data)
        return 1;
    img->width = w;
    img->height = h;
    img->channels = channels;
    img->type = t;
    img->pages = pages;
    return 0;
}

void formac_image_free(formac_image* img)
{
    if (!img)
        return;
    free(img->data);
    memset(img, 0, sizeof *img);
}

/* Case-insensitive "does path end with ext" (ext includes the dot). */
static int has_ext(const char* path, const char* ext)
{
    size_t lp = strlen(path), le = strlen(ext), i;
    if (lp < le)
        return 0;
    for (i = 0; i < le; i++)
        if (tolower((unsigned char)path[lp - le + i]) !=
            tolower((unsigned char)ext[i]))
            return 0;
    return 1;
}

/* Bytes left in f from the current position, or -1 if unknown. */
static long long bytes_left(FILE* f)
{
    long cur, end;
    cur = ftell(f);
    if (cur < 0)
        return -1;
    if (fseek(f, 0, SEEK_END) != 0)
        return -1;
    end = ftell(f);
    if (fseek(f, cur, SEEK_SET) != 0 || end < cur)
        return -1;
    return (long long)(end - cur);
}

/* ------------------------------------------------------------------ */
/* Netpbm header tokens                                               */
/* ------------------------------------------------------------------ */

enum { TOK_OK = 0, TOK_EOF, TOK_BAD, TOK_BIG };

/* Skips whitespace and '#' comments. Returns the next character (not
 * consumed) or EOF. */
static int skip_space(FILE* f)
{
    int c;
    for (;;) {
        c = getc(f);
        if (c == '#') {
            while (c != '\n' && c != '\r' && c != EOF)
                c = getc(f);
            if (c == EOF)
                return EOF;
            continue;
        }
        if (c == EOF || !isspace(c)) {
            if (c != EOF)
                ungetc(c, f);
            return c;
        }
    }
}

/* Reads a decimal unsigned integer (<= 2^31 - 1). If `last`, the token must
 * be followed by exactly one whitespace character, which is consumed. */
static int read_uint(FILE* f, long* v, int last)
{
    int c = skip_space(f), digits = 0;
    long val = 0;
    if (c == EOF)
        return TOK_EOF;
    while ((c = getc(f)) != EOF && isdigit(c)) {
        if (val > (LONG_MAX - 9) / 10 || val > INT_MAX)
            val = (long)INT_MAX + 1; /* saturate; reported as too big */
        else
            val = val * 10 + (c - '0');
        digits++;
    }
    if (digits == 0)
        return TOK_BAD;
    if (last) {
        if (c == EOF)
            return TOK_EOF;
        if (!isspace(c))
            return TOK_BAD;
    } else if (c != EOF) {
        ungetc(c, f);
    }
    if (val > INT_MAX)
        return TOK_BIG;
    *v = val;
    return TOK_OK;
}

static void report_tok(int r, const char* path, const char* what, char* err,
                       size_t errlen)
{
    if (r == TOK_EOF)
        formac__set_err(err, errlen, "'%s': truncated file (in header, reading %s)",
                path, what);
    else if (r == TOK_BIG)
        formac__set_err(err, errlen, "'%s': %s is too large", path, what);
    else
        formac__set_err(err, errlen, "'%s': malformed header (bad %s)", path, what);
}

static int check_dims(const char* path, long w, long h, int channels,
                      char* err, size_t errlen)
{
    if (w < 1 || h < 1) {
        formac__set_err(err, errlen, "'%s': invalid image size %ldx%ld", path, w, h);
        return 1;
    }
    if (checked_samples(w, h, channels) == 0) {
        formac__set_err(err, errlen,
                "'%s': image too large (%ldx%ld with %d channel%s; at most "
                "2^31 samples)",
                path, w, h, channels, channels == 1 ? "" : "s");
        return 1;
    }
    return 0;
}

static int alloc_for_read(const char* path, formac_image* out, long w, long h,
                          int channels, formac_pixel_type t, char* err,
                          size_t errlen)
{
    if (formac_image_alloc(out, (int)w, (int)h, channels, t) != 0) {
        formac__set_err(err, errlen, "'%s': out of memory for a %ldx%ld image", path,
                w, h);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* PGM / PPM                                                          */
/* ------------------------------------------------------------------ */

/* `kind` is the digit after 'P' (2, 3, 5 or 6); the magic is consumed. */
static int read_pnm(FILE* f, const char* path, int kind, formac_image* out,
                    char* err, size_t errlen)
{
    long w, h, maxval;
    int r, channels = (kind == 3 || kind == 6) ? 3 : 1;
    int ascii = (kind == 2 || kind == 3);
    formac_pixel_type t;
    size_t n, i;

    if ((r = read_uint(f, &w, 0)) != TOK_OK) {
        report_tok(r, path, "width", err, errlen);
        return 1;
    }
    if ((r = read_uint(f, &h, 0)) != TOK_OK) {
        report_tok(r, path, "height", err, errlen);
        return 1;
    }
    if ((r = read_uint(f, &maxval, 1)) != TOK_OK) {
        report_tok(r, path, "maxval", err, errlen);
        return 1;
    }
    if (maxval < 1 || maxval > 65535) {
        formac__set_err(err, errlen, "'%s': invalid maxval %ld (must be 1..65535)",
                path, maxval);
        return 1;
    }
    if (check_dims(path, w, h, channels, err, errlen))
        return 1;
    t = maxval <= 255 ? FORMAC_U8 : FORMAC_U16;
    n = checked_samples(w, h, channels);

    /* Refuse before allocating when the file cannot possibly hold the
     * samples (a huge header on a tiny file). */
    {
        long long left = bytes_left(f);
        size_t need = ascii ? n : n * formac_pixel_type_size(t);
        if (left >= 0 && (unsigned long long)left < need) {
            formac__set_err(err, errlen,
                    "'%s': truncated file (%ldx%ld image needs %zu bytes of "
                    "samples, %lld present)",
                    path, w, h, need, left);
            return 1;
        }
    }
    if (alloc_for_read(path, out, w, h, channels, t, err, errlen))
        return 1;

    if (ascii) {
        for (i = 0; i < n; i++) {
            long v;
            r = read_uint(f, &v, 0);
            if (r == TOK_EOF) {
                formac__set_err(err, errlen,
                        "'%s': truncated file (%zu of %zu samples)", path, i,
                        n);
                goto fail;
            }
            if (r != TOK_OK || v > maxval) {
                formac__set_err(err, errlen,
                        "'%s': bad sample #%zu (not a number <= maxval %ld)",
                        path, i, maxval);
                goto fail;
            }
            if (t == FORMAC_U8)
                ((uint8_t*)out->data)[i] = (uint8_t)v;
            else
                ((uint16_t*)out->data)[i] = (uint16_t)v;
        }
    } else if (t == FORMAC_U8) {
        if (fread(out->data, 1, n, f) != n) {
            formac__set_err(err, errlen, "'%s': truncated file", path);
            goto fail;
        }
    } else {
        unsigned char* b = (unsigned char*)out->data;
        uint16_t* d = (uint16_t*)out->data;
        if (fread(b, 2, n, f) != n) {
            formac__set_err(err, errlen, "'%s': truncated file", path);
            goto fail;
        }
        for (i = 0; i < n; i++) { /* big-endian -> host, in place */
            uint16_t v = (uint16_t)((b[2 * i] << 8) | b[2 * i + 1]);
            d[i] = v;
        }
    }
    return 0;
fail:
    formac_image_free(out);
    return 1;
}

/* ------------------------------------------------------------------ */
/* PFM                                                                */
/* ------------------------------------------------------------------ */

static int read_pfm(FILE* f, const char* path, int channels, formac_image* out,
                    char* err, size_t errlen)
{
    long w, h;
    int r, c, len = 0, little;
    char tok[64];
    char* end;
    double scale;
    size_t row_samples, n, y, x;
    unsigned char* row = NULL;

    if ((r = read_uint(f, &w, 0)) != TOK_OK) {
        report_tok(r, path, "width", err, errlen);
        return 1;
    }
    if ((r = read_uint(f, &h, 0)) != TOK_OK) {
        report_tok(r, path, "height", err, errlen);
        return 1;
    }
    (void)skip_space(f);
    while ((c = getc(f)) != EOF && !isspace(c) && len < (int)sizeof tok - 1)
        tok[len++] = (char)c;
    tok[len] = '\0';
    if (c == EOF) {
        formac__set_err(err, errlen, "'%s': truncated file (in header, reading scale)",
                path);
        return 1;
    }
    scale = strtod(tok, &end);
    if (len == 0 || *end != '\0' || !isspace(c) || scale == 0.0 ||
        scale != scale) {
        formac__set_err(err, errlen, "'%s': malformed header (bad scale '%s')", path,
                tok);
        return 1;
    }
    little = scale < 0;
    if (check_dims(path, w, h, channels, err, errlen))
        return 1;
    n = checked_samples(w, h, channels);
    {
        long long left = bytes_left(f);
        if (left >= 0 && (unsigned long long)left < n * 4) {
            formac__set_err(err, errlen,
                    "'%s': truncated file (%ldx%ld image needs %zu bytes of "
                    "samples, %lld present)",
                    path, w, h, n * 4, left);
            return 1;
        }
    }
    if (alloc_for_read(path, out, w, h, channels, FORMAC_F32, err, errlen))
        return 1;
    row_samples = (size_t)w * (size_t)channels;
    row = (unsigned char*)malloc(row_samples * 4);
    if (!row) {
        formac__set_err(err, errlen, "'%s': out of memory", path);
        goto fail;
    }
    /* The file stores the bottom row first. */
    for (y = 0; y < (size_t)h; y++) {
        float* dst = (float*)out->data + ((size_t)h - 1 - y) * row_samples;
        if (fread(row, 4, row_samples, f) != row_samples) {
            formac__set_err(err, errlen, "'%s': truncated file", path);
            goto fail;
        }
        for (x = 0; x < row_samples; x++) {
            const unsigned char* b = row + 4 * x;
            uint32_t u;
            float v;
            if (little)
                u = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
                    (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
            else
                u = (uint32_t)b[3] | (uint32_t)b[2] << 8 |
                    (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
            memcpy(&v, &u, 4);
            dst[x] = v;
        }
    }
    free(row);
    return 0;
fail:
    free(row);
    formac_image_free(out);
    return 1;
}

/* ------------------------------------------------------------------ */
/* PNG                                                                */
/* ------------------------------------------------------------------ */

typedef struct {
    png_structp png;
    png_infop info;
    FILE* f;
    const char* path;
    formac_image* img; /* the output */
    png_bytep* rows;
    int truncated, io_errno;
    char msg[200];
} png_ctx;

static void png_err_cb(png_structp png, png_const_charp msg)
{
    png_ctx* c = (png_ctx*)png_get_error_ptr(png);
    if (c && c->msg[0] == '\0')
        snprintf(c->msg, sizeof c->msg, "%s", msg ? msg : "unknown error");
    png_longjmp(png, 1);
}

static void png_warn_cb(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void png_read_cb(png_structp png, png_bytep data, size_t len)
{
    png_ctx* c = (png_ctx*)png_get_io_ptr(png);
    if (fread(data, 1, len, c->f) != len) {
        if (ferror(c->f)) {
            c->io_errno = errno ? errno : EIO;
            png_error(png, "read error");
        }
        c->truncated = 1;
        png_error(png, "truncated file");
    }
}

/* Returns 0 on success, -1 after a libpng error (c->msg set), 1 after an
 * error already reported into c->msg without libpng. Nothing local here is
 * used after a longjmp: all state lives in *c, owned by the caller. */
static int png_read_inner(png_ctx* c)
{
    png_uint_32 w, h, y;
    int depth, color, interlace, channels;
    size_t es;
    if (setjmp(png_jmpbuf(c->png)))
        return -1;
    png_set_read_fn(c->png, c, png_read_cb);
    png_set_sig_bytes(c->png, 8);
    png_read_info(c->png, c->info);
    png_get_IHDR(c->png, c->info, &w, &h, &depth, &color, &interlace, NULL,
                 NULL);
    if (color == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(c->png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(c->png);
    png_set_interlace_handling(c->png);
    png_read_update_info(c->png, c->info);
    channels = png_get_channels(c->png, c->info);
    depth = png_get_bit_depth(c->png, c->info);
    if (channels < 1 || channels > 4 || (depth != 8 && depth != 16)) {
        snprintf(c->msg, sizeof c->msg,
                 "unsupported PNG layout (%d channels of %d bits)", channels,
                 depth);
        return 1;
    }
    if (checked_samples((long long)w, (long long)h, channels) == 0) {
        snprintf(c->msg, sizeof c->msg,
                 "image too large (%lux%lu with %d channel%s; at most 2^31 "
                 "samples)",
                 (unsigned long)w, (unsigned long)h, channels,
                 channels == 1 ? "" : "s");
        return 1;
    }
    es = (size_t)depth / 8;
    if (png_get_rowbytes(c->png, c->info) != (size_t)w * channels * es) {
        snprintf(c->msg, sizeof c->msg, "unexpected PNG row size");
        return 1;
    }
    if (formac_image_alloc(c->img, (int)w, (int)h, channels,
                           depth == 16 ? FORMAC_U16 : FORMAC_U8) != 0) {
        snprintf(c->msg, sizeof c->msg, "out of memory for a %lux%lu image",
                 (unsigned long)w, (unsigned long)h);
        return 1;
    }
    c->rows = (png_bytep*)malloc(sizeof(png_bytep) * h);
    if (!c->rows) {
        snprintf(c->msg, sizeof c->msg, "out of memory");
        return 1;
    }
    for (y = 0; y < h; y++)
        c->rows[y] = (png_bytep)c->img->data + (size_t)y * w * channels * es;
    png_read_image(c->png, c->rows);
    png_read_end(c->png, NULL);
    if (depth == 16) { /* PNG stores big-endian; convert in place */
        size_t i, n = (size_t)w * h * channels;
        unsigned char* b = (unsigned char*)c->img->data;
        uint16_t* d = (uint16_t*)c->img->data;
        for (i = 0; i < n; i++) {
            uint16_t v = (uint16_t)((b[2 * i] << 8) | b[2 * i + 1]);
            d[i] = v;
        }
    }
    return 0;
}

static int read_png(FILE* f, const char* path, formac_image* out, char* err,
                    size_t errlen)
{
    png_ctx c;
    int r;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.path = path;
    c.img = out;
    c.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, png_err_cb,
                                   png_warn_cb);
    if (c.png)
        c.info = png_create_info_struct(c.png);
    if (!c.png || !c.info) {
        png_destroy_read_struct(c.png ? &c.png : NULL, NULL, NULL);
        formac__set_err(err, errlen, "'%s': out of memory", path);
        return 1;
    }
    r = png_read_inner(&c);
    png_destroy_read_struct(&c.png, &c.info, NULL);
    free(c.rows);
    if (r == 0)
        return 0;
    formac_image_free(out);
    if (c.truncated)
        formac__set_err(err, errlen, "'%s': truncated file", path);
    else if (c.io_errno)
        formac__set_err(err, errlen, "'%s': read error: %s", path,
                strerror(c.io_errno));
    else if (r < 0)
        formac__set_err(err, errlen, "'%s': invalid PNG file: %s", path, c.msg);
    else
        formac__set_err(err, errlen, "'%s': %s", path, c.msg);
    return 1;
}

/* ------------------------------------------------------------------ */
/* read dispatch                                                      */
/* ------------------------------------------------------------------ */

/* Keeps every channel but the last (alpha) of a 2- or 4-channel image. */
static void drop_alpha(formac_image* img)
{
    size_t es = formac_pixel_type_size(img->type), c = (size_t)img->channels;
    size_t n = formac_image_samples(img) / c, i;
    unsigned char* d = (unsigned char*)img->data;
    for (i = 0; i < n; i++)
        memmove(d + i * (c - 1) * es, d + i * c * es, (c - 1) * es);
    img->channels--;
}

static int is_tiff(const unsigned char* m)
{
    return (m[0] == 'I' && m[1] == 'I' && (m[2] == 42 || m[2] == 43) &&
            m[3] == 0) ||
           (m[0] == 'M' && m[1] == 'M' && m[2] == 0 &&
            (m[3] == 42 || m[3] == 43));
}

int formac_image_read(const char* path, formac_image* out, char* err,
                      size_t errlen)
{
    return formac_image_read_flags(path, out, 0, err, errlen);
}

int formac_image_read_flags(const char* path, formac_image* out, int flags,
                            char* err, size_t errlen)
{
    static const unsigned char png_sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    unsigned char magic[8];
    size_t got;
    FILE* f;
    int r;

    if (err && errlen)
        err[0] = '\0';
    if (!out) {
        formac__set_err(err, errlen, "formac_image_read: null output image");
        return 1;
    }
    memset(out, 0, sizeof *out);
    if (!path) {
        formac__set_err(err, errlen, "formac_image_read: null path");
        return 1;
    }
    f = fopen(path, "rb");
    if (!f) {
        formac__set_err(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return 1;
    }
    got = fread(magic, 1, 2, f);
    if (got == 0 && ferror(f)) { /* e.g. a directory */
        formac__set_err(err, errlen, "cannot read '%s': %s", path,
                strerror(errno ? errno : EIO));
        fclose(f);
        return 1;
    }
    if (got == 0) {
        formac__set_err(err, errlen, "'%s': empty file", path);
        fclose(f);
        return 1;
    }
    if (got == 2 && magic[0] == 'P' && magic[1] != '\0' &&
        strchr("2356fF", magic[1])) {
        int next = getc(f); /* the magic must be followed by whitespace */
        if (next == EOF) {
            formac__set_err(err, errlen, "'%s': truncated file", path);
            fclose(f);
            return 1;
        }
        if (!isspace(next))
            magic[0] = 0; /* not Netpbm/PFM: reported as unknown below */
    }
    if (got == 2 && magic[0] == 'P' &&
        (magic[1] == '2' || magic[1] == '3' || magic[1] == '5' ||
         magic[1] == '6')) {
        r = read_pnm(f, path, magic[1] - '0', out, err, errlen);
    } else if (got == 2 && magic[0] == 'P' &&
               (magic[1] == 'f' || magic[1] == 'F')) {
        r = read_pfm(f, path, magic[1] == 'F' ? 3 : 1, out, err, errlen);
    } else if (got == 2 && magic[0] == png_sig[0] && magic[1] == png_sig[1]) {
        got += fread(magic + 2, 1, 6, f);
        if (got == 8 && memcmp(magic, png_sig, 8) == 0)
            r = read_png(f, path, out, err, errlen);
        else {
            formac__set_err(err, errlen,
                            "'%s': not a PNG/JPEG/TIFF/PGM/PPM/PFM file", path);
            r = 1;
        }
    } else if (got == 2 && magic[0] == 0xFF && magic[1] == 0xD8) {
        rewind(f);
        r = formac__read_jpeg(f, path, out, err, errlen);
    } else if (got == 2 && (fread(magic + 2, 1, 2, f) == 2) &&
               is_tiff(magic)) {
        r = formac__read_tiff(path, out, (flags & FORMAC_READ_PAGES) != 0,
                              err, errlen);
    } else if (got == 2 && magic[0] == 'P' &&
               (magic[1] == '1' || magic[1] == '4' || magic[1] == '7')) {
        formac__set_err(err, errlen,
                "'%s': unsupported Netpbm variant P%c (use PGM, PPM or PFM)",
                path, magic[1]);
        r = 1;
    } else {
        formac__set_err(err, errlen,
                "'%s': not a PNG/JPEG/TIFF/PGM/PPM/PFM file%s", path,
                has_ext(path, ".png") || has_ext(path, ".pgm") ||
                        has_ext(path, ".ppm") || has_ext(path, ".pnm") ||
                        has_ext(path, ".pfm") || has_ext(path, ".jpg") ||
                        has_ext(path, ".jpeg") || has_ext(path, ".tif") ||
                        has_ext(path, ".tiff")
                    ? " (contents do not match the extension)"
                    : "");
        r = 1;
    }
    fclose(f);
    if (r != 0)
        formac_image_free(out);
    else if (!(flags & FORMAC_READ_ALPHA) &&
             (out->channels == 2 || out->channels == 4))
        drop_alpha(out);
    return r;
}

/* ------------------------------------------------------------------ */
/* write                                                              */
/* ------------------------------------------------------------------ */

static int write_pnm(FILE* f, const formac_image* img)
{
    size_t n = formac_image_samples(img), i;
    if (fprintf(f, "P%c\n%d %d\n%d\n", img->channels == 1 ? '5' : '6',
                img->width, img->height,
                img->type == FORMAC_U8 ? 255 : 65535) < 0)
        return 1;
    if (img->type == FORMAC_U8)
        return fwrite(img->data, 1, n, f) != n;
    {
        const uint16_t* s = (const uint16_t*)img->data;
        unsigned char buf[4096];
        size_t k = 0;
        for (i = 0; i < n; i++) {
            buf[k++] = (unsigned char)(s[i] >> 8);
            buf[k++] = (unsigned char)(s[i] & 0xff);
            if (k == sizeof buf) {
                if (fwrite(buf, 1, k, f) != k)
                    return 1;
                k = 0;
            }
        }
        return k && fwrite(buf, 1, k, f) != k;
    }
}

static int write_pfm(FILE* f, const formac_image* img)
{
    size_t row_samples = (size_t)img->width * (size_t)img->channels, x;
    unsigned char* buf;
    int y, bad = 0;
    if (fprintf(f, "P%c\n%d %d\n-1.0\n", img->channels == 3 ? 'F' : 'f',
                img->width, img->height) < 0)
        return 1;
    buf = (unsigned char*)malloc(row_samples * 4);
    if (!buf)
        return 2;
    for (y = img->height - 1; y >= 0 && !bad; y--) { /* bottom row first */
        const float* s = (const float*)img->data + (size_t)y * row_samples;
        for (x = 0; x < row_samples; x++) {
            uint32_t u;
            memcpy(&u, &s[x], 4);
            buf[4 * x] = (unsigned char)(u & 0xff);
            buf[4 * x + 1] = (unsigned char)((u >> 8) & 0xff);
            buf[4 * x + 2] = (unsigned char)((u >> 16) & 0xff);
            buf[4 * x + 3] = (unsigned char)(u >> 24);
        }
        bad = fwrite(buf, 4, row_samples, f) != row_samples;
    }
    free(buf);
    return bad;
}

int formac_image_write(const char* path, const formac_image* img, char* err,
                       size_t errlen)
{
    enum { W_PNG, W_PNM, W_PFM, W_JPEG, W_TIFF } fmt;
    FILE* f;
    int r, saved;

    if (err && errlen)
        err[0] = '\0';
    if (!path) {
        formac__set_err(err, errlen, "formac_image_write: null path");
        return 1;
    }
    if (!img || !img->data || formac_image_samples(img) == 0 ||
        formac_pixel_type_size(img->type) == 0) {
        formac__set_err(err, errlen, "'%s': cannot write an empty or invalid image",
                path);
        return 1;
    }
    if (img->pages > 1 && !has_ext(path, ".tif") && !has_ext(path, ".tiff")) {
        formac__set_err(err, errlen,
                        "'%s': the image has %d pages; only TIFF stores more "
                        "than one",
                        path, img->pages);
        return 1;
    }
    if (has_ext(path, ".jpg") || has_ext(path, ".jpeg")) {
        fmt = W_JPEG;
        if (img->type != FORMAC_U8 ||
            (img->channels != 1 && img->channels != 3)) {
            formac__set_err(err, errlen,
                            "'%s': JPEG stores u8 samples in 1 or 3 channels, "
                            "image is %s with %d",
                            path, formac_pixel_type_name(img->type),
                            img->channels);
            return 1;
        }
    } else if (has_ext(path, ".tif") || has_ext(path, ".tiff")) {
        fmt = W_TIFF;
        if ((img->type != FORMAC_U8 && img->type != FORMAC_U16 &&
             img->type != FORMAC_F32) ||
            img->channels > 4) {
            formac__set_err(err, errlen,
                            "'%s': TIFF is written with u8, u16 or f32 samples "
                            "in 1 to 4 channels, image is %s with %d",
                            path, formac_pixel_type_name(img->type),
                            img->channels);
            return 1;
        }
        return formac__write_tiff(path, img, err, errlen);
    } else if (has_ext(path, ".png")) {
        fmt = W_PNG;
        if (img->type != FORMAC_U8 && img->type != FORMAC_U16) {
            formac__set_err(err, errlen,
                    "'%s': PNG stores u8 or u16 samples, image is %s "
                    "(convert it first)",
                    path, formac_pixel_type_name(img->type));
            return 1;
        }
        if (img->channels > 4) {
            formac__set_err(err, errlen,
                    "'%s': PNG stores 1 to 4 channels, image has %d", path,
                    img->channels);
            return 1;
        }
    } else if (has_ext(path, ".pgm") || has_ext(path, ".ppm") ||
               has_ext(path, ".pnm")) {
        int want = has_ext(path, ".pgm") ? 1 : has_ext(path, ".ppm") ? 3 : 0;
        fmt = W_PNM;
        if (img->type != FORMAC_U8 && img->type != FORMAC_U16) {
            formac__set_err(err, errlen,
                    "'%s': PGM/PPM store u8 or u16 samples, image is %s "
                    "(convert it first)",
                    path, formac_pixel_type_name(img->type));
            return 1;
        }
        if ((want && img->channels != want) ||
            (!want && img->channels != 1 && img->channels != 3)) {
            formac__set_err(err, errlen, "'%s': %s needs %s channel%s, image has %d",
                    path, want == 1 ? "PGM" : want == 3 ? "PPM" : "PNM",
                    want == 1 ? "1" : want == 3 ? "3" : "1 or 3",
                    want == 1 ? "" : "s", img->channels);
            return 1;
        }
    } else if (has_ext(path, ".pfm")) {
        fmt = W_PFM;
        if (img->type != FORMAC_F32) {
            formac__set_err(err, errlen,
                    "'%s': PFM stores f32 samples, image is %s (convert it "
                    "first)",
                    path, formac_pixel_type_name(img->type));
            return 1;
        }
        if (img->channels != 1 && img->channels != 3) {
            formac__set_err(err, errlen, "'%s': PFM needs 1 or 3 channels, image has %d",
                    path, img->channels);
            return 1;
        }
    } else {
        formac__set_err(err, errlen,
                "'%s': unknown output format (use .png, .jpg, .tif, .pgm, "
                ".ppm, .pnm or .pfm)",
                path);
        return 1;
    }

    f = fopen(path, "wb");
    if (!f) {
        formac__set_err(err, errlen, "cannot open '%s' for writing: %s", path,
                strerror(errno));
        return 1;
    }
    errno = 0;
    if (fmt == W_PNG) {
        r = formac__write_png(f, path, img, err, errlen);
    } else if (fmt == W_JPEG) {
        r = formac__write_jpeg(f, path, img, err, errlen);
    } else {
        r = fmt == W_PNM ? write_pnm(f, img) : write_pfm(f, img);
        if (r == 2)
            formac__set_err(err, errlen, "'%s': out of memory", path);
        else if (r)
            formac__set_err(err, errlen, "'%s': write error: %s", path,
                    strerror(errno ? errno : EIO));
    }
    saved = errno;
    if (fclose(f) != 0 && r == 0) {
        formac__set_err(err, errlen, "'%s': write error: %s", path,
                strerror(errno ? errno : saved ? saved : EIO));
        r = 1;
    }
    if (r != 0)
        remove(path);
    return r;
}

/* ------------------------------------------------------------------ */
/* conversion                                                         */
/* ------------------------------------------------------------------ */

static double load(const void* data, formac_pixel_type t, size_t i)
{
    switch (t) {
    case FORMAC_U8: return ((const uint8_t*)data)[i];
    case FORMAC_U16: return ((const uint16_t*)data)[i];
    case FORMAC_I16: return ((const int16_t*)data)[i];
    case FORMAC_I32: return ((const int32_t*)data)[i];
    case FORMAC_F32: return ((const float*)data)[i];
    case FORMAC_F64: return ((const double*)data)[i];
    case FORMAC_I64: return (double)((const int64_t*)data)[i];
    }
    return 0.0;
}

static double sat(double v, double lo, double hi)
{
    if (v != v)
        return 0.0;
    v = round(v);
    return v < lo ? lo : v > hi ? hi : v;
}

static void store(void* data, formac_pixel_type t, size_t i, double v)
{
    switch (t) {
    case FORMAC_U8: ((uint8_t*)data)[i] = (uint8_t)sat(v, 0, 255); break;
    case FORMAC_U16: ((uint16_t*)data)[i] = (uint16_t)sat(v, 0, 65535); break;
    case FORMAC_I16:
        ((int16_t*)data)[i] = (int16_t)sat(v, -32768, 32767);
        break;
    case FORMAC_I32:
        ((int32_t*)data)[i] = (int32_t)sat(v, -2147483648.0, 2147483647.0);
        break;
    case FORMAC_F32: ((float*)data)[i] = (float)v; break;
    case FORMAC_F64: ((double*)data)[i] = v; break;
    case FORMAC_I64:
        /* 2^63 is the first double above the range */
        ((int64_t*)data)[i] = v != v ? 0 : v < -9223372036854775808.0 ? INT64_MIN
                              : v >= 9223372036854775808.0 ? INT64_MAX : (int64_t)round(v);
        break;
    }
}

int formac_image_convert(const formac_image* in, formac_image* out,
                         formac_pixel_type to, double scale)
{
    formac_image tmp;
    size_t n, i;
    if (!in || !out || !in->data || formac_pixel_type_size(in->type) == 0 ||
        formac_pixel_type_size(to) == 0)
        return 1;
    n = formac_image_samples(in);
    if (n == 0)
        return 1;
    if (formac_image_alloc_pages(&tmp, in->width, in->height,
                                 in->pages > 1 ? in->pages : 1, in->channels,
                                 to))
        return 1;
    if (in->type == to && scale == 1.0) {
        memcpy(tmp.data, in->data, n * formac_pixel_type_size(to));
    } else {
        for (i = 0; i < n; i++)
            store(tmp.data, to, i, load(in->data, in->type, i) * scale);
    }
    if (out == in)
        free(out->data);
    *out = tmp;
    return 0;
}
