/* formac_formats_missing.c — the JPEG and TIFF entry points of a runtime built
 * without libjpeg (FORMAC_NO_JPEG) or libtiff (FORMAC_NO_TIFF): an error that
 * names what is missing, so that formac and the runtime still build where only
 * libpng is (a GPU machine without the -dev packages). */
#include "formac_image_internal.h"

#if defined(FORMAC_NO_JPEG) || defined(FORMAC_NO_TIFF)
static int missing(const char* path, const char* lib, char* err, size_t errlen)
{
    formac__set_err(err, errlen, "'%s': this formac was built without %s (Debian: %s-dev)", path, lib,
                    lib);
    return 1;
}
#endif

#ifdef FORMAC_NO_JPEG
int formac__read_jpeg(FILE* f, const char* path, formac_image* out, char* err, size_t errlen)
{
    (void)f;
    (void)out;
    return missing(path, "libjpeg", err, errlen);
}
int formac__write_jpeg(FILE* f, const char* path, const formac_image* img, char* err,
                       size_t errlen)
{
    (void)f;
    (void)img;
    return missing(path, "libjpeg", err, errlen);
}
#endif

#ifdef FORMAC_NO_TIFF
int formac__read_tiff(const char* path, formac_image* out, int all_pages, char* err, size_t errlen)
{
    (void)out;
    (void)all_pages;
    return missing(path, "libtiff", err, errlen);
}
int formac__write_tiff(const char* path, const formac_image* img, char* err, size_t errlen)
{
    (void)img;
    return missing(path, "libtiff", err, errlen);
}
#endif

#if !defined(FORMAC_NO_JPEG) && !defined(FORMAC_NO_TIFF)
typedef int formac__every_format_is_there; /* ISO C: a translation unit is not empty */
#endif
