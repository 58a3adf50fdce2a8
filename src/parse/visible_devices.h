/*
 * CUDA_VISIBLE_DEVICES as the CUDA driver reads it, and PCI addresses in one spelling.
 *
 * The driver's rules, as NVIDIA's CUDA Programming Guide ("CUDA Environment Variables") states
 * them and PyTorch's emulation of the driver (torch/cuda/__init__.py _parse_visible_devices and
 * _transform_uuid_to_ordinals, checked against real drivers by test/test_cuda_nvml_based_avail.py)
 * records them:
 *
 *   - The value is a comma-separated list. When it starts with "GPU-" every entry must be a GPU
 *     UUID (or its prefix), when it starts with "MIG-" a MIG device UUID; otherwise every entry
 *     is an ordinal.
 *   - An ordinal entry is read like strtoul after leading white space: an optional sign, then
 *     digits; the rest of the entry is ignored ("1gpu2" is 1, "+3" is 3, "-0" is 0). An entry
 *     without digits, a negative one ("-1") or one not below the number of GPUs ends the list:
 *     the entries before it are visible, the rest are not.
 *   - A UUID entry must match the start of exactly one GPU's UUID; one matching none or several
 *     ends the list, as does an entry without the list's prefix ("GPU-123, 2" is one entry).
 *   - An entry that repeats an earlier one (the same ordinal, or the same GPU) leaves no GPU
 *     visible at all.
 *   - An empty value makes no GPU visible.
 * Visible GPUs are numbered 0.. in the order of the list; ordinals count GPUs in the order
 * CUDA_DEVICE_ORDER gives (FASTEST_FIRST by default, PCI_BUS_ID as nvidia-smi counts).
 *
 * Pure functions: bytes in, values out, no I/O.
 */
#ifndef GD_PARSE_VISIBLE_DEVICES_H
#define GD_PARSE_VISIBLE_DEVICES_H

#include "core/str.h"

#include <stdbool.h>
#include <stddef.h>

/* Entries kept; a longer list ends with GD_VD_STOP_TOO_MANY (a limit of gpudoctor's, far above
 * the GPUs of any machine). */
#define GD_VD_ENTRIES_MAX 64

enum gd_vd_mode {
    GD_VD_ORDINALS,  /* "0,2,1" */
    GD_VD_GPU_UUIDS, /* "GPU-8932f937,GPU-1c20" */
    GD_VD_MIG_UUIDS, /* "MIG-..." (and the older "MIG-GPU-<uuid>/<gi>/<ci>") */
};

enum gd_vd_stop {
    GD_VD_STOP_NONE,      /* every entry is visible */
    GD_VD_STOP_INVALID,   /* an entry that is no ordinal, or lacks the list's UUID prefix */
    GD_VD_STOP_NEGATIVE,  /* a negative ordinal ("-1") */
    GD_VD_STOP_DUPLICATE, /* an entry repeats an earlier one: no GPU is visible at all */
    GD_VD_STOP_RANGE,     /* an ordinal not below the number of GPUs (resolve only) */
    GD_VD_STOP_NO_MATCH,  /* a UUID matching no GPU (resolve only) */
    GD_VD_STOP_AMBIGUOUS, /* a UUID prefix matching several GPUs (resolve only) */
    GD_VD_STOP_TOO_MANY,  /* more than GD_VD_ENTRIES_MAX entries */
};

struct gd_vd_entry {
    struct gd_span text;   /* the entry as written (white space trimmed), inside the value */
    unsigned long ordinal; /* GD_VD_ORDINALS: its value */
};

struct gd_vd_list {
    enum gd_vd_mode mode;
    struct gd_vd_entry entries[GD_VD_ENTRIES_MAX];
    size_t n;     /* visible entries, in order (0 after a duplicate) */
    size_t total; /* entries written, counting those after the stop */
    enum gd_vd_stop stop;
    size_t stop_at;           /* index of the entry that ended the list (when stop != NONE) */
    struct gd_span stop_text; /* that entry as written */
};

/* Read `len` bytes of a CUDA_VISIBLE_DEVICES value: which entries remain visible without
 * knowing the GPUs (what can be told from the text alone). Never reads past the bytes. */
void gd_visible_devices_parse(const char *value, size_t len, struct gd_vd_list *out);

/* Match a parsed list against the machine's `ngpus` GPUs, given in the order ordinals count
 * them, each by its UUID ("GPU-..."; NULL when unknown). `out[i]` (room for GD_VD_ENTRIES_MAX)
 * receives the index of the GPU that CUDA device i is. Returns how many are visible; `list`'s
 * stop fields are updated when an entry ends the list here (out of range, no match, ambiguous, a
 * GPU named twice). A MIG list is not matched (MIG devices are not among the GPUs): returns 0
 * and leaves `list` as it is. */
size_t gd_visible_devices_resolve(struct gd_vd_list *list, const char *const *uuids, size_t ngpus,
                                  size_t *out);

/* What ended the list, in words ("is negative", "repeats an earlier entry"); "" for NONE. */
const char *gd_vd_stop_text(enum gd_vd_stop stop);

/* A PCI address in any of the spellings NVIDIA tools use ("00000000:3B:00.0" from NVML,
 * "0000:3b:00.0" from /proc and cuDeviceGetPCIBusId) rewritten as the kernel module names its
 * /proc/driver/nvidia/gpus directories: "%04x:%02x:%02x.%x", lower case. `out` has room for
 * GD_PCI_BUS_ID_MAX bytes. False (and `out` empty) when `s` is not such an address. */
#define GD_PCI_BUS_ID_MAX 24
bool gd_pci_bus_id_normalize(const char *s, size_t n, char *out);

#endif
