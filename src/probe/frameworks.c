/*
 * Framework distributions and how they were built, from files alone (frameworks.h).
 *
 * Each site directory of each environment is listed once; a *.dist-info or *.egg-info entry
 * whose distribution name is a `dist` row of the frameworks KB table becomes a `framework`
 * entity. The build is decided by the first of these that says it, strongest first:
 *   1. the build file the framework generates at build time (TensorFlow's build_info.py,
 *      torch/version.py, onnxruntime's build_and_package_info.py);
 *   2. the local version label (torch 2.1.0+cu121, +cpu, +rocm5.6; jaxlib 0.4.23+cuda12.cudnn89);
 *   3. for jaxlib, a jax-cudaNN-plugin in the same site directory (JAX's CUDA support moved into
 *      those plugins; jaxlib alone runs on the CPU);
 *   4. the KB row's role (tensorflow-cpu is CPU-only; cupy-cuda12x, jax-cuda12-plugin are CUDA).
 */
#include "probe/frameworks.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "core/version.h"
#include "kb/kb.h"
#include "loader/loader.h"
#include "parse/buildinfo.h"
#include "parse/pylit.h"
#include "parse/pymeta.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#define REF_MAX (GD_ROOT_PATH_MAX + 128)

void gd_fwscan_fail(struct gd_fwscan *s, enum gd_status st)
{
    if (st == GD_ENOMEM)
        s->status = GD_ENOMEM;
}

static bool alive(const struct gd_fwscan *s)
{
    return s->status == GD_OK && !gd_report_failed(s->ctx->report);
}

/* ---- the KB ------------------------------------------------------------------------------ */

/* The `dist` rows, flattened once: every entry of every site directory is matched against them,
 * and a KB field is a JSON lookup. */
struct gd_fw_dist {
    const char *dist, *prefix; /* one of the two */
    const struct gd_kb_row *row;
};

static enum gd_status load_dists(struct gd_fwscan *s)
{
    size_t cap = 0;
    for (size_t i = 0; i < gd_kb_row_count(s->kb); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(s->kb, i);
        const char *kind = gd_kb_str(row, "kind");
        static const char *const walked[] = { "local_version", "extra", "dlopen", "preload" };
        for (size_t k = 0; kind && k < 4; k++) {
            if (strcmp(kind, walked[k]) != 0)
                continue;
            if (gd_grow((void **)&s->rows[k], &s->cap_rows[k], s->nrows[k] + 1,
                        sizeof *s->rows[k]) != 0)
                return GD_ENOMEM;
            s->rows[k][s->nrows[k]++] = row;
        }
        const char *d = gd_kb_str(row, "dist"), *p = gd_kb_str(row, "dist_prefix");
        if (!kind || strcmp(kind, "dist") != 0 || (!d && (!p || !p[0])))
            continue;
        if (gd_grow((void **)&s->dists, &cap, s->ndists + 1, sizeof *s->dists) != 0)
            return GD_ENOMEM;
        s->dists[s->ndists++] = (struct gd_fw_dist){ d, d ? NULL : p, row };
    }
    return GD_OK;
}

/* The `dist` row of a normalised distribution name: an exact `dist`, else a `dist_prefix`
 * (cupy-cuda112 before CuPy 10 named its wheels that way). */
static const struct gd_kb_row *dist_row(const struct gd_fwscan *s, const char *dist)
{
    const struct gd_kb_row *by_prefix = NULL;
    for (size_t i = 0; i < s->ndists; i++) {
        const struct gd_fw_dist *d = &s->dists[i];
        if (d->dist && d->dist[0] == dist[0] && strcmp(d->dist, dist) == 0)
            return d->row;
        if (!by_prefix && d->prefix && gd_str_starts_with(dist, d->prefix))
            by_prefix = d->row;
    }
    return by_prefix;
}

/* keras 2 and keras 3 are two rows of one name told apart by version_min / version_below. */
static const struct gd_kb_row *dist_row_for_version(const struct gd_kb_table *t, const char *dist,
                                                    const char *version)
{
    struct gd_version v;
    bool have = version[0] && gd_version_parse(version, &v) == GD_OK;
    const struct gd_kb_row *first = NULL;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *kind = gd_kb_str(row, "kind"), *d = gd_kb_str(row, "dist");
        if (!kind || strcmp(kind, "dist") != 0 || !d || strcmp(d, dist) != 0)
            continue;
        if (!first)
            first = row;
        const char *min = gd_kb_str(row, "version_min"), *below = gd_kb_str(row, "version_below");
        struct gd_version bound;
        if (!have && (min || below))
            continue;
        if (min && (gd_version_parse(min, &bound) != GD_OK || gd_version_cmp(&v, &bound) < 0))
            continue;
        if (below && (gd_version_parse(below, &bound) != GD_OK || gd_version_cmp(&v, &bound) >= 0))
            continue;
        return row;
    }
    return first;
}

static void kb_ref(const struct gd_kb_row *row, const char *what, char *buf, size_t size)
{
    const char *src = gd_kb_row_source(row);
    snprintf(buf, size, "frameworks: %s (%s)", what, src ? src : "?");
}

/* ---- names ------------------------------------------------------------------------------- */

/* "tensorflow_cpu-2.16.1.dist-info", "torch-1.13.0a0+gitunknown.egg-info",
 * "tensorflow-2.4.0-py3.8.egg-info": the normalised distribution name. Wheels and setuptools
 * write the name with '_' for '-', so the name ends at the first '-'. False for anything else. */
static bool meta_dir_dist(const char *entry, char *dist, size_t size, bool *egg)
{
    size_t n = strlen(entry);
    if (gd_str_ends_with(entry, ".dist-info")) {
        *egg = false;
        n -= strlen(".dist-info");
    } else if (gd_str_ends_with(entry, ".egg-info")) {
        *egg = true;
        n -= strlen(".egg-info");
    } else {
        return false;
    }
    const char *dash = memchr(entry, '-', n);
    size_t len = dash ? (size_t)(dash - entry) : n;
    if (len == 0 || len >= 128)
        return false;
    char raw[128];
    memcpy(raw, entry, len);
    raw[len] = '\0';
    gd_pyname_normalize(raw, dist, size);
    return true;
}

/* ---- core metadata ----------------------------------------------------------------------- */

static void read_metadata(struct gd_fwscan *s, struct gd_fw *fw, bool egg, bool egg_is_dir,
                          struct gd_pymeta *meta, char *meta_file, size_t meta_file_size)
{
    struct gd_root *root = s->ctx->root;
    if (!egg)
        snprintf(meta_file, meta_file_size, "%s/METADATA", fw->meta);
    else if (egg_is_dir)
        snprintf(meta_file, meta_file_size, "%s/PKG-INFO", fw->meta);
    else
        snprintf(meta_file, meta_file_size, "%s", fw->meta); /* setuptools once wrote a file */
    struct gd_entity *e = fw->entity;
    struct gd_source at = gd_src(GD_SOURCE_FILE, meta_file);
    char *data = NULL;
    size_t len = 0;
    enum gd_status st = gd_root_read_head(root, meta_file, GD_FW_META_HEAD, &data, &len);
    if (st != GD_OK) {
        gd_fwscan_fail(s, st);
        gd_probe_fact_failed(e, "version", st, at);
        return;
    }
    st = gd_pymeta_parse(data, len, meta);
    if (st == GD_OK && egg && egg_is_dir) {
        /* An egg's requirements are in requires.txt, not in PKG-INFO. */
        char req[REF_MAX];
        char *rdata = NULL;
        size_t rlen = 0;
        snprintf(req, sizeof req, "%s/requires.txt", fw->meta);
        enum gd_status rs = gd_root_read_file(root, req, GD_FW_META_HEAD, &rdata, &rlen);
        if (rs == GD_OK)
            rs = gd_pyreq_parse_requires_txt(rdata, rlen, meta);
        gd_fwscan_fail(s, rs);
        gd_free(rdata);
    }
    gd_free(data);
    gd_fwscan_fail(s, st);
    if (st != GD_OK) {
        gd_fact_unknown(e, "version", gd_status_str(st), at);
        return;
    }
    if (meta->version[0]) {
        snprintf(fw->version, sizeof fw->version, "%s", meta->version);
        gd_fact_str(e, "version", meta->version, at);
    } else {
        gd_fact_unknown(e, "version", "the metadata has no Version field", at);
    }
}

/* ---- build facts ------------------------------------------------------------------------- */

static void set_build(struct gd_fw *fw, const char *build, struct gd_source src)
{
    if (fw->build[0])
        return;
    snprintf(fw->build, sizeof fw->build, "%s", build);
    gd_fact_str(fw->entity, "build", build, src);
}

/* Keep a version in a fixed buffer: one that does not fit is no version of a CUDA release
 * (they are "12.1", "8.9.4"), so it is recorded as written and never cut into a wrong one. */
static void set_version(struct gd_fw *fw, char *buf, size_t size, const char *fact,
                        const char *value, struct gd_source src)
{
    if (buf[0] || !value || !value[0])
        return;
    size_t n = strlen(value);
    if (n < size)
        memcpy(buf, value, n + 1);
    gd_fact_str(fw->entity, fact, value, src);
}

static void set_cuda(struct gd_fw *fw, const char *cuda, struct gd_source src)
{
    set_version(fw, fw->cuda, sizeof fw->cuda, "build.cuda", cuda, src);
}

static void set_cudnn(struct gd_fw *fw, const char *cudnn, struct gd_source src)
{
    set_version(fw, fw->cudnn, sizeof fw->cudnn, "build.cudnn", cudnn, src);
}

/* The versions a build file states; one stated but not a version (Windows builds write
 * "64_112") is recorded as unknown with what the file said. */
static void build_versions(struct gd_fw *fw, const struct gd_build_facts *b, struct gd_source src)
{
    set_cuda(fw, b->cuda, src);
    set_cudnn(fw, b->cudnn, src);
    const char *bad[] = { b->cuda_bad, b->cudnn_bad }, *facts[] = { "build.cuda", "build.cudnn" };
    for (size_t i = 0; i < 2; i++)
        if (bad[i][0] && !gd_entity_fact(fw->entity, facts[i]))
            gd_fact_unknown(fw->entity, facts[i],
                            gd_report_printf(fw->entity->report, "not a version: %s", bad[i]), src);
}

/* A Python file of the distribution, parsed; NULL when absent or unreadable (a fact says so
 * under `fact` when given). */
static struct gd_pylit_file *read_build_file(struct gd_fwscan *s, struct gd_fw *fw, const char *rel,
                                             char *path, size_t size, const char *fact)
{
    snprintf(path, size, "%s/%s", fw->site, rel);
    char *data = NULL;
    size_t len = 0;
    enum gd_status st = gd_root_read_file(s->ctx->root, path, GD_FW_BUILD_FILE_MAX, &data, &len);
    struct gd_pylit_file *f = NULL;
    if (st == GD_OK)
        st = gd_pylit_parse(data, len, &f);
    gd_free(data);
    gd_fwscan_fail(s, st);
    if (st != GD_OK && fact) {
        if (st == GD_ENOENT)
            gd_fact_absent(fw->entity, fact, "no such file", gd_src(GD_SOURCE_PATH, path));
        else
            gd_fact_unknown(fw->entity, fact, gd_status_str(st), gd_src(GD_SOURCE_FILE, path));
    }
    return st == GD_OK ? f : NULL;
}

/* TensorFlow's build_info.py (parse/buildinfo.h says what is read). */
static void tensorflow_build(struct gd_fwscan *s, struct gd_fw *fw)
{
    char path[REF_MAX];
    struct gd_pylit_file *f = read_build_file(s, fw, "tensorflow/python/platform/build_info.py",
                                              path, sizeof path, "build_info");
    if (!f)
        return;
    struct gd_source src = gd_src(GD_SOURCE_FILE, path);
    struct gd_build_facts b;
    gd_build_facts_tensorflow(f, &b);
    gd_pylit_free(f);
    if (b.build[0])
        set_build(fw, b.build, src);
    else if (b.error_line)
        gd_fact_unknown(fw->entity, "build",
                        gd_report_printf(s->ctx->report, "build_info.py does not parse (line %zu)",
                                         b.error_line),
                        src);
    build_versions(fw, &b, src);
    if (b.compute_capabilities[0])
        gd_fact_str(fw->entity, "build.compute_capabilities", b.compute_capabilities, src);
}

/* torch/version.py: cuda and hip are version strings, or None for a build without them. */
static void torch_build(struct gd_fwscan *s, struct gd_fw *fw)
{
    char path[REF_MAX];
    struct gd_pylit_file *f =
        read_build_file(s, fw, "torch/version.py", path, sizeof path, "version_py");
    if (!f)
        return;
    struct gd_source src = gd_src(GD_SOURCE_FILE, path);
    struct gd_build_facts b;
    gd_build_facts_torch(f, &b);
    gd_pylit_free(f);
    if (b.git_version[0])
        gd_fact_str(fw->entity, "git_version", b.git_version, src);
    if (b.build[0])
        set_build(fw, b.build, src);
    if (b.hip[0])
        gd_fact_str(fw->entity, "build.hip", b.hip, src);
    build_versions(fw, &b, src);
}

/* onnxruntime/capi/build_and_package_info.py names the CUDA version of CUDA builds. */
static void onnxruntime_build(struct gd_fwscan *s, struct gd_fw *fw)
{
    char path[REF_MAX];
    struct gd_pylit_file *f = read_build_file(s, fw, "onnxruntime/capi/build_and_package_info.py",
                                              path, sizeof path, NULL);
    if (!f)
        return;
    const char *cuda = gd_pylit_str(gd_pylit_get(f, "cuda_version"));
    struct gd_version v;
    if (cuda && cuda[0] && gd_version_parse(cuda, &v) == GD_OK) {
        set_build(fw, "cuda", gd_src(GD_SOURCE_FILE, path));
        set_cuda(fw, cuda, gd_src(GD_SOURCE_FILE, path));
    }
    gd_pylit_free(f);
}

/* "2.1.0+cu121": the local_version rows say what each label prefix means. */
static void local_version_build(struct gd_fwscan *s, struct gd_fw *fw)
{
    struct gd_version v;
    if (!fw->version[0] || gd_version_parse(fw->version, &v) != GD_OK || !v.local[0])
        return;
    for (size_t i = 0; i < s->nrows[GD_FW_ROWS_LOCAL_VERSION]; i++) {
        const struct gd_kb_row *row = s->rows[GD_FW_ROWS_LOCAL_VERSION][i];
        const char *kind = gd_kb_str(row, "kind"), *dist = gd_kb_str(row, "dist");
        const char *prefix = gd_kb_str(row, "local_prefix"), *meaning = gd_kb_str(row, "meaning");
        if (!kind || strcmp(kind, "local_version") != 0 || !dist || strcmp(dist, fw->dist) != 0 ||
            !prefix || !meaning || !gd_str_starts_with(v.local, prefix))
            continue;
        /* The version itself is the evidence; the KB row says what the label means. */
        struct gd_source src =
            gd_src(GD_SOURCE_DERIVED, gd_report_printf(s->ctx->report, "local version +%s (%s)",
                                                       v.local, gd_kb_row_source(row)));
        if (strcmp(meaning, "cpu-only") == 0) {
            set_build(fw, "cpu", src);
        } else if (strcmp(meaning, "rocm") == 0) {
            set_build(fw, "rocm", src);
        } else if (strcmp(meaning, "cuda") == 0) {
            set_build(fw, "cuda", src);
            /* "cu121", "cuda12.cudnn89": the part before the first '.' is a CUDA tag. */
            char tag[GD_VERSION_TEXT_MAX], cudnn[GD_VERSION_TEXT_MAX] = "";
            snprintf(tag, sizeof tag, "%s", v.local);
            char *dot = strchr(tag, '.');
            if (dot) {
                *dot = '\0';
                if (gd_str_starts_with(dot + 1, "cudnn") && strlen(dot + 6) >= 2 &&
                    strspn(dot + 6, "0123456789") == strlen(dot + 6))
                    snprintf(cudnn, sizeof cudnn, "%c.%s", dot[6], dot + 7);
            }
            struct gd_version cv;
            if (gd_version_from_cuda_tag(tag, &cv) == GD_OK) {
                char text[GD_VERSION_FORMAT_MAX];
                gd_version_format(&cv, text, sizeof text);
                set_cuda(fw, text, src);
            }
            set_cudnn(fw, cudnn, src);
        }
        return;
    }
}

/* The KB row's role and CUDA fields: tensorflow-cpu, cupy-cuda12x, jax-cuda12-plugin. */
static void role_build(struct gd_fwscan *s, struct gd_fw *fw)
{
    char ref[REF_MAX];
    kb_ref(fw->row, fw->dist, ref, sizeof ref);
    struct gd_source src = gd_src(GD_SOURCE_KB, ref);
    const char *role = fw->role ? fw->role : "";
    const char *cuda = gd_kb_str(fw->row, "cuda");
    const char *major = gd_kb_str(fw->row, "cuda_major");
    const char *tag = gd_kb_str(fw->row, "cuda_tag");
    if (strcmp(role, "cpu-only") == 0) {
        set_build(fw, "cpu", src);
    } else if (strcmp(role, "rocm") == 0) {
        set_build(fw, "rocm", src);
    } else if (cuda || major || tag) {
        set_build(fw, "cuda", src);
        if (tag && strcmp(tag, "name-suffix") == 0 && gd_str_starts_with(fw->dist, "cupy-")) {
            struct gd_version cv;
            if (gd_version_from_cuda_tag(fw->dist + strlen("cupy-"), &cv) == GD_OK) {
                char text[GD_VERSION_FORMAT_MAX];
                gd_version_format(&cv, text, sizeof text);
                set_cuda(fw, text, src);
            }
        }
        set_cuda(fw, cuda ? cuda : major, src);
    }
    (void)s;
}

/* jaxlib runs on the CPU unless a jax-cudaNN-plugin sits beside it (JAX 0.4.26 on moved CUDA
 * support into the plugins) or its local version names CUDA (older jaxlib+cudaNN wheels). */
static void jaxlib_build(struct gd_fwscan *s, struct gd_fw *fw, size_t site_first)
{
    for (size_t i = site_first; i < s->nfws; i++) {
        const struct gd_fw *p = &s->fws[i];
        if (p->site != fw->site || !p->role || strcmp(p->role, "plugin") != 0 || !p->cuda[0])
            continue;
        struct gd_source src =
            gd_src(GD_SOURCE_DERIVED, gd_report_printf(s->ctx->report, "%s beside it", p->meta));
        set_build(fw, "cuda", src);
        set_cuda(fw, p->cuda, src);
        return;
    }
    set_build(fw, "cpu",
              gd_src(GD_SOURCE_DERIVED,
                     "no jax-cudaNN-plugin in its site directory and no +cuda local version"));
}

static void decide_build(struct gd_fwscan *s, struct gd_fw *fw)
{
    if (strcmp(fw->framework, "tensorflow") == 0)
        tensorflow_build(s, fw);
    else if (strcmp(fw->framework, "torch") == 0)
        torch_build(s, fw);
    else if (strcmp(fw->framework, "onnxruntime") == 0)
        onnxruntime_build(s, fw);
    local_version_build(s, fw);
    role_build(s, fw);
}

/* Keras, tf-keras and the jax front end have no build of their own. */
static bool has_build(const struct gd_fw *fw)
{
    return strcmp(fw->framework, "keras") != 0 && strcmp(fw->dist, "jax") != 0;
}

/* ---- a site directory -------------------------------------------------------------------- */

static struct gd_fw *add_fw(struct gd_fwscan *s)
{
    if (s->nfws >= GD_FW_MAX) {
        s->dropped++;
        return NULL;
    }
    if (gd_grow((void **)&s->fws, &s->cap_fws, s->nfws + 1, sizeof *s->fws) != 0) {
        s->status = GD_ENOMEM;
        return NULL;
    }
    struct gd_fw *fw = &s->fws[s->nfws++];
    memset(fw, 0, sizeof *fw);
    return fw;
}

/* The pins of the CUDA wheels it depends on (torch 2.1.0: nvidia-cudnn-cu12==8.9.2.26;
 * tensorflow 2.15's and-cuda extra: nvidia-cudnn-cu12==8.9.4.25): the exact fix when one is
 * missing. The first requirement of a name counts (later ones differ only in markers). */
static void record_cuda_requirements(struct gd_fwscan *s, struct gd_fw *fw,
                                     const struct gd_pymeta *meta, const char *meta_file)
{
    for (size_t i = 0; i < meta->nrequires; i++) {
        const struct gd_pyreq *q = &meta->requires[i];
        char norm[128], fact[160];
        gd_pyname_normalize(q->name, norm, sizeof norm);
        if (!gd_str_starts_with(norm, "nvidia-"))
            continue;
        snprintf(fact, sizeof fact, "requires.%s", norm);
        if (gd_entity_fact(fw->entity, fact))
            continue;
        gd_fact_str(fw->entity, fact, q->specifier[0] ? q->specifier : "*",
                    gd_src(GD_SOURCE_FILE, meta_file));
    }
    (void)s;
}

static void record_fw(struct gd_fwscan *s, struct gd_fw *fw, bool egg, bool egg_is_dir)
{
    char id[REF_MAX];
    snprintf(id, sizeof id, "framework:%s", fw->meta);
    struct gd_entity *e = gd_report_add_entity(s->ctx->report, "framework", id);
    fw->entity = e;
    char ref[REF_MAX];
    kb_ref(fw->row, fw->dist, ref, sizeof ref);
    struct gd_source kb = gd_src(GD_SOURCE_KB, ref);
    struct gd_source at = gd_src(GD_SOURCE_PATH, fw->meta);
    gd_fact_str(e, "framework", fw->framework, kb);
    gd_fact_str(e, "dist", fw->dist, at);
    if (fw->role)
        gd_fact_str(e, "role", fw->role, kb);
    gd_fact_str(e, "env", fw->env, gd_src(GD_SOURCE_DERIVED, "the environment importing from it"));
    gd_fact_str(e, "site", fw->site, at);
    struct gd_pymeta meta;
    memset(&meta, 0, sizeof meta);
    char meta_file[REF_MAX];
    read_metadata(s, fw, egg, egg_is_dir, &meta, meta_file, sizeof meta_file);
    record_cuda_requirements(s, fw, &meta, meta_file);
    if (meta.name[0] && !gd_pyname_equal(meta.name, fw->dist))
        gd_fact_str(e, "metadata_name", meta.name, gd_src(GD_SOURCE_FILE, meta_file));
    gd_pymeta_free(&meta);
    /* keras 2 and 3 are one name; the version picks the row. */
    if (fw->version[0] && strcmp(fw->dist, "keras") == 0) {
        const struct gd_kb_row *by_version = dist_row_for_version(s->kb, fw->dist, fw->version);
        if (by_version)
            fw->row = by_version;
        const char *major = gd_kb_str(fw->row, "keras_major");
        if (major)
            gd_fact_str(e, "keras_major", major, kb);
    }
    if (!egg) {
        char record[REF_MAX];
        snprintf(record, sizeof record, "%s/RECORD", fw->meta);
        fw->has_record = gd_root_exists(s->ctx->root, record);
    }
}

static void scan_site(struct gd_fwscan *s, const char *env, const char *site)
{
    struct gd_names names;
    enum gd_status st = gd_root_list(s->ctx->root, site, &names);
    if (st != GD_OK) {
        gd_fwscan_fail(s, st);
        return;
    }
    size_t first = s->nfws;
    size_t n = names.count < GD_FW_SITE_ENTRIES ? names.count : GD_FW_SITE_ENTRIES;
    struct gd_fw_site *info = NULL;
    if (gd_grow((void **)&s->sites, &s->cap_sites, s->nsites + 1, sizeof *s->sites) == 0) {
        info = &s->sites[s->nsites++];
        *info = (struct gd_fw_site){ site, { 0 } };
    } else {
        s->status = GD_ENOMEM;
    }
    for (size_t i = 0; i < n && alive(s); i++) {
        char dist[128];
        bool egg;
        if (!meta_dir_dist(names.names[i], dist, sizeof dist, &egg))
            continue;
        gd_fwscan_fail(s, gd_strlist_push(&info->dists, dist));
        const struct gd_kb_row *row = dist_row(s, dist);
        if (!row)
            continue;
        struct gd_fw *fw = add_fw(s);
        if (!fw)
            break;
        fw->meta = gd_path_join(site, names.names[i]);
        if (!fw->meta) {
            s->status = GD_ENOMEM;
            s->nfws--;
            break;
        }
        fw->site = site;
        fw->env = env;
        fw->row = row;
        fw->framework = gd_kb_str(row, "framework");
        fw->role = gd_kb_str(row, "role");
        snprintf(fw->dist, sizeof fw->dist, "%s", dist);
        if (!fw->framework) {
            gd_free(fw->meta);
            s->nfws--;
            continue;
        }
        bool egg_is_dir = egg && gd_root_is_dir(s->ctx->root, fw->meta);
        record_fw(s, fw, egg, egg_is_dir);
    }
    gd_names_free(&names);
    /* Builds after the whole directory is read: jaxlib looks at its neighbours. */
    for (size_t i = first; i < s->nfws && alive(s); i++) {
        struct gd_fw *fw = &s->fws[i];
        if (!has_build(fw))
            continue;
        decide_build(s, fw);
        if (strcmp(fw->dist, "jaxlib") == 0 && !fw->build[0])
            jaxlib_build(s, fw, first);
        if (strcmp(fw->build, "cpu") == 0 && !fw->cuda[0]) {
            const struct gd_fact *b = gd_entity_fact(fw->entity, "build");
            gd_fact_absent(fw->entity, "build.cuda", "a build without CUDA",
                           b ? b->source : gd_src(GD_SOURCE_DERIVED, "build"));
        }
        if (!fw->build[0])
            gd_fact_unknown(fw->entity, "build",
                            "no build file, local version or distribution name says how it was "
                            "built",
                            gd_src(GD_SOURCE_PATH, fw->meta));
    }
}

/* ---- per environment: extras and Keras ---------------------------------------------------- */

/* Whether the requirements of an extra (tensorflow[and-cuda]) are all installed in the
 * environment: pip keeps no record of the extras asked for, so this is what can be known. */
static void record_extras(struct gd_fwscan *s, const struct gd_strlist *dists, struct gd_fw *fw)
{
    for (size_t i = 0; i < s->nrows[GD_FW_ROWS_EXTRA]; i++) {
        const struct gd_kb_row *row = s->rows[GD_FW_ROWS_EXTRA][i];
        const char *kind = gd_kb_str(row, "kind"), *dist = gd_kb_str(row, "dist");
        const char *extra = gd_kb_str(row, "extra");
        if (!kind || strcmp(kind, "extra") != 0 || !dist || strcmp(dist, fw->dist) != 0 || !extra)
            continue;
        size_t n = gd_kb_list_len(row, "requires"), have = 0;
        if (n == 0)
            continue;
        for (size_t k = 0; k < n; k++) {
            char norm[128];
            gd_pyname_normalize(gd_kb_list_at(row, "requires", k), norm, sizeof norm);
            have += gd_strlist_contains(dists, norm);
        }
        char name[96], ref[REF_MAX];
        snprintf(name, sizeof name, "extras.%s", extra);
        kb_ref(row, gd_report_printf(s->ctx->report, "%s[%s]", dist, extra), ref, sizeof ref);
        /* Two rows of one extra (CUDA 11 and 12 pins of and-cuda): true wins. */
        const struct gd_fact *old = gd_entity_fact(fw->entity, name);
        if (old && gd_fact_is_true(old))
            continue;
        gd_fact_bool(fw->entity, name, have == n, gd_src(GD_SOURCE_KB, ref));
    }
}

static const struct gd_kb_row *kb_first(const struct gd_kb_table *t, const char *kind)
{
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const char *k = gd_kb_str(gd_kb_row_at(t, i), "kind");
        if (k && strcmp(k, kind) == 0)
            return gd_kb_row_at(t, i);
    }
    return NULL;
}

/* The backend keras.json names: $KERAS_HOME/keras.json, else ~/.keras/keras.json. Under a
 * foreign root without HOME the homes of the image are tried (/root, then /home/<user>). */
static bool keras_config_backend(struct gd_fwscan *s, const struct gd_kb_row *cfg, char *backend,
                                 size_t size, char *file, size_t file_size)
{
    const char *home_env = gd_kb_str(cfg, "home_env"), *name = gd_kb_str(cfg, "config_file");
    const char *key = gd_kb_str(cfg, "config_key");
    if (!name || !key)
        return false;
    struct gd_strlist dirs = { 0 };
    const char *kh = home_env ? gd_env_get(s->ctx->env, home_env) : NULL;
    const char *home = gd_env_get(s->ctx->env, "HOME");
    char path[REF_MAX];
    enum gd_status st = GD_OK;
    if (kh && kh[0]) {
        st = gd_strlist_push(&dirs, kh);
    } else if (home && home[0]) {
        snprintf(path, sizeof path, "%s/.keras", home);
        st = gd_strlist_push(&dirs, path);
    } else if (!gd_root_is_live(s->ctx->root)) {
        st = gd_strlist_push(&dirs, "/root/.keras");
        struct gd_names users;
        enum gd_status ls = st == GD_OK ? gd_root_list(s->ctx->root, "/home", &users) : st;
        if (ls == GD_ENOMEM)
            st = ls;
        if (ls == GD_OK) {
            for (size_t i = 0; i < users.count && i < 64 && st == GD_OK; i++) {
                snprintf(path, sizeof path, "/home/%s/.keras", users.names[i]);
                st = gd_strlist_push(&dirs, path);
            }
            gd_names_free(&users);
        }
    }
    bool found = false;
    for (size_t i = 0; i < dirs.count && st == GD_OK && !found; i++) {
        snprintf(file, file_size, "%s/%s", dirs.items[i], name);
        char *data = NULL;
        size_t len = 0;
        enum gd_status rs = gd_root_read_file(s->ctx->root, file, 64 * 1024, &data, &len);
        gd_fwscan_fail(s, rs);
        if (rs != GD_OK)
            continue;
        struct json_tokener *tok = json_tokener_new();
        struct json_object *obj = tok ? json_tokener_parse_ex(tok, data, (int)len) : NULL;
        struct json_object *b = NULL;
        if (obj && json_object_is_type(obj, json_type_object) &&
            json_object_object_get_ex(obj, key, &b) && json_object_is_type(b, json_type_string)) {
            snprintf(backend, size, "%s", json_object_get_string(b));
            found = true;
        } else {
            /* Keras falls back to its default when the file does not parse. */
            snprintf(backend, size, "%s", "");
            found = true;
        }
        json_object_put(obj);
        if (tok)
            json_tokener_free(tok);
        else
            s->status = GD_ENOMEM;
        gd_free(data);
    }
    gd_fwscan_fail(s, st);
    gd_strlist_free(&dirs);
    return found;
}

static void record_keras(struct gd_fwscan *s, const char *env, const struct gd_fw *keras)
{
    char id[REF_MAX];
    snprintf(id, sizeof id, "keras:%s", env);
    struct gd_entity *e = gd_report_add_entity(s->ctx->report, "keras", id);
    struct gd_source at = gd_src(GD_SOURCE_PATH, keras->meta);
    const char *major = gd_kb_str(keras->row, "keras_major");
    gd_fact_str(e, "dist", keras->dist, at);
    gd_fact_str(e, "version", keras->version[0] ? keras->version : "?", at);
    gd_fact_str(e, "env", env, gd_src(GD_SOURCE_DERIVED, "the environment importing from it"));
    if (major)
        gd_fact_str(e, "major", major, at);
    if (!major || strcmp(major, "3") != 0)
        return; /* Keras 2 and tf-keras run on TensorFlow alone */
    const struct gd_kb_row *cfg = kb_first(s->kb, "keras_config");
    if (!cfg)
        return;
    const char *var = gd_kb_str(cfg, "env"), *def = gd_kb_str(cfg, "default");
    const char *value = var ? gd_env_get(s->ctx->env, var) : NULL;
    char backend[64] = "", file[REF_MAX];
    if (value && value[0]) {
        gd_fact_str(e, "backend", value, gd_src(GD_SOURCE_ENV, var));
        gd_fact_str(e, "backend.from", "env", gd_src(GD_SOURCE_ENV, var));
    } else if (keras_config_backend(s, cfg, backend, sizeof backend, file, sizeof file) &&
               backend[0]) {
        gd_fact_str(e, "backend", backend, gd_src(GD_SOURCE_FILE, file));
        gd_fact_str(e, "backend.from", "config", gd_src(GD_SOURCE_FILE, file));
    } else if (def) {
        char ref[REF_MAX];
        kb_ref(cfg, "keras_config default", ref, sizeof ref);
        gd_fact_str(e, "backend", def, gd_src(GD_SOURCE_KB, ref));
        gd_fact_str(e, "backend.from", "default", gd_src(GD_SOURCE_KB, ref));
    }
}

/* The frameworks an environment imports, in import order of its site directories: the first
 * distribution of a name shadows later ones (as importlib.metadata finds the first). */
static void scan_env(struct gd_fwscan *s, const struct gd_pyenv *env, struct gd_strlist *done)
{
    struct gd_strlist dists = { 0 };
    const struct gd_fw *keras = NULL;
    enum gd_status st = GD_OK;
    size_t *mine = NULL, nmine = 0, cap = 0;
    for (size_t k = 0; k < env->site_dirs.count && alive(s); k++) {
        const char *site = env->site_dirs.items[k];
        if (!gd_strlist_contains(done, site)) {
            enum gd_status pushed = gd_strlist_push(done, site);
            gd_fwscan_fail(s, pushed);
            if (pushed != GD_OK)
                break;
            scan_site(s, env->prefix, done->items[done->count - 1]);
        }
        for (size_t i = 0; i < s->nfws && st == GD_OK; i++) {
            if (strcmp(s->fws[i].site, site) != 0 || gd_strlist_contains(&dists, s->fws[i].dist))
                continue;
            st = gd_strlist_push(&dists, s->fws[i].dist);
            if (st == GD_OK && gd_grow((void **)&mine, &cap, nmine + 1, sizeof *mine) != 0)
                st = GD_ENOMEM;
            if (st == GD_OK)
                mine[nmine++] = i;
        }
    }
    /* Every distribution of the env's site directories, for the extras' requirements. */
    for (size_t k = 0; k < env->site_dirs.count && st == GD_OK; k++)
        for (size_t i = 0; i < s->nsites && st == GD_OK; i++)
            if (strcmp(s->sites[i].path, env->site_dirs.items[k]) == 0)
                for (size_t d = 0; d < s->sites[i].dists.count && st == GD_OK; d++)
                    st = gd_strlist_push_unique(&dists, s->sites[i].dists.items[d]);
    for (size_t i = 0; i < nmine && st == GD_OK && alive(s); i++) {
        struct gd_fw *fw = &s->fws[mine[i]];
        if (strcmp(fw->env, env->prefix) == 0)
            record_extras(s, &dists, fw);
        if (strcmp(fw->framework, "keras") == 0 && !keras &&
            (strcmp(fw->dist, "keras") == 0 || strcmp(fw->dist, "keras-nightly") == 0))
            keras = fw;
    }
    if (keras && st == GD_OK && alive(s))
        record_keras(s, env->prefix, keras);
    /* The libraries of the frameworks this environment owns (a shared site directory's are
     * done with the first environment that imports from it). On Windows the native modules are
     * .pyd files and the libraries DLLs, found by Windows' search order (src/loader/winload). */
    for (size_t i = 0; i < nmine && st == GD_OK && alive(s); i++) {
        struct gd_fw *fw = &s->fws[mine[i]];
        if (strcmp(fw->env, env->prefix) != 0 || strcmp(fw->build, "cuda") != 0)
            continue;
        if (s->ctx->windows)
            gd_fw_probe_dlls(s, fw);
        else
            gd_fw_probe_libraries(s, fw, &env->site_dirs);
    }
    gd_free(mine);
    gd_strlist_free(&dists);
    gd_fwscan_fail(s, st);
}

void gd_probe_frameworks(struct gd_probe_ctx *ctx)
{
    struct gd_fwscan s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.kb = gd_kb_table(ctx->kb, "frameworks");
    struct gd_entity *summary = gd_report_add_entity(ctx->report, "frameworks", "frameworks");
    if (!s.kb) {
        gd_fact_unknown(summary, "count", "the knowledge base has no frameworks table",
                        gd_src(GD_SOURCE_KB, "frameworks"));
        return;
    }
    gd_fwscan_fail(&s, load_dists(&s));
    const struct gd_kb_table *libs = gd_kb_table(ctx->kb, "cuda_libraries");
    if (libs)
        gd_fwscan_fail(&s, gd_families_load(libs, &s.families));
    struct gd_pyenvs own = { 0 };
    const struct gd_pyenvs *envs = &ctx->pyenvs;
    if (!ctx->pyenvs_found) {
        gd_fwscan_fail(&s, gd_find_python_envs(ctx, &own));
        envs = &own;
    }
    struct gd_strlist done = { 0 };
    for (size_t i = 0; i < envs->count && alive(&s); i++)
        scan_env(&s, &envs->items[i], &done);
    gd_fact_int(summary, "count", (long long)s.nfws,
                gd_src(GD_SOURCE_DERIVED, "framework distributions in the site directories"));
    if (s.dropped)
        gd_fact_int(summary, "dropped", (long long)s.dropped,
                    gd_src(GD_SOURCE_DERIVED, "distributions past the cap, not recorded"));
    /* A lookup that failed for memory inside the root (an exists, a list) reads as "not there":
     * the root remembers it, and the report must not pass for complete. */
    if (s.status == GD_ENOMEM || gd_root_out_of_memory(ctx->root))
        gd_report_out_of_memory(ctx->report);
    for (size_t i = 0; i < s.nfws; i++)
        gd_free(s.fws[i].meta);
    gd_free(s.fws);
    gd_free(s.copies);
    gd_free(s.dists);
    for (size_t k = 0; k < 4; k++)
        gd_free(s.rows[k]);
    for (size_t i = 0; i < s.nsites; i++)
        gd_strlist_free(&s.sites[i].dists);
    gd_free(s.sites);
    gd_strlist_free(&done);
    gd_pyenvs_free(&own);
    gd_families_free(&s.families);
    gd_loader_free(s.loader);
    gd_free(s.cwd);
}
