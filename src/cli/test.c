/* gpudoctor test: run real work on each GPU through every layer and report what failed. */
#include "cli/cli.h"

#include "os/os.h"

#include <gpudoctor/gpudoctor.h>
#include <stdlib.h>
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
    "  --no-env            ignore this process's environment\n"
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

static int format_of(const char *s, enum gd_format *out)
{
    static const char *const names[] = { "text", "json", "markdown", "prometheus" };
    static const enum gd_format formats[] = { GD_FORMAT_TEXT, GD_FORMAT_JSON, GD_FORMAT_MARKDOWN,
                                              GD_FORMAT_PROMETHEUS };
    for (size_t i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = formats[i];
            return 0;
        }
    return -1;
}

int gd_cmd_test(int argc, char **argv)
{
    struct gd_args a = { argc, 0, argv, "test" };
    struct gd_options *opts = NULL;
    struct gd_report *report = NULL;
    char *text = NULL;
    int rc = GD_EXIT_USAGE;
    enum gd_format format = GD_FORMAT_TEXT;
    const char *color_when = "auto", *progress_when = "auto", *output = NULL, *value = NULL;
    bool verbose = false, bad = false;
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
        } else if (gd_args_flag(&a, "-v", "--verbose")) {
            verbose = true;
        } else if (gd_args_flag(&a, NULL, "--json")) {
            format = GD_FORMAT_JSON;
        } else if (gd_args_flag(&a, NULL, "--no-color")) {
            color_when = "never";
        } else if (gd_args_flag(&a, NULL, "--no-env")) {
            gd_options_clear_env(opts);
        } else if (gd_args_value(&a, NULL, "--format", &value, &bad)) {
            if (!bad && format_of(value, &format) != 0) {
                gd_usage_error("test", "unknown format '%s' (text, json, markdown, prometheus)",
                               value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--color", &value, &bad)) {
            if (!bad && gd_color_choice(value) < 0) {
                gd_usage_error("test", "--color takes auto, always or never, not '%s'", value);
                goto out;
            }
            color_when = value;
        } else if (gd_args_value(&a, NULL, "--progress", &value, &bad)) {
            if (!bad && strcmp(value, "auto") != 0 && strcmp(value, "always") != 0 &&
                strcmp(value, "never") != 0) {
                gd_usage_error("test", "--progress takes auto, always or never, not '%s'", value);
                goto out;
            }
            progress_when = value;
        } else if (gd_args_value(&a, NULL, "--timeout", &value, &bad)) {
            char *end = NULL;
            long s = bad ? 0 : strtol(value, &end, 10);
            if (!bad && (!end || *end || end == value || s <= 0 ||
                         gd_options_set_timeout(opts, (unsigned)s) != GD_OK)) {
                gd_usage_error("test", "--timeout takes seconds from 1 to 86400, not '%s'", value);
                goto out;
            }
        } else if (gd_args_value(&a, "-o", "--output", &value, &bad)) {
            output = value;
        } else if (gd_args_value(&a, NULL, "--env", &value, &bad)) {
            if (!bad && gd_options_set_env(opts, value) != GD_OK) {
                gd_usage_error("test", "--env takes NAME=VALUE, not '%s'", value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--python", &value, &bad)) {
            if (!bad && (st = gd_options_add_python(opts, value)) != GD_OK) {
                gd_usage_error("test", "--python '%s': %s", value, gd_status_str(st));
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--site", &value, &bad)) {
            if (!bad && (st = gd_options_add_site(opts, value)) != GD_OK) {
                gd_usage_error("test", "--site '%s': %s", value, gd_status_str(st));
                goto out;
            }
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
    struct gd_render_options ro = { gd_color_choice(color_when) == 1 && !output, verbose };
    size_t len = 0;
    st = gd_render(report, format, &ro, &text, &len);
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor: cannot render the report: %s\n", gd_status_str(st));
        goto out;
    }
    if (gd_write_output(output, text, len) != 0)
        goto out;
    rc = gd_report_worst(report) == GD_SEV_ERROR ? GD_EXIT_FINDING : GD_EXIT_OK;
out:
    gd_free(text);
    gd_report_free(report);
    gd_options_free(opts);
    return rc;
}
