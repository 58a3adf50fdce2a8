/* The answers of compat and plan as text and as JSON (schema gpudoctor.compat/1, docs/compat.md):
 * every line with the numbers of its sources, the sources listed at the end. */
#include "advise/advise.h"
#include "render/render.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#define WIDTH 100

static const char *answer_name(enum gd_kb_answer a)
{
    return a == GD_KB_YES ? "yes" : a == GD_KB_NO ? "no" : "unknown";
}

static const char *kind_name(enum gd_adv_kind k)
{
    static const char *const names[] = { "fact", "check", "install", "upgrade", "note" };
    return (size_t)k < sizeof names / sizeof *names ? names[k] : "fact";
}

/* Word-wrap `text` from column `col`, continuation lines indented by `indent` spaces. */
static size_t wrap(struct gd_buf *out, const char *text, size_t col, size_t indent)
{
    const char *p = text;
    bool first = true;
    while (*p) {
        size_t word = strcspn(p, " ");
        if (!first && col + 1 + word > WIDTH) {
            gd_buf_putc(out, '\n');
            for (size_t i = 0; i < indent; i++)
                gd_buf_putc(out, ' ');
            col = indent;
        } else if (!first) {
            gd_buf_putc(out, ' ');
            col++;
        }
        gd_buf_add(out, p, word);
        col += word;
        first = false;
        p += word;
        while (*p == ' ')
            p++;
    }
    return col;
}

static void color(struct gd_buf *out, bool on, const char *code)
{
    if (on)
        gd_buf_puts(out, code);
}

static const char *answer_color(enum gd_kb_answer a)
{
    return a == GD_KB_YES ? "\033[32m" : a == GD_KB_NO ? "\033[1;31m" : "\033[33m";
}

static void machine_text(const struct gd_advice *a, struct gd_buf *out)
{
    const struct gd_adv_machine *m = &a->machine;
    struct gd_buf line;
    gd_buf_init(&line, 64 * 1024);
    if (m->root)
        gd_buf_printf(&line, "Machine: the tree at %s (--root).", m->root);
    else
        gd_buf_printf(&line, "Machine: %s.", m->where);
    if (m->has_driver)
        gd_buf_printf(&line, " Driver %s [%s %s].", m->driver.text, m->driver_kind, m->driver_ref);
    else if (m->given)
        gd_buf_puts(&line, " Driver not given.");
    else
        gd_buf_printf(&line, " No NVIDIA driver (%s).", m->no_driver ? m->no_driver : "not found");
    for (size_t i = 0; i < m->ngpus; i++) {
        const struct gd_adv_gpu *g = &m->gpus[i];
        if (g->count > 1)
            gd_buf_printf(&line, " %u GPUs %s%s", g->count, g->name ? g->name : "",
                          g->name && (g->has_cc || g->why) ? ", " : "");
        else
            gd_buf_printf(&line, " GPU %s%s", g->name ? g->name : "",
                          g->name && (g->has_cc || g->why) ? ", " : "");
        if (g->has_cc)
            gd_buf_printf(&line, "compute capability %s [%s %s].", g->cc.text, g->cc_kind,
                          g->cc_ref);
        else
            gd_buf_printf(&line, "compute capability unknown (%s).", g->why ? g->why : "not known");
    }
    if (m->ngpus == 0)
        gd_buf_puts(&line, m->given ? " No GPU given." : m->gpus_known ? " No NVIDIA GPU." : "");
    gd_buf_printf(&line, " %s", m->os_name ? m->os_name : "Linux");
    if (m->os_kind && m->os_ref)
        gd_buf_printf(&line, " [%s %s]", m->os_kind, m->os_ref);
    gd_buf_puts(&line, ".");
    if (gd_buf_status(&line) != GD_OK)
        out->status = gd_buf_status(&line);
    /* A --root path is not wrapped: the output must not depend on its length. */
    if (m->root)
        gd_buf_puts(out, gd_buf_str(&line));
    else
        wrap(out, gd_buf_str(&line), 0, 2);
    gd_buf_putc(out, '\n');
    gd_buf_free(&line);
}

static void refs(struct gd_buf *out, const struct gd_adv_line *l, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < l->nsrc && n + 8 < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%zu", i ? "," : "[", l->src[i] + 1);
    if (l->nsrc && n + 2 < size)
        snprintf(buf + n, size - n, "]");
    (void)out;
}

void gd_render_advice_text(const struct gd_advice *a, const struct gd_render_options *o,
                           struct gd_buf *out)
{
    gd_buf_printf(out, "gpudoctor %s %s\n", a->command, a->query ? a->query : "");
    machine_text(a, out);
    for (size_t i = 0; i < a->nsections; i++) {
        const struct gd_adv_section *s = &a->sections[i];
        gd_buf_putc(out, '\n');
        color(out, o->color, "\033[1m");
        gd_buf_puts(out, s->title);
        color(out, o->color, "\033[0m");
        if (s->judged) {
            gd_buf_puts(out, "  ->  ");
            color(out, o->color, answer_color(s->verdict));
            gd_buf_puts(out, answer_name(s->verdict));
            color(out, o->color, "\033[0m");
        }
        gd_buf_putc(out, '\n');
        for (size_t k = 0; k < s->nlines; k++) {
            const struct gd_adv_line *l = &s->lines[k];
            const char *label =
                l->kind == GD_ADV_CHECK ? answer_name(l->answer) : kind_name(l->kind);
            gd_buf_puts(out, "  ");
            if (l->kind == GD_ADV_CHECK)
                color(out, o->color, answer_color(l->answer));
            gd_buf_printf(out, "%-8s", label);
            if (l->kind == GD_ADV_CHECK)
                color(out, o->color, "\033[0m");
            gd_buf_puts(out, " ");
            char r[96];
            refs(out, l, r, sizeof r);
            struct gd_buf text;
            gd_buf_init(&text, 64 * 1024);
            gd_buf_puts(&text, l->text);
            if (r[0])
                gd_buf_printf(&text, " %s", r);
            wrap(out, gd_buf_str(&text), 11, 11);
            gd_buf_free(&text);
            gd_buf_putc(out, '\n');
            if (l->command)
                gd_buf_printf(out, "             %s\n", l->command);
        }
    }
    gd_buf_putc(out, '\n');
    gd_buf_puts(out, "Answer: ");
    color(out, o->color, answer_color(a->verdict));
    gd_buf_puts(out, answer_name(a->verdict));
    color(out, o->color, "\033[0m");
    if (a->summary) {
        gd_buf_puts(out, ". ");
        wrap(out, a->summary, 8 + strlen(answer_name(a->verdict)) + 2, 2);
    }
    gd_buf_putc(out, '\n');
    if (a->nsources)
        gd_buf_puts(out, "\nSources:\n");
    for (size_t i = 0; i < a->nsources; i++) {
        const struct gd_adv_source *s = &a->sources[i];
        char num[32];
        snprintf(num, sizeof num, "  [%zu] ", i + 1);
        gd_buf_puts(out, num);
        struct gd_buf text;
        gd_buf_init(&text, 64 * 1024);
        if (s->table)
            gd_buf_printf(&text, "%s: %s%s%s%s%s", s->table, s->id, s->title ? " - " : "",
                          s->title ? s->title : "", s->url ? " " : "", s->url ? s->url : "");
        else
            gd_buf_printf(&text, "%s %s", s->kind, s->ref);
        wrap(out, gd_buf_str(&text), strlen(num), 6);
        gd_buf_free(&text);
        gd_buf_putc(out, '\n');
    }
}

static struct json_object *str_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static struct json_object *source_ref(const char *kind, const char *ref)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "kind", str_or_null(kind));
    json_object_object_add(o, "ref", str_or_null(ref));
    return o;
}

static struct json_object *machine_json(const struct gd_adv_machine *m)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "given", json_object_new_boolean(m->given));
    json_object_object_add(o, "where", str_or_null(m->where));
    json_object_object_add(o, "root", str_or_null(m->root));
    struct json_object *d = json_object_new_object();
    if (m->has_driver) {
        json_object_object_add(d, "state", json_object_new_string("known"));
        json_object_object_add(d, "version", json_object_new_string(m->driver.text));
        json_object_object_add(d, "source", source_ref(m->driver_kind, m->driver_ref));
    } else {
        json_object_object_add(d, "state", json_object_new_string(m->given ? "unknown" : "absent"));
        if (m->no_driver)
            json_object_object_add(d, "reason", json_object_new_string(m->no_driver));
    }
    json_object_object_add(o, "driver", d);
    json_object_object_add(o, "os",
                           json_object_new_string(m->os == GD_KB_OS_WINDOWS ? "windows" : "linux"));
    json_object_object_add(o, "os_name", str_or_null(m->os_name));
    json_object_object_add(o, "gpus_known", json_object_new_boolean(m->gpus_known));
    struct json_object *gpus = json_object_new_array();
    for (size_t i = 0; i < m->ngpus; i++) {
        const struct gd_adv_gpu *g = &m->gpus[i];
        struct json_object *go = json_object_new_object();
        json_object_object_add(go, "name", str_or_null(g->name));
        json_object_object_add(go, "count", json_object_new_int64(g->count));
        json_object_object_add(go, "compute_capability",
                               g->has_cc ? json_object_new_string(g->cc.text) : NULL);
        if (!g->has_cc && g->why)
            json_object_object_add(go, "reason", json_object_new_string(g->why));
        json_object_object_add(go, "source", source_ref(g->cc_kind, g->cc_ref));
        json_object_array_add(gpus, go);
    }
    json_object_object_add(o, "gpus", gpus);
    return o;
}

void gd_render_advice_json(const struct gd_advice *a, struct gd_buf *out)
{
    struct json_object *root = json_object_new_object();
    json_object_object_add(root, "schema", json_object_new_string("gpudoctor.compat/1"));
    json_object_object_add(root, "command", str_or_null(a->command));
    json_object_object_add(root, "query", str_or_null(a->query));
    json_object_object_add(root, "machine", machine_json(&a->machine));
    struct json_object *sections = json_object_new_array();
    for (size_t i = 0; i < a->nsections; i++) {
        const struct gd_adv_section *s = &a->sections[i];
        struct json_object *so = json_object_new_object();
        json_object_object_add(so, "title", json_object_new_string(s->title));
        json_object_object_add(so, "verdict",
                               s->judged ? json_object_new_string(answer_name(s->verdict)) : NULL);
        struct json_object *lines = json_object_new_array();
        for (size_t k = 0; k < s->nlines; k++) {
            const struct gd_adv_line *l = &s->lines[k];
            struct json_object *lo = json_object_new_object();
            json_object_object_add(lo, "kind", json_object_new_string(kind_name(l->kind)));
            if (l->kind == GD_ADV_CHECK)
                json_object_object_add(lo, "answer",
                                       json_object_new_string(answer_name(l->answer)));
            json_object_object_add(lo, "text", json_object_new_string(l->text));
            if (l->command)
                json_object_object_add(lo, "command", json_object_new_string(l->command));
            struct json_object *src = json_object_new_array();
            for (size_t n = 0; n < l->nsrc; n++)
                json_object_array_add(src, json_object_new_int64((int64_t)l->src[n] + 1));
            json_object_object_add(lo, "sources", src);
            json_object_array_add(lines, lo);
        }
        json_object_object_add(so, "lines", lines);
        json_object_array_add(sections, so);
    }
    json_object_object_add(root, "sections", sections);
    json_object_object_add(root, "verdict", json_object_new_string(answer_name(a->verdict)));
    json_object_object_add(root, "summary", str_or_null(a->summary));
    struct json_object *sources = json_object_new_array();
    for (size_t i = 0; i < a->nsources; i++) {
        const struct gd_adv_source *s = &a->sources[i];
        struct json_object *so = json_object_new_object();
        json_object_object_add(so, "n", json_object_new_int64((int64_t)i + 1));
        if (s->table) {
            json_object_object_add(so, "table", json_object_new_string(s->table));
            json_object_object_add(so, "id", json_object_new_string(s->id));
            json_object_object_add(so, "title", str_or_null(s->title));
            json_object_object_add(so, "url", str_or_null(s->url));
        } else {
            json_object_object_add(so, "kind", str_or_null(s->kind));
            json_object_object_add(so, "ref", str_or_null(s->ref));
        }
        json_object_array_add(sources, so);
    }
    json_object_object_add(root, "sources", sources);
    size_t len = 0;
    const char *text = json_object_to_json_string_length(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE,
        &len);
    if (text) {
        gd_buf_add(out, text, len);
        gd_buf_putc(out, '\n');
    } else {
        out->status = GD_ENOMEM;
    }
    json_object_put(root);
}
