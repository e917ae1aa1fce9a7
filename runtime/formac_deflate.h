/* formac_deflate.h — one zlib stream (RFC 1950/1951) compressed in parallel
 * chunks; internal to the runtime (PNG's IDAT), not installed. */
#ifndef FORMAC_DEFLATE_H
#define FORMAC_DEFLATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes bytes [at, at + n) of the stream to out; 0 on success. Called from
 * several threads at once, each with its own range. */
typedef int (*formac_fill_fn)(void* ctx, size_t at, size_t n,
                              unsigned char* out);

typedef struct {
    unsigned char* data;
    size_t size;
} formac_piece;

/* The zlib stream of an n-byte stream that `fill` produces: chunks of
 * `chunk` bytes (the last shorter; one empty chunk when n is 0) are filled
 * and compressed on up to `threads` threads (0: one per processor), each
 * chunk's deflate blocks ending byte-aligned, so that the pieces, in order,
 * are one zlib stream: the first starts with its header, the last ends with
 * the final block and the Adler-32 of the stream. *pieces gets one piece a
 * chunk; returns their count, 0 when memory or `fill` failed. */
size_t formac__zlib_chunks(size_t n, size_t chunk, int threads,
                           formac_fill_fn fill, void* ctx,
                           formac_piece** pieces);
void formac__free_pieces(formac_piece* pieces, size_t count);

/* One chunk (formac_deflate.c): raw deflate blocks of in[0, n), referring
 * only to in, at out (room for formac__deflate_bound(n) bytes), ending
 * byte-aligned with an empty stored block (last == 0: more follows) or with
 * an empty final block. Returns the bytes written. A deflater holds the
 * matcher's tables; one per thread. */
typedef struct formac_deflater formac_deflater;
formac_deflater* formac__deflater_new(void);
void formac__deflater_free(formac_deflater* d);
size_t formac__deflate_bound(size_t n);
size_t formac__deflate_chunk(formac_deflater* d, const unsigned char* in,
                             size_t n, int last, unsigned char* out);

#ifdef __cplusplus
}
#endif

#endif /* FORMAC_DEFLATE_H */
