/*
 * A fake libcudart.so.13 that behaves like the real one where gpudoctor asks it: it loads
 * libcuda.so.1 itself, and without one cudaGetDeviceCount answers cudaErrorInsufficientDriver
 * (35) leaving the count as it was and cudaDriverGetVersion answers 0 — what CUDA 13.0's runtime
 * does on a machine without a driver. A stub libcuda gives cudaErrorStubLibrary (34), no device
 * cudaErrorNoDevice (100), a driver older than FAKE_CUDART_VERSION (default 13000) 35 again.
 */
#define _GNU_SOURCE
#include "fake.h"

#include <dlfcn.h>

static int runtime_version(void)
{
    const char *v = getenv("FAKE_CUDART_VERSION");
    return v ? atoi(v) : 13000;
}

int cudaRuntimeGetVersion(int *v)
{
    fake_enter("cudaRuntimeGetVersion");
    *v = runtime_version();
    return fake_fail("cudaRuntimeGetVersion");
}

static void *driver(void)
{
    return dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
}

int cudaDriverGetVersion(int *v)
{
    fake_enter("cudaDriverGetVersion");
    void *h = driver();
    int (*get)(int *) = h ? (int (*)(int *))dlsym(h, "cuDriverGetVersion") : NULL;
    if (!get || get(v) != 0)
        *v = 0;
    return fake_fail("cudaDriverGetVersion");
}

int cudaGetDeviceCount(int *count)
{
    fake_enter("cudaGetDeviceCount");
    int st = fake_fail("cudaGetDeviceCount");
    if (st)
        return st;
    void *h = driver();
    if (!h)
        return 35;
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    int (*version)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
    int (*get)(int *) = (int (*)(int *))dlsym(h, "cuDeviceGetCount");
    if (!init || !version || !get)
        return 35;
    int v = 0;
    if (version(&v) == 34)
        return 34;
    if (v < runtime_version())
        return 35;
    int r = init(0);
    if (r == 34 || r == 100)
        return r;
    if (r)
        return 999;
    return get(count) ? 999 : 0;
}

const char *cudaGetErrorName(int e)
{
    switch (e) {
    case 0:
        return "cudaSuccess";
    case 34:
        return "cudaErrorStubLibrary";
    case 35:
        return "cudaErrorInsufficientDriver";
    case 100:
        return "cudaErrorNoDevice";
    case 803:
        return "cudaErrorSystemDriverMismatch";
    default:
        return "cudaErrorUnknown";
    }
}
