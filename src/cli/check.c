/* gpudoctor check: inspect the machine (or --root) and print the findings. */
#include "cli/cli.h"

#include <gpudoctor/gpudoctor.h>
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
    "  --os linux|windows  the inspected machine's operating system, when the tree cannot\n"
    "                      tell (default: a Windows\\System32 directory means Windows)\n"
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
    "  --import [all]      also import each framework found, in a child of the interpreter of\n"
    "                      the active environment (VIRTUAL_ENV, CONDA_PREFIX) and of each\n"
    "                      --python, else of python3 on PATH; `all`: of every environment.\n"
    "                      Asks the framework what it sees (torch.cuda.is_available(), ...)\n"
    "                      and keeps its warnings; this machine only, never under --root\n"
    "  --import-timeout SECONDS\n"
    "                      each import's deadline (default 60, at most 3600)\n"
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

int gd_cmd_check(int argc, char **argv)
{
    struct gd_args a = { argc, 0, argv, "check" };
    struct gd_options *opts = NULL;
    struct gd_report *report = NULL;
    int rc = GD_EXIT_USAGE, k;
    struct gd_report_args out = GD_REPORT_ARGS_INIT;
    const char *value = NULL;
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
        } else if (gd_args_flag(&a, NULL, "--calls")) {
            gd_options_set_calls(opts, true);
        } else if (gd_args_flag(&a, NULL, "--no-devices")) {
            gd_options_set_devices(opts, false);
        } else if ((k = gd_args_timeout(&a, opts, &bad)) != 0) {
            if (k < 0)
                goto out;
        } else if (gd_args_flag(&a, NULL, "--import")) {
            /* An optional value: `--import all` (check takes no other argument, so a word
             * after --import can only be its value) or `--import=all`. */
            bool all = a.i < a.argc && strcmp(argv[a.i], "all") == 0;
            a.i += all;
            gd_options_set_import(opts, all ? GD_IMPORT_ALL : GD_IMPORT_CHOSEN);
        } else if (gd_args_value(&a, NULL, "--import", &value, &bad)) {
            if (strcmp(value, "all") != 0) {
                gd_usage_error("check", "--import takes no value or 'all', not '%s'", value);
                goto out;
            }
            gd_options_set_import(opts, GD_IMPORT_ALL);
        } else if (gd_args_value(&a, NULL, "--import-timeout", &value, &bad)) {
            unsigned seconds = 0;
            if (!bad && (gd_parse_seconds(value, &seconds) != 0 ||
                         gd_options_set_import_timeout(opts, seconds) != GD_OK)) {
                gd_usage_error("check",
                               "--import-timeout takes whole seconds from 1 to %d, not '%s'",
                               GD_IMPORT_TIMEOUT_MAX, value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--root", &value, &bad)) {
            if (!bad && (st = gd_options_set_root(opts, value)) != GD_OK) {
                gd_usage_error("check", "--root '%s': %s", value, gd_status_str(st));
                goto out;
            }
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
    rc = gd_print_report(report, &out);
out:
    gd_report_free(report);
    gd_options_free(opts);
    return rc;
}
