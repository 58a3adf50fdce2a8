/* The options and the printing every report-making command shares (check, test). */
#include "cli/cli.h"

#include <gpudoctor/gpudoctor.h>
#include <string.h>

int gd_parse_seconds(const char *s, unsigned *out)
{
    unsigned long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000000UL)
            return -1;
        v = v * 10 + (unsigned long)(*s - '0');
    }
    *out = v > 0xffffffffUL ? 0xffffffffU : (unsigned)v;
    return 0;
}

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

int gd_args_report(struct gd_args *a, struct gd_report_args *r, bool *bad)
{
    const char *value = NULL;
    if (gd_args_flag(a, "-v", "--verbose")) {
        r->verbose = true;
    } else if (gd_args_flag(a, NULL, "--json")) {
        r->format = GD_FORMAT_JSON;
    } else if (gd_args_flag(a, NULL, "--no-color")) {
        r->color_when = "never";
    } else if (gd_args_value(a, NULL, "--format", &value, bad)) {
        if (!*bad && parse_format(value, &r->format) != 0) {
            gd_usage_error(a->cmd, "unknown format '%s' (text, json, markdown, prometheus)", value);
            return -1;
        }
    } else if (gd_args_value(a, NULL, "--color", &value, bad)) {
        if (!*bad && gd_color_choice(value) < 0) {
            gd_usage_error(a->cmd, "--color takes auto, always or never, not '%s'", value);
            return -1;
        }
        r->color_when = value;
    } else if (gd_args_value(a, "-o", "--output", &value, bad)) {
        r->output = value;
    } else {
        return 0;
    }
    return 1;
}

int gd_args_inspected(struct gd_args *a, struct gd_options *opts, bool *bad)
{
    const char *value = NULL;
    enum gd_status st;
    if (gd_args_flag(a, NULL, "--no-env")) {
        gd_options_clear_env(opts);
    } else if (gd_args_value(a, NULL, "--kb", &value, bad)) {
        if (!*bad)
            gd_options_set_kb_dir(opts, value);
    } else if (gd_args_value(a, NULL, "--python", &value, bad)) {
        if (!*bad && (st = gd_options_add_python(opts, value)) != GD_OK) {
            gd_usage_error(a->cmd, "--python '%s': %s", value, gd_status_str(st));
            return -1;
        }
    } else if (gd_args_value(a, NULL, "--site", &value, bad)) {
        if (!*bad && (st = gd_options_add_site(opts, value)) != GD_OK) {
            gd_usage_error(a->cmd, "--site '%s': %s", value, gd_status_str(st));
            return -1;
        }
    } else if (gd_args_value(a, NULL, "--os", &value, bad)) {
        if (!*bad && gd_options_set_host_os(opts, value) != GD_OK) {
            gd_usage_error(a->cmd, "--os takes linux or windows, not '%s'", value);
            return -1;
        }
    } else if (gd_args_value(a, NULL, "--env", &value, bad)) {
        if (!*bad && gd_options_set_env(opts, value) != GD_OK) {
            gd_usage_error(a->cmd, "--env takes NAME=VALUE, not '%s'", value);
            return -1;
        }
    } else if (gd_args_value(a, NULL, "--env-file", &value, bad)) {
        size_t bad_lines = 0;
        if (!*bad && (st = gd_options_load_env_file(opts, value, &bad_lines)) != GD_OK) {
            gd_usage_error(a->cmd, "--env-file '%s': %s", value, gd_status_str(st));
            return -1;
        }
        if (bad_lines)
            fprintf(stderr, "gpudoctor %s: %s: %zu malformed line%s skipped\n", a->cmd, value,
                    bad_lines, bad_lines == 1 ? "" : "s");
    } else {
        return 0;
    }
    return 1;
}

int gd_args_timeout(struct gd_args *a, struct gd_options *opts, bool *bad)
{
    const char *value = NULL;
    if (!gd_args_value(a, NULL, "--timeout", &value, bad))
        return 0;
    if (*bad)
        return 1;
    unsigned s = 0;
    if (gd_parse_seconds(value, &s) != 0 || s == 0 || gd_options_set_timeout(opts, s) != GD_OK) {
        gd_usage_error(a->cmd, "--timeout takes seconds from 1 to 86400, not '%s'", value);
        return -1;
    }
    return 1;
}

int gd_print_report(const struct gd_report *report, const struct gd_report_args *r)
{
    struct gd_render_options ro = { gd_color_choice(r->color_when) == 1 && !r->output, r->verbose };
    char *text = NULL;
    size_t len = 0;
    enum gd_status st = gd_render(report, r->format, &ro, &text, &len);
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor: cannot render the report: %s\n", gd_status_str(st));
        return GD_EXIT_USAGE;
    }
    int rc = gd_write_output(r->output, text, len) != 0 ? GD_EXIT_USAGE
             : gd_report_worst(report) == GD_SEV_ERROR  ? GD_EXIT_FINDING
                                                        : GD_EXIT_OK;
    gd_free(text);
    return rc;
}
