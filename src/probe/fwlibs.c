/*
 * The CUDA libraries a framework distribution needs, and the GPU code compiled into it
 * (frameworks.h).
 *
 * Native modules: the shared objects its RECORD lists (a wheel's own list of its files), else,
 * for an egg or a RECORD-less install, the *.so files of its top-level package and its lib/.
 * Each module is read whole-header (sections included, never its contents): its DT_NEEDED
 * entries that name a CUDA family library are resolved as glibc would from that module (its
 * RUNPATH first: torch's point at the nvidia-* wheels), and its .nv_fatbin section lists the
 * architectures it carries. Then the names the KB says the framework dlopens (TensorFlow, JAX)
 * are resolved: first from the wheel files the framework preloads itself (JAX's plugin loads
 * nvidia/<lib> of each site directory before anything else), then as a dlopen from its first
 * module with a RUNPATH or RPATH (the module whose search path the dlopen would use), else from
 * a program without one. A needed library the loader cannot find is looked for last where torch
 * looks when its global-deps load fails (the KB `preload` globs under each nvidia/ directory).
 *
 * The driver's own libraries (libcuda.so.1, libnvidia-ml.so.1) are left to the driver probes.
 */
#include "probe/frameworks.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "core/version.h"
#include "elf/elf.h"
#include "elf/fatbin.h"
#include "kb/kb.h"
#include "loader/loader.h"
#include "os/os.h"
#include "parse/record.h"
#include "sysroot/glob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_MAX (GD_ROOT_PATH_MAX + 128)

struct libs {
    struct gd_strlist done;  /* sonames recorded for this distribution */
    const char *dlopen_from; /* the first module with a RUNPATH or RPATH, or NULL */
    int elf_class;
    uint16_t machine;
};

static bool alive_libs(const struct gd_fwscan *s, const struct libs *libs)
{
    return s->status == GD_OK && libs->done.count < GD_FW_LIBS_MAX;
}

/* ---- the loader -------------------------------------------------------------------------- */

static struct gd_loader *loader_of(struct gd_fwscan *s)
{
    if (s->loader || s->loader_failed)
        return s->loader;
    s->loader_failed = true;
    struct gd_probe_ctx *ctx = s->ctx;
    char glibc[32] = "", ref[256];
    enum gd_source_kind kind;
    if (gd_glibc_version(ctx->root, glibc, sizeof glibc, &kind, ref, sizeof ref) == GD_ENOMEM) {
        s->status = GD_ENOMEM;
        return NULL;
    }
    if (gd_root_is_live(ctx->root) && gd_os_getcwd(&s->cwd) == GD_ENOMEM) {
        s->status = GD_ENOMEM;
        return NULL;
    }
    struct gd_loader_options lo = { gd_env_get(ctx->env, "LD_LIBRARY_PATH"), s->cwd,
                                    glibc[0] ? glibc : NULL, false, ctx->elves };
    enum gd_status st = gd_loader_new(ctx->root, &lo, &s->loader);
    gd_fwscan_fail(s, st);
    if (st == GD_OK)
        s->loader_failed = false;
    return s->loader;
}

/* ---- native modules ---------------------------------------------------------------------- */

static bool is_shared_object_name(const char *path)
{
    const char *base = gd_path_base(path);
    return gd_str_ends_with(base, ".so") || strstr(base, ".so.") != NULL;
}

struct record_walk {
    struct gd_strlist *out;
    const char *site;
    bool (*is_module)(const char *path);
    enum gd_status status;
};

static bool on_record(void *user, const char *path, long long size)
{
    (void)size;
    struct record_walk *w = user;
    /* Files outside the site directory (scripts in bin/, "../../../bin/x") are not modules. */
    if (path[0] == '/' || strstr(path, "..") || !w->is_module(path))
        return true;
    if (w->out->count >= GD_FW_MODULES_MAX)
        return false;
    char *full = gd_path_join(w->site, path);
    w->status = full ? gd_strlist_push(w->out, full) : GD_ENOMEM;
    gd_free(full);
    return w->status == GD_OK;
}

void gd_fw_list_dir_modules(struct gd_fwscan *s, const char *dir,
                            bool (*is_module)(const char *path), struct gd_strlist *out)
{
    struct gd_names names;
    enum gd_status st = gd_root_list(s->ctx->root, dir, &names);
    gd_fwscan_fail(s, st);
    if (st != GD_OK)
        return;
    for (size_t i = 0; i < names.count && out->count < GD_FW_MODULES_MAX; i++) {
        if (!is_module(names.names[i]))
            continue;
        char *full = gd_path_join(dir, names.names[i]);
        gd_fwscan_fail(s, full ? gd_strlist_push(out, full) : GD_ENOMEM);
        gd_free(full);
    }
    gd_names_free(&names);
}

void gd_fw_list_modules(struct gd_fwscan *s, const struct gd_fw *fw,
                        bool (*is_module)(const char *path), struct gd_strlist *out)
{
    char path[REF_MAX];
    if (fw->has_record) {
        snprintf(path, sizeof path, "%s/RECORD", fw->meta);
        char *data = NULL;
        size_t len = 0;
        enum gd_status st = gd_root_read_file(s->ctx->root, path, GD_FW_RECORD_MAX, &data, &len);
        gd_fwscan_fail(s, st);
        if (st == GD_OK) {
            struct record_walk w = { out, fw->site, is_module, GD_OK };
            gd_parse_record(data, len, on_record, &w);
            gd_fwscan_fail(s, w.status);
            gd_free(data);
            return;
        }
    }
    /* The package directory: the KB's module name ("jax_cuda12_plugin", "jax_plugins.xla_cuda12"),
     * else the framework's. */
    const char *module = gd_kb_str(fw->row, "module");
    char top[128];
    snprintf(top, sizeof top, "%s", module ? module : fw->framework);
    for (char *p = top; *p; p++)
        if (*p == '.')
            *p = '/';
    snprintf(path, sizeof path, "%s/%s", fw->site, top);
    gd_fw_list_dir_modules(s, path, is_module, out);
    snprintf(path, sizeof path, "%s/%s/lib", fw->site, top);
    gd_fw_list_dir_modules(s, path, is_module, out);
}

/* ---- one library ------------------------------------------------------------------------- */

/* The family row of a CUDA library name, NULL for other names and for the driver's own. */
static const struct gd_kb_row *cuda_family(const struct gd_fwscan *s, const char *name,
                                           const char **prefix)
{
    const struct gd_kb_row *row = gd_family_match(&s->families, name, prefix);
    const char *group = row ? gd_kb_str(row, "group") : NULL;
    return group && strcmp(group, "driver") == 0 ? NULL : row;
}

static int cmp_copy(const void *a, const void *b)
{
    return strcmp(((const struct gd_fw_copy *)a)->path, ((const struct gd_fw_copy *)b)->path);
}

/* The inventory's entity for the file at `real` (its real path), or NULL: a sorted index of
 * them, made once (a hundred environments hold thousands of copies). */
static const struct gd_entity *library_entity(struct gd_fwscan *s, const char *real)
{
    const struct gd_report *r = s->ctx->report;
    if (!s->copies_made) {
        s->copies_made = true;
        size_t n = gd_report_entity_count(r);
        s->copies = gd_calloc(n ? n : 1, sizeof *s->copies);
        if (!s->copies) {
            s->status = GD_ENOMEM;
            return NULL;
        }
        for (size_t i = 0; i < n; i++) {
            const struct gd_entity *e = gd_report_entity_at(r, i);
            const struct gd_fact *p = gd_entity_fact(e, "path");
            if (strcmp(gd_entity_kind(e), "library") == 0 && p && p->value)
                s->copies[s->ncopies++] = (struct gd_fw_copy){ p->value, e };
        }
        qsort(s->copies, s->ncopies, sizeof *s->copies, cmp_copy);
    }
    struct gd_fw_copy key = { real, NULL };
    const struct gd_fw_copy *hit =
        s->copies ? bsearch(&key, s->copies, s->ncopies, sizeof *s->copies, cmp_copy) : NULL;
    return hit ? hit->entity : NULL;
}

/* "8.9.2" from ".../libcudnn.so.8.9.2" with prefix "libcudnn.so"; "" when the name says none. */
static void name_version(const char *path, const char *prefix, char *buf, size_t size)
{
    const char *base = gd_path_base(path);
    size_t n = strlen(prefix);
    buf[0] = '\0';
    struct gd_version v;
    if (strncmp(base, prefix, n) == 0 && base[n] == '.' &&
        gd_version_parse(base + n + 1, &v) == GD_OK && !v.local[0] && v.pre == GD_PRE_NONE)
        snprintf(buf, size, "%s", base + n + 1);
}

struct found {
    const char *path; /* NULL: not found */
    const char *rule; /* how */
    const char *dir;
};

static void record_lib(struct gd_fwscan *s, struct gd_fw *fw, const char *soname, const char *how,
                       const char *needed_by, bool optional, const struct found *f)
{
    struct gd_report *r = s->ctx->report;
    char id[2 * REF_MAX];
    snprintf(id, sizeof id, "framework_lib:%s:%s", fw->meta, soname);
    struct gd_entity *e = gd_report_add_entity(r, "framework_lib", id);
    gd_entity_add_part(fw->entity, e);
    char elf_ref[REF_MAX];
    snprintf(elf_ref, sizeof elf_ref, "%s:DT_NEEDED", needed_by ? needed_by : "?");
    struct gd_source asked = strcmp(how, "needed") == 0
                                 ? gd_src(GD_SOURCE_ELF, elf_ref)
                                 : gd_src(GD_SOURCE_KB, "frameworks: dlopen");
    gd_fact_str(e, "framework", gd_entity_id(fw->entity), gd_src(GD_SOURCE_DERIVED, fw->meta));
    gd_fact_str(e, "soname", soname, asked);
    gd_fact_str(e, "how", how, asked);
    if (needed_by)
        gd_fact_str(e, "needed_by", needed_by, asked);
    gd_fact_bool(e, "optional", optional, asked);
    const char *prefix = NULL;
    const struct gd_kb_row *fam = cuda_family(s, soname, &prefix);
    if (fam && gd_kb_str(fam, "family"))
        gd_fact_str(e, "family", gd_kb_str(fam, "family"), gd_src(GD_SOURCE_KB, "cuda_libraries"));
    if (!f->path) {
        gd_fact_absent(e, "path",
                       gd_report_printf(r, "the loader would not find %s from %s", soname,
                                        needed_by ? needed_by : "a program without RUNPATH"),
                       gd_src(GD_SOURCE_DERIVED, "loader emulation"));
        return;
    }
    struct gd_source by =
        gd_src(GD_SOURCE_DERIVED, gd_report_printf(r, "loader emulation (%s%s%s)", f->rule,
                                                   f->dir ? " " : "", f->dir ? f->dir : ""));
    /* The path as a user would write it: "torch/lib/../../nvidia/cudnn/lib" is how the search
     * met it (in the source), the directories resolved; the file itself kept as named. */
    char *shown = NULL, *real = NULL;
    enum gd_status st = gd_root_resolve(s->ctx->root, f->path, false, &shown);
    gd_fwscan_fail(s, st);
    gd_fact_str(e, "path", shown ? shown : f->path, by);
    gd_fact_str(e, "rule", f->rule, by);
    gd_free(shown);
    st = gd_root_resolve(s->ctx->root, f->path, true, &real);
    gd_fwscan_fail(s, st);
    const struct gd_entity *lib = real ? library_entity(s, real) : NULL;
    const struct gd_fact *v = lib ? gd_entity_fact(lib, "version") : NULL;
    if (v && v->value) {
        gd_fact_str(e, "library", gd_entity_id(lib), gd_src(GD_SOURCE_PATH, real));
        gd_fact_str(e, "version", v->value, v->source);
    } else if (prefix) {
        char ver[GD_VERSION_TEXT_MAX];
        name_version(real ? real : f->path, prefix, ver, sizeof ver);
        if (!ver[0])
            name_version(soname, prefix, ver, sizeof ver);
        if (ver[0])
            gd_fact_str(e, "version", ver, gd_src(GD_SOURCE_PATH, real ? real : f->path));
    }
    gd_free(real);
}

/* Resolve `soname` from `load`'s object `from` (NULL: the load's main object). */
static struct found resolve_in(struct gd_fwscan *s, struct gd_load *load, struct gd_object *from,
                               const char *soname)
{
    struct found f = { NULL, NULL, NULL };
    struct gd_edge *edge = NULL;
    enum gd_status st =
        gd_load_resolve(load, from ? from : gd_load_main(load), soname, false, &edge);
    gd_fwscan_fail(s, st);
    if (st == GD_OK && edge && edge->to) {
        f.path = gd_report_strdup(s->ctx->report, edge->to->path);
        f.rule = gd_rule_name(edge->rule);
        f.dir = edge->dir ? gd_report_strdup(s->ctx->report, edge->dir) : NULL;
    }
    return f;
}

/* Torch's fallback (KB `preload` rows): the first match of the glob for this library under
 * nvidia/ of each site directory. */
static struct found preload_fallback(struct gd_fwscan *s, const struct gd_fw *fw,
                                     const char *soname, const struct gd_strlist *sites)
{
    struct found f = { NULL, NULL, NULL };
    for (size_t i = 0; i < s->nrows[GD_FW_ROWS_PRELOAD] && !f.path; i++) {
        const struct gd_kb_row *row = s->rows[GD_FW_ROWS_PRELOAD][i];
        const char *kind = gd_kb_str(row, "kind"), *fwname = gd_kb_str(row, "framework");
        if (!kind || strcmp(kind, "preload") != 0 || !fwname || strcmp(fwname, fw->framework) != 0)
            continue;
        for (size_t k = 0; k < gd_kb_list_len(row, "wheel_files") && !f.path; k++) {
            const char *glob = gd_kb_list_at(row, "wheel_files", k);
            const char *base = glob ? gd_path_base(glob) : NULL;
            const char *star = base ? strchr(base, '*') : NULL;
            /* "libcudnn.so.*[0-9]" serves "libcudnn.so.8": same text before the wildcard. */
            if (!star || strncmp(base, soname, (size_t)(star - base)) != 0)
                continue;
            for (size_t d = 0; d < sites->count && !f.path; d++) {
                char pattern[REF_MAX];
                snprintf(pattern, sizeof pattern, "%s/nvidia/%s", sites->items[d], glob);
                struct gd_strlist hits = { 0 };
                enum gd_status st = gd_root_glob(s->ctx->root, pattern, 16, &hits);
                gd_fwscan_fail(s, st);
                for (size_t h = 0; h < hits.count && !f.path; h++)
                    if (strcmp(gd_path_base(hits.items[h]), soname) == 0 ||
                        gd_str_starts_with(gd_path_base(hits.items[h]), soname))
                        f.path = gd_report_strdup(s->ctx->report, hits.items[h]);
                gd_strlist_free(&hits);
            }
            if (f.path)
                f.rule = "preload";
        }
    }
    return f;
}

/* JAX's plugin loads nvidia/<file> of each site directory itself, before any search. */
static struct found wheel_file(struct gd_fwscan *s, const struct gd_kb_row *row, const char *soname,
                               const struct gd_strlist *sites)
{
    struct found f = { NULL, NULL, NULL };
    for (size_t k = 0; row && k < gd_kb_list_len(row, "wheel_files") && !f.path; k++) {
        const char *file = gd_kb_list_at(row, "wheel_files", k);
        if (!file || strcmp(gd_path_base(file), soname) != 0)
            continue;
        for (size_t d = 0; d < sites->count && !f.path; d++) {
            char path[REF_MAX];
            snprintf(path, sizeof path, "%s/nvidia/%s", sites->items[d], file);
            if (gd_root_exists(s->ctx->root, path)) {
                f.path = gd_report_strdup(s->ctx->report, path);
                f.rule = "wheel";
            }
        }
    }
    return f;
}

/* ---- fat binaries ------------------------------------------------------------------------ */

static void arch_name(const struct gd_fatbin_arch *a, unsigned variant, char *buf, size_t size)
{
    const char *suffix = variant == GD_FATBIN_ARCH_SPECIFIC ? "a"
                         : variant == GD_FATBIN_FAMILY      ? "f"
                                                            : "";
    snprintf(buf, size, "%s_%u%s", a->ptx ? "compute" : "sm", a->sm, suffix);
}

static void record_kernels(struct gd_fwscan *s, struct gd_fw *fw, const char *module,
                           const struct gd_fatbin *fb, enum gd_status st)
{
    char id[REF_MAX];
    snprintf(id, sizeof id, "kernels:%s", module);
    struct gd_entity *e = gd_report_add_entity(s->ctx->report, "kernels", id);
    gd_entity_add_part(fw->entity, e);
    char ref[REF_MAX];
    snprintf(ref, sizeof ref, "%s:%s", module, fb->relocatable ? "__nv_relfatbin" : ".nv_fatbin");
    struct gd_source at = gd_src(GD_SOURCE_ELF, ref);
    gd_fact_str(e, "framework", gd_entity_id(fw->entity), gd_src(GD_SOURCE_DERIVED, fw->meta));
    gd_fact_str(e, "library", module, gd_src(GD_SOURCE_PATH, module));
    if (st != GD_OK) {
        gd_fact_unknown(e, "sass", gd_status_str(st), at);
        return;
    }
    struct gd_buf sass, ptx;
    gd_buf_init(&sass, 16 * 1024);
    gd_buf_init(&ptx, 16 * 1024);
    static const unsigned variants[] = { GD_FATBIN_PLAIN, GD_FATBIN_ARCH_SPECIFIC,
                                         GD_FATBIN_FAMILY };
    for (size_t i = 0; i < fb->narchs; i++) {
        const struct gd_fatbin_arch *a = &fb->archs[i];
        struct gd_buf *b = a->ptx ? &ptx : &sass;
        /* An entry without flavour bits (before CUDA 12.9) is a plain one. */
        unsigned seen = a->variants ? a->variants : GD_FATBIN_PLAIN;
        for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
            if (!(seen & variants[v]))
                continue;
            char name[32];
            arch_name(a, variants[v], name, sizeof name);
            gd_buf_printf(b, "%s%s", gd_buf_str(b)[0] ? "," : "", name);
        }
    }
    gd_fwscan_fail(s, gd_buf_status(&sass));
    gd_fwscan_fail(s, gd_buf_status(&ptx));
    if (gd_buf_str(&sass)[0])
        gd_fact_str(e, "sass", gd_buf_str(&sass), at);
    else
        gd_fact_absent(e, "sass", "no SASS entry", at);
    if (gd_buf_str(&ptx)[0])
        gd_fact_str(e, "ptx", gd_buf_str(&ptx), at);
    else
        gd_fact_absent(e, "ptx", "no PTX entry", at);
    gd_fact_int(e, "entries", (long long)fb->entries, at);
    if (fb->partial)
        gd_fact_bool(e, "partial", true, at);
    gd_buf_free(&sass);
    gd_buf_free(&ptx);
}

/* ---- one module -------------------------------------------------------------------------- */

static void probe_module(struct gd_fwscan *s, struct gd_fw *fw, const char *module,
                         struct libs *libs, const struct gd_strlist *sites)
{
    struct gd_os_file *file = NULL;
    struct gd_elf *elf = NULL;
    enum gd_status st = gd_root_open(s->ctx->root, module, &file);
    if (st == GD_OK)
        st = gd_elf_read_file(file, &elf);
    gd_fwscan_fail(s, st);
    if (st != GD_OK) {
        if (file)
            gd_os_close(file);
        return; /* not an ELF file, a link to nowhere: nothing it needs can be known */
    }
    if (!libs->elf_class) {
        libs->elf_class = elf->elf_class;
        libs->machine = elf->machine;
    }
    if (!libs->dlopen_from && (elf->runpath || elf->rpath))
        libs->dlopen_from = gd_report_strdup(s->ctx->report, module);

    struct gd_load *load = NULL;
    for (size_t i = 0; i < elf->nneeded && alive_libs(s, libs); i++) {
        const char *name = elf->needed[i], *prefix;
        if (!cuda_family(s, name, &prefix) || gd_strlist_contains(&libs->done, name))
            continue;
        gd_fwscan_fail(s, gd_strlist_push(&libs->done, name));
        struct found f = { NULL, NULL, NULL };
        struct gd_loader *loader = loader_of(s);
        if (loader && !load)
            gd_fwscan_fail(s, gd_load_start(loader, module, false, &load));
        if (load)
            f = resolve_in(s, load, NULL, name);
        if (!f.path)
            f = preload_fallback(s, fw, name, sites);
        record_lib(s, fw, name, "needed", module, false, &f);
    }
    gd_load_free(load);

    struct gd_fatbin fb;
    memset(&fb, 0, sizeof fb);
    st = gd_fatbin_read_file(file, elf, &fb);
    gd_fwscan_fail(s, st);
    if (st != GD_ENOENT && st != GD_ENOMEM && (st != GD_OK || fb.narchs))
        record_kernels(s, fw, module, &fb, st);
    gd_fatbin_free(&fb);
    gd_elf_free(elf);
    gd_os_close(file);
}

/* ---- the names a framework dlopens ------------------------------------------------------- */

/* The `dlopen` row of the framework whose `cuda` is the longest prefix of the CUDA version it
 * was built for ("11.0" before "11" for TensorFlow built with CUDA 11.0). */
static const struct gd_kb_row *dlopen_row(const struct gd_fwscan *s, const struct gd_fw *fw)
{
    struct gd_version built;
    if (!fw->cuda[0] || gd_version_parse(fw->cuda, &built) != GD_OK)
        return NULL;
    const struct gd_kb_row *best = NULL;
    int best_parts = 0;
    for (size_t i = 0; i < s->nrows[GD_FW_ROWS_DLOPEN]; i++) {
        const struct gd_kb_row *row = s->rows[GD_FW_ROWS_DLOPEN][i];
        const char *kind = gd_kb_str(row, "kind"), *name = gd_kb_str(row, "framework");
        const char *cuda = gd_kb_str(row, "cuda");
        struct gd_version v;
        if (!kind || strcmp(kind, "dlopen") != 0 || !name || strcmp(name, fw->framework) != 0 ||
            !cuda || gd_version_parse(cuda, &v) != GD_OK || !gd_version_has_prefix(&built, &v))
            continue;
        if (v.nparts > best_parts) {
            best = row;
            best_parts = v.nparts;
        }
    }
    return best;
}

/* "libcudnn.so.{cudnn_major}" with the build's versions; false when a placeholder cannot be
 * filled (the build file does not state that version) or the name does not fit. */
static bool expand_soname(const struct gd_fw *fw, const char *pattern, char *out, size_t size)
{
    struct gd_version cuda, cudnn;
    bool have_cuda = fw->cuda[0] && gd_version_parse(fw->cuda, &cuda) == GD_OK;
    bool have_cudnn = fw->cudnn[0] && gd_version_parse(fw->cudnn, &cudnn) == GD_OK;
    size_t n = 0;
    for (const char *p = pattern; p && *p;) {
        int w = 0;
        if (*p != '{') {
            /* A plain character: copied, not formatted (a snprintf per byte was a tenth of
             * the dlopen probe's instructions), and not compared with the placeholders. */
            if (size - n < 2)
                return false;
            out[n] = *p++;
            out[n + 1] = '\0';
            w = 1;
        } else if (gd_str_starts_with(p, "{cudnn_major}")) {
            if (!have_cudnn)
                return false;
            w = snprintf(out + n, size - n, "%lu", gd_version_major(&cudnn));
            p += strlen("{cudnn_major}");
        } else if (gd_str_starts_with(p, "{cuda_major_minor}")) {
            if (!have_cuda)
                return false;
            w = snprintf(out + n, size - n, "%lu.%lu", gd_version_major(&cuda),
                         gd_version_minor(&cuda));
            p += strlen("{cuda_major_minor}");
        } else {
            return false; /* a placeholder this code does not know */
        }
        if (w < 0 || (size_t)w >= size - n)
            return false;
        n += (size_t)w;
    }
    return pattern && n > 0;
}

static void probe_dlopens(struct gd_fwscan *s, struct gd_fw *fw, struct libs *libs,
                          const struct gd_strlist *sites)
{
    const struct gd_kb_row *row = dlopen_row(s, fw);
    if (!row)
        return;
    struct gd_loader *loader = loader_of(s);
    struct gd_load *load = NULL;
    if (loader && libs->dlopen_from)
        gd_fwscan_fail(s, gd_load_start(loader, libs->dlopen_from, false, &load));
    else if (loader && libs->elf_class)
        gd_fwscan_fail(s, gd_load_start_virtual(loader, libs->elf_class, libs->machine, &load));
    static const char *const lists[] = { "sonames", "optional" };
    for (size_t l = 0; l < 2; l++) {
        for (size_t k = 0; k < gd_kb_list_len(row, lists[l]) && alive_libs(s, libs); k++) {
            char soname[256];
            const char *prefix;
            if (!expand_soname(fw, gd_kb_list_at(row, lists[l], k), soname, sizeof soname) ||
                !cuda_family(s, soname, &prefix) || gd_strlist_contains(&libs->done, soname))
                continue;
            gd_fwscan_fail(s, gd_strlist_push(&libs->done, soname));
            struct found f = wheel_file(s, row, soname, sites);
            if (!f.path && load)
                f = resolve_in(s, load, NULL, soname);
            record_lib(s, fw, soname, "dlopen", libs->dlopen_from, l == 1, &f);
        }
    }
    gd_load_free(load);
}

void gd_fw_probe_libraries(struct gd_fwscan *s, struct gd_fw *fw,
                           const struct gd_strlist *env_sites)
{
    if (!s->families.count)
        return;
    struct gd_strlist modules = { 0 };
    gd_fw_list_modules(s, fw, is_shared_object_name, &modules);
    struct libs libs;
    memset(&libs, 0, sizeof libs);
    for (size_t i = 0; i < modules.count && s->status == GD_OK; i++)
        probe_module(s, fw, modules.items[i], &libs, env_sites);
    gd_fact_int(fw->entity, "native_modules", (long long)modules.count,
                gd_src(GD_SOURCE_FILE, fw->meta));
    if (s->status == GD_OK)
        probe_dlopens(s, fw, &libs, env_sites);
    gd_strlist_free(&libs.done);
    gd_strlist_free(&modules);
}
