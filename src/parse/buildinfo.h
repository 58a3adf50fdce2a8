/*
 * What the build files of the frameworks say about their build, from the literal values
 * parse/pylit.h reads (no I/O): TensorFlow's tensorflow/python/platform/build_info.py (a dict or
 * OrderedDict `build_info` from 2.4 on, module-level assignments before) and torch/version.py
 * (`cuda` and `hip`: version strings, or None for a build without them). The formats and their
 * sources are in docs/python-files.md.
 */
#ifndef GD_PARSE_BUILDINFO_H
#define GD_PARSE_BUILDINFO_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

struct gd_pylit_file;

struct gd_build_facts {
    /* "cuda", "cpu", "rocm", or "" when the file does not say. */
    char build[8];
    /* Versions as written ("11.0", "8", "12.1"), "" when not stated. TensorFlow's Windows builds
     * write them "64_<major><minor>" and "64_<major>" (cuda_configure.bzl: "64_112" is CUDA
     * 11.2, "64_8" cuDNN 8): those are read as the version they name, and `windows_form` is
     * set. A value that is stated but is not a version (a number, an expression) goes to the
     * *_bad field instead, as written (cut to fit), for the evidence. */
    char cuda[32], cudnn[32];
    char cuda_bad[112], cudnn_bad[112];
    bool windows_form;
    /* TensorFlow's cuda_compute_capabilities joined with ',' ("sm_35,sm_50,compute_80"); items
     * that are not short strings without ',' are skipped; "" when none. */
    char compute_capabilities[1024];
    char hip[64];          /* torch: the ROCm version, "" for None */
    char git_version[128]; /* torch: git_version, "" when absent */
    size_t error_line;     /* gd_pylit_error_line: where the file stopped reading as Python */
};

/* TensorFlow's build_info.py. */
void gd_build_facts_tensorflow(const struct gd_pylit_file *f, struct gd_build_facts *out);
/* torch/version.py. */
void gd_build_facts_torch(const struct gd_pylit_file *f, struct gd_build_facts *out);

#endif
