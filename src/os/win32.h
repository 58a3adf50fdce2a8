/* What os_win32.c shares with run_win32.c. Internal to src/os, Windows only. */
#ifndef GD_OS_WIN32_H
#define GD_OS_WIN32_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <wchar.h>

/* argv (UTF-8, NULL-terminated) as one UTF-16 command line, each argument quoted as
 * CommandLineToArgvW and the C runtime read it back (32767 units at most, Windows' limit). New
 * memory; GD_EINVAL for an argument that is not UTF-8, GD_ELIMIT past the limit, GD_ENOMEM. */
enum gd_status gd_win_command_line(const char *const *argv, wchar_t **cmd);

/* A process's exit code that is an exception (0xC0000005 ...) as the POSIX signal a reader of
 * the result expects (SIGSEGV ...); false for an ordinary exit code. */
bool gd_win_exception_signal(unsigned long code, int *sig);

#endif
