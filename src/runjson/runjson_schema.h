/* The schema name every run.json carries and every reader requires (docs/run-json.md). One place only. */
#ifndef NVS_RUNJSON_SCHEMA_H
#define NVS_RUNJSON_SCHEMA_H

#define NVS_RUN_SCHEMA "nvscale.run/1"
/* A run.json of a 1024-GPU sweep is a few MB: a file over 256 MiB is not one. */
#define NVS_RUN_MAX_BYTES ((size_t)256 << 20)

#endif
