/*
 * /proc/driver/nvidia/gpus/<domain:bus:device.function>/information, written by the NVIDIA
 * kernel module for each GPU it drives (nv_procfs_read_gpu_info in nv-procfs.c of NVIDIA's
 * open-gpu-kernel-modules), one "Key: \t value" line per field:
 *
 *   Model: 		 NVIDIA L4
 *   IRQ:   		 16
 *   GPU UUID: 	 GPU-3291dfa4-fcc4-0110-615b-c894a0d7c689
 *   Video BIOS: 	 95.04.65.00.13
 *   Bus Type: 	 PCIe
 *   DMA Size: 	 47 bits
 *   DMA Mask: 	 0x7fffffffffff
 *   Bus Location: 	 0000:70:00.0
 *   Device Minor: 	 0
 *   GPU Firmware: 	 535.129.03        (only when the GPU runs GSP firmware)
 *   GPU Excluded:	 No
 *
 * The module leaves "GPU UUID:" out when it cannot read the UUID, and older drivers wrote
 * neither "Device Minor:" nor "GPU Excluded:". Only the fields gpudoctor reports are kept.
 */
#ifndef GD_PARSE_NVIDIA_GPU_H
#define GD_PARSE_NVIDIA_GPU_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* Longest value kept; a longer one leaves its field absent (the module's own are < 100). */
#define GD_NVIDIA_GPU_VALUE_MAX 256

struct gd_nvidia_gpu_info {
    char *model;        /* "Model:", e.g. "NVIDIA GeForce RTX 3090"; NULL when absent */
    char *uuid;         /* "GPU UUID:", e.g. "GPU-3291dfa4-..."; NULL when absent */
    char *bus_location; /* "Bus Location:", only when it is a PCI address (see below) */
    long minor;         /* "Device Minor:" (the N of /dev/nvidiaN); -1 when absent or invalid */
    int excluded;       /* "GPU Excluded:": 1 "Yes", 0 "No", -1 absent or anything else */
};

/* Parse `len` bytes (any bytes; never read past them). The first line of each key counts; keys
 * match ignoring case and the white space around them; values are trimmed. On GD_OK `out` holds
 * new strings (gd_nvidia_gpu_info_free). GD_EFORMAT when no line has a known key, GD_ENOMEM;
 * on either `out` is left empty (NULL strings, minor and excluded -1), needing no free. */
enum gd_status gd_parse_nvidia_gpu_info(const char *data, size_t len,
                                        struct gd_nvidia_gpu_info *out);
/* Free the strings of `info` and empty it; an emptied or NULL `info` is fine. */
void gd_nvidia_gpu_info_free(struct gd_nvidia_gpu_info *info);

/* Whether the `n` bytes at `s` are a PCI address as the module writes it, in the name of the
 * directory and in "Bus Location:" ("%04x:%02x:%02x.%x"): 4 to 8 hex digits of domain (a
 * 32-bit domain prints longer), ':', 2 hex digits of bus, ':', 2 of device, '.', 1 of
 * function. */
bool gd_nvidia_bus_id_valid(const char *s, size_t n);

#endif
