/*
 * CUDA fat binary reader: the GPU architectures a library carries code for, SASS (sm_XX, machine
 * code for one compute capability) and PTX (compute_XX, compiled by the driver at load time),
 * read from the fatbin containers of its .nv_fatbin section. A GPU that no SASS entry serves and
 * no PTX entry can be compiled for is what "no kernel image is available for execution on the
 * device" means, so this list predicts that error before anything runs.
 *
 * Reads container and entry headers only, never a payload, through the ELF reader's page cache:
 * libcublasLt.so.13 (517 MiB, 2,782 containers, 5,737 entries) costs 2,462 page reads of 4 KiB,
 * about one per header however large the payloads. The format as implemented, with the public
 * source of each fact and what is not understood, is in docs/fatbin.md.
 *
 * Untrusted input: every size is checked against its container and section, every step moves
 * forward by at least a header, and the walk is capped, so hostile bytes end in a status or in
 * `partial`, never a crash, an over-read or an endless loop.
 */
#ifndef GD_ELF_FATBIN_H
#define GD_ELF_FATBIN_H

#include "elf/elf.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* Caps on what a hostile section can make us walk or allocate; past one the walk stops and the
 * result is `partial`. Real libraries stay far below: libcublasLt.so.13 has 2,782 containers,
 * 5,737 entries and 11 distinct architectures. */
#define GD_FATBIN_MAX_CONTAINERS 65536
#define GD_FATBIN_MAX_ENTRIES    262144
#define GD_FATBIN_MAX_ARCHS      256
/* Zero bytes skipped between two containers (alignment padding; none seen in CUDA 13's files). */
#define GD_FATBIN_MAX_PADDING 4096

/* Flavours of an architecture, from its entries' flags (docs/fatbin.md). Which devices each
 * serves is NVIDIA's rule (CUDA Programming Guide, compute capabilities): SASS sm_86 runs on 8.6
 * and later 8.x, PTX compute_86 is compiled for 8.6 and every later device; an arch-specific
 * sm_90a serves 9.0 alone, a family-specific sm_100f its family (10.0 and 10.3). */
#define GD_FATBIN_PLAIN         1u
#define GD_FATBIN_ARCH_SPECIFIC 2u /* the "a" targets, CUDA 12.0 and later */
#define GD_FATBIN_FAMILY        4u /* the "f" targets, CUDA 12.9 and later */

struct gd_fatbin_arch {
    unsigned sm;       /* 80 for sm_80 / compute_80 */
    bool ptx;          /* PTX (JIT-able), else SASS */
    unsigned count;    /* entries */
    unsigned variants; /* GD_FATBIN_PLAIN | _ARCH_SPECIFIC | _FAMILY: the flavours seen */
    /* The highest (major, minor) among its entries: the PTX ISA version for PTX (9.0 from CUDA
     * 13: a driver older than the ISA cannot compile it), the cubin code version for SASS. */
    unsigned version_major, version_minor;
};

struct gd_fatbin {
    struct gd_fatbin_arch *archs; /* new memory, NULL when narchs is 0 */
    size_t narchs;                /* distinct (sm, ptx), sorted by sm then SASS before PTX */
    size_t entries, containers;
    /* Entries of no listed kind, counted in `entries` only: LTO-IR (kind 8, device code kept
     * for a link-time optimisation, not loadable as is) and kinds not understood. The counts of
     * the archs, these two and nothing else add up to `entries`. */
    size_t lto_entries, unknown_entries;
    bool compressed; /* some entry's payload is compressed (informational) */
    bool partial; /* a cap or a malformed container stopped the walk: the list may be incomplete */
    bool relocatable; /* read from __nv_relfatbin: relocatable device code not yet device-linked */
    unsigned page_reads; /* GD_ELF_PAGE-byte pages read, for the "few reads" bar */
};

/*
 * From an ELF already read with gd_elf_read_file (sections included) out of the open file `f`:
 * walks every .nv_fatbin section, or when there is none every __nv_relfatbin section (where nvcc
 * -rdc and clang -fgpu-rdc put the fatbin of an object not yet device-linked; in a linked library
 * beside .nv_fatbin it only holds the link's inputs, which the CUDA runtime never loads, and
 * cuobjdump lists .nv_fatbin alone too). Sections without contents (SHT_NOBITS, as in a separate
 * debug file) do not count. `*out` is filled: gd_fatbin_free it, whatever the status.
 *
 * GD_ENOENT: no fatbin section. The ELF's sections_status when its section table was unreadable.
 * A malformed or truncated structure, or a cap, before any entry was read yields GD_EFORMAT,
 * GD_ETRUNCATED or GD_ELIMIT with `*out` empty (page_reads aside); after one, the walk stops there
 * with GD_OK, what was read, and `partial` set. GD_ENOMEM; a read's own status (GD_EIO).
 */
enum gd_status gd_fatbin_read_file(struct gd_os_file *f, const struct gd_elf *elf,
                                   struct gd_fatbin *out);

/* The same over the contents of one fatbin section already in memory (tests and fuzzing). An
 * empty `data` holds no container: GD_OK with nothing listed. */
enum gd_status gd_fatbin_parse(const void *data, size_t len, struct gd_fatbin *out);

/* The same over `size` bytes at `offset` of any source (the walk both functions above share). */
enum gd_status gd_fatbin_read_source(const struct gd_elf_source *src, uint64_t offset,
                                     uint64_t size, struct gd_fatbin *out);

/* The entry for (sm, ptx), or NULL. */
const struct gd_fatbin_arch *gd_fatbin_find(const struct gd_fatbin *f, unsigned sm, bool ptx);

/* Frees the list and empties `*f`; NULL is a no-op. */
void gd_fatbin_free(struct gd_fatbin *f);

#endif
