/* Formatting a Windows gd_which result: the explanation of one search, an import tree, ldd's
 * lines, and JSON (gpudoctor.which-win/1, gpudoctor.which-win-tree/1: docs/which.md). */
#include "api/which_impl.h"
#include "core/alloc.h"
#include "core/buf.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#define RED   "\033[1;31m"
#define DIM   "\033[2m"
#define GREEN "\033[32m"
#define OFF   "\033[0m"
/* Import names shown after a module found, before "...". */
#define SHOW_IMPORTS 8

static void color(struct gd_buf *b, bool on, const char *code)
{
    if (on)
        gd_buf_puts(b, code);
}

char *gd_which_win_spelling(const char *path)
{
    struct gd_buf b;
    gd_buf_init(&b, 64 * 1024);
    gd_buf_puts(&b, "C:");
    for (const char *p = path; *p; p++)
        gd_buf_putc(&b, *p == '/' ? '\\' : *p);
    if (strcmp(path, "/") == 0)
        gd_buf_putc(&b, '\\');
    char *out = NULL;
    gd_buf_take(&b, &out, NULL);
    return out;
}

static void pe_text(struct gd_buf *b, const struct gd_pe *pe)
{
    const char *m = gd_pe_machine_name(pe->machine);
    gd_buf_printf(b, "%s %s %s", pe->pe32plus ? "PE32+" : "PE32", m ? m : "unknown machine",
                  pe->is_dll ? "DLL" : "program");
    if (pe->n_imports) {
        gd_buf_puts(b, ", imports ");
        for (size_t i = 0; i < pe->n_imports && i < SHOW_IMPORTS; i++)
            gd_buf_printf(b, "%s%s", i ? ", " : "", pe->imports[i]);
        if (pe->n_imports > SHOW_IMPORTS)
            gd_buf_printf(b, ", ... (%zu in all)", pe->n_imports);
    }
    if (pe->n_delay_imports)
        gd_buf_printf(b, "; %zu delay-loaded", pe->n_delay_imports);
}

static const char *mode_text(enum gd_win_mode mode)
{
    return mode == GD_WIN_EXTENSION
               ? "as Python 3.8 and later load an extension module (LoadLibraryExW with "
                 "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)"
               : "as LoadLibrary and a program's import table search (SafeDllSearchMode on, "
                 "the default)";
}

static void rule_line(struct gd_buf *b, const char *rule, const char *text)
{
    if (strlen(rule) <= 17)
        gd_buf_printf(b, "  %-17s %s\n", rule, text);
    else
        gd_buf_printf(b, "  %s:\n  %-17s %s\n", rule, "", text);
}

/* The search, directory by directory: each directory's try, or why it is not searched. */
static void places(struct gd_buf *b, const struct gd_which *w, bool c)
{
    const struct gd_which_winres *r = &w->win;
    const struct gd_win_edge *e = r->edge;
    enum gd_win_mode mode = gd_winload_mode(r->load);
    gd_buf_puts(b, "  KnownDLLs         not read: a registry list of System32's DLLs\n");
    if (e->rule == GD_WIN_RULE_LOADED) {
        gd_buf_puts(b, "  (already loaded under this base name: no search)\n");
        return;
    }
    if (e->rule == GD_WIN_RULE_API_SET) {
        gd_buf_puts(b, "  (an API set: Windows' API set schema maps it to a host DLL; no file is "
                       "looked for)\n");
        return;
    }
    size_t t = 0;
    if (e->ntries && e->tries[0].rule == GD_WIN_RULE_PATH) {
        for (; t < e->ntries; t++) {
            struct gd_buf line;
            gd_buf_init(&line, 16384);
            gd_buf_printf(&line, "%s  ", e->tries[t].path);
            color(&line, c, e->tries[t].verdict == GD_WIN_TRY_ACCEPTED ? GREEN : DIM);
            gd_buf_puts(&line, gd_win_verdict_name(e->tries[t].verdict));
            color(&line, c, OFF);
            rule_line(b, "path", gd_buf_str(&line));
            gd_buf_free(&line);
        }
        return;
    }
    const struct gd_win_dir *dirs = NULL;
    size_t request = r->from ? r->from->request : (e->to ? e->to->request : 0);
    size_t n = gd_winload_dirs(r->load, request, &dirs);
    bool user_dirs = false;
    for (size_t i = 0; i < n; i++) {
        const struct gd_win_dir *d = &dirs[i];
        const char *rule = gd_win_rule_name(d->rule);
        user_dirs |= d->rule == GD_WIN_RULE_USER_DIR;
        if (mode == GD_WIN_EXTENSION && d->rule == GD_WIN_RULE_SYSTEM32 && !user_dirs)
            rule_line(b, gd_win_rule_name(GD_WIN_RULE_USER_DIR),
                      "none (os.add_dll_directory; give --dll-dir)");
        if (!d->dir) {
            char text[512];
            snprintf(text, sizeof text, "%s%s%s", d->as_given ? d->as_given : "",
                     d->as_given ? ": " : "", d->why ? d->why : "");
            rule_line(b, rule, text);
            continue;
        }
        if (t >= e->ntries)
            continue; /* found (or stopped) before this directory */
        struct gd_buf line;
        gd_buf_init(&line, 16384);
        gd_buf_printf(&line, "%s  ", e->tries[t].path);
        bool good = e->tries[t].verdict == GD_WIN_TRY_ACCEPTED;
        color(&line, c, good ? GREEN : DIM);
        gd_buf_puts(&line, gd_win_verdict_name(e->tries[t].verdict));
        color(&line, c, OFF);
        rule_line(b, rule, gd_buf_str(&line));
        gd_buf_free(&line);
        t++;
    }
    if (mode == GD_WIN_EXTENSION) {
        rule_line(b, "current directory", "not searched in this order");
        rule_line(b, "PATH",
                  r->path_env ? "not searched in this order (Python 3.8 and later)"
                              : "not set, and not searched in this order");
    } else if (!r->path_env) {
        rule_line(b, "PATH", "not set (give --path or --env PATH=...)");
    }
    if (!e->to && !e->error && e->ntries == 0)
        gd_buf_puts(b, "  (no candidate file exists in any of these places)\n");
}

static void fix_text(struct gd_buf *b, const struct gd_which *w)
{
    const struct gd_which_winres *r = &w->win;
    if (!r->elsewhere_path)
        return;
    gd_buf_printf(b,
                  "\nThe standard order (LoadLibrary; Python 3.7 and earlier) finds it: %s  [%s]\n",
                  r->elsewhere_path, gd_win_rule_name(r->elsewhere_rule));
    char *dir = r->elsewhere_given ? NULL : gd_which_win_spelling(r->elsewhere_dir);
    const char *shown = r->elsewhere_given ? r->elsewhere_given : dir;
    if (!shown) {
        b->status = GD_ENOMEM;
        return;
    }
    gd_buf_printf(b,
                  "Python 3.8 and later no longer search %s for an extension module's DLLs. "
                  "Fix: os.add_dll_directory(r\"%s\") before the import, or install %s where "
                  "this order looks (the module's directory or the application's).\n",
                  r->elsewhere_rule == GD_WIN_RULE_PATH_ENV ? "PATH"
                                                            : gd_win_rule_name(r->elsewhere_rule),
                  shown, r->edge->name);
    gd_free(dir);
}

static void name_text(struct gd_buf *b, const struct gd_which *w, bool c)
{
    const struct gd_which_winres *r = &w->win;
    const struct gd_win_edge *e = r->edge;
    gd_buf_printf(b, "%s => ", e->name);
    if (e->to) {
        color(b, c, GREEN);
        gd_buf_puts(b, e->to->path);
        color(b, c, OFF);
        gd_buf_printf(b, "  [%s]\n  ", gd_win_rule_name(e->rule));
        if (e->to->pe)
            pe_text(b, e->to->pe);
        gd_buf_putc(b, '\n');
    } else if (e->rule == GD_WIN_RULE_API_SET) {
        gd_buf_puts(b, "API set\n");
    } else {
        color(b, c, RED);
        gd_buf_puts(b, e->error ? "error" : "not found");
        color(b, c, OFF);
        if (e->error)
            gd_buf_printf(b, ": %s (the loader stops here)", e->error);
        gd_buf_putc(b, '\n');
    }
    const char *machine = gd_pe_machine_name(gd_winload_machine(r->load));
    if (w->from)
        gd_buf_printf(b, "\nAs an import of %s (%s process), %s, Windows looks in this order:\n",
                      r->from ? r->from->path : w->from, machine ? machine : "?",
                      mode_text(gd_winload_mode(r->load)));
    else
        gd_buf_printf(
            b,
            "\nAs LoadLibrary(\"%s\") of a program (%s process), %s, Windows looks in this "
            "order:\n",
            w->name, machine ? machine : "?", mode_text(gd_winload_mode(r->load)));
    if (r->app_dir)
        gd_buf_printf(b, "  (application directory: %s, %s)\n", r->app_dir, r->app_source);
    places(b, w, c);
    fix_text(b, w);
}

struct tree_state {
    struct gd_buf *b;
    const struct gd_which *w;
    bool color;
    bool *shown;
    char prefix[4096];
};

static const char *missing_elsewhere(const struct gd_which *w, const char *name)
{
    const struct gd_which_winres *r = &w->win;
    for (size_t i = 0; i < r->nmissing_elsewhere; i++)
        if (strcmp(gd_winload_missing_at(r->load, i)->name, name) == 0)
            return r->missing_elsewhere[i];
    return NULL;
}

static void tree_node(struct tree_state *s, const struct gd_win_object *o, size_t depth)
{
    size_t plen = strlen(s->prefix);
    size_t nlines = o->ndeps + (o->pe && o->pe->n_delay_imports ? 1 : 0);
    for (size_t i = 0; i < o->ndeps; i++) {
        const struct gd_win_edge *e = &o->deps[i];
        bool last = i + 1 == nlines;
        gd_buf_add(s->b, s->prefix, plen);
        gd_buf_puts(s->b, last ? "└── " : "├── ");
        gd_buf_puts(s->b, e->name);
        if (e->rule == GD_WIN_RULE_API_SET) {
            color(s->b, s->color, DIM);
            gd_buf_puts(s->b, " [API set]");
            color(s->b, s->color, OFF);
            gd_buf_putc(s->b, '\n');
            continue;
        }
        if (!e->to) {
            color(s->b, s->color, RED);
            gd_buf_puts(s->b, " => ");
            gd_buf_puts(s->b, e->error ? e->error : "not found");
            color(s->b, s->color, OFF);
            const char *there = e->error ? NULL : missing_elsewhere(s->w, e->name);
            if (there)
                gd_buf_printf(s->b, " (the standard order finds %s)", there);
            gd_buf_putc(s->b, '\n');
            continue;
        }
        if (s->shown[e->to->index]) {
            color(s->b, s->color, DIM);
            gd_buf_puts(s->b, " [already loaded]");
            color(s->b, s->color, OFF);
            gd_buf_putc(s->b, '\n');
            continue;
        }
        gd_buf_printf(s->b, " => %s ", e->to->path);
        color(s->b, s->color, DIM);
        gd_buf_printf(s->b, "[%s]", gd_win_rule_name(e->to->found_by));
        color(s->b, s->color, OFF);
        gd_buf_putc(s->b, '\n');
        if (depth > 64 || plen + 8 >= sizeof s->prefix)
            continue;
        s->shown[e->to->index] = true;
        strcat(s->prefix, last ? "    " : "│   ");
        tree_node(s, e->to, depth + 1);
        s->prefix[plen] = '\0';
    }
    if (o->pe && o->pe->n_delay_imports) {
        gd_buf_add(s->b, s->prefix, plen);
        gd_buf_puts(s->b, "└── ");
        color(s->b, s->color, DIM);
        gd_buf_puts(s->b, "delay-loaded on first use:");
        for (size_t i = 0; i < o->pe->n_delay_imports; i++)
            gd_buf_printf(s->b, " %s", o->pe->delay_imports[i]);
        color(s->b, s->color, OFF);
        gd_buf_putc(s->b, '\n');
    }
}

static void tree_text(struct gd_buf *b, const struct gd_which *w, bool c)
{
    const struct gd_which_winres *r = &w->win;
    const struct gd_win_object *main = r->from;
    gd_buf_printf(b, "%s  (", main->path);
    pe_text(b, main->pe);
    gd_buf_printf(b, "; the %s order)\n", gd_win_mode_name(gd_winload_mode(r->load)));
    struct tree_state s = { b, w, c, gd_calloc(gd_winload_count(r->load) + 1, sizeof(bool)), "" };
    if (!s.shown) {
        b->status = GD_ENOMEM;
        return;
    }
    s.shown[main->index] = true;
    tree_node(&s, main, 0);
    gd_free(s.shown);
    gd_buf_printf(b, "\n%zu modules loaded, %zu not found\n", gd_winload_count(r->load) - 1,
                  gd_winload_missing_count(r->load));
    if (r->app_dir)
        gd_buf_printf(b, "Application directory: %s, %s\n", r->app_dir, r->app_source);
    else
        gd_buf_printf(b, "Application directory: %s\n", r->app_source);
}

void gd_which_win_text(struct gd_buf *b, const struct gd_which *w, bool c)
{
    if (w->tree)
        tree_text(b, w, c);
    else
        name_text(b, w, c);
}

void gd_which_win_ldd(struct gd_buf *b, const struct gd_which *w)
{
    const struct gd_which_winres *r = &w->win;
    size_t m = 0, nmissing = gd_winload_missing_count(r->load);
    size_t count = gd_winload_count(r->load);
    for (size_t i = 1; i <= count; i++) {
        for (; m < nmissing && gd_winload_missing_at(r->load, m)->position <= i; m++)
            gd_buf_printf(b, "\t%s => not found\n", gd_winload_missing_at(r->load, m)->name);
        if (i == count)
            break;
        const struct gd_win_object *o = gd_winload_at(r->load, i);
        gd_buf_printf(b, "\t%s => %s\n", o->name, o->path);
    }
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static struct json_object *str_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static struct json_object *edge_json(const struct gd_win_edge *e)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(e->name));
    json_object_object_add(
        o, "found", json_object_new_boolean(e->to != NULL || e->rule == GD_WIN_RULE_API_SET));
    json_object_object_add(o, "path", str_or_null(e->to ? e->to->path : NULL));
    json_object_object_add(o, "rule", json_object_new_string(gd_win_rule_name(e->rule)));
    json_object_object_add(o, "directory", str_or_null(e->dir));
    json_object_object_add(o, "error", str_or_null(e->error));
    if (e->ntries) {
        struct json_object *tries = json_object_new_array();
        for (size_t i = 0; i < e->ntries; i++) {
            struct json_object *t = json_object_new_object();
            json_object_object_add(t, "path", json_object_new_string(e->tries[i].path));
            json_object_object_add(t, "rule",
                                   json_object_new_string(gd_win_rule_name(e->tries[i].rule)));
            json_object_object_add(
                t, "verdict", json_object_new_string(gd_win_verdict_name(e->tries[i].verdict)));
            json_object_array_add(tries, t);
        }
        json_object_object_add(o, "tries", tries);
    }
    return o;
}

static struct json_object *names_json(char *const *names, size_t n)
{
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_string(names[i]));
    return a;
}

static struct json_object *object_json(const struct gd_win_object *o)
{
    struct json_object *j = json_object_new_object();
    json_object_object_add(j, "index", json_object_new_int64((int64_t)o->index));
    json_object_object_add(j, "name", json_object_new_string(o->name));
    json_object_object_add(j, "path", json_object_new_string(o->path));
    json_object_object_add(j, "found_by", json_object_new_string(gd_win_rule_name(o->found_by)));
    if (o->pe) {
        const char *m = gd_pe_machine_name(o->pe->machine);
        json_object_object_add(j, "machine", str_or_null(m));
        json_object_object_add(j, "dll", json_object_new_boolean(o->pe->is_dll));
        json_object_object_add(j, "delay_imports",
                               names_json(o->pe->delay_imports, o->pe->n_delay_imports));
    }
    struct json_object *imports = json_object_new_array();
    for (size_t i = 0; i < o->ndeps; i++)
        json_object_array_add(imports, edge_json(&o->deps[i]));
    json_object_object_add(j, "imports", imports);
    return j;
}

static struct json_object *search_json(const struct gd_which *w)
{
    const struct gd_which_winres *r = &w->win;
    size_t request = r->from ? r->from->request : r->edge && r->edge->to ? r->edge->to->request : 0;
    const struct gd_win_dir *dirs = NULL;
    size_t n = gd_winload_dirs(r->load, request, &dirs);
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        struct json_object *d = json_object_new_object();
        json_object_object_add(d, "rule", json_object_new_string(gd_win_rule_name(dirs[i].rule)));
        json_object_object_add(d, "directory", str_or_null(dirs[i].dir));
        json_object_object_add(d, "given", str_or_null(dirs[i].as_given));
        json_object_object_add(d, "not_searched", str_or_null(dirs[i].why));
        json_object_array_add(a, d);
    }
    return a;
}

void gd_which_win_json(struct gd_buf *b, const struct gd_which *w)
{
    const struct gd_which_winres *r = &w->win;
    struct json_object *root = json_object_new_object();
    json_object_object_add(
        root, "schema",
        json_object_new_string(w->tree ? "gpudoctor.which-win-tree/1" : "gpudoctor.which-win/1"));
    json_object_object_add(root, "root", json_object_new_string(w->root_dir));
    json_object_object_add(root, "ok", json_object_new_boolean(gd_which_ok(w)));
    json_object_object_add(root, "mode",
                           json_object_new_string(gd_win_mode_name(gd_winload_mode(r->load))));
    json_object_object_add(root, "machine",
                           str_or_null(gd_pe_machine_name(gd_winload_machine(r->load))));
    json_object_object_add(root, "from", str_or_null(r->from ? r->from->path : NULL));
    json_object_object_add(root, "app_dir", str_or_null(r->app_dir));
    json_object_object_add(root, "app_dir_source", json_object_new_string(r->app_source));
    json_object_object_add(root, "cwd", str_or_null(r->cwd));
    json_object_object_add(root, "path_env", str_or_null(r->path_env));
    json_object_object_add(root, "dll_dirs", names_json(r->dll_dirs.items, r->dll_dirs.count));
    json_object_object_add(root, "search", search_json(w));
    if (w->tree) {
        struct json_object *objs = json_object_new_array();
        for (size_t i = 0; i < gd_winload_count(r->load); i++)
            json_object_array_add(objs, object_json(gd_winload_at(r->load, i)));
        json_object_object_add(root, "objects", objs);
        struct json_object *missing = json_object_new_array();
        for (size_t i = 0; i < gd_winload_missing_count(r->load); i++) {
            const struct gd_win_edge *e = gd_winload_missing_at(r->load, i);
            struct json_object *m = json_object_new_object();
            json_object_object_add(m, "name", json_object_new_string(e->name));
            json_object_object_add(m, "error", str_or_null(e->error));
            json_object_object_add(
                m, "standard_order_path",
                str_or_null(i < r->nmissing_elsewhere ? r->missing_elsewhere[i] : NULL));
            json_object_array_add(missing, m);
        }
        json_object_object_add(root, "missing", missing);
    } else {
        json_object_object_add(root, "result", edge_json(r->edge));
        struct json_object *else_ = NULL;
        if (r->elsewhere_path) {
            else_ = json_object_new_object();
            json_object_object_add(else_, "path", json_object_new_string(r->elsewhere_path));
            json_object_object_add(else_, "rule",
                                   json_object_new_string(gd_win_rule_name(r->elsewhere_rule)));
            json_object_object_add(else_, "directory", str_or_null(r->elsewhere_dir));
            json_object_object_add(else_, "given", str_or_null(r->elsewhere_given));
        }
        json_object_object_add(root, "standard_order", else_);
    }
    size_t len = 0;
    const char *text = json_object_to_json_string_length(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE,
        &len);
    if (text) {
        gd_buf_add(b, text, len);
        gd_buf_putc(b, '\n');
    } else {
        b->status = GD_ENOMEM;
    }
    json_object_put(root);
}
