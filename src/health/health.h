/* GPU health facts and what they mean (PURE: no NVML, no CUDA, no MPI).
 *
 * topo/health_nvml.c reads the facts through NVML (dlopen) on every host: a snapshot of each GPU's counters
 * before the run and after it, samples taken while the run loads the GPU (clocks, throttle reasons,
 * temperature, power, PCIe link), and the XID events NVML delivered in between. They travel in run.json's
 * "health" section (health_json.c, health_json_read.c, docs/run-json.md) and are judged here (health_eval.c and
 * its checks) into findings with a severity, which `nvscale accept` and `nvscale check` turn into verdict rows.
 *
 * Unknown is never zero: a counter the GPU or driver does not report is -1 (integers) or NAN (doubles), written
 * as JSON null and shown as "unsupported". */
#ifndef NVS_HEALTH_H
#define NVS_HEALTH_H

#include <jansson.h>
#include <stddef.h>

#include "core/err.h"

#define NVS_HEALTH_MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS on current drivers (nvml.h) */
#define NVS_HEALTH_MAX_XIDS 16  /* distinct XID codes kept per GPU; more are counted in xid_other */

/* NVML's clock event ("throttle") reason bits, nvmlClocksEventReason* / nvmlClocksThrottleReason* in nvml.h
 * (docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html). */
#define NVS_CLK_GPU_IDLE 0x1ull
#define NVS_CLK_APP_CLOCKS 0x2ull
#define NVS_CLK_SW_POWER_CAP 0x4ull
#define NVS_CLK_HW_SLOWDOWN 0x8ull
#define NVS_CLK_SYNC_BOOST 0x10ull
#define NVS_CLK_SW_THERMAL 0x20ull
#define NVS_CLK_HW_THERMAL 0x40ull
#define NVS_CLK_HW_POWER_BRAKE 0x80ull
#define NVS_CLK_DISPLAY 0x100ull
/* the reasons that mean the hardware or its cooling is pulling the clocks down (dcgmi diag rejects them too) */
#define NVS_CLK_BAD (NVS_CLK_HW_SLOWDOWN | NVS_CLK_SW_THERMAL | NVS_CLK_HW_THERMAL | NVS_CLK_HW_POWER_BRAKE)

typedef struct {
    int link;       /* NVML link index */
    int active;     /* 1 active, 0 inactive, -1 unknown: NVML answered the state call with an error (read_errors) */
    long long replay, recovery, crc_flit, crc_data; /* nvmlNvLinkErrorCounter_t DL_*; -1 unsupported */
} nvs_health_link;

/* One reading of one GPU. */
typedef struct {
    int ecc_enabled;                                 /* 1 on, 0 off, -1 unsupported */
    long long ecc_corr_volatile, ecc_unc_volatile;   /* since the driver loaded */
    long long ecc_corr_aggregate, ecc_unc_aggregate; /* lifetime of the board */
    long long retired_sbe, retired_dbe;              /* retired pages by cause (pre-Ampere page retirement) */
    int retired_pending;                             /* 1 a retirement waits for a reboot, 0 no, -1 unsupported */
    long long remap_corr, remap_unc;                 /* remapped rows by cause (Ampere and later) */
    int remap_pending, remap_failure;                /* 1/0/-1 */
    long long clock_reasons;                         /* NVS_CLK_* bits now; -1 unsupported */
    int sm_mhz, sm_max_mhz, mem_mhz, mem_max_mhz;    /* -1 unsupported */
    int temp_c, temp_slowdown_c, temp_shutdown_c;    /* -1 unsupported */
    double power_w, power_limit_w, power_default_limit_w; /* NAN unsupported */
    int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width; /* -1 unsupported */
    /* the GPU's own top generation, whatever the slot (nvmlDeviceGetGpuMaxPcieLinkGeneration; pcie_max_gen is
     * GPU and slot together); -1 unknown: a driver without the call, or a run.json written before it was read */
    int pcie_gpu_max_gen;
    /* the GPU's own width, whatever the slot: Linux sysfs max_link_width (its Link Capabilities; topo_pci_sysfs.c);
     * -1 unknown (no sysfs entry, a run.json from before it was read): then the datasheet table (pcie_spec.c) */
    int pcie_gpu_max_width;
    long long pcie_replay;                           /* PCIe replay counter; -1 unsupported */
    int nlinks;                                      /* NVLink links probed; -1 NVLink state unsupported */
    nvs_health_link links[NVS_HEALTH_MAX_LINKS];
} nvs_health_snap;

/* What the sampler saw while the run was going. A sample is "busy" when the GPU's utilization is >= 50 %
 * (or, without utilization, when the idle reason is off). */
typedef struct {
    int samples, busy_samples;
    int sm_min_mhz, mem_min_mhz;     /* lowest clocks in busy samples; -1 none */
    double sm_mean_mhz;              /* mean SM clock over busy samples; NAN none */
    long long reasons_busy;          /* OR of the clock event reasons of busy samples; -1 none/unsupported */
    int temp_max_c;                  /* -1 none */
    double power_max_w;              /* NAN none */
    int pcie_gen_max, pcie_width_max; /* highest link state seen in any sample (links train up under load) */
    /* lowest current link width (nvmlDeviceGetCurrPcieLinkWidth) in any sample and in busy samples; -1 none. The
     * width is judged on these: a link that trained down to x8 for part of the run had x16 as its maximum */
    int pcie_width_min, pcie_width_min_busy;
} nvs_health_load;

typedef struct {
    unsigned long long xid;
    int count;
} nvs_health_xid;

/* The GPU stopped answering: an NVML call said it is gone (nvmlReturn_t NVML_ERROR_GPU_IS_LOST, 15: "the GPU
 * has fallen off the bus or has otherwise become inaccessible") or needs a reset (NVML_ERROR_RESET_REQUIRED,
 * 16). The first such answer is kept. */
#define NVS_HEALTH_LOST_CODE 15  /* NVML_ERROR_GPU_IS_LOST */
#define NVS_HEALTH_RESET_CODE 16 /* NVML_ERROR_RESET_REQUIRED */
typedef struct {
    int code;       /* NVS_HEALTH_LOST_CODE, NVS_HEALTH_RESET_CODE; 0: answered throughout */
    char call[48];  /* the NVML call that got the answer */
    char when[24];  /* "before the run", "during the run", "after the run" */
    char text[64];  /* NVML's text for the code (nvmlErrorString) */
} nvs_health_lost;

typedef struct {
    char host[64];
    char pci_bus_id[32];
    char name[96];
    int gpu;              /* index in the run's topology; -1 unknown */
    char why[160];        /* "" or why NVML could not read this GPU (then nothing else is known) */
    nvs_health_snap before, after;
    int have_after;       /* 0: only one reading (e.g. a failed run) */
    nvs_health_load load;
    int xid_watched;      /* 1: XID events registered for the whole window, 0: not (xid_why says why) */
    char xid_why[128];
    int nxid;
    nvs_health_xid xids[NVS_HEALTH_MAX_XIDS];
    int xid_other;        /* events beyond NVS_HEALTH_MAX_XIDS distinct codes */
    nvs_health_lost lost; /* code 0 unless NVML said the GPU is lost or needs a reset (then every check FAILs) */
    char read_errors[240]; /* "" or the calls that failed with something other than "not supported" (no permission,
                            * unknown error), "call: text" joined by "; ", each once: why a counter is unknown */
    int read_errors_unknown; /* 1: read from a run.json without "read_errors" (written before 3 December 2026, when
                              * failed calls were not recorded): a counter or an XID watch missing there may be a
                              * failed call as well as an unsupported one, so it is a WARN, as it was then */
} nvs_health_gpu;

typedef struct {
    char source[160];     /* "nvml, driver 580.159.04" or "unsupported: <why>" */
    double window_s;      /* seconds between the two readings */
    int sample_ms;        /* sampler period; 0 = no sampler */
    int ngpus;
    nvs_health_gpu *gpus;
} nvs_health_report;

/* Every integer field -1, every double NAN: "nothing known yet". */
void nvs_health_snap_unknown(nvs_health_snap *s);
void nvs_health_load_init(nvs_health_load *l);
/* A GPU entry with everything unknown. */
void nvs_health_gpu_init(nvs_health_gpu *g);
void nvs_health_report_free(nvs_health_report *r);
/* Appends copies of src's GPUs to dst (for merging hosts). */
nvs_result_t nvs_health_report_append(nvs_health_report *dst, const nvs_health_report *src);
/* Names of the reasons set in `bits` ("HW slowdown, SW thermal slowdown"), "none" when none. */
const char *nvs_health_reason_names(long long bits, char *buf, size_t len);

/* --- run.json "health" (written: health_json.c, read: health_json_read.c; docs/run-json.md) -------------- */
json_t *nvs_health_to_json(const nvs_health_report *r);
/* NVS_ERR_INPUT with a message naming the field when the section is malformed. */
nvs_result_t nvs_health_from_json(const json_t *j, nvs_health_report *out, char *err, size_t errlen);

/* --- evaluation (health_eval.c; the checks: health_eval_priv.h) ----------------------------------------- */
/* PASS < WARN < FAIL is an order (a finding takes the worst of what it found). SKIP is outside it: the check could
 * not be performed (NVML does not report what it looks at, or no NVML), so it is neither a pass nor a fail. */
typedef enum { NVS_SEV_PASS = 0, NVS_SEV_WARN = 1, NVS_SEV_FAIL = 2, NVS_SEV_SKIP = 3 } nvs_severity;
const char *nvs_severity_name(nvs_severity s); /* "PASS", "WARN", "FAIL", "SKIP" */

/* What is judged, one finding per GPU (and category). The names are the rules file's health subjects. */
typedef enum {
    NVS_HC_ECC = 0,      /* uncorrectable ECC errors; ECC off */
    NVS_HC_MEMORY,       /* row remapping (pending, failed) or page retirement (pending) */
    NVS_HC_XID,          /* XID events during the run */
    NVS_HC_THROTTLE,     /* clock event reasons: HW slowdown, thermal, power brake */
    NVS_HC_CLOCKS,       /* SM and memory clocks under load vs max */
    NVS_HC_TEMPERATURE,  /* temperature vs the slowdown threshold */
    NVS_HC_POWER,        /* enforced power limit vs the default limit */
    NVS_HC_PCIE,         /* PCIe generation and width vs max (downtraining) */
    NVS_HC_PCIE_REPLAY,  /* PCIe replays during the run */
    NVS_HC_NVLINK,       /* NVLink links up vs the host's other GPUs of the same model */
    NVS_HC_NVLINK_ERRORS, /* NVLink CRC / replay / recovery errors during the run */
    NVS_HC_COUNT
} nvs_health_check;
const char *nvs_health_check_name(nvs_health_check c); /* "ecc", "memory", ... */
/* -1 when the name is unknown */
int nvs_health_check_parse(const char *name);

typedef struct {
    nvs_health_check check;
    nvs_severity severity;
    int gpu_entry;         /* index into the report's gpus */
    int link;              /* the NVLink to blame, -1 none */
    char what[96];         /* "ecc GPU0 (0000:07:00.0)" */
    char measured[64];     /* "0 uncorrectable", "unsupported" */
    char expected[64];     /* "0 uncorrectable" */
    char note[224];        /* why it failed or warned, what to do; "" */
    double measured_v, expected_v; /* NAN when not a number */
    int unchecked;         /* what it looks at is not reported ("unsupported"): with nothing else found, a SKIP */
} nvs_health_finding;

typedef struct {
    nvs_health_finding *v;
    size_t n, cap;
} nvs_health_findings;

/* One finding per GPU and check, in GPU order then check order. 0, or -1 when out of memory. */
/* The PCIe replays a minute above which pcie_replay warns, for a link at gen `gen` with `lanes` lanes (DCGM's rate
 * since 3.3.8: 8 at gen3 x16, 31 at gen5 x16; 8 where either is unknown, <= 0). */
double nvs_health_pcie_replay_limit(int gen, int lanes);

/* The PCIe lanes GPU model `name` (NVML's name) is built for, from its datasheet (pcie_spec.c), and where that comes
 * from into *source; -1 (and NULL) when nvscale does not know the model. */
int nvs_health_pcie_spec_width(const char *name, const char **source);

/* The GPU's own PCIe maximum against its link's maximum (NVML's, which is the GPU and its slot together), for the
 * health check and for `nvscale topo` alike (pcie_spec.c). */
typedef struct {
    int gen;                  /* the GPU's own top generation (nvmlDeviceGetGpuMaxPcieLinkGeneration); -1 unknown */
    int width;                /* the GPU's own width: sysfs max_link_width, else the datasheet's; -1 unknown */
    const char *width_source; /* where width comes from; NULL when unknown */
    int slot_gen, slot_width; /* 1: the link's maximum generation / width is below the GPU's own (the slot limits
                               * it); 0 not, or either side unknown */
} nvs_health_pcie_own;
/* gpu_gen, sysfs_width: the GPU's own as read (<= 0 unknown); name: NVML's model name for the datasheet table;
 * max_gen, max_width: the link's maximum (<= 0 unknown). */
void nvs_health_pcie_own_max(const char *name, int gpu_gen, int sysfs_width, int max_gen, int max_width,
                             nvs_health_pcie_own *out);

int nvs_health_evaluate(const nvs_health_report *r, nvs_health_findings *out);
void nvs_health_findings_free(nvs_health_findings *f);

#endif
