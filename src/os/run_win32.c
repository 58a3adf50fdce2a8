/* `gpudoctor explain --run` on Windows: not there yet (docs/windows.md). Running the command
 * with its output passed through takes CreateProcess with two pipes, read without blocking
 * either; until that is written the command is refused, never run half-way. */
#include "os/run.h"

enum gd_status gd_os_run_tee(char *const argv[], gd_os_output_fn cb, void *ctx,
                             struct gd_os_run_end *end)
{
    (void)argv;
    (void)cb;
    (void)ctx;
    (void)end;
    return GD_EUNSUPPORTED;
}
