/*
 * /proc/driver/nvidia/version, written by the NVIDIA kernel module, e.g.
 *   NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023
 *   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  (...)
 *   GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)
 */
#ifndef GD_PARSE_NVIDIA_PROC_H
#define GD_PARSE_NVIDIA_PROC_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

struct gd_nvidia_proc_version {
    char version[32]; /* "535.104.05" */
    bool open_module; /* the open-source kernel module flavour */
    char gcc[96];     /* the compiler that built the module, "" when not stated */
};

/* GD_OK, or GD_EFORMAT when no "NVRM version:" line with a version is present. */
enum gd_status gd_parse_nvidia_proc_version(const char *data, size_t len,
                                            struct gd_nvidia_proc_version *out);

/* The first token of `s` that looks like a driver version (digits '.' digits ['.' digits]),
 * copied into `buf`. False when there is none. Shared with file-name parsing. */
bool gd_find_driver_version(const char *s, size_t n, char *buf, size_t size);

#endif
