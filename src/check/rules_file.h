/* A rules file into a ruleset (rules_file.c). */
#ifndef NVS_RULES_FILE_H
#define NVS_RULES_FILE_H

#include "check/rules.h"

/* Appends the rules of `path` to rs. Returns the exit code: 0, 2 (unreadable or malformed: "FILE:LINE: why" on
 * stderr), 1 (out of memory). `who` names the subcommand in messages. */
int nvs_rules_load(const char *who, const char *path, nvs_ruleset *rs);

#endif
