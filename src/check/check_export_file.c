/* Writing a verdict export to a file (check_export.h). */
#include <stdio.h>

#include "check/check_export.h"
#include "core/out_file.h"

int nvs_check_write_file(const char *who, const char *path,
                         int (*print)(FILE *, const nvs_export_info *, const nvs_verdicts *),
                         const nvs_export_info *info, const nvs_verdicts *vs)
{
    nvs_outfile o;
    if (nvs_outfile_open(&o, path) != NVS_OK) return 1; /* it said why */
    if (print(o.f, info, vs)) {
        nvs_outfile_discard(&o);
        fprintf(stderr, "nvscale %s: cannot write %s\n", who, path);
        return 1;
    }
    return nvs_outfile_commit(&o) == NVS_OK ? 0 : 1;
}
