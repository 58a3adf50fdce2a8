/*
 * /etc/ld.so.cache as glibc's loader reads it (elf/dl-cache.c, sysdeps/generic/dl-cache.h):
 *   old format   "ld.so-1.7.0", nlibs, {int32 flags; uint32 key, value} entries; string
 *                offsets relative to the end of the entries
 *   new format   "glibc-ld.so.cache1.1", nlibs, len_strings, flags (byte order),
 *                extension_offset, {int32 flags; uint32 key, value, osversion; uint64 hwcap}
 *                entries; string offsets relative to the start of the new header
 *   compat       the old format with the new one appended after the old entries (aligned)
 * The new table wins when both are present, as in glibc. Extensions (ldconfig's generator
 * string, glibc-hwcaps subdirectory names) are read when present.
 */
#ifndef GD_LOADER_LDCACHE_H
#define GD_LOADER_LDCACHE_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A cache over this size is not a cache (a real one is tens of KiB). */
#define GD_LDCACHE_MAX (64 * 1024 * 1024)
/* A name or path this long or longer (NUL included) is no cache's: PATH_MAX. */
#define GD_LDCACHE_STRING_MAX 4096

/* Entry flags (ldconfig's FLAG_* values): the low byte is the type, the next the ABI. */
#define GD_LDCACHE_FLAG_ELF_LIBC6     0x0003u
#define GD_LDCACHE_FLAG_X8664_LIB64   0x0300u
#define GD_LDCACHE_FLAG_S390_LIB64    0x0400u
#define GD_LDCACHE_FLAG_POWERPC_LIB64 0x0500u
#define GD_LDCACHE_FLAG_AARCH64_LIB64 0x0a00u
#define GD_LDCACHE_FLAG_RISCV_DOUBLE  0x1000u

enum gd_ldcache_format { GD_LDCACHE_OLD, GD_LDCACHE_NEW, GD_LDCACHE_COMPAT };

struct gd_ldcache_entry {
    const char *name;   /* the SONAME-like key, "libcudart.so.12" */
    const char *path;   /* "/usr/local/cuda-12.4/lib64/libcudart.so.12" */
    const char *hwcaps; /* glibc-hwcaps subdirectory ("x86-64-v3") or NULL */
    uint32_t flags;
    uint64_t hwcap;
    size_t order; /* position in the file */
};

struct gd_ldcache {
    enum gd_ldcache_format format;
    char *generator;                  /* "ldconfig (GNU libc) 2.36" or NULL */
    struct gd_ldcache_entry *entries; /* in file order, as `ldconfig -p` prints them */
    size_t count;
    /* Name index for gd_ldcache_lookup: open addressing over a power-of-two table, each slot
     * 0 or 1 + the index of the first entry (file order) of one name; `next` chains the later
     * entries of that name, 1 + index or 0. Built in one pass, not a sort: the cache of a
     * desktop system has about a thousand entries and is read on every run. */
    uint32_t *slots;
    uint32_t *next;
    size_t nslots;
    char *strings; /* owns the entries' strings: the file (a copy, or the buffer given), so no
                      larger than the file (hwcaps "unknown" is a constant) */
};

/* Parse the bytes of a cache file. On GD_OK `*out` is new (gd_ldcache_free). GD_EFORMAT when
 * no known magic is present or the tables are inconsistent (a string not terminated within
 * GD_LDCACHE_STRING_MAX bytes included), GD_ETRUNCATED when they run past the end, GD_ELIMIT
 * past GD_LDCACHE_MAX. */
enum gd_status gd_ldcache_parse(const void *data, size_t len, struct gd_ldcache **out);
/* The same, taking `data` (gd_malloc'd, len + 1 bytes, NUL at len): the entries point into it
 * instead of a copy. Freed with the cache, or at once when parsing fails. */
enum gd_status gd_ldcache_parse_owned(char *data, size_t len, struct gd_ldcache **out);
void gd_ldcache_free(struct gd_ldcache *cache);

/* The flags a loader of this ELF class and machine accepts (glibc's _dl_cache_check_flags
 * per architecture), or 0 when gpudoctor does not know the architecture. */
uint32_t gd_ldcache_flags_for(int elf_class, uint16_t machine);
bool gd_ldcache_flags_match(uint32_t flags, uint32_t wanted);
/* "libc6,x86-64" as `ldconfig -p` prints it. */
const char *gd_ldcache_flags_name(uint32_t flags, char *buf, size_t size);

/* The first entry (file order) named `name` with acceptable flags and the glibc-hwcaps
 * subdirectory `hwcaps` ("x86-64-v3"; NULL for the plain entry), or NULL. `wanted` from
 * gd_ldcache_flags_for (0 accepts any). */
const struct gd_ldcache_entry *gd_ldcache_lookup(const struct gd_ldcache *cache, const char *name,
                                                 uint32_t wanted, const char *hwcaps);
/* What glibc's cache search returns (elf/dl-cache.c, 2.33+): the first entry of the first of
 * the `hwcaps` subdirectories (most capable first) that has one, else the first plain entry;
 * the same as gd_ldcache_lookup per subdirectory, then NULL, in one pass. */
const struct gd_ldcache_entry *gd_ldcache_lookup_best(const struct gd_ldcache *cache,
                                                      const char *name, uint32_t wanted,
                                                      const char *const *hwcaps, size_t nhwcaps);

#endif
