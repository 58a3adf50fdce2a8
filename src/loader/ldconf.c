#include "loader/ldconf.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "sysroot/glob.h"
#include "sysroot/sysroot.h"

#include <stdio.h>
#include <string.h>

/* ld.so.conf files are small; larger is not one. */
#define LDCONF_FILE_MAX (1024 * 1024)

enum gd_status gd_ldconf_parse(const char *data, size_t len, gd_ldconf_fn on_dir,
                               gd_ldconf_fn on_include, void *user)
{
    char *text = gd_malloc(4096 + 1);
    if (!text)
        return GD_ENOMEM;
    const char *cur = data, *end = data + len;
    struct gd_span line;
    size_t lineno = 0;
    bool go = true;
    while (go && gd_next_line(&cur, end, &line)) {
        lineno++;
        const char *hash = line.n ? memchr(line.p, '#', line.n) : NULL;
        if (hash)
            line.n = (size_t)(hash - line.p);
        struct gd_span t = gd_span_trim(line);
        if (t.n == 0 || t.n > 4096 || memchr(t.p, '\0', t.n))
            continue;
        if (t.n > 8 && memcmp(t.p, "include", 7) == 0 && (t.p[7] == ' ' || t.p[7] == '\t')) {
            struct gd_span rest = { t.p + 8, t.n - 8 };
            while (go && rest.n) {
                while (rest.n && (rest.p[0] == ' ' || rest.p[0] == '\t')) {
                    rest.p++;
                    rest.n--;
                }
                size_t i = 0;
                while (i < rest.n && rest.p[i] != ' ' && rest.p[i] != '\t')
                    i++;
                if (i) {
                    gd_span_copy((struct gd_span){ rest.p, i }, text, 4097);
                    go = on_include(user, text, lineno);
                }
                rest.p += i;
                rest.n -= i;
            }
            continue;
        }
        if (t.n > 6 && (memcmp(t.p, "hwcap", 5) == 0 || memcmp(t.p, "HWCAP", 5) == 0) &&
            (t.p[5] == ' ' || t.p[5] == '\t'))
            continue;
        gd_span_copy(t, text, 4097);
        go = on_dir(user, text, lineno);
    }
    gd_free(text);
    return GD_OK;
}

struct reading {
    struct gd_root *root;
    struct gd_ldconf *conf;
    const char *file; /* the file being parsed */
    int depth;
    enum gd_status status;
};

/* Note "<file>:<line>: <what>" (line 0: the file as a whole). */
static void problem(struct reading *r, size_t line, const char *what)
{
    char text[1024];
    if (line)
        snprintf(text, sizeof text, "%s:%zu: %s", r->file, line, what);
    else
        snprintf(text, sizeof text, "%s: %s", r->file, what);
    if (gd_strlist_push_unique(&r->conf->problems, text) != GD_OK)
        r->status = GD_ENOMEM;
}

static bool on_dir(void *user, const char *text, size_t line)
{
    struct reading *r = user;
    (void)line;
    char dir[4097];
    snprintf(dir, sizeof dir, "%s", text);
    /* ldconfig's old "dir=TYPE" form: the type is ignored today. */
    char *eq = strchr(dir, '=');
    if (eq)
        *eq = '\0';
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    if (dir[0] != '/' || r->conf->dirs.count >= GD_LDCONF_MAX_DIRS)
        return true;
    if (gd_strlist_push_unique(&r->conf->dirs, dir) != GD_OK) {
        r->status = GD_ENOMEM;
        return false;
    }
    return true;
}

static void read_file(struct reading *r, const char *path);

static bool on_include(void *user, const char *pattern, size_t line)
{
    struct reading *r = user;
    if (r->depth >= GD_LDCONF_MAX_DEPTH) {
        char what[600];
        snprintf(what, sizeof what, "includes nest deeper than %d (a loop?): %.500s not read",
                 GD_LDCONF_MAX_DEPTH, pattern);
        problem(r, line, what);
        return true;
    }
    char base[4097];
    if (pattern[0] == '/') {
        snprintf(base, sizeof base, "/");
    } else {
        /* Relative patterns count from the including file's directory (ldconfig.c). */
        snprintf(base, sizeof base, "%s", r->file);
        char *slash = strrchr(base, '/');
        if (slash && slash != base)
            *slash = '\0';
        else
            snprintf(base, sizeof base, "/");
    }
    char *full = gd_path_join(base, pattern);
    struct gd_strlist files = { 0 };
    enum gd_status st = full ? gd_root_glob(r->root, full, GD_LDCONF_MAX_DIRS, &files) : GD_ENOMEM;
    gd_free(full);
    if (st == GD_ENOMEM)
        r->status = st;
    const char *saved = r->file;
    r->depth++;
    for (size_t i = 0; i < files.count && r->status == GD_OK; i++)
        read_file(r, files.items[i]);
    r->depth--;
    r->file = saved;
    gd_strlist_free(&files);
    return r->status == GD_OK;
}

static void read_file(struct reading *r, const char *path)
{
    char *data = NULL;
    size_t len = 0;
    if (r->conf->files.count >= GD_LDCONF_MAX_FILES) {
        const char *saved = r->file;
        char what[128];
        snprintf(what, sizeof what,
                 "not read: more than %d configuration files (includes that "
                 "repeat themselves?)",
                 GD_LDCONF_MAX_FILES);
        r->file = path;
        problem(r, 0, what);
        r->file = saved;
        return;
    }
    enum gd_status st = gd_root_read_file(r->root, path, LDCONF_FILE_MAX, &data, &len);
    if (st == GD_ENOENT)
        return;
    if (st != GD_OK) {
        if (st == GD_ENOMEM)
            r->status = st;
        else {
            const char *saved = r->file;
            r->file = path;
            problem(r, 0, gd_status_str(st));
            r->file = saved;
        }
        return;
    }
    if (gd_strlist_push(&r->conf->files, path) != GD_OK) {
        r->status = GD_ENOMEM;
        gd_free(data);
        return;
    }
    const char *saved = r->file;
    r->file = r->conf->files.items[r->conf->files.count - 1];
    enum gd_status ps = gd_ldconf_parse(data, len, on_dir, on_include, r);
    if (ps != GD_OK)
        r->status = ps;
    r->file = saved;
    gd_free(data);
}

enum gd_status gd_ldconf_read(struct gd_root *root, const char *path, struct gd_ldconf *out)
{
    memset(out, 0, sizeof *out);
    struct reading r = { root, out, path, 0, GD_OK };
    read_file(&r, path);
    if (r.status != GD_OK)
        gd_ldconf_free(out);
    return r.status;
}

void gd_ldconf_free(struct gd_ldconf *conf)
{
    if (!conf)
        return;
    gd_strlist_free(&conf->dirs);
    gd_strlist_free(&conf->files);
    gd_strlist_free(&conf->problems);
}
