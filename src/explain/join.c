/*
 * A result joined with a machine's report: for each cause, what the machine shows (notes, with
 * the facts behind them copied as evidence), a verdict, exact fix steps where the facts make
 * them exact, the generic steps of explain_causes after them; then scores and order.
 *
 * Two kinds of knowledge meet here. Data: explain_causes names, per cause, the check findings
 * that confirm it and the facts worth showing; a finding of the report at warning or error
 * level that matches confirms the cause and brings its own fix steps. Code: per cause, the
 * comparisons a table cannot express (the library the log wants against the copies and the
 * loader's choice on the machine, a cuDNN version against the one the loader picks, the GPU's
 * compute capability against the framework's architectures, an Xid's meaning).
 */
#include "core/attr.h"
#include "core/gpu_arch.h"
#include "explain/explain.h"

#include "core/alloc.h"
#include "core/glob.h"
#include "core/report.h"
#include "core/str.h"
#include "core/version.h"
#include "kb/kb.h"
#include "probe/families.h"
#include "rules/rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct join {
    struct gd_explain_result *r;
    const struct gd_explain *ex;
    const struct gd_report *m; /* the machine */
    struct gd_families families;
    bool families_ok;
};

/* ---- evidence ---------------------------------------------------------------------------- */

/* A copy of `f` in the result's report (entity of the same kind and id), or NULL. */
static const struct gd_fact *copy_fact(struct join *j, const struct gd_fact *f)
{
    if (!f)
        return NULL;
    const struct gd_entity *me = gd_fact_entity(f);
    struct gd_entity *e = gd_report_add_entity(j->r->rep, gd_entity_kind(me), gd_entity_id(me));
    struct gd_source src = gd_src(gd_fact_source_kind(f), gd_fact_source_ref(f));
    const char *name = gd_fact_name(f);
    switch (gd_fact_state(f)) {
    case GD_FACT_KNOWN:
        if (gd_fact_type(f) == GD_VALUE_INT)
            return gd_fact_int(e, name, strtoll(gd_fact_value(f), NULL, 10), src);
        if (gd_fact_type(f) == GD_VALUE_BOOL)
            return gd_fact_bool(e, name, strcmp(gd_fact_value(f), "true") == 0, src);
        return gd_fact_str(e, name, gd_fact_value(f), src);
    case GD_FACT_ABSENT:
        return gd_fact_absent(e, name, gd_fact_reason(f), src);
    case GD_FACT_UNKNOWN:
    default:
        return gd_fact_unknown(e, name, gd_fact_reason(f), src);
    }
}

static void cite(struct join *j, struct gd_explain_cause *c, const struct gd_fact *f)
{
    if (f)
        gd_finding_add_evidence(c->finding, copy_fact(j, f));
}

static const struct gd_fact *mfact(struct join *j, const char *entity, const char *name)
{
    const struct gd_entity *e = gd_report_entity(j->m, entity);
    return e ? gd_entity_fact(e, name) : NULL;
}

static const char *mvalue(struct join *j, const char *entity, const char *name)
{
    const struct gd_fact *f = mfact(j, entity, name);
    return f && gd_fact_state(f) == GD_FACT_KNOWN ? gd_fact_value(f) : NULL;
}

static const char *evalue(const struct gd_entity *e, const char *name)
{
    const struct gd_fact *f = e ? gd_entity_fact(e, name) : NULL;
    return f && gd_fact_state(f) == GD_FACT_KNOWN ? gd_fact_value(f) : NULL;
}

static void set_verdict(struct gd_explain_cause *c, enum gd_explain_verdict v)
{
    /* A confirmation is not undone by a later fact that fails to confirm. */
    if (c->verdict == GD_EXPLAIN_CONFIRMED)
        return;
    if (v == GD_EXPLAIN_UNDECIDED && c->verdict == GD_EXPLAIN_NOT_HERE)
        return;
    c->verdict = v;
}

static void fix(struct join *j, struct gd_explain_cause *c, const char *fmt, ...) GD_PRINTF(3, 4);

static void fix(struct join *j, struct gd_explain_cause *c, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < gd_finding_fix_count(c->finding); i++)
        if (strcmp(gd_finding_fix_at(c->finding, i), text) == 0)
            return;
    gd_finding_add_fix(c->finding, "%s", text);
    c->exact_fix = true;
    (void)j;
}

/* The distinct values of parameter `name` over the cause's kept lines, at most `max`. */
static size_t param_values(const struct gd_explain_cause *c, const char *name, const char **out,
                           size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nmatches && n < max; i++) {
        const char *v = gd_explain_param(&c->matches[i], name);
        if (!v || !*v)
            continue;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = strcmp(out[k], v) == 0;
        if (!seen)
            out[n++] = v;
    }
    return n;
}

static const char *param(const struct gd_explain_cause *c, const char *name)
{
    const char *v = NULL;
    return param_values(c, name, &v, 1) ? v : NULL;
}

/* ---- the generic part: findings and facts named by explain_causes ------------------------ */

/* Whether finding `f` is about one of `libs` (its title, its reason or its evidence names it). */
static bool finding_names(const struct gd_finding *f, const char *const *libs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strstr(gd_finding_title(f), libs[i]) ||
            (gd_finding_why(f) && strstr(gd_finding_why(f), libs[i])))
            return true;
        for (size_t e = 0; e < gd_finding_evidence_count(f); e++) {
            const struct gd_fact *ev = gd_finding_evidence_at(f, e);
            const char *v = gd_fact_state(ev) == GD_FACT_KNOWN ? gd_fact_value(ev) : NULL;
            if ((v && strstr(v, libs[i])) || strstr(gd_entity_id(gd_fact_entity(ev)), libs[i]))
                return true;
        }
    }
    return false;
}

static void join_findings(struct join *j, struct gd_explain_cause *c, const struct gd_kb_row *row)
{
    /* A cause about a library the log names is confirmed only by a finding about that library;
     * the others are shown as context (another library missing, LD_LIBRARY_PATH oddities). */
    const char *libs[4];
    size_t nlibs = param_values(c, "library", libs, 4);
    size_t nglobs = gd_kb_list_len(row, "findings");
    for (size_t i = 0; i < gd_report_finding_count(j->m); i++) {
        const struct gd_finding *f = gd_report_finding_at(j->m, i);
        if (gd_finding_severity(f) < GD_SEV_WARNING)
            continue;
        bool match = false;
        for (size_t g = 0; g < nglobs && !match; g++) {
            const char *glob = gd_kb_list_at(row, "findings", g);
            match = glob && gd_glob_match(glob, gd_finding_id(f));
        }
        if (!match)
            continue;
        if (nlibs && !finding_names(f, libs, nlibs)) {
            gd_explain_note(j->r, c, "gpudoctor check on this machine also reports: %s [%s]",
                            gd_finding_title(f), gd_finding_id(f));
            continue;
        }
        gd_explain_note(j->r, c, "gpudoctor check on this machine: %s [%s]", gd_finding_title(f),
                        gd_finding_id(f));
        for (size_t e = 0; e < gd_finding_evidence_count(f); e++)
            cite(j, c, gd_finding_evidence_at(f, e));
        for (size_t k = 0; k < gd_finding_fix_count(f); k++)
            fix(j, c, "%s", gd_finding_fix_at(f, k));
        set_verdict(c, GD_EXPLAIN_CONFIRMED);
    }
}

static void join_facts(struct join *j, struct gd_explain_cause *c, const struct gd_kb_row *row)
{
    for (size_t i = 0; i < gd_kb_list_len(row, "facts"); i++) {
        const char *spec = gd_kb_list_at(row, "facts", i);
        const char *colon = spec ? strchr(spec, ':') : NULL;
        if (!colon || colon == spec || (size_t)(colon - spec) >= 128)
            continue;
        char entity[128];
        memcpy(entity, spec, (size_t)(colon - spec));
        entity[colon - spec] = '\0';
        const struct gd_fact *f = mfact(j, entity, colon + 1);
        /* Only what was read: an env variable that is not set says nothing here. */
        if (f && gd_fact_state(f) == GD_FACT_KNOWN)
            cite(j, c, f);
    }
}

/* ---- libraries ---------------------------------------------------------------------------- */

/* The CUDA family row of a library file name, or NULL. */
static const struct gd_kb_row *family_row(struct join *j, const char *library)
{
    const char *prefix = NULL;
    return j->families_ok ? gd_family_match(&j->families, library, &prefix) : NULL;
}

/* The first number after ".so." in a library name ("libcudnn_ops.so.9.1" -> 9), or -1. */
static long so_major(const char *library)
{
    const char *so = strstr(library, ".so.");
    if (!so || !gd_is_digit(so[4]))
        return -1;
    return strtol(so + 4, NULL, 10);
}

/* The Python interpreter of the environment the first GPU framework on the machine lives in,
 * and that framework's entity; NULL when the machine has none. */
static const struct gd_entity *framework(struct join *j, const char **python)
{
    *python = NULL;
    for (size_t i = 0; i < gd_report_entity_count(j->m); i++) {
        const struct gd_entity *e = gd_report_entity_at(j->m, i);
        if (strcmp(gd_entity_kind(e), "framework") != 0)
            continue;
        const char *role = evalue(e, "role");
        if (role && strcmp(role, "framework") != 0)
            continue;
        const char *env = evalue(e, "env");
        if (env) {
            char id[600];
            snprintf(id, sizeof id, "python_env:%s", env);
            *python = mvalue(j, id, "python");
        }
        return e;
    }
    return NULL;
}

/* The CUDA major the fix should target: a library of the log that follows the CUDA major
 * (libcudart.so.N, libcublas.so.N), else the build of the GPU framework on the machine. 0 when
 * neither says: the machine's own CUDA runtime says nothing about what the failed program was
 * built for. */
static unsigned long cuda_major(struct join *j, const struct gd_explain_result *r)
{
    for (size_t i = 0; i < r->ncauses; i++) {
        const struct gd_explain_cause *c = &r->causes[i];
        for (size_t k = 0; k < c->nmatches; k++) {
            const char *lib = gd_explain_param(&c->matches[k], "library");
            if (lib &&
                (gd_str_starts_with(lib, "libcudart.so.") ||
                 gd_str_starts_with(lib, "libcublas.so.")) &&
                so_major(lib) > 0)
                return (unsigned long)so_major(lib);
        }
    }
    const char *py = NULL;
    const struct gd_entity *fw = framework(j, &py);
    const char *build = evalue(fw, "build.cuda");
    struct gd_version v;
    if (build && gd_version_parse(build, &v) == GD_OK && gd_version_major(&v) > 0)
        return gd_version_major(&v);
    return 0;
}

/* The pip distribution of `row` for CUDA major `cuda` ("nvidia-cudnn-cu12"), or NULL. */
static const char *pip_dist(const struct gd_kb_row *row, unsigned long cuda)
{
    char suffix[32];
    snprintf(suffix, sizeof suffix, "-cu%lu", cuda);
    for (size_t i = 0; i < gd_kb_list_len(row, "pip"); i++) {
        const char *d = gd_kb_list_at(row, "pip", i);
        if (d && gd_str_ends_with(d, suffix))
            return d;
    }
    return NULL;
}

/* The install step for library `library` of family `row`: a pip wheel of the CUDA major the
 * framework uses, pinned to the library's major where the wheel's version is the library's. */
static void fix_install_library(struct join *j, struct gd_explain_cause *c,
                                const struct gd_kb_row *row, const char *library)
{
    unsigned long cuda = cuda_major(j, j->r);
    const char *family = gd_kb_str(row, "family");
    long major = so_major(library);
    const char *py = NULL;
    const struct gd_entity *fw = framework(j, &py);
    const char *where = py ? py : "python3";
    if (!cuda) {
        if (gd_kb_list_len(row, "pip"))
            fix(j, c,
                "Install %s into the environment that runs the program: one of the pip wheels "
                "%s...%s (the one for the program's CUDA major version).",
                library, gd_kb_list_at(row, "pip", 0),
                gd_kb_list_at(row, "pip", gd_kb_list_len(row, "pip") - 1));
        return;
    }
    const char *dist = pip_dist(row, cuda);
    if (!dist)
        return;
    /* The cuDNN wheels carry cuDNN's own version (nvidia-cudnn-cu12 8.9.x and 9.x); the other
     * wheels follow the CUDA major of their name. */
    bool own_version = family && (strcmp(family, "cudnn") == 0 || strcmp(family, "cudnn-sub") == 0);
    if (own_version && major > 0)
        fix(j, c, "Run: %s -m pip install \"%s>=%ld,<%ld\"  (cuDNN %ld for CUDA %lu%s%s)", where,
            dist, major, major + 1, major, cuda, fw ? ", in the environment of " : "",
            fw ? evalue(fw, "env") ? evalue(fw, "env") : "the framework" : "");
    else
        fix(j, c, "Run: %s -m pip install %s  (%s for CUDA %lu%s%s)", where, dist, library, cuda,
            fw ? ", in the environment of " : "",
            fw ? evalue(fw, "env") ? evalue(fw, "env") : "the framework" : "");
    /* A framework with a CUDA extra in the KB (tensorflow[and-cuda], jax[cuda12]) installs the
     * whole matching set of wheels at once. */
    const struct gd_kb_table *t = gd_kb_table(j->ex->kb, "frameworks");
    const char *dist_fw = evalue(fw, "dist"), *version = evalue(fw, "version");
    for (size_t i = 0; t && dist_fw && version && i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *er = gd_kb_row_at(t, i);
        const char *kind = gd_kb_str(er, "kind"), *d = gd_kb_str(er, "dist");
        const char *cm = gd_kb_str(er, "cuda_major"), *extra = gd_kb_str(er, "extra");
        if (kind && strcmp(kind, "extra") == 0 && d && strcmp(d, dist_fw) == 0 && extra && cm &&
            strtoul(cm, NULL, 10) == cuda) {
            fix(j, c, "Or reinstall %s with its CUDA %lu extra: %s -m pip install \"%s[%s]==%s\"",
                dist_fw, cuda, where, dist_fw, extra, version);
            break;
        }
    }
}

/* What the machine has for a library the log could not load. */
static void join_library(struct join *j, struct gd_explain_cause *c, const char *library)
{
    const struct gd_kb_row *row = family_row(j, library);
    if (!row) {
        if (strstr(library, ".dll"))
            gd_explain_note(
                j->r, c, "%s is a Windows library: the log comes from a Windows machine", library);
        return;
    }
    const char *family = gd_kb_str(row, "family");
    char id[300];
    snprintf(id, sizeof id, "soname:%s", library);
    const struct gd_entity *so = gd_report_entity(j->m, id);
    const char *path = evalue(so, "path");
    if (path) {
        cite(j, c, gd_entity_fact(so, "path"));
        gd_explain_note(j->r, c, "here the loader finds %s: %s (%s)", library, path,
                        evalue(so, "rule") ? evalue(so, "rule") : "search order");
        set_verdict(c, GD_EXPLAIN_NOT_HERE);
        return;
    }
    /* The copies of the family on the machine, and whether any is this SONAME. */
    char have[512] = "";
    size_t ncopies = 0;
    const struct gd_entity *same = NULL;
    for (size_t i = 0; i < gd_report_entity_count(j->m); i++) {
        const struct gd_entity *e = gd_report_entity_at(j->m, i);
        const char *fam = evalue(e, "family");
        if (strcmp(gd_entity_kind(e), "library") != 0 || !fam || strcmp(fam, family) != 0)
            continue;
        const char *soname = evalue(e, "soname"), *ver = evalue(e, "version");
        const char *p = evalue(e, "path");
        if (soname && strcmp(soname, library) == 0)
            same = e;
        if (ncopies < 4) {
            cite(j, c, gd_entity_fact(e, "path"));
            cite(j, c, gd_entity_fact(e, "version"));
            size_t n = strlen(have);
            snprintf(have + n, sizeof have - n, "%s%s %s (%s)", n ? ", " : "",
                     soname ? soname : family, ver ? ver : "of unknown version", p ? p : "?");
        }
        ncopies++;
    }
    /* The frameworks probe's view: a NEEDED library it could not resolve. */
    for (size_t i = 0; i < gd_report_entity_count(j->m); i++) {
        const struct gd_entity *e = gd_report_entity_at(j->m, i);
        const char *soname = evalue(e, "soname");
        if (strcmp(gd_entity_kind(e), "framework_lib") == 0 && soname &&
            strcmp(soname, library) == 0) {
            cite(j, c, gd_entity_fact(e, "soname"));
            cite(j, c, gd_entity_fact(e, "path"));
        }
    }
    const struct gd_fact *inv = mfact(j, "inventory", "copies");
    if (!inv || gd_fact_state(inv) != GD_FACT_KNOWN) {
        set_verdict(c, GD_EXPLAIN_UNDECIDED);
        return;
    }
    if (same) {
        const char *p = evalue(same, "path");
        cite(j, c, gd_entity_fact(same, "soname"));
        gd_explain_note(j->r, c,
                        "%s exists here (%s) but the loader's search order does not reach it",
                        library, p ? p : "?");
        if (p) {
            char dir[512];
            snprintf(dir, sizeof dir, "%s", p);
            char *slash = strrchr(dir, '/');
            if (slash && slash != dir) {
                *slash = '\0';
                fix(j, c,
                    "Make %s visible to the loader: export LD_LIBRARY_PATH=%s:$LD_LIBRARY_PATH "
                    "(or add %s to a file in /etc/ld.so.conf.d and run ldconfig)",
                    library, dir, dir);
            }
        }
        set_verdict(c, GD_EXPLAIN_CONFIRMED);
        return;
    }
    cite(j, c, inv);
    if (ncopies)
        gd_explain_note(j->r, c, "%s is not found here either; this machine has only %s%s", library,
                        have, ncopies > 4 ? ", ..." : "");
    else
        gd_explain_note(j->r, c,
                        "%s is not found here either: no copy of the %s family on this machine",
                        library, family);
    set_verdict(c, GD_EXPLAIN_CONFIRMED);
    fix_install_library(j, c, row, library);
}

static void join_libraries(struct join *j, struct gd_explain_cause *c)
{
    const char *libs[4];
    size_t n = param_values(c, "library", libs, 4);
    for (size_t i = 0; i < n; i++)
        join_library(j, c, libs[i]);
}

/* ---- versions ----------------------------------------------------------------------------- */

/* A cuDNN version as the logs write it: "8.1.0", "7201" (encoded), "8, 5, 0" (a tuple). */
static bool cudnn_version(const char *text, struct gd_version *v)
{
    char buf[64];
    size_t n = 0;
    bool digits_only = true;
    for (const char *p = text; *p && n + 1 < sizeof buf; p++) {
        if (*p == ' ')
            continue;
        buf[n++] = *p == ',' ? '.' : *p;
        digits_only = digits_only && gd_is_digit(*p);
    }
    buf[n] = '\0';
    if (!n)
        return false;
    if (digits_only && n >= 4)
        return gd_version_from_cudnn_int(strtol(buf, NULL, 10), v) == GD_OK;
    return gd_version_parse(buf, v) == GD_OK;
}

static void join_cudnn_mismatch(struct join *j, struct gd_explain_cause *c)
{
    const char *compiled = param(c, "compiled"), *loaded = param(c, "loaded");
    struct gd_version want, got;
    if (!compiled || !cudnn_version(compiled, &want))
        return;
    char ws[64], gs[64] = "?";
    gd_version_format(&want, ws, sizeof ws);
    if (loaded && cudnn_version(loaded, &got))
        gd_version_format(&got, gs, sizeof gs);
    gd_explain_note(j->r, c, "the log: built with cuDNN %s, loaded cuDNN %s", ws, gs);
    char id[64];
    snprintf(id, sizeof id, "soname:libcudnn.so.%lu", gd_version_major(&want));
    const struct gd_entity *so = gd_report_entity(j->m, id);
    const char *path = evalue(so, "path");
    if (!path) {
        if (so)
            gd_explain_note(j->r, c, "here the loader finds no libcudnn.so.%lu",
                            gd_version_major(&want));
        return;
    }
    /* The copy the loader picks, and its version. */
    const char *ver = NULL;
    for (size_t i = 0; i < gd_report_entity_count(j->m) && !ver; i++) {
        const struct gd_entity *e = gd_report_entity_at(j->m, i);
        const char *p = evalue(e, "path");
        if (strcmp(gd_entity_kind(e), "library") == 0 && p && strcmp(p, path) == 0) {
            ver = evalue(e, "version");
            cite(j, c, gd_entity_fact(e, "version"));
        }
    }
    cite(j, c, gd_entity_fact(so, "path"));
    struct gd_version here;
    if (!ver || gd_version_parse(ver, &here) != GD_OK) {
        gd_explain_note(j->r, c, "here the loader picks %s, of unknown version", path);
        set_verdict(c, GD_EXPLAIN_UNDECIDED);
        return;
    }
    gd_explain_note(j->r, c, "here the loader picks cuDNN %s at %s", ver, path);
    if (gd_version_major(&here) == gd_version_major(&want) &&
        gd_version_cmp_parts(&here, &want, 2) >= 0) {
        set_verdict(c, GD_EXPLAIN_NOT_HERE);
        return;
    }
    set_verdict(c, GD_EXPLAIN_CONFIRMED);
    const char *py = NULL;
    framework(j, &py);
    unsigned long cuda = cuda_major(j, j->r);
    const struct gd_kb_row *row = family_row(j, "libcudnn.so");
    const char *dist = row && cuda ? pip_dist(row, cuda) : NULL;
    if (dist)
        fix(j, c, "Run: %s -m pip install \"%s>=%lu.%lu,<%lu\"  (cuDNN %s or newer of major %lu)",
            py ? py : "python3", dist, gd_version_major(&want), gd_version_minor(&want),
            gd_version_major(&want) + 1, ws, gd_version_major(&want));
}

static void join_driver_version(struct join *j, struct gd_explain_cause *c)
{
    const struct gd_fact *km = mfact(j, "driver", "kernel_module.version");
    const char *kv = mvalue(j, "driver", "kernel_module.version");
    const char *enc = param(c, "driver_cuda");
    struct gd_version dv;
    if (enc && gd_version_from_cuda_int(strtol(enc, NULL, 10), &dv) == GD_OK) {
        char s[32];
        gd_version_format(&dv, s, sizeof s);
        gd_explain_note(j->r, c, "the log: the driver supported CUDA up to %s", s);
    }
    if (km && gd_fact_state(km) == GD_FACT_ABSENT) {
        cite(j, c, km);
        /* The CUDA runtime reports cudaErrorInsufficientDriver when it finds no driver at all
         * (docs/findings.md, driver.not-installed); a log that names the driver's version came
         * from a machine that had one. */
        if (enc) {
            gd_explain_note(j->r, c, "this machine has no NVIDIA driver loaded at all");
            set_verdict(c, GD_EXPLAIN_NOT_HERE);
        } else {
            gd_explain_note(j->r, c,
                            "this machine has no NVIDIA driver loaded at all, for which the CUDA "
                            "runtime reports the same error: install the driver");
            set_verdict(c, GD_EXPLAIN_CONFIRMED);
            struct gd_machine mach;
            gd_machine_of(j->m, &mach);
            if (!mach.container && !mach.wsl && !c->exact_fix) {
                size_t before = gd_finding_fix_count(c->finding);
                gd_fix_install_driver(c->finding, j->m, j->ex->kb);
                c->exact_fix = c->exact_fix || gd_finding_fix_count(c->finding) > before;
            }
        }
        return;
    }
    if (kv) {
        cite(j, c, km);
        gd_explain_note(j->r, c, "here the NVIDIA driver %s is loaded", kv);
        set_verdict(c, GD_EXPLAIN_UNDECIDED);
    }
}

static void join_driver_mismatch(struct join *j, struct gd_explain_cause *c)
{
    const char *km = mvalue(j, "driver", "kernel_module.version");
    const char *lib = mvalue(j, "driver", "libcuda.version");
    if (km && lib && strcmp(km, lib) == 0) {
        cite(j, c, mfact(j, "driver", "kernel_module.version"));
        cite(j, c, mfact(j, "driver", "libcuda.version"));
        gd_explain_note(j->r, c,
                        "here the kernel module and libcuda are both %s: they match (rebooted "
                        "since the log, or another machine)",
                        km);
        set_verdict(c, GD_EXPLAIN_NOT_HERE);
    }
}

static void join_driver_loaded(struct join *j, struct gd_explain_cause *c)
{
    const char *km = mvalue(j, "driver", "kernel_module.version");
    const char *lib = mvalue(j, "driver", "libcuda.path");
    if (km && lib && c->verdict != GD_EXPLAIN_CONFIRMED) {
        cite(j, c, mfact(j, "driver", "kernel_module.version"));
        cite(j, c, mfact(j, "driver", "libcuda.path"));
        gd_explain_note(j->r, c, "here the NVIDIA driver %s is loaded and libcuda is %s", km, lib);
        set_verdict(c, GD_EXPLAIN_NOT_HERE);
    }
    const struct gd_fact *mod = mfact(j, "driver", "kernel_module.version");
    if (mod && gd_fact_state(mod) == GD_FACT_ABSENT && c->verdict != GD_EXPLAIN_NOT_HERE) {
        cite(j, c, mod);
        set_verdict(c, GD_EXPLAIN_CONFIRMED);
        struct gd_machine mach;
        gd_machine_of(j->m, &mach);
        /* A check finding (driver.not-installed) already brought the same steps. */
        if (!mach.container && !mach.wsl && !c->exact_fix) {
            size_t before = gd_finding_fix_count(c->finding);
            gd_fix_install_driver(c->finding, j->m, j->ex->kb);
            c->exact_fix = c->exact_fix || gd_finding_fix_count(c->finding) > before;
        }
    }
}

static void join_gpus(struct join *j, struct gd_explain_cause *c)
{
    const char *count = mvalue(j, "gpus", "count");
    const char *visible = mvalue(j, "env", "CUDA_VISIBLE_DEVICES");
    if (count) {
        cite(j, c, mfact(j, "gpus", "count"));
        if (visible) {
            cite(j, c, mfact(j, "env", "CUDA_VISIBLE_DEVICES"));
            gd_explain_note(j->r, c,
                            "here the driver lists %s GPU(s) and CUDA_VISIBLE_DEVICES=%s selects "
                            "among them",
                            count, visible);
        } else {
            gd_explain_note(j->r, c,
                            "here the driver lists %s GPU(s), CUDA ordinals 0 to %ld, and "
                            "CUDA_VISIBLE_DEVICES is not set",
                            count, strtol(count, NULL, 10) - 1);
        }
        set_verdict(c, GD_EXPLAIN_UNDECIDED);
    }
}

static void join_kernel_image(struct join *j, struct gd_explain_cause *c)
{
    const char *py = NULL;
    const struct gd_entity *fw = framework(j, &py);
    const char *archs = evalue(fw, "build.compute_capabilities");
    const char *sm = param(c, "sm");
    if (sm)
        gd_explain_note(j->r, c, "the log: the GPU is %s", sm);
    for (size_t i = 0; i < gd_report_entity_count(j->m); i++) {
        const struct gd_entity *e = gd_report_entity_at(j->m, i);
        if (strcmp(gd_entity_kind(e), "gpu") != 0)
            continue;
        const char *cc = evalue(e, "compute_capability"), *model = evalue(e, "model");
        unsigned major, minor;
        if (!cc || sscanf(cc, "%u.%u", &major, &minor) != 2)
            continue;
        cite(j, c, gd_entity_fact(e, "compute_capability"));
        gd_explain_note(j->r, c, "here: %s, compute capability %s (sm_%u%u)",
                        model ? model : "a GPU", cc, major, minor);
        if (!archs)
            continue;
        cite(j, c, gd_entity_fact(fw, "build.compute_capabilities"));
        /* TensorFlow's list form (compute_XY is PTX and SASS): gd_arch_serves, the rule the
         * frameworks check applies too. */
        enum gd_arch_serve serves = gd_arch_serves(archs, archs, true, major, minor);
        const char *fw_name = evalue(fw, "framework"), *fw_ver = evalue(fw, "version");
        gd_explain_note(j->r, c, "%s %s was built for %s: %s", fw_name ? fw_name : "the framework",
                        fw_ver ? fw_ver : "", archs,
                        serves == GD_ARCH_SERVED ? "its machine code runs on this GPU"
                        : serves == GD_ARCH_PTX_ONLY
                            ? "only PTX, which the driver compiles for this GPU"
                            : "no code this GPU can run");
        set_verdict(c, serves == GD_ARCH_SERVED     ? GD_EXPLAIN_NOT_HERE
                       : serves == GD_ARCH_PTX_ONLY ? GD_EXPLAIN_UNDECIDED
                                                    : GD_EXPLAIN_CONFIRMED);
    }
}

static void join_cpu_build(struct join *j, struct gd_explain_cause *c)
{
    for (size_t i = 0; i < gd_report_entity_count(j->m); i++) {
        const struct gd_entity *e = gd_report_entity_at(j->m, i);
        const char *build = evalue(e, "build");
        if (strcmp(gd_entity_kind(e), "framework") != 0 || !build)
            continue;
        const char *name = evalue(e, "framework"), *ver = evalue(e, "version");
        const char *env = evalue(e, "env");
        cite(j, c, gd_entity_fact(e, "build"));
        gd_explain_note(j->r, c, "here %s %s in %s is a %s build", name ? name : "a framework",
                        ver ? ver : "", env ? env : "an environment",
                        strcmp(build, "cpu") == 0 ? "CPU-only" : build);
        if (strcmp(build, "cpu") == 0)
            set_verdict(c, GD_EXPLAIN_CONFIRMED);
        else if (c->verdict != GD_EXPLAIN_CONFIRMED)
            set_verdict(c, GD_EXPLAIN_UNDECIDED);
    }
}

static void join_xid(struct join *j, struct gd_explain_cause *c)
{
    const struct gd_kb_table *t = gd_kb_table(j->ex->kb, "xids");
    const char *xids[4];
    size_t n = param_values(c, "xid", xids, 4);
    for (size_t i = 0; i < n; i++) {
        const struct gd_kb_row *row = NULL;
        for (size_t k = 0; t && k < gd_kb_row_count(t) && !row; k++) {
            const char *x = gd_kb_str(gd_kb_row_at(t, k), "xid");
            if (x && strcmp(x, xids[i]) == 0)
                row = gd_kb_row_at(t, k);
        }
        if (!row) {
            gd_explain_note(j->r, c, "Xid %s: not in the xids table; see NVIDIA's Xid catalog",
                            xids[i]);
            continue;
        }
        const char *action = gd_kb_str(row, "action"), *fatal = gd_kb_str(row, "fatal");
        gd_explain_note(j->r, c, "Xid %s (%s): %s; NVIDIA's action: %s%s", xids[i],
                        gd_kb_str(row, "mnemonic"), gd_kb_str(row, "meaning"),
                        action ? action : "?",
                        fatal && strcmp(fatal, "true") == 0 ? " (fatal to the GPU)" : "");
        if (!action)
            continue;
        const char *pci = param(c, "pci");
        if (strcmp(action, "RESTART_APP") == 0)
            fix(j, c,
                "Xid %s: restart the application; if it keeps coming back with one "
                "program, debug that program (an illegal access in its kernels)",
                xids[i]);
        else if (strcmp(action, "RESET_GPU") == 0)
            fix(j, c, "Xid %s: reset the GPU when no process uses it: nvidia-smi --gpu-reset -i %s",
                xids[i], pci ? pci : "<GPU>");
        else if (strcmp(action, "RESTART_BM") == 0)
            fix(j, c,
                "Xid %s: reboot the machine (the GPU cannot be reset from software); if it "
                "recurs, check power, cooling, the riser and slot, then have the GPU "
                "replaced",
                xids[i]);
        else if (gd_str_starts_with(action, "WORKFLOW_"))
            fix(j, c, "Xid %s: follow NVIDIA's %s workflow in the Xid catalog", xids[i], action);
    }
    /* The GPU at the PCI address of the log, when this machine has it. */
    const char *pci = param(c, "pci");
    for (size_t i = 0; pci && j->m && i < gd_report_entity_count(j->m); i++) {
        const struct gd_entity *e = gd_report_entity_at(j->m, i);
        const char *bus = evalue(e, "bus_id");
        if (strcmp(gd_entity_kind(e), "gpu") == 0 && bus && strstr(bus, pci)) {
            cite(j, c, gd_entity_fact(e, "model"));
            gd_explain_note(j->r, c, "the GPU at %s here is %s", pci,
                            evalue(e, "model") ? evalue(e, "model") : "an NVIDIA GPU");
        }
    }
}

static void join_oom(struct join *j, struct gd_explain_cause *c)
{
    const char *req = param(c, "requested"), *total = param(c, "total"), *fr = param(c, "free");
    const char *ord = param(c, "ordinal"), *bytes = param(c, "requested_bytes");
    if (req && total && fr)
        gd_explain_note(j->r, c, "the log: GPU %s has %s in all, %s was free when %s was requested",
                        ord ? ord : "?", total, fr, req);
    else if (req || bytes)
        gd_explain_note(j->r, c, "the log: an allocation of %s%s failed", req ? req : bytes,
                        req ? "" : " bytes");
    (void)j;
}

static void join_windows(struct join *j, struct gd_explain_cause *c)
{
    const char *os = mvalue(j, "host", "os.pretty_name");
    const char *wsl = mvalue(j, "wsl", "detected");
    if (os) {
        cite(j, c, mfact(j, "host", "os.pretty_name"));
        gd_explain_note(j->r, c, "this machine runs %s%s, where TensorFlow's GPU builds do run", os,
                        wsl && strcmp(wsl, "true") == 0 ? " under WSL" : "");
        set_verdict(c, GD_EXPLAIN_NOT_HERE);
    }
}

static void join_nccl(struct join *j, struct gd_explain_cause *c)
{
    const char *ver = param(c, "version");
    if (ver)
        gd_explain_note(j->r, c, "the log: NCCL %s", ver);
    for (size_t i = 0; i < gd_report_entity_count(j->m); i++) {
        const struct gd_entity *e = gd_report_entity_at(j->m, i);
        const char *fam = evalue(e, "family");
        if (strcmp(gd_entity_kind(e), "library") == 0 && fam && strcmp(fam, "nccl") == 0) {
            cite(j, c, gd_entity_fact(e, "version"));
            gd_explain_note(j->r, c, "here: NCCL %s at %s",
                            evalue(e, "version") ? evalue(e, "version") : "of unknown version",
                            evalue(e, "path") ? evalue(e, "path") : "?");
        }
    }
}

/* ---- the whole join ----------------------------------------------------------------------- */

static void join_cause(struct join *j, struct gd_explain_cause *c)
{
    const struct gd_kb_row *row = j->ex->set.causes[c->id].row;
    if (j->m) {
        c->verdict = GD_EXPLAIN_UNDECIDED;
        if (row) {
            join_findings(j, c, row);
            join_facts(j, c, row);
        }
        switch (c->id) {
        case GD_CAUSE_CUDA_RUNTIME_NOT_FOUND:
        case GD_CAUSE_CUDNN_NOT_FOUND:
        case GD_CAUSE_CUDA_LIBRARY_NOT_FOUND:
            join_libraries(j, c);
            break;
        case GD_CAUSE_CUDNN_VERSION_MISMATCH:
        case GD_CAUSE_CUDNN_INTERNAL_OR_INIT_FAILURE:
            join_cudnn_mismatch(j, c);
            break;
        case GD_CAUSE_DRIVER_TOO_OLD:
            join_driver_version(j, c);
            break;
        case GD_CAUSE_DRIVER_LIBRARY_MISMATCH:
            join_driver_mismatch(j, c);
            break;
        case GD_CAUSE_DRIVER_NOT_LOADED:
            join_driver_loaded(j, c);
            break;
        case GD_CAUSE_NO_GPU_VISIBLE:
        case GD_CAUSE_INVALID_DEVICE_ORDINAL:
            join_gpus(j, c);
            break;
        case GD_CAUSE_CPU_ONLY_BUILD:
            join_cpu_build(j, c);
            break;
        case GD_CAUSE_NO_KERNEL_IMAGE:
            join_kernel_image(j, c);
            break;
        case GD_CAUSE_HARDWARE_XID:
            join_xid(j, c);
            break;
        case GD_CAUSE_WINDOWS_NATIVE_GPU_UNSUPPORTED:
            join_windows(j, c);
            break;
        case GD_CAUSE_NCCL_ERROR:
            join_nccl(j, c);
            break;
        default:
            break;
        }
    }
    /* What the log alone says, machine or not. */
    if (c->id == GD_CAUSE_OUT_OF_MEMORY)
        join_oom(j, c);
    if (c->id == GD_CAUSE_HARDWARE_XID && !j->m)
        join_xid(j, c);
    /* The generic steps come after the exact ones. */
    for (size_t i = 0; row && i < gd_kb_list_len(row, "fix"); i++)
        gd_finding_add_fix(c->finding, "%s", gd_kb_list_at(row, "fix", i));
}

static int cause_cmp(const void *a, const void *b)
{
    const struct gd_explain_cause *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    if (x->first_line != y->first_line)
        return x->first_line < y->first_line ? -1 : 1;
    return (int)x->id - (int)y->id;
}

void gd_explain_join(struct gd_explain_result *r, const struct gd_explain *ex,
                     const struct gd_report *machine)
{
    struct join j = { r, ex, machine, { 0 }, false };
    const struct gd_kb_table *libs = gd_kb_table(ex->kb, "cuda_libraries");
    if (libs) {
        if (gd_families_load(libs, &j.families) == GD_OK)
            j.families_ok = true;
        else
            gd_report_out_of_memory(r->rep);
    }
    for (size_t i = 0; i < r->ncauses; i++) {
        struct gd_explain_cause *c = &r->causes[i];
        join_cause(&j, c);
        /* Score: each signature's weight, x10; lines matched, up to 9; the verdict. */
        int score = 0;
        for (size_t k = 0; k < c->nsigs; k++)
            score += 10 * c->sigs[k].weight;
        score += c->lines > 9 ? 9 : (int)c->lines;
        if (c->verdict == GD_EXPLAIN_CONFIRMED)
            score += 30;
        else if (c->verdict == GD_EXPLAIN_NOT_HERE)
            score -= 15;
        c->score = score;
    }
    if (r->ncauses > 1)
        qsort(r->causes, r->ncauses, sizeof *r->causes, cause_cmp);
    if (j.families_ok)
        gd_families_free(&j.families);
}
