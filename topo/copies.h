/* The copy measurements of every host brought together (copies_gather.c): each host's measuring rank (local
 * rank 0) has its GPU pairs (p2p.h) and/or host copies (h2d.h), or a reason why it measured nothing; rank 0
 * gets them all, placed in the gathered topology, and builds run.json's "p2p" section from them. */
#ifndef NVS_COPIES_H
#define NVS_COPIES_H

#include <jansson.h>

#include "topo/h2d.h"
#include "topo/p2p.h"

typedef struct {
    int has_pairs, has_host;  /* whether any host measured them */
    nvs_p2p_result pairs;     /* GPU indices of the gathered topology */
    nvs_h2d_result host;
    json_t *skipped;          /* [{"host": ..., "what": "p2p"|"host copies", "why": ...}] */
} nvs_copies;

/* Every rank calls it. `local` is this host's topology (NULL on ranks that do not measure), `pairs`/`host` what
 * this rank measured (NULL: nothing), `skip_what`/`skip_why` what it could not measure and why (NULL: nothing
 * skipped). On rank 0 `out` gets everything, placed in `global`; other ranks get an empty `out`. */
nvs_result_t nvs_copies_gather(nvs_rt *rt, const nvs_topology *local, const nvs_topology *global,
                               const nvs_p2p_result *pairs, const nvs_h2d_result *host, const char *skip_what,
                               const char *skip_why, nvs_copies *out);
void nvs_copies_free(nvs_copies *c);
/* run.json's "p2p" section: the pairs' fields (nvs_p2p_to_json) when pairs were measured, "host_copies" when
 * host copies were, "skipped" when some host skipped something. */
json_t *nvs_copies_to_json(const nvs_topology *global, const nvs_copies *c);
long long nvs_copies_wrong_total(const nvs_copies *c);

#endif
