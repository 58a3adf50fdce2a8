/* The children of `gpudoctor test` (src/probe/smoke.h). Each announces "step KEY CALL" before
 * every vendor call, so that a crash or a hang names both the step and the call ("step KEY: CALL");
 * sends "KEY ok"
 * when a step passed, "KEY! CALL CODE NAME" when a call failed and "KEY.wrong WHAT" when a result
 * was wrong. Host buffers come from libc's malloc: gpudoctor's allocator (with its failure
 * injection) is not used in children. */
#include "probe/smoke_child.h"

#include "vendor/abi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB         (1024ULL * 1024ULL)
#define ALLOC_BYTES (64 * MIB)
#define COPY_BYTES  (16 * MIB)
#define KERNEL_N    (1u << 16)
/* The largest block is searched to this precision. */
#define LARGEST_STEP (16 * MIB)

struct cu {
    cuGetErrorName_fn error_name;
    cuInit_fn init;
    cuDeviceGet_fn device_get;
    cuDevicePrimaryCtxRetain_fn retain;
    cuDevicePrimaryCtxRelease_v2_fn release;
    cuCtxSetCurrent_fn set_current;
    cuCtxSynchronize_fn synchronize;
    cuMemGetInfo_v2_fn mem_info;
    cuMemAlloc_v2_fn alloc;
    cuMemFree_v2_fn free;
    cuMemcpyHtoD_v2_fn htod;
    cuMemcpyDtoH_v2_fn dtoh;
    cuModuleLoadDataEx_fn load_module;
    cuModuleGetFunction_fn get_function;
    cuModuleUnload_fn unload;
    cuLaunchKernel_fn launch;
    cuStreamCreate_fn stream_create;
    cuStreamSynchronize_fn stream_sync;
    cuStreamDestroy_v2_fn stream_destroy;
};

static void cu_fail(struct gd_child_out *out, const struct cu *cu, const char *key,
                    const char *call, CUresult st)
{
    const char *name = NULL;
    if (!cu->error_name || cu->error_name(st, &name) != CUDA_SUCCESS)
        name = NULL;
    gd_vc_fail(out, key, call, st, name ? name : "");
}

/* "step KEY: CALL": the parent takes the step's key up to the colon. */
static void step(struct gd_child_out *out, const char *key, const char *call)
{
    gd_vc_step(out, "%s: %s", key, call);
}

/* Load the driver (env->lib), initialise it and make `device`'s primary context current, under the
 * step "context". False (after saying why) when that fails. */
static bool open_driver(struct gd_child_out *out, const struct gd_live_env *env, struct cu *cu)
{
    gd_live_apply_env(env);
    memset(cu, 0, sizeof *cu);
    const char *lib = env->lib ? env->lib : GD_LIVE_CUDA_SONAME;
    char err[512];
    gd_vc_step(out, "context: dlopen(%s)", lib);
    void *h = gd_os_dlopen(lib, err, sizeof err);
    if (!h) {
        gd_vc_fail(out, "context", "dlopen", -1, err);
        return false;
    }
    static const struct {
        const char *name;
        size_t offset;
    } syms[] = {
        { "cuGetErrorName", offsetof(struct cu, error_name) },
        { "cuInit", offsetof(struct cu, init) },
        { "cuDeviceGet", offsetof(struct cu, device_get) },
        { "cuDevicePrimaryCtxRetain", offsetof(struct cu, retain) },
        { "cuDevicePrimaryCtxRelease_v2", offsetof(struct cu, release) },
        { "cuCtxSetCurrent", offsetof(struct cu, set_current) },
        { "cuCtxSynchronize", offsetof(struct cu, synchronize) },
        { "cuMemGetInfo_v2", offsetof(struct cu, mem_info) },
        { "cuMemAlloc_v2", offsetof(struct cu, alloc) },
        { "cuMemFree_v2", offsetof(struct cu, free) },
        { "cuMemcpyHtoD_v2", offsetof(struct cu, htod) },
        { "cuMemcpyDtoH_v2", offsetof(struct cu, dtoh) },
        { "cuModuleLoadDataEx", offsetof(struct cu, load_module) },
        { "cuModuleGetFunction", offsetof(struct cu, get_function) },
        { "cuModuleUnload", offsetof(struct cu, unload) },
        { "cuLaunchKernel", offsetof(struct cu, launch) },
        { "cuStreamCreate", offsetof(struct cu, stream_create) },
        { "cuStreamSynchronize", offsetof(struct cu, stream_sync) },
        { "cuStreamDestroy_v2", offsetof(struct cu, stream_destroy) },
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        void *f = gd_os_dlsym(h, syms[i].name);
        if (!f) {
            char why[128];
            snprintf(why, sizeof why, "the library has no %s", syms[i].name);
            gd_vc_fail(out, "context", "dlsym", -1, why);
            return false;
        }
        memcpy((char *)cu + syms[i].offset, &f, sizeof f);
    }
    step(out, "context", "cuInit");
    CUresult st = cu->init(0);
    if (st != CUDA_SUCCESS) {
        cu_fail(out, cu, "context", "cuInit", st);
        return false;
    }
    return true;
}

static bool make_current(struct gd_child_out *out, const struct cu *cu, int device, CUcontext *ctx)
{
    CUdevice dev = 0;
    step(out, "context", "cuDeviceGet");
    CUresult st = cu->device_get(&dev, device);
    if (st != CUDA_SUCCESS) {
        cu_fail(out, cu, "context", "cuDeviceGet", st);
        return false;
    }
    step(out, "context", "cuDevicePrimaryCtxRetain");
    st = cu->retain(ctx, dev);
    if (st != CUDA_SUCCESS) {
        cu_fail(out, cu, "context", "cuDevicePrimaryCtxRetain", st);
        return false;
    }
    step(out, "context", "cuCtxSetCurrent");
    st = cu->set_current(*ctx);
    if (st != CUDA_SUCCESS) {
        cu_fail(out, cu, "context", "cuCtxSetCurrent", st);
        return false;
    }
    return true;
}

/* ---- per GPU -------------------------------------------------------------------------------- */

static bool test_alloc(struct gd_child_out *out, const struct cu *cu)
{
    CUdeviceptr p = 0;
    step(out, "alloc", "cuMemAlloc_v2");
    CUresult st = cu->alloc(&p, ALLOC_BYTES);
    if (st != CUDA_SUCCESS) {
        cu_fail(out, cu, "alloc", "cuMemAlloc_v2", st);
        return false;
    }
    step(out, "alloc", "cuMemFree_v2");
    st = cu->free(p);
    if (st != CUDA_SUCCESS) {
        cu_fail(out, cu, "alloc", "cuMemFree_v2", st);
        return false;
    }
    gd_child_send(out, "alloc", "ok");
    return true;
}

static void test_copy(struct gd_child_out *out, const struct cu *cu)
{
    unsigned char *src = malloc(COPY_BYTES), *back = malloc(COPY_BYTES);
    CUdeviceptr d = 0;
    if (!src || !back) {
        gd_vc_fail(out, "copy", "malloc", -1, "out of host memory");
        goto out;
    }
    /* A pattern that differs in every byte position of a page and across pages. */
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < COPY_BYTES; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        src[i] = (unsigned char)x;
    }
    memset(back, ~src[0], COPY_BYTES);
    step(out, "copy", "cuMemAlloc_v2");
    CUresult st = cu->alloc(&d, COPY_BYTES);
    if (st != CUDA_SUCCESS) {
        cu_fail(out, cu, "copy", "cuMemAlloc_v2", st);
        d = 0;
        goto out;
    }
    step(out, "copy", "cuMemcpyHtoD_v2");
    if ((st = cu->htod(d, src, COPY_BYTES)) != CUDA_SUCCESS) {
        cu_fail(out, cu, "copy", "cuMemcpyHtoD_v2", st);
        goto out;
    }
    step(out, "copy", "cuMemcpyDtoH_v2");
    if ((st = cu->dtoh(back, d, COPY_BYTES)) != CUDA_SUCCESS) {
        cu_fail(out, cu, "copy", "cuMemcpyDtoH_v2", st);
        goto out;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < COPY_BYTES; i++) {
        if (src[i] != back[i] && bad++ == 0)
            first = i;
    }
    if (bad)
        gd_child_send(out, "copy.wrong",
                      "%zu of %llu bytes differ; the first at offset %zu: sent 0x%02x, read back "
                      "0x%02x",
                      bad, COPY_BYTES, first, src[first], back[first]);
    else
        gd_child_send(out, "copy", "ok");
out:
    if (d)
        cu->free(d);
    free(src);
    free(back);
}

static void test_kernel(struct gd_child_out *out, const struct cu *cu)
{
    uint32_t *in = malloc(KERNEL_N * sizeof *in), *res = malloc(KERNEL_N * sizeof *res);
    CUdeviceptr d_in = 0, d_out = 0;
    CUmodule mod = NULL;
    char log[4096] = "";
    if (!in || !res) {
        gd_vc_fail(out, "kernel", "malloc", -1, "out of host memory");
        goto out;
    }
    CUjit_option opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *values[2] = { log, (void *)(uintptr_t)(sizeof log - 1) };
    step(out, "kernel", "cuModuleLoadDataEx");
    CUresult st = cu->load_module(&mod, gd_smoke_ptx, 2, opts, values);
    if (st != CUDA_SUCCESS) {
        cu_fail(out, cu, "kernel", "cuModuleLoadDataEx", st);
        log[sizeof log - 1] = '\0';
        if (log[0])
            gd_child_send(out, "kernel.log", "%s", log);
        mod = NULL;
        goto out;
    }
    CUfunction fn = NULL;
    step(out, "kernel", "cuModuleGetFunction");
    if ((st = cu->get_function(&fn, mod, GD_SMOKE_KERNEL)) != CUDA_SUCCESS) {
        cu_fail(out, cu, "kernel", "cuModuleGetFunction", st);
        goto out;
    }
    for (uint32_t i = 0; i < KERNEL_N; i++) {
        in[i] = i * 2654435761u;
        res[i] = ~(in[i] * 3u + i);
    }
    step(out, "kernel", "cuMemAlloc_v2");
    if ((st = cu->alloc(&d_in, KERNEL_N * sizeof *in)) != CUDA_SUCCESS ||
        (st = cu->alloc(&d_out, KERNEL_N * sizeof *in)) != CUDA_SUCCESS) {
        cu_fail(out, cu, "kernel", "cuMemAlloc_v2", st);
        goto out;
    }
    step(out, "kernel", "cuMemcpyHtoD_v2");
    if ((st = cu->htod(d_in, in, KERNEL_N * sizeof *in)) != CUDA_SUCCESS ||
        (st = cu->htod(d_out, res, KERNEL_N * sizeof *res)) != CUDA_SUCCESS) {
        cu_fail(out, cu, "kernel", "cuMemcpyHtoD_v2", st);
        goto out;
    }
    unsigned n = KERNEL_N;
    void *params[3] = { &d_out, &d_in, &n };
    step(out, "kernel", "cuLaunchKernel");
    if ((st = cu->launch(fn, KERNEL_N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL)) !=
        CUDA_SUCCESS) {
        cu_fail(out, cu, "kernel", "cuLaunchKernel", st);
        goto out;
    }
    step(out, "kernel", "cuCtxSynchronize");
    if ((st = cu->synchronize()) != CUDA_SUCCESS) {
        cu_fail(out, cu, "kernel", "cuCtxSynchronize", st);
        goto out;
    }
    step(out, "kernel", "cuMemcpyDtoH_v2");
    if ((st = cu->dtoh(res, d_out, KERNEL_N * sizeof *res)) != CUDA_SUCCESS) {
        cu_fail(out, cu, "kernel", "cuMemcpyDtoH_v2", st);
        goto out;
    }
    size_t bad = 0, first = 0;
    for (uint32_t i = 0; i < KERNEL_N; i++)
        if (res[i] != in[i] * 3u + i && bad++ == 0)
            first = i;
    if (bad)
        gd_child_send(out, "kernel.wrong", "%zu of %u elements wrong; out[%zu] is %u, %u expected",
                      bad, KERNEL_N, first, res[first], in[first] * 3u + (uint32_t)first);
    else
        gd_child_send(out, "kernel", "ok");
out:
    if (d_in)
        cu->free(d_in);
    if (d_out)
        cu->free(d_out);
    if (mod)
        cu->unload(mod);
    free(in);
    free(res);
}

/* The largest single allocation, to LARGEST_STEP: what is left for one tensor. */
static void test_largest(struct gd_child_out *out, const struct cu *cu, size_t free_bytes)
{
    step(out, "largest_block", "cuMemAlloc_v2");
    size_t lo = 0, hi = free_bytes;
    CUdeviceptr p = 0;
    CUresult st = free_bytes ? cu->alloc(&p, free_bytes) : CUDA_ERROR_OUT_OF_MEMORY;
    if (st == CUDA_SUCCESS) {
        cu->free(p);
        gd_child_send(out, "largest_block.bytes", "%zu", free_bytes);
        gd_child_send(out, "largest_block", "ok");
        return;
    }
    while (hi - lo > LARGEST_STEP) {
        size_t mid = lo + (hi - lo) / 2;
        mid -= mid % (2 * MIB);
        if (mid <= lo)
            break;
        st = cu->alloc(&p, mid);
        if (st == CUDA_SUCCESS) {
            cu->free(p);
            lo = mid;
        } else if (st == CUDA_ERROR_OUT_OF_MEMORY) {
            hi = mid;
        } else {
            cu_fail(out, cu, "largest_block", "cuMemAlloc_v2", st);
            return;
        }
    }
    gd_child_send(out, "largest_block.bytes", "%zu", lo);
    gd_child_send(out, "largest_block", "ok");
}

void gd_smoke_device_child(void *arg, struct gd_child_out *out)
{
    const struct gd_smoke_arg *a = arg;
    struct cu cu;
    CUcontext ctx = NULL;
    if (!open_driver(out, &a->env, &cu) || !make_current(out, &cu, a->device, &ctx)) {
        gd_vc_done(out);
        return;
    }
    gd_child_send(out, "context", "ok");
    step(out, "memory", "cuMemGetInfo_v2");
    size_t free_bytes = 0, total = 0;
    CUresult st = cu.mem_info(&free_bytes, &total);
    if (st == CUDA_SUCCESS) {
        gd_child_send(out, "memory", "ok");
        gd_child_send(out, "memory.free", "%zu", free_bytes);
        gd_child_send(out, "memory.total", "%zu", total);
    } else {
        cu_fail(out, &cu, "memory", "cuMemGetInfo_v2", st);
    }
    if (test_alloc(out, &cu)) {
        test_copy(out, &cu);
        test_kernel(out, &cu);
        if (st == CUDA_SUCCESS)
            test_largest(out, &cu, free_bytes);
    }
    CUdevice dev = 0;
    if (cu.device_get(&dev, a->device) == CUDA_SUCCESS)
        cu.release(dev);
    gd_vc_done(out);
}

/* ---- per library copy ----------------------------------------------------------------------- */

/* Small integers: exact in FP32 and in the TF32 that tensor cores may use, so results compare
 * exactly whatever math mode the library picks. */
static float small(unsigned a, unsigned b)
{
    return (float)((int)((a * 7u + b * 3u) % 5u) - 2);
}

/* Device buffers for up to three arrays of floats, filled from the host. */
static bool upload(struct gd_child_out *out, const struct cu *cu, const char *key, CUdeviceptr *d,
                   const float *h, size_t n)
{
    step(out, key, "cuMemAlloc_v2");
    CUresult st = cu->alloc(d, n * sizeof *h);
    if (st != CUDA_SUCCESS) {
        *d = 0;
        cu_fail(out, cu, key, "cuMemAlloc_v2", st);
        return false;
    }
    step(out, key, "cuMemcpyHtoD_v2");
    st = cu->htod(*d, h, n * sizeof *h);
    if (st != CUDA_SUCCESS) {
        cu_fail(out, cu, key, "cuMemcpyHtoD_v2", st);
        return false;
    }
    return true;
}

static bool download(struct gd_child_out *out, const struct cu *cu, const char *key, float *h,
                     CUdeviceptr d, size_t n)
{
    step(out, key, "cuCtxSynchronize");
    CUresult st = cu->synchronize();
    if (st == CUDA_SUCCESS) {
        step(out, key, "cuMemcpyDtoH_v2");
        st = cu->dtoh(h, d, n * sizeof *h);
    }
    if (st != CUDA_SUCCESS)
        cu_fail(out, cu, key, "cuMemcpyDtoH_v2", st);
    return st == CUDA_SUCCESS;
}

static void compare(struct gd_child_out *out, const char *key, const float *got, const float *want,
                    size_t n)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        float d = got[i] - want[i];
        if ((d > 1e-3f || d < -1e-3f || got[i] != got[i]) && bad++ == 0)
            first = i;
    }
    if (bad) {
        char k[32];
        snprintf(k, sizeof k, "%s.wrong", key);
        gd_child_send(out, k, "%zu of %zu values wrong; element %zu is %g, %g expected", bad, n,
                      first, (double)got[first], (double)want[first]);
    } else {
        gd_child_send(out, key, "ok");
    }
}

enum { GEMM_N = 64 };

static void run_sgemm(struct gd_child_out *out, const struct cu *cu, void *h)
{
    cublasCreate_v2_fn create = (cublasCreate_v2_fn)gd_os_dlsym(h, "cublasCreate_v2");
    cublasDestroy_v2_fn destroy = (cublasDestroy_v2_fn)gd_os_dlsym(h, "cublasDestroy_v2");
    cublasSgemm_v2_fn sgemm = (cublasSgemm_v2_fn)gd_os_dlsym(h, "cublasSgemm_v2");
    cublasGetStatusName_fn status_name =
        (cublasGetStatusName_fn)gd_os_dlsym(h, "cublasGetStatusName");
    if (!create || !destroy || !sgemm) {
        gd_vc_fail(out, "create", "dlsym", -1,
                   "the library lacks cublasCreate_v2, cublasDestroy_v2 or cublasSgemm_v2");
        return;
    }
    cublasHandle_t handle = NULL;
    step(out, "create", "cublasCreate_v2");
    cublasStatus_t st = create(&handle);
    if (st != 0) {
        gd_vc_fail(out, "create", "cublasCreate_v2", st, status_name ? status_name(st) : "");
        return;
    }
    gd_child_send(out, "create", "ok");
    static float a[GEMM_N * GEMM_N], b[GEMM_N * GEMM_N], c[GEMM_N * GEMM_N], want[GEMM_N * GEMM_N];
    /* Column-major, as cuBLAS reads them: a[i + k * N] is A(i, k). */
    for (unsigned i = 0; i < GEMM_N; i++)
        for (unsigned k = 0; k < GEMM_N; k++) {
            a[i + k * GEMM_N] = small(i, k);
            b[i + k * GEMM_N] = small(k + 3, i + 1);
        }
    for (unsigned i = 0; i < GEMM_N; i++)
        for (unsigned j = 0; j < GEMM_N; j++) {
            float s = 0;
            for (unsigned k = 0; k < GEMM_N; k++)
                s += a[i + k * GEMM_N] * b[k + j * GEMM_N];
            want[i + j * GEMM_N] = s;
            c[i + j * GEMM_N] = -12345.0f;
        }
    CUdeviceptr da = 0, db = 0, dc = 0;
    const size_t n = GEMM_N * GEMM_N;
    if (upload(out, cu, "sgemm", &da, a, n) && upload(out, cu, "sgemm", &db, b, n) &&
        upload(out, cu, "sgemm", &dc, c, n)) {
        const float alpha = 1.0f, beta = 0.0f;
        step(out, "sgemm", "cublasSgemm_v2");
        st = sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, GEMM_N, GEMM_N, GEMM_N, &alpha,
                   (const float *)(uintptr_t)da, GEMM_N, (const float *)(uintptr_t)db, GEMM_N,
                   &beta, (float *)(uintptr_t)dc, GEMM_N);
        if (st != 0)
            gd_vc_fail(out, "sgemm", "cublasSgemm_v2", st, status_name ? status_name(st) : "");
        else if (download(out, cu, "sgemm", c, dc, n))
            compare(out, "sgemm", c, want, n);
    }
    if (da)
        cu->free(da);
    if (db)
        cu->free(db);
    if (dc)
        cu->free(dc);
    destroy(handle);
}

/* A 3-channel 8x8 image, four 3x3 filters, padding 1, stride 1: y is 4x8x8. */
enum { CONV_C = 3, CONV_H = 8, CONV_W = 8, CONV_K = 4, CONV_R = 3 };

static void conv_reference(const float *x, const float *w, float *y)
{
    for (int k = 0; k < CONV_K; k++)
        for (int h = 0; h < CONV_H; h++)
            for (int v = 0; v < CONV_W; v++) {
                float s = 0;
                for (int c = 0; c < CONV_C; c++)
                    for (int r = 0; r < CONV_R; r++)
                        for (int q = 0; q < CONV_R; q++) {
                            int ih = h + r - 1, iw = v + q - 1;
                            if (ih < 0 || iw < 0 || ih >= CONV_H || iw >= CONV_W)
                                continue;
                            /* cuDNN's CROSS_CORRELATION: the filter is not flipped. */
                            s += x[(c * CONV_H + ih) * CONV_W + iw] *
                                 w[((k * CONV_C + c) * CONV_R + r) * CONV_R + q];
                        }
                y[(k * CONV_H + h) * CONV_W + v] = s;
            }
}

struct dnn {
    cudnnCreate_fn create;
    cudnnDestroy_fn destroy;
    cudnnGetErrorString_fn error_string;
    cudnnCreateTensorDescriptor_fn create_tensor;
    cudnnSetTensor4dDescriptor_fn set_tensor;
    cudnnDestroyTensorDescriptor_fn destroy_tensor;
    cudnnCreateFilterDescriptor_fn create_filter;
    cudnnSetFilter4dDescriptor_fn set_filter;
    cudnnDestroyFilterDescriptor_fn destroy_filter;
    cudnnCreateConvolutionDescriptor_fn create_conv;
    cudnnSetConvolution2dDescriptor_fn set_conv;
    cudnnDestroyConvolutionDescriptor_fn destroy_conv;
    cudnnGetConvolutionForwardWorkspaceSize_fn workspace;
    cudnnConvolutionForward_fn forward;
};

static void dnn_fail(struct gd_child_out *out, const struct dnn *d, const char *key,
                     const char *call, cudnnStatus_t st)
{
    gd_vc_fail(out, key, call, st, d->error_string ? d->error_string(st) : "");
}

static bool dnn_symbols(struct gd_child_out *out, void *h, struct dnn *d)
{
    static const struct {
        const char *name;
        size_t offset;
    } syms[] = {
        { "cudnnCreate", offsetof(struct dnn, create) },
        { "cudnnDestroy", offsetof(struct dnn, destroy) },
        { "cudnnGetErrorString", offsetof(struct dnn, error_string) },
        { "cudnnCreateTensorDescriptor", offsetof(struct dnn, create_tensor) },
        { "cudnnSetTensor4dDescriptor", offsetof(struct dnn, set_tensor) },
        { "cudnnDestroyTensorDescriptor", offsetof(struct dnn, destroy_tensor) },
        { "cudnnCreateFilterDescriptor", offsetof(struct dnn, create_filter) },
        { "cudnnSetFilter4dDescriptor", offsetof(struct dnn, set_filter) },
        { "cudnnDestroyFilterDescriptor", offsetof(struct dnn, destroy_filter) },
        { "cudnnCreateConvolutionDescriptor", offsetof(struct dnn, create_conv) },
        { "cudnnSetConvolution2dDescriptor", offsetof(struct dnn, set_conv) },
        { "cudnnDestroyConvolutionDescriptor", offsetof(struct dnn, destroy_conv) },
        { "cudnnGetConvolutionForwardWorkspaceSize", offsetof(struct dnn, workspace) },
        { "cudnnConvolutionForward", offsetof(struct dnn, forward) },
    };
    memset(d, 0, sizeof *d);
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        void *f = gd_os_dlsym(h, syms[i].name);
        if (!f) {
            char why[128];
            snprintf(why, sizeof why, "the library has no %s", syms[i].name);
            gd_vc_fail(out, "create", "dlsym", -1, why);
            return false;
        }
        memcpy((char *)d + syms[i].offset, &f, sizeof f);
    }
    return true;
}

static void run_conv(struct gd_child_out *out, const struct cu *cu, void *h)
{
    struct dnn d;
    if (!dnn_symbols(out, h, &d))
        return;
    cudnnHandle_t handle = NULL;
    step(out, "create", "cudnnCreate");
    cudnnStatus_t st = d.create(&handle);
    if (st != CUDNN_STATUS_SUCCESS) {
        dnn_fail(out, &d, "create", "cudnnCreate", st);
        return;
    }
    gd_child_send(out, "create", "ok");
    static float x[CONV_C * CONV_H * CONV_W], w[CONV_K * CONV_C * CONV_R * CONV_R],
        y[CONV_K * CONV_H * CONV_W], want[CONV_K * CONV_H * CONV_W];
    for (unsigned i = 0; i < sizeof x / sizeof *x; i++)
        x[i] = small(i, i / 7);
    for (unsigned i = 0; i < sizeof w / sizeof *w; i++)
        w[i] = small(i + 2, i / 3);
    for (unsigned i = 0; i < sizeof y / sizeof *y; i++)
        y[i] = -12345.0f;
    conv_reference(x, w, want);
    cudnnTensorDescriptor_t xd = NULL, yd = NULL;
    cudnnFilterDescriptor_t wd = NULL;
    cudnnConvolutionDescriptor_t cd = NULL;
    CUdeviceptr dx = 0, dw = 0, dy = 0, ws = 0;
    size_t ws_bytes = 0;
    step(out, "conv", "cudnnSetTensor4dDescriptor");
    if ((st = d.create_tensor(&xd)) || (st = d.create_tensor(&yd)) || (st = d.create_filter(&wd)) ||
        (st = d.create_conv(&cd)) ||
        (st = d.set_tensor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, CONV_C, CONV_H, CONV_W)) ||
        (st = d.set_tensor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, CONV_K, CONV_H, CONV_W)) ||
        (st = d.set_filter(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CONV_K, CONV_C, CONV_R,
                           CONV_R)) ||
        (st = d.set_conv(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT))) {
        dnn_fail(out, &d, "conv", "cudnnSet*Descriptor", st);
        goto out;
    }
    step(out, "conv", "cudnnGetConvolutionForwardWorkspaceSize");
    if ((st = d.workspace(handle, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                          &ws_bytes))) {
        dnn_fail(out, &d, "conv", "cudnnGetConvolutionForwardWorkspaceSize", st);
        goto out;
    }
    if (!upload(out, cu, "conv", &dx, x, sizeof x / sizeof *x) ||
        !upload(out, cu, "conv", &dw, w, sizeof w / sizeof *w) ||
        !upload(out, cu, "conv", &dy, y, sizeof y / sizeof *y))
        goto out;
    if (ws_bytes) {
        step(out, "conv", "cuMemAlloc_v2");
        CUresult cst = cu->alloc(&ws, ws_bytes);
        if (cst != CUDA_SUCCESS) {
            ws = 0;
            cu_fail(out, cu, "conv", "cuMemAlloc_v2", cst);
            goto out;
        }
    }
    const float alpha = 1.0f, beta = 0.0f;
    step(out, "conv", "cudnnConvolutionForward");
    st = d.forward(handle, &alpha, xd, (const void *)(uintptr_t)dx, wd, (const void *)(uintptr_t)dw,
                   cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, (void *)(uintptr_t)ws, ws_bytes,
                   &beta, yd, (void *)(uintptr_t)dy);
    if (st != CUDNN_STATUS_SUCCESS)
        dnn_fail(out, &d, "conv", "cudnnConvolutionForward", st);
    else if (download(out, cu, "conv", y, dy, sizeof y / sizeof *y))
        compare(out, "conv", y, want, sizeof y / sizeof *y);
out:
    if (xd)
        d.destroy_tensor(xd);
    if (yd)
        d.destroy_tensor(yd);
    if (wd)
        d.destroy_filter(wd);
    if (cd)
        d.destroy_conv(cd);
    if (dx)
        cu->free(dx);
    if (dw)
        cu->free(dw);
    if (dy)
        cu->free(dy);
    if (ws)
        cu->free(ws);
    d.destroy(handle);
}

/* The step "load": the library copy under test, loaded before anything else so that a copy
 * that cannot even be loaded is reported whether or not a GPU works. NULL after saying why. */
static void *load(struct gd_child_out *out, const struct gd_smoke_arg *a)
{
    char err[512];
    gd_live_apply_env(&a->env);
    gd_vc_step(out, "load: dlopen(%s)", a->path);
    void *h = gd_os_dlopen(a->path, err, sizeof err);
    if (!h) {
        gd_vc_fail(out, "load", "dlopen", -1, err);
        gd_vc_done(out);
        return NULL;
    }
    gd_child_send(out, "load", "ok");
    return h;
}

void gd_smoke_library_child(void *arg, struct gd_child_out *out)
{
    const struct gd_smoke_arg *a = arg;
    void *h = load(out, a);
    if (!h)
        return;
    struct cu cu;
    CUcontext ctx = NULL;
    if (a->device < 0 || !open_driver(out, &a->env, &cu) ||
        !make_current(out, &cu, a->device, &ctx)) {
        gd_vc_done(out);
        return;
    }
    gd_child_send(out, "context", "ok");
    if (a->family == GD_SMOKE_CUBLAS)
        run_sgemm(out, &cu, h);
    else
        run_conv(out, &cu, h);
    CUdevice dev = 0;
    if (cu.device_get(&dev, a->device) == CUDA_SUCCESS)
        cu.release(dev);
    gd_vc_done(out);
}

/* ---- all GPUs ------------------------------------------------------------------------------- */

enum { NCCL_COUNT = 1024 };

void gd_smoke_nccl_child(void *arg, struct gd_child_out *out)
{
    const struct gd_smoke_arg *a = arg;
    int n = a->device; /* the number of GPUs */
    void *h = load(out, a);
    if (!h)
        return;
    ncclCommInitAll_fn init_all = (ncclCommInitAll_fn)gd_os_dlsym(h, "ncclCommInitAll");
    ncclCommDestroy_fn destroy = (ncclCommDestroy_fn)gd_os_dlsym(h, "ncclCommDestroy");
    ncclGroup_fn group_start = (ncclGroup_fn)gd_os_dlsym(h, "ncclGroupStart");
    ncclGroup_fn group_end = (ncclGroup_fn)gd_os_dlsym(h, "ncclGroupEnd");
    ncclAllReduce_fn all_reduce = (ncclAllReduce_fn)gd_os_dlsym(h, "ncclAllReduce");
    ncclGetErrorString_fn error_string =
        (ncclGetErrorString_fn)gd_os_dlsym(h, "ncclGetErrorString");
    if (!init_all || !destroy || !group_start || !group_end || !all_reduce) {
        gd_vc_fail(out, "init", "dlsym", -1,
                   "the library lacks ncclCommInitAll, ncclGroupStart/End or ncclAllReduce");
        gd_vc_done(out);
        return;
    }
    struct cu cu;
    if (n < 2 || n > GD_SMOKE_NCCL_MAX || !open_driver(out, &a->env, &cu)) {
        gd_vc_done(out);
        return;
    }
    CUcontext ctx[GD_SMOKE_NCCL_MAX];
    CUstream stream[GD_SMOKE_NCCL_MAX];
    CUdeviceptr send[GD_SMOKE_NCCL_MAX], recv[GD_SMOKE_NCCL_MAX];
    ncclComm_t comms[GD_SMOKE_NCCL_MAX];
    int devs[GD_SMOKE_NCCL_MAX];
    memset(send, 0, sizeof send);
    memset(recv, 0, sizeof recv);
    memset(stream, 0, sizeof stream);
    memset(comms, 0, sizeof comms);
    static float host[NCCL_COUNT];
    bool ok = true;
    for (int d = 0; ok && d < n; d++) {
        devs[d] = d;
        ok = make_current(out, &cu, d, &ctx[d]);
        for (int i = 0; i < NCCL_COUNT; i++)
            host[i] = (float)(d + 1);
        if (ok)
            ok = upload(out, &cu, "all_reduce", &send[d], host, NCCL_COUNT) &&
                 upload(out, &cu, "all_reduce", &recv[d], host, NCCL_COUNT);
        CUresult cst;
        if (ok && (cst = cu.stream_create(&stream[d], 0)) != CUDA_SUCCESS) {
            cu_fail(out, &cu, "all_reduce", "cuStreamCreate", cst);
            stream[d] = NULL;
            ok = false;
        }
    }
    if (!ok) {
        gd_vc_done(out);
        return;
    }
    gd_child_send(out, "context", "ok");
    step(out, "init", "ncclCommInitAll");
    ncclResult_t st = init_all(comms, n, devs);
    if (st != ncclSuccess) {
        gd_vc_fail(out, "init", "ncclCommInitAll", st, error_string ? error_string(st) : "");
        gd_vc_done(out);
        return;
    }
    gd_child_send(out, "init", "ok");
    /* One thread drives every GPU: NCCL needs the calls grouped. */
    step(out, "all_reduce", "ncclGroupStart");
    st = group_start();
    for (int d = 0; st == ncclSuccess && d < n; d++) {
        cu.set_current(ctx[d]);
        step(out, "all_reduce", "ncclAllReduce");
        st = all_reduce((const void *)(uintptr_t)send[d], (void *)(uintptr_t)recv[d], NCCL_COUNT,
                        ncclFloat32, ncclSum, comms[d], stream[d]);
    }
    ncclResult_t end = group_end();
    if (st == ncclSuccess)
        st = end;
    if (st != ncclSuccess) {
        gd_vc_fail(out, "all_reduce", "ncclAllReduce", st, error_string ? error_string(st) : "");
        gd_vc_done(out);
        return;
    }
    float want = (float)(n * (n + 1) / 2);
    bool right = true;
    for (int d = 0; d < n && right; d++) {
        cu.set_current(ctx[d]);
        step(out, "all_reduce", "cuStreamSynchronize");
        CUresult cst = cu.stream_sync(stream[d]);
        if (cst == CUDA_SUCCESS)
            cst = cu.dtoh(host, recv[d], sizeof host);
        if (cst != CUDA_SUCCESS) {
            cu_fail(out, &cu, "all_reduce", "cuStreamSynchronize", cst);
            gd_vc_done(out);
            return;
        }
        for (int i = 0; i < NCCL_COUNT && right; i++) {
            if (host[i] != want) {
                gd_child_send(out, "all_reduce.wrong",
                              "GPU %d received %g at element %d, %g expected (the sum of 1 to %d)",
                              d, (double)host[i], i, (double)want, n);
                right = false;
            }
        }
    }
    if (right)
        gd_child_send(out, "all_reduce", "ok");
    for (int d = 0; d < n; d++) {
        destroy(comms[d]);
        cu.set_current(ctx[d]);
        cu.free(send[d]);
        cu.free(recv[d]);
        cu.stream_destroy(stream[d]);
    }
    gd_vc_done(out);
}
