/* formac_deflate.c — a fast deflate (RFC 1951) compressor for one chunk:
 * greedy LZ77 with a one-entry hash table of 4-byte sequences (positions
 * inside a match are not entered: fast on long matches), dynamic Huffman
 * blocks of up to BLOCK_SYMS symbols whose code lengths are sent with a flat
 * 4-bit code (no run-length codes: ~160 bytes a block, simple), and an end
 * that lets the next chunk's bytes follow: an empty stored block, byte-aligned
 * (zlib's Z_SYNC_FLUSH), or the final block. A chunk references only its own
 * bytes, so chunks compress independently. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formac_deflate.h"

#define HASH_BITS 15
#define BLOCK_SYMS (1u << 16)
#define MAX_DIST 32768u
#define MAX_LEN 258u
#define MATCH_FLAG 0x80000000u /* a symbol: literal byte, or flag|len<<16|dist */
#define LITLEN 286
#define DISTS 30
#define MAX_BITS 15

struct formac_deflater {
    uint32_t head[1u << HASH_BITS]; /* position of a 4-byte sequence's last occurrence */
    uint16_t len_sym[MAX_LEN + 1];  /* length_code(len).code */
    uint32_t syms[BLOCK_SYMS];
    uint32_t lit_freq[LITLEN], dist_freq[DISTS];
};

typedef struct {
    unsigned char* out;
    size_t pos;
    uint64_t bits;
    unsigned nbits; /* < 32 between calls */
} bit_writer;

/* Adds the low n (<= 32) bits of v, first bit first. */
static inline void put_bits(bit_writer* w, uint32_t v, unsigned n)
{
    w->bits |= (uint64_t)v << w->nbits;
    w->nbits += n;
    if (w->nbits >= 32) {
        w->out[w->pos++] = (unsigned char)w->bits;
        w->out[w->pos++] = (unsigned char)(w->bits >> 8);
        w->out[w->pos++] = (unsigned char)(w->bits >> 16);
        w->out[w->pos++] = (unsigned char)(w->bits >> 24);
        w->bits >>= 32;
        w->nbits -= 32;
    }
}

/* Pads with zero bits to a byte boundary and writes out what is left. */
static void align_bytes(bit_writer* w)
{
    for (; w->nbits > 0; w->nbits = w->nbits > 8 ? w->nbits - 8 : 0) {
        w->out[w->pos++] = (unsigned char)w->bits;
        w->bits >>= 8;
    }
}

static unsigned floor_log2(uint32_t x) { return 31u - (unsigned)__builtin_clz(x); }

/* A length (3..258) or distance (1..32768) as its code, extra bits and
 * their value (RFC 1951 3.2.5). */
typedef struct {
    unsigned code, extra;
    uint32_t value;
} coded;

static coded length_code(unsigned len)
{
    unsigned l = len - 3, b;
    coded c = {257 + l, 0, 0};
    if (len == MAX_LEN) {
        c.code = 285;
    } else if (l >= 8) {
        b = floor_log2(l);
        c.code = 257 + 4 * (b - 1) + ((l >> (b - 2)) & 3);
        c.extra = b - 2;
        c.value = l & ((1u << (b - 2)) - 1);
    }
    return c;
}

static coded dist_code(unsigned dist)
{
    unsigned x = dist - 1, b;
    coded c = {x, 0, 0};
    if (x >= 4) {
        b = floor_log2(x);
        c.code = 2 * b + ((x >> (b - 1)) & 1);
        c.extra = b - 1;
        c.value = x & ((1u << (b - 1)) - 1);
    }
    return c;
}

static int by_key(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

/* Huffman code lengths (at most MAX_BITS) of n symbols from their
 * frequencies (at least two nonzero, sum < 2^22): minimum-redundancy
 * lengths computed in place (Moffat and Katajainen), then lengths over the
 * limit pushed down as zlib and miniz do, keeping the code complete. */
static void code_lengths(const uint32_t* freq, int n, unsigned char* len)
{
    uint32_t key[LITLEN], a[LITLEN];
    int count[64] = {0}, used = 0, i, root, leaf, next, avbl, depth, k;
    uint32_t total = 0;
    for (i = 0; i < n; i++) {
        len[i] = 0;
        if (freq[i])
            key[used++] = freq[i] << 9 | (uint32_t)i;
    }
    if (used < 2) /* two_used() sees to it */
        return;
    qsort(key, (size_t)used, sizeof key[0], by_key);
    for (i = 0; i < used; i++)
        a[i] = key[i] >> 9;
    /* a[] becomes the parents, then depths, then leaf depths (ascending freq). */
    a[0] += a[1];
    root = 0;
    leaf = 2;
    for (next = 1; next < used - 1; next++) {
        if (leaf >= used || a[root] < a[leaf]) {
            a[next] = a[root];
            a[root++] = (uint32_t)next;
        } else {
            a[next] = a[leaf++];
        }
        if (leaf >= used || (root < next && a[root] < a[leaf])) {
            a[next] += a[root];
            a[root++] = (uint32_t)next;
        } else {
            a[next] += a[leaf++];
        }
    }
    a[used - 2] = 0;
    for (next = used - 3; next >= 0; next--)
        a[next] = a[a[next]] + 1;
    avbl = 1;
    k = depth = 0;
    root = used - 2;
    next = used - 1;
    while (avbl > 0) {
        while (root >= 0 && (int)a[root] == depth) {
            k++;
            root--;
        }
        while (avbl > k) {
            a[next--] = (uint32_t)depth;
            avbl--;
        }
        avbl = 2 * k;
        depth++;
        k = 0;
    }
    for (i = 0; i < used; i++)
        count[a[i] < 63 ? a[i] : 63]++;
    for (i = MAX_BITS + 1; i < 64; i++) {
        count[MAX_BITS] += count[i];
        count[i] = 0;
    }
    for (i = MAX_BITS; i > 0; i--)
        total += (uint32_t)count[i] << (MAX_BITS - i);
    for (; total != 1u << MAX_BITS; total--) { /* Kraft sum over 1: lengthen */
        count[MAX_BITS]--;
        for (i = MAX_BITS - 1; i > 0; i--)
            if (count[i]) {
                count[i]--;
                count[i + 1] += 2;
                break;
            }
    }
    for (i = 1, k = used; i <= MAX_BITS; i++) /* shortest to the most frequent */
        for (; count[i] > 0; count[i]--)
            len[key[--k] & 511] = (unsigned char)i;
}

/* Canonical codes of the lengths, bit-reversed for LSB-first output. */
static void canonical_codes(const unsigned char* len, int n, uint16_t* code)
{
    uint16_t next[MAX_BITS + 2] = {0}, c = 0;
    int count[MAX_BITS + 1] = {0}, i, b;
    for (i = 0; i < n; i++)
        count[len[i]]++;
    count[0] = 0;
    for (b = 1; b <= MAX_BITS; b++) {
        c = (uint16_t)((c + count[b - 1]) << 1);
        next[b] = c;
    }
    for (i = 0; i < n; i++) {
        uint16_t v = len[i] ? next[len[i]]++ : 0, r = 0;
        for (b = 0; b < len[i]; b++)
            r = (uint16_t)(r << 1 | ((v >> b) & 1));
        code[i] = r;
    }
}

/* At least two codes with a nonzero frequency: a code of one symbol is
 * incomplete, which zlib rejects for literals/lengths. */
static void two_used(uint32_t* freq, int n)
{
    int i, used = 0;
    for (i = 0; i < n; i++)
        used += freq[i] != 0;
    for (i = 0; used < 2; i++)
        if (!freq[i]) {
            freq[i] = 1;
            used++;
        }
}

/* One dynamic-Huffman block (not final) of the first nsyms symbols. */
static void put_block(bit_writer* w, struct formac_deflater* d, size_t nsyms)
{
    static const unsigned char order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                            11, 4, 12, 3, 13, 2, 14, 1, 15};
    unsigned char len[LITLEN + DISTS];
    uint16_t code[LITLEN], dcode[DISTS];
    int nlit = LITLEN, ndist = DISTS, i;
    size_t s;
    d->lit_freq[256] = 1; /* end of block */
    two_used(d->lit_freq, LITLEN);
    two_used(d->dist_freq, DISTS);
    code_lengths(d->lit_freq, LITLEN, len);
    code_lengths(d->dist_freq, DISTS, len + LITLEN);
    canonical_codes(len, LITLEN, code);
    canonical_codes(len + LITLEN, DISTS, dcode);
    while (!len[nlit - 1])
        nlit--;
    while (!len[LITLEN + ndist - 1])
        ndist--;
    put_bits(w, 2 << 1, 3); /* not final, dynamic Huffman */
    put_bits(w, (uint32_t)(nlit - 257), 5);
    put_bits(w, (uint32_t)(ndist - 1), 5);
    put_bits(w, 19 - 4, 4);
    for (i = 0; i < 19; i++) /* code lengths 0..15 take 4 bits each; 16-18 unused */
        put_bits(w, order[i] < 16 ? 4 : 0, 3);
    for (i = 0; i < nlit + ndist; i++) { /* canonical 4-bit code of v is v, reversed */
        unsigned v = len[i < nlit ? i : LITLEN + i - nlit];
        put_bits(w, (v & 1) << 3 | (v & 2) << 1 | (v & 4) >> 1 | (v & 8) >> 3, 4);
    }
    for (s = 0; s < nsyms; s++) {
        uint32_t sym = d->syms[s];
        if (!(sym & MATCH_FLAG)) {
            put_bits(w, code[sym], len[sym]);
        } else {
            coded l = length_code((sym >> 16) & 511), x = dist_code(sym & 0xffff);
            put_bits(w, code[l.code], len[l.code]);
            put_bits(w, l.value, l.extra);
            put_bits(w, dcode[x.code], len[LITLEN + x.code]);
            put_bits(w, x.value, x.extra);
        }
    }
    put_bits(w, code[256], len[256]);
    memset(d->lit_freq, 0, sizeof d->lit_freq);
    memset(d->dist_freq, 0, sizeof d->dist_freq);
}

static uint32_t load32(const unsigned char* p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The length (up to max) of the common prefix of a and b. */
static size_t match_length(const unsigned char* a, const unsigned char* b, size_t max)
{
    size_t n = 0;
    while (n + 8 <= max) {
        uint64_t x, y;
        memcpy(&x, a + n, 8);
        memcpy(&y, b + n, 8);
        if (x != y)
            return n + (size_t)(__builtin_ctzll(x ^ y) >> 3); /* little-endian */
        n += 8;
    }
    while (n < max && a[n] == b[n])
        n++;
    return n;
}

size_t formac__deflate_bound(size_t n)
{
    /* A literal costs at most 15 bits, a match of 4 or more at most 48; a
     * block header at most 3+14+57+316*4 bits; the end at most 5 bytes. */
    return 2 * n + 170 * (n / BLOCK_SYMS + 1) + 16;
}

formac_deflater* formac__deflater_new(void)
{
    formac_deflater* d = (formac_deflater*)calloc(1, sizeof(formac_deflater));
    unsigned len;
    for (len = 3; d && len <= MAX_LEN; len++)
        d->len_sym[len] = (uint16_t)length_code(len).code;
    return d;
}

void formac__deflater_free(formac_deflater* d) { free(d); }

size_t formac__deflate_chunk(formac_deflater* d, const unsigned char* in, size_t n,
                             int last, unsigned char* out)
{
    bit_writer w = {out, 0, 0, 0};
    size_t p = 0, nsyms = 0;
    memset(d->head, 0, sizeof d->head);
    while (p < n) {
        size_t len = 0;
        if (p + 4 <= n) {
            uint32_t h = (load32(in + p) * 2654435761u) >> (32 - HASH_BITS);
            size_t cand = d->head[h];
            d->head[h] = (uint32_t)p;
            if (cand < p && p - cand <= MAX_DIST && load32(in + cand) == load32(in + p))
                len = 4 + match_length(in + cand + 4, in + p + 4,
                                       (n - p < MAX_LEN ? n - p : MAX_LEN) - 4);
            if (len) {
                d->syms[nsyms++] = MATCH_FLAG | (uint32_t)len << 16 | (uint32_t)(p - cand);
                d->lit_freq[d->len_sym[len]]++;
                d->dist_freq[dist_code((unsigned)(p - cand)).code]++;
            }
        }
        if (!len) {
            d->syms[nsyms++] = in[p];
            d->lit_freq[in[p]]++;
            len = 1;
        }
        p += len;
        if (nsyms == BLOCK_SYMS || (p == n && nsyms)) {
            put_block(&w, d, nsyms);
            nsyms = 0;
        }
    }
    if (last) /* an empty final block, fixed codes: BFINAL, BTYPE 01, end of block (7 zero bits) */
        put_bits(&w, 1 | 1 << 1, 10);
    else /* an empty stored block: BTYPE 00, aligned, LEN 0, NLEN 0xffff */
        put_bits(&w, 0, 3);
    align_bytes(&w);
    if (!last) {
        memcpy(out + w.pos, "\0\0\xff\xff", 4);
        w.pos += 4;
    }
    return w.pos;
}
