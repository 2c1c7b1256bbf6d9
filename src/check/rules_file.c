/* Reading a rules file for check and accept: the file's text through core/out_file.h's reader, the rules
 * through rules.c's parser, and one message "FILE:LINE: what is wrong" on stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "check/rules_file.h"
#include "core/out_file.h"

#define MAX_RULES_BYTES ((size_t)1 << 20) /* a rules file is a few lines; 1 MiB is not one */

int nvs_rules_load(const char *who, const char *path, nvs_ruleset *rs)
{
    char *text, err[256];
    int line;
    if (nvs_read_text_file(path, MAX_RULES_BYTES, &text) != NVS_OK) return 2; /* it said why */
    int rc = nvs_rules_parse_text(text, path, rs, &line, err, sizeof err);
    free(text);
    if (rc == -2) {
        fprintf(stderr, "nvscale %s: out of memory\n", who);
        return 1;
    }
    if (rc) {
        if (line) fprintf(stderr, "%s:%d: %s\n", path, line, err);
        else fprintf(stderr, "%s: %s\n", path, err);
        return 2;
    }
    return 0;
}
