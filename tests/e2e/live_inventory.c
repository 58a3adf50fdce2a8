/*
 * The live machine's CUDA libraries, as issue 3 requires them reported: cuDNN, cudart, cuBLAS and
 * NCCL with the versions their headers and their own version calls give (gpudoctor check
 * --calls), and libcuda.so.1 absent while the toolkit's stub exists when no driver is installed.
 * Exits 77 when this machine has no CUDA toolkit libraries for the loader to find.
 *
 * Usage: live_inventory GPUDOCTOR
 */
#define _GNU_SOURCE
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

static const char *fact(struct json_object *entity, const char *name)
{
    struct json_object *facts, *f, *v;
    if (!json_object_object_get_ex(entity, "facts", &facts) ||
        !json_object_object_get_ex(facts, name, &f) || !json_object_object_get_ex(f, "value", &v))
        return NULL;
    return json_object_get_string(v);
}

static const char *kind(struct json_object *entity)
{
    struct json_object *k;
    return json_object_object_get_ex(entity, "kind", &k) ? json_object_get_string(k) : "";
}

/* Equal on the parts both state: "13.0" from the call and "13.0" from CUDART_VERSION. */
static bool same_version(const char *a, const char *b)
{
    while (*a && *b) {
        long x = strtol(a, (char **)&a, 10), y = strtol(b, (char **)&b, 10);
        if (x != y)
            return false;
        if (*a == '.')
            a++;
        if (*b == '.')
            b++;
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' check --calls --json", argv[1]);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 2;
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (len + 1 == cap)
            text = realloc(text, cap *= 2);
    }
    int status = pclose(p);
    if (!text)
        return 2;
    text[len] = '\0';
    struct json_object *root = json_tokener_parse(text);
    struct json_object *entities;
    if (!root || !json_object_object_get_ex(root, "entities", &entities)) {
        printf("FAIL: no JSON report (exit status %d)\n", status);
        return 1;
    }
    static const char *const families[] = { "cudart", "cudnn", "cublas", "nccl" };
    bool any = false;
    for (size_t k = 0; k < 4; k++) {
        bool seen = false;
        for (size_t i = 0; i < json_object_array_length(entities); i++) {
            struct json_object *e = json_object_array_get_idx(entities, i);
            const char *family = fact(e, "family");
            if (strcmp(kind(e), "library") || !family || strcmp(family, families[k]) ||
                !fact(e, "loader.selected_for"))
                continue;
            seen = any = true;
            const char *path = fact(e, "path"), *header = fact(e, "version.header");
            const char *call = fact(e, "version.call");
            printf("%-7s %s: header %s, call %s, reported %s\n", families[k], path,
                   header ? header : "-", call ? call : "-", fact(e, "version"));
            if (!header)
                fail("%s: no version from its header (%s)", families[k], path);
            if (!call)
                fail("%s: no version from its own call (%s)", families[k], path);
            if (header && call && !same_version(header, call))
                fail("header %s and call %s disagree", header, call);
        }
        if (!seen)
            printf("%s: none found by the loader\n", families[k]);
    }
    if (!any) {
        printf("skipped: no CUDA runtime, cuDNN, cuBLAS or NCCL library on this machine\n");
        return 77;
    }
    /* No driver: libcuda.so.1 must be reported absent, with the stub named. */
    bool stub = false, real = false;
    for (size_t i = 0; i < json_object_array_length(entities); i++) {
        struct json_object *e = json_object_array_get_idx(entities, i);
        const char *family = fact(e, "family"), *is_stub = fact(e, "stub");
        if (strcmp(kind(e), "library") || !family || strcmp(family, "cuda"))
            continue;
        if (is_stub && strcmp(is_stub, "true") == 0)
            stub = true;
        else
            real = true;
    }
    struct json_object *findings;
    bool stub_finding = false;
    json_object_object_get_ex(root, "findings", &findings);
    for (size_t i = 0; findings && i < json_object_array_length(findings); i++) {
        struct json_object *id;
        json_object_object_get_ex(json_object_array_get_idx(findings, i), "id", &id);
        if (strcmp(json_object_get_string(id), "libs.cuda-stub-only") == 0)
            stub_finding = true;
    }
    if (stub && !real && !stub_finding)
        fail("a stub libcuda.so and no libcuda.so.1, but no %s finding", "libs.cuda-stub-only");
    printf("libcuda: %s\n", real ? "present" : stub ? "only the stub" : "absent");
    json_object_put(root);
    free(text);
    return failures ? 1 : 0;
}
