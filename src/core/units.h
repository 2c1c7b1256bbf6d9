/* Parsing and printing of sizes and numbers typed by users (PURE: no CUDA/MPI).
 * Sizes follow nccl-tests: K/M/G/T are binary (1K = 1024 bytes), an optional trailing "B" or "iB" is accepted. */
#ifndef NVS_UNITS_H
#define NVS_UNITS_H

#include <stddef.h>

/* 0 on success; -1 if `s` is not a size (empty, junk, negative, overflow). */
int nvs_parse_size(const char *s, size_t *out);
/* Strict integer/double parsing: the whole string must be consumed. 0 on success, -1 otherwise. */
int nvs_parse_long(const char *s, long *out);
int nvs_parse_double(const char *s, double *out);
/* "1 GiB", "256 MiB", "8 B": exact binary unit when it divides, else bytes. Returns buf. */
char *nvs_format_size(size_t bytes, char *buf, size_t len);

#endif
