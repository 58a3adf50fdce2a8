/*
 * Running a user's command with its output passed through and watched (`gpudoctor explain
 * --run -- CMD ARGS`). Part of src/os: only there may POSIX be called. A Win32 twin would use
 * CreateProcess with two pipes the same way.
 */
#ifndef GD_OS_RUN_H
#define GD_OS_RUN_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* Called with each piece of the command's output as it arrives: channel 0 its standard output,
 * 1 its standard error. The piece has already been written to this process's own stream. */
typedef void (*gd_os_output_fn)(void *ctx, unsigned channel, const char *data, size_t len);

struct gd_os_run_end {
    bool signaled; /* killed by a signal: `code` is the signal; otherwise the exit status */
    int code;
    bool output_lost; /* writing to this process's stdout or stderr failed: output was dropped */
};

/*
 * Run argv[0] (searched on PATH, as a shell would) with `argv`. Its standard input is this
 * process's; its standard output and error come through pipes: each piece read is written
 * unchanged to this process's stdout or stderr, then handed to `cb`. While it runs, SIGINT and
 * SIGQUIT (a Ctrl-C at the terminal reaches the command too) are ignored here, so that the
 * command decides what an interrupt means and its output is still explained afterwards.
 * GD_OK once the command has ended (`*end` says how); GD_ENOENT or GD_EACCES when it cannot be
 * executed (nothing ran); GD_ECHILD when no process could be started.
 */
enum gd_status gd_os_run_tee(char *const argv[], gd_os_output_fn cb, void *ctx,
                             struct gd_os_run_end *end);

#endif
