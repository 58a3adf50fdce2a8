/* What gpudoctor compat and gpudoctor plan share: the options that describe a machine, and the
 * mapping of an answer to the exit status (0 yes, 1 no, 3 cannot tell, 2 usage or internal). */
#include "cli/cli.h"

#include <gpudoctor/advise.h>
#include <gpudoctor/gpudoctor.h>
#include <string.h>

int gd_cli_advise(int argc, char **argv, const char *cmd, const char *usage, gd_advise_fn fn)
{
    struct gd_args a = { argc, 0, argv, cmd };
    struct gd_options *opts = NULL;
    struct gd_advice *advice = NULL;
    char *text = NULL;
    int rc = GD_EXIT_USAGE;
    const char *what = NULL, *value = NULL, *color_when = "auto";
    bool json = false, bad = false;
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
        } else if (gd_args_flag(&a, NULL, "--json")) {
            json = true;
        } else if (gd_args_flag(&a, NULL, "--no-color")) {
            color_when = "never";
        } else if (gd_args_value(&a, NULL, "--color", &value, &bad)) {
            if (!bad && gd_color_choice(value) < 0) {
                gd_usage_error(cmd, "--color takes auto, always or never, not '%s'", value);
                goto out;
            }
            color_when = value;
        } else if (gd_args_value(&a, NULL, "--driver", &value, &bad)) {
            if (!bad && gd_options_set_driver(opts, value) != GD_OK) {
                gd_usage_error(cmd,
                               "--driver takes a driver version (470.82, 535.104.05), not "
                               "'%s'",
                               value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--gpu", &value, &bad)) {
            if (!bad && (st = gd_options_add_gpu(opts, value)) != GD_OK) {
                gd_usage_error(cmd,
                               st == GD_ELIMIT ? "at most 8 GPUs (--gpu and --cc)"
                                               : "--gpu takes a GPU model, not '%s'",
                               value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--cc", &value, &bad)) {
            if (!bad && (st = gd_options_add_cc(opts, value)) != GD_OK) {
                gd_usage_error(cmd,
                               st == GD_ELIMIT ? "at most 8 GPUs (--gpu and --cc)"
                                               : "--cc takes a compute capability such as "
                                                 "3.7 or 8.6, not '%s'",
                               value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--os", &value, &bad)) {
            if (!bad && gd_options_set_os(opts, value) != GD_OK) {
                gd_usage_error(cmd, "--os takes linux or windows, not '%s'", value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--root", &value, &bad)) {
            if (!bad && (st = gd_options_set_root(opts, value)) != GD_OK) {
                gd_usage_error(cmd, "--root '%s': %s", value, gd_status_str(st));
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--kb", &value, &bad)) {
            if (!bad && gd_options_set_kb_dir(opts, value) != GD_OK) {
                fprintf(stderr, "gpudoctor: %s\n", gd_status_str(GD_ENOMEM));
                goto out;
            }
        } else if (arg[0] == '-' && arg[1]) {
            gd_usage_error(cmd, "unknown option '%s'", arg);
            goto out;
        } else if (!what) {
            what = arg;
            a.i++;
        } else {
            gd_usage_error(cmd, "unexpected argument '%s' (quote a GPU model with spaces)", arg);
            goto out;
        }
    }
    if (bad)
        goto out;
    if (!what) {
        gd_usage_error(cmd, strcmp(cmd, "plan") == 0
                                ? "which framework? Give tensorflow, torch or jax"
                                : "what should be checked? Give NAME, NAME==VERSION or a GPU "
                                  "model");
        goto out;
    }
    char problem[512] = "";
    st = fn(opts, what, &advice, problem, sizeof problem);
    if (st == GD_EINVAL) {
        gd_usage_error(cmd, "%s", problem[0] ? problem : gd_status_str(st));
        goto out;
    }
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor %s: %s\n", cmd, problem[0] ? problem : gd_status_str(st));
        goto out;
    }
    struct gd_render_options ro = { gd_color_choice(color_when) == 1, false };
    size_t len = 0;
    st = gd_advice_render(advice, json, &ro, &text, &len);
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor %s: %s\n", cmd, gd_status_str(st));
        goto out;
    }
    if (gd_write_output(NULL, text, len) != 0)
        goto out;
    switch (gd_advice_verdict(advice)) {
    case GD_ANSWER_YES:
        rc = GD_EXIT_OK;
        break;
    case GD_ANSWER_NO:
        rc = GD_EXIT_FINDING;
        break;
    default:
        rc = GD_EXIT_UNKNOWN;
        break;
    }
out:
    gd_free(text);
    gd_advice_free(advice);
    gd_options_free(opts);
    return rc;
}
