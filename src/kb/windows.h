/*
 * Typed lookups over the windows_cuda table (docs/kb.md): what a DLL of a Windows machine is (its
 * CUDA family and CUDA major, or cuDNN major), how the driver's version reads from its file
 * version, which DLLs TensorFlow loads by name on Windows, and what cuDNN needs beside it. Every
 * answer names its row (borrowed from the KB, valid until gd_kb_free) so that a fact or finding
 * cites its source. Nothing here allocates or does I/O. A missing table or a field that does not
 * parse counts as "not known" (GD_ENOENT), never a guess.
 */
#ifndef GD_KB_WINDOWS_H
#define GD_KB_WINDOWS_H

#include "core/version.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gd_kb;
struct gd_kb_row;

#define GD_KB_WIN_DLL_ROWS 8 /* rows one DLL name has at most (curand64_10.dll: three) */

/* What the table says of a DLL name (compared ignoring case, as Windows does). */
struct gd_kb_win_dll {
    const char *family; /* "cudart", "cublas", ..., "cudnn", "cuda" (nvcuda.dll), "nvidia-ml";
                         * NULL when the table does not know the name */
    /* CUDA library rows: the CUDA versions (majors, or major.minor) that ship the name. */
    const char *cuda[GD_KB_WIN_DLL_ROWS];
    const struct gd_kb_row *rows[GD_KB_WIN_DLL_ROWS];
    size_t n;
    bool driver;      /* a driver DLL (nvcuda.dll, nvml.dll) */
    long cudnn_major; /* cuDNN's main DLL or a sub-library: its major; 0 otherwise */
};

/* Fill `*out` for `dll` (a file name, "cudart64_110.dll"). GD_OK when a row names it, GD_ENOENT
 * otherwise (out->family NULL). */
enum gd_status gd_kb_win_dll(const struct gd_kb *kb, const char *dll, struct gd_kb_win_dll *out);

/* NVIDIA's driver version from a Windows file version (31.0.15.3623 -> "536.23"), by the
 * driver_version row, into `buf`. GD_OK; GD_ENOENT without the row; GD_EFORMAT when the file
 * version does not have the shape the numbering needs (its fourth part above 9999). */
enum gd_status gd_kb_win_driver_version(const struct gd_kb *kb, const uint16_t file[4], char *buf,
                                        size_t size, const struct gd_kb_row **row);

/* The DLL names `framework` loads on Windows when built with CUDA `cuda` (the row whose cuda is
 * a release prefix of it). GD_OK with `*row`, read its "dlls" list; GD_ENOENT. */
enum gd_status gd_kb_win_framework_dlls(const struct gd_kb *kb, const char *framework,
                                        const struct gd_version *cuda,
                                        const struct gd_kb_row **row);

/* A DLL cuDNN `cudnn` needs beside it on Windows (zlibwapi.dll for 8.3 to 8.x): GD_OK with its
 * name and row, GD_ENOENT when none (or the version is outside every range). */
enum gd_status gd_kb_win_cudnn_dependency(const struct gd_kb *kb, const struct gd_version *cudnn,
                                          const char **dll, const struct gd_kb_row **row);

#endif
