/* What every platform's children share (os.h): the one-job wrapper and the result's release,
 * built on gd_os_children_run of os_posix.c or os_win32.c. */
#include "os/os.h"

#include "core/alloc.h"

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
