/* A CUDA runtime (libcudart.so.N) as a program that links it sees the machine: the copy the
 * loader would pick for each libcudart SONAME, and each copy a framework would load. Its
 * cudaGetDeviceCount is the first call of most CUDA programs, and its status is the error they
 * print: cudaErrorInsufficientDriver where no driver is installed (cudart then leaves the count
 * untouched, and cudaDriverGetVersion answers 0), cudaErrorStubLibrary where the toolkit's stub
 * was loaded as libcuda.so.1. */
#include "probe/live.h"

#include "vendor/abi.h"

#include <stdio.h>
#include <string.h>

void gd_live_cudart_child(void *arg, struct gd_child_out *out)
{
    const struct gd_cudart_arg *a = arg;
    gd_live_apply_env(&a->env);
    char err[512];
    gd_vc_step(out, "dlopen %s", a->path);
    void *h = gd_os_dlopen(a->path, err, sizeof err);
    if (!h) {
        gd_vc_fail(out, "library", "dlopen", -1, err);
        gd_vc_done(out);
        return;
    }
    gd_child_send(out, "library", "%s", a->path);
    cudaRuntimeGetVersion_fn rv = (cudaRuntimeGetVersion_fn)gd_os_dlsym(h, "cudaRuntimeGetVersion");
    cudaDriverGetVersion_fn dv = (cudaDriverGetVersion_fn)gd_os_dlsym(h, "cudaDriverGetVersion");
    cudaGetDeviceCount_fn count = (cudaGetDeviceCount_fn)gd_os_dlsym(h, "cudaGetDeviceCount");
    cudaGetErrorName_fn name = (cudaGetErrorName_fn)gd_os_dlsym(h, "cudaGetErrorName");
    int v = 0;
    cudaError_t st;
    if (rv) {
        gd_vc_step(out, "cudaRuntimeGetVersion");
        if ((st = rv(&v)) == cudaSuccess)
            gd_child_send(out, "runtime_version", "%d", v);
        else
            gd_vc_fail(out, "runtime_version", "cudaRuntimeGetVersion", st, name ? name(st) : "");
    }
    if (dv) {
        gd_vc_step(out, "cudaDriverGetVersion");
        v = 0;
        if ((st = dv(&v)) == cudaSuccess)
            gd_child_send(out, "driver_version", "%d", v);
        else
            gd_vc_fail(out, "driver_version", "cudaDriverGetVersion", st, name ? name(st) : "");
    }
    if (!count) {
        gd_vc_fail(out, "count", "dlsym", -1, "the library has no cudaGetDeviceCount");
        gd_vc_done(out);
        return;
    }
    gd_vc_step(out, "cudaGetDeviceCount");
    /* A value the runtime would never write: cudart leaves it as it is on failure. */
    int n = -1;
    st = count(&n);
    gd_child_send(out, "count.code", "%d", st);
    if (name && name(st))
        gd_child_send(out, "count.name", "%s", name(st));
    if (st == cudaSuccess)
        gd_child_send(out, "count", "%d", n);
    gd_vc_done(out);
}

void gd_live_cudart_facts(struct gd_probe_ctx *ctx, const struct gd_vc *vc, const char *path,
                          const char *used_by)
{
    char id[1100];
    snprintf(id, sizeof id, "cuda_runtime:%s", path);
    struct gd_entity *e = gd_report_add_entity(ctx->report, "cuda_runtime", id);
    struct gd_source dl = gd_src(GD_SOURCE_CALL, "dlopen");
    gd_fact_str(e, "path", path, gd_src(GD_SOURCE_DERIVED, used_by));
    gd_fact_str(e, "used_by", used_by, gd_src(GD_SOURCE_DERIVED, "the loader emulation"));
    const struct gd_fact *lib =
        gd_vc_fact(e, "loaded", vc, "library", false, GD_VENDOR_RUNTIME, -1, dl);
    gd_vc_record_end(e, vc, path);
    if (!gd_fact_known_value(lib))
        return;
    gd_live_version_fact(e, "version", vc, "runtime_version", GD_VENDOR_RUNTIME,
                         gd_src(GD_SOURCE_CALL, "cudaRuntimeGetVersion"));
    struct gd_source dv = gd_src(GD_SOURCE_CALL, "cudaDriverGetVersion");
    long long v;
    if (gd_vc_int(vc, "driver_version", &v) && v == 0)
        gd_fact_absent(e, "driver_version", "cudaDriverGetVersion answers 0: no driver is loaded",
                       dv);
    else
        gd_live_version_fact(e, "driver_version", vc, "driver_version", GD_VENDOR_RUNTIME, dv);
    struct gd_source cs = gd_src(GD_SOURCE_CALL, "cudaGetDeviceCount");
    long long code;
    if (!gd_vc_int(vc, "count.code", &code)) {
        gd_vc_fact(e, "device_count.status", vc, "count", false, GD_VENDOR_RUNTIME, -1, cs);
        return;
    }
    char name[128];
    const char *n = gd_vc_str(vc, "count.name", name, sizeof name);
    if (!n || !*n)
        n = gd_vendor_error_name(GD_VENDOR_RUNTIME, (long)code);
    if (n)
        gd_fact_str(e, "device_count.status", n, cs);
    else
        gd_fact_strf(e, "device_count.status", cs, "error %lld", code);
    gd_fact_int(e, "device_count.code", code, cs);
    if (code == cudaSuccess)
        gd_vc_fact(e, "device_count", vc, "count", true, GD_VENDOR_RUNTIME, -1, cs);
    else
        gd_fact_unknown(e, "device_count", "cudaGetDeviceCount failed", cs);
}
