/* What every platform's children share (os.h): the one-job wrapper, the result's release, the
 * signals' names, built on gd_os_children_run of os_posix.c or os_win32.c; and function children
 * started again as this program: the values of an argument, the command line that carries them
 * (childfn.h), and the entry point that reads it (gd_os_child_serve). */
/* SIGKILL, SIGBUS, SIGTRAP with the platform's own numbers (XSI); Windows lacks them and
 * os/signals.h supplies them. */
#define _XOPEN_SOURCE 700

#include "os/os.h"

#include "core/alloc.h"
#include "os/childfn.h"
#include "os/signals.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum gd_status gd_os_child_run(const struct gd_child_def *def, void *arg, unsigned timeout_ms,
                               size_t max_output, struct gd_child_result *result)
{
    struct gd_child_job job = { def, arg, NULL, NULL };
    return gd_os_children_run(&job, 1, timeout_ms, max_output, result);
}

/* ---- a function child's argument as text ---- */

void gd_child_args_str(struct gd_child_args *a, const char *s)
{
    assert(a->n < GD_CHILD_ARGS_MAX);
    if (a->n < GD_CHILD_ARGS_MAX)
        a->v[a->n++] = s;
}

void gd_child_args_int(struct gd_child_args *a, long long v)
{
    assert(a->n < GD_CHILD_ARGS_MAX);
    if (a->n >= GD_CHILD_ARGS_MAX)
        return;
    snprintf(a->num[a->n], sizeof a->num[a->n], "%lld", v);
    a->v[a->n] = a->num[a->n];
    a->n++;
}

const char *gd_child_args_at(const struct gd_child_args *a, size_t i)
{
    return i < a->n ? a->v[i] : NULL;
}

bool gd_child_args_get_int(const struct gd_child_args *a, size_t i, long long *v)
{
    const char *s = gd_child_args_at(a, i);
    /* An optional sign and digits, nothing else (strtoll would skip blanks). */
    size_t digits = s ? strspn(s + (s[0] == '-' || s[0] == '+'), "0123456789") : 0;
    if (!digits || s[(s[0] == '-' || s[0] == '+') + digits] != '\0')
        return false;
    char *end = NULL;
    errno = 0;
    long long n = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *v = n;
    return true;
}

/* ---- started again as this program ---- */

/* The functions this program serves (gd_os_child_serve): borrowed, set once in main(). */
static const struct gd_child_def *const *served;
static size_t nserved;

static const struct gd_child_def *served_named(const char *name)
{
    for (size_t i = 0; i < nserved; i++)
        if (strcmp(served[i]->name, name) == 0)
            return served[i];
    return NULL;
}

enum gd_status gd_os_child_argv(const char *self, const struct gd_child_def *def, const void *arg,
                                char ***argv)
{
    *argv = NULL;
    if (served_named(def->name) != def)
        return GD_EUNSUPPORTED;
    struct gd_child_args a;
    memset(&a, 0, sizeof a);
    if (def->pack)
        def->pack(arg, &a);
    /* One block: the pointers, then the words. */
    const char *fixed[3] = { self, GD_CHILD_FLAG, def->name };
    size_t words = 3 + a.n, bytes = (words + 1) * sizeof(char *);
    for (size_t i = 0; i < 3; i++)
        bytes += strlen(fixed[i]) + 1;
    for (size_t i = 0; i < a.n; i++)
        bytes += (a.v[i] ? strlen(a.v[i]) + 1 : 1) + 1;
    char **out = gd_malloc(bytes);
    if (!out)
        return GD_ENOMEM;
    char *p = (char *)(out + words + 1);
    for (size_t i = 0; i < words; i++) {
        out[i] = p;
        if (i < 3) {
            size_t n = strlen(fixed[i]);
            memcpy(p, fixed[i], n + 1);
            p += n + 1;
        } else if (a.v[i - 3]) {
            size_t n = strlen(a.v[i - 3]);
            *p++ = '=';
            memcpy(p, a.v[i - 3], n + 1);
            p += n + 1;
        } else {
            memcpy(p, "!", 2);
            p += 2;
        }
    }
    out[words] = NULL;
    *argv = out;
    return GD_OK;
}

/* A started-again child that cannot run what it was asked: said on standard error, which the
 * parent reads into the result's `errors`. */
static _Noreturn void refuse(const char *why, const char *what)
{
    fprintf(stderr, "gpudoctor: function child: %s%s\n", why, what);
    fflush(stderr);
    exit(125);
}

void gd_os_child_serve(int argc, char **argv, const struct gd_child_def *const *defs, size_t n)
{
    served = defs;
    nserved = n;
    if (argc < 2 || strcmp(argv[1], GD_CHILD_FLAG) != 0)
        return;
    int count = 0;
    char **words = gd_os_child_cmdline(argc, argv, &count);
    if (!words || count < 3)
        refuse("no function named on the command line", "");
    const struct gd_child_def *def = served_named(words[2]);
    if (!def)
        refuse("this program has no function ", words[2]);
    struct gd_child_args a;
    memset(&a, 0, sizeof a);
    for (int i = 3; i < count; i++) {
        if (a.n == GD_CHILD_ARGS_MAX)
            refuse("more values than an argument holds", "");
        if (words[i][0] == '=')
            a.v[a.n++] = words[i] + 1;
        else if (strcmp(words[i], "!") == 0)
            a.v[a.n++] = NULL;
        else
            refuse("a value is \"=TEXT\" or \"!\", not ", words[i]);
    }
    void *arg = NULL;
    if (def->unpack) {
        /* Lives until the child exits. */
        arg = gd_calloc(1, def->arg_size ? def->arg_size : 1);
        if (!arg)
            refuse("out of memory", "");
        if (!def->unpack(&a, arg)) {
            gd_free(arg);
            refuse("the values do not make an argument of ", def->name);
        }
    }
    gd_os_child_enter(def, arg);
}

void gd_child_result_free(struct gd_child_result *result)
{
    if (!result)
        return;
    gd_free(result->output);
    gd_free(result->errors);
    result->output = NULL;
    result->errors = NULL;
    result->len = 0;
    result->errors_len = 0;
}

const char *gd_os_signal_name(int sig, char *buf, size_t size)
{
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGKILL:
        return "SIGKILL";
    case SIGTERM:
        return "SIGTERM";
    case SIGTRAP:
        return "SIGTRAP";
    default:
        snprintf(buf, size, "signal %d", sig);
        return buf;
    }
}

/* One report line, "KEY VALUE\n": a line break inside the value would start a line of its own,
 * so it becomes a space; the line is cut at 4 KiB. */
void gd_child_send(struct gd_child_out *out, const char *key, const char *fmt, ...)
{
    char value[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    for (char *p = value; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    char line[4096 + 256];
    int n = snprintf(line, sizeof line, "%s %s\n", key, value);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    gd_os_child_write(out, line, len);
}
