#include "elf/elf.h"

#include "core/alloc.h"
#include "core/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ELF constants (System V gABI); spelled out here so the reader needs no <elf.h>. */
enum {
    PT_LOAD = 1,
    PT_DYNAMIC = 2,
    PT_INTERP = 3,
    PT_NOTE = 4,
    DT_NULL = 0,
    DT_NEEDED = 1,
    DT_STRTAB = 5,
    DT_STRSZ = 10,
    DT_SONAME = 14,
    DT_RPATH = 15,
    DT_RUNPATH = 29,
    DT_FLAGS = 30,
    PN_XNUM = 0xffff,
    SHN_XINDEX = 0xffff,
    NT_GNU_ABI_TAG = 1,
    NT_GNU_BUILD_ID = 3,
};
#define DT_FLAGS_1 0x6ffffffbULL
/* Notes are at most this many bytes in all (build ids, ABI tags, properties are tiny). */
#define NOTES_MAX   (64 * 1024)
#define CACHE_PAGES 8

struct page {
    uint64_t index;
    size_t len;
    bool valid;
    unsigned char data[GD_ELF_PAGE];
};

struct gd_elf_pages {
    struct page page[CACHE_PAGES];
};

struct reader {
    const struct gd_elf_source *src;
    struct page *pages; /* CACHE_PAGES of them */
    unsigned next;      /* round-robin victim */
    unsigned page_reads;
    bool be;
    int cls;
};

/* True when [offset, offset + n) lies inside the data, without overflowing. */
static bool in_bounds(const struct reader *r, uint64_t offset, uint64_t n)
{
    return n <= r->src->size && offset <= r->src->size - n;
}

static enum gd_status load_page(struct reader *r, uint64_t index, struct page **out)
{
    for (unsigned i = 0; i < CACHE_PAGES; i++) {
        if (r->pages[i].valid && r->pages[i].index == index) {
            *out = &r->pages[i];
            return GD_OK;
        }
    }
    struct page *p = &r->pages[r->next];
    r->next = (r->next + 1) % CACHE_PAGES;
    p->valid = false;
    size_t got = 0;
    enum gd_status st = r->src->read(r->src->ctx, p->data, GD_ELF_PAGE, index * GD_ELF_PAGE, &got);
    if (st != GD_OK)
        return st;
    r->page_reads++;
    p->index = index;
    p->len = got;
    p->valid = true;
    *out = p;
    return GD_OK;
}

/* Copy exactly `n` bytes at `offset`, or fail with GD_ETRUNCATED. */
static enum gd_status read_at(struct reader *r, uint64_t offset, void *buf, size_t n)
{
    if (!in_bounds(r, offset, n))
        return GD_ETRUNCATED;
    unsigned char *out = buf;
    while (n) {
        struct page *p;
        enum gd_status st = load_page(r, offset / GD_ELF_PAGE, &p);
        if (st != GD_OK)
            return st;
        size_t at = (size_t)(offset % GD_ELF_PAGE);
        if (at >= p->len)
            return GD_ETRUNCATED; /* the source ended before its announced size */
        size_t take = p->len - at < n ? p->len - at : n;
        memcpy(out, p->data + at, take);
        out += take;
        offset += take;
        n -= take;
    }
    return GD_OK;
}

static inline uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t lo = (uint64_t)p[0] | (uint64_t)p[1] << 8;
    if (bytes == 2)
        return lo;
    lo |= (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    if (bytes == 4)
        return lo;
    return lo | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static inline uint64_t be(const unsigned char *p, int bytes)
{
    if (bytes == 2)
        return (uint64_t)p[0] << 8 | p[1];
    uint64_t hi = (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];
    if (bytes == 4)
        return hi;
    return hi << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 | (uint64_t)p[6] << 8 | p[7];
}

/* `bytes` is a constant at every call site once inlined, so each loop unrolls into a load. */
static inline uint64_t get(const struct reader *r, const unsigned char *p, int bytes)
{
    return r->be ? be(p, bytes) : le(p, bytes);
}

/* A word: 4 bytes in ELF32, 8 in ELF64 (addresses, offsets, sizes, dynamic values). */
static int word(const struct reader *r)
{
    return r->cls == 64 ? 8 : 4;
}

/* A NUL-terminated string at `offset`, no longer than `max` bytes (NUL excluded), new memory.
 * GD_EFORMAT when no NUL comes within `max` or the end of the data. */
/* Append the NUL-terminated string at `offset` (at most `max` bytes, its NUL included) and its
 * NUL to `b`, straight from the cached pages. */
static enum gd_status append_string(struct reader *r, uint64_t offset, uint64_t max,
                                    struct gd_buf *b)
{
    if (max > GD_ELF_MAX_STRING)
        max = GD_ELF_MAX_STRING;
    if (offset >= r->src->size)
        return GD_ETRUNCATED;
    if (max > r->src->size - offset)
        max = r->src->size - offset;
    while (max) {
        struct page *p;
        enum gd_status st = load_page(r, offset / GD_ELF_PAGE, &p);
        if (st != GD_OK)
            return st;
        size_t at = (size_t)(offset % GD_ELF_PAGE);
        if (at >= p->len)
            return GD_ETRUNCATED; /* the source ended before its announced size */
        size_t want = p->len - at < max ? p->len - at : (size_t)max;
        const unsigned char *nul = memchr(p->data + at, '\0', want);
        size_t take = nul ? (size_t)(nul - (p->data + at)) + 1 : want;
        gd_buf_add(b, p->data + at, take);
        if (b->status != GD_OK)
            return b->status;
        if (nul)
            return GD_OK;
        offset += take;
        max -= take;
    }
    return GD_EFORMAT; /* no NUL within the bound */
}

static enum gd_status read_string(struct reader *r, uint64_t offset, uint64_t max, char **out)
{
    *out = NULL;
    struct gd_buf b;
    gd_buf_init(&b, SIZE_MAX);
    enum gd_status st = append_string(r, offset, max, &b);
    if (st == GD_OK)
        st = gd_buf_take(&b, out, NULL);
    gd_buf_free(&b);
    return st;
}

struct segment {
    uint32_t type;
    uint64_t offset, vaddr, filesz, align;
};

struct header {
    uint64_t phoff, shoff;
    uint32_t phentsize, phnum, shentsize, shnum, shstrndx;
};

static enum gd_status read_header(struct reader *r, struct gd_elf *elf, struct header *h)
{
    unsigned char b[64];
    enum gd_status st = read_at(r, 0, b, 16);
    if (st != GD_OK)
        return st == GD_ETRUNCATED ? GD_EFORMAT : st;
    if (b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F')
        return GD_EFORMAT;
    if ((b[4] != 1 && b[4] != 2) || (b[5] != 1 && b[5] != 2) || b[6] != 1)
        return GD_EFORMAT;
    r->cls = elf->elf_class = b[4] == 2 ? 64 : 32;
    r->be = elf->big_endian = b[5] == 2;
    elf->osabi = b[7];
    size_t size = r->cls == 64 ? 64 : 52;
    if ((st = read_at(r, 0, b, size)) != GD_OK)
        return st;
    elf->type = (uint16_t)get(r, b + 16, 2);
    elf->machine = (uint16_t)get(r, b + 18, 2);
    const unsigned char *p = b + (r->cls == 64 ? 32 : 28);
    int w = word(r);
    h->phoff = get(r, p, w);
    h->shoff = get(r, p + w, w);
    p += 2 * w + 4 + 2; /* e_flags, e_ehsize */
    h->phentsize = (uint32_t)get(r, p, 2);
    h->phnum = (uint32_t)get(r, p + 2, 2);
    h->shentsize = (uint32_t)get(r, p + 4, 2);
    h->shnum = (uint32_t)get(r, p + 6, 2);
    h->shstrndx = (uint32_t)get(r, p + 8, 2);
    return GD_OK;
}

/* Section 0 carries the real counts when they overflow the header's 16-bit fields. */
static enum gd_status extended_counts(struct reader *r, struct header *h)
{
    if (h->shoff == 0 || (h->phnum != PN_XNUM && h->shnum != 0 && h->shstrndx != SHN_XINDEX))
        return GD_OK;
    size_t min = r->cls == 64 ? 64 : 40;
    if (h->shentsize < min)
        return h->shnum == 0 && h->phnum != PN_XNUM ? GD_OK : GD_EFORMAT;
    unsigned char s[64];
    enum gd_status st = read_at(r, h->shoff, s, min);
    if (st != GD_OK)
        return st;
    int w = word(r);
    uint64_t size = get(r, s + (r->cls == 64 ? 32 : 20), w);
    uint32_t link = (uint32_t)get(r, s + (r->cls == 64 ? 40 : 24), 4);
    uint32_t info = (uint32_t)get(r, s + (r->cls == 64 ? 44 : 28), 4);
    if (h->shnum == 0)
        h->shnum = size > GD_ELF_MAX_SHDRS ? GD_ELF_MAX_SHDRS + 1 : (uint32_t)size;
    if (h->phnum == PN_XNUM)
        h->phnum = info;
    if (h->shstrndx == SHN_XINDEX)
        h->shstrndx = link;
    return GD_OK;
}

static enum gd_status read_segments(struct reader *r, const struct header *h, struct segment **out,
                                    size_t *count)
{
    *out = NULL;
    *count = 0;
    if (h->phnum == 0)
        return GD_OK;
    if (h->phnum > GD_ELF_MAX_PHDRS)
        return GD_ELIMIT;
    size_t min = r->cls == 64 ? 56 : 32;
    if (h->phentsize < min)
        return GD_EFORMAT;
    if ((uint64_t)h->phentsize * h->phnum > r->src->size ||
        !in_bounds(r, h->phoff, (uint64_t)h->phentsize * h->phnum))
        return GD_ETRUNCATED;
    struct segment *segs = gd_calloc(h->phnum, sizeof *segs);
    if (!segs)
        return GD_ENOMEM;
    /* In blocks of whole entries: one copy out of the page cache per block, not per entry. */
    unsigned char block[4096];
    size_t per = sizeof block / h->phentsize, have = 0, first = 0;
    for (uint32_t i = 0; i < h->phnum; i++) {
        if (i >= first + have) {
            first = i;
            have = h->phnum - i < per ? h->phnum - i : per;
            enum gd_status st =
                read_at(r, h->phoff + (uint64_t)i * h->phentsize, block, have * h->phentsize);
            if (st != GD_OK) {
                gd_free(segs);
                return st;
            }
        }
        const unsigned char *b = block + (i - first) * h->phentsize;
        struct segment *s = &segs[i];
        s->type = (uint32_t)get(r, b, 4);
        if (r->cls == 64) {
            s->offset = get(r, b + 8, 8);
            s->vaddr = get(r, b + 16, 8);
            s->filesz = get(r, b + 32, 8);
            s->align = get(r, b + 48, 8);
        } else {
            s->offset = get(r, b + 4, 4);
            s->vaddr = get(r, b + 8, 4);
            s->filesz = get(r, b + 16, 4);
            s->align = get(r, b + 28, 4);
        }
    }
    *out = segs;
    *count = h->phnum;
    return GD_OK;
}

/* File offset of a virtual address, through the PT_LOAD segment that maps it. */
static bool vaddr_to_offset(const struct segment *segs, size_t n, uint64_t vaddr, uint64_t *off,
                            uint64_t *avail)
{
    for (size_t i = 0; i < n; i++) {
        const struct segment *s = &segs[i];
        if (s->type != PT_LOAD || vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz)
            continue;
        /* A segment whose file range wraps around maps nothing: an offset into it plus a
         * string index could wrap to the start of the file. */
        if (s->filesz > UINT64_MAX - s->offset)
            return false;
        *off = s->offset + (vaddr - s->vaddr);
        *avail = s->filesz - (vaddr - s->vaddr);
        return true;
    }
    return false;
}

struct dyn {
    uint64_t strtab, strsz;
    bool have_strtab, have_strsz;
    uint64_t soname, rpath, runpath;
    bool have_soname, have_rpath, have_runpath;
    uint64_t *needed;
    size_t nneeded, cap;
};

static enum gd_status read_dynamic(struct reader *r, struct gd_elf *elf, const struct segment *d,
                                   struct dyn *out)
{
    size_t entsize = r->cls == 64 ? 16 : 8;
    uint64_t n = d->filesz / entsize;
    if (n > GD_ELF_MAX_DYN)
        return GD_ELIMIT;
    if (!in_bounds(r, d->offset, n * entsize))
        return GD_ETRUNCATED;
    int w = word(r);
    unsigned char block[4096];
    uint64_t per = sizeof block / entsize, have = 0, first = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i >= first + have) {
            first = i;
            have = n - i < per ? n - i : per;
            enum gd_status st =
                read_at(r, d->offset + i * entsize, block, (size_t)(have * entsize));
            if (st != GD_OK)
                return st;
        }
        const unsigned char *b = block + (i - first) * entsize;
        /* Constant widths in each branch, so the decoding unrolls. */
        uint64_t tag, val;
        if (w == 8) {
            tag = get(r, b, 8);
            val = get(r, b + 8, 8);
        } else {
            tag = get(r, b, 4);
            val = get(r, b + 4, 4);
        }
        if (tag == DT_NULL)
            break;
        switch (tag) {
        case DT_NEEDED:
            if (out->nneeded == GD_ELF_MAX_NEEDED)
                return GD_ELIMIT;
            if (gd_grow((void **)&out->needed, &out->cap, out->nneeded + 1, sizeof *out->needed))
                return GD_ENOMEM;
            out->needed[out->nneeded++] = val;
            break;
        case DT_STRTAB:
            out->strtab = val;
            out->have_strtab = true;
            break;
        case DT_STRSZ:
            out->strsz = val;
            out->have_strsz = true;
            break;
        case DT_SONAME:
            out->soname = val;
            out->have_soname = true;
            break;
        case DT_RPATH:
            out->rpath = val;
            out->have_rpath = true;
            break;
        case DT_RUNPATH:
            out->runpath = val;
            out->have_runpath = true;
            break;
        case DT_FLAGS:
            elf->flags = val;
            break;
        case DT_FLAGS_1:
            elf->flags_1 = val;
            break;
        default:
            break;
        }
    }
    return GD_OK;
}

/* Append a string of the dynamic string table, bounded by DT_STRSZ and the segment mapping it,
 * to `b`; `*at` is where it starts there. */
static enum gd_status dyn_string(struct reader *r, uint64_t stroff, uint64_t strmax, uint64_t index,
                                 struct gd_buf *b, uint64_t *at)
{
    if (index >= strmax)
        return GD_EFORMAT;
    *at = b->len;
    return append_string(r, stroff + index, strmax - index, b);
}

/* SONAME, RPATH, RUNPATH and the NEEDED names, all in one block (elf->dynstrings): a loader
 * reads hundreds of objects and frees them all, one allocation each is the cheap way. */
static enum gd_status read_dynamic_strings(struct reader *r, struct gd_elf *elf,
                                           const struct segment *segs, size_t nsegs, struct dyn *d)
{
    if (!d->have_strtab)
        return d->nneeded || d->have_soname || d->have_rpath || d->have_runpath ? GD_EFORMAT
                                                                                : GD_OK;
    uint64_t stroff, avail;
    if (!vaddr_to_offset(segs, nsegs, d->strtab, &stroff, &avail))
        return GD_EFORMAT;
    uint64_t strmax = d->have_strsz && d->strsz < avail ? d->strsz : avail;
    struct gd_buf b;
    gd_buf_init(&b, SIZE_MAX);
    enum gd_status st = GD_OK;
    if (d->have_soname)
        st = dyn_string(r, stroff, strmax, d->soname, &b, &d->soname);
    if (st == GD_OK && d->have_rpath)
        st = dyn_string(r, stroff, strmax, d->rpath, &b, &d->rpath);
    if (st == GD_OK && d->have_runpath)
        st = dyn_string(r, stroff, strmax, d->runpath, &b, &d->runpath);
    for (size_t i = 0; i < d->nneeded && st == GD_OK; i++)
        st = dyn_string(r, stroff, strmax, d->needed[i], &b, &d->needed[i]);
    if (st == GD_OK && d->nneeded) {
        elf->needed = gd_calloc(d->nneeded, sizeof *elf->needed);
        if (!elf->needed)
            st = GD_ENOMEM;
    }
    if (st == GD_OK && b.len)
        st = gd_buf_take(&b, &elf->dynstrings, &elf->dynstrings_len);
    gd_buf_free(&b);
    if (st != GD_OK)
        return st;
    /* Pointers only now: the block moved while it grew. */
    char *base = elf->dynstrings;
    elf->soname = d->have_soname ? base + d->soname : NULL;
    elf->rpath = d->have_rpath ? base + d->rpath : NULL;
    elf->runpath = d->have_runpath ? base + d->runpath : NULL;
    for (size_t i = 0; i < d->nneeded; i++)
        elf->needed[i] = base + d->needed[i];
    elf->nneeded = d->nneeded;
    return GD_OK;
}

static void hex(const unsigned char *p, size_t n, char *out, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < n && o + 2 < size; i++) {
        out[o++] = digits[p[i] >> 4];
        out[o++] = digits[p[i] & 15];
    }
    out[o] = '\0';
}

static void parse_notes(const struct reader *r, struct gd_elf *elf, const unsigned char *b,
                        size_t n, uint64_t align)
{
    uint64_t a = align == 8 ? 8 : 4;
    size_t at = 0;
    while (n - at >= 12) {
        uint64_t namesz = get(r, b + at, 4), descsz = get(r, b + at + 4, 4);
        uint32_t type = (uint32_t)get(r, b + at + 8, 4);
        /* The descriptor and the next note start at alignment boundaries counted from the
         * note's start (glibc's ELF_NOTE_DESC_OFFSET and ELF_NOTE_NEXT_OFFSET): in an 8-aligned
         * segment "GNU\0" after the 12-byte header ends at 16, where the descriptor starts. */
        uint64_t desc_off = (12 + namesz + a - 1) / a * a;
        if (desc_off > n - at || descsz > n - at - desc_off)
            return;
        uint64_t next = (desc_off + descsz + a - 1) / a * a;
        const unsigned char *name = b + at + 12, *desc = b + at + desc_off;
        bool gnu = namesz == 4 && memcmp(name, "GNU", 4) == 0;
        if (gnu && type == NT_GNU_BUILD_ID && descsz <= 64)
            hex(desc, (size_t)descsz, elf->build_id, sizeof elf->build_id);
        if (gnu && type == NT_GNU_ABI_TAG && descsz >= 16) {
            static const char *const os[] = { "Linux", "GNU", "Solaris", "FreeBSD" };
            uint32_t id = (uint32_t)get(r, desc, 4);
            snprintf(elf->abi_tag, sizeof elf->abi_tag, "%s %u.%u.%u", id < 4 ? os[id] : "OS",
                     (unsigned)get(r, desc + 4, 4), (unsigned)get(r, desc + 8, 4),
                     (unsigned)get(r, desc + 12, 4));
        }
        if (next > n - at)
            return;
        at += (size_t)next;
    }
}

static enum gd_status read_notes(struct reader *r, struct gd_elf *elf, const struct segment *segs,
                                 size_t nsegs)
{
    size_t total = 0;
    for (size_t i = 0; i < nsegs; i++) {
        const struct segment *s = &segs[i];
        if (s->type != PT_NOTE || s->filesz == 0)
            continue;
        if (s->filesz > NOTES_MAX - total)
            return GD_OK; /* notes are a nicety: beyond the cap they are skipped, not fatal */
        if (!in_bounds(r, s->offset, s->filesz))
            continue;
        unsigned char *b = gd_malloc((size_t)s->filesz);
        if (!b)
            return GD_ENOMEM;
        enum gd_status st = read_at(r, s->offset, b, (size_t)s->filesz);
        if (st == GD_OK)
            parse_notes(r, elf, b, (size_t)s->filesz, s->align);
        gd_free(b);
        if (st != GD_OK && st != GD_ETRUNCATED)
            return st;
        total += (size_t)s->filesz;
    }
    return GD_OK;
}

struct name_ref {
    uint32_t offset, section;
};

static int by_offset(const void *a, const void *b)
{
    const struct name_ref *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Name the sections from one copy of the section name table: every name points into it, so a
 * hostile file whose 65536 sections each name a 64 KiB string costs the table once, not 4 GB.
 * A name that does not end (NUL) within the table and GD_ELF_MAX_STRING is "". The ends are
 * found in offset order, each byte scanned once, so the work is linear too. A missing or
 * broken table leaves every name "". */
static enum gd_status section_names(struct reader *r, struct gd_elf *elf, const struct header *h,
                                    const uint32_t *names)
{
    for (size_t i = 0; i < elf->nsections; i++)
        elf->sections[i].name = "";
    const struct gd_elf_section *table =
        h->shstrndx < elf->nsections ? &elf->sections[h->shstrndx] : NULL;
    if (!table || table->size == 0 || !in_bounds(r, table->offset, table->size))
        return GD_OK;
    size_t len = table->size < GD_ELF_MAX_SHSTRTAB ? (size_t)table->size : GD_ELF_MAX_SHSTRTAB;
    struct name_ref *refs = gd_calloc(elf->nsections, sizeof *refs);
    elf->shstrings = gd_malloc(len + 1);
    if (!refs || !elf->shstrings) {
        gd_free(refs);
        return GD_ENOMEM;
    }
    elf->shstrings_len = len + 1;
    enum gd_status st = read_at(r, table->offset, elf->shstrings, len);
    if (st != GD_OK) {
        gd_free(refs);
        return st == GD_ENOMEM ? st : GD_OK;
    }
    elf->shstrings[len] = '\0';
    for (size_t i = 0; i < elf->nsections; i++)
        refs[i] = (struct name_ref){ names[i], (uint32_t)i };
    qsort(refs, elf->nsections, sizeof *refs, by_offset);
    size_t nul = 0; /* the first NUL at or after the last offset looked at, or len: none */
    bool have = false;
    for (size_t k = 0; k < elf->nsections; k++) {
        size_t off = refs[k].offset;
        if (off >= len)
            break; /* sorted: the rest are out of the table too */
        if (!have || off > nul) {
            const char *end = memchr(elf->shstrings + off, '\0', len - off);
            nul = end ? (size_t)(end - elf->shstrings) : len;
            have = true;
        }
        if (nul < len && nul - off < GD_ELF_MAX_STRING)
            elf->sections[refs[k].section].name = elf->shstrings + off;
    }
    gd_free(refs);
    return GD_OK;
}

static enum gd_status read_sections(struct reader *r, struct gd_elf *elf, const struct header *h)
{
    if (h->shoff == 0 || h->shnum == 0)
        return GD_OK;
    if (h->shnum > GD_ELF_MAX_SHDRS)
        return GD_ELIMIT;
    size_t min = r->cls == 64 ? 64 : 40;
    if (h->shentsize < min)
        return GD_EFORMAT;
    if ((uint64_t)h->shentsize * h->shnum > r->src->size ||
        !in_bounds(r, h->shoff, (uint64_t)h->shentsize * h->shnum))
        return GD_ETRUNCATED;
    elf->sections = gd_calloc(h->shnum, sizeof *elf->sections);
    uint32_t *names = gd_calloc(h->shnum, sizeof *names);
    if (!elf->sections || !names) {
        gd_free(names);
        return GD_ENOMEM;
    }
    int w = word(r);
    enum gd_status st = GD_OK;
    for (uint32_t i = 0; i < h->shnum && st == GD_OK; i++) {
        unsigned char b[64];
        st = read_at(r, h->shoff + (uint64_t)i * h->shentsize, b, min);
        if (st != GD_OK)
            break;
        struct gd_elf_section *s = &elf->sections[i];
        names[i] = (uint32_t)get(r, b, 4);
        s->type = (uint32_t)get(r, b + 4, 4);
        s->flags = get(r, b + 8, w);
        s->addr = get(r, b + 8 + w, w);
        s->offset = get(r, b + 8 + 2 * w, w);
        s->size = get(r, b + 8 + 3 * w, w);
        elf->nsections++;
    }
    if (st == GD_OK)
        st = section_names(r, elf, h, names);
    gd_free(names);
    return st;
}

enum gd_status gd_elf_read(const struct gd_elf_source *src, struct gd_elf **out)
{
    return gd_elf_read_ex(src, GD_ELF_ALL, NULL, out);
}

struct gd_elf_pages *gd_elf_pages_new(void)
{
    /* Not calloc: zeroing 32 KiB per file was a fifth of the work of a dependency tree; each
     * read marks the pages invalid itself. */
    return gd_malloc(sizeof(struct gd_elf_pages));
}

void gd_elf_pages_free(struct gd_elf_pages *pages)
{
    gd_free(pages);
}

enum gd_status gd_elf_read_ex(const struct gd_elf_source *src, unsigned what,
                              struct gd_elf_pages *pages, struct gd_elf **out)
{
    *out = NULL;
    struct gd_elf_pages *own = pages ? NULL : gd_elf_pages_new();
    struct reader reader = { src, pages ? pages->page : own ? own->page : NULL, 0, 0, false, 0 };
    struct reader *r = reader.pages ? &reader : NULL;
    for (unsigned i = 0; r && i < CACHE_PAGES; i++)
        r->pages[i].valid = false;
    struct gd_elf *elf = gd_calloc(1, sizeof *elf);
    struct segment *segs = NULL;
    size_t nsegs = 0;
    struct dyn d;
    memset(&d, 0, sizeof d);
    enum gd_status st = r && elf ? GD_OK : GD_ENOMEM;
    struct header h;
    if (st == GD_OK) {
        r->src = src;
        elf->file_size = src->size;
        st = read_header(r, elf, &h);
    }
    if (st == GD_OK)
        st = extended_counts(r, &h);
    if (st == GD_OK)
        st = read_segments(r, &h, &segs, &nsegs);
    for (size_t i = 0; st == GD_OK && i < nsegs; i++) {
        if (segs[i].type == PT_INTERP && !elf->interp) {
            if (!in_bounds(r, segs[i].offset, segs[i].filesz))
                st = GD_ETRUNCATED;
            else
                st = read_string(r, segs[i].offset, segs[i].filesz, &elf->interp);
        } else if (segs[i].type == PT_DYNAMIC && !elf->has_dynamic) {
            elf->has_dynamic = true;
            st = read_dynamic(r, elf, &segs[i], &d);
        }
    }
    if (st == GD_OK)
        st = read_dynamic_strings(r, elf, segs, nsegs, &d);
    if (st == GD_OK && !(what & GD_ELF_LOADER_ONLY))
        st = read_notes(r, elf, segs, nsegs);
    if (st == GD_OK && !(what & GD_ELF_LOADER_ONLY)) {
        /* glibc's loader reads the ELF and program headers only (open_verify,
         * _dl_map_object_from_fd): a file whose section header table is cut off or broken is
         * loaded all the same, so its sections are left out rather than the file refused. */
        enum gd_status ss = read_sections(r, elf, &h);
        if (ss == GD_ENOMEM) {
            st = ss;
        } else if (ss != GD_OK) {
            gd_free(elf->shstrings);
            elf->shstrings = NULL;
            gd_free(elf->sections);
            elf->sections = NULL;
            elf->nsections = 0;
            elf->sections_status = ss;
        }
    }
    if (elf && r)
        elf->page_reads = r->page_reads;
    gd_free(d.needed);
    gd_free(segs);
    gd_elf_pages_free(own);
    if (st != GD_OK) {
        gd_elf_free(elf);
        return st;
    }
    *out = elf;
    return GD_OK;
}

static enum gd_status file_read(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got)
{
    return gd_os_pread(ctx, buf, n, offset, got);
}

enum gd_status gd_elf_read_file_ex(struct gd_os_file *f, unsigned long long size, unsigned what,
                                   struct gd_elf_pages *pages, struct gd_elf **out)
{
    if (size == 0) {
        struct gd_os_stat st;
        enum gd_status s = gd_os_file_stat(f, &st);
        if (s != GD_OK) {
            *out = NULL;
            return s;
        }
        size = st.size;
    }
    struct gd_elf_source src = gd_elf_source_file(f, size);
    return gd_elf_read_ex(&src, what, pages, out);
}

enum gd_status gd_elf_read_file(struct gd_os_file *f, struct gd_elf **out)
{
    return gd_elf_read_file_ex(f, 0, GD_ELF_ALL, NULL, out);
}

struct gd_elf_source gd_elf_source_file(struct gd_os_file *f, unsigned long long size)
{
    struct gd_elf_source src = { file_read, f, size };
    return src;
}

static enum gd_status memory_read(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got)
{
    const struct gd_elf_memory *m = ctx;
    *got = 0;
    if (offset >= m->len)
        return GD_OK;
    size_t take = m->len - (size_t)offset < n ? m->len - (size_t)offset : n;
    memcpy(buf, (const unsigned char *)m->data + offset, take);
    *got = take;
    return GD_OK;
}

struct gd_elf_source gd_elf_source_memory(struct gd_elf_memory *m)
{
    struct gd_elf_source src = { memory_read, m, m->len };
    return src;
}

enum gd_status gd_elf_read_memory(const void *data, size_t len, struct gd_elf **out)
{
    struct gd_elf_memory m = { data, len };
    struct gd_elf_source src = gd_elf_source_memory(&m);
    return gd_elf_read(&src, out);
}

struct gd_elf_pager {
    struct gd_elf_source src; /* the reader points here: a copy, so the caller's may go */
    struct reader r;
    struct gd_elf_pages pages;
};

enum gd_status gd_elf_pager_new(const struct gd_elf_source *src, struct gd_elf_pager **out)
{
    *out = NULL;
    struct gd_elf_pager *p = gd_malloc(sizeof *p);
    if (!p)
        return GD_ENOMEM;
    p->src = *src;
    for (unsigned i = 0; i < CACHE_PAGES; i++)
        p->pages.page[i].valid = false;
    p->r = (struct reader){ &p->src, p->pages.page, 0, 0, false, 0 };
    *out = p;
    return GD_OK;
}

enum gd_status gd_elf_pager_read(struct gd_elf_pager *p, uint64_t offset, void *buf, size_t n)
{
    return read_at(&p->r, offset, buf, n);
}

unsigned gd_elf_pager_page_reads(const struct gd_elf_pager *p)
{
    return p->r.page_reads;
}

void gd_elf_pager_free(struct gd_elf_pager *p)
{
    gd_free(p);
}

void gd_elf_free(struct gd_elf *elf)
{
    if (!elf)
        return;
    gd_free(elf->interp);
    gd_free(elf->dynstrings);
    gd_free(elf->needed);
    gd_free(elf->shstrings);
    gd_free(elf->sections);
    gd_free(elf);
}

/* `p` moved from block `from` to block `to`, when it points into `from` (`n` bytes); else kept
 * (NULL, or a section's "" for a name the table does not hold). */
static const char *rebase(const char *p, const char *from, size_t n, const char *to)
{
    return p && from && p >= from && p < from + n ? to + (p - from) : p;
}

enum gd_status gd_elf_copy(const struct gd_elf *elf, struct gd_elf **out)
{
    *out = NULL;
    struct gd_elf *c = gd_malloc(sizeof *c);
    if (!c)
        return GD_ENOMEM;
    *c = *elf;
    c->interp = elf->interp ? gd_strdup(elf->interp) : NULL;
    c->dynstrings = elf->dynstrings ? gd_malloc(elf->dynstrings_len) : NULL;
    c->needed = elf->nneeded ? gd_calloc(elf->nneeded, sizeof *c->needed) : NULL;
    c->shstrings = elf->shstrings ? gd_malloc(elf->shstrings_len) : NULL;
    c->sections = elf->nsections ? gd_calloc(elf->nsections, sizeof *c->sections) : NULL;
    if ((elf->interp && !c->interp) || (elf->dynstrings && !c->dynstrings) ||
        (elf->nneeded && !c->needed) || (elf->shstrings && !c->shstrings) ||
        (elf->nsections && !c->sections)) {
        gd_elf_free(c);
        return GD_ENOMEM;
    }
    if (elf->dynstrings)
        memcpy(c->dynstrings, elf->dynstrings, elf->dynstrings_len);
    if (elf->shstrings)
        memcpy(c->shstrings, elf->shstrings, elf->shstrings_len);
    const char *ds = elf->dynstrings;
    size_t dn = elf->dynstrings_len;
    c->soname = rebase(elf->soname, ds, dn, c->dynstrings);
    c->rpath = rebase(elf->rpath, ds, dn, c->dynstrings);
    c->runpath = rebase(elf->runpath, ds, dn, c->dynstrings);
    for (size_t i = 0; i < elf->nneeded; i++)
        c->needed[i] = rebase(elf->needed[i], ds, dn, c->dynstrings);
    for (size_t i = 0; i < elf->nsections; i++) {
        c->sections[i] = elf->sections[i];
        c->sections[i].name =
            rebase(elf->sections[i].name, elf->shstrings, elf->shstrings_len, c->shstrings);
    }
    *out = c;
    return GD_OK;
}

const struct gd_elf_section *gd_elf_section(const struct gd_elf *elf, const char *name)
{
    for (size_t i = 0; i < elf->nsections; i++)
        if (elf->sections[i].name && strcmp(elf->sections[i].name, name) == 0)
            return &elf->sections[i];
    return NULL;
}

const char *gd_elf_machine_name(uint16_t machine, char *buf, size_t size)
{
    switch (machine) {
    case 3:
        return "i386";
    case 40:
        return "ARM";
    case 62:
        return "x86-64";
    case 183:
        return "AArch64";
    case 21:
        return "PowerPC64";
    case 22:
        return "S/390";
    case 243:
        return "RISC-V";
    default:
        snprintf(buf, size, "machine %u", (unsigned)machine);
        return buf;
    }
}

bool gd_elf_compatible(const struct gd_elf *a, const struct gd_elf *b)
{
    return a->elf_class == b->elf_class && a->big_endian == b->big_endian &&
           a->machine == b->machine;
}
