/*
 * The gpudoctor command: main.c dispatches to one file per command. Commands use the public
 * API (include/gpudoctor) for everything they diagnose, and src/os only for the terminal.
 * Exit status: 0 no error finding, 1 an error finding, 2 usage or internal error; compat and
 * plan: 0 yes, 1 no, 3 the knowledge base cannot tell.
 */
#ifndef GD_CLI_CLI_H
#define GD_CLI_CLI_H

#include "core/attr.h"
#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stdio.h>

#define GD_EXIT_OK      0
#define GD_EXIT_FINDING 1
#define GD_EXIT_USAGE   2
#define GD_EXIT_UNKNOWN 3 /* compat, plan: the knowledge base cannot tell */

/* Argument cursor over argv, understanding "--name=value" and "--name value". */
struct gd_args {
    int argc, i;
    char **argv;
    const char *cmd; /* for messages */
};

/* True when argv[i] is `long_name` or `short_name` (either may be NULL); advances. */
bool gd_args_flag(struct gd_args *a, const char *short_name, const char *long_name);
/* True when argv[i] is an option taking a value; sets *value (or prints an error and sets
 * *bad when the value is missing); advances past both. */
bool gd_args_value(struct gd_args *a, const char *short_name, const char *long_name,
                   const char **value, bool *bad);

/* Print "gpudoctor CMD: message" to stderr and return GD_EXIT_USAGE. */
int gd_usage_error(const char *cmd, const char *fmt, ...) GD_PRINTF(2, 3);

/* Whether to colour output on stdout: "auto" (a terminal, NO_COLOR unset, TERM not dumb),
 * "always", "never". Returns -1 for an unknown word. */
int gd_color_choice(const char *when);

/* Write `len` bytes to `path` ("-" or NULL: stdout). A file is written beside the target and
 * renamed over it, so a Prometheus collector never reads half a file. Returns 0 or -1 (and
 * prints why). */
int gd_write_output(const char *path, const char *data, size_t len);

/* How a command prints its report (report_args.c): --json, --format, -o, --color, --no-color,
 * -v. */
struct gd_report_args {
    enum gd_format format;
    const char *color_when, *output;
    bool verbose;
};
#define GD_REPORT_ARGS_INIT                 \
    {                                       \
        GD_FORMAT_TEXT, "auto", NULL, false \
    }
/* 1 when argv[i] is one of those options (consumed), 0 when it is not, -1 after printing a usage
 * error; *bad as gd_args_value sets it. */
int gd_args_report(struct gd_args *a, struct gd_report_args *r, bool *bad);
/* What is inspected: --env, --env-file, --no-env, --kb, --python, --site, --os into `opts`, with
 * the same convention. */
int gd_args_inspected(struct gd_args *a, struct gd_options *opts, bool *bad);
/* Whole seconds in decimal, nothing else ("60"; not "1.5", "-1", "60s" or " 60"), saturating
 * at UINT_MAX: 0 with *out set, -1 otherwise. */
int gd_parse_seconds(const char *s, unsigned *out);
/* --timeout SECONDS into `opts`, with the same convention. */
int gd_args_timeout(struct gd_args *a, struct gd_options *opts, bool *bad);
/* Render and write the report as `r` says: GD_EXIT_OK or GD_EXIT_FINDING by its worst finding,
 * GD_EXIT_USAGE when it cannot be rendered or written (said on stderr). */
int gd_print_report(const struct gd_report *report, const struct gd_report_args *r);

int gd_cmd_check(int argc, char **argv);
int gd_cmd_which(int argc, char **argv);
int gd_cmd_test(int argc, char **argv);
int gd_cmd_compat(int argc, char **argv);
int gd_cmd_plan(int argc, char **argv);

struct gd_options;
struct gd_advice;
typedef enum gd_status (*gd_advise_fn)(const struct gd_options *opts, const char *what,
                                       struct gd_advice **out, char *problem, size_t size);
/* compat and plan: parse the options, answer with `fn`, print, map the answer to the exit
 * status. */
int gd_cli_advise(int argc, char **argv, const char *cmd, const char *usage, gd_advise_fn fn);
int gd_cmd_explain(int argc, char **argv);

#endif
