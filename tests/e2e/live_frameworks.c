/*
 * The live machine's frameworks, as issue 4 requires: Debian's python3-torch (a CPU build) is
 * found in /usr/lib/python3/dist-packages and reported as a CPU-only build. The report is checked
 * against the package's own files and, where /usr/bin/python3 can import it, against torch
 * itself (torch.__version__, torch.version.cuda). Exits 77 without Debian's python3-torch.
 *
 * Usage: live_frameworks GPUDOCTOR
 */
#define _GNU_SOURCE
#include <glob.h>
#include <unistd.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

/* The whole output of a command, or NULL. */
static char *run(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *more = realloc(buf, cap *= 2);
            if (!more) {
                free(buf);
                buf = NULL;
            }
            buf = more;
        }
    }
    pclose(p);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static const char *fact(struct json_object *entity, const char *name)
{
    struct json_object *facts, *f, *v;
    if (!entity || !json_object_object_get_ex(entity, "facts", &facts) ||
        !json_object_object_get_ex(facts, name, &f) || !json_object_object_get_ex(f, "value", &v))
        return NULL;
    return json_object_get_string(v);
}

static struct json_object *entity(struct json_object *report, const char *id)
{
    struct json_object *entities, *e, *eid;
    if (!json_object_object_get_ex(report, "entities", &entities))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(entities); i++) {
        e = json_object_array_get_idx(entities, i);
        if (json_object_object_get_ex(e, "id", &eid) &&
            strcmp(json_object_get_string(eid), id) == 0)
            return e;
    }
    return NULL;
}

/* The Version: line of PKG-INFO. */
static bool pkg_version(const char *egg, char *out, size_t size)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/PKG-INFO", egg);
    FILE *f = fopen(path, "r");
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        if (strncmp(line, "Version: ", 9) == 0) {
            size_t n = strcspn(line + 9, "\r\n");
            if (n >= size)
                n = size - 1;
            memcpy(out, line + 9, n);
            out[n] = '\0';
            found = true;
        }
    if (f)
        fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: live_frameworks GPUDOCTOR\n");
        return 2;
    }
    glob_t g;
    if (glob("/usr/lib/python3/dist-packages/torch-*.egg-info", 0, NULL, &g) != 0) {
        printf("skipped: Debian's python3-torch is not installed (no "
               "/usr/lib/python3/dist-packages/torch-*.egg-info)\n");
        return 77;
    }
    const char *egg = g.gl_pathv[0];
    char version[256];
    if (!pkg_version(egg, version, sizeof version)) {
        fail("%s/PKG-INFO states no version", egg);
        return 1;
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' check --json 2>/dev/null", argv[1]);
    char *text = run(cmd);
    struct json_object *report = text ? json_tokener_parse(text) : NULL;
    free(text);
    if (!report) {
        fail("gpudoctor check --json printed no JSON");
        return 1;
    }
    char id[4200];
    snprintf(id, sizeof id, "framework:%s", egg);
    struct json_object *fw = entity(report, id);
    if (!fw) {
        fail("no entity %s", id);
    } else {
        const char *v = fact(fw, "version"), *b = fact(fw, "build"), *n = fact(fw, "framework");
        if (!n || strcmp(n, "torch") != 0)
            fail("%s.framework is %s, not torch", id, n ? n : "(none)");
        if (!v || strcmp(v, version) != 0)
            fail("%s.version is %s, PKG-INFO says %s", id, v ? v : "(none)", version);
        if (!b || strcmp(b, "cpu") != 0)
            fail("%s.build is %s, not cpu", id, b ? b : "(none)");
    }
    /* The finding, with that build as its evidence. */
    struct json_object *findings, *f, *fid, *ev;
    bool found = false;
    if (json_object_object_get_ex(report, "findings", &findings))
        for (size_t i = 0; i < json_object_array_length(findings); i++) {
            f = json_object_array_get_idx(findings, i);
            if (!json_object_object_get_ex(f, "id", &fid) ||
                strcmp(json_object_get_string(fid), "framework.cpu-only-build") != 0 ||
                !json_object_object_get_ex(f, "evidence", &ev))
                continue;
            const char *s = json_object_to_json_string_ext(ev, JSON_C_TO_STRING_NOSLASHESCAPE);
            found = found || strstr(s, egg) != NULL;
        }
    if (!found)
        fail("no framework.cpu-only-build finding with %s's build as evidence", egg);
    /* torch itself, when this interpreter can import it (a few seconds). */
    if (access("/usr/bin/python3", X_OK) == 0) {
        char *out = run("/usr/bin/python3 -I -c 'import torch; print(torch.__version__); "
                        "print(torch.version.cuda)' 2>/dev/null");
        /* Debian's __version__ drops the local label PKG-INFO keeps ("1.13.0a0" of
         * "1.13.0a0+gitunknown"). */
        char *nl = out ? strchr(out, '\n') : NULL;
        if (!out || !nl)
            printf("note: /usr/bin/python3 could not import torch; compared with its files only\n");
        else if (strncmp(version, out, (size_t)(nl - out)) != 0 ||
                 (version[nl - out] != '\0' && version[nl - out] != '+'))
            fail("torch.__version__ is %.*s, PKG-INFO says %s", (int)(nl - out), out, version);
        else if (strcmp(nl + 1, "None\n") != 0)
            fail("torch.version.cuda is %s, not None", nl + 1);
        else
            printf("torch %.*s imported: torch.version.cuda is None, as reported\n",
                   (int)(nl - out), out);
        free(out);
    }
    json_object_put(report);
    if (!failures)
        printf("ok: %s reported as a CPU-only torch %s\n", egg, version);
    /* `egg` is one of the glob's paths. */
    globfree(&g);
    return failures ? 1 : 0;
}
