/* Parsing and printing of sizes and numbers typed by users (PURE: no CUDA/MPI). The ONE parser of numbers for
 * flags, environment variables and input files (profiles, rules, presets): decimal only.
 *
 *   numbers  [-]digits[.digits][e[+-]digits] (".5" and "5." too): no '+', no blanks, no hex ("0x10"), no
 *            "inf"/"nan", no K/M suffix, nothing that overflows or underflows a double (strtod's ERANGE).
 *   integers [-]digits, within a long.
 *   sizes    digits with an optional K/M/G/T (binary, 1K = 1024 bytes, as nccl-tests) and an optional trailing
 *            "B" or "iB"; no sign.
 *   lists    comma-separated items, none empty ("a,,b", ",a" and "a," are refused).
 * Lines of input files are at most NVS_LINE_MAX characters (each parser names the line that is longer). */
#ifndef NVS_UNITS_H
#define NVS_UNITS_H

#include <stddef.h>

/* Characters per line of every line-oriented input (profiles, rules, presets): their longest real lines are
 * under 200; a longer line is refused with its number, never cut. */
#define NVS_LINE_MAX 4096

/* Why a number was refused (NVS_NUM_OK = 0 when it was not). */
typedef enum {
    NVS_NUM_OK = 0,
    NVS_NUM_EMPTY,    /* "" */
    NVS_NUM_NEGATIVE, /* "-1" where only non-negative numbers are allowed */
    NVS_NUM_SUFFIX,   /* "25M": a unit suffix on a plain number */
    NVS_NUM_SYNTAX,   /* "0x10", "1,5", "abc", " 1", "+1", "inf" */
    NVS_NUM_RANGE,    /* "1e400": too large for a double */
    NVS_NUM_TINY,     /* "1e-400": not 0, but below the smallest normal double (underflow) */
} nvs_num_status;

/* A non-negative decimal number (profiles' rule: no sign at all). */
nvs_num_status nvs_parse_decimal(const char *s, double *out);
/* "not a finite decimal number" etc.: for messages */
const char *nvs_num_status_text(nvs_num_status st);

/* 0 on success; -1 if `s` is not a size (empty, junk, negative, overflow). */
int nvs_parse_size(const char *s, size_t *out);
/* For a size nvs_parse_size refused that is a decimal number of bytes with an optional K/M/G/T ("1.5M", "0.5G",
 * "1e6": nccl-tests 2.19.6 reads its sizes with sscanf "%lf" and takes them, src/common.cu parsesize): 1 with the
 * bytes in *bytes (the command line takes them then, as nccl-tests does) and "sizes are whole bytes with an optional
 * K/M/G/T suffix (powers of 1024): write 1536K" in buf, or the same saying it is no whole number of bytes (*bytes 0);
 * 0 for anything else (junk, negative). */
int nvs_size_hint(const char *s, size_t *bytes, char *buf, size_t len);
/* A size as every size of nvscale's is read (the command line's -b/-e/-i, --bucket-first/--bucket-cap, --copy-bytes,
 * `model`'s bucket flags, a rules file's size key): what nvs_parse_size takes, or a decimal number of bytes that
 * nvs_size_hint finds whole ("1.5M" is 1572864, as nccl-tests 2.19.6 parsesize reads it), or a decimal zero ("0.0"
 * is 0, as "0" is, so that the caller's range check words both alike). 0 with *out; -1 otherwise,
 * with why set to nvs_size_hint's words when it is a decimal that is no whole number of bytes ("1.3K"), else to ""
 * (the caller says what it expected). The caller checks the range. */
int nvs_parse_size_whole(const char *s, size_t *out, char *why, size_t wl);
/* Strict integer/double parsing as above, an optional leading '-' allowed: the whole string must be consumed.
 * 0 on success, -1 otherwise. Callers check the range. "-0" gives +0 (no negative zero to print). */
int nvs_parse_long(const char *s, long *out);
int nvs_parse_double(const char *s, double *out);
/* A percentage, every percentage flag's and rules key's alike: a number as nvs_parse_double reads it, with an
 * optional trailing '%' ("5", "5%", "2.5%"; "%" alone and "5%%" are refused). 0 with *out (5 for "5%"), -1
 * otherwise. Callers check the range. */
int nvs_parse_percent(const char *s, double *out);
/* "1 GiB", "256 MiB", "8 B": exact binary unit when it divides, else bytes. Returns buf. */
char *nvs_format_size(size_t bytes, char *buf, size_t len);

/* Splits a comma-separated list: *copy gets a malloc'd copy of `s` (free it, also on failure), items[] point
 * into it. Returns the number of items, or -1 with the reason in err: an empty list, an empty item, more than
 * `max` items. */
int nvs_list_split(const char *s, char **copy, char **items, int max, char *err, size_t errlen);

#endif
