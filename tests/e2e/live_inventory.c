/*
 * The live machine's CUDA libraries, as issue 3 requires them reported: cuDNN, cudart, cuBLAS and
 * NCCL with the versions their headers and their own version calls give (gpudoctor check
 * --calls), and libcuda.so.1 absent while the toolkit's stub exists when no driver is installed.
 * Exits 77 when this machine has no CUDA toolkit libraries for the loader to find.
 *
 * Usage: live_inventory GPUDOCTOR
 */
#include "live_report.h"

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
    int status = 0;
    struct json_object *root = run_report(cmd, &status);
    if (!root)
        return 1;
    struct json_object *entities = entities_of(root);
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
    bool stub_finding = finding(root, "libs.cuda-stub-only") != NULL;
    if (stub && !real && !stub_finding)
        fail("a stub libcuda.so and no libcuda.so.1, but no %s finding", "libs.cuda-stub-only");
    printf("libcuda: %s\n", real ? "present" : stub ? "only the stub" : "absent");
    json_object_put(root);
    return failures ? 1 : 0;
}
