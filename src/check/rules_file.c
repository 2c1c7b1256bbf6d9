/* Reading a rules file for check and accept: the file's text through core/out_file.h's reader, the rules
 * through rules.c's parser (a rule that repeats a check already read refused: nvs_ruleset_same_check), and what is
 * wrong ("FILE:LINE: why") for the caller to print as its usage error. */
#include <stdio.h>
#include <stdlib.h>

#include "check/rules_file.h"
#include "core/out_file.h"
#include "health/health.h"

#define MAX_RULES_BYTES ((size_t)1 << 20) /* a rules file is a few lines; 1 MiB is not one */

int nvs_rules_load(const char *path, nvs_ruleset *rs, char *err, size_t errlen)
{
    char *text, why[256];
    int line;
    size_t before = rs->n;
    err[0] = '\0';
    if (nvs_read_text_file(path, MAX_RULES_BYTES, &text) != NVS_OK) return 2; /* it said why */
    path = nvs_input_name(path); /* "-": "standard input:3: ..." */
    int rc = nvs_rules_parse_text(text, path, rs, &line, why, sizeof why);
    free(text);
    /* two thresholds for one check, in this file or against the rules already read (an earlier file, a flag) */
    for (size_t i = before; !rc && i < rs->n; i++) {
        nvs_ruleset earlier = {rs->v, i, rs->cap};
        const nvs_rule *same = nvs_ruleset_same_check(&earlier, &rs->v[i]);
        if (same) {
            char where[300];
            nvs_rule_where(same, where, sizeof where);
            if (same->metric == NVS_RULE_HEALTH)
                snprintf(err, errlen, "%s:%d: health %s is judged by %s ('%s') already: one rule per health check (a "
                                      "health check has no threshold to set a warn and a fail level of)",
                         path, rs->v[i].line, same->health_check < 0 ? "*" : nvs_health_check_name(same->health_check),
                         where, same->text);
            else
                snprintf(err, errlen, "%s:%d: the same check as %s ('%s'): one threshold per check and severity", path,
                         rs->v[i].line, where, same->text);
            rs->n = before;
            return 2;
        }
    }
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
