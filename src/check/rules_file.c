/* Reading a rules file for check and accept: the file's text through core/out_file.h's reader, the rules
 * through rules.c's parser, and what is wrong ("FILE:LINE: why") for the caller to print as its usage error. */
#include <stdio.h>
#include <stdlib.h>

#include "check/rules_file.h"
#include "core/out_file.h"

#define MAX_RULES_BYTES ((size_t)1 << 20) /* a rules file is a few lines; 1 MiB is not one */

int nvs_rules_load(const char *path, nvs_ruleset *rs, char *err, size_t errlen)
{
    char *text, why[256];
    int line;
    err[0] = '\0';
    if (nvs_read_text_file(path, MAX_RULES_BYTES, &text) != NVS_OK) return 2; /* it said why */
    int rc = nvs_rules_parse_text(text, path, rs, &line, why, sizeof why);
    free(text);
    if (rc == -2) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    if (rc) {
        if (line) snprintf(err, errlen, "%s:%d: %s", path, line, why);
        else snprintf(err, errlen, "%s: %s", path, why);
        return 2;
    }
    return 0;
}
