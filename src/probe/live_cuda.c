/* The CUDA driver API (libcuda.so.1; nvcuda.dll on Windows) as every CUDA program meets it:
 * loaded by its SONAME through the loader's own search (on Windows by the path the driver probe
 * found, else by name through the DLL search: gd_live_driver_lib), cuInit, the CUDA version the
 * driver supports, and each device it lets programs see (after CUDA_VISIBLE_DEVICES and
 * CUDA_DEVICE_ORDER), in the order programs number them. No context is created here: in
 * exclusive-process mode a context of gpudoctor's could make a job starting at that moment fail;
 * `gpudoctor test` creates them. */
#include "probe/live.h"

#include "core/version.h"
#include "parse/visible_devices.h"
#include "vendor/abi.h"

#include <stdio.h>
#include <string.h>

void gd_live_apply_env(const struct gd_live_env *env)
{
    gd_os_setenv("CUDA_VISIBLE_DEVICES", env->visible);
    gd_os_setenv("CUDA_DEVICE_ORDER", env->order);
}

void gd_live_format_uuid(const unsigned char b[16], char *out)
{
    snprintf(out, 41, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

struct driver {
    cuGetErrorName_fn error_name;
    cuDriverGetVersion_fn driver_version;
    cuDeviceGetCount_fn count;
    cuDeviceGet_fn get;
    cuDeviceGetName_fn name;
    cuDeviceGetUuid_fn uuid;
    const char *uuid_call;
    cuDeviceGetPCIBusId_fn bus_id;
    cuDeviceGetAttribute_fn attribute;
    cuDeviceTotalMem_v2_fn total_mem;
};

/* NVIDIA's name for `st` from the library itself; "" when it cannot say (the toolkit's stub
 * fails cuGetErrorName too), and the parent looks it up. */
static const char *error_name(const struct driver *d, CUresult st)
{
    const char *name = NULL;
    if (d->error_name && d->error_name(st, &name) == CUDA_SUCCESS && name)
        return name;
    return "";
}

static void fail(struct gd_child_out *out, const struct driver *d, const char *key,
                 const char *call, CUresult st)
{
    gd_vc_fail(out, key, call, st, error_name(d, st));
}

static void describe_device(struct gd_child_out *out, const struct driver *d, int i)
{
    char key[64], text[256];
    CUdevice dev = 0;
    gd_vc_step(out, "cuDeviceGet %d", i);
    snprintf(key, sizeof key, "dev.%d", i);
    CUresult st = d->get(&dev, i);
    if (st != CUDA_SUCCESS) {
        fail(out, d, key, "cuDeviceGet", st);
        return;
    }
    if (d->name) {
        gd_vc_step(out, "cuDeviceGetName %d", i);
        snprintf(key, sizeof key, "dev.%d.name", i);
        memset(text, 0, sizeof text);
        st = d->name(text, (int)sizeof text - 1, dev);
        if (st == CUDA_SUCCESS)
            gd_child_send(out, key, "%s", text);
        else
            fail(out, d, key, "cuDeviceGetName", st);
    }
    if (d->uuid) {
        gd_vc_step(out, "%s %d", d->uuid_call, i);
        snprintf(key, sizeof key, "dev.%d.uuid", i);
        CUuuid u;
        memset(&u, 0, sizeof u);
        st = d->uuid(&u, dev);
        if (st == CUDA_SUCCESS) {
            gd_live_format_uuid((const unsigned char *)u.bytes, text);
            gd_child_send(out, key, "%s", text);
        } else {
            fail(out, d, key, d->uuid_call, st);
        }
    }
    if (d->bus_id) {
        gd_vc_step(out, "cuDeviceGetPCIBusId %d", i);
        snprintf(key, sizeof key, "dev.%d.bus_id", i);
        memset(text, 0, sizeof text);
        st = d->bus_id(text, 64, dev);
        if (st == CUDA_SUCCESS)
            gd_child_send(out, key, "%s", text);
        else
            fail(out, d, key, "cuDeviceGetPCIBusId", st);
    }
    if (d->attribute) {
        gd_vc_step(out, "cuDeviceGetAttribute %d", i);
        int major = -1, minor = -1, sms = -1;
        snprintf(key, sizeof key, "dev.%d.cc", i);
        st = d->attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
        if (st == CUDA_SUCCESS)
            st = d->attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
        if (st == CUDA_SUCCESS)
            gd_child_send(out, key, "%d.%d", major, minor);
        else
            fail(out, d, key, "cuDeviceGetAttribute", st);
        snprintf(key, sizeof key, "dev.%d.sm_count", i);
        st = d->attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
        if (st == CUDA_SUCCESS)
            gd_child_send(out, key, "%d", sms);
        else
            fail(out, d, key, "cuDeviceGetAttribute", st);
    }
    if (d->total_mem) {
        gd_vc_step(out, "cuDeviceTotalMem_v2 %d", i);
        snprintf(key, sizeof key, "dev.%d.memory.total", i);
        size_t bytes = 0;
        st = d->total_mem(&bytes, dev);
        if (st == CUDA_SUCCESS)
            gd_child_send(out, key, "%zu", bytes);
        else
            fail(out, d, key, "cuDeviceTotalMem_v2", st);
    }
}

void gd_live_cuda_child(void *arg, struct gd_child_out *out)
{
    const struct gd_live_env *env = arg;
    const char *lib = env->lib ? env->lib : GD_LIVE_CUDA_SONAME;
    gd_live_apply_env(env);
    char err[512], path[1024];
    gd_vc_step(out, "dlopen %s", lib);
    void *h = gd_os_dlopen(lib, err, sizeof err);
    if (!h) {
        gd_vc_fail(out, "library", "dlopen", -1, err);
        gd_vc_done(out);
        return;
    }
    if (gd_os_dlpath(h, path, sizeof path))
        gd_child_send(out, "library", "%s", path);
    else
        gd_child_send(out, "library", "%s", lib);
    struct driver d;
    memset(&d, 0, sizeof d);
    cuInit_fn init = (cuInit_fn)gd_os_dlsym(h, "cuInit");
    d.error_name = (cuGetErrorName_fn)gd_os_dlsym(h, "cuGetErrorName");
    d.driver_version = (cuDriverGetVersion_fn)gd_os_dlsym(h, "cuDriverGetVersion");
    d.count = (cuDeviceGetCount_fn)gd_os_dlsym(h, "cuDeviceGetCount");
    d.get = (cuDeviceGet_fn)gd_os_dlsym(h, "cuDeviceGet");
    d.name = (cuDeviceGetName_fn)gd_os_dlsym(h, "cuDeviceGetName");
    /* Newest first: the _v2 names a MIG device by its own UUID, as CUDA_VISIBLE_DEVICES does. */
    d.uuid_call = "cuDeviceGetUuid_v2";
    d.uuid = (cuDeviceGetUuid_fn)gd_os_dlsym(h, d.uuid_call);
    if (!d.uuid) {
        d.uuid_call = "cuDeviceGetUuid";
        d.uuid = (cuDeviceGetUuid_fn)gd_os_dlsym(h, d.uuid_call);
    }
    if (d.uuid)
        gd_child_send(out, "uuid_call", "%s", d.uuid_call);
    d.bus_id = (cuDeviceGetPCIBusId_fn)gd_os_dlsym(h, "cuDeviceGetPCIBusId");
    d.attribute = (cuDeviceGetAttribute_fn)gd_os_dlsym(h, "cuDeviceGetAttribute");
    d.total_mem = (cuDeviceTotalMem_v2_fn)gd_os_dlsym(h, "cuDeviceTotalMem_v2");
    if (d.driver_version) {
        /* It answers before cuInit, and even when cuInit fails. */
        gd_vc_step(out, "cuDriverGetVersion");
        int v = 0;
        CUresult st = d.driver_version(&v);
        if (st == CUDA_SUCCESS)
            gd_child_send(out, "version", "%d", v);
        else
            fail(out, &d, "version", "cuDriverGetVersion", st);
    }
    if (!init || !d.count || !d.get) {
        gd_vc_fail(out, "init", "dlsym", -1,
                   "the library lacks cuInit, cuDeviceGetCount or cuDeviceGet");
        gd_vc_done(out);
        return;
    }
    gd_vc_step(out, "cuInit");
    CUresult st = init(0);
    gd_child_send(out, "init.code", "%d", st);
    gd_child_send(out, "init.name", "%s", error_name(&d, st));
    if (st != CUDA_SUCCESS) {
        gd_vc_done(out);
        return;
    }
    gd_vc_step(out, "cuDeviceGetCount");
    int count = 0;
    st = d.count(&count);
    if (st != CUDA_SUCCESS) {
        fail(out, &d, "count", "cuDeviceGetCount", st);
        gd_vc_done(out);
        return;
    }
    gd_child_send(out, "count", "%d", count);
    for (int i = 0; i < count && i < GD_LIVE_DEVICES_MAX; i++)
        describe_device(out, &d, i);
    gd_vc_done(out);
}

const struct gd_fact *gd_live_version_fact(struct gd_entity *e, const char *name,
                                           const struct gd_vc *vc, const char *key,
                                           enum gd_vendor_api api, struct gd_source src)
{
    long long v;
    struct gd_version version;
    char text[GD_VERSION_FORMAT_MAX];
    if (!gd_vc_int(vc, key, &v))
        return gd_vc_fact(e, name, vc, key, false, api, -1, src);
    if (v <= 0 || gd_version_from_cuda_int((long)v, &version) != GD_OK)
        return gd_fact_unknown(e, name, "not a CUDA version", src);
    gd_version_format(&version, text, sizeof text);
    return gd_fact_str(e, name, text, src);
}

static void device_facts(struct gd_probe_ctx *ctx, const struct gd_vc *vc, int i)
{
    char id[48], key[64], text[256];
    snprintf(id, sizeof id, "cuda_device:%d", i);
    struct gd_entity *e = gd_report_add_entity(ctx->report, "cuda_device", id);
    gd_fact_int(e, "ordinal", i, gd_src(GD_SOURCE_CALL, "cuDeviceGet"));
    snprintf(key, sizeof key, "dev.%d.name", i);
    gd_vc_fact(e, "name", vc, key, false, GD_VENDOR_DRIVER, -1,
               gd_src(GD_SOURCE_CALL, "cuDeviceGetName"));
    snprintf(key, sizeof key, "dev.%d.uuid", i);
    char call[64];
    if (!gd_vc_str(vc, "uuid_call", call, sizeof call))
        snprintf(call, sizeof call, "cuDeviceGetUuid");
    gd_vc_fact(e, "uuid", vc, key, false, GD_VENDOR_DRIVER, -1, gd_src(GD_SOURCE_CALL, call));
    snprintf(key, sizeof key, "dev.%d.bus_id", i);
    struct gd_source bus_src = gd_src(GD_SOURCE_CALL, "cuDeviceGetPCIBusId");
    char bus[GD_PCI_BUS_ID_MAX];
    if (!gd_vc_str(vc, key, text, sizeof text))
        gd_vc_fact(e, "bus_id", vc, key, false, GD_VENDOR_DRIVER, -1, bus_src);
    else if (gd_pci_bus_id_normalize(text, strlen(text), bus))
        gd_fact_str(e, "bus_id", bus, bus_src);
    else
        gd_fact_unknown(e, "bus_id", "not a PCI address", bus_src);
    snprintf(key, sizeof key, "dev.%d.cc", i);
    gd_vc_fact(e, "compute_capability", vc, key, false, GD_VENDOR_DRIVER, -1,
               gd_src(GD_SOURCE_CALL, "cuDeviceGetAttribute"));
    snprintf(key, sizeof key, "dev.%d.sm_count", i);
    gd_vc_fact(e, "sm_count", vc, key, true, GD_VENDOR_DRIVER, -1,
               gd_src(GD_SOURCE_CALL, "cuDeviceGetAttribute"));
    snprintf(key, sizeof key, "dev.%d.memory.total", i);
    gd_vc_fact(e, "memory.total", vc, key, true, GD_VENDOR_DRIVER, -1,
               gd_src(GD_SOURCE_CALL, "cuDeviceTotalMem_v2"));
}

void gd_live_cuda_facts(struct gd_probe_ctx *ctx, const struct gd_vc *vc, const char *loaded)
{
    if (!loaded)
        loaded = GD_LIVE_CUDA_SONAME;
    struct gd_entity *e = gd_report_add_entity(ctx->report, "cuda_driver", "cuda_driver");
    char call[1100];
    snprintf(call, sizeof call, "dlopen(%s)", loaded);
    struct gd_source lib_src = gd_src(GD_SOURCE_CALL, call);
    const struct gd_fact *lib =
        gd_vc_fact(e, "library", vc, "library", false, GD_VENDOR_DRIVER, -1, lib_src);
    if (gd_fact_known_value(lib))
        gd_live_version_fact(e, "version", vc, "version", GD_VENDOR_DRIVER,
                             gd_src(GD_SOURCE_CALL, "cuDriverGetVersion"));
    struct gd_source init_src = gd_src(GD_SOURCE_CALL, "cuInit");
    long long code;
    char name[128];
    if (!gd_fact_known_value(lib)) {
        gd_fact_absent(e, "init", gd_report_printf(ctx->report, "%s could not be loaded", loaded),
                       init_src);
    } else if (gd_vc_int(vc, "init.code", &code)) {
        const char *n = gd_vc_str(vc, "init.name", name, sizeof name);
        if (!n || !*n)
            n = gd_vendor_error_name(GD_VENDOR_DRIVER, (long)code);
        if (n)
            gd_fact_str(e, "init", n, init_src);
        else
            gd_fact_strf(e, "init", init_src, "error %lld", code);
        gd_fact_int(e, "init.code", code, init_src);
    } else {
        gd_vc_fact(e, "init", vc, "init", false, GD_VENDOR_DRIVER, -1, init_src);
    }
    gd_vc_record_end(e, vc, loaded);
    long long count = -1;
    if (!gd_vc_int(vc, "init.code", &code) || code != CUDA_SUCCESS)
        return;
    const struct gd_fact *c = gd_vc_fact(e, "device_count", vc, "count", true, GD_VENDOR_DRIVER, -1,
                                         gd_src(GD_SOURCE_CALL, "cuDeviceGetCount"));
    if (!gd_fact_known_value(c) || !gd_vc_int(vc, "count", &count))
        return;
    for (long long i = 0; i < count && i < GD_LIVE_DEVICES_MAX; i++)
        device_facts(ctx, vc, (int)i);
}
