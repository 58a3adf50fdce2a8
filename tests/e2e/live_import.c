/*
 * `gpudoctor check --import` on this machine, with Debian's python3-torch (a CPU build) and the
 * system's /usr/bin/python3: the child must report torch importable, a build without CUDA
 * (torch.version.cuda is None) that sees no GPU, and the rules must call it fine (import.ok, no
 * import.failed, no import.gpu-not-visible).
 *
 * Exits 77 when /usr/bin/python3 or Debian's torch is not installed, or when the report has no
 * `framework` entity for that torch (the frameworks probe, which finds it from its files, is
 * what --import imports from: without it there is nothing to import).
 *
 * Usage: live_import GPUDOCTOR
 */
#include "live_report.h"

#include <unistd.h>

#define TORCH_DIR "/usr/lib/python3/dist-packages/torch"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    if (access("/usr/bin/python3", X_OK) != 0 || access(TORCH_DIR "/__init__.py", R_OK) != 0) {
        printf("skipped: /usr/bin/python3 with Debian's python3-torch is not installed\n");
        return 77;
    }
    char cmd[4096];
    /* --python names the interpreter to import with; --no-env keeps the caller's VIRTUAL_ENV
     * (an active venv would be imported with too) out, PATH is given for what torch runs. */
    snprintf(cmd, sizeof cmd,
             "'%s' check --no-env --env PATH=/usr/bin:/bin --python /usr/bin/python3 --import "
             "--import-timeout 300 --json",
             argv[1]);
    int status = 0;
    struct json_object *root = run_report(cmd, &status);
    if (!root)
        return 1;
    struct json_object *entities = entities_of(root), *torch = NULL, *imp = NULL;
    for (size_t i = 0; i < json_object_array_length(entities); i++) {
        struct json_object *e = json_object_array_get_idx(entities, i);
        const char *fw = fact(e, "framework"), *site = fact(e, "site");
        if (!strcmp(kind(e), "framework") && fw && !strcmp(fw, "torch") && site &&
            !strcmp(site, "/usr/lib/python3/dist-packages"))
            torch = e;
        const char *python = fact(e, "python");
        if (!strcmp(kind(e), "framework_import") && fw && !strcmp(fw, "torch") && python &&
            !strcmp(python, "/usr/bin/python3"))
            imp = e;
    }
    if (!torch) {
        printf("skipped: the report has no framework entity for %s (no frameworks probe)\n",
               TORCH_DIR);
        json_object_put(root);
        return 77;
    }
    if (!imp) {
        fail("no framework_import entity for torch with /usr/bin/python3");
        json_object_put(root);
        return 1;
    }
    const char *status_fact = fact(imp, "status"), *imported = fact(imp, "imported");
    const char *available = fact(imp, "cuda_available"), *build = fact(imp, "cuda_build");
    const char *cuda_state = fact_member(imp, "cuda", "state");
    const char *cuda_reason = fact_member(imp, "cuda", "reason");
    printf("torch %s: status %s, imported %s, cuda_build %s, cuda %s (%s), cuda_available %s\n",
           fact(imp, "version") ? fact(imp, "version") : "?", status_fact ? status_fact : "?",
           imported ? imported : "?", build ? build : "?", cuda_state ? cuda_state : "?",
           cuda_reason ? cuda_reason : "", available ? available : "?");
    if (!status_fact || strcmp(status_fact, "ok") != 0)
        fail("status %s, want ok", status_fact ? status_fact : "(none)");
    if (!imported || strcmp(imported, "true") != 0)
        fail("imported %s, want true", imported ? imported : "(none)");
    if (!available || strcmp(available, "false") != 0)
        fail("cuda_available %s, want false", available ? available : "(none)");
    if (!build || strcmp(build, "false") != 0)
        fail("cuda_build %s, want false", build ? build : "(none)");
    if (!cuda_state || strcmp(cuda_state, "absent") != 0 || !cuda_reason ||
        strcmp(cuda_reason, "None") != 0)
        fail("cuda is %s (%s), want absent (None): torch.version.cuda is None",
             cuda_state ? cuda_state : "(none)", cuda_reason ? cuda_reason : "");
    if (finding(root, "import.failed") || finding(root, "import.gpu-not-visible"))
        fail("the rules judge a working CPU build as broken");
    if (!finding(root, "import.ok"))
        fail("no import.ok finding");
    json_object_put(root);
    return failures ? 1 : 0;
}
