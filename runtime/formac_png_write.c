/* formac_png_write.c — PNG writing for speed: every row takes the Up filter
 * (one subtraction a byte) and the whole image is compressed in one call of
 * libdeflate at level 1, about twice as fast as zlib's fastest level and a
 * little smaller (bench/io); zlib's level 1 where formac was built without
 * libdeflate (FORMAC_HAVE_LIBDEFLATE unset). The file is one IHDR, one IDAT,
 * one IEND. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formac_image_internal.h"

#ifdef FORMAC_HAVE_LIBDEFLATE
#include <libdeflate.h>

static uint32_t png_crc(uint32_t crc, const void* p, size_t n)
{
    return libdeflate_crc32(crc, p, n);
}

/* The zlib stream of in[0, n) in a new buffer *out; its size, 0 on failure. */
static size_t zlib_pack(const unsigned char* in, size_t n, unsigned char** out)
{
    struct libdeflate_compressor* c = libdeflate_alloc_compressor(1);
    size_t z = 0;
    *out = c ? (unsigned char*)malloc(libdeflate_zlib_compress_bound(c, n)) : NULL;
    if (*out)
        z = libdeflate_zlib_compress(c, in, n, *out, libdeflate_zlib_compress_bound(c, n));
    libdeflate_free_compressor(c);
    return z;
}
#else
#include <zlib.h>

static uint32_t png_crc(uint32_t crc, const void* p, size_t n)
{
    return (uint32_t)crc32(crc, (const Bytef*)p, (uInt)n); /* n < 2^31: one chunk */
}

static size_t zlib_pack(const unsigned char* in, size_t n, unsigned char** out)
{
    uLongf z = compressBound((uLong)n);
    *out = (unsigned char*)malloc(z);
    if (!*out || compress2(*out, &z, in, (uLong)n, 1) != Z_OK)
        return 0;
    return (size_t)z;
}
#endif

static void put_be32(unsigned char* p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Writes one chunk: length, type, data, CRC of type and data. */
static int put_chunk(FILE* f, const char* type, const unsigned char* data,
                     size_t len)
{
    unsigned char head[8], tail[4];
    uint32_t crc = png_crc(0, type, 4);
    if (len > 0x7fffffffu)
        return 1;
    if (len) /* the CRC of NULL is 0, not the CRC so far */
        crc = png_crc(crc, data, len);
    put_be32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    put_be32(tail, crc);
    return fwrite(head, 1, 8, f) != 8 || (len && fwrite(data, 1, len, f) != len) ||
           fwrite(tail, 1, 4, f) != 4;
}

/* The filtered scanlines: each row a filter byte (2, Up) and its bytes
 * (samples big-endian) minus those of the row above (0 above the first). */
static void filter_up(const formac_image* img, unsigned char* out)
{
    size_t samples = (size_t)img->width * (size_t)img->channels, i;
    int y;
    for (y = 0; y < img->height; y++) {
        size_t at = (size_t)y * samples;
        if (img->type == FORMAC_U8) {
            const unsigned char* cur = (const unsigned char*)img->data + at;
            unsigned char* row = out + (size_t)y * (samples + 1);
            row[0] = 2;
            if (y == 0)
                memcpy(row + 1, cur, samples);
            else
                for (i = 0; i < samples; i++) /* cur - samples: the row above */
                    row[1 + i] = (unsigned char)(cur[i] - (cur - samples)[i]);
        } else {
            const uint16_t* cur = (const uint16_t*)img->data + at;
            unsigned char* row = out + (size_t)y * (2 * samples + 1);
            row[0] = 2;
            for (i = 0; i < samples; i++) {
                unsigned up = y ? (cur - samples)[i] : 0;
                row[1 + 2 * i] = (unsigned char)((cur[i] >> 8) - (up >> 8));
                row[2 + 2 * i] = (unsigned char)(cur[i] - up);
            }
        }
    }
}

int formac__write_png(FILE* f, const char* path, const formac_image* img,
                      char* err, size_t errlen)
{
    static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    static const unsigned char color[5] = {0, 0, 4, 2, 6};
    size_t rb = (size_t)img->width * (size_t)img->channels *
                (img->type == FORMAC_U16 ? 2 : 1);
    size_t raw = (rb + 1) * (size_t)img->height, z = 0;
    unsigned char ihdr[13], *filtered, *packed = NULL;
    int r = 1;
    filtered = (unsigned char*)malloc(raw);
    if (filtered) {
        filter_up(img, filtered);
        z = zlib_pack(filtered, raw, &packed);
    }
    if (!filtered || !packed) {
        formac__set_err(err, errlen, "'%s': out of memory", path);
        goto done;
    }
    put_be32(ihdr, (uint32_t)img->width);
    put_be32(ihdr + 4, (uint32_t)img->height);
    ihdr[8] = img->type == FORMAC_U16 ? 16 : 8;
    ihdr[9] = color[img->channels];
    ihdr[10] = ihdr[11] = ihdr[12] = 0; /* deflate, adaptive filters, no interlace */
    errno = 0;
    if (z == 0 || z > 0x7fffffffu) {
        formac__set_err(err, errlen, "'%s': image too large for one PNG chunk",
                        path);
    } else if (fwrite(sig, 1, 8, f) != 8 || put_chunk(f, "IHDR", ihdr, 13) ||
               put_chunk(f, "IDAT", packed, z) || put_chunk(f, "IEND", NULL, 0)) {
        formac__set_err(err, errlen, "'%s': write error: %s", path,
                        strerror(errno ? errno : EIO));
    } else {
        r = 0;
    }
done:
    free(filtered);
    free(packed);
    return r;
}
