/*
 * The version of a CUDA toolkit from the files it ships:
 *   version.json  (CUDA >= 11.1)  {"cuda": {"name": "CUDA SDK", "version": "12.2.2"}, ...}
 *   version.txt   (CUDA <= 11.0)  "CUDA Version 10.2.89"
 *   cuda.h                        "#define CUDA_VERSION 12020"
 */
#ifndef GD_PARSE_CUDA_VERSION_H
#define GD_PARSE_CUDA_VERSION_H

#include "core/version.h"

#include <gpudoctor/gpudoctor.h>
#include <stddef.h>

enum gd_status gd_parse_cuda_version_json(const char *data, size_t len, struct gd_version *out);
/* A component's version in version.json: {"cuda_cudart": {"version": "12.4.127"}, ...}. */
enum gd_status gd_parse_component_version_json(const char *data, size_t len, const char *component,
                                               struct gd_version *out);
enum gd_status gd_parse_cuda_version_txt(const char *data, size_t len, struct gd_version *out);
/* The integer value of `#define NAME <int>` in a C header; GD_EFORMAT when absent. */
enum gd_status gd_parse_header_define(const char *data, size_t len, const char *name, long *value);

#endif
