/* Function children started again as this program (os.h: gd_os_child_serve): the command line
 * that names a function and carries its argument, shared by every platform (children.c), and
 * the parts each platform supplies. Internal to src/os. */
#ifndef GD_OS_CHILDFN_H
#define GD_OS_CHILDFN_H

#include "os/os.h"

/* The argv that runs def->fn(arg) in `self` started again: self, GD_CHILD_FLAG, the name, then
 * each value of the packed argument as one word, "=TEXT" for a string and "!" for none.
 * NULL-terminated, one block of new memory (gd_free). GD_EUNSUPPORTED when this program does
 * not serve `def` (gd_os_child_serve was not called with it); GD_ENOMEM. */
enum gd_status gd_os_child_argv(const char *self, const struct gd_child_def *def, const void *arg,
                                char ***argv);

/* ---- supplied by os_posix.c and os_win32.c ---- */

/* Write `len` bytes of a report line to the parent (gd_child_send formats it); a write that
 * fails ends the line there: the parent reads a report cut short. */
void gd_os_child_write(struct gd_child_out *out, const char *data, size_t len);

/* This process's arguments in UTF-8: `argv` itself on POSIX; on Windows the command line's own
 * (GetCommandLineW: the C runtime's argv is in the ANSI code page, which cannot hold every
 * path). NULL when they cannot be had. Never freed: the process exits. */
char **gd_os_child_cmdline(int argc, char **argv, int *count);

/* Run def->fn(arg) in this process, a started-again function child: the report goes to the
 * standard output the parent gave it (its pipe), after which standard input, output and error
 * are the null device and a crash ends the process as the parent reads it. Exits 0 when the
 * function returns. */
_Noreturn void gd_os_child_enter(const struct gd_child_def *def, void *arg);

#endif
