/* formac_timer.h — wall-clock timing helpers for benchmarks and demo apps.
 * Plain C99. */
#ifndef FORMAC_TIMER_H
#define FORMAC_TIMER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds from an arbitrary fixed point, from CLOCK_MONOTONIC (never goes
 * backwards; only differences are meaningful). */
double formac_now_seconds(void);

/* Median of values[0..n-1] (mean of the two middle values when n is even).
 * The input is not modified. Returns NAN when n == 0, values is NULL, or a
 * scratch copy cannot be allocated. NaN inputs sort last. */
double formac_median(const double* values, size_t n);

/* Same, but sorts values[0..n-1] in place and allocates nothing. */
double formac_median_inplace(double* values, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* FORMAC_TIMER_H */
