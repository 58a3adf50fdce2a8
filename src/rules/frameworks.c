/*
 * The ML frameworks against this machine: CPU-only builds where a GPU waits, CUDA libraries a
 * framework needs that the loader would not find, compiled GPU code that cannot serve the GPU,
 * two frameworks of one environment that need different cuDNN majors. Keras's backend is judged
 * in keras.c.
 */
#include "rules/frameworks.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/gpu_arch.h"
#include "core/str.h"
#include "core/version.h"
#include "kb/kb.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared with keras.c ------------------------------------------------------------------ */

const char *gd_fw_val(const struct gd_entity *e, const char *name)
{
    return e ? gd_fact_known_value(gd_entity_fact(e, name)) : NULL;
}

const struct gd_entity *gd_fw_lib_loaded(const struct gd_entity *fw, const char *family,
                                         struct gd_version *v)
{
    /* The framework's own parts (gd_entity_add_part): a check of 100 environments holds
     * thousands of libraries of other frameworks. */
    size_t n;
    struct gd_entity *const *parts = gd_entity_parts(fw, &n);
    for (size_t i = 0; i < n; i++) {
        const struct gd_entity *e = parts[i];
        const char *fam = gd_fw_val(e, "family"), *ver = gd_fw_val(e, "version");
        if (strcmp(gd_entity_kind(e), "framework_lib") == 0 && fam && strcmp(fam, family) == 0 &&
            gd_fw_val(e, "path") && ver && gd_version_parse(ver, v) == GD_OK && v->nparts >= 2)
            return e;
    }
    return NULL;
}

static bool kind_is(const struct gd_entity *e, const char *kind)
{
    return strcmp(gd_entity_kind(e), kind) == 0;
}

/* The entities the framework rules read, collected in one pass: a check of 100 environments
 * holds thousands, and the rules pair them up. */
struct fwix {
    const struct gd_entity **fws, **libs, **kernels, **gpus, **envs, **copies;
    size_t nfws, nlibs, nkernels, ngpus, nenvs, ncopies;
    const struct gd_entity **all; /* one block holding the six lists */
};

static bool fwix_build(const struct gd_report *r, struct fwix *ix)
{
    memset(ix, 0, sizeof *ix);
    size_t n = gd_report_entity_count(r);
    ix->all = gd_calloc(n ? n : 1, sizeof *ix->all);
    if (!ix->all)
        return false;
    static const char *const kinds[] = { "framework", "framework_lib", "kernels",
                                         "gpu",       "python_env",    "library" };
    const struct gd_entity ***lists[] = { &ix->fws,  &ix->libs, &ix->kernels,
                                          &ix->gpus, &ix->envs, &ix->copies };
    size_t *counts[] = {
        &ix->nfws, &ix->nlibs, &ix->nkernels, &ix->ngpus, &ix->nenvs, &ix->ncopies
    };
    size_t used = 0;
    for (size_t k = 0; k < 6; k++) {
        *lists[k] = ix->all + used;
        for (size_t i = 0; i < n; i++)
            if (kind_is(gd_report_entity_at(r, i), kinds[k]))
                ix->all[used++] = gd_report_entity_at(r, i);
        *counts[k] = (size_t)(ix->all + used - *lists[k]);
    }
    return true;
}

bool gd_fw_gpu_present(const struct gd_report *r)
{
    const char *count = gd_rv(r, "gpus", "count");
    struct gd_machine m;
    gd_machine_of(r, &m);
    /* Windows lists no GPUs from files: an installed NVIDIA driver (nvcuda.dll) stands for one. */
    return (count && atol(count) > 0) || m.module_loaded ||
           gd_rv(r, "driver", "nvcuda.path") != NULL;
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
    size_t n_e;
    struct gd_entity *const *all_e = gd_report_kind(r, "framework", &n_e);
    for (size_t i = 0; i < n_e; i++) {
        const struct gd_entity *e = all_e[i];
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

/* The fix of a CPU-only build: the CUDA build to install instead, chosen from the tables for
 * this machine's driver and GPUs (src/kb/pick.h). */
static void cpu_only_fix(struct gd_finding *f, const struct gd_report *r, const struct gd_kb *kb,
                         const struct gd_entity *fw, bool system)
{
    const char *framework = gd_fw_val(fw, "framework"), *dist = gd_fw_val(fw, "dist");
    char release[64];
    release_of(gd_fw_val(fw, "version"), release, sizeof release);
    struct gd_kb_env env;
    const struct gd_fact *driver = NULL;
    gd_rules_kb_env(r, &env, &driver);
    gd_finding_add_evidence(f, driver);
    struct gd_version rel;
    bool has_rel = gd_version_parse(release, &rel) == GD_OK;
    if (system) {
        gd_finding_add_fix(f,
                           "This copy comes from the distribution's packages (%s), built "
                           "without CUDA: install the framework's CUDA build from pip in a "
                           "virtual environment (`python3 -m venv ~/venv-gpu && . "
                           "~/venv-gpu/bin/activate`).",
                           gd_fw_val(fw, "site"));
        if (strcmp(framework, "torch") == 0 || strcmp(framework, "tensorflow") == 0 ||
            strcmp(framework, "jax") == 0)
            gd_fw_fix_best(f, kb, &env, framework, NULL, "There, install");
        return;
    }
    if (strcmp(framework, "torch") == 0) {
        char lead[160];
        snprintf(lead, sizeof lead,
                 "`pip uninstall %s`, then install the CUDA build of the same release that this "
                 "machine runs:",
                 dist);
        if (!has_rel || !gd_fw_fix_best(f, kb, &env, "torch", &rel, lead)) {
            gd_finding_add_fix(f,
                               "No CUDA build of torch %s in the knowledge base surely runs on "
                               "this machine.",
                               release);
            gd_fw_fix_best(f, kb, &env, "torch", NULL,
                           "`pip uninstall torch`, then install the newest release that does:");
        }
    } else if (strcmp(framework, "tensorflow") == 0) {
        char lead[160];
        snprintf(lead, sizeof lead,
                 "`pip uninstall %s`, then install the CUDA build of the same "
                 "release:",
                 dist);
        if (!has_rel || !gd_fw_fix_best(f, kb, &env, "tensorflow", &rel, lead)) {
            gd_finding_add_fix(f,
                               "No tested CUDA build of TensorFlow %s in the knowledge base surely "
                               "runs on this machine.",
                               release);
            snprintf(lead, sizeof lead,
                     "`pip uninstall %s`, then install the newest release that does:", dist);
            gd_fw_fix_best(f, kb, &env, "tensorflow", NULL, lead);
        }
    } else if (strcmp(framework, "jax") == 0) {
        char lead[160];
        snprintf(lead, sizeof lead, "Beside jaxlib %s, install", release);
        if (!gd_fw_fix_best(f, kb, &env, "jax", NULL, lead))
            gd_finding_add_fix(f, "No JAX CUDA plugin in the knowledge base surely runs with %s%s.",
                               env.has_driver ? "driver "
                                              : "this machine's driver (version "
                                                "unknown)",
                               env.has_driver ? env.driver.text : "");
    } else if (strcmp(framework, "onnxruntime") == 0) {
        gd_finding_add_fix(f, "`pip uninstall onnxruntime` then `pip install onnxruntime-gpu` "
                              "(both provide the onnxruntime module; with both installed the "
                              "first found wins).");
    } else {
        gd_finding_add_fix(f, "Install the CUDA build of %s.", framework);
    }
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The fixes of the last CPU-only build: a hundred environments with the same framework release
 * get the same computed fix, and computing it walks the release tables. The site directory
 * is in the fix text only for a distribution's package (`system`). */
struct cpu_fix_memo {
    const char *framework, *dist, *version, *site;
    bool system;
    const struct gd_finding *f;
};

static bool memo_fixes(const struct cpu_fix_memo *m, struct gd_finding *f,
                       const struct gd_report *r, const struct gd_entity *fw, bool system)
{
    if (!m->f || m->system != system || !same_text(m->framework, gd_fw_val(fw, "framework")) ||
        !same_text(m->dist, gd_fw_val(fw, "dist")) ||
        !same_text(m->version, gd_fw_val(fw, "version")) ||
        (system && !same_text(m->site, gd_fw_val(fw, "site"))))
        return false;
    struct gd_kb_env env;
    const struct gd_fact *driver = NULL;
    gd_rules_kb_env(r, &env, &driver);
    gd_finding_add_evidence(f, driver);
    for (size_t k = 0; k < gd_finding_fix_count(m->f); k++)
        gd_finding_add_fix(f, "%s", gd_finding_fix_at(m->f, k));
    return true;
}

/* TensorFlow after its last native-Windows GPU release on native Windows: CPU-only by design,
 * which framework.tf-windows-no-gpu (windows.c) explains with the way out. */
static bool tf_windows_cpu(const struct gd_report *r, const struct gd_kb *kb,
                           const struct gd_entity *fw)
{
    const char *framework = gd_fw_val(fw, "framework"), *version = gd_fw_val(fw, "version");
    struct gd_version v, last;
    return gd_rules_windows(r) && !gd_fact_is_true(gd_rf(r, "wsl", "detected")) && framework &&
           strcmp(framework, "tensorflow") == 0 && version &&
           gd_version_parse(version, &v) == GD_OK &&
           gd_kb_tf_last_native_windows_gpu(kb, &last, NULL) == GD_OK &&
           gd_version_cmp_parts(&v, &last, 2) > 0;
}

static void cpu_only(struct gd_report *r, const struct gd_kb *kb, const struct fwix *ix, bool gpu)
{
    struct cpu_fix_memo memo = { 0 };
    for (size_t i = 0; i < ix->nfws; i++) {
        const struct gd_entity *fw = ix->fws[i];
        const char *build = gd_fw_val(fw, "build");
        if (!build || strcmp(build, "cpu") != 0 || tf_windows_cpu(r, kb, fw))
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
            if (f && !memo_fixes(&memo, f, r, fw, system)) {
                cpu_only_fix(f, r, kb, fw, system);
                memo = (struct cpu_fix_memo){
                    gd_fw_val(fw, "framework"), dist, version, site, system, f
                };
            }
        }
    }
}

/* ---- CUDA libraries the loader would not find --------------------------------------------- */

/* The pip wheel that ships a library family for a CUDA major ("nvidia-cudnn-cu12"), from the
 * cuda_libraries table, or NULL. */
const char *gd_fw_wheel_for(const struct gd_kb *kb, const char *family, unsigned long cuda_major)
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

/* A copy of the same family elsewhere on the machine (another major): the usual cause. */
static void other_copies(struct gd_finding *f, const struct fwix *ix, const char *family)
{
    size_t shown = 0;
    for (size_t i = 0; family && i < ix->ncopies && shown < 1; i++) {
        const struct gd_entity *e = ix->copies[i];
        const char *fam = gd_fw_val(e, "family");
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

/* The pip requirement that brings the missing library into the framework's environment, added
 * to `pip` ("'nvidia-cudnn-cu12==8.9.2.26'"), when the framework's own METADATA pins the wheel
 * that ships it (the wheels' versions are the libraries' own; which releases exist is not in
 * the KB, so no pin is made up). Otherwise the soname goes to `other`. */
static void missing_fix(struct gd_finding *f, struct gd_buf *pip, struct gd_buf *other,
                        const struct gd_kb *kb, const struct gd_entity *fw,
                        const struct gd_entity *lib)
{
    const char *family = gd_fw_val(lib, "family"), *soname = gd_fw_val(lib, "soname");
    const char *cuda = gd_fw_val(fw, "build.cuda");
    struct gd_version cv;
    const char *wheel = NULL;
    if (family && cuda && gd_version_parse(cuda, &cv) == GD_OK)
        wheel = gd_fw_wheel_for(kb, family, gd_version_major(&cv));
    char fact[160], spec[200];
    snprintf(fact, sizeof fact, "requires.%s", wheel ? wheel : "");
    const char *pin = wheel ? gd_fw_val(fw, fact) : NULL;
    if (!pin || !pin[0] || strcmp(pin, "*") == 0) {
        gd_buf_printf(other, "%s%s", gd_buf_str(other)[0] ? ", " : "", soname);
        return;
    }
    gd_finding_add_evidence(f, gd_entity_fact(fw, fact));
    snprintf(spec, sizeof spec, "'%s%s'", wheel, pin);
    /* cuBLAS and cuBLASLt come in one wheel. */
    if (!strstr(gd_buf_str(pip), spec))
        gd_buf_printf(pip, " %s", spec);
}

static bool is_missing(const struct gd_entity *lib)
{
    return gd_fw_val(lib, "framework") && !gd_fw_val(lib, "path") && gd_fw_val(lib, "soname") &&
           !gd_fact_is_true(gd_entity_fact(lib, "optional"));
}

static bool owned_by(const struct gd_entity *lib, const char *fw_id)
{
    return strcmp(gd_fw_val(lib, "framework"), fw_id) == 0;
}

/* One finding per framework, naming every library it misses: TensorFlow 2.4 on a CUDA 12
 * machine misses eight, for one cause. */
static void missing_libraries(struct gd_report *r, const struct fwix *ix, const struct gd_kb *kb)
{
    size_t nmissing = 0;
    for (size_t k = 0; k < ix->nlibs; k++)
        if (is_missing(ix->libs[k]))
            nmissing++;
    for (size_t i = 0; i < ix->nfws && nmissing; i++) {
        const struct gd_entity *fw = ix->fws[i];
        const char *id = gd_entity_id(fw);
        /* Its own libraries are its parts (in the order made), not the thousands of all. */
        size_t nparts;
        struct gd_entity *const *parts = gd_entity_parts(fw, &nparts);
        struct gd_buf names;
        gd_buf_init(&names, 4096);
        size_t n = 0;
        bool needed = false;
        for (size_t k = 0; k < nparts; k++) {
            const struct gd_entity *lib = parts[k];
            if (!kind_is(lib, "framework_lib") || !is_missing(lib) || !owned_by(lib, id))
                continue;
            gd_buf_printf(&names, "%s%s", n ? ", " : "", gd_fw_val(lib, "soname"));
            needed = needed || strcmp(gd_fw_val(lib, "how"), "needed") == 0;
            n++;
        }
        if (gd_buf_status(&names) == GD_ENOMEM)
            gd_report_out_of_memory(r);
        if (n == 0 || gd_buf_status(&names) != GD_OK) {
            gd_buf_free(&names);
            continue;
        }
        struct gd_finding *f = gd_finding_add(
            r, "framework.cuda-lib-missing", GD_SEV_ERROR,
            "%s %s needs %s, which the loader would not find", gd_fw_val(fw, "dist"),
            gd_fw_val(fw, "version") ? gd_fw_val(fw, "version") : "", gd_buf_str(&names));
        gd_buf_free(&names);
        gd_finding_set_why(f, "%s",
                           needed ? "Its own library names them as DT_NEEDED entries: "
                                    "the import fails with \"cannot open shared object "
                                    "file\"."
                                  : "The framework dlopens them when it starts CUDA: "
                                    "without them the GPU is skipped (TensorFlow: "
                                    "\"Could not load dynamic library\", then no GPU).");
        gd_finding_add_evidence(f, gd_entity_fact(fw, "build.cuda"));
        gd_finding_add_evidence(f, gd_entity_fact(fw, "build.cudnn"));
        struct gd_buf pip, other;
        gd_buf_init(&pip, 4096);
        gd_buf_init(&other, 4096);
        for (size_t k = 0; k < nparts; k++) {
            const struct gd_entity *lib = parts[k];
            if (!kind_is(lib, "framework_lib") || !is_missing(lib) || !owned_by(lib, id))
                continue;
            gd_finding_add_evidence(f, gd_entity_fact(lib, "path"));
            other_copies(f, ix, gd_fw_val(lib, "family"));
            missing_fix(f, &pip, &other, kb, fw, lib);
        }
        const char *cuda = gd_fw_val(fw, "build.cuda"), *cudnn = gd_fw_val(fw, "build.cudnn");
        if (gd_buf_status(&pip) == GD_ENOMEM || gd_buf_status(&other) == GD_ENOMEM)
            gd_report_out_of_memory(r);
        if (gd_buf_status(&pip) == GD_OK && gd_buf_str(&pip)[0])
            gd_finding_add_fix(f, "In %s: `pip install%s` (the pins %s %s itself states).",
                               gd_fw_val(fw, "env"), gd_buf_str(&pip), gd_fw_val(fw, "dist"),
                               gd_fw_val(fw, "version"));
        if (gd_buf_status(&other) == GD_OK && gd_buf_str(&other)[0])
            gd_finding_add_fix(f,
                               "Install the CUDA %s%s%s libraries that provide %s (NVIDIA's "
                               "CUDA %s toolkit and cuDNN %s, or their pip wheels for that "
                               "CUDA major) where the loader finds them: a file in "
                               "/etc/ld.so.conf.d naming their directory, then `sudo "
                               "ldconfig`. Or install a release of %s built for the CUDA this "
                               "machine has.",
                               cuda ? cuda : "", cudnn ? " / cuDNN " : "", cudnn ? cudnn : "",
                               gd_buf_str(&other), cuda ? cuda : "?", cudnn ? cudnn : "?",
                               gd_fw_val(fw, "framework"));
        gd_buf_free(&pip);
        gd_buf_free(&other);
    }
}

/* ---- compiled GPU code against the GPUs ---------------------------------------------------- */

struct judged {
    const struct gd_entity *fw;
    const struct gd_entity *gpu;
    unsigned major, minor;
    enum gd_arch_serve worst;
    const struct gd_fact *evidence[16]; /* the lists that do not serve */
    size_t nevidence;
};

static void judge_list(struct judged *j, const struct gd_fact *sass, const struct gd_fact *ptx,
                       bool tf_list)
{
    enum gd_arch_serve v = gd_arch_serves(gd_fact_known_value(sass), gd_fact_known_value(ptx),
                                          tf_list, j->major, j->minor);
    if (v == GD_ARCH_SERVED)
        return;
    if (v > j->worst)
        j->worst = v;
    if (j->nevidence + 2 <= sizeof j->evidence / sizeof *j->evidence) {
        j->evidence[j->nevidence++] = sass;
        if (ptx != sass)
            j->evidence[j->nevidence++] = ptx;
    }
}

#define BOUND_CHOICES 192

/* The releases whose CUDA can compile for compute capability major.minor at all (cuda_arch),
 * against the installed release: a GPU newer than every build of it, or older than the CUDA of
 * every later release, is told the bound; between the bounds the tables cannot say which
 * releases carry the code. */
static void cc_bounds_fix(struct gd_finding *f, const struct gd_kb *kb, const struct judged *j)
{
    const char *framework = gd_fw_val(j->fw, "framework");
    bool torch = framework && strcmp(framework, "torch") == 0;
    if (!torch && !(framework && strcmp(framework, "tensorflow") == 0))
        return;
    const char *name = torch ? "PyTorch" : "TensorFlow";
    static struct gd_kb_choice list[BOUND_CHOICES];
    struct gd_kb_env env;
    memset(&env, 0, sizeof env);
    char cc_text[16];
    snprintf(cc_text, sizeof cc_text, "%u.%u", j->major, j->minor);
    struct gd_version cc, rel;
    char release[64];
    release_of(gd_fw_val(j->fw, "version"), release, sizeof release);
    if (gd_version_parse(cc_text, &cc) != GD_OK || gd_version_parse(release, &rel) != GD_OK)
        return;
    gd_kb_env_add_cc(&env, &cc);
    size_t n = torch ? gd_kb_torch_choices(kb, &env, list, BOUND_CHOICES)
                     : gd_kb_tf_choices(kb, &env, list, BOUND_CHOICES);
    if (n > BOUND_CHOICES)
        n = BOUND_CHOICES;
    const struct gd_kb_choice *newest = NULL, *oldest = NULL, *after = NULL;
    for (size_t i = 0; i < n; i++) {
        if (list[i].cc != GD_KB_YES)
            continue;
        if (!newest) {
            newest = &list[i];
            /* The oldest build of the next newer release. */
            for (size_t k = i; k-- > 0 && !after;)
                if (gd_version_cmp_parts(&list[k].release, &newest->release, 3) != 0)
                    after = &list[k];
        }
        oldest = &list[i];
    }
    if (!newest) {
        gd_finding_add_fix(f,
                           "No %s build in the knowledge base has a CUDA that can compile for "
                           "compute capability %s (its newest, %s, uses CUDA %s).",
                           name, cc_text, n ? list[0].release.text : "-",
                           n ? list[0].cuda.text : "-");
        if (n)
            gd_fix_reference(f, kb, list[0].cc_row);
        return;
    }
    if (gd_version_cmp_parts(&rel, &newest->release, 2) > 0 && after && after->cc == GD_KB_NO) {
        gd_finding_add_fix(
            f,
            "No %s release after %s can serve compute capability %s: the later "
            "ones are built with CUDA %s or newer, which cannot compile for it "
            "(CUDA %s %s it). %s %s is the newest whose CUDA still can; whether "
            "its build carries sm_%u%u is not in the knowledge base.",
            name, newest->release.text, cc_text, after->cuda.text,
            gd_kb_str(after->cc_row, "cuda") ? gd_kb_str(after->cc_row, "cuda") : "?",
            gd_kb_str(after->cc_row, "event") ? gd_kb_str(after->cc_row, "event") : "changed", name,
            newest->release.text, j->major, j->minor);
        gd_fix_reference(f, kb, after->cc_row);
        gd_fw_fix_choice(f, kb, &env, framework, newest, "To try it:");
        return;
    }
    if (gd_version_cmp_parts(&rel, &oldest->release, 2) < 0) {
        const struct gd_kb_row *why = NULL;
        gd_kb_cuda_supports_cc(kb, &oldest->cuda, &cc, &why);
        gd_finding_add_fix(f,
                           "The oldest %s release whose CUDA can compile for compute capability "
                           "%s is %s (CUDA %s; CUDA %s added it); releases before it cannot "
                           "serve this GPU. Whether a given build carries sm_%u%u is not in the "
                           "knowledge base: install one and run gpudoctor again.",
                           name, cc_text, oldest->release.text, oldest->cuda.text,
                           why && gd_kb_str(why, "cuda") ? gd_kb_str(why, "cuda") : "?", j->major,
                           j->minor);
        gd_fix_reference(f, kb, why);
        return;
    }
    gd_finding_add_fix(f,
                       "%s releases from %s to %s have a CUDA that can compile for compute "
                       "capability %s; which of them carry sm_%u%u is not in the knowledge base.",
                       name, oldest->release.text, newest->release.text, cc_text, j->major,
                       j->minor);
}

static void report_judged(struct gd_report *r, const struct gd_kb *kb, const struct judged *j)
{
    const char *cc = gd_fw_val(j->gpu, "compute_capability"), *model = gd_fw_val(j->gpu, "model");
    char release[64];
    release_of(gd_fw_val(j->fw, "version"), release, sizeof release);
    struct gd_finding *f;
    if (j->worst == GD_ARCH_PTX_ONLY) {
        f = gd_finding_add(r, "framework.ptx-jit-only", GD_SEV_WARNING,
                           "%s %s has no machine code for the %s (compute capability %s), only PTX",
                           gd_fw_val(j->fw, "dist"), release, model ? model : "GPU", cc);
        gd_finding_set_why(f, "The driver compiles the PTX at first use: minutes of start-up, "
                              "repeated whenever its cache (~/.nv/ComputeCache) is cleared or too "
                              "small, and code not tuned for this GPU.");
        gd_finding_add_fix(f,
                           "Install a release of %s built with sm_%u%u in its architecture "
                           "list (newer releases add the newest GPUs).",
                           gd_fw_val(j->fw, "framework"), j->major, j->minor);
    } else {
        f = gd_finding_add(r, "framework.no-kernel-for-gpu", GD_SEV_ERROR,
                           "%s %s carries no code the %s (compute capability %s) can run",
                           gd_fw_val(j->fw, "dist"), release, model ? model : "GPU", cc);
        gd_finding_set_why(f,
                           "Neither its machine code (SASS) nor its PTX serves compute "
                           "capability %s: every kernel launch fails with \"no kernel image is "
                           "available for execution on the device\".",
                           cc);
        gd_finding_add_fix(f,
                           "Install a release of %s whose CUDA build lists sm_%u%u (or PTX of "
                           "compute_%u%u or lower).",
                           gd_fw_val(j->fw, "framework"), j->major, j->minor, j->major, j->minor);
        cc_bounds_fix(f, kb, j);
    }
    gd_finding_add_evidence(f, gd_entity_fact(j->gpu, "compute_capability"));
    for (size_t i = 0; i < j->nevidence; i++)
        gd_finding_add_evidence(f, j->evidence[i]);
}

/* One finding per framework and compute capability (two RTX 3090s are one question), the
 * worst of its libraries; TensorFlow's build_info.py list counts when no fat binary of it was
 * read. */
static void judge_framework(struct gd_report *r, const struct gd_kb *kb, const struct gd_entity *fw,
                            const struct gd_entity *gpu)
{
    const char *cc = gd_fw_val(gpu, "compute_capability");
    struct judged j = { fw, gpu, 0, 0, GD_ARCH_SERVED, { NULL }, 0 };
    if (!cc || sscanf(cc, "%u.%u", &j.major, &j.minor) != 2)
        return;
    bool any = false;
    size_t nparts;
    struct gd_entity *const *parts = gd_entity_parts(fw, &nparts);
    for (size_t i = 0; i < nparts; i++) {
        const struct gd_entity *k = parts[i];
        if (!kind_is(k, "kernels"))
            continue;
        const char *owner = gd_fw_val(k, "framework");
        if (!owner || strcmp(owner, gd_entity_id(fw)) != 0 ||
            (!gd_fw_val(k, "sass") && !gd_fw_val(k, "ptx")))
            continue;
        any = true;
        judge_list(&j, gd_entity_fact(k, "sass"), gd_entity_fact(k, "ptx"), false);
    }
    const struct gd_fact *list = gd_entity_fact(fw, "build.compute_capabilities");
    if (!any && gd_fact_known_value(list))
        judge_list(&j, list, list, true);
    if (j.worst != GD_ARCH_SERVED)
        report_judged(r, kb, &j);
}

static void kernels(struct gd_report *r, const struct gd_kb *kb, const struct fwix *ix)
{
    for (size_t g = 0; g < ix->ngpus; g++) {
        const struct gd_entity *gpu = ix->gpus[g];
        const char *cc = gd_fw_val(gpu, "compute_capability");
        if (!cc)
            continue;
        bool seen = false; /* an earlier GPU of the same capability */
        for (size_t e = 0; e < g && !seen; e++) {
            const char *occ = gd_fw_val(ix->gpus[e], "compute_capability");
            seen = occ && strcmp(occ, cc) == 0;
        }
        for (size_t i = 0; i < ix->nfws && !seen; i++)
            judge_framework(r, kb, ix->fws[i], gpu);
    }
}

/* ---- two cuDNN majors in one environment -------------------------------------------------- */

/* The cuDNN major a framework needs: its libcudnn framework_lib's soname, else build.cudnn. */
static unsigned long cudnn_major(const struct gd_entity *fw, const struct gd_fact **why)
{
    size_t n;
    struct gd_entity *const *parts = gd_entity_parts(fw, &n);
    for (size_t i = 0; i < n; i++) {
        const struct gd_entity *e = parts[i];
        if (!kind_is(e, "framework_lib"))
            continue;
        const char *owner = gd_fw_val(e, "framework"), *soname = gd_fw_val(e, "soname");
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

struct need {
    unsigned long major; /* 0: a framework that needs no cuDNN (or not a CUDA build) */
    const struct gd_fact *why;
    const char *site; /* where it is installed, when it needs a cuDNN */
};

static void conflict(struct gd_report *r, const struct gd_entity *env, const struct gd_entity *a,
                     const struct need *na, const struct gd_entity *b, const struct need *nb)
{
    struct gd_finding *f = gd_finding_add(
        r, "framework.cudnn-major-conflict", GD_SEV_ERROR,
        "%s needs cuDNN %lu and %s needs cuDNN %lu in one environment (%s)", gd_fw_val(a, "dist"),
        na->major, gd_fw_val(b, "dist"), nb->major, gd_fw_val(env, "prefix"));
    gd_finding_set_why(f, "One environment holds one nvidia-cudnn wheel and one process one "
                          "libcudnn: whichever framework's cuDNN is installed or loaded first, "
                          "the other fails to load it or picks up the wrong one "
                          "(CUDNN_STATUS_VERSION_MISMATCH, missing symbols).");
    gd_finding_add_evidence(f, na->why);
    gd_finding_add_evidence(f, gd_entity_fact(a, "build.cudnn"));
    gd_finding_add_evidence(f, nb->why);
    gd_finding_add_evidence(f, gd_entity_fact(b, "build.cudnn"));
    gd_finding_add_evidence(f, gd_entity_fact(a, "version"));
    gd_finding_add_evidence(f, gd_entity_fact(b, "version"));
    gd_finding_add_fix(f, "Give each framework its own virtual environment, or choose releases "
                          "of both built against the same cuDNN major (the cuDNN a release needs "
                          "is in its tested build configuration or its nvidia-cudnn pin).");
}

static void cudnn_conflicts(struct gd_report *r, const struct fwix *ix)
{
    struct need *needs = gd_calloc(ix->nfws ? ix->nfws : 1, sizeof *needs);
    if (!needs) {
        gd_report_out_of_memory(r);
        return;
    }
    for (size_t k = 0; k < ix->nfws; k++) {
        const char *build = gd_fw_val(ix->fws[k], "build");
        if (build && strcmp(build, "cuda") == 0)
            needs[k].major = cudnn_major(ix->fws[k], &needs[k].why);
        /* Its site, read once: every environment asks for every framework. */
        needs[k].site = needs[k].major ? gd_fw_val(ix->fws[k], "site") : NULL;
    }
    for (size_t i = 0; i < ix->nenvs; i++) {
        const struct gd_entity *env = ix->envs[i];
        /* Its site directories, read once: membership is asked for every framework. */
        const char *sites[16];
        size_t nsites = 0;
        const char *count = gd_fw_val(env, "site_dirs");
        for (long k = 0; count && k < atol(count) && nsites < 16; k++) {
            char name[48];
            snprintf(name, sizeof name, "site_dirs[%ld]", k);
            if ((sites[nsites] = gd_fw_val(env, name)) != NULL)
                nsites++;
        }
        size_t first = SIZE_MAX;
        for (size_t k = 0; k < ix->nfws; k++) {
            const char *site = needs[k].site;
            bool in = false;
            for (size_t d = 0; site && d < nsites && !in; d++)
                in = strcmp(sites[d], site) == 0;
            if (!in)
                continue;
            if (first == SIZE_MAX)
                first = k;
            else if (needs[k].major != needs[first].major)
                conflict(r, env, ix->fws[first], &needs[first], ix->fws[k], &needs[k]);
        }
    }
    gd_free(needs);
}

void gd_rule_frameworks(struct gd_report *r, const struct gd_kb *kb)
{
    struct fwix ix;
    if (!fwix_build(r, &ix)) {
        gd_report_out_of_memory(r);
        return;
    }
    bool gpu = gd_fw_gpu_present(r);
    cpu_only(r, kb, &ix, gpu);
    missing_libraries(r, &ix, kb);
    kernels(r, kb, &ix);
    cudnn_conflicts(r, &ix);
    gd_free(ix.all);
}
