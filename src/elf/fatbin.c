#include "elf/fatbin.h"

#include "core/alloc.h"

#include <stdint.h>
#include <string.h>

/* The layout below is described in docs/fatbin.md with its public sources; every field was
 * checked against the files nvcc 13.0 and 11.8 write and the libraries of CUDA 13.0. All
 * fields are little-endian whatever the host ELF. */
#define FATBIN_MAGIC      0xBA55ED50u
#define CONTAINER_HEADER  16 /* u32 magic, u16 version, u16 header size, u64 size of the entries */
#define CONTAINER_VERSION 1
/* Entry headers are 64 bytes and more (64 to 144 seen); only the first 48 are read: kind (u16 at
 * 0), header size (u32 at 4), payload size (u64 at 8), minor and major version (u16 at 24 and
 * 26), architecture (u32 at 28), flags (u64 at 40). */
#define ENTRY_HEADER_MIN 64
#define ENTRY_READ       48

enum { KIND_PTX = 1, KIND_ELF = 2, KIND_LTO = 8 };

/* Entry flags: compression (0x2000 written by CUDA 11-12, 0x8000 by CUDA 13, whose payloads
 * start with a zstd frame) and the arch-specific (sm_90a) and family-specific (sm_100f) targets,
 * found by building each target with nvcc 13.0. */
#define FLAG_COMPRESSED    0xA000u
#define FLAG_ARCH_SPECIFIC 0x100000u
#define FLAG_FAMILY        0x200000u

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

struct walk {
    struct gd_elf_pager *pager;
    struct gd_fatbin *out;
    size_t cap; /* of out->archs */
};

/* Sorted by sm, then SASS before PTX: the order a reader of the list expects, and a binary
 * search keeps each entry's cost logarithmic in the (capped) number of architectures. */
static int cmp_key(unsigned sm, bool ptx, const struct gd_fatbin_arch *a)
{
    if (sm != a->sm)
        return sm < a->sm ? -1 : 1;
    return (int)ptx - (int)a->ptx;
}

static size_t lower_bound(const struct gd_fatbin *f, unsigned sm, bool ptx)
{
    size_t lo = 0, hi = f->narchs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_key(sm, ptx, &f->archs[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static enum gd_status add_arch(struct walk *w, unsigned sm, bool ptx, unsigned variant,
                               unsigned major, unsigned minor)
{
    struct gd_fatbin *f = w->out;
    size_t i = lower_bound(f, sm, ptx);
    if (i == f->narchs || cmp_key(sm, ptx, &f->archs[i]) != 0) {
        if (f->narchs == GD_FATBIN_MAX_ARCHS)
            return GD_ELIMIT;
        if (gd_grow((void **)&f->archs, &w->cap, f->narchs + 1, sizeof *f->archs) != 0)
            return GD_ENOMEM;
        memmove(&f->archs[i + 1], &f->archs[i], (f->narchs - i) * sizeof *f->archs);
        f->archs[i] = (struct gd_fatbin_arch){ .sm = sm, .ptx = ptx };
        f->narchs++;
    }
    struct gd_fatbin_arch *a = &f->archs[i];
    a->count++;
    a->variants |= variant;
    if (major > a->version_major || (major == a->version_major && minor > a->version_minor)) {
        a->version_major = major;
        a->version_minor = minor;
    }
    return GD_OK;
}

static enum gd_status add_entry(struct walk *w, const unsigned char *h)
{
    struct gd_fatbin *f = w->out;
    if (f->entries == GD_FATBIN_MAX_ENTRIES)
        return GD_ELIMIT;
    unsigned kind = (unsigned)le(h, 2);
    uint64_t flags = le(h + 40, 8);
    enum gd_status st = GD_OK;
    if (kind == KIND_PTX || kind == KIND_ELF) {
        unsigned variant = 0;
        if (flags & FLAG_ARCH_SPECIFIC)
            variant |= GD_FATBIN_ARCH_SPECIFIC;
        if (flags & FLAG_FAMILY)
            variant |= GD_FATBIN_FAMILY;
        st = add_arch(w, (unsigned)le(h + 28, 4), kind == KIND_PTX,
                      variant ? variant : GD_FATBIN_PLAIN, (unsigned)le(h + 26, 2),
                      (unsigned)le(h + 24, 2));
    } else if (kind == KIND_LTO) {
        f->lto_entries++;
    } else {
        f->unknown_entries++;
    }
    if (st != GD_OK)
        return st;
    f->entries++;
    if (flags & FLAG_COMPRESSED)
        f->compressed = true;
    return GD_OK;
}

/* The entries of one container, [at, end) of the source: each header read, its payload skipped.
 * Every step moves at least ENTRY_HEADER_MIN bytes forward, so the loop ends. */
static enum gd_status walk_entries(struct walk *w, uint64_t at, uint64_t end)
{
    while (at < end) {
        unsigned char h[ENTRY_READ];
        if (end - at < ENTRY_HEADER_MIN)
            return GD_EFORMAT; /* the container ends inside an entry header */
        enum gd_status st = gd_elf_pager_read(w->pager, at, h, sizeof h);
        if (st != GD_OK)
            return st;
        uint64_t header = le(h + 4, 4), payload = le(h + 8, 8);
        if (header < ENTRY_HEADER_MIN)
            return GD_EFORMAT;
        if (header > end - at || payload > end - at - header)
            return GD_EFORMAT; /* the entry runs past its container */
        if ((st = add_entry(w, h)) != GD_OK)
            return st;
        at += header + payload;
    }
    return GD_OK;
}

static bool all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* The containers of one section, [start, start + size) of the source, back to back. */
static enum gd_status walk_section(struct walk *w, uint64_t start, uint64_t size)
{
    uint64_t at = 0, padding = 0;
    while (size - at >= CONTAINER_HEADER) {
        unsigned char h[CONTAINER_HEADER];
        enum gd_status st = gd_elf_pager_read(w->pager, start + at, h, sizeof h);
        if (st != GD_OK)
            return st;
        if (all_zero(h, 8)) {
            /* Alignment padding, as a linker may put between the .nv_fatbin of two objects. */
            padding += 8;
            if (padding > GD_FATBIN_MAX_PADDING)
                return GD_EFORMAT;
            at += 8;
            continue;
        }
        padding = 0;
        uint64_t header = le(h + 6, 2), body = le(h + 8, 8);
        if (le(h, 4) != FATBIN_MAGIC || le(h + 4, 2) != CONTAINER_VERSION ||
            header < CONTAINER_HEADER)
            return GD_EFORMAT;
        if (header > size - at || body > size - at - header)
            return GD_ETRUNCATED; /* the container runs past its section */
        if (w->out->containers == GD_FATBIN_MAX_CONTAINERS)
            return GD_ELIMIT;
        w->out->containers++;
        if ((st = walk_entries(w, start + at + header, start + at + header + body)) != GD_OK)
            return st;
        at += header + body;
        /* Containers start 8-aligned in a section (its alignment): skip what rounds up to it. */
        uint64_t pad = (8 - at % 8) % 8;
        at = pad <= size - at ? at + pad : size;
    }
    return GD_OK;
}

struct range {
    uint64_t offset, size;
};

/* Walk the ranges in order. An error (or a cap) before any entry was read is the result; a later
 * one keeps what was read and marks it partial. */
static enum gd_status walk_ranges(const struct gd_elf_source *src, const struct range *ranges,
                                  size_t n, enum gd_status *range_status, struct gd_fatbin *out)
{
    memset(out, 0, sizeof *out);
    struct walk w = { NULL, out, 0 };
    enum gd_status st = gd_elf_pager_new(src, &w.pager);
    for (size_t i = 0; st == GD_OK && i < n; i++) {
        st = range_status && range_status[i] != GD_OK
                 ? range_status[i]
                 : walk_section(&w, ranges[i].offset, ranges[i].size);
    }
    if (w.pager)
        out->page_reads = gd_elf_pager_page_reads(w.pager);
    gd_elf_pager_free(w.pager);
    bool input = st == GD_EFORMAT || st == GD_ETRUNCATED || st == GD_ELIMIT;
    if (input && out->entries > 0) {
        out->partial = true;
        st = GD_OK;
    }
    if (st != GD_OK) {
        unsigned reads = out->page_reads;
        gd_fatbin_free(out);
        out->page_reads = reads;
    }
    return st;
}

enum gd_status gd_fatbin_read_source(const struct gd_elf_source *src, uint64_t offset,
                                     uint64_t size, struct gd_fatbin *out)
{
    struct range r = { offset, size };
    enum gd_status bounds = size <= src->size && offset <= src->size - size ? GD_OK : GD_ETRUNCATED;
    return walk_ranges(src, &r, 1, &bounds, out);
}

enum gd_status gd_fatbin_parse(const void *data, size_t len, struct gd_fatbin *out)
{
    struct gd_elf_memory m = { data, len };
    struct gd_elf_source src = gd_elf_source_memory(&m);
    return gd_fatbin_read_source(&src, 0, len, out);
}

/* SHT_NOBITS: a section that occupies no bytes of the file (gABI). */
#define SHT_NOBITS 8

static size_t count_named(const struct gd_elf *elf, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < elf->nsections; i++)
        if (elf->sections[i].type != SHT_NOBITS && strcmp(elf->sections[i].name, name) == 0)
            n++;
    return n;
}

enum gd_status gd_fatbin_read_file(struct gd_os_file *f, const struct gd_elf *elf,
                                   struct gd_fatbin *out)
{
    memset(out, 0, sizeof *out);
    if (elf->nsections == 0 && elf->sections_status != GD_OK)
        return elf->sections_status;
    /* nvcc's and clang's name for the fatbin of a linked object, then the one for relocatable
     * device code (clang/lib/CodeGen/CGCUDANV.cpp); cuobjdump reads the second only when the
     * first is absent. */
    const char *name = ".nv_fatbin";
    size_t n = count_named(elf, name);
    bool relocatable = false;
    if (n == 0) {
        name = "__nv_relfatbin";
        n = count_named(elf, name);
        relocatable = true;
    }
    if (n == 0)
        return GD_ENOENT;
    struct range *ranges = gd_calloc(n, sizeof *ranges);
    enum gd_status *status = gd_calloc(n, sizeof *status);
    enum gd_status st = ranges && status ? GD_OK : GD_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; st == GD_OK && i < elf->nsections; i++) {
        const struct gd_elf_section *s = &elf->sections[i];
        if (s->type == SHT_NOBITS || strcmp(s->name, name) != 0)
            continue;
        ranges[k] = (struct range){ s->offset, s->size };
        /* A section past the end of the file: the file was cut short. */
        status[k] = s->size <= elf->file_size && s->offset <= elf->file_size - s->size
                        ? GD_OK
                        : GD_ETRUNCATED;
        k++;
    }
    if (st == GD_OK) {
        struct gd_elf_source src = gd_elf_source_file(f, elf->file_size);
        st = walk_ranges(&src, ranges, n, status, out);
        out->relocatable = st == GD_OK && relocatable;
    }
    gd_free(ranges);
    gd_free(status);
    return st;
}

const struct gd_fatbin_arch *gd_fatbin_find(const struct gd_fatbin *f, unsigned sm, bool ptx)
{
    size_t i = lower_bound(f, sm, ptx);
    return i < f->narchs && cmp_key(sm, ptx, &f->archs[i]) == 0 ? &f->archs[i] : NULL;
}

void gd_fatbin_free(struct gd_fatbin *f)
{
    if (!f)
        return;
    gd_free(f->archs);
    memset(f, 0, sizeof *f);
}
