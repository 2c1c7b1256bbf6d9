/* Digits that tell two printed numbers apart (digits.h). */
#include "core/digits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int digits(double a, double b, int min, char conv)
{
    if (isnan(a) || isnan(b) || isinf(a) || isinf(b) || a == b) return min;
    const char *fm = conv == 'f' ? "%.*f" : "%.*g";
    for (int p = min; p < min + 9; p++) {
        char x[400], y[400], d[400];
        snprintf(x, sizeof x, fm, p, a);
        snprintf(y, sizeof y, fm, p, b);
        snprintf(d, sizeof d, fm, p, a - b);
        if (strcmp(x, y) && strtod(d, NULL) != 0) return p;
    }
    return min + 9;
}

int nvs_decimals_apart(double a, double b, int min) { return digits(a, b, min, 'f'); }

int nvs_digits_apart(double a, double b, int min) { return digits(a, b, min, 'g'); }

const char *nvs_signed_pct(double pct, char *buf, size_t len)
{
    snprintf(buf, len, pct != 0 && fabs(pct) < 0.05 ? "%+.1g%%" : "%+.1f%%", pct);
    return buf;
}
