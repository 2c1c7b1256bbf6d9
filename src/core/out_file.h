/* Output files appear whole or not at all: written to a temporary file beside the target, checked
 * (fflush, ferror, fsync, fclose), then renamed over it. A failure leaves no partial file behind. */
#ifndef NVS_OUT_FILE_H
#define NVS_OUT_FILE_H

#include <stdio.h>

#include "core/err.h"

typedef struct {
    char path[4096];
    char tmp[4200];
    FILE *f;
} nvs_outfile;

nvs_result_t nvs_outfile_open(nvs_outfile *o, const char *path);
nvs_result_t nvs_outfile_commit(nvs_outfile *o); /* closes; on failure removes the temp file */
void nvs_outfile_discard(nvs_outfile *o);

/* mkdir -p */
nvs_result_t nvs_mkdir_p(const char *dir);
/* rm -r of a directory nvscale made (symbolic links inside are removed, never followed). 0, or -1. */
int nvs_remove_tree(const char *dir);
/* Whole-file helpers. */
nvs_result_t nvs_write_text_file(const char *path, const char *text);
/* Reads a whole file (NUL-terminated, malloc'd) up to max_bytes; NVS_ERR_INPUT with a message if it cannot. */
nvs_result_t nvs_read_text_file(const char *path, size_t max_bytes, char **out);

#endif
