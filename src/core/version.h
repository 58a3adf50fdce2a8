/*
 * Versions of everything in the GPU stack, parsed and compared in one place:
 *   dotted releases      "12.4", "8.9.7.29", "535.104.05" (driver), "V12.4.131" (nvcc)
 *   PEP 440 (Python)     "2.15.0", "2.1.0+cu121", "1.13.0a0+gitunknown", "2.16.0rc0",
 *                        "2.5.0.dev20240601", "1.0.post1", "1!2.0"
 *   integer encodings    CUDA 12040 (cudaRuntimeGetVersion, CUDA_VERSION, cuDriverGetVersion),
 *                        cuDNN 8907 / 90100 (CUDNN_VERSION), NCCL 2408 / 21803 (NCCL_VERSION_CODE)
 *   CUDA tags            "cu121", "cu118", "cu92" (PyTorch wheels), "cu12" (nvidia-*-cu12),
 *                        "cuda12" (jax-cuda12-plugin), "cuda112" / "cuda12x" (CuPy)
 * Ordering follows PEP 440 (a dev release < pre-releases < the release < post-releases), which
 * for plain dotted versions is numeric comparison part by part, missing parts counting as 0.
 */
#ifndef GD_CORE_VERSION_H
#define GD_CORE_VERSION_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

#define GD_VERSION_MAX_PARTS 6
#define GD_VERSION_TEXT_MAX  64
/* gd_version_format's canonical form can outgrow the input ("1.0-1" -> "1.0.post1"): buffers
 * for it hold this much. */
#define GD_VERSION_FORMAT_MAX 160

enum gd_pre_kind { GD_PRE_NONE = 0, GD_PRE_ALPHA, GD_PRE_BETA, GD_PRE_RC };

struct gd_version {
    unsigned long epoch;
    int nparts; /* 1..GD_VERSION_MAX_PARTS */
    unsigned long parts[GD_VERSION_MAX_PARTS];
    enum gd_pre_kind pre;
    unsigned long pre_num;
    bool has_post, has_dev;
    unsigned long post, dev;
    char local[GD_VERSION_TEXT_MAX]; /* lower case, without '+'; "" when none */
    char text[GD_VERSION_TEXT_MAX];  /* as given (trimmed, without a leading v), for display */
};

/* Parse a dotted or PEP 440 version. GD_EFORMAT when it is not one, GD_ELIMIT when longer than
 * GD_VERSION_TEXT_MAX - 1 characters or with more than GD_VERSION_MAX_PARTS release parts. */
enum gd_status gd_version_parse(const char *s, struct gd_version *out);
enum gd_status gd_version_parse_n(const char *s, size_t n, struct gd_version *out);

/* 12040 -> 12.4. GD_EFORMAT for values <= 0 or beyond any plausible release. */
enum gd_status gd_version_from_cuda_int(long value, struct gd_version *out);
/* 8907 -> 8.9.7 (major*1000 + minor*100 + patch up to cuDNN 8);
 * 90100 -> 9.1.0 (major*10000 + minor*100 + patch from cuDNN 9). */
enum gd_status gd_version_from_cudnn_int(long value, struct gd_version *out);
/* 2408 -> 2.4.8 (before NCCL 2.9); 21803 -> 2.18.3 (major*10000 + minor*100 + patch). */
enum gd_status gd_version_from_nccl_int(long value, struct gd_version *out);
/* "cu121" -> 12.1, "cu92" -> 9.2, "cu12" -> 12, "cuda12" -> 12, "cuda112" -> 11.2,
 * "cuda12x" -> 12. Case-insensitive. GD_EFORMAT when it is not a CUDA tag. */
enum gd_status gd_version_from_cuda_tag(const char *tag, struct gd_version *out);

/* <0, 0, >0 as a sorts before, equal to, or after b (PEP 440 order, local label last). */
int gd_version_cmp(const struct gd_version *a, const struct gd_version *b);
/* Compare only the first `nparts` release parts (missing parts are 0): 12.4.1 ~ 12.4 at 2. */
int gd_version_cmp_parts(const struct gd_version *a, const struct gd_version *b, int nparts);
/* True when `v`'s release starts with all of `prefix`'s parts: "8.9.7" has prefix "8.9". */
bool gd_version_has_prefix(const struct gd_version *v, const struct gd_version *prefix);
unsigned long gd_version_major(const struct gd_version *v);
unsigned long gd_version_minor(const struct gd_version *v);
/* True when the version is a dev or pre-release. */
bool gd_version_is_prerelease(const struct gd_version *v);

/* Canonical text (PEP 440 normal form; release parts without leading zeros) into `buf`. */
void gd_version_format(const struct gd_version *v, char *buf, size_t size);

#endif
