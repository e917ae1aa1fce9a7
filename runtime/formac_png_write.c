/* formac_png_write.c — PNG writing for speed: every row takes the Up filter
 * (one subtraction a byte) and the filtered rows, as one byte stream, are
 * compressed in 1 MiB chunks on every processor (formac_zlib_chunks.c,
 * formac_deflate.c: greedy LZ77 and dynamic Huffman codes), each chunk's
 * piece of the zlib stream in an IDAT chunk of its own. The file is one IHDR,
 * the IDATs, one IEND. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formac_deflate.h"
#include "formac_image_internal.h"

#ifdef FORMAC_HAVE_LIBDEFLATE
#include <libdeflate.h>

static uint32_t png_crc(uint32_t crc, const void* p, size_t n)
{
    return libdeflate_crc32(crc, p, n);
}
#else
#include <zlib.h>

static uint32_t png_crc(uint32_t crc, const void* p, size_t n)
{
    return (uint32_t)crc32(crc, (const Bytef*)p, (uInt)n); /* n < 2^31: one chunk */
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

static size_t row_bytes(const formac_image* img)
{
    return (size_t)img->width * (size_t)img->channels * (img->type == FORMAC_U16 ? 2 : 1);
}

/* a - b byte by byte (mod 256), eight bytes at once: no borrow crosses a
 * byte (Hacker's Delight 2-18). */
static uint64_t sub_bytes(uint64_t a, uint64_t b)
{
    const uint64_t h = 0x8080808080808080u;
    return ((a | h) - (b & ~h)) ^ ((a ^ ~b) & h);
}

/* Filtered row y: its filter byte (2, Up) and its bytes (samples
 * big-endian) minus those of the row above (0 above the first). The
 * difference is taken byte by byte on the samples as stored, 16-bit ones
 * then swapped to big-endian where the host is little-endian. */
static void filter_row(const formac_image* img, size_t y, unsigned char* row)
{
    const uint16_t one = 1;
    size_t n = row_bytes(img), i;
    const unsigned char* cur = (const unsigned char*)img->data + y * n;
    const unsigned char* up = cur - n; /* read only below the first row */
    int swap = img->type == FORMAC_U16 && *(const unsigned char*)&one;
    row[0] = 2;
    for (i = 0; i + 8 <= n; i += 8) {
        uint64_t c, u = 0, d;
        memcpy(&c, cur + i, 8);
        if (y)
            memcpy(&u, up + i, 8);
        d = sub_bytes(c, u);
        if (swap)
            d = (d & 0x00ff00ff00ff00ffu) << 8 | ((d >> 8) & 0x00ff00ff00ff00ffu);
        memcpy(row + 1 + i, &d, 8);
    }
    for (; i < n; i++) /* i even where swapped: pairs stay whole */
        row[1 + i] = (unsigned char)(cur[i ^ (size_t)swap] - (y ? up[i ^ (size_t)swap] : 0));
}

/* formac_fill_fn: bytes [at, at + n) of the filtered rows; a row cut by
 * the range is filtered whole into a row of its own first. */
static int fill_filtered(void* ctx, size_t at, size_t n, unsigned char* out)
{
    const formac_image* img = (const formac_image*)ctx;
    size_t len = row_bytes(img) + 1, end = at + n;
    unsigned char* whole = NULL;
    while (at < end) {
        size_t y = at / len, from = at % len, take = len - from < end - at ? len - from : end - at;
        if (take == len) {
            filter_row(img, y, out);
        } else {
            if (!whole && !(whole = (unsigned char*)malloc(len)))
                return 1;
            filter_row(img, y, whole);
            memcpy(out, whole + from, take);
        }
        out += take;
        at += take;
    }
    free(whole);
    return 0;
}

/* The IDATs: one a piece. */
static int put_idats(FILE* f, const formac_piece* pieces, size_t count)
{
    size_t c;
    for (c = 0; c < count; c++)
        if (put_chunk(f, "IDAT", pieces[c].data, pieces[c].size))
            return 1;
    return 0;
}

int formac__write_png_chunked(FILE* f, const char* path, const formac_image* img,
                              size_t chunk, int threads, char* err, size_t errlen)
{
    static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    static const unsigned char color[5] = {0, 0, 4, 2, 6};
    unsigned char ihdr[13];
    formac_piece* pieces = NULL;
    size_t count = formac__zlib_chunks((row_bytes(img) + 1) * (size_t)img->height, chunk, threads,
                                       fill_filtered, (void*)img, &pieces);
    int r = 1;
    if (!count) {
        formac__set_err(err, errlen, "'%s': out of memory", path);
        return 1;
    }
    put_be32(ihdr, (uint32_t)img->width);
    put_be32(ihdr + 4, (uint32_t)img->height);
    ihdr[8] = img->type == FORMAC_U16 ? 16 : 8;
    ihdr[9] = color[img->channels];
    ihdr[10] = ihdr[11] = ihdr[12] = 0; /* deflate, adaptive filters, no interlace */
    errno = 0;
    if (fwrite(sig, 1, 8, f) != 8 || put_chunk(f, "IHDR", ihdr, 13) ||
        put_idats(f, pieces, count) || put_chunk(f, "IEND", NULL, 0))
        formac__set_err(err, errlen, "'%s': write error: %s", path, strerror(errno ? errno : EIO));
    else
        r = 0;
    formac__free_pieces(pieces, count);
    return r;
}

int formac__write_png(FILE* f, const char* path, const formac_image* img,
                      char* err, size_t errlen)
{
    return formac__write_png_chunked(f, path, img, (size_t)1 << 20, 0, err, errlen);
}
