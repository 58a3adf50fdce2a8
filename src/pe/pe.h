/*
 * PE reader: what the Windows DLL search needs from a .exe, .dll or .pyd (Microsoft's PE/COFF
 * format), read without trusting a single byte of it: the machine, whether it is a DLL, and the
 * DLLs it imports, at load time (the import table) and on first use (the delay-load table).
 *
 * Every offset and size is checked against the data before use; a truncated or hostile file
 * yields GD_EFORMAT, GD_ETRUNCATED or GD_ELIMIT, never a crash or an over-read. Reads through a
 * source callback, as src/elf does, so that a 1 GiB cuDNN DLL costs a few small reads.
 * Reference: Microsoft, "PE Format" (learn.microsoft.com/windows/win32/debug/pe-format).
 */
#ifndef GD_PE_PE_H
#define GD_PE_PE_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Caps on what a hostile file can make us allocate or walk. */
#define GD_PE_MAX_SECTIONS 96 /* the Windows loader's own limit */
#define GD_PE_MAX_IMPORTS  4096
#define GD_PE_MAX_NAME     512

#define GD_PE_MACHINE_I386  0x014c
#define GD_PE_MACHINE_AMD64 0x8664
#define GD_PE_MACHINE_ARM64 0xaa64

struct gd_pe_source {
    /* Read up to `n` bytes at `offset`; `*got` < n only at the end of the data. */
    enum gd_status (*read)(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got);
    void *ctx;
    uint64_t size;
};

/* A section header: where its bytes lie in memory and in the file. */
struct gd_pe_section {
    uint32_t va, vsize, raw_size, raw_off;
};

struct gd_pe {
    uint16_t machine;
    bool pe32plus; /* 64-bit optional header */
    bool is_dll;   /* IMAGE_FILE_DLL */
    /* DLL names as stored ("KERNEL32.dll", "cudart64_110.dll"), in file order (new memory). */
    char **imports;
    size_t n_imports;
    char **delay_imports;
    size_t n_delay_imports;
    /* Why a table could not be read when the headers could (GD_OK when it was). */
    enum gd_status imports_status, delay_status;
    /* Data directory 2, the resource table (0 when the image has none), and the section table
     * that maps its RVAs to file offsets (gd_pe_rva_to_offset): what src/pe/version.c reads. */
    uint32_t resource_rva, resource_size;
    struct gd_pe_section *sections;
    size_t n_sections;
};

/* The file offset of `rva` through the section that maps it; false when none does or the bytes
 * there are not in the file (uninitialised data). */
bool gd_pe_rva_to_offset(const struct gd_pe *pe, uint32_t rva, uint64_t *off);

/* Read `src`. On GD_OK `*out` is new (gd_pe_free). GD_EFORMAT when it is not a PE image,
 * GD_ETRUNCATED when its headers run past the end, GD_ENOMEM, or a read's own status. A broken
 * import or delay-load table leaves the headers readable: its *_status says why. */
enum gd_status gd_pe_read(const struct gd_pe_source *src, struct gd_pe **out);
/* The same over bytes in memory (borrowed for the call). */
enum gd_status gd_pe_read_memory(const void *data, size_t len, struct gd_pe **out);
/* A source over bytes in memory, for the readers that take one (gd_pe_version_read): `mem`
 * must outlive the source. */
struct gd_pe_memory {
    const void *data;
    size_t len;
};
struct gd_pe_source gd_pe_memory_source(struct gd_pe_memory *mem);
void gd_pe_free(struct gd_pe *pe);
/* "x86_64", "i386", "aarch64" or NULL. */
const char *gd_pe_machine_name(uint16_t machine);

#endif
