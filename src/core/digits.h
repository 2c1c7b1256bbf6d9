/* How many digits a printed number needs, so that it and another (a verdict's value and its limit, a report's two
 * values) read as they compare. */
#ifndef NVS_CORE_DIGITS_H
#define NVS_CORE_DIGITS_H

#include <stddef.h>

/* Decimals for "%.*f", from `min` up (at most min + 9): the fewest with which a and b, when they differ, print
 * differently and their difference does not print as zero. With one decimal a FAIL row read
 * "1.7 GB/s >= 1.7 GB/s ... FAIL" (1.66 against 1.70 after rounding each). min for equal values or a NaN. */
int nvs_decimals_apart(double a, double b, int min);

/* The same for significant digits ("%.*g"). */
int nvs_digits_apart(double a, double b, int min);

/* A signed percentage, "+10.0%", with one significant digit where one decimal would round a non-zero value to
 * "-0.0%" ("-0.003%"). Returns buf. */
const char *nvs_signed_pct(double pct, char *buf, size_t len);

#endif
