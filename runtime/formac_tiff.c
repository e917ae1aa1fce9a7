/* formac_tiff.c — TIFF through libtiff: 8- and 16-bit unsigned and 32-bit
 * float samples, 1 to 4 channels interleaved (min-is-black gray, RGB; a
 * second or fourth channel is alpha), strips or tiles, any compression
 * libtiff decodes; every page of a multi-page file into img->pages. Writes
 * uncompressed strips, one page per img->pages. libtiff's messages go into
 * the error string, never to stderr. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "formac_image_internal.h"

typedef struct {
    char msg[200];
} tiff_msg;

static int tiff_error_cb(TIFF* t, void* user, const char* module,
                         const char* fmt, va_list ap)
{
    tiff_msg* m = (tiff_msg*)user;
    (void)t;
    (void)module;
    if (m->msg[0] == '\0')
        vsnprintf(m->msg, sizeof m->msg, fmt, ap);
    return 1;
}

static int tiff_quiet_cb(TIFF* t, void* user, const char* module,
                         const char* fmt, va_list ap)
{
    (void)t, (void)user, (void)module, (void)fmt, (void)ap;
    return 1;
}

static TIFF* tiff_open(const char* path, const char* mode, tiff_msg* m)
{
    TIFFOpenOptions* o = TIFFOpenOptionsAlloc();
    TIFF* t;
    if (!o)
        return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(o, tiff_error_cb, m);
    TIFFOpenOptionsSetWarningHandlerExtR(o, tiff_quiet_cb, NULL);
    t = TIFFOpenExt(path, mode, o);
    TIFFOpenOptionsFree(o);
    return t;
}

/* One page's layout. */
typedef struct {
    uint32_t w, h;
    uint16_t channels, bits, format, planar, photometric;
} tiff_page;

static int page_layout(TIFF* t, tiff_page* p, char* why, size_t whylen)
{
    memset(p, 0, sizeof *p);
    if (!TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &p->w) ||
        !TIFFGetField(t, TIFFTAG_IMAGELENGTH, &p->h)) {
        snprintf(why, whylen, "no image size");
        return 1;
    }
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &p->channels);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &p->bits);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &p->format);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &p->planar);
    if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &p->photometric))
        p->photometric = p->channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    if (p->channels < 1 || p->channels > 4) {
        snprintf(why, whylen, "%u channels (formac reads 1 to 4)", p->channels);
        return 1;
    }
    if (!((p->bits == 8 || p->bits == 16) && p->format == SAMPLEFORMAT_UINT) &&
        !(p->bits == 32 && p->format == SAMPLEFORMAT_IEEEFP)) {
        snprintf(why, whylen,
                 "%u-bit %s samples (formac reads 8- and 16-bit unsigned "
                 "and 32-bit float)",
                 p->bits, p->format == SAMPLEFORMAT_IEEEFP ? "float"
                          : p->format == SAMPLEFORMAT_INT  ? "signed"
                                                           : "unsigned");
        return 1;
    }
    if (p->planar != PLANARCONFIG_CONTIG && p->channels > 1) {
        snprintf(why, whylen, "separate colour planes are not supported");
        return 1;
    }
    if (p->photometric != PHOTOMETRIC_MINISBLACK &&
        p->photometric != PHOTOMETRIC_RGB) {
        snprintf(why, whylen,
                 "photometric interpretation %u (formac reads min-is-black "
                 "gray and RGB)",
                 p->photometric);
        return 1;
    }
    return 0;
}

static formac_pixel_type page_type(const tiff_page* p)
{
    return p->bits == 8 ? FORMAC_U8 : p->bits == 16 ? FORMAC_U16 : FORMAC_F32;
}

/* Copies a page's pixels into `dst` (w*h*channels samples, row-major). */
static int read_page(TIFF* t, const tiff_page* p, unsigned char* dst)
{
    size_t px = (size_t)p->channels * (p->bits / 8);
    size_t row = (size_t)p->w * px;
    if (TIFFIsTiled(t)) {
        uint32_t tw = 0, th = 0, x, y, r;
        unsigned char* tile;
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &th);
        if (tw == 0 || th == 0 || (tmsize_t)((size_t)tw * th * px) != TIFFTileSize(t))
            return 1;
        tile = (unsigned char*)malloc((size_t)TIFFTileSize(t));
        if (!tile)
            return 1;
        for (y = 0; y < p->h; y += th)
            for (x = 0; x < p->w; x += tw) {
                uint32_t cw = p->w - x < tw ? p->w - x : tw;
                if (TIFFReadTile(t, tile, x, y, 0, 0) < 0) {
                    free(tile);
                    return 1;
                }
                for (r = 0; r < th && y + r < p->h; r++)
                    memcpy(dst + (size_t)(y + r) * row + (size_t)x * px,
                           tile + (size_t)r * tw * px, (size_t)cw * px);
            }
        free(tile);
        return 0;
    }
    if ((size_t)TIFFScanlineSize(t) != row)
        return 1;
    {
        uint32_t y;
        for (y = 0; y < p->h; y++)
            if (TIFFReadScanline(t, dst + (size_t)y * row, y, 0) < 0)
                return 1;
    }
    return 0;
}

int formac__read_tiff(const char* path, formac_image* out, int all_pages,
                      char* err, size_t errlen)
{
    tiff_msg m;
    tiff_page first, p;
    TIFF* t;
    char why[160];
    size_t page_bytes;
    int pages, k;
    memset(&m, 0, sizeof m);
    t = tiff_open(path, "r", &m);
    if (!t) {
        formac__set_err(err, errlen, "'%s': invalid TIFF file: %s", path,
                        m.msg[0] ? m.msg : "cannot open");
        return 1;
    }
    pages = all_pages ? (int)TIFFNumberOfDirectories(t) : 1;
    if (pages < 1 || page_layout(t, &first, why, sizeof why)) {
        formac__set_err(err, errlen, "'%s': unsupported TIFF: %s", path,
                        pages < 1 ? "no pages" : why);
        TIFFClose(t);
        return 1;
    }
    if (formac__checked_samples(first.w, first.h, first.channels, pages) == 0 ||
        formac_image_alloc_pages(out, (int)first.w, (int)first.h, pages,
                                 first.channels, page_type(&first))) {
        formac__set_err(err, errlen,
                        "'%s': image too large (%lux%lu, %d page%s, %u "
                        "channel%s; at most 2^31 samples) or out of memory",
                        path, (unsigned long)first.w, (unsigned long)first.h,
                        pages, pages == 1 ? "" : "s", first.channels,
                        first.channels == 1 ? "" : "s");
        TIFFClose(t);
        return 1;
    }
    page_bytes = formac_image_bytes(out) / (size_t)pages;
    for (k = 0; k < pages; k++) {
        if (k > 0 && (!TIFFSetDirectory(t, (tdir_t)k) ||
                      page_layout(t, &p, why, sizeof why) || p.w != first.w ||
                      p.h != first.h || p.channels != first.channels ||
                      p.bits != first.bits || p.format != first.format)) {
            formac__set_err(err, errlen,
                            "'%s': page %d differs from page 0 in size or "
                            "layout (a 3-D volume needs equal pages)",
                            path, k);
            break;
        }
        if (read_page(t, &first, (unsigned char*)out->data + k * page_bytes)) {
            formac__set_err(err, errlen, "'%s': corrupt TIFF data%s%s", path,
                            m.msg[0] ? ": " : "", m.msg);
            break;
        }
    }
    TIFFClose(t);
    if (k < pages) {
        formac_image_free(out);
        return 1;
    }
    return 0;
}

int formac__write_tiff(const char* path, const formac_image* img, char* err,
                       size_t errlen)
{
    tiff_msg m;
    TIFF* t;
    int pages = img->pages > 1 ? img->pages : 1, k, bad = 0;
    size_t es = formac_pixel_type_size(img->type);
    size_t row = (size_t)img->width * (size_t)img->channels * es;
    uint16_t extra = 1;
    uint32_t y;
    memset(&m, 0, sizeof m);
    t = tiff_open(path, "w", &m);
    if (!t) {
        formac__set_err(err, errlen, "cannot open '%s' for writing: %s", path,
                        m.msg[0] ? m.msg : "libtiff failed");
        return 1;
    }
    for (k = 0; k < pages && !bad; k++) {
        const unsigned char* page = (const unsigned char*)img->data +
                                    (size_t)k * row * (size_t)img->height;
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)img->height);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)img->channels);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, (uint16_t)(es * 8));
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT,
                     img->type == FORMAC_F32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC,
                     img->channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
        if (img->channels == 2 || img->channels == 4) /* unassociated alpha */
            TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
        if (pages > 1) {
            TIFFSetField(t, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
            TIFFSetField(t, TIFFTAG_PAGENUMBER, (uint16_t)k, (uint16_t)pages);
        }
        for (y = 0; y < (uint32_t)img->height && !bad; y++)
            bad = TIFFWriteScanline(t, (void*)(page + (size_t)y * row), y, 0) < 0;
        bad = bad || !TIFFWriteDirectory(t);
    }
    TIFFClose(t);
    if (bad) {
        formac__set_err(err, errlen, "'%s': write error%s%s", path,
                        m.msg[0] ? ": " : "", m.msg);
        remove(path);
    }
    return bad;
}
