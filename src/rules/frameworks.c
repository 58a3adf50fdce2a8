/*
 * The ML frameworks against this machine: CPU-only builds where a GPU waits, CUDA libraries a
 * framework needs that the loader would not find, compiled GPU code that cannot serve the GPU,
 * two frameworks of one environment that need different cuDNN majors. Keras's backend is judged
 * in keras.c.
 */
#include "rules/frameworks.h"

#include "core/str.h"
#include "core/version.h"
#include "kb/kb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared with keras.c ------------------------------------------------------------------ */

const char *gd_fw_val(const struct gd_entity *e, const char *name)
{
    return e ? gd_fact_known_value(gd_entity_fact(e, name)) : NULL;
}

static bool kind_is(const struct gd_entity *e, const char *kind)
{
    return strcmp(gd_entity_kind(e), kind) == 0;
}

bool gd_fw_gpu_present(const struct gd_report *r)
{
    const char *count = gd_rv(r, "gpus", "count");
    struct gd_machine m;
    gd_machine_of(r, &m);
    return (count && atol(count) > 0) || m.module_loaded;
}

bool gd_fw_in_env(const struct gd_report *r, const struct gd_entity *env,
                  const struct gd_entity *fw)
{
    const char *site = gd_fw_val(fw, "site");
    const char *n = gd_fw_val(env, "site_dirs");
    long count = n ? atol(n) : 0;
    for (long k = 0; site && k < count && k < 4096; k++) {
        char name[48];
        snprintf(name, sizeof name, "site_dirs[%ld]", k);
        const char *dir = gd_fw_val(env, name);
        if (dir && strcmp(dir, site) == 0)
            return true;
    }
    (void)r;
    return false;
}

const struct gd_entity *gd_fw_find(const struct gd_report *r, const struct gd_entity *env,
                                   const char *framework, const char *dist)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (!kind_is(e, "framework"))
            continue;
        const char *f = gd_fw_val(e, "framework"), *d = gd_fw_val(e, "dist");
        if ((framework && (!f || strcmp(f, framework) != 0)) ||
            (dist && (!d || strcmp(d, dist) != 0)))
            continue;
        if (!env || gd_fw_in_env(r, env, e))
            return e;
    }
    return NULL;
}

/* ---- CPU-only builds ---------------------------------------------------------------------- */

/* The release part of a version ("2.1.0" of "2.1.0+cpu"). */
static void release_of(const char *version, char *buf, size_t size)
{
    snprintf(buf, size, "%s", version ? version : "");
    char *plus = strchr(buf, '+');
    if (plus)
        *plus = '\0';
}

static void cpu_only_fix(struct gd_finding *f, const struct gd_entity *fw, bool system)
{
    const char *framework = gd_fw_val(fw, "framework"), *dist = gd_fw_val(fw, "dist");
    char release[64];
    release_of(gd_fw_val(fw, "version"), release, sizeof release);
    if (system) {
        gd_finding_add_fix(f,
                           "This copy comes from the distribution's packages (%s), built "
                           "without CUDA: install the framework's CUDA build from pip in a "
                           "virtual environment (`python3 -m venv ~/venv-gpu && "
                           "~/venv-gpu/bin/pip install %s`).",
                           gd_fw_val(fw, "site"),
                           strcmp(framework, "tensorflow") == 0 ? "'tensorflow[and-cuda]'"
                                                                : framework);
        return;
    }
    if (strcmp(framework, "torch") == 0) {
        gd_finding_add_fix(f,
                           "Replace it with a CUDA build of the same release: `pip install "
                           "--force-reinstall torch==%s --index-url "
                           "https://download.pytorch.org/whl/cuXXX` (cuXXX: a CUDA variant "
                           "PyTorch publishes for %s that this driver supports; `gpudoctor "
                           "plan torch` lists them).",
                           release, release);
    } else if (strcmp(framework, "tensorflow") == 0) {
        gd_finding_add_fix(f,
                           "`pip uninstall %s` then `pip install 'tensorflow[and-cuda]==%s'` "
                           "(the and-cuda extra brings the CUDA and cuDNN wheels; for releases "
                           "without it install tensorflow==%s and the CUDA/cuDNN of its tested "
                           "build configuration).",
                           dist, release, release);
    } else if (strcmp(framework, "jax") == 0) {
        gd_finding_add_fix(f,
                           "Install JAX's CUDA plugin beside jaxlib %s: `pip install "
                           "'jax-cuda12-plugin[with_cuda]'` (CUDA 12 with its wheels).",
                           release);
    } else if (strcmp(framework, "onnxruntime") == 0) {
        gd_finding_add_fix(f, "`pip uninstall onnxruntime` then `pip install onnxruntime-gpu` "
                              "(both provide the onnxruntime module; with both installed the "
                              "first found wins).");
    } else {
        gd_finding_add_fix(f, "Install the CUDA build of %s.", framework);
    }
}

static void cpu_only(struct gd_report *r, bool gpu)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *fw = gd_report_entity_at(r, i);
        const char *build = kind_is(fw, "framework") ? gd_fw_val(fw, "build") : NULL;
        if (!build || strcmp(build, "cpu") != 0)
            continue;
        const char *dist = gd_fw_val(fw, "dist"), *version = gd_fw_val(fw, "version");
        const char *site = gd_fw_val(fw, "site");
        /* Debian and Ubuntu put their packages' modules in dist-packages of the system prefix. */
        bool system = site && (gd_str_starts_with(site, "/usr/lib/python3") &&
                               gd_str_ends_with(site, "/dist-packages"));
        struct gd_finding *f = gd_finding_add(
            r, "framework.cpu-only-build", gpu ? GD_SEV_WARNING : GD_SEV_INFO,
            "%s %s in %s is a CPU-only build", dist, version ? version : "(version unknown)",
            gd_fw_val(fw, "env") ? gd_fw_val(fw, "env") : site);
        gd_finding_set_why(f, gpu ? "It never uses the GPU: every operation runs on the CPU, "
                                    "silently (torch.cuda.is_available() is False, TensorFlow "
                                    "lists no GPU)."
                                  : "It cannot use a GPU; this machine shows none either, so "
                                    "this only matters if the environment moves to one.");
        gd_finding_add_evidence(f, gd_entity_fact(fw, "build"));
        gd_finding_add_evidence(f, gd_entity_fact(fw, "version"));
        if (gpu) {
            gd_finding_add_evidence(f, gd_rf(r, "gpus", "count"));
            cpu_only_fix(f, fw, system);
        }
    }
}

/* ---- CUDA libraries the loader would not find --------------------------------------------- */

/* The pip wheel that ships a library family for a CUDA major ("nvidia-cudnn-cu12"), from the
 * cuda_libraries table, or NULL. */
static const char *wheel_for(const struct gd_kb *kb, const char *family, unsigned long cuda_major)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "cuda_libraries");
    char suffix[16];
    snprintf(suffix, sizeof suffix, "-cu%lu", cuda_major);
    for (size_t i = 0; t && i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *fam = gd_kb_str(row, "family");
        if (!fam || strcmp(fam, family) != 0)
            continue;
        for (size_t k = 0; k < gd_kb_list_len(row, "pip"); k++) {
            const char *w = gd_kb_list_at(row, "pip", k);
            if (w && gd_str_ends_with(w, suffix))
                return w;
        }
    }
    return NULL;
}

/* Copies of the same family elsewhere on the machine (another major): the usual cause. */
static void other_copies(struct gd_finding *f, const struct gd_report *r, const char *family)
{
    size_t shown = 0;
    for (size_t i = 0; family && i < gd_report_entity_count(r) && shown < 3; i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *fam = kind_is(e, "library") ? gd_fw_val(e, "family") : NULL;
        if (fam && strcmp(fam, family) == 0 && !gd_fact_is_true(gd_entity_fact(e, "stub"))) {
            gd_finding_add_evidence(f, gd_entity_fact(e, "path"));
            gd_finding_add_evidence(f, gd_entity_fact(e, "version"));
            shown++;
        }
    }
}

/* "libcudnn.so.8" -> 8; 0 when the name has no major. */
static unsigned long soname_major(const char *soname)
{
    const char *so = strstr(soname, ".so.");
    return so ? strtoul(so + 4, NULL, 10) : 0;
}

static void missing_fix(struct gd_finding *f, const struct gd_report *r, const struct gd_kb *kb,
                        const struct gd_entity *fw, const struct gd_entity *lib)
{
    const char *family = gd_fw_val(lib, "family"), *soname = gd_fw_val(lib, "soname");
    const char *cuda = gd_fw_val(fw, "build.cuda");
    struct gd_version cv;
    if (!family || !cuda || gd_version_parse(cuda, &cv) != GD_OK) {
        gd_finding_add_fix(f,
                           "Install the library that provides %s where the framework looks "
                           "(its RUNPATH, LD_LIBRARY_PATH or ld.so.conf), then `sudo ldconfig`.",
                           soname);
        return;
    }
    const char *wheel = wheel_for(kb, family, gd_version_major(&cv));
    char fact[160];
    snprintf(fact, sizeof fact, "requires.%s", wheel ? wheel : "");
    const char *pin = wheel ? gd_fw_val(fw, fact) : NULL;
    if (wheel && pin && strcmp(pin, "*") != 0) {
        gd_finding_add_evidence(f, gd_entity_fact(fw, fact));
        gd_finding_add_fix(f, "`pip install '%s%s'` in %s: the version %s %s pins.", wheel, pin,
                           gd_fw_val(fw, "env"), gd_fw_val(fw, "dist"), gd_fw_val(fw, "version"));
    } else if (wheel) {
        gd_finding_add_fix(f, "`pip install '%s==%lu.*'` in %s (it ships %s).", wheel,
                           soname_major(soname), gd_fw_val(fw, "env"), soname);
    } else {
        gd_finding_add_fix(f,
                           "Install %s %s (the CUDA %s build of it) and make its directory "
                           "known to the loader (`/etc/ld.so.conf.d/*.conf`, `sudo ldconfig`).",
                           family, soname, cuda);
    }
    (void)r;
}

static void missing_libraries(struct gd_report *r, const struct gd_kb *kb)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *lib = gd_report_entity_at(r, i);
        if (!kind_is(lib, "framework_lib") || gd_fw_val(lib, "path") ||
            gd_fact_is_true(gd_entity_fact(lib, "optional")))
            continue;
        const struct gd_entity *fw = gd_report_entity(r, gd_fw_val(lib, "framework"));
        if (!fw)
            continue;
        const char *soname = gd_fw_val(lib, "soname");
        struct gd_finding *f =
            gd_finding_add(r, "framework.cuda-lib-missing", GD_SEV_ERROR,
                           "%s %s needs %s, which the loader "
                           "would not find",
                           gd_fw_val(fw, "dist"),
                           gd_fw_val(fw, "version") ? gd_fw_val(fw, "version") : "", soname);
        gd_finding_set_why(f, "%s",
                           strcmp(gd_fw_val(lib, "how"), "needed") == 0
                               ? "It is a DT_NEEDED entry of the framework's own "
                                 "library: the import fails with \"cannot open shared "
                                 "object file\"."
                               : "The framework dlopens it when it starts CUDA: without "
                                 "it the GPU is skipped (TensorFlow: \"Could not load "
                                 "dynamic library\", then no GPU).");
        gd_finding_add_evidence(f, gd_entity_fact(lib, "soname"));
        gd_finding_add_evidence(f, gd_entity_fact(lib, "path"));
        gd_finding_add_evidence(f, gd_entity_fact(fw, "build.cuda"));
        gd_finding_add_evidence(f, gd_entity_fact(fw, "build.cudnn"));
        other_copies(f, r, gd_fw_val(lib, "family"));
        missing_fix(f, r, kb, fw, lib);
    }
}

/* ---- compiled GPU code against the GPUs ---------------------------------------------------- */

struct arch {
    unsigned major, minor;
    char flavour; /* '\0', 'a' (this exact capability), 'f' (its family) */
};

/* "sm_86", "compute_90a", "sm_100f" -> 8.6, 9.0a, 10.0f. */
static bool parse_arch(const char *text, const char *prefix, struct arch *a)
{
    size_t n = strlen(prefix);
    if (strncmp(text, prefix, n) != 0)
        return false;
    char *end = NULL;
    unsigned long sm = strtoul(text + n, &end, 10);
    if (end == text + n || sm < 10 || sm > 1000)
        return false;
    a->major = (unsigned)(sm / 10);
    a->minor = (unsigned)(sm % 10);
    a->flavour = (*end == 'a' || *end == 'f') ? *end : '\0';
    return *end == '\0' || end[1] == '\0';
}

/* NVIDIA's rules (CUDA C++ Programming Guide, "Binary Compatibility" and "PTX Compatibility";
 * the arch- and family-specific targets in the CUDA 12.9 notes): SASS for X.Y runs on X.Z with
 * Z >= Y; PTX for X.Y is compiled by the driver for any X.Y or later; an "a" target serves its
 * own capability only, an "f" target the later minors of its major. */
static bool sass_serves(const struct arch *a, unsigned major, unsigned minor)
{
    if (a->flavour == 'a')
        return a->major == major && a->minor == minor;
    return a->major == major && minor >= a->minor;
}

static bool ptx_serves(const struct arch *a, unsigned major, unsigned minor)
{
    if (a->flavour == 'a')
        return a->major == major && a->minor == minor;
    if (a->flavour == 'f')
        return a->major == major && minor >= a->minor;
    return major > a->major || (major == a->major && minor >= a->minor);
}

/* Whether a comma list of architectures serves the capability. */
static bool list_serves(const char *list, const char *prefix, bool ptx, unsigned major,
                        unsigned minor)
{
    char item[32];
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item - 1 ? n : sizeof item - 1), p);
        struct arch a;
        if (parse_arch(item, prefix, &a) &&
            (ptx ? ptx_serves(&a, major, minor) : sass_serves(&a, major, minor)))
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

static void judge_code(struct gd_report *r, const struct gd_entity *gpu, const struct gd_entity *fw,
                       const struct gd_fact *sass_fact, const struct gd_fact *ptx_fact,
                       const char *what)
{
    const char *cc = gd_fw_val(gpu, "compute_capability");
    unsigned major, minor;
    if (!cc || sscanf(cc, "%u.%u", &major, &minor) != 2)
        return;
    const char *sass = gd_fact_known_value(sass_fact), *ptx = gd_fact_known_value(ptx_fact);
    /* TensorFlow's list names SASS as sm_XY and PTX (with SASS) as compute_XY. */
    bool by_sass = list_serves(sass, "sm_", false, major, minor) ||
                   (sass_fact == ptx_fact && list_serves(sass, "compute_", false, major, minor));
    bool by_ptx = list_serves(ptx, "compute_", true, major, minor);
    if (by_sass)
        return;
    const char *model = gd_fw_val(gpu, "model");
    const char *dist = gd_fw_val(fw, "dist") ? gd_fw_val(fw, "dist") : "the framework";
    char release[64];
    release_of(gd_fw_val(fw, "version"), release, sizeof release);
    if (by_ptx) {
        struct gd_finding *f =
            gd_finding_add(r, "framework.ptx-jit-only", GD_SEV_WARNING,
                           "%s %s has no machine code for the %s (compute capability %s), only PTX",
                           dist, release, model ? model : "GPU", cc);
        gd_finding_set_why(f,
                           "The driver compiles the PTX at first use (%s): minutes of start-up, "
                           "repeated whenever its cache (~/.nv/ComputeCache) is cleared or too "
                           "small, and code not tuned for this GPU.",
                           what);
        gd_finding_add_evidence(f, gd_entity_fact(gpu, "compute_capability"));
        gd_finding_add_evidence(f, sass_fact);
        gd_finding_add_evidence(f, ptx_fact);
        gd_finding_add_fix(f,
                           "Install a release of %s built with sm_%u%u in its architecture "
                           "list (newer releases add the newest GPUs).",
                           gd_fw_val(fw, "framework"), major, minor);
        return;
    }
    struct gd_finding *f =
        gd_finding_add(r, "framework.no-kernel-for-gpu", GD_SEV_ERROR,
                       "%s %s carries no code the %s (compute capability %s) can run", dist,
                       release, model ? model : "GPU", cc);
    gd_finding_set_why(f,
                       "Neither its machine code (SASS) nor its PTX serves compute capability "
                       "%s (%s): every kernel launch fails with \"no kernel image is available "
                       "for execution on the device\".",
                       cc, what);
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "compute_capability"));
    gd_finding_add_evidence(f, sass_fact);
    gd_finding_add_evidence(f, ptx_fact);
    gd_finding_add_fix(f,
                       "Install a release of %s whose CUDA build lists sm_%u%u (or PTX of "
                       "compute_%u%u or lower): for a GPU newer than the release, a newer "
                       "release with a newer CUDA; for an older GPU, an older release that "
                       "still supports it.",
                       gd_fw_val(fw, "framework"), major, minor, major, minor);
}

static void kernels(struct gd_report *r)
{
    for (size_t g = 0; g < gd_report_entity_count(r); g++) {
        const struct gd_entity *gpu = gd_report_entity_at(r, g);
        if (!kind_is(gpu, "gpu") || !gd_fw_val(gpu, "compute_capability"))
            continue;
        for (size_t i = 0; i < gd_report_entity_count(r); i++) {
            const struct gd_entity *e = gd_report_entity_at(r, i);
            if (kind_is(e, "kernels")) {
                const struct gd_entity *fw = gd_report_entity(r, gd_fw_val(e, "framework"));
                if (fw && gd_fw_val(e, "sass") != NULL)
                    judge_code(r, gpu, fw, gd_entity_fact(e, "sass"), gd_entity_fact(e, "ptx"),
                               gd_fw_val(e, "library"));
                else if (fw && gd_fw_val(e, "ptx"))
                    judge_code(r, gpu, fw, gd_entity_fact(e, "sass"), gd_entity_fact(e, "ptx"),
                               gd_fw_val(e, "library"));
            } else if (kind_is(e, "framework") && gd_fw_val(e, "build.compute_capabilities")) {
                /* TensorFlow states its list in build_info.py; its fat binaries, when read,
                 * are judged above as well. */
                const struct gd_fact *list = gd_entity_fact(e, "build.compute_capabilities");
                judge_code(r, gpu, e, list, list, "build_info.py");
            }
        }
    }
}

/* ---- two cuDNN majors in one environment -------------------------------------------------- */

/* The cuDNN major a framework needs: its libcudnn framework_lib's soname, else build.cudnn. */
static unsigned long cudnn_major(const struct gd_report *r, const struct gd_entity *fw,
                                 const struct gd_fact **why)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *owner = kind_is(e, "framework_lib") ? gd_fw_val(e, "framework") : NULL;
        const char *soname = owner ? gd_fw_val(e, "soname") : NULL;
        if (owner && strcmp(owner, gd_entity_id(fw)) == 0 && soname &&
            gd_str_starts_with(soname, "libcudnn.so.")) {
            *why = gd_entity_fact(e, "soname");
            return soname_major(soname);
        }
    }
    const char *v = gd_fw_val(fw, "build.cudnn");
    *why = gd_entity_fact(fw, "build.cudnn");
    return v ? strtoul(v, NULL, 10) : 0;
}

static void cudnn_conflicts(struct gd_report *r)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *env = gd_report_entity_at(r, i);
        if (!kind_is(env, "python_env"))
            continue;
        const struct gd_entity *first = NULL;
        const struct gd_fact *first_why = NULL;
        unsigned long first_major = 0;
        for (size_t k = 0; k < gd_report_entity_count(r); k++) {
            const struct gd_entity *fw = gd_report_entity_at(r, k);
            const char *build = kind_is(fw, "framework") ? gd_fw_val(fw, "build") : NULL;
            if (!build || strcmp(build, "cuda") != 0 || !gd_fw_in_env(r, env, fw))
                continue;
            const struct gd_fact *why = NULL;
            unsigned long major = cudnn_major(r, fw, &why);
            if (!major)
                continue;
            if (!first) {
                first = fw;
                first_why = why;
                first_major = major;
                continue;
            }
            if (major == first_major)
                continue;
            struct gd_finding *f =
                gd_finding_add(r, "framework.cudnn-major-conflict", GD_SEV_ERROR,
                               "%s needs cuDNN %lu and %s needs cuDNN %lu in one environment (%s)",
                               gd_fw_val(first, "dist"), first_major, gd_fw_val(fw, "dist"), major,
                               gd_fw_val(env, "prefix"));
            gd_finding_set_why(f, "One environment holds one nvidia-cudnn wheel and one process "
                                  "one libcudnn: whichever framework's cuDNN is installed or "
                                  "loaded first, the other fails to load it or picks up the wrong "
                                  "one (CUDNN_STATUS_VERSION_MISMATCH, missing symbols).");
            gd_finding_add_evidence(f, first_why);
            gd_finding_add_evidence(f, why);
            gd_finding_add_evidence(f, gd_entity_fact(first, "version"));
            gd_finding_add_evidence(f, gd_entity_fact(fw, "version"));
            gd_finding_add_fix(f, "Give each framework its own virtual environment, or choose "
                                  "releases of both built against the same cuDNN major "
                                  "(`gpudoctor plan` lists them).");
        }
    }
}

void gd_rule_frameworks(struct gd_report *r, const struct gd_kb *kb)
{
    bool gpu = gd_fw_gpu_present(r);
    cpu_only(r, gpu);
    missing_libraries(r, kb);
    kernels(r);
    cudnn_conflicts(r);
}
