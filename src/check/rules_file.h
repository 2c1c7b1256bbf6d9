/* A rules file into a ruleset (rules_file.c). */
#ifndef NVS_RULES_FILE_H
#define NVS_RULES_FILE_H

#include <stddef.h>

#include "check/rules.h"

/* Appends the rules of `path` to rs. Returns the exit code: 0; 2 when the file cannot be read (the reader printed
 * why; err is empty) or is malformed (err: "FILE:LINE: why", for the caller to print as a usage error of its
 * subcommand); 1 when out of memory (err says so). */
int nvs_rules_load(const char *path, nvs_ruleset *rs, char *err, size_t errlen);

#endif
