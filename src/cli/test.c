/* gpudoctor test: run real work on each GPU through every layer and report what failed. */
#include "cli/cli.h"

#include "os/os.h"

#include <gpudoctor/gpudoctor.h>
#include <string.h>

static const char usage[] =
    "Usage: gpudoctor test [OPTIONS]\n"
    "\n"
    "Prove this machine's GPU stack works: on each GPU CUDA programs see, create a context,\n"
    "allocate and free, copy to the device and back (checked byte for byte), JIT-compile and\n"
    "run a PTX kernel (checked), run an SGEMM through each copy of cuBLAS and a convolution\n"
    "through each copy of cuDNN a program or installed framework would load (checked against\n"
    "the CPU), an NCCL all-reduce across the GPUs when there are two or more, and find the\n"
    "largest block that can be allocated. Each part runs in a child process with a deadline.\n"
    "\n"
    "Options:\n"
    "  --timeout SECONDS   deadline of each part (default 120); a part past it is killed and\n"
    "                      reported as hung\n"
    "  --progress WHEN     a line per step on standard error: auto (default: when it is a\n"
    "                      terminal), always or never\n"
    "  --env NAME=VALUE    set a variable of the tested environment (CUDA_VISIBLE_DEVICES,\n"
    "                      CUDA_DEVICE_ORDER); repeatable\n"
    "  --env-file FILE     read NAME=VALUE lines from FILE (docker's --env-file format)\n"
    "  --no-env            ignore this process's environment\n"
    "  --kb DIR            knowledge-base tables in DIR replace the embedded ones\n"
    "  --python PATH       also test the libraries of this interpreter's environment\n"
    "  --site DIR          also test the libraries of this site-packages directory\n"
    "  --json              print the full report as JSON (same as --format json)\n"
    "  --format FORMAT     text (default), json, markdown or prometheus\n"
    "  -o, --output FILE   write the report to FILE (replaced atomically)\n"
    "  --color WHEN        auto (default), always or never; NO_COLOR turns auto off\n"
    "  --no-color          same as --color never\n"
    "  -v, --verbose       evidence for every finding, and every fact gathered\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 every test passed, 1 a test failed (an error finding), 2 usage or\n"
    "internal error. Findings are documented in docs/findings.md (test.*, vendor.*).\n";

struct progress {
    bool tty;
};

static void on_progress(void *user, const char *device, const char *step, const char *state)
{
    const struct progress *p = user;
    /* On a terminal the running step stays on one line, replaced by its result. */
    if (strcmp(state, "running") == 0) {
        if (p->tty)
            fprintf(stderr, "\r\033[Kgpudoctor test: %s: %s ...", device, step);
        return;
    }
    fprintf(stderr, "%sgpudoctor test: %s: %s: %s\n", p->tty ? "\r\033[K" : "", device, step,
            state);
}

int gd_cmd_test(int argc, char **argv)
{
    struct gd_args a = { argc, 0, argv, "test" };
    struct gd_options *opts = NULL;
    struct gd_report *report = NULL;
    int rc = GD_EXIT_USAGE, k;
    struct gd_report_args out = GD_REPORT_ARGS_INIT;
    const char *progress_when = "auto", *value = NULL;
    bool bad = false;
    enum gd_status st = gd_options_new(&opts);
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor: %s\n", gd_status_str(st));
        return GD_EXIT_USAGE;
    }
    while (a.i < a.argc && !bad) {
        const char *arg = argv[a.i];
        if (gd_args_flag(&a, "-h", "--help")) {
            fputs(usage, stdout);
            rc = GD_EXIT_OK;
            goto out;
        } else if ((k = gd_args_report(&a, &out, &bad)) != 0) {
            if (k < 0)
                goto out;
        } else if ((k = gd_args_inspected(&a, opts, &bad)) != 0) {
            if (k < 0)
                goto out;
        } else if (gd_args_value(&a, NULL, "--progress", &value, &bad)) {
            if (!bad && strcmp(value, "auto") != 0 && strcmp(value, "always") != 0 &&
                strcmp(value, "never") != 0) {
                gd_usage_error("test", "--progress takes auto, always or never, not '%s'", value);
                goto out;
            }
            progress_when = value;
        } else if ((k = gd_args_timeout(&a, opts, &bad)) != 0) {
            if (k < 0)
                goto out;
        } else {
            gd_usage_error("test",
                           strcmp(arg, "--root") == 0 ? "'%s' does not apply: the tests run on "
                                                        "this machine's GPUs"
                           : arg[0] == '-'            ? "unknown option '%s'"
                                                      : "unexpected argument '%s'",
                           arg);
            goto out;
        }
    }
    if (bad)
        goto out;
    struct progress p = { gd_os_isatty(2) };
    bool show =
        strcmp(progress_when, "always") == 0 || (strcmp(progress_when, "auto") == 0 && p.tty);
    if (show)
        gd_options_set_progress(opts, on_progress, &p);
    st = gd_test(opts, &report);
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor: test failed: %s\n", gd_status_str(st));
        goto out;
    }
    rc = gd_print_report(report, &out);
out:
    gd_report_free(report);
    gd_options_free(opts);
    return rc;
}
