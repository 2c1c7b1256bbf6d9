/* Reading a run.json (schema nvscale.run/1, docs/run-json.md) into nvs_ck_run, for check and compare.
 * Every field used is validated; a bad file gives one message naming the field ("collectives[3].n: expected an
 * integer >= 1") and NVS_ERR_INPUT (exit 2). Fields this reader does not use are not looked at.
 * (A small private reader, written before the shared src/runjson.[ch] existed: see docs/check.md.) */
#ifndef NVS_CHECK_READ_H
#define NVS_CHECK_READ_H

#include <stddef.h>

#include "check/check_run.h"
#include "core/err.h"
#include "runjson/runjson_schema.h"


/* Parse run.json text. `name` is used in messages. On error: NVS_ERR_INPUT with the message in err. */
nvs_result_t nvs_ck_parse_run(const char *text, const char *name, nvs_ck_run *out, char *err, size_t errlen);
/* Read and parse a file; logs "nvscale check: FILE: message" itself. */
nvs_result_t nvs_ck_read_run(const char *path, const char *who, nvs_ck_run *out);

#endif
