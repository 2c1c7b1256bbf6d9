/* How many digits a verdict row prints, so that a value and its limit read as they compare. */
#ifndef NVS_CHECK_NUM_H
#define NVS_CHECK_NUM_H

#include <stddef.h>

/* Decimals for "%.*f", from `min` up (at most min + 9): the fewest with which a and b, when they differ, print
 * differently and their difference does not print as zero. With one decimal a FAIL row read
 * "1.7 GB/s >= 1.7 GB/s ... FAIL" (1.66 against 1.70 after rounding each). min for equal values or a NaN. */
int nvs_check_decimals(double a, double b, int min);

/* The same for significant digits ("%.*g"). */
int nvs_check_digits(double a, double b, int min);

/* A signed percentage, "+10.0%", with one significant digit where one decimal would round a non-zero value to
 * "-0.0%" ("-0.003%"). Returns buf. */
const char *nvs_check_pct(double pct, char *buf, size_t len);

#endif
