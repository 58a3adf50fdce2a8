#include "loader/ldcache.h"

#include "core/alloc.h"
#include "core/hash.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OLD_MAGIC       "ld.so-1.7.0"
#define NEW_MAGIC       "glibc-ld.so.cache1.1"
#define OLD_HEADER      16 /* magic[11], pad, uint32 nlibs */
#define OLD_ENTRY       12
#define NEW_HEADER      48
#define NEW_ENTRY       24
#define EXTENSION_MAGIC 0xeaa42174u
#define EXT_GENERATOR   0
#define EXT_HWCAPS      1
/* glibc marks entries of glibc-hwcaps subdirectories with this hwcap bit; the low 32 bits
 * index the hwcaps extension (sysdeps/generic/dl-cache.h, glibc 2.33 and later). */
#define HWCAP_EXTENSION (1ULL << 62)

struct bytes {
    const unsigned char *p;
    size_t n;
    bool be;
    char *owned; /* p itself, NUL-terminated at n, given to the cache; NULL: copy p */
};

static bool fits(const struct bytes *b, size_t off, size_t len)
{
    return len <= b->n && off <= b->n - len;
}

static uint32_t u32(const struct bytes *b, size_t off)
{
    const unsigned char *p = b->p + off;
    return b->be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                 : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t u64(const struct bytes *b, size_t off)
{
    uint64_t lo = u32(b, off), hi = u32(b, off + 4);
    return b->be ? lo << 32 | hi : hi << 32 | lo;
}

/* A NUL-terminated string at `base + off` inside the file, shorter than GD_LDCACHE_STRING_MAX;
 * NULL when out of range or longer. The bound keeps the checks and the sort by name linear in
 * the number of entries whatever the strings. */
static const char *string_at(const struct bytes *b, size_t base, uint32_t off)
{
    if (base > b->n || off >= b->n - base)
        return NULL;
    const char *s = (const char *)b->p + base + off;
    size_t avail = b->n - base - off;
    return memchr(s, '\0', avail < GD_LDCACHE_STRING_MAX ? avail : GD_LDCACHE_STRING_MAX) ? s
                                                                                          : NULL;
}

struct raw {
    uint32_t flags, key, value;
    uint64_t hwcap;
};

/* Build the entries over one copy of the file (or the file itself, when given), each string
 * pointing into it. Not a copy per entry: a hostile cache can point every entry at the same
 * long string, and copying each made an 880 KB file cost 16 GB. The whole file, not the table
 * from `base`: the hwcaps names count from the file's start and may lie before it. */
static enum gd_status build(struct gd_ldcache *c, struct bytes *b, size_t base,
                            const struct raw *raw, size_t n, const char *const *hwcaps,
                            size_t nhwcaps)
{
    for (size_t i = 0; i < n; i++)
        if (!string_at(b, base, raw[i].key) || !string_at(b, base, raw[i].value))
            return GD_EFORMAT;
    if (b->owned) {
        c->strings = b->owned;
        b->owned = NULL;
    } else if ((c->strings = gd_malloc(b->n + 1)) != NULL) {
        memcpy(c->strings, b->p, b->n);
        c->strings[b->n] = '\0';
    }
    c->entries = gd_calloc(n ? n : 1, sizeof *c->entries);
    if (!c->strings || !c->entries)
        return GD_ENOMEM;
    const char *table = c->strings + base;
    for (size_t i = 0; i < n; i++) {
        struct gd_ldcache_entry *e = &c->entries[i];
        e->name = table + raw[i].key;
        e->path = table + raw[i].value;
        e->flags = raw[i].flags;
        e->hwcap = raw[i].hwcap;
        e->order = i;
        if (raw[i].hwcap & HWCAP_EXTENSION) {
            /* The hwcaps names are strings of the same table (read_extensions). */
            uint32_t index = (uint32_t)raw[i].hwcap;
            e->hwcaps =
                index < nhwcaps ? c->strings + (hwcaps[index] - (const char *)b->p) : "unknown";
        }
    }
    c->count = n;
    return GD_OK;
}

/* The slot holding `name`'s chain, or the empty slot where it would go. */
static uint32_t *slot_for(const struct gd_ldcache *c, const char *name)
{
    size_t mask = c->nslots - 1;
    for (size_t i = gd_hash_str(name) & mask;; i = (i + 1) & mask) {
        uint32_t *slot = &c->slots[i];
        if (*slot == 0 || strcmp(c->entries[*slot - 1].name, name) == 0)
            return slot;
    }
}

/* Index the entries by name. Walking them backwards and pushing each on its name's chain
 * leaves every chain in file order, the order glibc's lookup prefers. */
static enum gd_status index_names(struct gd_ldcache *c)
{
    size_t nslots = 16;
    while (nslots < 2 * c->count) /* at most half full: probes stay short */
        nslots *= 2;
    c->slots = gd_calloc(nslots, sizeof *c->slots);
    c->next = gd_calloc(c->count ? c->count : 1, sizeof *c->next);
    if (!c->slots || !c->next)
        return GD_ENOMEM;
    c->nslots = nslots;
    for (size_t i = c->count; i-- > 0;) {
        uint32_t *slot = slot_for(c, c->entries[i].name);
        c->next[i] = *slot;
        *slot = (uint32_t)i + 1;
    }
    return GD_OK;
}

/* Extensions: a directory of tagged sections after the string table (glibc 2.33+). Its offset,
 * the sections' offsets and the hwcaps names' offsets all count from the start of the file (a
 * compat file puts the new table after the old one), unlike the entries' strings, which count
 * from the new header: glibc's glibc_hwcaps_compare and ldconfig's glibc_hwcaps_string add them
 * to the file's base. */
static enum gd_status read_extensions(struct gd_ldcache *c, const struct bytes *b, uint32_t ext,
                                      const char ***hwcaps, size_t *nhwcaps)
{
    *hwcaps = NULL;
    *nhwcaps = 0;
    if (ext == 0 || !fits(b, ext, 8) || u32(b, ext) != EXTENSION_MAGIC)
        return GD_OK;
    uint32_t count = u32(b, ext + 4);
    if (count > 64 || !fits(b, (size_t)ext + 8, (size_t)count * 16))
        return GD_EFORMAT;
    for (uint32_t i = 0; i < count; i++) {
        size_t s = (size_t)ext + 8 + (size_t)i * 16;
        uint32_t tag = u32(b, s), off = u32(b, s + 8), size = u32(b, s + 12);
        if (!fits(b, off, size))
            return GD_EFORMAT;
        if (tag == EXT_GENERATOR && !c->generator) {
            c->generator = gd_strndup((const char *)b->p + off, size);
            if (!c->generator)
                return GD_ENOMEM;
        } else if (tag == EXT_HWCAPS && !*hwcaps && size % 4 == 0 && size / 4 <= 1024) {
            size_t n = size / 4;
            const char **names = gd_calloc(n ? n : 1, sizeof *names);
            if (!names)
                return GD_ENOMEM;
            for (size_t k = 0; k < n; k++) {
                names[k] = string_at(b, 0, u32(b, off + 4 * k));
                if (!names[k]) {
                    gd_free(names);
                    return GD_EFORMAT;
                }
            }
            *hwcaps = names;
            *nhwcaps = n;
        }
    }
    return GD_OK;
}

static enum gd_status parse_new(struct gd_ldcache *c, struct bytes *b, size_t base)
{
    if (!fits(b, base, NEW_HEADER))
        return GD_ETRUNCATED;
    /* Byte order: the flags byte says it (1: invalid, 2: little, 3: big; 0: unset, native). */
    uint8_t endian = b->p[base + 28] & 3;
    if (endian == 1)
        return GD_EFORMAT;
    b->be = endian == 3;
    uint32_t nlibs = u32(b, base + 20);
    uint32_t ext = u32(b, base + 32);
    if ((size_t)nlibs > (b->n - base - NEW_HEADER) / NEW_ENTRY)
        return GD_ETRUNCATED;
    struct raw *raw = gd_calloc(nlibs ? nlibs : 1, sizeof *raw);
    if (!raw)
        return GD_ENOMEM;
    for (uint32_t i = 0; i < nlibs; i++) {
        size_t e = base + NEW_HEADER + (size_t)i * NEW_ENTRY;
        raw[i].flags = u32(b, e);
        raw[i].key = u32(b, e + 4);
        raw[i].value = u32(b, e + 8);
        raw[i].hwcap = u64(b, e + 16);
    }
    const char **hwcaps = NULL;
    size_t nhwcaps = 0;
    enum gd_status st = read_extensions(c, b, ext, &hwcaps, &nhwcaps);
    if (st == GD_OK)
        st = build(c, b, base, raw, nlibs, hwcaps, nhwcaps);
    gd_free(hwcaps);
    gd_free(raw);
    return st;
}

static enum gd_status parse_old(struct gd_ldcache *c, struct bytes *b)
{
    uint32_t nlibs = u32(b, 12);
    if ((size_t)nlibs > (b->n - OLD_HEADER) / OLD_ENTRY)
        return GD_ETRUNCATED;
    size_t strings = OLD_HEADER + (size_t)nlibs * OLD_ENTRY;
    struct raw *raw = gd_calloc(nlibs ? nlibs : 1, sizeof *raw);
    if (!raw)
        return GD_ENOMEM;
    for (uint32_t i = 0; i < nlibs; i++) {
        size_t e = OLD_HEADER + (size_t)i * OLD_ENTRY;
        raw[i].flags = u32(b, e);
        raw[i].key = u32(b, e + 4);
        raw[i].value = u32(b, e + 8);
    }
    enum gd_status st = build(c, b, strings, raw, nlibs, NULL, 0);
    gd_free(raw);
    return st;
}

static enum gd_status parse(const void *data, size_t len, char *owned, struct gd_ldcache **out)
{
    *out = NULL;
    if (len > GD_LDCACHE_MAX) {
        gd_free(owned);
        return GD_ELIMIT;
    }
    struct bytes b = { data, len, false, owned };
    struct gd_ldcache *c = gd_calloc(1, sizeof *c);
    if (!c) {
        gd_free(owned);
        return GD_ENOMEM;
    }
    enum gd_status st;
    if (len >= sizeof NEW_MAGIC - 1 && memcmp(data, NEW_MAGIC, sizeof NEW_MAGIC - 1) == 0) {
        c->format = GD_LDCACHE_NEW;
        st = parse_new(c, &b, 0);
    } else if (len >= OLD_HEADER && memcmp(data, OLD_MAGIC, sizeof OLD_MAGIC - 1) == 0) {
        /* The old format is native-endian with no marker: take the order that makes the entry
         * count fit the file. */
        uint32_t le = u32(&b, 12);
        b.be = true;
        uint32_t be = u32(&b, 12);
        b.be = (size_t)le > (len - OLD_HEADER) / OLD_ENTRY &&
               (size_t)be <= (len - OLD_HEADER) / OLD_ENTRY;
        size_t nlibs = u32(&b, 12);
        size_t new_at = OLD_HEADER + nlibs * OLD_ENTRY;
        new_at = (new_at + 7) & ~(size_t)7; /* ALIGN_CACHE: 8, the new header's alignment */
        if (nlibs <= (len - OLD_HEADER) / OLD_ENTRY && new_at <= len &&
            len - new_at >= sizeof NEW_MAGIC - 1 &&
            memcmp(b.p + new_at, NEW_MAGIC, sizeof NEW_MAGIC - 1) == 0) {
            c->format = GD_LDCACHE_COMPAT;
            st = parse_new(c, &b, new_at);
        } else {
            c->format = GD_LDCACHE_OLD;
            st = parse_old(c, &b);
        }
    } else {
        st = GD_EFORMAT;
    }
    if (st == GD_OK)
        st = index_names(c);
    gd_free(b.owned); /* still here when the entries were not built */
    if (st != GD_OK) {
        gd_ldcache_free(c);
        return st;
    }
    *out = c;
    return GD_OK;
}

enum gd_status gd_ldcache_parse(const void *data, size_t len, struct gd_ldcache **out)
{
    return parse(data, len, NULL, out);
}

enum gd_status gd_ldcache_parse_owned(char *data, size_t len, struct gd_ldcache **out)
{
    return parse(data, len, data, out);
}

void gd_ldcache_free(struct gd_ldcache *c)
{
    if (!c)
        return;
    gd_free(c->generator);
    gd_free(c->entries);
    gd_free(c->strings);
    gd_free(c->slots);
    gd_free(c->next);
    gd_free(c);
}

uint32_t gd_ldcache_flags_for(int elf_class, uint16_t machine)
{
    /* _DL_CACHE_DEFAULT_ID of each architecture's sysdeps dl-cache.h. */
    if (elf_class == 64) {
        switch (machine) {
        case 62: /* x86-64 */
            return GD_LDCACHE_FLAG_ELF_LIBC6 | GD_LDCACHE_FLAG_X8664_LIB64;
        case 183: /* AArch64 */
            return GD_LDCACHE_FLAG_ELF_LIBC6 | GD_LDCACHE_FLAG_AARCH64_LIB64;
        case 21: /* PowerPC64 */
            return GD_LDCACHE_FLAG_ELF_LIBC6 | GD_LDCACHE_FLAG_POWERPC_LIB64;
        case 22: /* S/390 */
            return GD_LDCACHE_FLAG_ELF_LIBC6 | GD_LDCACHE_FLAG_S390_LIB64;
        case 243: /* RISC-V, double-float ABI */
            return GD_LDCACHE_FLAG_ELF_LIBC6 | GD_LDCACHE_FLAG_RISCV_DOUBLE;
        default:
            return 0;
        }
    }
    if (elf_class == 32 && machine == 3) /* i386 */
        return GD_LDCACHE_FLAG_ELF_LIBC6;
    return 0;
}

bool gd_ldcache_flags_match(uint32_t flags, uint32_t wanted)
{
    if (wanted == 0)
        return true;
    /* i386 also accepts plain "ELF" (1) entries, as glibc's generic check does. */
    if (wanted == GD_LDCACHE_FLAG_ELF_LIBC6)
        return flags == 1 || flags == GD_LDCACHE_FLAG_ELF_LIBC6;
    return flags == wanted;
}

const char *gd_ldcache_flags_name(uint32_t flags, char *buf, size_t size)
{
    /* ldconfig's print_entry (elf/ldconfig.c): the type byte, then the ABI byte by its FLAG_*
     * value (sparc, IA-64, x86-64, s390, powerpc, mips n32/n64, x32, ARM hard/soft float,
     * AArch64, mips nan2008, RISC-V and LoongArch float ABIs); an ABI it does not know is
     * printed as a number. */
    static const char *const types[] = { "libc4", "ELF", "libc5", "libc6" };
    static const char *const abis[] = {
        NULL,         "64bit",        "IA-64",      "x86-64",      "64bit",
        "64bit",      "N32",          "64bit",      "x32",         "hard-float",
        "AArch64",    "soft-float",   "nan2008",    "N32,nan2008", "64bit,nan2008",
        "soft-float", "double-float", "soft-float", "double-float"
    };
    uint32_t type = flags & 0xff, abi = (flags & 0xff00) >> 8;
    const char *t = type < sizeof types / sizeof *types ? types[type] : "unknown";
    if (abi == 0)
        snprintf(buf, size, "%s", t);
    else if (abi < sizeof abis / sizeof *abis)
        snprintf(buf, size, "%s,%s", t, abis[abi]);
    else
        snprintf(buf, size, "%s,%u", t, (unsigned)(flags & 0xff00));
    return buf;
}

const struct gd_ldcache_entry *gd_ldcache_lookup(const struct gd_ldcache *c, const char *name,
                                                 uint32_t wanted, const char *hwcaps)
{
    if (!c || c->count == 0)
        return NULL;
    for (uint32_t at = *slot_for(c, name); at; at = c->next[at - 1]) {
        const struct gd_ldcache_entry *e = &c->entries[at - 1];
        bool subdir = hwcaps ? e->hwcaps && strcmp(e->hwcaps, hwcaps) == 0 : !e->hwcaps;
        if (subdir && gd_ldcache_flags_match(e->flags, wanted))
            return e;
    }
    return NULL;
}

const struct gd_ldcache_entry *gd_ldcache_lookup_best(const struct gd_ldcache *c, const char *name,
                                                      uint32_t wanted, const char *const *hwcaps,
                                                      size_t nhwcaps)
{
    if (!c || c->count == 0)
        return NULL;
    /* One walk of the name's chain, in file order: an entry beats the best so far only with a
     * better rank (a subdirectory earlier in `hwcaps`; the plain entry ranks last), so each
     * rank keeps its first entry, as a lookup per subdirectory would. */
    const struct gd_ldcache_entry *best = NULL;
    size_t best_rank = nhwcaps + 1;
    for (uint32_t at = *slot_for(c, name); at && best_rank > 0; at = c->next[at - 1]) {
        const struct gd_ldcache_entry *e = &c->entries[at - 1];
        if (!gd_ldcache_flags_match(e->flags, wanted))
            continue;
        size_t rank = nhwcaps;
        if (e->hwcaps) {
            for (rank = 0; rank < nhwcaps && strcmp(e->hwcaps, hwcaps[rank]) != 0; rank++)
                ;
            if (rank == nhwcaps)
                continue; /* a subdirectory this CPU does not support */
        }
        if (rank < best_rank) {
            best = e;
            best_rank = rank;
        }
    }
    return best;
}
