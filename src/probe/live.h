/*
 * The live GPUs, asked through NVIDIA's libraries in children (src/probe/vchild.h): the CUDA
 * driver API (live_cuda.c), NVML (live_nvml.c) and each CUDA runtime a program would load
 * (live_cudart.c), run at once by gd_probe_live (live.c), which joins what they say with the
 * GPUs of /proc by PCI address. Only for the live machine: nothing under --root is loaded.
 */
#ifndef GD_PROBE_LIVE_H
#define GD_PROBE_LIVE_H

#include "probe/probe.h"
#include "probe/vchild.h"

/* What a child needs of the inspected machine before it loads a vendor library: the variables
 * of the inspected environment it sets first (the driver reads them in cuInit; the inspected
 * environment may differ from gpudoctor's own: --env, --no-env; NULL values are removed), and
 * which driver library it loads (gd_live_driver_lib). */
struct gd_live_env {
    const char *visible; /* CUDA_VISIBLE_DEVICES */
    const char *order;   /* CUDA_DEVICE_ORDER */
    const char *lib;     /* the driver library to load, a name or a path; NULL: the Linux SONAME
                          * (GD_LIVE_CUDA_SONAME for the driver API, GD_LIVE_NVML_SONAME for NVML) */
};
void gd_live_apply_env(const struct gd_live_env *env);

/* The driver's libraries as a Linux program loads them: by SONAME, through glibc's search. */
#define GD_LIVE_CUDA_SONAME "libcuda.so.1"
#define GD_LIVE_NVML_SONAME "libnvidia-ml.so.1"
/* ... and as a Windows program does: nvcuda.dll and nvml.dll, by name through the DLL search or
 * by the full path the Windows driver probe found (win_driver.c). */
#define GD_LIVE_CUDA_DLL "nvcuda.dll"
#define GD_LIVE_NVML_DLL "nvml.dll"

enum gd_live_driver { GD_LIVE_CUDA, GD_LIVE_NVML };
/* The driver library the children load for the driver API or NVML on the inspected machine.
 * Linux: the SONAME. Windows (ctx->windows): the host path of the driver probe's
 * driver.nvcuda.path / driver.nvml.path fact when it found the DLL (nvml.dll of older drivers
 * is in the NVSMI folder, which is on no search path), else the bare DLL name, which Windows'
 * loader searches for as it does for any program. Borrowed: a literal, or a copy in the report
 * (out of memory is recorded there, and the bare name returned). */
const char *gd_live_driver_lib(struct gd_probe_ctx *ctx, enum gd_live_driver which);

/* Children: `arg` is a struct gd_live_env (cudart: struct gd_cudart_arg, which loads its `path`
 * and no driver library of its own choosing: env.lib is not used there). */
void gd_live_cuda_child(void *arg, struct gd_child_out *out);
void gd_live_nvml_child(void *arg, struct gd_child_out *out);
struct gd_cudart_arg {
    struct gd_live_env env;
    const char *path; /* the copy to load */
};
void gd_live_cudart_child(void *arg, struct gd_child_out *out);

/* Parents: facts from what the children sent; `lib` is what the child was told to load (its
 * env.lib; NULL: the SONAME), named in the facts' sources and reasons. */
void gd_live_cuda_facts(struct gd_probe_ctx *ctx, const struct gd_vc *vc, const char *lib);
void gd_live_nvml_facts(struct gd_probe_ctx *ctx, const struct gd_vc *vc, const char *lib);
void gd_live_cudart_facts(struct gd_probe_ctx *ctx, const struct gd_vc *vc, const char *path,
                          const char *used_by);

/* Which physical GPU each CUDA device number is (visible.c): from the driver's answer when it
 * gave one, else predicted from CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER over the GPUs NVML or
 * /proc list. Also under --root. */
void gd_probe_visible(struct gd_probe_ctx *ctx);

/* The CUDA version sent for `key` as 1000 * major + 10 * minor, recorded as "13.0"; unknown when
 * it is not one, or as gd_vc_fact records a failed or missing call. */
const struct gd_fact *gd_live_version_fact(struct gd_entity *e, const char *name,
                                           const struct gd_vc *vc, const char *key,
                                           enum gd_vendor_api api, struct gd_source src);

/* GPUs beyond this many per machine are not described (NVIDIA's largest nodes have 16). */
#define GD_LIVE_DEVICES_MAX 64

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 bytes of a CUuuid (`out`: 41 bytes). */
void gd_live_format_uuid(const unsigned char bytes[16], char *out);

#endif
