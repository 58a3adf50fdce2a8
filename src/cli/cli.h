/*
 * The gpudoctor command: main.c dispatches to one file per command. Commands use the public
 * API (include/gpudoctor) for everything they diagnose, and src/os only for the terminal.
 * Exit status: 0 no error finding, 1 an error finding, 2 usage or internal error.
 */
#ifndef GD_CLI_CLI_H
#define GD_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#define GD_EXIT_OK      0
#define GD_EXIT_FINDING 1
#define GD_EXIT_USAGE   2

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
int gd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether to colour output on stdout: "auto" (a terminal, NO_COLOR unset, TERM not dumb),
 * "always", "never". Returns -1 for an unknown word. */
int gd_color_choice(const char *when);

/* Write `len` bytes to `path` ("-" or NULL: stdout). A file is written beside the target and
 * renamed over it, so a Prometheus collector never reads half a file. Returns 0 or -1 (and
 * prints why). */
int gd_write_output(const char *path, const char *data, size_t len);

int gd_cmd_check(int argc, char **argv);
int gd_cmd_which(int argc, char **argv);
int gd_cmd_explain(int argc, char **argv);

#endif
