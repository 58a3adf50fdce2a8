/* The signal numbers src/os reports, on every platform: <signal.h>'s, and for the signals
 * Windows' C library does not define, Linux's numbers (they only travel inside gpudoctor and
 * are printed by name, gd_os_signal_name). Internal to src/os. */
#ifndef GD_OS_SIGNALS_H
#define GD_OS_SIGNALS_H

#include <signal.h>

#ifndef SIGKILL
#define SIGKILL 9
#endif
#ifndef SIGBUS
#define SIGBUS 7
#endif
#ifndef SIGTRAP
#define SIGTRAP 5
#endif

#endif
