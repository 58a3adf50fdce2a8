/* A DLL of the inspected root read as a PE image (src/pe), through the root: what the Windows
 * probes need from nvcuda.dll, nvml.dll and the CUDA DLLs. Nothing is loaded. */
#ifndef GD_PROBE_PEFILE_H
#define GD_PROBE_PEFILE_H

#include "pe/pe.h"
#include "pe/version.h"
#include "sysroot/sysroot.h"

/* Read the PE headers and the version resource of `path`. On GD_OK `*pe` is new (gd_pe_free)
 * and `*version_status` says how the version resource went (GD_OK with `*version` filled,
 * GD_ENOENT when there is none, or why it could not be read). Otherwise the status of opening
 * or of the PE headers (GD_EFORMAT: not a PE image). */
enum gd_status gd_probe_read_dll(struct gd_root *root, const char *path, struct gd_pe **pe,
                                 struct gd_pe_version *version, enum gd_status *version_status);

#endif
