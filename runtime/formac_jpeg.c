/* formac_jpeg.c — JPEG through libjpeg (libjpeg-turbo on Debian): 8-bit gray
 * and RGB in, 8-bit gray and RGB out at quality FORMAC_JPEG_QUALITY with no
 * chroma subsampling (4:4:4). Errors come back through longjmp from
 * libjpeg's error_exit: nothing prints or exits. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "formac_image_internal.h"

typedef struct {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    int warned;
    char msg[JMSG_LENGTH_MAX];
} jpeg_err;

static void jpeg_exit_cb(j_common_ptr cinfo)
{
    jpeg_err* e = (jpeg_err*)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->msg);
    longjmp(e->jump, 1);
}

static void jpeg_quiet_cb(j_common_ptr cinfo) { (void)cinfo; }

/* A warning (corrupt or truncated data, which libjpeg would pad with gray)
 * is an error here: its message is kept and the read fails at the end. */
static void jpeg_emit_cb(j_common_ptr cinfo, int level)
{
    jpeg_err* e = (jpeg_err*)cinfo->err;
    if (level >= 0 || e->warned)
        return;
    e->warned = 1;
    (*cinfo->err->format_message)(cinfo, e->msg);
}

static void jpeg_errors(jpeg_err* e)
{
    memset(e, 0, sizeof *e);
    jpeg_std_error(&e->mgr);
    e->mgr.error_exit = jpeg_exit_cb;
    e->mgr.output_message = jpeg_quiet_cb;
    e->mgr.emit_message = jpeg_emit_cb;
}

/* The state a longjmp may leave behind lives here, not in locals. */
typedef struct {
    struct jpeg_decompress_struct d;
    jpeg_err e;
    formac_image* out;
    char msg[200];
} jpeg_read_ctx;

static int jpeg_read_inner(jpeg_read_ctx* c, FILE* f)
{
    JDIMENSION w, h;
    int channels;
    size_t row;
    if (setjmp(c->e.jump))
        return -1;
    jpeg_create_decompress(&c->d);
    jpeg_stdio_src(&c->d, f);
    jpeg_read_header(&c->d, TRUE);
    if (c->d.jpeg_color_space == JCS_CMYK || c->d.jpeg_color_space == JCS_YCCK) {
        snprintf(c->msg, sizeof c->msg, "CMYK JPEG is not supported");
        return 1;
    }
    c->d.out_color_space = c->d.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&c->d);
    w = c->d.output_width;
    h = c->d.output_height;
    channels = c->d.output_components;
    if (formac__checked_samples(w, h, channels, 1) == 0) {
        snprintf(c->msg, sizeof c->msg,
                 "image too large (%lux%lu; at most 2^31 samples)",
                 (unsigned long)w, (unsigned long)h);
        return 1;
    }
    if (formac_image_alloc(c->out, (int)w, (int)h, channels, FORMAC_U8)) {
        snprintf(c->msg, sizeof c->msg, "out of memory for a %lux%lu image",
                 (unsigned long)w, (unsigned long)h);
        return 1;
    }
    row = (size_t)w * (size_t)channels;
    while (c->d.output_scanline < h) {
        JSAMPROW p = (JSAMPROW)c->out->data + (size_t)c->d.output_scanline * row;
        jpeg_read_scanlines(&c->d, &p, 1);
    }
    jpeg_finish_decompress(&c->d);
    return c->e.warned ? -1 : 0;
}

int formac__read_jpeg(FILE* f, const char* path, formac_image* out,
                      char* err, size_t errlen)
{
    jpeg_read_ctx* c = (jpeg_read_ctx*)calloc(1, sizeof *c);
    int r;
    if (!c) {
        formac__set_err(err, errlen, "'%s': out of memory", path);
        return 1;
    }
    c->d.err = &c->e.mgr;
    jpeg_errors(&c->e);
    c->out = out;
    r = jpeg_read_inner(c, f);
    jpeg_destroy_decompress(&c->d);
    if (r < 0)
        formac__set_err(err, errlen, "'%s': invalid JPEG file: %s", path,
                        c->e.msg);
    else if (r > 0)
        formac__set_err(err, errlen, "'%s': %s", path, c->msg);
    free(c);
    if (r != 0)
        formac_image_free(out);
    return r != 0;
}

typedef struct {
    struct jpeg_compress_struct d;
    jpeg_err e;
} jpeg_write_ctx;

static int jpeg_write_inner(jpeg_write_ctx* c, FILE* f, const formac_image* img)
{
    size_t row = (size_t)img->width * (size_t)img->channels;
    int i;
    if (setjmp(c->e.jump))
        return 1;
    jpeg_create_compress(&c->d);
    jpeg_stdio_dest(&c->d, f);
    c->d.image_width = (JDIMENSION)img->width;
    c->d.image_height = (JDIMENSION)img->height;
    c->d.input_components = img->channels;
    c->d.in_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c->d);
    jpeg_set_quality(&c->d, FORMAC_JPEG_QUALITY, TRUE);
    for (i = 0; i < c->d.num_components; i++) /* 4:4:4 */
        c->d.comp_info[i].h_samp_factor = c->d.comp_info[i].v_samp_factor = 1;
    jpeg_start_compress(&c->d, TRUE);
    while (c->d.next_scanline < c->d.image_height) {
        JSAMPROW p = (JSAMPROW)img->data + (size_t)c->d.next_scanline * row;
        jpeg_write_scanlines(&c->d, &p, 1);
    }
    jpeg_finish_compress(&c->d);
    return 0;
}

int formac__write_jpeg(FILE* f, const char* path, const formac_image* img,
                       char* err, size_t errlen)
{
    jpeg_write_ctx* c = (jpeg_write_ctx*)calloc(1, sizeof *c);
    int r;
    if (!c) {
        formac__set_err(err, errlen, "'%s': out of memory", path);
        return 1;
    }
    c->d.err = &c->e.mgr;
    jpeg_errors(&c->e);
    r = jpeg_write_inner(c, f, img);
    jpeg_destroy_compress(&c->d);
    if (r)
        formac__set_err(err, errlen, "'%s': cannot encode JPEG: %s", path,
                        c->e.msg);
    free(c);
    return r;
}
