/* gpudoctor check: inspect the machine (or --root) and print the findings. */
#include "cli/cli.h"

#include <gpudoctor/gpudoctor.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: gpudoctor [check] [OPTIONS]\n"
    "\n"
    "Inspect this machine's NVIDIA GPU stack (driver, device files, container, WSL,\n"
    "environment) and print a checklist of findings with evidence and fixes.\n"
    "\n"
    "Options:\n"
    "  --root DIR          inspect the tree at DIR as if it were / (an unpacked container\n"
    "                      image, a mounted disk); nothing under it is executed or loaded\n"
    "  --env NAME=VALUE    set a variable of the inspected environment (repeatable)\n"
    "  --env-file FILE     read NAME=VALUE lines from FILE (docker's --env-file format)\n"
    "  --no-env            ignore this process's environment (the default under --root)\n"
    "  --kb DIR            knowledge-base tables in DIR replace the embedded ones\n"
    "  --calls             also ask each CUDA library its version, loading it in a child\n"
    "                      process (slower: cuBLAS alone loads 500 MiB)\n"
    "  --no-devices        do not ask the driver, NVML and the CUDA runtimes about the GPUs\n"
    "                      (they are asked in child processes, on this machine only)\n"
    "  --timeout SECONDS   deadline of each of those children (default 30)\n"
    "  --python PATH       also inspect the Python environment of this interpreter (or\n"
    "                      prefix); repeatable. Python environments on PATH, VIRTUAL_ENV,\n"
    "                      CONDA_PREFIX, conda, pyenv, ~/.virtualenvs, the system and user\n"
    "                      sites are found without it; nothing is run\n"
    "  --site DIR          also inspect this site-packages directory (pip install --target,\n"
    "                      PYTHONPATH); repeatable\n"
    "  --json              print the full report as JSON (same as --format json)\n"
    "  --format FORMAT     text (default), json, markdown or prometheus\n"
    "  -o, --output FILE   write the report to FILE (replaced atomically)\n"
    "  --color WHEN        auto (default), always or never; NO_COLOR turns auto off\n"
    "  --no-color          same as --color never\n"
    "  -v, --verbose       evidence for every finding, and every fact gathered\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 no error finding, 1 at least one error finding, 2 usage or internal\n"
    "error. Findings are documented in docs/findings.md, the JSON in docs/json-schema.md.\n";

static int parse_format(const char *s, enum gd_format *out)
{
    static const struct {
        const char *name;
        enum gd_format format;
    } formats[] = {
        { "text", GD_FORMAT_TEXT },
        { "json", GD_FORMAT_JSON },
        { "markdown", GD_FORMAT_MARKDOWN },
        { "prometheus", GD_FORMAT_PROMETHEUS },
    };
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        if (strcmp(s, formats[i].name) == 0) {
            *out = formats[i].format;
            return 0;
        }
    }
    return -1;
}

int gd_cmd_check(int argc, char **argv)
{
    struct gd_args a = { argc, 0, argv, "check" };
    struct gd_options *opts = NULL;
    struct gd_report *report = NULL;
    char *text = NULL;
    int rc = GD_EXIT_USAGE;
    enum gd_format format = GD_FORMAT_TEXT;
    const char *color_when = "auto", *output = NULL, *value = NULL;
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
        } else if (gd_args_flag(&a, NULL, "--calls")) {
            gd_options_set_calls(opts, true);
        } else if (gd_args_flag(&a, NULL, "--no-devices")) {
            gd_options_set_devices(opts, false);
        } else if (gd_args_value(&a, NULL, "--timeout", &value, &bad)) {
            char *end = NULL;
            long s = bad ? 0 : strtol(value, &end, 10);
            if (!bad && (!end || *end || end == value || s <= 0 ||
                         gd_options_set_timeout(opts, (unsigned)s) != GD_OK)) {
                gd_usage_error("check", "--timeout takes seconds from 1 to 86400, not '%s'", value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--format", &value, &bad)) {
            if (!bad && parse_format(value, &format) != 0) {
                gd_usage_error("check", "unknown format '%s' (text, json, markdown, prometheus)",
                               value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--color", &value, &bad)) {
            if (!bad && gd_color_choice(value) < 0) {
                gd_usage_error("check", "--color takes auto, always or never, not '%s'", value);
                goto out;
            }
            color_when = value;
        } else if (gd_args_value(&a, "-o", "--output", &value, &bad)) {
            output = value;
        } else if (gd_args_value(&a, NULL, "--root", &value, &bad)) {
            if (!bad && (st = gd_options_set_root(opts, value)) != GD_OK) {
                gd_usage_error("check", "--root '%s': %s", value, gd_status_str(st));
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--kb", &value, &bad)) {
            if (!bad)
                gd_options_set_kb_dir(opts, value);
        } else if (gd_args_value(&a, NULL, "--python", &value, &bad)) {
            if (!bad && (st = gd_options_add_python(opts, value)) != GD_OK) {
                gd_usage_error("check", "--python '%s': %s", value, gd_status_str(st));
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--site", &value, &bad)) {
            if (!bad && (st = gd_options_add_site(opts, value)) != GD_OK) {
                gd_usage_error("check", "--site '%s': %s", value, gd_status_str(st));
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--env", &value, &bad)) {
            if (!bad && (st = gd_options_set_env(opts, value)) != GD_OK) {
                gd_usage_error("check", "--env takes NAME=VALUE, not '%s'", value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--env-file", &value, &bad)) {
            size_t bad_lines = 0;
            if (!bad && (st = gd_options_load_env_file(opts, value, &bad_lines)) != GD_OK) {
                gd_usage_error("check", "--env-file '%s': %s", value, gd_status_str(st));
                goto out;
            }
            if (bad_lines)
                fprintf(stderr, "gpudoctor check: %s: %zu malformed line%s skipped\n", value,
                        bad_lines, bad_lines == 1 ? "" : "s");
        } else {
            gd_usage_error("check",
                           arg[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", arg);
            goto out;
        }
    }
    if (bad)
        goto out;

    st = gd_check(opts, &report);
    if (st != GD_OK) {
        const char *why = st == GD_ENOENT || st == GD_ENOTDIR ? " (--root or --kb is not a "
                                                                "directory)"
                                                              : "";
        fprintf(stderr, "gpudoctor: check failed: %s%s\n", gd_status_str(st), why);
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
