/* Acceptance rules (src/check/rules.c): the rules file of docs/check.md, and each line alone. */
#include "check/rules.h"
#include "fuzz/fuzz.h"

NVS_FUZZ_TARGET(rules)
{
    char *text = nvs_fuzz_text(data, size);
    if (!text) return 0;
    nvs_ruleset rs = {0};
    int line = 0;
    char err[512];
    nvs_rules_parse_text(text, "fuzz.rules", &rs, &line, err, sizeof err);
    nvs_ruleset_free(&rs);
    nvs_rule r;
    nvs_rule_parse_line(text, &r, err, sizeof err); /* the flags' path: one line, no header */
    free(text);
    return 0;
}
