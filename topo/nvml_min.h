/* Our own minimal declarations of the NVML calls nvscale makes. nvml.h is not on every build machine, and the
 * library is loaded at run time (topo_nvml.c), so only the types and values we use are declared here, written
 * from NVIDIA's public NVML API reference (docs.nvidia.com/deploy/nvml-api): layouts and values as documented
 * there. Nothing else from nvml.h is needed. */
#ifndef NVS_NVML_MIN_H
#define NVS_NVML_MIN_H

typedef int nvs_nvmlReturn_t;              /* nvmlReturn_t */
#define NVS_NVML_SUCCESS 0                 /* NVML_SUCCESS */
#define NVS_NVML_ERROR_INVALID_ARGUMENT 2  /* NVML_ERROR_INVALID_ARGUMENT: e.g. a link index past the last */
#define NVS_NVML_ERROR_NOT_SUPPORTED 3     /* NVML_ERROR_NOT_SUPPORTED */

typedef struct nvs_nvmlDevice_st *nvs_nvmlDevice_t; /* nvmlDevice_t: an opaque handle */

/* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3 and nvmlDeviceGetNvLinkRemotePciInfo_v2:
 * busIdLegacy[16] (NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE), domain, bus, device, pciDeviceId, pciSubSystemId,
 * busId[32] (NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE, "00000000:07:00.0"). The trailing pad only makes room in
 * case a later library writes reserved fields after busId; it is never read. */
typedef struct {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
    unsigned char pad_[64];
} nvs_nvmlPciInfo_t;

/* nvmlEnableState_t */
#define NVS_NVML_FEATURE_ENABLED 1

/* nvmlIntNvLinkDeviceType_t (nvmlDeviceGetNvLinkRemoteDeviceType) */
#define NVS_NVML_NVLINK_DEVICE_TYPE_GPU 0x00
#define NVS_NVML_NVLINK_DEVICE_TYPE_IBMNPU 0x01
#define NVS_NVML_NVLINK_DEVICE_TYPE_SWITCH 0x02
#define NVS_NVML_NVLINK_DEVICE_TYPE_UNKNOWN 0xFF

/* nvmlGpuP2PCapsIndex_t / nvmlGpuP2PStatus_t */
#define NVS_NVML_P2P_CAPS_INDEX_READ 0
#define NVS_NVML_P2P_STATUS_OK 0
#define NVS_NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED 1
#define NVS_NVML_P2P_STATUS_GPU_NOT_SUPPORTED 2
#define NVS_NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED 3
#define NVS_NVML_P2P_STATUS_DISABLED_BY_REGKEY 4
#define NVS_NVML_P2P_STATUS_NOT_SUPPORTED 5

/* nvmlNvlinkVersion_t: what nvmlDeviceGetNvLinkVersion returns is this enum, not the generation (the NVML
 * reference says so since 2025; hwloc issue #658: "A100 returns 5"): 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0,
 * 5 = 3.1, 6 = 4.0, 7 = 5.0. */

/* nvmlFieldValue_t for nvmlDeviceGetFieldValues: fieldId, scopeId, timestamp, latencyUsec, valueType,
 * nvmlReturn, then the value union (8 bytes). */
typedef struct {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType; /* nvmlValueType_t: 1 = unsigned int, 2 = unsigned long, 3 = unsigned long long */
    nvs_nvmlReturn_t nvmlReturn;
    union {
        double dVal;
        unsigned int uiVal;
        unsigned long ulVal;
        unsigned long long ullVal;
        long long sllVal;
        int siVal;
        unsigned short usVal;
    } value;
} nvs_nvmlFieldValue_t;
/* NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON: "Common NVLink Speed in MBps for active links" (what nvidia-smi
 * nvlink -s prints, in GB/s) */
#define NVS_NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90

#define NVS_NVML_NVLINK_MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS on current drivers */

/* --- health (topo/health_nvml.c) ------------------------------------------------------------------------ *
 * Values from NVIDIA's NVML API reference (docs.nvidia.com/deploy/nvml-api): nvmlReturn_t, nvmlMemoryErrorType_t,
 * nvmlEccCounterType_t, nvmlPageRetirementCause_t, nvmlClockType_t, nvmlTemperatureSensors_t,
 * nvmlTemperatureThresholds_t, nvmlNvLinkErrorCounter_t, the event types and nvmlEventData_t. The clock event
 * reason bits are in health/health.h (NVS_CLK_*). */
#define NVS_NVML_ERROR_INSUFFICIENT_SIZE 7 /* NVML_ERROR_INSUFFICIENT_SIZE */
#define NVS_NVML_ERROR_TIMEOUT 10          /* NVML_ERROR_TIMEOUT: nvmlEventSetWait found no event */
#define NVS_NVML_ERROR_GPU_IS_LOST 15      /* NVML_ERROR_GPU_IS_LOST: fallen off the bus or otherwise inaccessible */
#define NVS_NVML_ERROR_RESET_REQUIRED 16   /* NVML_ERROR_RESET_REQUIRED: the GPU needs a reset before further use */

#define NVS_NVML_MEMORY_ERROR_TYPE_CORRECTED 0   /* nvmlMemoryErrorType_t */
#define NVS_NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVS_NVML_VOLATILE_ECC 0                  /* nvmlEccCounterType_t: since the driver loaded */
#define NVS_NVML_AGGREGATE_ECC 1                 /* lifetime of the board */
#define NVS_NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS 0 /* nvmlPageRetirementCause_t */
#define NVS_NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR 1
#define NVS_NVML_CLOCK_SM 1                      /* nvmlClockType_t */
#define NVS_NVML_CLOCK_MEM 2
#define NVS_NVML_TEMPERATURE_GPU 0               /* nvmlTemperatureSensors_t */
#define NVS_NVML_TEMPERATURE_THRESHOLD_SHUTDOWN 0 /* nvmlTemperatureThresholds_t */
#define NVS_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN 1
#define NVS_NVML_NVLINK_ERROR_DL_REPLAY 0        /* nvmlNvLinkErrorCounter_t */
#define NVS_NVML_NVLINK_ERROR_DL_RECOVERY 1
#define NVS_NVML_NVLINK_ERROR_DL_CRC_FLIT 2
#define NVS_NVML_NVLINK_ERROR_DL_CRC_DATA 3
#define NVS_NVML_EVENT_TYPE_XID_CRITICAL_ERROR 0x8ull /* nvmlEventTypeXidCriticalError */

/* nvmlUtilization_t: percent of the sample period a kernel ran / memory was read or written */
typedef struct {
    unsigned int gpu;
    unsigned int memory;
} nvs_nvmlUtilization_t;

typedef struct nvs_nvmlEventSet_st *nvs_nvmlEventSet_t; /* nvmlEventSet_t: an opaque handle */
/* nvmlEventData_t as filled by nvmlEventSetWait_v2: device, eventType, eventData (the XID for
 * nvmlEventTypeXidCriticalError), gpuInstanceId, computeInstanceId */
typedef struct {
    nvs_nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvs_nvmlEventData_t;

#endif
