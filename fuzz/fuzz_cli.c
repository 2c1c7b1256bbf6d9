/* The command line of the measuring subcommands (src/cli/options.c): every flag's value through the one number
 * parser and list splitter (core/units.h). The input is split at NUL bytes into argv; its first byte picks the
 * subcommand. Nothing runs: only nvs_config_parse and its checks. */
#include "core/config.h"
#include "fuzz/fuzz.h"

#define MAX_ARGS 64

NVS_FUZZ_TARGET(cli)
{
    static const char *const subs[] = {"run", "coll", "train", "topo", "p2p"};
    nvs_fuzz_sink();
    if (!size) return 0;
    char *text = nvs_fuzz_text(data + 1, size - 1);
    if (!text) return 0;
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = (char *)subs[data[0] % (sizeof subs / sizeof subs[0])];
    for (char *p = text; argc < MAX_ARGS && p <= text + (size - 1); p += strlen(p) + 1) argv[argc++] = p;
    argv[argc] = NULL;
    nvs_config c;
    nvs_config_defaults(&c);
    int help = 0;
    FILE *saved = stdout; /* --help prints to stdout */
    stdout = nvs_fuzz_sink();
    nvs_config_parse(&c, argv[0], argc, argv, &help);
    stdout = saved;
    free(text);
    return 0;
}
