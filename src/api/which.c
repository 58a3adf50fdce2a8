/* gd_which_name / gd_which_tree: set up the loader emulation for a root and run one search. */
#include "api/options.h"
#include "api/which_impl.h"
#include "core/alloc.h"
#include "core/env.h"
#include "probe/probe.h"
#include "sysroot/sysroot.h"

#include <gpudoctor/which.h>
#include <string.h>

void gd_which_free(struct gd_which *w)
{
    if (!w)
        return;
    struct gd_which_winres *r = &w->win;
    gd_winload_free(r->load);
    gd_free(r->app_dir);
    gd_free(r->cwd);
    gd_free(r->path_env);
    gd_free(r->windows_dir);
    gd_strlist_free(&r->dll_dirs);
    gd_free(r->elsewhere_path);
    gd_free(r->elsewhere_dir);
    gd_free(r->elsewhere_given);
    for (size_t i = 0; i < r->nmissing_elsewhere; i++)
        gd_free(r->missing_elsewhere[i]);
    gd_free(r->missing_elsewhere);
    gd_load_free(w->load);
    gd_loader_free(w->loader);
    gd_root_free(w->root);
    gd_free(w->name);
    gd_free(w->from);
    gd_free(w->root_dir);
    gd_free(w->ld_library_path);
    gd_free(w);
}

bool gd_which_ok(const struct gd_which *w)
{
    if (w->windows && !w->tree)
        return w->win.edge && (w->win.edge->to || w->win.edge->rule == GD_WIN_RULE_API_SET);
    if (w->windows)
        return gd_winload_missing_count(w->win.load) == 0;
    if (!w->tree)
        return w->edge && w->edge->to;
    return gd_load_missing_count(w->load) == 0;
}

/* LD_LIBRARY_PATH as the inspected programs see it (the same environment rules as a check). */
static enum gd_status ld_library_path(const struct gd_options *opts, bool live, char **out)
{
    *out = NULL;
    const char *v = NULL;
    if (opts && opts->extra)
        v = gd_env_get(opts->extra, "LD_LIBRARY_PATH");
    struct gd_env *env = NULL;
    if (!v && live && !(opts && opts->clear_env)) {
        env = gd_env_new();
        if (!env || gd_os_environ(env) != GD_OK) {
            gd_env_free(env);
            return GD_ENOMEM;
        }
        v = gd_env_get(env, "LD_LIBRARY_PATH");
    }
    if (v && !(*out = gd_strdup(v))) {
        gd_env_free(env);
        return GD_ENOMEM;
    }
    gd_env_free(env);
    return GD_OK;
}

static enum gd_status setup(const struct gd_options *opts, bool record_tries, struct gd_which **out)
{
    struct gd_which *w = gd_calloc(1, sizeof *w);
    if (!w)
        return GD_ENOMEM;
    *out = w;
    enum gd_status st = gd_root_new(opts && opts->root ? opts->root : "/", &w->root);
    if (st != GD_OK)
        return st;
    if (!(w->root_dir = gd_strdup(gd_root_dir(w->root))))
        return GD_ENOMEM;
    bool live = gd_root_is_live(w->root);
    if ((st = ld_library_path(opts, live, &w->ld_library_path)) != GD_OK)
        return st;
    enum gd_source_kind kind;
    char ref[256];
    st = gd_glibc_version(w->root, w->glibc, sizeof w->glibc, &kind, ref, sizeof ref);
    if (st == GD_ENOMEM)
        return st;
    if (st != GD_OK)
        w->glibc[0] = '\0';
    char *cwd = NULL;
    if (live && gd_os_getcwd(&cwd) == GD_ENOMEM)
        return GD_ENOMEM;
    struct gd_loader_options lo = { w->ld_library_path, cwd, w->glibc[0] ? w->glibc : NULL,
                                    record_tries, NULL };
    st = gd_loader_new(w->root, &lo, &w->loader);
    gd_free(cwd);
    return st;
}

/* The ELF class and machine of this system's programs: those of its /bin/sh. */
static enum gd_status system_arch(struct gd_root *root, int *cls, uint16_t *machine)
{
    static const char *const shells[] = { "/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/env" };
    for (size_t i = 0; i < sizeof shells / sizeof *shells; i++) {
        struct gd_os_file *f;
        if (gd_root_open(root, shells[i], &f) != GD_OK)
            continue;
        struct gd_elf *elf = NULL;
        enum gd_status st = gd_elf_read_file(f, &elf);
        gd_os_close(f);
        if (st == GD_ENOMEM)
            return st;
        if (st == GD_OK) {
            *cls = elf->elf_class;
            *machine = elf->machine;
            gd_elf_free(elf);
            return GD_OK;
        }
    }
    /* No shell to read (a minimal image): assume this build's own architecture. */
    *cls = sizeof(void *) == 8 ? 64 : 32;
#if defined(__x86_64__)
    *machine = 62;
#elif defined(__aarch64__)
    *machine = 183;
#elif defined(__i386__)
    *machine = 3;
#else
    *machine = 0;
#endif
    return GD_OK;
}

const char *gd_which_error(const struct gd_which *w)
{
    if (w->windows && !w->tree)
        return w->win.edge ? w->win.edge->error : NULL;
    if (w->windows) {
        for (size_t i = 0; i < gd_winload_missing_count(w->win.load); i++)
            if (gd_winload_missing_at(w->win.load, i)->error)
                return gd_winload_missing_at(w->win.load, i)->error;
        return NULL;
    }
    if (!w->tree)
        return w->edge ? w->edge->error : NULL;
    for (size_t i = 0; i < gd_load_missing_count(w->load); i++)
        if (gd_load_missing_at(w->load, i)->error)
            return gd_load_missing_at(w->load, i)->error;
    return NULL;
}

enum gd_status gd_which_name(const struct gd_options *opts, const char *name, const char *from,
                             bool dlopen, struct gd_which **out)
{
    *out = NULL;
    if (!name || !*name)
        return GD_EINVAL;
    struct gd_which *w = NULL;
    enum gd_status st = setup(opts, true, &w);
    if (st == GD_OK && (!(w->name = gd_strdup(name)) || (from && !(w->from = gd_strdup(from)))))
        st = GD_ENOMEM;
    if (w)
        w->dlopen = dlopen;
    if (st == GD_OK) {
        if (from) {
            st = gd_load_start(w->loader, from, false, &w->load);
        } else {
            int cls;
            uint16_t machine;
            st = system_arch(w->root, &cls, &machine);
            if (st == GD_OK)
                st = gd_load_start_virtual(w->loader, cls, machine, &w->load);
        }
    }
    struct gd_edge *edge = NULL;
    if (st == GD_OK)
        st = gd_load_resolve(w->load, gd_load_main(w->load), name, false, &edge);
    if (st == GD_OK && gd_root_out_of_memory(w->root))
        st = GD_ENOMEM; /* a lookup of the tree failed for want of memory: not an answer */
    if (st != GD_OK) {
        gd_which_free(w);
        return st;
    }
    w->edge = edge;
    *out = w;
    return GD_OK;
}

enum gd_status gd_which_tree(const struct gd_options *opts, const char *path, struct gd_which **out)
{
    *out = NULL;
    if (!path || !*path)
        return GD_EINVAL;
    struct gd_which *w = NULL;
    /* A tree records no failed candidates: only what each edge resolved to, and how. */
    enum gd_status st = setup(opts, false, &w);
    if (st == GD_OK) {
        w->tree = true;
        if (!(w->from = gd_strdup(path)))
            st = GD_ENOMEM;
    }
    if (st == GD_OK)
        st = gd_load_start(w->loader, path, true, &w->load);
    if (st == GD_OK && gd_root_out_of_memory(w->root))
        st = GD_ENOMEM; /* a lookup of the tree failed for want of memory: not an answer */
    if (st != GD_OK) {
        gd_which_free(w);
        return st;
    }
    *out = w;
    return GD_OK;
}
