/* Formatting gd_which results: the explanation of one search, a dependency tree, ldd's lines,
 * and JSON. */
#include "api/which_impl.h"
#include "core/alloc.h"
#include "core/buf.h"

#include <gpudoctor/which.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#define RENDER_MAX (64 * 1024 * 1024)
#define RED        "\033[1;31m"
#define DIM        "\033[2m"
#define GREEN      "\033[32m"
#define OFF        "\033[0m"

static void color(struct gd_buf *b, bool on, const char *code)
{
    if (on)
        gd_buf_puts(b, code);
}

/* "rpath of /x/libfoo.so", "LD_LIBRARY_PATH", "ld.so.cache"... */
static void rule_text(struct gd_buf *b, enum gd_rule rule, const struct gd_object *owner)
{
    gd_buf_puts(b, gd_rule_name(rule));
    if (owner && (rule == GD_RULE_RPATH || rule == GD_RULE_RUNPATH)) {
        gd_buf_puts(b, " of ");
        gd_buf_puts(b, owner->path);
    }
}

static void elf_text(struct gd_buf *b, const struct gd_elf *e)
{
    char m[32];
    gd_buf_printf(b, "ELF%d %s", e->elf_class, gd_elf_machine_name(e->machine, m, sizeof m));
    if (e->soname)
        gd_buf_printf(b, ", SONAME %s", e->soname);
    if (e->runpath)
        gd_buf_printf(b, ", RUNPATH %s", e->runpath);
    if (e->rpath)
        gd_buf_printf(b, ", RPATH %s", e->rpath);
}

/* Why whole steps were skipped: what the tries cannot show. */
static void skipped_steps(struct gd_buf *b, const struct gd_which *w)
{
    const struct gd_object *from = gd_load_main(w->load);
    const struct gd_elf *e = from ? from->elf : NULL;
    if (e && e->runpath && e->rpath)
        gd_buf_printf(b,
                      "  rpath             not searched: %s has DT_RUNPATH, which turns "
                      "DT_RPATH off\n",
                      from->path);
    else if (!e || !e->rpath)
        gd_buf_puts(b, "  rpath             none\n");
    if (!w->ld_library_path)
        gd_buf_puts(b, "  LD_LIBRARY_PATH   not set\n");
    if (!e || !e->runpath)
        gd_buf_puts(b, "  runpath           none\n");
    if (gd_loader_cache_problem(w->loader))
        gd_buf_printf(b, "  ld.so.cache       %s\n", gd_loader_cache_problem(w->loader));
    else if (!gd_loader_cache(w->loader))
        gd_buf_puts(b, "  ld.so.cache       none in this root\n");
    if (e && (e->flags_1 & 0x800u))
        gd_buf_printf(b, "  default path      not searched: %s has DF_1_NODEFLIB\n", from->path);
}

static void name_text(struct gd_buf *b, const struct gd_which *w, bool c)
{
    const struct gd_edge *e = w->edge;
    gd_buf_printf(b, "%s => ", e->name);
    if (e->to) {
        color(b, c, GREEN);
        gd_buf_puts(b, e->to->path);
        color(b, c, OFF);
        gd_buf_puts(b, "  [");
        rule_text(b, e->rule, e->owner);
        gd_buf_puts(b, "]\n  ");
        if (e->to->elf)
            elf_text(b, e->to->elf);
        gd_buf_putc(b, '\n');
    } else {
        color(b, c, RED);
        gd_buf_puts(b, e->error ? "error" : "not found");
        color(b, c, OFF);
        if (e->error)
            gd_buf_printf(b, ": %s (the loader stops here)", e->error);
        gd_buf_putc(b, '\n');
    }
    gd_buf_printf(b, "\nAs %s of %s, glibc's loader looks in this order:\n",
                  w->dlopen ? "dlopen()" : "a DT_NEEDED entry",
                  w->from ? w->from : "a program without RPATH or RUNPATH");
    skipped_steps(b, w);
    for (size_t i = 0; i < e->ntries; i++) {
        const struct gd_try *t = &e->tries[i];
        struct gd_buf r;
        gd_buf_init(&r, 8192);
        rule_text(&r, t->rule, t->owner);
        if (r.len <= 17)
            gd_buf_printf(b, "  %-17s %s  ", gd_buf_str(&r), t->path);
        else
            gd_buf_printf(b, "  %s:\n  %-17s %s  ", gd_buf_str(&r), "", t->path);
        gd_buf_free(&r);
        bool good = t->verdict == GD_TRY_ACCEPTED;
        color(b, c, good ? GREEN : DIM);
        gd_buf_printf(b, "%s", gd_verdict_name(t->verdict));
        color(b, c, OFF);
        gd_buf_putc(b, '\n');
    }
    if (e->rule == GD_RULE_LOADED)
        gd_buf_puts(b, "  (already loaded under this name or SONAME: no search)\n");
    if (!e->to && !e->error && e->ntries == 0)
        gd_buf_puts(b, "  (no candidate file exists in any of these places)\n");
}

struct tree_state {
    struct gd_buf *b;
    bool color;
    bool *shown; /* per object index */
    char prefix[4096];
};

static void tree_node(struct tree_state *s, const struct gd_object *o, size_t depth)
{
    size_t plen = strlen(s->prefix);
    for (size_t i = 0; i < o->ndeps; i++) {
        const struct gd_edge *e = &o->deps[i];
        bool last = i + 1 == o->ndeps;
        /* puts, not printf: a tree is a thousand lines and formatting was a fifth of its cost. */
        gd_buf_add(s->b, s->prefix, plen);
        gd_buf_puts(s->b, last ? "└── " : "├── ");
        gd_buf_puts(s->b, e->name);
        if (!e->to) {
            color(s->b, s->color, RED);
            gd_buf_puts(s->b, " => ");
            gd_buf_puts(s->b, e->error ? e->error : "not found");
            color(s->b, s->color, OFF);
            gd_buf_putc(s->b, '\n');
            continue;
        }
        bool again = s->shown[e->to->index];
        if (again) {
            /* Shown above with its path and dependencies: the name is enough, unless this
             * entry names the file differently (a link to it, found as the same file). Most
             * lines of a big tree are these: two hundred of torch's libraries need libc.so.6. */
            const char *soname = e->to->elf ? e->to->elf->soname : NULL;
            if (strcmp(e->name, e->to->name) != 0 && strcmp(e->name, e->to->path) != 0 &&
                !(soname && strcmp(e->name, soname) == 0)) {
                gd_buf_puts(s->b, " => ");
                gd_buf_puts(s->b, e->to->path);
            }
            color(s->b, s->color, DIM);
            gd_buf_puts(s->b, " [already loaded]");
            color(s->b, s->color, OFF);
            gd_buf_putc(s->b, '\n');
            continue;
        }
        gd_buf_puts(s->b, " => ");
        gd_buf_puts(s->b, e->to->path);
        gd_buf_putc(s->b, ' ');
        color(s->b, s->color, DIM);
        gd_buf_putc(s->b, '[');
        rule_text(s->b, e->to->found_by, e->to->found_owner); /* the main object is shown */
        gd_buf_putc(s->b, ']');
        color(s->b, s->color, OFF);
        gd_buf_putc(s->b, '\n');
        if (depth > 64 || plen + 8 >= sizeof s->prefix)
            continue;
        s->shown[e->to->index] = true;
        strcat(s->prefix, last ? "    " : "│   ");
        tree_node(s, e->to, depth + 1);
        s->prefix[plen] = '\0';
    }
}

static void tree_text(struct gd_buf *b, const struct gd_which *w, bool c)
{
    const struct gd_object *main = gd_load_main(w->load);
    /* A line per edge, most under 200 bytes: torch's tree is 1500 lines, 120 KB, and growing
     * the text by doubling copied it four times. Room never written costs nothing. */
    size_t edges = 0;
    for (size_t i = 0; i < gd_load_count(w->load); i++)
        edges += gd_load_at(w->load, i)->ndeps;
    gd_buf_reserve(b, 256 * (edges + 4));
    gd_buf_printf(b, "%s", main->path);
    if (main->elf) {
        gd_buf_puts(b, "  (");
        elf_text(b, main->elf);
        gd_buf_putc(b, ')');
    }
    gd_buf_putc(b, '\n');
    struct tree_state s = { b, c, gd_calloc(gd_load_count(w->load) + 1, sizeof(bool)), "" };
    if (!s.shown) {
        b->status = GD_ENOMEM;
        return;
    }
    s.shown[0] = true;
    tree_node(&s, main, 0);
    gd_free(s.shown);
    size_t missing = gd_load_missing_count(w->load);
    gd_buf_printf(b, "\n%zu objects loaded, %zu not found\n", gd_load_count(w->load) - 1, missing);
}

/* ldd's format without load addresses: "\tNAME => PATH", "\tNAME => not found", and "\tPATH"
 * for objects loaded under their path (the interpreter). When the loader would stop with an
 * error, ldd prints only that error line; so do we. */
static void ldd_text(struct gd_buf *b, const struct gd_which *w)
{
    const char *error = gd_which_error(w);
    if (error) {
        gd_buf_printf(b, "%s: error while loading shared libraries: %s\n",
                      gd_load_main(w->load)->path, error);
        return;
    }
    /* Missing names sit in the load order where they were first needed, as ldd shows them. */
    size_t m = 0, nmissing = gd_load_missing_count(w->load);
    for (size_t i = 1; i <= gd_load_count(w->load); i++) {
        for (; m < nmissing && gd_load_missing_at(w->load, m)->position <= i; m++)
            gd_buf_printf(b, "\t%s => not found\n", gd_load_missing_at(w->load, m)->name);
        if (i == gd_load_count(w->load))
            break;
        const struct gd_object *o = gd_load_at(w->load, i);
        if (strcmp(o->name, o->path) == 0)
            gd_buf_printf(b, "\t%s\n", o->path);
        else
            gd_buf_printf(b, "\t%s => %s\n", o->name, o->path);
    }
}

static struct json_object *str_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static struct json_object *edge_json(const struct gd_edge *e)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(e->name));
    json_object_object_add(o, "found", json_object_new_boolean(e->to != NULL));
    json_object_object_add(o, "path", str_or_null(e->to ? e->to->path : NULL));
    json_object_object_add(o, "rule", json_object_new_string(gd_rule_name(e->rule)));
    json_object_object_add(o, "rule_owner", str_or_null(e->owner ? e->owner->path : NULL));
    json_object_object_add(o, "directory", str_or_null(e->dir));
    json_object_object_add(o, "error", str_or_null(e->error));
    if (e->ntries) {
        struct json_object *tries = json_object_new_array();
        for (size_t i = 0; i < e->ntries; i++) {
            const struct gd_try *t = &e->tries[i];
            struct json_object *to = json_object_new_object();
            json_object_object_add(to, "path", json_object_new_string(t->path));
            json_object_object_add(to, "rule", json_object_new_string(gd_rule_name(t->rule)));
            json_object_object_add(to, "rule_owner", str_or_null(t->owner ? t->owner->path : NULL));
            json_object_object_add(to, "verdict",
                                   json_object_new_string(gd_verdict_name(t->verdict)));
            json_object_array_add(tries, to);
        }
        json_object_object_add(o, "tries", tries);
    }
    return o;
}

static struct json_object *object_json(const struct gd_object *o)
{
    struct json_object *j = json_object_new_object();
    json_object_object_add(j, "index", json_object_new_int64((int64_t)o->index));
    json_object_object_add(j, "name", json_object_new_string(o->name));
    json_object_object_add(j, "path", json_object_new_string(o->path));
    if (o->elf) {
        char m[32];
        json_object_object_add(j, "class", json_object_new_int(o->elf->elf_class));
        json_object_object_add(
            j, "machine",
            json_object_new_string(gd_elf_machine_name(o->elf->machine, m, sizeof m)));
        json_object_object_add(j, "soname", str_or_null(o->elf->soname));
        json_object_object_add(j, "rpath", str_or_null(o->elf->rpath));
        json_object_object_add(j, "runpath", str_or_null(o->elf->runpath));
    }
    struct json_object *needed = json_object_new_array();
    for (size_t i = 0; i < o->ndeps; i++)
        json_object_array_add(needed, edge_json(&o->deps[i]));
    json_object_object_add(j, "needed", needed);
    return j;
}

static void json_out(struct gd_buf *b, const struct gd_which *w)
{
    struct json_object *root = json_object_new_object();
    json_object_object_add(
        root, "schema",
        json_object_new_string(w->tree ? "gpudoctor.which-tree/1" : "gpudoctor.which/1"));
    json_object_object_add(root, "root", json_object_new_string(w->root_dir));
    json_object_object_add(root, "ok", json_object_new_boolean(gd_which_ok(w)));
    json_object_object_add(root, "ld_library_path", str_or_null(w->ld_library_path));
    json_object_object_add(root, "glibc", str_or_null(w->glibc[0] ? w->glibc : NULL));
    const struct gd_ldcache *cache = gd_loader_cache(w->loader);
    json_object_object_add(root, "ld_so_cache_problem",
                           str_or_null(gd_loader_cache_problem(w->loader)));
    json_object_object_add(root, "ld_so_cache_entries",
                           json_object_new_int64(cache ? (int64_t)cache->count : 0));
    if (w->tree) {
        struct json_object *objs = json_object_new_array();
        for (size_t i = 0; i < gd_load_count(w->load); i++)
            json_object_array_add(objs, object_json(gd_load_at(w->load, i)));
        json_object_object_add(root, "objects", objs);
        struct json_object *missing = json_object_new_array();
        for (size_t i = 0; i < gd_load_missing_count(w->load); i++)
            json_object_array_add(missing,
                                  json_object_new_string(gd_load_missing_at(w->load, i)->name));
        json_object_object_add(root, "missing", missing);
    } else {
        json_object_object_add(root, "from", str_or_null(w->from));
        json_object_object_add(root, "dlopen", json_object_new_boolean(w->dlopen));
        json_object_object_add(root, "result", edge_json(w->edge));
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

/* Format into `b`; false for a format this result has not (ldd's lines of a name). */
static bool render_into(struct gd_buf *b, const struct gd_which *w, enum gd_which_format format,
                        const struct gd_render_options *options)
{
    bool c = options && options->color;
    if (w->windows) {
        if (format == GD_WHICH_TEXT)
            gd_which_win_text(b, w, c);
        else if (format == GD_WHICH_JSON)
            gd_which_win_json(b, w);
        else if (format == GD_WHICH_LDD && w->tree)
            gd_which_win_ldd(b, w);
        else
            return false;
        return true;
    }
    switch (format) {
    case GD_WHICH_TEXT:
        if (w->tree)
            tree_text(b, w, c);
        else
            name_text(b, w, c);
        return true;
    case GD_WHICH_JSON:
        json_out(b, w);
        return true;
    case GD_WHICH_LDD:
        if (!w->tree)
            return false;
        ldd_text(b, w);
        return true;
    default:
        return false;
    }
}

enum gd_status gd_which_render(const struct gd_which *w, enum gd_which_format format,
                               const struct gd_render_options *options, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    struct gd_buf b;
    gd_buf_init(&b, RENDER_MAX);
    if (!w || !render_into(&b, w, format, options)) {
        gd_buf_free(&b);
        return GD_EINVAL;
    }
    return gd_buf_take(&b, out, len);
}

static bool write_file(void *ctx, const char *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len;
}

enum gd_status gd_which_print(const struct gd_which *w, enum gd_which_format format,
                              const struct gd_render_options *options, FILE *out)
{
    if (!w || !out)
        return GD_EINVAL;
    /* In 64 KiB pieces: torch's tree is 120 KB, and building it whole cost more (fresh memory
     * for all of it) than writing it. */
    struct gd_buf b;
    gd_buf_init_sink(&b, 64 * 1024, write_file, out);
    enum gd_status st = render_into(&b, w, format, options) ? gd_buf_flush(&b) : GD_EINVAL;
    gd_buf_free(&b);
    if (st == GD_OK && fflush(out) != 0)
        st = GD_EIO;
    return st;
}
