/* NVML (libnvidia-ml.so.1; nvml.dll on Windows), what nvidia-smi is built on: every GPU of the
 * machine whatever CUDA_VISIBLE_DEVICES says, in nvidia-smi's order, with its health and load.
 * Functions are looked up newest first with their older names as fallback (nvmlInit_v2 then
 * nvmlInit, nvmlDeviceGetCurrentClocksEventReasons then ...ThrottleReasons, the NVML 13 rename). A
 * function the driver lacks or a GPU does not support leaves its fact absent or unknown, never
 * zero. */
#include "probe/live.h"

#include "core/version.h"
#include "parse/visible_devices.h"
#include "vendor/abi.h"

#include <stdio.h>
#include <string.h>

struct nvml {
    void *h;
    nvmlErrorString_fn error_string;
};

static void *sym2(void *h, const char *first, const char *second, const char **used)
{
    void *f = gd_os_dlsym(h, first);
    *used = first;
    if (!f && second) {
        f = gd_os_dlsym(h, second);
        *used = second;
    }
    return f;
}

/* The name of `st` is looked up by the parent (src/vendor/errors.c): nvmlErrorString gives a
 * description ("Not Supported"), not NVIDIA's constant name. */
static void fail(struct gd_child_out *out, const char *key, const char *call, nvmlReturn_t st)
{
    gd_vc_fail(out, key, call, st, "");
}

static void missing(struct gd_child_out *out, const char *key, const char *symbol)
{
    char why[160];
    snprintf(why, sizeof why, "the library has no %s", symbol);
    gd_vc_fail(out, key, "dlsym", -1, why);
}

enum kind { UINT, ENUM };

/* Queries of one unsigned or enum value: KEY of each device from SYMBOL. */
static const struct {
    const char *key, *symbol;
    enum kind kind;
} simple[] = {
    { "power.draw_mw", "nvmlDeviceGetPowerUsage", UINT },
    { "power.limit_mw", "nvmlDeviceGetEnforcedPowerLimit", UINT },
    { "pcie.gen", "nvmlDeviceGetCurrPcieLinkGeneration", UINT },
    { "pcie.gen_max", "nvmlDeviceGetMaxPcieLinkGeneration", UINT },
    { "pcie.width", "nvmlDeviceGetCurrPcieLinkWidth", UINT },
    { "pcie.width_max", "nvmlDeviceGetMaxPcieLinkWidth", UINT },
    { "persistence_mode", "nvmlDeviceGetPersistenceMode", ENUM },
    { "compute_mode", "nvmlDeviceGetComputeMode", ENUM },
    { "retired_pages.pending", "nvmlDeviceGetRetiredPagesPendingStatus", ENUM },
};

static void key_of(char *key, size_t size, unsigned i, const char *name)
{
    snprintf(key, size, "dev.%u.%s", i, name);
}

static void query_simple(struct gd_child_out *out, const struct nvml *n, nvmlDevice_t dev,
                         unsigned i)
{
    char key[96];
    for (size_t k = 0; k < sizeof simple / sizeof *simple; k++) {
        key_of(key, sizeof key, i, simple[k].key);
        void *f = gd_os_dlsym(n->h, simple[k].symbol);
        if (!f) {
            missing(out, key, simple[k].symbol);
            continue;
        }
        gd_vc_step(out, "%s %u", simple[k].symbol, i);
        nvmlReturn_t st;
        if (simple[k].kind == UINT) {
            unsigned v = 0;
            st = ((nvmlDeviceGetUint_fn)f)(dev, &v);
            if (st == NVML_SUCCESS)
                gd_child_send(out, key, "%u", v);
        } else {
            int v = 0;
            st = ((nvmlDeviceGetEnableState_fn)f)(dev, &v);
            if (st == NVML_SUCCESS)
                gd_child_send(out, key, "%d", v);
        }
        if (st != NVML_SUCCESS)
            fail(out, key, simple[k].symbol, st);
    }
}

static void query_text(struct gd_child_out *out, const struct nvml *n, nvmlDevice_t dev, unsigned i)
{
    char key[96], text[128];
    static const struct {
        const char *key, *symbol;
    } texts[] = { { "name", "nvmlDeviceGetName" }, { "uuid", "nvmlDeviceGetUUID" } };
    for (size_t k = 0; k < 2; k++) {
        key_of(key, sizeof key, i, texts[k].key);
        nvmlDeviceGetName_fn f = (nvmlDeviceGetName_fn)gd_os_dlsym(n->h, texts[k].symbol);
        if (!f) {
            missing(out, key, texts[k].symbol);
            continue;
        }
        gd_vc_step(out, "%s %u", texts[k].symbol, i);
        memset(text, 0, sizeof text);
        nvmlReturn_t st = f(dev, text, sizeof text - 1);
        if (st == NVML_SUCCESS)
            gd_child_send(out, key, "%s", text);
        else
            fail(out, key, texts[k].symbol, st);
    }
    const char *call;
    nvmlDeviceGetPciInfo_v3_fn pci = (nvmlDeviceGetPciInfo_v3_fn)sym2(
        n->h, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", &call);
    key_of(key, sizeof key, i, "bus_id");
    if (!pci) {
        missing(out, key, "nvmlDeviceGetPciInfo_v3");
        return;
    }
    gd_vc_step(out, "%s %u", call, i);
    nvmlPciInfo_t info;
    memset(&info, 0, sizeof info);
    nvmlReturn_t st = pci(dev, &info);
    if (st == NVML_SUCCESS)
        gd_child_send(out, key, "%.*s", (int)sizeof info.busId, info.busId);
    else
        fail(out, key, call, st);
}

static void query_memory(struct gd_child_out *out, const struct nvml *n, nvmlDevice_t dev,
                         unsigned i)
{
    char key[96];
    key_of(key, sizeof key, i, "memory");
    nvmlDeviceGetMemoryInfo_fn mem =
        (nvmlDeviceGetMemoryInfo_fn)gd_os_dlsym(n->h, "nvmlDeviceGetMemoryInfo");
    if (mem) {
        gd_vc_step(out, "nvmlDeviceGetMemoryInfo %u", i);
        nvmlMemory_t m;
        memset(&m, 0, sizeof m);
        nvmlReturn_t st = mem(dev, &m);
        if (st == NVML_SUCCESS) {
            key_of(key, sizeof key, i, "memory.total");
            gd_child_send(out, key, "%llu", m.total);
            key_of(key, sizeof key, i, "memory.used");
            gd_child_send(out, key, "%llu", m.used);
            key_of(key, sizeof key, i, "memory.free");
            gd_child_send(out, key, "%llu", m.free);
        } else {
            fail(out, key, "nvmlDeviceGetMemoryInfo", st);
        }
    } else {
        missing(out, key, "nvmlDeviceGetMemoryInfo");
    }
    key_of(key, sizeof key, i, "utilization");
    nvmlDeviceGetUtilizationRates_fn util =
        (nvmlDeviceGetUtilizationRates_fn)gd_os_dlsym(n->h, "nvmlDeviceGetUtilizationRates");
    if (util) {
        gd_vc_step(out, "nvmlDeviceGetUtilizationRates %u", i);
        nvmlUtilization_t u;
        memset(&u, 0, sizeof u);
        nvmlReturn_t st = util(dev, &u);
        if (st == NVML_SUCCESS) {
            key_of(key, sizeof key, i, "utilization.gpu_pct");
            gd_child_send(out, key, "%u", u.gpu);
            key_of(key, sizeof key, i, "utilization.memory_pct");
            gd_child_send(out, key, "%u", u.memory);
        } else {
            fail(out, key, "nvmlDeviceGetUtilizationRates", st);
        }
    } else {
        missing(out, key, "nvmlDeviceGetUtilizationRates");
    }
}

static void query_clocks(struct gd_child_out *out, const struct nvml *n, nvmlDevice_t dev,
                         unsigned i)
{
    char key[96];
    key_of(key, sizeof key, i, "temperature_c");
    nvmlDeviceGetTemperature_fn temp =
        (nvmlDeviceGetTemperature_fn)gd_os_dlsym(n->h, "nvmlDeviceGetTemperature");
    if (temp) {
        gd_vc_step(out, "nvmlDeviceGetTemperature %u", i);
        unsigned c = 0;
        nvmlReturn_t st = temp(dev, NVML_TEMPERATURE_GPU, &c);
        if (st == NVML_SUCCESS)
            gd_child_send(out, key, "%u", c);
        else
            fail(out, key, "nvmlDeviceGetTemperature", st);
    } else {
        missing(out, key, "nvmlDeviceGetTemperature");
    }
    static const struct {
        const char *key, *symbol;
        int type;
    } clocks[] = {
        { "clocks.sm_mhz", "nvmlDeviceGetClockInfo", NVML_CLOCK_SM },
        { "clocks.mem_mhz", "nvmlDeviceGetClockInfo", NVML_CLOCK_MEM },
        { "clocks.sm_max_mhz", "nvmlDeviceGetMaxClockInfo", NVML_CLOCK_SM },
        { "clocks.mem_max_mhz", "nvmlDeviceGetMaxClockInfo", NVML_CLOCK_MEM },
    };
    for (size_t k = 0; k < sizeof clocks / sizeof *clocks; k++) {
        key_of(key, sizeof key, i, clocks[k].key);
        nvmlDeviceGetClockInfo_fn f =
            (nvmlDeviceGetClockInfo_fn)gd_os_dlsym(n->h, clocks[k].symbol);
        if (!f) {
            missing(out, key, clocks[k].symbol);
            continue;
        }
        gd_vc_step(out, "%s %u", clocks[k].symbol, i);
        unsigned mhz = 0;
        nvmlReturn_t st = f(dev, clocks[k].type, &mhz);
        if (st == NVML_SUCCESS)
            gd_child_send(out, key, "%u", mhz);
        else
            fail(out, key, clocks[k].symbol, st);
    }
    const char *call;
    nvmlDeviceGetReasons_fn reasons =
        (nvmlDeviceGetReasons_fn)sym2(n->h, "nvmlDeviceGetCurrentClocksEventReasons",
                                      "nvmlDeviceGetCurrentClocksThrottleReasons", &call);
    key_of(key, sizeof key, i, "throttle_reasons");
    if (reasons) {
        gd_vc_step(out, "%s %u", call, i);
        unsigned long long r = 0;
        nvmlReturn_t st = reasons(dev, &r);
        if (st == NVML_SUCCESS)
            gd_child_send(out, key, "%llu", r);
        else
            fail(out, key, call, st);
    } else {
        missing(out, key, "nvmlDeviceGetCurrentClocksEventReasons");
    }
}

static void query_errors(struct gd_child_out *out, const struct nvml *n, nvmlDevice_t dev,
                         unsigned i)
{
    char key[96];
    key_of(key, sizeof key, i, "ecc.enabled");
    nvmlDeviceGetEccMode_fn mode =
        (nvmlDeviceGetEccMode_fn)gd_os_dlsym(n->h, "nvmlDeviceGetEccMode");
    if (mode) {
        gd_vc_step(out, "nvmlDeviceGetEccMode %u", i);
        int current = 0, pending = 0;
        nvmlReturn_t st = mode(dev, &current, &pending);
        if (st == NVML_SUCCESS)
            gd_child_send(out, key, "%d", current);
        else
            fail(out, key, "nvmlDeviceGetEccMode", st);
    } else {
        missing(out, key, "nvmlDeviceGetEccMode");
    }
    static const struct {
        const char *key;
        int type, counter;
    } ecc[] = {
        { "ecc.uncorrected.volatile", NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC },
        { "ecc.uncorrected.aggregate", NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC },
        { "ecc.corrected.volatile", NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC },
        { "ecc.corrected.aggregate", NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC },
    };
    nvmlDeviceGetTotalEccErrors_fn total =
        (nvmlDeviceGetTotalEccErrors_fn)gd_os_dlsym(n->h, "nvmlDeviceGetTotalEccErrors");
    for (size_t k = 0; k < sizeof ecc / sizeof *ecc; k++) {
        key_of(key, sizeof key, i, ecc[k].key);
        if (!total) {
            missing(out, key, "nvmlDeviceGetTotalEccErrors");
            continue;
        }
        gd_vc_step(out, "nvmlDeviceGetTotalEccErrors %u", i);
        unsigned long long count = 0;
        nvmlReturn_t st = total(dev, ecc[k].type, ecc[k].counter, &count);
        if (st == NVML_SUCCESS)
            gd_child_send(out, key, "%llu", count);
        else
            fail(out, key, "nvmlDeviceGetTotalEccErrors", st);
    }
    static const struct {
        const char *key;
        int cause;
    } retired[] = {
        { "retired_pages.single_bit", NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS },
        { "retired_pages.double_bit", NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR },
    };
    nvmlDeviceGetRetiredPages_fn pages =
        (nvmlDeviceGetRetiredPages_fn)gd_os_dlsym(n->h, "nvmlDeviceGetRetiredPages");
    for (size_t k = 0; k < 2; k++) {
        key_of(key, sizeof key, i, retired[k].key);
        if (!pages) {
            missing(out, key, "nvmlDeviceGetRetiredPages");
            continue;
        }
        gd_vc_step(out, "nvmlDeviceGetRetiredPages %u", i);
        /* The count comes back even when the addresses do not fit. */
        unsigned long long addresses[64];
        unsigned count = 64;
        nvmlReturn_t st = pages(dev, retired[k].cause, &count, addresses);
        if (st == NVML_SUCCESS || st == NVML_ERROR_INSUFFICIENT_SIZE)
            gd_child_send(out, key, "%u", count);
        else
            fail(out, key, "nvmlDeviceGetRetiredPages", st);
    }
    key_of(key, sizeof key, i, "remapped_rows");
    nvmlDeviceGetRemappedRows_fn rows =
        (nvmlDeviceGetRemappedRows_fn)gd_os_dlsym(n->h, "nvmlDeviceGetRemappedRows");
    if (rows) {
        gd_vc_step(out, "nvmlDeviceGetRemappedRows %u", i);
        unsigned corrected = 0, uncorrected = 0, pending = 0, failure = 0;
        nvmlReturn_t st = rows(dev, &corrected, &uncorrected, &pending, &failure);
        if (st == NVML_SUCCESS) {
            key_of(key, sizeof key, i, "remapped_rows.correctable");
            gd_child_send(out, key, "%u", corrected);
            key_of(key, sizeof key, i, "remapped_rows.uncorrectable");
            gd_child_send(out, key, "%u", uncorrected);
            key_of(key, sizeof key, i, "remapped_rows.pending");
            gd_child_send(out, key, "%u", pending);
            key_of(key, sizeof key, i, "remapped_rows.failure");
            gd_child_send(out, key, "%u", failure);
        } else {
            fail(out, key, "nvmlDeviceGetRemappedRows", st);
        }
    } else {
        missing(out, key, "nvmlDeviceGetRemappedRows");
    }
    key_of(key, sizeof key, i, "mig");
    nvmlDeviceGetMigMode_fn mig =
        (nvmlDeviceGetMigMode_fn)gd_os_dlsym(n->h, "nvmlDeviceGetMigMode");
    if (mig) {
        gd_vc_step(out, "nvmlDeviceGetMigMode %u", i);
        unsigned current = 0, pending = 0;
        nvmlReturn_t st = mig(dev, &current, &pending);
        if (st == NVML_SUCCESS) {
            key_of(key, sizeof key, i, "mig.current");
            gd_child_send(out, key, "%u", current);
            key_of(key, sizeof key, i, "mig.pending");
            gd_child_send(out, key, "%u", pending);
        } else {
            fail(out, key, "nvmlDeviceGetMigMode", st);
        }
    } else {
        missing(out, key, "nvmlDeviceGetMigMode");
    }
}

/* Compute processes and the memory each holds: the _v3 and _v2 functions fill the v2 layout, the
 * unversioned one the v1 layout. */
static void query_processes(struct gd_child_out *out, const struct nvml *n, nvmlDevice_t dev,
                            unsigned i)
{
    enum { MAX = 64 };
    char key[96], name[256];
    key_of(key, sizeof key, i, "processes");
    const char *call = "nvmlDeviceGetComputeRunningProcesses_v3";
    nvmlDeviceGetProcesses_fn f = (nvmlDeviceGetProcesses_fn)gd_os_dlsym(n->h, call);
    if (!f) {
        call = "nvmlDeviceGetComputeRunningProcesses_v2";
        f = (nvmlDeviceGetProcesses_fn)gd_os_dlsym(n->h, call);
    }
    bool v1 = false;
    if (!f) {
        call = "nvmlDeviceGetComputeRunningProcesses";
        f = (nvmlDeviceGetProcesses_fn)gd_os_dlsym(n->h, call);
        v1 = true;
    }
    if (!f) {
        missing(out, key, "nvmlDeviceGetComputeRunningProcesses_v3");
        return;
    }
    gd_vc_step(out, "%s %u", call, i);
    nvmlProcessInfo_v2_t v2s[MAX];
    nvmlProcessInfo_v1_t v1s[MAX];
    memset(v2s, 0, sizeof v2s);
    memset(v1s, 0, sizeof v1s);
    unsigned count = MAX;
    nvmlReturn_t st = f(dev, &count, v1 ? (void *)v1s : (void *)v2s);
    if (st != NVML_SUCCESS && st != NVML_ERROR_INSUFFICIENT_SIZE) {
        fail(out, key, call, st);
        return;
    }
    gd_child_send(out, key, "%u", count);
    nvmlSystemGetProcessName_fn pname =
        (nvmlSystemGetProcessName_fn)gd_os_dlsym(n->h, "nvmlSystemGetProcessName");
    for (unsigned p = 0; st == NVML_SUCCESS && p < count && p < MAX; p++) {
        unsigned pid = v1 ? v1s[p].pid : v2s[p].pid;
        unsigned long long used = v1 ? v1s[p].usedGpuMemory : v2s[p].usedGpuMemory;
        char pkey[128];
        snprintf(pkey, sizeof pkey, "dev.%u.proc.%u.pid", i, p);
        gd_child_send(out, pkey, "%u", pid);
        snprintf(pkey, sizeof pkey, "dev.%u.proc.%u.memory", i, p);
        if (used == GD_NVML_VALUE_NOT_AVAILABLE)
            gd_vc_fail(out, pkey, call, -1, "NVML_VALUE_NOT_AVAILABLE");
        else
            gd_child_send(out, pkey, "%llu", used);
        snprintf(pkey, sizeof pkey, "dev.%u.proc.%u.name", i, p);
        memset(name, 0, sizeof name);
        if (pname && (st = pname(pid, name, sizeof name - 1)) == NVML_SUCCESS)
            gd_child_send(out, pkey, "%s", name);
        else if (pname)
            fail(out, pkey, "nvmlSystemGetProcessName", st);
        st = NVML_SUCCESS;
    }
}

void gd_live_nvml_child(void *arg, struct gd_child_out *out)
{
    /* Only the library: NVML lists every GPU whatever CUDA_VISIBLE_DEVICES says. */
    const struct gd_live_env *env = arg;
    const char *lib = env->lib ? env->lib : GD_LIVE_NVML_SONAME;
    char err[512], path[1024];
    gd_vc_step(out, "dlopen %s", lib);
    void *h = gd_os_dlopen(lib, err, sizeof err);
    if (!h) {
        gd_vc_fail(out, "library", "dlopen", -1, err);
        gd_vc_done(out);
        return;
    }
    gd_child_send(out, "library", "%s", gd_os_dlpath(h, path, sizeof path) ? path : lib);
    struct nvml n = { h, (nvmlErrorString_fn)gd_os_dlsym(h, "nvmlErrorString") };
    const char *call;
    nvmlInit_v2_fn init = (nvmlInit_v2_fn)sym2(h, "nvmlInit_v2", "nvmlInit", &call);
    nvmlDeviceGetCount_v2_fn count_fn =
        (nvmlDeviceGetCount_v2_fn)sym2(h, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", &call);
    nvmlDeviceGetHandleByIndex_v2_fn handle_fn = (nvmlDeviceGetHandleByIndex_v2_fn)sym2(
        h, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", &call);
    if (!init || !count_fn || !handle_fn) {
        gd_vc_fail(out, "init", "dlsym", -1,
                   "the library lacks nvmlInit, nvmlDeviceGetCount or nvmlDeviceGetHandleByIndex");
        gd_vc_done(out);
        return;
    }
    gd_vc_step(out, "nvmlInit_v2");
    nvmlReturn_t st = init();
    gd_child_send(out, "init.code", "%d", st);
    if (n.error_string && n.error_string(st))
        gd_child_send(out, "init.text", "%s", n.error_string(st));
    if (st != NVML_SUCCESS) {
        gd_vc_done(out);
        return;
    }
    nvmlSystemGetDriverVersion_fn dv =
        (nvmlSystemGetDriverVersion_fn)gd_os_dlsym(h, "nvmlSystemGetDriverVersion");
    if (dv) {
        gd_vc_step(out, "nvmlSystemGetDriverVersion");
        char v[96];
        memset(v, 0, sizeof v);
        st = dv(v, sizeof v - 1);
        if (st == NVML_SUCCESS)
            gd_child_send(out, "driver_version", "%s", v);
        else
            fail(out, "driver_version", "nvmlSystemGetDriverVersion", st);
    }
    nvmlSystemGetCudaDriverVersion_fn cv = (nvmlSystemGetCudaDriverVersion_fn)sym2(
        h, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion", &call);
    if (cv) {
        gd_vc_step(out, "%s", call);
        int v = 0;
        st = cv(&v);
        if (st == NVML_SUCCESS)
            gd_child_send(out, "cuda_version", "%d", v);
        else
            fail(out, "cuda_version", call, st);
    }
    gd_vc_step(out, "nvmlDeviceGetCount_v2");
    unsigned count = 0;
    st = count_fn(&count);
    if (st != NVML_SUCCESS) {
        fail(out, "count", "nvmlDeviceGetCount_v2", st);
        gd_vc_done(out);
        return;
    }
    gd_child_send(out, "count", "%u", count);
    for (unsigned i = 0; i < count && i < GD_LIVE_DEVICES_MAX; i++) {
        char key[32];
        snprintf(key, sizeof key, "dev.%u", i);
        gd_vc_step(out, "nvmlDeviceGetHandleByIndex_v2 %u", i);
        nvmlDevice_t dev = NULL;
        st = handle_fn(i, &dev);
        if (st != NVML_SUCCESS) {
            fail(out, key, "nvmlDeviceGetHandleByIndex_v2", st);
            continue;
        }
        query_text(out, &n, dev, i);
        query_memory(out, &n, dev, i);
        query_clocks(out, &n, dev, i);
        query_simple(out, &n, dev, i);
        query_errors(out, &n, dev, i);
        query_processes(out, &n, dev, i);
    }
    nvmlShutdown_fn shutdown = (nvmlShutdown_fn)gd_os_dlsym(h, "nvmlShutdown");
    if (shutdown) {
        gd_vc_step(out, "nvmlShutdown");
        shutdown();
    }
    gd_vc_done(out);
}

/* ---- facts ---------------------------------------------------------------------------------- */

/* The integer sent for `key` when there is one; otherwise the fact records why not. */
static bool nv_int(struct gd_entity *e, const char *fact, const struct gd_vc *vc, const char *key,
                   const char *call, long long *v)
{
    if (gd_vc_int(vc, key, v))
        return true;
    gd_vc_fact(e, fact, vc, key, true, GD_VENDOR_NVML, NVML_ERROR_NOT_SUPPORTED,
               gd_src(GD_SOURCE_CALL, call));
    return false;
}

static void int_fact(struct gd_entity *e, const char *fact, const struct gd_vc *vc, unsigned i,
                     const char *name, const char *call)
{
    char key[96];
    key_of(key, sizeof key, i, name);
    gd_vc_fact(e, fact, vc, key, true, GD_VENDOR_NVML, NVML_ERROR_NOT_SUPPORTED,
               gd_src(GD_SOURCE_CALL, call));
}

static void bool_fact(struct gd_entity *e, const char *fact, const struct gd_vc *vc, unsigned i,
                      const char *name, const char *call)
{
    char key[96];
    long long v;
    key_of(key, sizeof key, i, name);
    if (nv_int(e, fact, vc, key, call, &v))
        gd_fact_bool(e, fact, v != 0, gd_src(GD_SOURCE_CALL, call));
}

/* nvidia-smi's words for the reasons (nvidia-smi -q, "Clocks Event Reasons"). */
static void reasons_fact(struct gd_entity *e, const struct gd_vc *vc, unsigned i)
{
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {
        { GD_NVML_REASON_GPU_IDLE, "Idle" },
        { GD_NVML_REASON_APP_CLOCKS, "Applications Clocks Setting" },
        { GD_NVML_REASON_SW_POWER_CAP, "SW Power Cap" },
        { GD_NVML_REASON_HW_SLOWDOWN, "HW Slowdown" },
        { GD_NVML_REASON_SYNC_BOOST, "Sync Boost" },
        { GD_NVML_REASON_SW_THERMAL, "SW Thermal Slowdown" },
        { GD_NVML_REASON_HW_THERMAL, "HW Thermal Slowdown" },
        { GD_NVML_REASON_HW_POWER_BRAKE, "HW Power Brake Slowdown" },
        { GD_NVML_REASON_DISPLAY_CLOCKS, "Display Clock Setting" },
    };
    char key[96], text[512] = "";
    long long v;
    const char *call = "nvmlDeviceGetCurrentClocksEventReasons";
    key_of(key, sizeof key, i, "throttle_reasons");
    if (!nv_int(e, "throttle_reasons", vc, key, call, &v))
        return;
    gd_fact_int(e, "throttle_reasons", v, gd_src(GD_SOURCE_CALL, call));
    unsigned long long bits = (unsigned long long)v;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (bits & names[k].bit)
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", text[0] ? ", " : "",
                     names[k].name);
    gd_fact_str(e, "throttle_reasons.active", text[0] ? text : "none",
                gd_src(GD_SOURCE_DERIVED, "throttle_reasons"));
}

static void compute_mode_fact(struct gd_entity *e, const struct gd_vc *vc, unsigned i)
{
    char key[96];
    long long v;
    const char *call = "nvmlDeviceGetComputeMode";
    key_of(key, sizeof key, i, "compute_mode");
    if (!nv_int(e, "compute_mode", vc, key, call, &v))
        return;
    /* nvidia-smi's names (nvidia-smi -q, "Compute Mode"). */
    const char *name = v == NVML_COMPUTEMODE_DEFAULT             ? "Default"
                       : v == NVML_COMPUTEMODE_EXCLUSIVE_THREAD  ? "Exclusive_Thread"
                       : v == NVML_COMPUTEMODE_PROHIBITED        ? "Prohibited"
                       : v == NVML_COMPUTEMODE_EXCLUSIVE_PROCESS ? "Exclusive_Process"
                                                                 : NULL;
    if (name)
        gd_fact_str(e, "compute_mode", name, gd_src(GD_SOURCE_CALL, call));
    else
        gd_fact_strf(e, "compute_mode", gd_src(GD_SOURCE_CALL, call), "mode %lld", v);
}

static void process_facts(struct gd_probe_ctx *ctx, struct gd_entity *gpu, const char *bus,
                          const struct gd_vc *vc, unsigned i)
{
    char key[96];
    long long count, held = 0;
    bool all_known = true;
    const char *call = "nvmlDeviceGetComputeRunningProcesses_v3";
    key_of(key, sizeof key, i, "processes");
    if (!nv_int(gpu, "processes", vc, key, call, &count))
        return;
    gd_fact_int(gpu, "processes", count, gd_src(GD_SOURCE_CALL, call));
    for (long long p = 0; p < count && p < 64; p++) {
        long long pid, mem;
        snprintf(key, sizeof key, "dev.%u.proc.%lld.pid", i, p);
        if (!gd_vc_int(vc, key, &pid))
            continue;
        char id[96];
        snprintf(id, sizeof id, "gpu_process:%s:%lld", bus, pid);
        struct gd_entity *e = gd_report_add_entity(ctx->report, "gpu_process", id);
        gd_fact_str(e, "gpu", gd_entity_id(gpu), gd_src(GD_SOURCE_CALL, call));
        gd_fact_int(e, "pid", pid, gd_src(GD_SOURCE_CALL, call));
        snprintf(key, sizeof key, "dev.%u.proc.%lld.name", i, p);
        gd_vc_fact(e, "name", vc, key, false, GD_VENDOR_NVML, NVML_ERROR_NOT_SUPPORTED,
                   gd_src(GD_SOURCE_CALL, "nvmlSystemGetProcessName"));
        snprintf(key, sizeof key, "dev.%u.proc.%lld.memory", i, p);
        if (gd_vc_int(vc, key, &mem))
            held += mem;
        else
            all_known = false;
        gd_vc_fact(e, "memory.used", vc, key, true, GD_VENDOR_NVML, -1,
                   gd_src(GD_SOURCE_CALL, call));
    }
    if (all_known && count <= 64)
        gd_fact_int(gpu, "processes.memory", held,
                    gd_src(GD_SOURCE_DERIVED, "the memory.used of each gpu_process"));
    else
        gd_fact_unknown(gpu, "processes.memory", "NVML did not report every process's memory",
                        gd_src(GD_SOURCE_DERIVED, "the memory.used of each gpu_process"));
}

static void device_facts(struct gd_probe_ctx *ctx, const struct gd_vc *vc, unsigned i)
{
    char key[96], text[256], bus[GD_PCI_BUS_ID_MAX] = "", id[64];
    key_of(key, sizeof key, i, "bus_id");
    struct gd_source pci = gd_src(GD_SOURCE_CALL, "nvmlDeviceGetPciInfo_v3");
    bool have_bus =
        gd_vc_str(vc, key, text, sizeof text) && gd_pci_bus_id_normalize(text, strlen(text), bus);
    /* The GPU /proc named already, when it is one of them: one entity per physical GPU. */
    if (have_bus)
        snprintf(id, sizeof id, "gpu:%s", bus);
    else
        snprintf(id, sizeof id, "gpu:nvml%u", i);
    bool known = gd_report_entity(ctx->report, id) != NULL;
    struct gd_entity *e = gd_report_add_entity(ctx->report, "gpu", id);
    if (!known) {
        if (have_bus)
            gd_fact_str(e, "bus_id", bus, pci);
        else
            gd_vc_fact(e, "bus_id", vc, key, false, GD_VENDOR_NVML, -1, pci);
    }
    gd_fact_int(e, "nvml.index", i, gd_src(GD_SOURCE_CALL, "nvmlDeviceGetHandleByIndex_v2"));
    key_of(key, sizeof key, i, "name");
    gd_vc_fact(e, "nvml.name", vc, key, false, GD_VENDOR_NVML, NVML_ERROR_NOT_SUPPORTED,
               gd_src(GD_SOURCE_CALL, "nvmlDeviceGetName"));
    key_of(key, sizeof key, i, "uuid");
    gd_vc_fact(e, "nvml.uuid", vc, key, false, GD_VENDOR_NVML, NVML_ERROR_NOT_SUPPORTED,
               gd_src(GD_SOURCE_CALL, "nvmlDeviceGetUUID"));
    static const struct {
        const char *name, *call;
    } ints[] = {
        { "memory.total", "nvmlDeviceGetMemoryInfo" },
        { "memory.used", "nvmlDeviceGetMemoryInfo" },
        { "memory.free", "nvmlDeviceGetMemoryInfo" },
        { "utilization.gpu_pct", "nvmlDeviceGetUtilizationRates" },
        { "utilization.memory_pct", "nvmlDeviceGetUtilizationRates" },
        { "temperature_c", "nvmlDeviceGetTemperature" },
        { "power.draw_mw", "nvmlDeviceGetPowerUsage" },
        { "power.limit_mw", "nvmlDeviceGetEnforcedPowerLimit" },
        { "clocks.sm_mhz", "nvmlDeviceGetClockInfo" },
        { "clocks.mem_mhz", "nvmlDeviceGetClockInfo" },
        { "clocks.sm_max_mhz", "nvmlDeviceGetMaxClockInfo" },
        { "clocks.mem_max_mhz", "nvmlDeviceGetMaxClockInfo" },
        { "pcie.gen", "nvmlDeviceGetCurrPcieLinkGeneration" },
        { "pcie.gen_max", "nvmlDeviceGetMaxPcieLinkGeneration" },
        { "pcie.width", "nvmlDeviceGetCurrPcieLinkWidth" },
        { "pcie.width_max", "nvmlDeviceGetMaxPcieLinkWidth" },
        { "ecc.uncorrected.volatile", "nvmlDeviceGetTotalEccErrors" },
        { "ecc.uncorrected.aggregate", "nvmlDeviceGetTotalEccErrors" },
        { "ecc.corrected.volatile", "nvmlDeviceGetTotalEccErrors" },
        { "ecc.corrected.aggregate", "nvmlDeviceGetTotalEccErrors" },
        { "retired_pages.single_bit", "nvmlDeviceGetRetiredPages" },
        { "retired_pages.double_bit", "nvmlDeviceGetRetiredPages" },
        { "remapped_rows.correctable", "nvmlDeviceGetRemappedRows" },
        { "remapped_rows.uncorrectable", "nvmlDeviceGetRemappedRows" },
    };
    for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) {
        /* A group that failed as a whole (memory, utilization, remapped rows) failed under the
         * group's key. */
        char group[64];
        snprintf(group, sizeof group, "%.*s", (int)strcspn(ints[k].name, "."), ints[k].name);
        key_of(key, sizeof key, i, ints[k].name);
        char gkey[96];
        key_of(gkey, sizeof gkey, i, group);
        long long v;
        char call[64], err[GD_VC_NAME_MAX];
        long code;
        if (!gd_vc_int(vc, key, &v) && !gd_vc_failure(vc, key, GD_VENDOR_NVML, call, &code, err) &&
            gd_vc_failure(vc, gkey, GD_VENDOR_NVML, call, &code, err))
            gd_vc_fact(e, ints[k].name, vc, gkey, true, GD_VENDOR_NVML, NVML_ERROR_NOT_SUPPORTED,
                       gd_src(GD_SOURCE_CALL, ints[k].call));
        else
            int_fact(e, ints[k].name, vc, i, ints[k].name, ints[k].call);
    }
    reasons_fact(e, vc, i);
    compute_mode_fact(e, vc, i);
    bool_fact(e, "persistence_mode", vc, i, "persistence_mode", "nvmlDeviceGetPersistenceMode");
    bool_fact(e, "ecc.enabled", vc, i, "ecc.enabled", "nvmlDeviceGetEccMode");
    bool_fact(e, "retired_pages.pending", vc, i, "retired_pages.pending",
              "nvmlDeviceGetRetiredPagesPendingStatus");
    static const char *const rows[] = { "remapped_rows.pending", "remapped_rows.failure" };
    for (size_t k = 0; k < 2; k++) {
        char rkey[96];
        key_of(rkey, sizeof rkey, i, rows[k]);
        long long v;
        if (gd_vc_int(vc, rkey, &v))
            gd_fact_bool(e, rows[k], v != 0, gd_src(GD_SOURCE_CALL, "nvmlDeviceGetRemappedRows"));
        else
            bool_fact(e, rows[k], vc, i, "remapped_rows", "nvmlDeviceGetRemappedRows");
    }
    char mkey[96];
    key_of(mkey, sizeof mkey, i, "mig.current");
    long long mig;
    if (gd_vc_int(vc, mkey, &mig)) {
        gd_fact_bool(e, "mig.enabled", mig != 0, gd_src(GD_SOURCE_CALL, "nvmlDeviceGetMigMode"));
        key_of(mkey, sizeof mkey, i, "mig.pending");
        if (gd_vc_int(vc, mkey, &mig))
            gd_fact_bool(e, "mig.enabled.pending", mig != 0,
                         gd_src(GD_SOURCE_CALL, "nvmlDeviceGetMigMode"));
    } else {
        bool_fact(e, "mig.enabled", vc, i, "mig", "nvmlDeviceGetMigMode");
    }
    process_facts(ctx, e, have_bus ? bus : id + 4, vc, i);
}

void gd_live_nvml_facts(struct gd_probe_ctx *ctx, const struct gd_vc *vc, const char *loaded)
{
    if (!loaded)
        loaded = GD_LIVE_NVML_SONAME;
    struct gd_entity *e = gd_report_add_entity(ctx->report, "nvml", "nvml");
    char call[1100];
    snprintf(call, sizeof call, "dlopen(%s)", loaded);
    const struct gd_fact *lib = gd_vc_fact(e, "library", vc, "library", false, GD_VENDOR_NVML, -1,
                                           gd_src(GD_SOURCE_CALL, call));
    struct gd_source init_src = gd_src(GD_SOURCE_CALL, "nvmlInit_v2");
    long long code = -1;
    if (!gd_fact_known_value(lib)) {
        gd_fact_absent(e, "init", gd_report_printf(ctx->report, "%s could not be loaded", loaded),
                       init_src);
    } else if (gd_vc_int(vc, "init.code", &code)) {
        const char *name = gd_vendor_error_name(GD_VENDOR_NVML, (long)code);
        if (name)
            gd_fact_str(e, "init", name, init_src);
        else
            gd_fact_strf(e, "init", init_src, "error %lld", code);
        gd_fact_int(e, "init.code", code, init_src);
    } else {
        gd_vc_fact(e, "init", vc, "init", false, GD_VENDOR_NVML, -1, init_src);
    }
    gd_vc_record_end(e, vc, loaded);
    if (code != NVML_SUCCESS)
        return;
    gd_vc_fact(e, "driver_version", vc, "driver_version", false, GD_VENDOR_NVML, -1,
               gd_src(GD_SOURCE_CALL, "nvmlSystemGetDriverVersion"));
    gd_live_version_fact(e, "cuda_version", vc, "cuda_version", GD_VENDOR_NVML,
                         gd_src(GD_SOURCE_CALL, "nvmlSystemGetCudaDriverVersion_v2"));
    long long count;
    const struct gd_fact *c = gd_vc_fact(e, "device_count", vc, "count", true, GD_VENDOR_NVML, -1,
                                         gd_src(GD_SOURCE_CALL, "nvmlDeviceGetCount_v2"));
    if (!gd_fact_known_value(c) || !gd_vc_int(vc, "count", &count))
        return;
    for (long long i = 0; i < count && i < GD_LIVE_DEVICES_MAX; i++)
        device_facts(ctx, vc, (unsigned)i);
}
