#include "parse/modules.h"

#include "core/str.h"

#include <stdio.h>
#include <string.h>

/* Module names are compared with '-' and '_' as the same character, as modprobe does. */
static bool same_module(struct gd_span a, const char *b)
{
    size_t n = strlen(b);
    if (a.n != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char x = a.p[i] == '-' ? '_' : a.p[i], y = b[i] == '-' ? '_' : b[i];
        if (x != y)
            return false;
    }
    return true;
}

static bool next_word(struct gd_span *rest, struct gd_span *word)
{
    while (rest->n && gd_is_space(rest->p[0])) {
        rest->p++;
        rest->n--;
    }
    if (!rest->n)
        return false;
    size_t i = 0;
    while (i < rest->n && !gd_is_space(rest->p[i]))
        i++;
    word->p = rest->p;
    word->n = i;
    rest->p += i;
    rest->n -= i;
    return true;
}

bool gd_proc_modules_has(const char *data, size_t len, const char *module)
{
    const char *cur = data, *end = data + len;
    struct gd_span line, name;
    while (gd_next_line(&cur, end, &line)) {
        if (next_word(&line, &name) && same_module(name, module))
            return true;
    }
    return false;
}

static void set(struct gd_blacklist *out, size_t line, struct gd_span how)
{
    out->blacklisted = true;
    out->line = line;
    gd_span_copy(gd_span_trim(how), out->how, sizeof out->how);
}

static bool is_false_command(struct gd_span cmd)
{
    const char *base = cmd.p;
    for (size_t i = 0; i < cmd.n; i++)
        if (cmd.p[i] == '/')
            base = cmd.p + i + 1;
    struct gd_span b = { base, (size_t)(cmd.p + cmd.n - base) };
    return gd_span_eq(b, "false") || gd_span_eq(b, "true");
}

static void check_directive(struct gd_span text, size_t lineno, const char *module,
                            struct gd_blacklist *out)
{
    struct gd_span rest = text, cmd, name, arg;
    if (!next_word(&rest, &cmd) || !next_word(&rest, &name) || !same_module(name, module))
        return;
    if (gd_span_eq(cmd, "blacklist")) {
        set(out, lineno, text);
    } else if (gd_span_eq(cmd, "install")) {
        if (next_word(&rest, &arg) && is_false_command(arg))
            set(out, lineno, text);
    } else if (gd_span_eq(cmd, "options")) {
        while (next_word(&rest, &arg))
            if (gd_span_eq(arg, "modeset=0"))
                set(out, lineno, text);
    }
}

/* Longest logical line kept; a longer one is cut (its command and module come first). */
#define LOGICAL_LINE_MAX 4096

void gd_modprobe_blacklists(const char *data, size_t len, const char *module,
                            struct gd_blacklist *out)
{
    memset(out, 0, sizeof *out);
    const char *cur = data, *end = data + len;
    struct gd_span line;
    size_t lineno = 0;
    char joined[LOGICAL_LINE_MAX];
    while (!out->blacklisted && gd_next_line(&cur, end, &line)) {
        size_t start = ++lineno, n = 0;
        /* A '\' ending a line joins the next line to it, both removed, as kmod reads these
         * files (freadline_wrapped): "options nouveau \<newline>  modeset=0" is one directive. */
        for (;;) {
            bool more = line.n && line.p[line.n - 1] == '\\';
            size_t take = more ? line.n - 1 : line.n;
            if (take > sizeof joined - 1 - n)
                take = sizeof joined - 1 - n;
            if (take)
                memcpy(joined + n, line.p, take);
            n += take;
            if (!more || !gd_next_line(&cur, end, &line))
                break;
            lineno++;
        }
        struct gd_span t = gd_span_trim((struct gd_span){ joined, n });
        if (t.n == 0 || t.p[0] == '#')
            continue;
        check_directive(t, start, module, out);
    }
}

void gd_cmdline_blacklists(const char *data, size_t len, const char *module,
                           struct gd_blacklist *out)
{
    memset(out, 0, sizeof *out);
    struct gd_span rest = { data, len }, word;
    /* "nouveau.modeset=0": a module parameter name, where '-' and '_' are one character. */
    char modeset[64], modeset_name[64];
    snprintf(modeset, sizeof modeset, "%s.modeset=0", module);
    snprintf(modeset_name, sizeof modeset_name, "%s.modeset", module);
    static const char *const keys[] = { "modprobe.blacklist=", "module_blacklist=",
                                        "rd.driver.blacklist=" };
    while (!out->blacklisted && next_word(&rest, &word)) {
        struct gd_span name, value;
        if (gd_span_split(word, '=', &name, &value) && gd_span_eq(value, "0") &&
            name.n == strlen(modeset) - 2 && same_module(name, modeset_name)) {
            set(out, 0, word);
            break;
        }
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            if (!gd_span_starts_with(word, keys[k]))
                continue;
            size_t kl = strlen(keys[k]);
            struct gd_span list = { word.p + kl, word.n - kl }, item;
            while (gd_span_next_field(&list, ',', &item))
                if (same_module(item, module))
                    set(out, 0, word);
        }
    }
}
