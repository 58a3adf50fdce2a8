/*
 * ELF reader: what the loader and the inventory need from a shared object or executable, read
 * without trusting a single byte of it.
 *
 * Reads ELF32 and ELF64 of either byte order: class, byte order, type, machine, interpreter
 * (PT_INTERP), the dynamic section (DT_SONAME, DT_NEEDED, DT_RPATH, DT_RUNPATH, DT_FLAGS,
 * DT_FLAGS_1), section headers with their names, and the GNU notes (build id, ABI tag).
 *
 * Reads only what it needs, through a small page cache: a 1 GiB library costs a few 4 KiB page
 * reads (headers, program headers, the dynamic segment, the strings it names, the section
 * header table), never a read of the whole file. Every offset and size is checked against the
 * file size before use; a truncated or hostile file yields GD_EFORMAT, GD_ETRUNCATED or
 * GD_ELIMIT, never a crash or an over-read. The section header table alone is not needed to
 * load an object: when only it is broken, the object is read without sections
 * (sections_status says why), as glibc's loader maps it all the same.
 */
#ifndef GD_ELF_ELF_H
#define GD_ELF_ELF_H

#include "os/os.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Caps on what a hostile file can make us allocate or walk. */
#define GD_ELF_MAX_PHDRS  4096
#define GD_ELF_MAX_SHDRS  65536
#define GD_ELF_MAX_DYN    65536
#define GD_ELF_MAX_NEEDED 4096
#define GD_ELF_MAX_STRING 65536
/* Section name tables are a few KiB; past this their names are "" */
#define GD_ELF_MAX_SHSTRTAB (16 * 1024 * 1024)
#define GD_ELF_PAGE         4096

/* Where the bytes come from: a file (pread) or memory (tests, fuzzing). */
struct gd_elf_source {
    /* Read up to `n` bytes at `offset`; `*got` < n only at the end of the data. */
    enum gd_status (*read)(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got);
    void *ctx;
    uint64_t size;
};

struct gd_elf_section {
    const char *name; /* "" when the section name table is missing or the name is out of range */
    uint32_t type;
    uint64_t flags, addr, offset, size;
};

struct gd_elf {
    int elf_class; /* 32 or 64 */
    bool big_endian;
    uint8_t osabi;
    uint16_t type;    /* ET_EXEC, ET_DYN, ... */
    uint16_t machine; /* EM_X86_64, EM_AARCH64, ... */
    uint64_t file_size;

    char *interp; /* PT_INTERP, NULL when none */
    bool has_dynamic;
    const char *soname, *rpath, *runpath; /* NULL when absent */
    const char **needed;
    char *dynstrings; /* owns the strings above */
    size_t dynstrings_len;
    size_t nneeded;
    uint64_t flags, flags_1;

    struct gd_elf_section *sections;
    size_t nsections;
    char *shstrings; /* owns the section names: one copy of the section name table */
    size_t shstrings_len;
    /* GD_OK, or why the section header table could not be read (GD_ETRUNCATED for a file cut
     * short after its loadable part): loaders never read sections, so the object is still
     * read, without them (nsections 0). */
    enum gd_status sections_status;

    char build_id[129];  /* hex, "" when none */
    char abi_tag[64];    /* "Linux 3.2.0", "" when none */
    unsigned page_reads; /* 4 KiB pages read from the source, for the "few reads" bar */
};

/* Read an ELF from `src`. On GD_OK `*out` is new (gd_elf_free). GD_EFORMAT: not an ELF or
 * inconsistent; GD_ETRUNCATED: a structure runs past the end; GD_ELIMIT: past a cap. */
enum gd_status gd_elf_read(const struct gd_elf_source *src, struct gd_elf **out);

/* What to read beyond the headers the loader needs (class, machine, type, interpreter, the
 * dynamic section): the loader emulator passes GD_ELF_LOADER_ONLY and skips the section header
 * table and the notes, the most costly part of a file it only resolves. */
#define GD_ELF_ALL         0u
#define GD_ELF_LOADER_ONLY 1u

/* The reader's page cache, for a caller that reads many files one after the other (the loader
 * emulator reads hundreds): one allocation reused, not 32 KiB of fresh memory per file. */
struct gd_elf_pages;
struct gd_elf_pages *gd_elf_pages_new(void);
void gd_elf_pages_free(struct gd_elf_pages *pages);

/* Sources over an open file of `size` bytes (the file stays the caller's) and over memory: `*m`
 * must outlive the source, which only points at it. */
struct gd_elf_memory {
    const void *data;
    size_t len;
};
struct gd_elf_source gd_elf_source_file(struct gd_os_file *f, unsigned long long size);
struct gd_elf_source gd_elf_source_memory(struct gd_elf_memory *m);

/* Reads at any offset of a source through a page cache of its own: what gd_elf_read does inside,
 * for readers of structures that an ELF only points at (the fatbin containers of a section), so
 * that they too cost a few page reads however large the file. */
struct gd_elf_pager;
/* On GD_OK `*out` is new (gd_elf_pager_free); the source is copied, its ctx only borrowed. */
enum gd_status gd_elf_pager_new(const struct gd_elf_source *src, struct gd_elf_pager **out);
/* Copy exactly `n` bytes at `offset`: GD_ETRUNCATED when they run past the source's size or the
 * source ends early; the source's own status when its read fails. */
enum gd_status gd_elf_pager_read(struct gd_elf_pager *p, uint64_t offset, void *buf, size_t n);
/* GD_ELF_PAGE-byte pages read from the source so far. */
unsigned gd_elf_pager_page_reads(const struct gd_elf_pager *p);
void gd_elf_pager_free(struct gd_elf_pager *p);

/* `pages` NULL: the read allocates its own. */
enum gd_status gd_elf_read_ex(const struct gd_elf_source *src, unsigned what,
                              struct gd_elf_pages *pages, struct gd_elf **out);
/* From an open file of `size` bytes (0: ask the file). */
enum gd_status gd_elf_read_file_ex(struct gd_os_file *f, unsigned long long size, unsigned what,
                                   struct gd_elf_pages *pages, struct gd_elf **out);
/* Convenience: read from an open file (src/os or src/sysroot). */
enum gd_status gd_elf_read_file(struct gd_os_file *f, struct gd_elf **out);
/* Convenience: read from memory. */
enum gd_status gd_elf_read_memory(const void *data, size_t len, struct gd_elf **out);
void gd_elf_free(struct gd_elf *elf);
/* A copy of `elf` that owns its own strings: `*out` is new (gd_elf_free). GD_OK or GD_ENOMEM. */
enum gd_status gd_elf_copy(const struct gd_elf *elf, struct gd_elf **out);

/* The section of that name, or NULL. */
const struct gd_elf_section *gd_elf_section(const struct gd_elf *elf, const char *name);
/* "x86-64", "AArch64", ... or "machine 1234". Constant or written into `buf`. */
const char *gd_elf_machine_name(uint16_t machine, char *buf, size_t size);
/* True when the loader of `a` would accept `b` as a dependency: same class, byte order and
 * machine (glibc's open_verify checks these and skips the file otherwise). */
bool gd_elf_compatible(const struct gd_elf *a, const struct gd_elf *b);

#endif
