/* Compiler attributes used across the code, spelled once. */
#ifndef GD_CORE_ATTR_H
#define GD_CORE_ATTR_H

/* printf-style checking of a function's format argument `fmt_index` with arguments from
 * `first_arg`. On mingw-w64, GCC's "printf" archetype means msvcrt.dll's dialect (no %zu); the
 * build uses mingw's C99 printf (__USE_MINGW_ANSI_STDIO), whose dialect is "gnu_printf". */
#if defined(__MINGW32__)
#define GD_PRINTF(fmt_index, first_arg) __attribute__((format(gnu_printf, fmt_index, first_arg)))
#else
#define GD_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#endif

#endif
