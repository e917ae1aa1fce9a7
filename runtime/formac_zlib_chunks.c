/* formac_zlib_chunks.c — one zlib stream from chunks compressed in parallel
 * (pigz's method): each thread takes the next chunk, fills it, takes its
 * Adler-32 and compresses it (formac_deflate.c) into its own piece, which
 * ends byte-aligned; the Adler-32s are combined in chunk order at the end. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "formac_deflate.h"

#ifdef FORMAC_HAVE_LIBDEFLATE
#include <libdeflate.h>
#define ADLER32(a, p, n) libdeflate_adler32((a), (p), (n))
#else
#define ADLER32(a, p, n) (uint32_t)adler32((a), (p), (uInt)(n)) /* n: one chunk, < 2^32 */
#endif

#define MAX_THREADS 64

typedef struct {
    size_t n, chunk, chunks, next;
    formac_fill_fn fill;
    void* ctx;
    formac_piece* pieces;
    uint32_t* adlers;
    int failed;
    pthread_mutex_t lock;
} job_list;

/* The next chunk to do, or `chunks` when none is left or one failed. */
static size_t take(job_list* j, int failed)
{
    size_t c;
    pthread_mutex_lock(&j->lock);
    j->failed |= failed;
    c = j->failed ? j->chunks : j->next++;
    pthread_mutex_unlock(&j->lock);
    return c < j->chunks ? c : j->chunks;
}

static size_t chunk_size(const job_list* j, size_t c)
{
    return j->n - c * j->chunk < j->chunk ? j->n - c * j->chunk : j->chunk;
}

/* The zlib header before the first chunk's blocks, room for the Adler-32
 * after the last's. */
static int do_chunk(job_list* j, size_t c, formac_deflater* d, unsigned char* in)
{
    size_t n = chunk_size(j, c), head = c == 0 ? 2 : 0;
    unsigned char* out = (unsigned char*)malloc(head + formac__deflate_bound(n) + 4);
    if (!out || (n && j->fill(j->ctx, c * j->chunk, n, in))) {
        free(out);
        return 1;
    }
    if (head) { /* deflate, 32 KiB window; FCHECK makes 0x7801 a multiple of 31 */
        out[0] = 0x78;
        out[1] = 0x01;
    }
    j->adlers[c] = ADLER32(1, in, n);
    j->pieces[c].data = out;
    j->pieces[c].size = head + formac__deflate_chunk(d, in, n, c + 1 == j->chunks, out + head);
    return 0;
}

static void* worker(void* arg)
{
    job_list* j = (job_list*)arg;
    formac_deflater* d = formac__deflater_new();
    unsigned char* in = (unsigned char*)malloc(j->chunk);
    size_t c;
    for (c = take(j, !d || !in); c < j->chunks; c = take(j, do_chunk(j, c, d, in)))
        ;
    formac__deflater_free(d);
    free(in);
    return NULL;
}

static void put_be32(unsigned char* p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

size_t formac__zlib_chunks(size_t n, size_t chunk, int threads,
                           formac_fill_fn fill, void* ctx,
                           formac_piece** pieces)
{
    job_list j;
    pthread_t tid[MAX_THREADS];
    int started = 0, t;
    size_t c;
    uint32_t adler = 1;
    j.n = n;
    j.chunk = chunk ? chunk : 1;
    j.chunks = n ? (n - 1) / j.chunk + 1 : 1;
    j.next = 0;
    j.fill = fill;
    j.ctx = ctx;
    j.failed = 0;
    j.pieces = (formac_piece*)calloc(j.chunks, sizeof(formac_piece));
    j.adlers = (uint32_t*)malloc(j.chunks * sizeof(uint32_t));
    *pieces = NULL;
    if (!j.pieces || !j.adlers || pthread_mutex_init(&j.lock, NULL)) {
        free(j.pieces);
        free(j.adlers);
        return 0;
    }
    if (threads <= 0)
        threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > j.chunks)
        threads = (int)j.chunks;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    /* This thread is one of them; a thread that cannot start leaves its share to the others. */
    for (t = 1; t < threads; t++)
        started += pthread_create(&tid[started], NULL, worker, &j) == 0;
    worker(&j);
    for (t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&j.lock);
    for (c = 0; c < j.chunks && !j.failed; c++)
        adler = c ? (uint32_t)adler32_combine(adler, j.adlers[c], (z_off_t)chunk_size(&j, c)) : j.adlers[0];
    free(j.adlers);
    if (j.failed) {
        formac__free_pieces(j.pieces, j.chunks);
        return 0;
    }
    put_be32(j.pieces[j.chunks - 1].data + j.pieces[j.chunks - 1].size, adler);
    j.pieces[j.chunks - 1].size += 4;
    *pieces = j.pieces;
    return j.chunks;
}

void formac__free_pieces(formac_piece* pieces, size_t count)
{
    size_t c;
    for (c = 0; pieces && c < count; c++)
        free(pieces[c].data);
    free(pieces);
}
