/* The CUDA family inventory: what the loader picks, stubs, shadowing, broken installs. */
#include "rules/rules.h"

#include "core/buf.h"
#include "core/str.h"
#include "core/version.h"

#include <stdio.h>
#include <string.h>

static const char *val(const struct gd_entity *e, const char *name)
{
    return gd_fact_known_value(gd_entity_fact(e, name));
}

static bool kind_is(const struct gd_entity *e, const char *kind)
{
    return strcmp(gd_entity_kind(e), kind) == 0;
}

/* The copy (library entity) at `path`, or NULL. */
static const struct gd_entity *copy_at(const struct gd_report *r, const char *path)
{
    for (size_t i = 0; path && i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *p = kind_is(e, "library") ? val(e, "path") : NULL;
        if (p && strcmp(p, path) == 0)
            return e;
    }
    return NULL;
}

/* The copy the loader resolves the SONAME entity `so` to. The path it found is usually the
 * SONAME link (libcudnn.so.9 -> libcudnn.so.9.1.0), not the copy's real path, so the copy is the
 * one the inventory matched by device and inode (loader.selected_for); the path is the fallback
 * for a copy reached by its own name. */
static const struct gd_entity *copy_for(const struct gd_report *r, const struct gd_entity *so)
{
    const char *soname = so ? val(so, "soname") : NULL;
    for (size_t i = 0; soname && i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *selected = kind_is(e, "library") ? val(e, "loader.selected_for") : NULL;
        if (selected && strcmp(selected, soname) == 0)
            return e;
    }
    return so ? copy_at(r, val(so, "path")) : NULL;
}

static bool is_stub(const struct gd_entity *copy)
{
    return gd_fact_is_true(gd_entity_fact(copy, "stub"));
}

static void stubs(struct gd_report *r)
{
    const struct gd_entity *stub = NULL, *real = NULL;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *family = kind_is(e, "library") ? val(e, "family") : NULL;
        if (!family || strcmp(family, "cuda") != 0)
            continue;
        if (is_stub(e))
            stub = stub ? stub : e;
        else
            real = e;
    }
    const struct gd_entity *so = gd_report_entity(r, "soname:libcuda.so.1");
    const struct gd_entity *picked = copy_for(r, so);
    if (picked && is_stub(picked)) {
        struct gd_finding *f = gd_finding_add(r, "libs.stub-on-search-path", GD_SEV_ERROR,
                                              "Programs would load the CUDA stub %s as "
                                              "libcuda.so.1",
                                              val(picked, "path"));
        gd_finding_set_why(f, "The stub only serves the linker; loaded at run time every CUDA call "
                              "fails with CUDA_ERROR_STUB_LIBRARY (\"CUDA driver is a stub "
                              "library\").");
        gd_finding_add_evidence(f, gd_entity_fact(so, "path"));
        gd_finding_add_evidence(f, gd_entity_fact(so, "rule"));
        gd_finding_add_fix(f, "Remove the stubs directory (or a libcuda.so.1 link made inside it) "
                              "from LD_LIBRARY_PATH and ld.so.conf, then `sudo ldconfig`; the "
                              "driver's own libcuda.so.1 must be found instead.");
        return;
    }
    if (stub && !real) {
        struct gd_finding *f = gd_finding_add(r, "libs.cuda-stub-only", GD_SEV_INFO,
                                              "libcuda.so.1 is absent; only the CUDA toolkit's "
                                              "link-time stub %s exists",
                                              val(stub, "path"));
        gd_finding_set_why(f, "The stub lets programs link without a driver; running them needs "
                              "the NVIDIA driver's libcuda.so.1, which this machine lacks.");
        gd_finding_add_evidence(f, gd_entity_fact(stub, "path"));
        gd_finding_add_evidence(f, gd_rf(r, "driver", "libcuda.path"));
        gd_finding_add_fix(f, "Install the NVIDIA driver (see driver.not-installed); never copy or "
                              "link the stub as libcuda.so.1.");
    }
}

/* Majors of a family's SONAMEs the loader finds: "libcudnn.so.8" and "libcudnn.so.9". */
static void multiple_majors(struct gd_report *r)
{
    static const char *const families[] = { "cudart",   "cublas",   "cudnn",  "nccl", "cufft",
                                            "cusolver", "cusparse", "curand", "nvrtc" };
    for (size_t k = 0; k < sizeof families / sizeof *families; k++) {
        struct gd_finding *f = NULL;
        const struct gd_entity *first = NULL;
        for (size_t i = 0; i < gd_report_entity_count(r); i++) {
            const struct gd_entity *e = gd_report_entity_at(r, i);
            const char *family = kind_is(e, "soname") ? val(e, "family") : NULL;
            if (!family || strcmp(family, families[k]) != 0 || !val(e, "path"))
                continue;
            if (!first) {
                first = e;
                continue;
            }
            if (strcmp(val(first, "soname"), val(e, "soname")) == 0)
                continue;
            if (!f) {
                f = gd_finding_add(r, "libs.multiple-majors", GD_SEV_INFO,
                                   "Programs can load %s and %s: two major versions of %s",
                                   val(first, "soname"), val(e, "soname"), families[k]);
                gd_finding_set_why(f,
                                   "Each program gets the major it was built for, but a build "
                                   "links whichever the unversioned lib%s.so points to, and "
                                   "mixing a framework built for one with libraries of the "
                                   "other fails with version-mismatch errors.",
                                   families[k]);
                gd_finding_add_evidence(f, gd_entity_fact(first, "path"));
                gd_finding_add_fix(f, "Nothing to do if each framework loads its own (gpudoctor "
                                      "which --dlopen --from FRAMEWORK.so NAME shows it); "
                                      "otherwise remove the major nothing needs.");
            }
            gd_finding_add_evidence(f, gd_entity_fact(e, "path"));
        }
    }
}

/* LD_LIBRARY_PATH wins over the copy the cache or the default directories would give. */
static void shadowing(struct gd_report *r)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *so = gd_report_entity_at(r, i);
        const char *rule = kind_is(so, "soname") ? val(so, "rule") : NULL;
        if (!rule || strcmp(rule, "LD_LIBRARY_PATH") != 0)
            continue;
        const char *picked = val(so, "path"), *soname = val(so, "soname");
        const struct gd_entity *mine = copy_for(r, so);
        for (size_t k = 0; k < gd_report_entity_count(r); k++) {
            const struct gd_entity *c = gd_report_entity_at(r, k);
            const char *cs = kind_is(c, "library") ? val(c, "soname") : NULL;
            const char *found_in = val(c, "found_in");
            if (!cs || strcmp(cs, soname) != 0 || !found_in || is_stub(c) || c == mine ||
                strcmp(val(c, "path"), picked) == 0 || strcmp(found_in, "LD_LIBRARY_PATH") == 0 ||
                !gd_fact_is_true(gd_entity_fact(c, "loader_directory")))
                continue;
            const char *v1 = mine ? val(mine, "version") : NULL, *v2 = val(c, "version");
            struct gd_finding *f =
                gd_finding_add(r, "libs.ld-library-path-shadows", GD_SEV_WARNING,
                               "LD_LIBRARY_PATH makes programs load %s%s%s%s instead of %s%s%s%s",
                               picked, v1 ? " (" : "", v1 ? v1 : "", v1 ? ")" : "", val(c, "path"),
                               v2 ? " (" : "", v2 ? v2 : "", v2 ? ")" : "");
            gd_finding_set_why(f,
                               "Every program that asks for %s gets the LD_LIBRARY_PATH copy, "
                               "whatever ld.so.cache says: a framework built against the other "
                               "one fails with missing symbols or version checks.",
                               soname);
            gd_finding_add_evidence(f, gd_entity_fact(so, "path"));
            gd_finding_add_evidence(f, gd_entity_fact(so, "rule"));
            gd_finding_add_evidence(f, gd_rf(r, "env", "LD_LIBRARY_PATH"));
            if (mine)
                gd_finding_add_evidence(f, gd_entity_fact(mine, "version"));
            gd_finding_add_evidence(f, gd_entity_fact(c, "path"));
            gd_finding_add_evidence(f, gd_entity_fact(c, "version"));
            gd_finding_add_fix(f,
                               "If %s is the one you meant, remove its directory from "
                               "LD_LIBRARY_PATH; `gpudoctor which %s` shows the result.",
                               val(c, "path"), soname);
            break;
        }
    }
}

static void broken_links(struct gd_report *r)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (!kind_is(e, "library_link"))
            continue;
        const char *target = val(e, "target");
        struct gd_finding *f =
            gd_finding_add(r, "libs.broken-link", GD_SEV_WARNING, "%s is a %s%s%s", val(e, "path"),
                           val(e, "problem"), target ? " to " : "", target ? target : "");
        gd_finding_set_why(f, "A program that loads this name fails with \"cannot open shared "
                              "object file: No such file or directory\"; this is what remains of a "
                              "library removed or upgraded by hand.");
        gd_finding_add_evidence(f, gd_entity_fact(e, "path"));
        gd_finding_add_evidence(f, gd_entity_fact(e, "target"));
        gd_finding_add_fix(f,
                           "Remove the link (`sudo rm %s`) or point it at the library's real "
                           "file, then `sudo ldconfig`.",
                           val(e, "path"));
    }
}

static void missing_soname_links(struct gd_report *r)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const struct gd_fact *present =
            kind_is(e, "library") ? gd_entity_fact(e, "soname_link.present") : NULL;
        if (!gd_fact_is_false(present))
            continue;
        const char *soname = val(e, "soname");
        char id[300];
        snprintf(id, sizeof id, "soname:%s", soname);
        bool resolved = gd_report_value(r, id, "path") != NULL;
        struct gd_finding *f =
            gd_finding_add(r, "libs.missing-soname-link", resolved ? GD_SEV_WARNING : GD_SEV_ERROR,
                           "%s has no %s link next to it", val(e, "path"), soname);
        gd_finding_set_why(f,
                           "The loader looks for the SONAME (%s), not the file's own name: "
                           "without the link ldconfig makes, programs report \"%s: cannot open "
                           "shared object file\"%s.",
                           soname, soname, resolved ? " unless another copy answers" : "");
        gd_finding_add_evidence(f, gd_entity_fact(e, "path"));
        gd_finding_add_evidence(f, gd_entity_fact(e, "soname"));
        gd_finding_add_evidence(f, present);
        gd_finding_add_fix(f,
                           "Run `sudo ldconfig`, which creates SONAME links in the directories "
                           "of ld.so.conf; elsewhere create it by hand: `ln -s %s %s`.",
                           gd_path_base(val(e, "path")), soname);
    }
}

/* Sources that state a version: the library's own call first, then its wheel, then its name. */
static void header_mismatch(struct gd_report *r)
{
    static const char *const library_sources[] = { "version.call", "version.wheel",
                                                   "version.name" };
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *header = kind_is(e, "library") ? val(e, "version.header") : NULL;
        if (!header)
            continue;
        for (size_t k = 0; k < 3; k++) {
            const char *other = val(e, library_sources[k]);
            struct gd_version a, b;
            if (!other || gd_version_parse(header, &a) != GD_OK ||
                gd_version_parse(other, &b) != GD_OK)
                continue;
            /* Compare what both state: "9" from a file name only checks the major. */
            int parts = a.nparts < b.nparts ? a.nparts : b.nparts;
            if (gd_version_cmp_parts(&a, &b, parts) != 0) {
                struct gd_finding *f =
                    gd_finding_add(r, "libs.header-mismatch", GD_SEV_WARNING,
                                   "The headers of %s say %s but the library is %s", val(e, "path"),
                                   header, other);
                gd_finding_set_why(f, "Code compiled against these headers expects another "
                                      "library: builds succeed and then fail at run time with "
                                      "version checks (\"cuDNN version incompatibility\") or "
                                      "missing symbols.");
                gd_finding_add_evidence(f, gd_entity_fact(e, "version.header"));
                gd_finding_add_evidence(f, gd_entity_fact(e, library_sources[k]));
                gd_finding_add_fix(f, "Reinstall the library and its headers from one package of "
                                      "one version, or point the build at matching headers.");
            }
            break;
        }
    }
}

static void failed_calls(struct gd_report *r)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const struct gd_fact *call =
            kind_is(e, "library") ? gd_entity_fact(e, "version.call") : NULL;
        const char *why = call && call->state == GD_FACT_UNKNOWN ? gd_fact_reason(call) : NULL;
        if (!why || gd_str_starts_with(why, "not asked") || gd_str_starts_with(why, "not the"))
            continue;
        struct gd_finding *f =
            gd_finding_add(r, "libs.call-failed", GD_SEV_WARNING,
                           "%s could not be asked its version: %s", val(e, "path"), why);
        gd_finding_set_why(f, "gpudoctor loaded it in a child process as a program would; what "
                              "failed there fails in every program that loads it.");
        gd_finding_add_evidence(f, call);
        gd_finding_add_evidence(f, gd_entity_fact(e, "path"));
        gd_finding_add_fix(f,
                           "`gpudoctor which --tree %s` shows a dependency it cannot find; a "
                           "crash or a hang means a damaged file: reinstall the package that "
                           "ships it.",
                           val(e, "path"));
    }
}

static void summary(struct gd_report *r)
{
    static const char *const families[] = { "cudart", "cublas", "cudnn", "nccl" };
    static const char *const labels[] = { "CUDA runtime", "cuBLAS", "cuDNN", "NCCL" };
    struct gd_buf text;
    gd_buf_init(&text, 4096);
    struct gd_finding *f = NULL;
    for (size_t k = 0; k < 4; k++) {
        for (size_t i = 0; i < gd_report_entity_count(r); i++) {
            const struct gd_entity *so = gd_report_entity_at(r, i);
            const char *family = kind_is(so, "soname") ? val(so, "family") : NULL;
            if (!family || strcmp(family, families[k]) != 0 || !val(so, "path"))
                continue;
            const struct gd_entity *c = copy_for(r, so);
            const char *v = c ? val(c, "version") : NULL;
            gd_buf_printf(&text, "%s%s %s", text.len ? ", " : "", labels[k], v ? v : "?");
            if (!f)
                f = gd_finding_add(r, "libs.found", GD_SEV_OK, "CUDA libraries");
            gd_finding_add_evidence(f, gd_entity_fact(so, "path"));
            if (c)
                gd_finding_add_evidence(f, gd_entity_fact(c, "version"));
        }
    }
    if (f)
        f->title = gd_report_printf(r, "Programs load %s", gd_buf_str(&text));
    gd_buf_free(&text);
}

void gd_rule_libs(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    stubs(r);
    multiple_majors(r);
    shadowing(r);
    broken_links(r);
    missing_soname_links(r);
    header_mismatch(r);
    failed_calls(r);
    summary(r);
}
