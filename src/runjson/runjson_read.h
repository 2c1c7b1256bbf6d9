/* What the pieces of the run.json reader share, internal to src/runjson/ (callers use runjson.h): the validation
 * context a load carries, the typed getters every section reads through (runjson_get.c), and each group of
 * sections' reader (runjson_head.c, _topo.c, _coll.c, _train.c, _p2p.c, _health.c), which from_json (runjson.c)
 * calls in the file's order, each only while nothing has failed. */
#ifndef NVS_RUNJSON_READ_H
#define NVS_RUNJSON_READ_H

#include <stddef.h>

#include "runjson/runjson.h"

/* ---- validation context --------------------------------------------------------------------------------- */

typedef struct {
    const char *name; /* file name for messages */
    char *err;        /* where the message goes (NULL: log it) */
    size_t errlen;
    int failed;
    int nomem;
} vctx;

/* The load's failure, "FILE: message" (the first one only); a JSON value described for it; "PATH: expected
 * WHAT, got VALUE"; calloc that fails the load when memory runs out. */
void rj_fail(vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rj_describe(const json_t *j, char *buf, size_t len);
void rj_type_fail(vctx *v, const char *path, const char *expected, const json_t *got);
void *rj_alloc(vctx *v, size_t n, size_t size);

/* A key's path for messages, "prefix.key" or "prefix[i]", into a buffer of PATH_MAX_LEN bytes. */
#define PATH_MAX_LEN 160
const char *rj_kpath(char *buf, const char *prefix, const char *key);
const char *rj_ipath(char *buf, const char *prefix, size_t i);

/* The largest value any number of a run.json may hold: 2^53, the largest whole number a double holds exactly.
 * Far above every quantity in its unit (microseconds: 285 years; GB/s; elements; parameters); a hand-edited
 * 1e308 would otherwise flow into sums and ratios as inf ("inf%", "+inf pts" in check's verdicts). */
#define MAX_NUM 9007199254740992.0

/* The typed getters (runjson_get.c says each one's rule): the member `key` of `o`, whose path for messages is
 * prefix.key. Absent or null reads as not measured (NAN, NULL, dflt) or, where required, fails; a value of another
 * type or out of range fails, naming the path. */
double rj_num_in(vctx *v, const json_t *o, const char *key, const char *prefix, double lo, double hi);
double rj_num(vctx *v, const json_t *o, const char *key, const char *prefix, double lo);
double rj_bytes(vctx *v, const json_t *o, const char *key, const char *prefix);
long long rj_int(vctx *v, const json_t *o, const char *key, const char *prefix, long long lo, long long hi,
                 long long dflt, int required);
const char *rj_str(vctx *v, const json_t *o, const char *key, const char *prefix, int required);
int rj_bool(vctx *v, const json_t *o, const char *key, const char *prefix, int dflt);
json_t *rj_typed(vctx *v, const json_t *o, const char *key, const char *prefix, json_type type, int required);
json_t *rj_elem_obj(vctx *v, json_t *a, size_t i, const char *prefix, char *path);
nvs_run_kv *rj_kv(vctx *v, const json_t *o, const char *key, size_t *n);
int *rj_int_array(vctx *v, const json_t *o, const char *key, const char *prefix, long long lo, size_t *n);

/* ---- sections, in the order from_json reads them ------------------------------------------------------------ */

void rj_read_command(vctx *v, nvs_run *r);     /* runjson_head.c: tool, command, env, world, sweep, result */
void rj_read_ranks(vctx *v, nvs_run *r);       /* runjson_head.c */
void rj_read_sweep(vctx *v, nvs_run *r);       /* runjson_sweep.c: the sizes planned */
void rj_read_topology(vctx *v, nvs_run *r);    /* runjson_topo.c */
void rj_read_scaling(vctx *v, nvs_run *r);     /* runjson_coll.c */
void rj_read_collectives(vctx *v, nvs_run *r); /* runjson_coll.c */
void rj_read_transports(vctx *v, nvs_run *r);  /* runjson_coll.c */
void rj_read_train(vctx *v, nvs_run *r);       /* runjson_train.c: "train" and "trains" */
void rj_read_p2p(vctx *v, nvs_run *r);         /* runjson_p2p.c, host_copies included */
void rj_read_selftest(vctx *v, nvs_run *r);    /* runjson_health.c: gpu_selftest */
void rj_read_sustain(vctx *v, nvs_run *r);     /* runjson_health.c */
void rj_read_health(vctx *v, nvs_run *r);      /* runjson_health.c */
void rj_read_explain(vctx *v, nvs_run *r);     /* runjson_coll.c */

/* Whether any workload ("train" or "trains") has results (runjson_train.c; NVS_RUN_NEED_MEASURED asks it). */
int rj_has_train_results(const nvs_run *r);

#endif
