/* The probes' child functions described for src/os (childfns.h): name, function, and the
 * argument as values and back. Pointers in a rebuilt argument point into the values, which
 * live as long as the child. */
#include "probe/childfns.h"

#include "probe/libcalls.h"
#include "probe/live.h"
#include "probe/smoke_child.h"

#include <limits.h>

/* ---- the variables a vendor library reads and the driver library (struct gd_live_env):
 * values 0 to 2 ---- */

#define ENV_VALUES 3

static void env_pack(const struct gd_live_env *env, struct gd_child_args *out)
{
    gd_child_args_str(out, env->visible);
    gd_child_args_str(out, env->order);
    gd_child_args_str(out, env->lib);
}

static bool env_unpack(const struct gd_child_args *in, struct gd_live_env *env)
{
    env->visible = gd_child_args_at(in, 0);
    env->order = gd_child_args_at(in, 1);
    env->lib = gd_child_args_at(in, 2);
    return in->n >= ENV_VALUES;
}

static void live_env_pack(const void *arg, struct gd_child_args *out)
{
    env_pack(arg, out);
}

static bool live_env_unpack(const struct gd_child_args *in, void *arg)
{
    return env_unpack(in, arg) && in->n == ENV_VALUES;
}

const struct gd_child_def gd_live_cuda_def = { "live.cuda", gd_live_cuda_child, live_env_pack,
                                               live_env_unpack, sizeof(struct gd_live_env) };
const struct gd_child_def gd_live_nvml_def = { "live.nvml", gd_live_nvml_child, live_env_pack,
                                               live_env_unpack, sizeof(struct gd_live_env) };

/* ---- one CUDA runtime: the variables, then the copy's path ---- */

static void cudart_pack(const void *arg, struct gd_child_args *out)
{
    const struct gd_cudart_arg *a = arg;
    env_pack(&a->env, out);
    gd_child_args_str(out, a->path);
}

static bool cudart_unpack(const struct gd_child_args *in, void *arg)
{
    struct gd_cudart_arg *a = arg;
    a->path = gd_child_args_at(in, ENV_VALUES);
    return env_unpack(in, &a->env) && in->n == ENV_VALUES + 1 && a->path;
}

const struct gd_child_def gd_live_cudart_def = { "live.cudart", gd_live_cudart_child, cudart_pack,
                                                 cudart_unpack, sizeof(struct gd_cudart_arg) };

/* ---- gpudoctor test: the variables and the driver library, the device, the family, the library
 * copy ---- */

static void smoke_pack(const void *arg, struct gd_child_args *out)
{
    const struct gd_smoke_arg *a = arg;
    env_pack(&a->env, out);
    gd_child_args_int(out, a->device);
    gd_child_args_int(out, a->family);
    gd_child_args_str(out, a->path);
}

static bool smoke_unpack(const struct gd_child_args *in, void *arg)
{
    struct gd_smoke_arg *a = arg;
    long long device, family;
    if (!env_unpack(in, &a->env) || in->n != ENV_VALUES + 3 ||
        !gd_child_args_get_int(in, ENV_VALUES, &device) ||
        !gd_child_args_get_int(in, ENV_VALUES + 1, &family) || device < INT_MIN ||
        device > INT_MAX || family < GD_SMOKE_CUBLAS || family > GD_SMOKE_NCCL)
        return false;
    a->device = (int)device;
    a->family = (enum gd_smoke_family)family;
    a->path = gd_child_args_at(in, ENV_VALUES + 2);
    return true;
}

const struct gd_child_def gd_smoke_device_def = { "smoke.device", gd_smoke_device_child, smoke_pack,
                                                  smoke_unpack, sizeof(struct gd_smoke_arg) };
const struct gd_child_def gd_smoke_library_def = { "smoke.library", gd_smoke_library_child,
                                                   smoke_pack, smoke_unpack,
                                                   sizeof(struct gd_smoke_arg) };
const struct gd_child_def gd_smoke_nccl_def = { "smoke.nccl", gd_smoke_nccl_child, smoke_pack,
                                                smoke_unpack, sizeof(struct gd_smoke_arg) };

const struct gd_child_def *const gd_probe_child_defs[] = {
    &gd_live_cuda_def,     &gd_live_nvml_def,  &gd_live_cudart_def,  &gd_smoke_device_def,
    &gd_smoke_library_def, &gd_smoke_nccl_def, &gd_version_call_def,
};
const size_t gd_probe_child_def_count = sizeof gd_probe_child_defs / sizeof *gd_probe_child_defs;
