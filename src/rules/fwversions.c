/*
 * The CUDA runtime and cuDNN a framework will load against the ones it was built with. Within a
 * major, a library runs code built for an older minor, not for a newer one: TensorFlow refuses
 * an older cuDNN minor at start ("Loaded runtime CuDNN library: X but source was compiled with:
 * Y. CuDNN library needs to have matching major version and equal or higher minor version",
 * stream_executor/cuda/cuda_dnn.cc), PyTorch raises "cuDNN version incompatibility" for one
 * (torch/backends/cudnn/__init__.py), and code built with a newer CUDA runtime may call symbols
 * an older libcudart lacks. What the build needs comes from the build itself (torch's cuDNN pin,
 * build_info.py) or, where it states only a major, from the tables (tf_builds, torch_builds).
 */
#include "rules/frameworks.h"

#include "core/str.h"
#include "kb/kb.h"

#include <stdio.h>
#include <string.h>

/* What cuDNN the build needs, and where that is stated: the fact (torch's pin, build_info's
 * version) or a row of the tables. */
struct need {
    struct gd_version cudnn;
    const struct gd_fact *fact;
    const struct gd_kb_row *row;
    char pin[96]; /* torch: the exact requirement of its METADATA ("==8.9.2.26") */
    char wheel[64];
};

/* The nvidia-cudnn wheel a CUDA build's METADATA pins ("requires.nvidia-cudnn-cu12"). */
static const struct gd_fact *cudnn_pin(const struct gd_entity *fw, char *wheel, size_t size)
{
    for (size_t i = 0; i < gd_entity_fact_count(fw); i++) {
        const struct gd_fact *f = gd_entity_fact_at(fw, i);
        const char *name = gd_fact_name(f);
        if (gd_str_starts_with(name, "requires.nvidia-cudnn-cu") && gd_fact_known_value(f)) {
            snprintf(wheel, size, "%s", name + strlen("requires."));
            return f;
        }
    }
    return NULL;
}

static bool cudnn_need(const struct gd_kb *kb, const struct gd_kb_env *env,
                       const struct gd_entity *fw, struct need *n)
{
    memset(n, 0, sizeof *n);
    const char *framework = gd_fw_val(fw, "framework"), *version = gd_fw_val(fw, "version");
    const struct gd_fact *pin = cudnn_pin(fw, n->wheel, sizeof n->wheel);
    const char *p = gd_fact_known_value(pin);
    /* "==9.1.0.70": the exact cuDNN the wheel was built and shipped with. */
    if (p && gd_str_starts_with(p, "==") && gd_version_parse(p + 2, &n->cudnn) == GD_OK) {
        n->fact = pin;
        snprintf(n->pin, sizeof n->pin, "%s", p);
        return true;
    }
    const char *b = gd_fw_val(fw, "build.cudnn");
    if (b && gd_version_parse(b, &n->cudnn) == GD_OK && n->cudnn.nparts >= 2) {
        n->fact = gd_entity_fact(fw, "build.cudnn");
        return true;
    }
    /* The build states a major at most: the tables' cuDNN of that release, of the same major. */
    struct gd_version rel, major;
    bool has_major = b && gd_version_parse(b, &major) == GD_OK;
    if (!framework || !version || gd_version_parse(version, &rel) != GD_OK)
        return false;
    if (strcmp(framework, "tensorflow") == 0) {
        struct gd_kb_tf_build tb;
        if (gd_kb_tf_build(kb, &rel, env->os, &tb) != GD_OK)
            return false;
        n->cudnn = tb.cudnn;
        n->row = tb.row;
        n->fact = gd_entity_fact(fw, "build.cudnn");
    } else if (strcmp(framework, "torch") == 0) {
        const char *cuda = gd_fw_val(fw, "build.cuda");
        struct gd_version cv;
        struct gd_kb_torch_variant vars[GD_KB_TORCH_VARIANTS_MAX];
        size_t nv = 0;
        if (!cuda || gd_version_parse(cuda, &cv) != GD_OK ||
            gd_kb_torch_variants(kb, &rel, vars, GD_KB_TORCH_VARIANTS_MAX, &nv) != GD_OK)
            return false;
        bool found = false;
        for (size_t i = 0; i < nv && !found; i++)
            if (gd_version_cmp_parts(&vars[i].cuda, &cv, 2) == 0 && vars[i].has_cudnn) {
                n->cudnn = vars[i].cudnn;
                found = true;
            }
        if (!found)
            return false;
        /* The matrix row of that variant holds the cuDNN. */
        const struct gd_kb_table *t = gd_kb_table(kb, "torch_builds");
        for (size_t i = 0; i < gd_kb_row_count(t); i++) {
            const struct gd_kb_row *row = gd_kb_row_at(t, i);
            const char *kind = gd_kb_str(row, "kind"), *tv = gd_kb_str(row, "torch");
            const char *c = gd_kb_str(row, "cuda");
            struct gd_version a, cc;
            if (kind && strcmp(kind, "wheel") == 0 && tv && c &&
                gd_version_parse(tv, &a) == GD_OK && gd_version_cmp_parts(&a, &rel, 2) == 0 &&
                gd_version_parse(c, &cc) == GD_OK && gd_version_cmp_parts(&cc, &cv, 2) == 0)
                n->row = row;
        }
        n->fact = gd_entity_fact(fw, "build.cuda");
    } else {
        return false;
    }
    /* A table's cuDNN of another major than the build states is no requirement of it. */
    return !has_major || gd_version_major(&major) == gd_version_major(&n->cudnn);
}

static const char *site_of(const struct gd_entity *fw)
{
    const char *site = gd_fw_val(fw, "site");
    return site ? site : "";
}

static void cudnn_older(struct gd_report *r, const struct gd_kb *kb, const struct gd_entity *fw,
                        const struct gd_entity *lib, const struct gd_version *have,
                        const struct need *n)
{
    const char *framework = gd_fw_val(fw, "framework"), *path = gd_fw_val(lib, "path");
    struct gd_finding *f = gd_finding_add(
        r, "framework.cudnn-older-than-build", GD_SEV_ERROR,
        "%s %s loads cuDNN %s, older than the cuDNN %s it was built with", gd_fw_val(fw, "dist"),
        gd_fw_val(fw, "version") ? gd_fw_val(fw, "version") : "", have->text, n->cudnn.text);
    if (strcmp(framework, "tensorflow") == 0)
        gd_finding_set_why(f,
                           "TensorFlow refuses it at start: \"Loaded runtime CuDNN library: %s "
                           "but source was compiled with: %s... CuDNN library needs to have "
                           "matching major version and equal or higher minor version\", then "
                           "\"DNN library initialization failed\" for every convolution.",
                           have->text, n->cudnn.text);
    else if (strcmp(framework, "torch") == 0)
        gd_finding_set_why(f, "PyTorch raises \"cuDNN version incompatibility: PyTorch was "
                              "compiled against ... but found runtime version ...\" at the first "
                              "use of cuDNN (a convolution, an RNN).");
    else
        gd_finding_set_why(f, "A cuDNN older than the one a program was built with lacks what "
                              "it calls: its cuDNN operations fail.");
    gd_finding_add_evidence(f, gd_entity_fact(lib, "path"));
    gd_finding_add_evidence(f, gd_entity_fact(lib, "version"));
    gd_finding_add_evidence(f, gd_entity_fact(lib, "rule"));
    gd_finding_add_evidence(f, n->fact);
    gd_finding_add_evidence(f, gd_entity_fact(fw, "version"));
    if (n->row) {
        const char *url = gd_rules_row_url(kb, n->row);
        gd_finding_add_fix(f, "%s %s was built with cuDNN %s (%s%s%s).", gd_fw_val(fw, "dist"),
                           gd_fw_val(fw, "version"), n->cudnn.text,
                           strcmp(framework, "tensorflow") == 0 ? "its tested build configuration"
                                                                : "PyTorch's release matrix",
                           url ? ", " : "", url ? url : "");
    }
    bool in_env = path && *site_of(fw) && gd_str_starts_with(path, site_of(fw));
    if (!in_env && path)
        gd_finding_add_fix(f,
                           "The loader finds %s first (%s): upgrade that copy to cuDNN %s or a "
                           "later %lu.x, or take it out of the loader's way so that the "
                           "framework's own is found.",
                           path, gd_fw_val(lib, "rule") ? gd_fw_val(lib, "rule") : "search order",
                           n->cudnn.text, gd_version_major(&n->cudnn));
    const char *env = gd_fw_val(fw, "env"), *cuda = gd_fw_val(fw, "build.cuda");
    struct gd_version cv;
    const char *wheel = n->wheel[0] ? n->wheel
                        : cuda && gd_version_parse(cuda, &cv) == GD_OK
                            ? gd_fw_wheel_for(kb, "cudnn", gd_version_major(&cv))
                            : NULL;
    if (n->pin[0])
        gd_finding_add_fix(f, "In %s: `pip install '%s%s'` (the pin %s %s states).",
                           env ? env : site_of(fw), n->wheel, n->pin, gd_fw_val(fw, "dist"),
                           gd_fw_val(fw, "version"));
    else if (wheel)
        gd_finding_add_fix(f, "In %s: `pip install '%s>=%lu.%lu,<%lu'`.", env ? env : site_of(fw),
                           wheel, gd_version_major(&n->cudnn), gd_version_minor(&n->cudnn),
                           gd_version_major(&n->cudnn) + 1);
    else
        gd_finding_add_fix(f, "Install cuDNN %s or a later %lu.x for CUDA %s.", n->cudnn.text,
                           gd_version_major(&n->cudnn),
                           gd_fw_val(fw, "build.cuda") ? gd_fw_val(fw, "build.cuda") : "?");
}

static void cuda_older(struct gd_report *r, const struct gd_kb *kb, const struct gd_entity *fw,
                       const struct gd_entity *lib, const struct gd_version *have,
                       const struct gd_version *built)
{
    struct gd_finding *f = gd_finding_add(
        r, "framework.cuda-version-mismatch", GD_SEV_WARNING,
        "%s %s loads the CUDA %lu.%lu runtime, older than the CUDA %s it was built with",
        gd_fw_val(fw, "dist"), gd_fw_val(fw, "version") ? gd_fw_val(fw, "version") : "",
        gd_version_major(have), gd_version_minor(have), built->text);
    gd_finding_set_why(f, "A CUDA runtime runs code built with an older minor of its major, not a "
                          "newer one: functions the framework calls may be missing (\"undefined "
                          "symbol\" at import, or cudaErrorCallRequiresNewerDriver / "
                          "cudaErrorNotSupported when a call is made).");
    gd_finding_add_evidence(f, gd_entity_fact(lib, "path"));
    gd_finding_add_evidence(f, gd_entity_fact(lib, "version"));
    gd_finding_add_evidence(f, gd_entity_fact(lib, "rule"));
    gd_finding_add_evidence(f, gd_entity_fact(fw, "build.cuda"));
    const char *path = gd_fw_val(lib, "path");
    bool in_env = path && *site_of(fw) && gd_str_starts_with(path, site_of(fw));
    const char *wheel = gd_fw_wheel_for(kb, "cudart", gd_version_major(built));
    if (in_env && wheel)
        gd_finding_add_fix(f, "In %s: `pip install '%s>=%lu.%lu'`.",
                           gd_fw_val(fw, "env") ? gd_fw_val(fw, "env") : site_of(fw), wheel,
                           gd_version_major(built), gd_version_minor(built));
    else
        gd_finding_add_fix(f,
                           "The loader finds %s first (%s): put a CUDA %s or later %lu.x runtime "
                           "in its place, or take that directory out of the loader's way so "
                           "that the framework's own runtime is found.",
                           path ? path : "it",
                           gd_fw_val(lib, "rule") ? gd_fw_val(lib, "rule") : "search order",
                           built->text, gd_version_major(built));
}

void gd_rule_fwversions(struct gd_report *r, const struct gd_kb *kb)
{
    struct gd_kb_env env;
    gd_rules_kb_env(r, &env, NULL);
    size_t n_fw;
    struct gd_entity *const *all_fw = gd_report_kind(r, "framework", &n_fw);
    for (size_t i = 0; i < n_fw; i++) {
        const struct gd_entity *fw = all_fw[i];
        const char *build = gd_fw_val(fw, "build");
        if (!build || strcmp(build, "cuda") != 0 || !gd_fw_judged_role(fw))
            continue;
        struct gd_version have;
        const struct gd_entity *lib = gd_fw_lib_loaded(fw, "cudnn", &have);
        struct need n;
        if (lib && cudnn_need(kb, &env, fw, &n) &&
            gd_version_major(&have) == gd_version_major(&n.cudnn) &&
            gd_version_cmp_parts(&have, &n.cudnn, 2) < 0)
            cudnn_older(r, kb, fw, lib, &have, &n);
        const char *cuda = gd_fw_val(fw, "build.cuda");
        struct gd_version built;
        lib = gd_fw_lib_loaded(fw, "cudart", &have);
        if (lib && cuda && gd_version_parse(cuda, &built) == GD_OK && built.nparts >= 2 &&
            gd_version_major(&have) == gd_version_major(&built) &&
            gd_version_cmp_parts(&have, &built, 2) < 0)
            cuda_older(r, kb, fw, lib, &have, &built);
    }
}
