/* What every platform's children share (os.h): the one-job wrapper, the result's release and
 * the signals' names, built on gd_os_children_run of os_posix.c or os_win32.c. */
/* SIGKILL, SIGBUS, SIGTRAP with the platform's own numbers (XSI); Windows lacks them and
 * os/signals.h supplies them. */
#define _XOPEN_SOURCE 700

#include "os/os.h"

#include "core/alloc.h"
#include "os/signals.h"

#include <stdio.h>

enum gd_status gd_os_child_run(gd_child_fn fn, void *arg, unsigned timeout_ms, size_t max_output,
                               struct gd_child_result *result)
{
    struct gd_child_job job = { fn, arg, NULL, NULL };
    return gd_os_children_run(&job, 1, timeout_ms, max_output, result);
}

void gd_child_result_free(struct gd_child_result *result)
{
    if (!result)
        return;
    gd_free(result->output);
    gd_free(result->errors);
    result->output = NULL;
    result->errors = NULL;
    result->len = 0;
    result->errors_len = 0;
}

const char *gd_os_signal_name(int sig, char *buf, size_t size)
{
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGKILL:
        return "SIGKILL";
    case SIGTERM:
        return "SIGTERM";
    case SIGTRAP:
        return "SIGTRAP";
    default:
        snprintf(buf, size, "signal %d", sig);
        return buf;
    }
}
