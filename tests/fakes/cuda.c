/*
 * A fake libcuda.so.1: the driver API calls gpudoctor makes, over FAKE_GPU<i> (fake.h). Device
 * memory is host memory (large blocks are only counted, never touched), a "device pointer" is its
 * address, and the PTX JIT knows one kernel: gpudoctor's gd_smoke (out[i] = in[i] * 3 + i),
 * executed on the CPU. It applies CUDA_DEVICE_ORDER (FASTEST_FIRST: by the "speed" field, SM
 * count by default, ties in PCI order) and CUDA_VISIBLE_DEVICES with its own reading of the
 * driver's rules, written apart from gpudoctor's. FAKE_PTX_MAX=X.Y makes PTX of a newer ISA fail
 * with CUDA_ERROR_UNSUPPORTED_PTX_VERSION; FAKE_DRIVER_CUDA the version cuDriverGetVersion says.
 */
#define _GNU_SOURCE
#include "fake.h"

#include <ctype.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
    OK = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    NOT_INITIALIZED = 3,
    NO_DEVICE = 100,
    INVALID_DEVICE = 101,
    INVALID_IMAGE = 200,
    INVALID_CONTEXT = 201,
    UNSUPPORTED_PTX_VERSION = 222,
    NOT_FOUND = 500,
};

static const struct {
    int code;
    const char *name;
} names[] = {
    { 0, "CUDA_SUCCESS" },
    { 1, "CUDA_ERROR_INVALID_VALUE" },
    { 2, "CUDA_ERROR_OUT_OF_MEMORY" },
    { 3, "CUDA_ERROR_NOT_INITIALIZED" },
    { 46, "CUDA_ERROR_DEVICE_UNAVAILABLE" },
    { 100, "CUDA_ERROR_NO_DEVICE" },
    { 101, "CUDA_ERROR_INVALID_DEVICE" },
    { 200, "CUDA_ERROR_INVALID_IMAGE" },
    { 201, "CUDA_ERROR_INVALID_CONTEXT" },
    { 218, "CUDA_ERROR_INVALID_PTX" },
    { 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" },
    { 500, "CUDA_ERROR_NOT_FOUND" },
    { 700, "CUDA_ERROR_ILLEGAL_ADDRESS" },
    { 719, "CUDA_ERROR_LAUNCH_FAILED" },
    { 802, "CUDA_ERROR_SYSTEM_NOT_READY" },
    { 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
    { 999, "CUDA_ERROR_UNKNOWN" },
};

CUresult cuGetErrorName(CUresult error, const char **str)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].code == error) {
            *str = names[i].name;
            return OK;
        }
    *str = NULL;
    return INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **str)
{
    return cuGetErrorName(error, str);
}

/* ---- devices -------------------------------------------------------------------------------- */

static bool initialized;
static int visible[16], nvisible;
static int current = -1;

/* strtoul after white space: a sign, then digits; false without digits. */
static bool read_ordinal(const char *s, size_t n, long *v)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == n || !isdigit((unsigned char)s[i]))
        return false;
    long x = 0;
    while (i < n && isdigit((unsigned char)s[i]) && x < 1000000)
        x = x * 10 + (s[i++] - '0');
    *v = neg ? -x : x;
    return true;
}

static void enumerate(void)
{
    int n = fake_gpu_count(), order[16];
    for (int i = 0; i < n; i++)
        order[i] = i;
    const char *o = getenv("CUDA_DEVICE_ORDER");
    if (!o || strcmp(o, "PCI_BUS_ID") != 0) {
        /* Insertion sort by speed, highest first, stable. */
        for (int i = 1; i < n; i++) {
            int g = order[i], k = i;
            long long sg = fake_gpu_int(g, "speed", fake_gpu_int(g, "sms", 100));
            while (k > 0 && fake_gpu_int(order[k - 1], "speed",
                                         fake_gpu_int(order[k - 1], "sms", 100)) < sg) {
                order[k] = order[k - 1];
                k--;
            }
            order[k] = g;
        }
    }
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    nvisible = 0;
    if (!v) {
        for (int i = 0; i < n; i++)
            visible[nvisible++] = order[i];
        return;
    }
    bool uuids = strncmp(v, "GPU-", 4) == 0;
    if (strncmp(v, "MIG-", 4) == 0)
        return;
    while (1) {
        size_t len = strcspn(v, ",");
        int gpu = -1;
        if (uuids) {
            if (len < 4 || strncmp(v, "GPU-", 4) != 0)
                return;
            int matches = 0;
            for (int g = 0; g < n; g++) {
                char u[96];
                fake_gpu_uuid(g, u, sizeof u);
                if (strlen(u) >= len && strncmp(u, v, len) == 0) {
                    gpu = g;
                    matches++;
                }
            }
            if (matches != 1)
                return;
        } else {
            long x;
            if (!read_ordinal(v, len, &x) || x < 0 || x >= n)
                return;
            gpu = order[x];
        }
        for (int k = 0; k < nvisible; k++)
            if (visible[k] == gpu) {
                nvisible = 0;
                return;
            }
        visible[nvisible++] = gpu;
        if (!v[len])
            return;
        v += len + 1;
    }
}

CUresult cuInit(unsigned int flags)
{
    (void)flags;
    fake_enter("cuInit");
    int st = fake_fail("cuInit");
    if (st)
        return st;
    enumerate();
    if (nvisible == 0)
        return NO_DEVICE;
    initialized = true;
    return OK;
}

CUresult cuDriverGetVersion(int *v)
{
    fake_enter("cuDriverGetVersion");
    const char *d = getenv("FAKE_DRIVER_CUDA");
    *v = d ? atoi(d) : 13000;
    return fake_fail("cuDriverGetVersion");
}

CUresult cuDeviceGetCount(int *count)
{
    fake_enter("cuDeviceGetCount");
    if (!initialized)
        return NOT_INITIALIZED;
    *count = nvisible;
    return fake_fail("cuDeviceGetCount");
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    fake_enter("cuDeviceGet");
    if (!initialized)
        return NOT_INITIALIZED;
    if (ordinal < 0 || ordinal >= nvisible)
        return INVALID_DEVICE;
    *dev = ordinal;
    return fake_fail("cuDeviceGet");
}

static int gpu_of(CUdevice dev)
{
    return dev >= 0 && dev < nvisible ? visible[dev] : -1;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    fake_enter("cuDeviceGetName");
    int g = gpu_of(dev);
    if (g < 0)
        return INVALID_DEVICE;
    char n[256];
    fake_gpu_name(g, n, sizeof n);
    snprintf(name, (size_t)len, "%s", n);
    return fake_fail("cuDeviceGetName");
}

static CUresult uuid_of(unsigned char *out, CUdevice dev, const char *call)
{
    fake_enter(call);
    int g = gpu_of(dev);
    if (g < 0)
        return INVALID_DEVICE;
    char u[96];
    fake_gpu_uuid(g, u, sizeof u);
    const char *p = u + 4;
    for (int i = 0; i < 16; i++) {
        while (*p == '-')
            p++;
        unsigned byte = 0;
        if (sscanf(p, "%2x", &byte) != 1)
            return INVALID_VALUE;
        out[i] = (unsigned char)byte;
        p += 2;
    }
    return fake_fail(call);
}

CUresult cuDeviceGetUuid(unsigned char *uuid, CUdevice dev)
{
    return uuid_of(uuid, dev, "cuDeviceGetUuid");
}

CUresult cuDeviceGetUuid_v2(unsigned char *uuid, CUdevice dev)
{
    return uuid_of(uuid, dev, "cuDeviceGetUuid_v2");
}

CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice dev)
{
    fake_enter("cuDeviceGetPCIBusId");
    int g = gpu_of(dev);
    if (g < 0)
        return INVALID_DEVICE;
    char b[64];
    fake_gpu_bus(g, b, sizeof b);
    snprintf(bus, (size_t)len, "%s", b);
    return fake_fail("cuDeviceGetPCIBusId");
}

CUresult cuDeviceGetAttribute(int *value, int attrib, CUdevice dev)
{
    fake_enter("cuDeviceGetAttribute");
    int g = gpu_of(dev);
    if (g < 0)
        return INVALID_DEVICE;
    char cc[16] = "9.0";
    fake_gpu_field(g, "cc", cc, sizeof cc);
    if (attrib == 75)
        *value = atoi(cc);
    else if (attrib == 76)
        *value = strchr(cc, '.') ? atoi(strchr(cc, '.') + 1) : 0;
    else if (attrib == 16)
        *value = (int)fake_gpu_int(g, "sms", 100);
    else
        return INVALID_VALUE;
    return fake_fail("cuDeviceGetAttribute");
}

static unsigned long long mib(int g, const char *key, long long dflt)
{
    return (unsigned long long)fake_gpu_int(g, key, dflt) * 1024ULL * 1024ULL;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    fake_enter("cuDeviceTotalMem_v2");
    int g = gpu_of(dev);
    if (g < 0)
        return INVALID_DEVICE;
    *bytes = mib(g, "mem", 16384);
    return fake_fail("cuDeviceTotalMem_v2");
}

/* ---- contexts -------------------------------------------------------------------------------- */

static int contexts[16];

CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice dev)
{
    fake_enter("cuDevicePrimaryCtxRetain");
    if (!initialized)
        return NOT_INITIALIZED;
    if (gpu_of(dev) < 0)
        return INVALID_DEVICE;
    int st = fake_fail("cuDevicePrimaryCtxRetain");
    if (st)
        return st;
    *ctx = &contexts[dev];
    return OK;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    fake_enter("cuDevicePrimaryCtxRelease_v2");
    return gpu_of(dev) < 0 ? INVALID_DEVICE : OK;
}

CUresult cuCtxSetCurrent(void *ctx)
{
    fake_enter("cuCtxSetCurrent");
    if (ctx && ((int *)ctx < contexts || (int *)ctx >= contexts + 16))
        return INVALID_CONTEXT;
    current = ctx ? (int)((int *)ctx - contexts) : -1;
    return fake_fail("cuCtxSetCurrent");
}

CUresult cuCtxSynchronize(void)
{
    fake_enter("cuCtxSynchronize");
    return current < 0 ? INVALID_CONTEXT : fake_fail("cuCtxSynchronize");
}

/* ---- memory ---------------------------------------------------------------------------------- */

/* Blocks above this are counted, not allocated: the largest-block search asks for gigabytes. */
#define REAL_MAX     (256ULL * 1024 * 1024)
#define VIRTUAL_BASE 0x7e0000000000ULL

static struct block {
    CUdeviceptr at;
    size_t size;
    void *host; /* NULL for a counted block */
} blocks[256];
static unsigned long long next_virtual = VIRTUAL_BASE;

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    fake_enter("cuMemGetInfo_v2");
    if (current < 0)
        return INVALID_CONTEXT;
    int g = gpu_of(current);
    *total = mib(g, "mem", 16384);
    *free_bytes = mib(g, "free", fake_gpu_int(g, "mem", 16384) - 512);
    return fake_fail("cuMemGetInfo_v2");
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
    fake_enter("cuMemAlloc_v2");
    if (current < 0)
        return INVALID_CONTEXT;
    int st = fake_fail("cuMemAlloc_v2");
    if (st)
        return st;
    int g = gpu_of(current);
    unsigned long long largest =
        mib(g, "largest", fake_gpu_int(g, "free", fake_gpu_int(g, "mem", 16384) - 512));
    if (bytes == 0)
        return INVALID_VALUE;
    if (bytes > largest)
        return OUT_OF_MEMORY;
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++) {
        if (blocks[i].at)
            continue;
        if (bytes <= REAL_MAX) {
            blocks[i].host = calloc(1, bytes);
            if (!blocks[i].host)
                return OUT_OF_MEMORY;
            blocks[i].at = (CUdeviceptr)(uintptr_t)blocks[i].host;
        } else {
            blocks[i].host = NULL;
            blocks[i].at = next_virtual;
            next_virtual += (bytes + 0xfffffULL) & ~0xfffffULL;
        }
        blocks[i].size = bytes;
        *p = blocks[i].at;
        return OK;
    }
    return OUT_OF_MEMORY;
}

static struct block *block_of(CUdeviceptr p, size_t bytes)
{
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
        if (blocks[i].at && p >= blocks[i].at && p + bytes <= blocks[i].at + blocks[i].size)
            return &blocks[i];
    return NULL;
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
    fake_enter("cuMemFree_v2");
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++) {
        if (blocks[i].at == p && p) {
            free(blocks[i].host);
            memset(&blocks[i], 0, sizeof blocks[i]);
            return fake_fail("cuMemFree_v2");
        }
    }
    return INVALID_VALUE;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes)
{
    fake_enter("cuMemcpyHtoD_v2");
    struct block *b = block_of(dst, bytes);
    if (!b || !b->host)
        return INVALID_VALUE;
    int st = fake_fail("cuMemcpyHtoD_v2");
    if (st)
        return st;
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return OK;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
    fake_enter("cuMemcpyDtoH_v2");
    struct block *b = block_of(src, bytes);
    if (!b || !b->host)
        return INVALID_VALUE;
    int st = fake_fail("cuMemcpyDtoH_v2");
    if (st)
        return st;
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    /* A bit flipped on the way back, in the copy test's 16 MiB only. */
    if (fake_wrong("copy") && bytes == 16u * 1024 * 1024)
        ((unsigned char *)dst)[12345] ^= 0x10;
    return OK;
}

/* ---- modules and the one kernel ------------------------------------------------------------ */

struct module {
    char *image;
};

/* PTX ISA version as 10*major + minor, from ".version X.Y". */
static int ptx_version(const char *text)
{
    const char *v = strstr(text, ".version ");
    int major = 0, minor = 0;
    if (!v || sscanf(v + 9, "%d.%d", &major, &minor) != 2)
        return -1;
    return major * 10 + minor;
}

CUresult cuModuleLoadDataEx(struct module **mod, const void *image, unsigned n, int *options,
                            void **values)
{
    fake_enter("cuModuleLoadDataEx");
    char *log = NULL;
    size_t log_size = 0;
    for (unsigned i = 0; i < n; i++) {
        if (options[i] == 5)
            log = values[i];
        else if (options[i] == 6)
            log_size = (size_t)(uintptr_t)values[i];
    }
    int st = fake_fail("cuModuleLoadDataEx");
    if (st)
        return st;
    const char *text = image;
    int have = ptx_version(text);
    if (have < 0)
        return INVALID_IMAGE;
    const char *max = getenv("FAKE_PTX_MAX");
    int major = 0, minor = 0;
    if (max && sscanf(max, "%d.%d", &major, &minor) == 2 && have > major * 10 + minor) {
        if (log && log_size)
            snprintf(log, log_size,
                     "ptxas application ptx input, line 1; fatal   : Unsupported .version "
                     "%d.%d; current version is '%d.%d'",
                     have / 10, have % 10, major, minor);
        return UNSUPPORTED_PTX_VERSION;
    }
    struct module *m = calloc(1, sizeof *m);
    if (!m || !(m->image = strdup(text))) {
        free(m);
        return OUT_OF_MEMORY;
    }
    *mod = m;
    return OK;
}

CUresult cuModuleUnload(struct module *mod)
{
    fake_enter("cuModuleUnload");
    if (mod)
        free(mod->image);
    free(mod);
    return OK;
}

struct function {
    int known;
};
static struct function smoke_kernel = { 1 };

CUresult cuModuleGetFunction(struct function **f, struct module *mod, const char *name)
{
    fake_enter("cuModuleGetFunction");
    char entry[160];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    if (!mod || !strstr(mod->image, entry))
        return NOT_FOUND;
    /* The only kernel this fake can run. */
    if (strcmp(name, "gd_smoke") != 0)
        return NOT_FOUND;
    *f = &smoke_kernel;
    return fake_fail("cuModuleGetFunction");
}

CUresult cuLaunchKernel(struct function *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream, void **params,
                        void **extra)
{
    (void)shared;
    (void)stream;
    (void)extra;
    fake_enter("cuLaunchKernel");
    if (f != &smoke_kernel || !params)
        return INVALID_VALUE;
    int st = fake_fail("cuLaunchKernel");
    if (st)
        return st;
    CUdeviceptr out = *(CUdeviceptr *)params[0], in = *(CUdeviceptr *)params[1];
    unsigned n = *(unsigned *)params[2];
    unsigned long long threads = (unsigned long long)gx * gy * gz * bx * by * bz;
    if (!block_of(out, (size_t)n * 4) || !block_of(in, (size_t)n * 4))
        return 700; /* CUDA_ERROR_ILLEGAL_ADDRESS */
    uint32_t *o = (uint32_t *)(uintptr_t)out;
    const uint32_t *x = (const uint32_t *)(uintptr_t)in;
    for (unsigned long long i = 0; i < threads && i < n; i++)
        o[i] = x[i] * 3u + (uint32_t)i;
    if (fake_wrong("kernel") && n > 7)
        o[7] += 1;
    return OK;
}

CUresult cuStreamCreate(void **stream, unsigned flags)
{
    (void)flags;
    fake_enter("cuStreamCreate");
    static int streams[64], next;
    *stream = &streams[next++ % 64];
    return fake_fail("cuStreamCreate");
}

CUresult cuStreamSynchronize(void *stream)
{
    (void)stream;
    fake_enter("cuStreamSynchronize");
    return fake_fail("cuStreamSynchronize");
}

CUresult cuStreamDestroy_v2(void *stream)
{
    (void)stream;
    return OK;
}
