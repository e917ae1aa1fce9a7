/* formac_timer.c — see formac_timer.h. */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 199309L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#endif

#include "formac_timer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double formac_now_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void* pa, const void* pb)
{
    double a = *(const double*)pa, b = *(const double*)pb;
    int na = a != a, nb = b != b;
    if (na || nb)
        return na - nb; /* NaN sorts last */
    return (a > b) - (a < b);
}

double formac_median_inplace(double* values, size_t n)
{
    if (!values || n == 0)
        return NAN;
    qsort(values, n, sizeof *values, cmp_double);
    if (n % 2)
        return values[n / 2];
    return 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double formac_median(const double* values, size_t n)
{
    double small[64];
    double* tmp;
    double m;
    if (!values || n == 0)
        return NAN;
    tmp = n <= sizeof small / sizeof small[0]
              ? small
              : (double*)malloc(n * sizeof *values);
    if (!tmp)
        return NAN;
    memcpy(tmp, values, n * sizeof *values);
    m = formac_median_inplace(tmp, n);
    if (tmp != small)
        free(tmp);
    return m;
}
