/*
 * A fake libnvidia-ml.so.1 over FAKE_GPU<i> (fake.h), every GPU in PCI order whatever
 * CUDA_VISIBLE_DEVICES says, as NVML does. Fields (MiB, W, MHz, percent, counts): mem, used,
 * util, memutil, temp, power, plimit, sm_clock, mem_clock, sm_max, mem_max, throttle (the
 * reasons' bits), pcie and pcie_max ("GEN.WIDTH"), ecc (0/1), ecc_ue_vol, ecc_ue_agg,
 * ecc_ce_vol, ecc_ce_agg, retired_sbe, retired_dbe, retired_pending, remap ("C.U.PENDING.FAIL"),
 * persist, cmode (NVML's number), mig, procs ("PID:MIB:NAME|..."; MIB "-" for not available).
 * A field set to "NS" makes its call answer NVML_ERROR_NOT_SUPPORTED. FAKE_NVML_DRIVER is the
 * driver version, FAKE_DRIVER_CUDA the CUDA version.
 */
#define _GNU_SOURCE
#include "fake.h"

#include <stdint.h>

typedef int nvmlReturn_t;
typedef struct dev *nvmlDevice_t;

enum { OK = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, INSUFFICIENT_SIZE = 7 };

static bool initialized;

nvmlReturn_t nvmlInit_v2(void)
{
    fake_enter("nvmlInit_v2");
    int st = fake_fail("nvmlInit_v2");
    initialized = st == 0;
    return st;
}

nvmlReturn_t nvmlShutdown(void)
{
    initialized = false;
    return OK;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
    return r == OK ? "Success" : r == NOT_SUPPORTED ? "Not Supported" : "Unknown Error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned len)
{
    fake_enter("nvmlSystemGetDriverVersion");
    const char *d = getenv("FAKE_NVML_DRIVER");
    snprintf(v, len, "%s", d ? d : "580.65.06");
    return fake_fail("nvmlSystemGetDriverVersion");
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
    fake_enter("nvmlSystemGetCudaDriverVersion_v2");
    const char *d = getenv("FAKE_DRIVER_CUDA");
    *v = d ? atoi(d) : 13000;
    return fake_fail("nvmlSystemGetCudaDriverVersion_v2");
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count)
{
    fake_enter("nvmlDeviceGetCount_v2");
    if (!initialized)
        return UNINITIALIZED;
    *count = (unsigned)fake_gpu_count();
    return fake_fail("nvmlDeviceGetCount_v2");
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *dev)
{
    fake_enter("nvmlDeviceGetHandleByIndex_v2");
    if (!initialized)
        return UNINITIALIZED;
    if (i >= (unsigned)fake_gpu_count())
        return INVALID_ARGUMENT;
    *dev = (nvmlDevice_t)(uintptr_t)(i + 1);
    return fake_fail("nvmlDeviceGetHandleByIndex_v2");
}

/* The GPU of a handle, after the call's crash, hang and failure; -1 with *st set otherwise. */
static int begin(nvmlDevice_t dev, const char *call, const char *field, nvmlReturn_t *st)
{
    fake_enter(call);
    int i = (int)(uintptr_t)dev - 1;
    *st = !initialized ? UNINITIALIZED : i < 0 || i >= fake_gpu_count() ? INVALID_ARGUMENT : 0;
    if (!*st)
        *st = fake_fail(call);
    if (!*st && field && fake_gpu_unsupported(i, field))
        *st = NOT_SUPPORTED;
    return *st ? -1 : i;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *name, unsigned len)
{
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetName", NULL, &st);
    if (i < 0)
        return st;
    char n[128];
    fake_gpu_name(i, n, sizeof n);
    snprintf(name, len, "%s", n);
    return OK;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *uuid, unsigned len)
{
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetUUID", NULL, &st);
    if (i < 0)
        return st;
    char u[96];
    fake_gpu_uuid(i, u, sizeof u);
    snprintf(uuid, len, "%s", u);
    return OK;
}

struct pci {
    char legacy[16];
    unsigned domain, bus, device, id, sub;
    char bus_id[32];
};

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, struct pci *p)
{
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetPciInfo_v3", NULL, &st);
    if (i < 0)
        return st;
    char b[64];
    fake_gpu_bus(i, b, sizeof b);
    unsigned domain = 0, bus = 0, device = 0;
    sscanf(b, "%x:%x:%x", &domain, &bus, &device);
    memset(p, 0, sizeof *p);
    snprintf(p->legacy, sizeof p->legacy, "%04X:%02X:%02X.0", domain, bus, device);
    snprintf(p->bus_id, sizeof p->bus_id, "%08X:%02X:%02X.0", domain, bus, device);
    p->domain = domain;
    p->bus = bus;
    p->device = device;
    return OK;
}

struct memory {
    unsigned long long total, free, used;
};

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, struct memory *m)
{
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetMemoryInfo", "used", &st);
    if (i < 0)
        return st;
    m->total = (unsigned long long)fake_gpu_int(i, "mem", 16384) << 20;
    m->used = (unsigned long long)fake_gpu_int(i, "used", 300) << 20;
    m->free = m->total - m->used;
    return OK;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t dev, unsigned *util)
{
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetUtilizationRates", "util", &st);
    if (i < 0)
        return st;
    util[0] = (unsigned)fake_gpu_int(i, "util", 0);
    util[1] = (unsigned)fake_gpu_int(i, "memutil", 0);
    return OK;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned *c)
{
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetTemperature", "temp", &st);
    if (i < 0)
        return st;
    if (sensor != 0)
        return INVALID_ARGUMENT;
    *c = (unsigned)fake_gpu_int(i, "temp", 35);
    return OK;
}

/* A one-value query: FIELD of the GPU, times `scale`. */
static nvmlReturn_t uint_query(nvmlDevice_t dev, const char *call, const char *field,
                               long long dflt, long long scale, unsigned *v)
{
    nvmlReturn_t st;
    int i = begin(dev, call, field, &st);
    if (i < 0)
        return st;
    *v = (unsigned)(fake_gpu_int(i, field, dflt) * scale);
    return OK;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned *mw)
{
    return uint_query(dev, "nvmlDeviceGetPowerUsage", "power", 60, 1000, mw);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t dev, unsigned *mw)
{
    return uint_query(dev, "nvmlDeviceGetEnforcedPowerLimit", "plimit", 300, 1000, mw);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, int type, unsigned *mhz)
{
    return type == 1   ? uint_query(dev, "nvmlDeviceGetClockInfo", "sm_clock", 1410, 1, mhz)
           : type == 2 ? uint_query(dev, "nvmlDeviceGetClockInfo", "mem_clock", 1593, 1, mhz)
                       : INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t dev, int type, unsigned *mhz)
{
    return type == 1   ? uint_query(dev, "nvmlDeviceGetMaxClockInfo", "sm_max", 1410, 1, mhz)
           : type == 2 ? uint_query(dev, "nvmlDeviceGetMaxClockInfo", "mem_max", 1593, 1, mhz)
                       : INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t dev, unsigned long long *r)
{
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetCurrentClocksEventReasons", "throttle", &st);
    if (i < 0)
        return st;
    *r = (unsigned long long)fake_gpu_int(i, "throttle", 1);
    return OK;
}

/* "GEN.WIDTH" fields. */
static nvmlReturn_t link_query(nvmlDevice_t dev, const char *call, const char *field, bool width,
                               unsigned *v)
{
    nvmlReturn_t st;
    int i = begin(dev, call, field, &st);
    if (i < 0)
        return st;
    char text[32] = "4.16";
    fake_gpu_field(i, field, text, sizeof text);
    unsigned gen = 4, w = 16;
    sscanf(text, "%u.%u", &gen, &w);
    *v = width ? w : gen;
    return OK;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t dev, unsigned *v)
{
    return link_query(dev, "nvmlDeviceGetCurrPcieLinkGeneration", "pcie", false, v);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t dev, unsigned *v)
{
    return link_query(dev, "nvmlDeviceGetMaxPcieLinkGeneration", "pcie_max", false, v);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t dev, unsigned *v)
{
    return link_query(dev, "nvmlDeviceGetCurrPcieLinkWidth", "pcie", true, v);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t dev, unsigned *v)
{
    return link_query(dev, "nvmlDeviceGetMaxPcieLinkWidth", "pcie_max", true, v);
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t dev, int *v)
{
    return uint_query(dev, "nvmlDeviceGetPersistenceMode", "persist", 1, 1, (unsigned *)v);
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t dev, int *v)
{
    return uint_query(dev, "nvmlDeviceGetComputeMode", "cmode", 0, 1, (unsigned *)v);
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t dev, int *v)
{
    return uint_query(dev, "nvmlDeviceGetRetiredPagesPendingStatus", "retired_pending", 0, 1,
                      (unsigned *)v);
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t dev, int *current, int *pending)
{
    nvmlReturn_t st = uint_query(dev, "nvmlDeviceGetEccMode", "ecc", 1, 1, (unsigned *)current);
    if (st == OK)
        *pending = *current;
    return st;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t dev, int type, int counter,
                                         unsigned long long *count)
{
    static const char *const fields[2][2] = { { "ecc_ce_vol", "ecc_ce_agg" },
                                              { "ecc_ue_vol", "ecc_ue_agg" } };
    if (type < 0 || type > 1 || counter < 0 || counter > 1)
        return INVALID_ARGUMENT;
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetTotalEccErrors", fields[type][counter], &st);
    if (i < 0)
        return st;
    *count = (unsigned long long)fake_gpu_int(i, fields[type][counter], 0);
    return OK;
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t dev, int cause, unsigned *count,
                                       unsigned long long *addresses)
{
    const char *field = cause == 0 ? "retired_sbe" : "retired_dbe";
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetRetiredPages", field, &st);
    if (i < 0)
        return st;
    unsigned n = (unsigned)fake_gpu_int(i, field, 0);
    for (unsigned k = 0; k < n && k < *count; k++)
        addresses[k] = 0x1000ULL * (k + 1);
    bool fits = n <= *count;
    *count = n;
    return fits ? OK : INSUFFICIENT_SIZE;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t dev, unsigned *c, unsigned *u,
                                       unsigned *pending, unsigned *failure)
{
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetRemappedRows", "remap", &st);
    if (i < 0)
        return st;
    char text[64] = "0.0.0.0";
    fake_gpu_field(i, "remap", text, sizeof text);
    *c = *u = *pending = *failure = 0;
    sscanf(text, "%u.%u.%u.%u", c, u, pending, failure);
    return OK;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t dev, unsigned *current, unsigned *pending)
{
    nvmlReturn_t st = uint_query(dev, "nvmlDeviceGetMigMode", "mig", 0, 1, current);
    if (st == OK)
        *pending = *current;
    return st;
}

struct process {
    unsigned pid;
    unsigned long long used;
    unsigned gi, ci;
};

/* Entry k of the "procs" field: false past the end. */
static bool process_at(int gpu, unsigned k, unsigned *pid, long long *mib, char *name, size_t size)
{
    char list[512];
    if (!fake_gpu_field(gpu, "procs", list, sizeof list))
        return false;
    char *item = list;
    for (unsigned n = 0; item && *item; n++) {
        char *next = strchr(item, '|');
        if (next)
            *next++ = '\0';
        if (n == k) {
            char mem[32] = "", who[256] = "";
            if (sscanf(item, "%u:%31[^:]:%255[^|]", pid, mem, who) < 2)
                return false;
            *mib = strcmp(mem, "-") == 0 ? -1 : atoll(mem);
            snprintf(name, size, "%s", who);
            return true;
        }
        item = next;
    }
    return false;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned *count,
                                                     struct process *infos)
{
    nvmlReturn_t st;
    int i = begin(dev, "nvmlDeviceGetComputeRunningProcesses_v3", "procs", &st);
    if (i < 0)
        return st;
    unsigned n = 0, pid;
    long long mib;
    char name[256];
    while (process_at(i, n, &pid, &mib, name, sizeof name)) {
        if (n < *count) {
            infos[n].pid = pid;
            infos[n].used = mib < 0 ? ~0ULL : (unsigned long long)mib << 20;
            infos[n].gi = infos[n].ci = 0xffffffffu;
        }
        n++;
    }
    bool fits = n <= *count;
    *count = n;
    return fits ? OK : INSUFFICIENT_SIZE;
}

nvmlReturn_t nvmlSystemGetProcessName(unsigned pid, char *name, unsigned len)
{
    fake_enter("nvmlSystemGetProcessName");
    for (int g = 0; g < fake_gpu_count(); g++) {
        unsigned p;
        long long mib;
        char who[256];
        for (unsigned k = 0; process_at(g, k, &p, &mib, who, sizeof who); k++)
            if (p == pid && who[0]) {
                snprintf(name, len, "%s", who);
                return OK;
            }
    }
    return 6; /* NVML_ERROR_NOT_FOUND */
}
