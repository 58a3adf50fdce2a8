/*
 * The driver against the CUDA runtime each framework uses: older than the CUDA family's
 * minimum, nothing of CUDA starts; older than the toolkit's own driver but within the family,
 * it runs through minor version compatibility with a limited feature set (NVIDIA's CUDA
 * Compatibility guide). Minimums come from the cuda_toolkit table. Not judged under WSL, where
 * the Windows driver's version follows another numbering.
 */
#include "rules/frameworks.h"

#include "core/str.h"
#include "kb/kb.h"

#include <stdio.h>
#include <string.h>

/* The CUDA runtime a framework uses: the version of the libcudart it loads, else the CUDA it
 * was built for. `*why` receives the fact. */
static bool runtime_of(const struct gd_entity *fw, struct gd_version *cuda,
                       const struct gd_fact **why)
{
    const struct gd_entity *lib = gd_fw_lib_loaded(fw, "cudart", cuda);
    if (lib) {
        *why = gd_entity_fact(lib, "version");
        return true;
    }
    const char *b = gd_fw_val(fw, "build.cuda");
    *why = gd_entity_fact(fw, "build.cuda");
    return b && gd_version_parse(b, cuda) == GD_OK;
}

/* The name the tables' choices are made for ("jax" for jaxlib, NULL for others). */
static const char *choice_name(const struct gd_entity *fw)
{
    const char *framework = gd_fw_val(fw, "framework");
    if (framework && (strcmp(framework, "torch") == 0 || strcmp(framework, "tensorflow") == 0 ||
                      strcmp(framework, "jax") == 0))
        return framework;
    return NULL;
}

static void too_old(struct gd_report *r, const struct gd_kb *kb, const struct gd_kb_env *env,
                    const struct gd_entity *fw, const struct gd_version *cuda,
                    const struct gd_fact *cuda_fact, const struct gd_fact *driver,
                    const struct gd_kb_cuda_driver *need)
{
    const struct gd_version *min = need->has_compat ? &need->compat_min : &need->toolkit_min;
    struct gd_finding *f = gd_finding_add(
        r, "framework.driver-too-old", GD_SEV_ERROR,
        "%s %s uses CUDA %s, which needs NVIDIA driver %s or newer; this machine has %s",
        gd_fw_val(fw, "dist"), gd_fw_val(fw, "version") ? gd_fw_val(fw, "version") : "", cuda->text,
        min->text, env->driver.text);
    gd_finding_set_why(f, "The CUDA runtime does not start on an older driver: "
                          "cudaErrorInsufficientDriver (\"CUDA driver version is insufficient for "
                          "CUDA runtime version\"), torch.cuda.is_available() is False with a "
                          "warning that the driver is too old, TensorFlow and JAX list no GPU.");
    gd_finding_add_evidence(f, driver);
    gd_finding_add_evidence(f, cuda_fact);
    gd_finding_add_evidence(f, gd_entity_fact(fw, "version"));
    char text[512];
    gd_fw_driver_need(need, cuda, text, sizeof text);
    gd_finding_add_fix(f, "Upgrade the NVIDIA driver to %s.", text);
    gd_fix_reference(f, kb, need->toolkit_row ? need->toolkit_row : need->compat_row);
    const char *name = choice_name(fw);
    if (name)
        gd_fw_fix_best(f, kb, env, name, NULL, "Or keep this driver and install");
}

static void minor_compat(struct gd_report *r, const struct gd_kb *kb, const struct gd_kb_env *env,
                         const struct gd_entity *fw, const struct gd_version *cuda,
                         const struct gd_fact *cuda_fact, const struct gd_fact *driver,
                         const struct gd_kb_cuda_driver *need)
{
    struct gd_finding *f = gd_finding_add(
        r, "framework.driver-minor-compat", GD_SEV_INFO,
        "%s %s runs CUDA %s on driver %s through minor version compatibility",
        gd_fw_val(fw, "dist"), gd_fw_val(fw, "version") ? gd_fw_val(fw, "version") : "", cuda->text,
        env->driver.text);
    gd_finding_set_why(f,
                       "The driver is older than CUDA %s's own (%s) but of its family (%s or "
                       "newer), which runs it with a limited feature set: PTX that CUDA %s "
                       "generated cannot be JIT-compiled by this driver "
                       "(cudaErrorUnsupportedPtxVersion), and calls that need the newer driver "
                       "return cudaErrorCallRequiresNewerDriver.",
                       cuda->text, need->toolkit_min.text, need->compat_min.text, cuda->text);
    gd_finding_add_evidence(f, driver);
    gd_finding_add_evidence(f, cuda_fact);
    gd_finding_add_fix(f, "For the full feature set, upgrade the NVIDIA driver to %s or newer.",
                       need->toolkit_min.text);
    gd_fix_reference(f, kb, need->toolkit_row);
    gd_fix_reference(f, kb, need->compat_row);
}

void gd_rule_fwdriver(struct gd_report *r, const struct gd_kb *kb)
{
    if (gd_fact_is_true(gd_rf(r, "wsl", "detected")))
        return;
    struct gd_kb_env env;
    const struct gd_fact *driver = NULL;
    gd_rules_kb_env(r, &env, &driver);
    if (!env.has_driver)
        return;
    /* Frameworks of one CUDA ask the table the same question: the answer for each version
     * text, the first MEMO_MAX of them (a hundred environments hold a handful). */
    enum { MEMO_MAX = 16 };
    struct {
        char cuda[GD_VERSION_TEXT_MAX];
        enum gd_kb_driver_fit fit;
        struct gd_kb_cuda_driver need;
    } memo[MEMO_MAX];
    size_t nmemo = 0;
    size_t n_fw;
    struct gd_entity *const *all_fw = gd_report_kind(r, "framework", &n_fw);
    for (size_t i = 0; i < n_fw; i++) {
        const struct gd_entity *fw = all_fw[i];
        const char *build = gd_fw_val(fw, "build");
        if (!build || strcmp(build, "cuda") != 0 || !gd_fw_judged_role(fw))
            continue;
        struct gd_version cuda;
        const struct gd_fact *cuda_fact = NULL;
        if (!runtime_of(fw, &cuda, &cuda_fact))
            continue;
        struct gd_kb_cuda_driver need;
        enum gd_kb_driver_fit fit;
        size_t m = 0;
        while (m < nmemo && strcmp(memo[m].cuda, cuda.text) != 0)
            m++;
        if (m < nmemo) {
            fit = memo[m].fit;
            need = memo[m].need;
        } else {
            fit = gd_kb_driver_runs_cuda(kb, &env.driver, &cuda, env.os, &need);
            if (nmemo < MEMO_MAX) {
                snprintf(memo[nmemo].cuda, sizeof memo[nmemo].cuda, "%s", cuda.text);
                memo[nmemo].fit = fit;
                memo[nmemo++].need = need;
            }
        }
        /* A runtime named by its major only ("12", a JAX plugin) is judged by the family. */
        if (cuda.nparts == 1 && fit != GD_KB_FIT_NO)
            continue;
        if (fit == GD_KB_FIT_NO)
            too_old(r, kb, &env, fw, &cuda, cuda_fact, driver, &need);
        else if (fit == GD_KB_FIT_MINOR_COMPAT)
            minor_compat(r, kb, &env, fw, &cuda, cuda_fact, driver, &need);
    }
}
