/*
 * A tiny ELF image builder for the tests: ELF32 or ELF64, either byte order, with program headers
 * (PT_LOAD mapping the whole image, PT_INTERP, PT_DYNAMIC, PT_NOTE), a dynamic section whose
 * string table is found through the PT_LOAD, GNU notes, and section headers with names.
 * eb_build() also says where each structure went, so a test can corrupt exactly one field.
 *
 * Include after <cmocka.h> (a failure to allocate aborts the test).
 */
#ifndef GD_TESTS_ELFBUILD_H
#define GD_TESTS_ELFBUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EB_ET_EXEC    2
#define EB_ET_DYN     3
#define EB_EM_386     3
#define EB_EM_PPC     20
#define EB_EM_PPC64   21
#define EB_EM_X86_64  62
#define EB_EM_AARCH64 183
#define EB_PT_LOAD    1
#define EB_PT_DYNAMIC 2
#define EB_PT_INTERP  3
#define EB_PT_NOTE    4

struct eb_spec {
    int cls; /* 32 or 64 */
    bool be; /* big endian */
    uint16_t type, machine;
    uint8_t osabi;
    const char *interp; /* PT_INTERP, or NULL */
    bool dynamic;       /* a PT_DYNAMIC (with DT_STRTAB and DT_STRSZ) */
    const char *soname, *rpath, *runpath;
    const char *needed[8];
    size_t needed_repeat;    /* > 0: needed[0] this many times instead of the list */
    uint64_t flags, flags_1; /* DT_FLAGS / DT_FLAGS_1 when non-zero */
    const unsigned char *build_id;
    size_t build_id_len;
    bool abi_tag; /* NT_GNU_ABI_TAG: abi[0] OS, abi[1..3] version */
    uint32_t abi[4];
    bool notes8;   /* the build id in an 8-aligned PT_NOTE, after an NT_GNU_PROPERTY_TYPE_0 */
    bool sections; /* section headers and .shstrtab */
    bool xnum; /* e_phnum = PN_XNUM, e_shnum = 0, e_shstrndx = SHN_XINDEX: counts in section 0 */
    uint64_t base; /* vaddr of the PT_LOAD that maps the file from offset 0 */
};

/* Where eb_build put things (byte offsets into the image). */
struct eb_layout {
    size_t ehsize, phoff, phentsize, phnum;
    size_t ph_load, ph_interp, ph_dynamic, ph_note, ph_note8; /* indices, SIZE_MAX when absent */
    size_t interp_off, interp_len;
    size_t dynstr_off, dynstr_size;
    size_t dyn_off, dyn_entsize, dyn_count; /* dyn_count includes DT_NULL */
    size_t soname_idx, rpath_idx, runpath_idx;
    size_t note_off, note_size, note8_off, note8_size;
    size_t shstr_off, shstr_size;
    size_t shoff, shentsize, shnum, shstrndx;
    size_t len;
};

struct eb_buf {
    unsigned char *p;
    size_t len, cap;
    bool be;
};

static inline void eb_reserve(struct eb_buf *b, size_t need)
{
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p)
        fail_msg("out of memory building an ELF image");
    memset(p + b->cap, 0, cap - b->cap);
    b->p = p;
    b->cap = cap;
}

/* Store `value` in `bytes` bytes at `off` in the image's byte order. */
static inline void eb_put_at(unsigned char *p, bool be, size_t off, int bytes, uint64_t value)
{
    for (int i = 0; i < bytes; i++) {
        int shift = be ? 8 * (bytes - 1 - i) : 8 * i;
        p[off + (size_t)i] = (unsigned char)(value >> shift);
    }
}

static inline void eb_put(struct eb_buf *b, size_t off, int bytes, uint64_t value)
{
    eb_reserve(b, off + (size_t)bytes);
    eb_put_at(b->p, b->be, off, bytes, value);
    if (off + (size_t)bytes > b->len)
        b->len = off + (size_t)bytes;
}

static inline uint64_t eb_get_at(const unsigned char *p, bool be, size_t off, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        int shift = be ? 8 * (bytes - 1 - i) : 8 * i;
        v |= (uint64_t)p[off + (size_t)i] << shift;
    }
    return v;
}

static inline size_t eb_add(struct eb_buf *b, const void *data, size_t n)
{
    size_t at = b->len;
    eb_reserve(b, b->len + n);
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return at;
}

static inline void eb_align(struct eb_buf *b, size_t a)
{
    size_t n = (b->len + a - 1) / a * a;
    eb_reserve(b, n);
    b->len = n;
}

/* A note: header, name and descriptor, padded as glibc's ELF_NOTE_NEXT_OFFSET pads them. */
static inline void eb_note(struct eb_buf *b, size_t align, uint32_t type, const void *desc,
                           size_t descsz)
{
    size_t start = b->len;
    eb_put(b, start, 4, 4);
    eb_put(b, start + 4, 4, descsz);
    eb_put(b, start + 8, 4, type);
    eb_add(b, "GNU", 4);
    size_t desc_at = start + ((12 + 4 + align - 1) / align * align);
    eb_reserve(b, desc_at + descsz);
    b->len = desc_at;
    if (descsz)
        eb_add(b, desc, descsz);
    eb_align(b, align);
}

/* Field offsets of the ELF header by class. */
static inline size_t eb_eh(int cls, const char *field)
{
    static const struct {
        const char *name;
        size_t o32, o64;
    } f[] = { { "phoff", 28, 32 },   { "shoff", 32, 40 },     { "phentsize", 42, 54 },
              { "phnum", 44, 56 },   { "shentsize", 46, 58 }, { "shnum", 48, 60 },
              { "shstrndx", 50, 62 } };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (strcmp(f[i].name, field) == 0)
            return cls == 64 ? f[i].o64 : f[i].o32;
    fail_msg("no ELF header field %s", field);
    return 0;
}

/* Offset of a field of program header `i`. */
static inline size_t eb_ph(const struct eb_layout *l, int cls, size_t i, const char *field)
{
    static const struct {
        const char *name;
        size_t o32, o64;
    } f[] = { { "type", 0, 0 },     { "offset", 4, 8 },  { "vaddr", 8, 16 },
              { "filesz", 16, 32 }, { "memsz", 20, 40 }, { "align", 28, 48 } };
    for (size_t k = 0; k < sizeof f / sizeof *f; k++)
        if (strcmp(f[k].name, field) == 0)
            return l->phoff + i * l->phentsize + (cls == 64 ? f[k].o64 : f[k].o32);
    fail_msg("no program header field %s", field);
    return 0;
}

/* Offset of a field of section header `i`. */
static inline size_t eb_sh(const struct eb_layout *l, int cls, size_t i, const char *field)
{
    static const struct {
        const char *name;
        size_t o32, o64;
    } f[] = { { "name", 0, 0 },     { "type", 4, 4 },   { "flags", 8, 8 },  { "addr", 12, 16 },
              { "offset", 16, 24 }, { "size", 20, 32 }, { "link", 24, 40 }, { "info", 28, 44 } };
    for (size_t k = 0; k < sizeof f / sizeof *f; k++)
        if (strcmp(f[k].name, field) == 0)
            return l->shoff + i * l->shentsize + (cls == 64 ? f[k].o64 : f[k].o32);
    fail_msg("no section header field %s", field);
    return 0;
}

struct eb_section {
    const char *name;
    uint32_t type;
    uint64_t flags, offset, size;
};

/* Build the image: new memory (free()), `*lay` says where everything is. */
static inline unsigned char *eb_build(const struct eb_spec *s, struct eb_layout *lay)
{
    struct eb_buf b = { NULL, 0, 0, s->be };
    memset(lay, 0, sizeof *lay);
    int w = s->cls == 64 ? 8 : 4;
    lay->ehsize = s->cls == 64 ? 64 : 52;
    lay->phentsize = s->cls == 64 ? 56 : 32;
    lay->shentsize = s->cls == 64 ? 64 : 40;
    lay->ph_load = lay->ph_interp = lay->ph_dynamic = lay->ph_note = lay->ph_note8 = SIZE_MAX;
    lay->soname_idx = lay->rpath_idx = lay->runpath_idx = SIZE_MAX;
    bool notes = (s->build_id_len && !s->notes8) || s->abi_tag;
    size_t n = 0;
    lay->ph_load = n++;
    if (s->interp)
        lay->ph_interp = n++;
    if (s->dynamic)
        lay->ph_dynamic = n++;
    if (notes)
        lay->ph_note = n++;
    if (s->notes8 && s->build_id_len)
        lay->ph_note8 = n++;
    lay->phnum = n;
    lay->phoff = lay->ehsize;
    eb_reserve(&b, lay->phoff + n * lay->phentsize);
    b.len = lay->phoff + n * lay->phentsize;

    if (s->interp) {
        lay->interp_len = strlen(s->interp) + 1;
        lay->interp_off = eb_add(&b, s->interp, lay->interp_len);
    }
    size_t needed_idx[8] = { 0 };
    if (s->dynamic) {
        lay->dynstr_off = eb_add(&b, "", 1);
        for (size_t i = 0; i < 8 && s->needed[i]; i++)
            needed_idx[i] = eb_add(&b, s->needed[i], strlen(s->needed[i]) + 1) - lay->dynstr_off;
        if (s->soname)
            lay->soname_idx = eb_add(&b, s->soname, strlen(s->soname) + 1) - lay->dynstr_off;
        if (s->rpath)
            lay->rpath_idx = eb_add(&b, s->rpath, strlen(s->rpath) + 1) - lay->dynstr_off;
        if (s->runpath)
            lay->runpath_idx = eb_add(&b, s->runpath, strlen(s->runpath) + 1) - lay->dynstr_off;
        lay->dynstr_size = b.len - lay->dynstr_off;
        eb_align(&b, 8);
        lay->dyn_off = b.len;
        lay->dyn_entsize = 2 * (size_t)w;
        size_t e = 0;
#define EB_DYN(tag, val)                                                       \
    do {                                                                       \
        eb_put(&b, lay->dyn_off + e * lay->dyn_entsize, w, (tag));             \
        eb_put(&b, lay->dyn_off + e * lay->dyn_entsize + (size_t)w, w, (val)); \
        e++;                                                                   \
    } while (0)
        if (s->needed_repeat) {
            for (size_t i = 0; i < s->needed_repeat; i++)
                EB_DYN(1, needed_idx[0]);
        } else {
            for (size_t i = 0; i < 8 && s->needed[i]; i++)
                EB_DYN(1, needed_idx[i]);
        }
        if (s->soname)
            EB_DYN(14, lay->soname_idx);
        if (s->rpath)
            EB_DYN(15, lay->rpath_idx);
        if (s->runpath)
            EB_DYN(29, lay->runpath_idx);
        EB_DYN(5, s->base + lay->dynstr_off);
        EB_DYN(10, lay->dynstr_size);
        if (s->flags)
            EB_DYN(30, s->flags);
        if (s->flags_1)
            EB_DYN(0x6ffffffbULL, s->flags_1);
        EB_DYN(0, 0);
#undef EB_DYN
        lay->dyn_count = e;
    }
    if (notes) {
        eb_align(&b, 4);
        lay->note_off = b.len;
        if (s->build_id_len && !s->notes8)
            eb_note(&b, 4, 3, s->build_id, s->build_id_len);
        if (s->abi_tag) {
            unsigned char desc[16];
            for (int i = 0; i < 4; i++)
                eb_put_at(desc, s->be, (size_t)i * 4, 4, s->abi[i]);
            eb_note(&b, 4, 1, desc, sizeof desc);
        }
        lay->note_size = b.len - lay->note_off;
    }
    if (s->notes8 && s->build_id_len) {
        eb_align(&b, 8);
        lay->note8_off = b.len;
        unsigned char prop[16] = { 0 };
        eb_note(&b, 8, 5, prop, sizeof prop); /* NT_GNU_PROPERTY_TYPE_0 */
        eb_note(&b, 8, 3, s->build_id, s->build_id_len);
        lay->note8_size = b.len - lay->note8_off;
    }

    struct eb_section secs[8];
    size_t nsec = 0;
    if (s->sections) {
        secs[nsec++] = (struct eb_section){ "", 0, 0, 0, 0 };
        if (s->interp)
            secs[nsec++] = (struct eb_section){ ".interp", 1, 2, lay->interp_off, lay->interp_len };
        if (s->dynamic) {
            secs[nsec++] =
                (struct eb_section){ ".dynstr", 3, 2, lay->dynstr_off, lay->dynstr_size };
            secs[nsec++] = (struct eb_section){ ".dynamic", 6, 3, lay->dyn_off,
                                                lay->dyn_count * lay->dyn_entsize };
        }
        if (notes)
            secs[nsec++] = (struct eb_section){ ".note", 7, 2, lay->note_off, lay->note_size };
        secs[nsec++] = (struct eb_section){ ".shstrtab", 3, 0, 0, 0 };
        lay->shstrndx = nsec - 1;
        lay->shstr_off = eb_add(&b, "", 1);
        uint32_t name_at[8] = { 0 };
        for (size_t i = 1; i < nsec; i++)
            name_at[i] =
                (uint32_t)(eb_add(&b, secs[i].name, strlen(secs[i].name) + 1) - lay->shstr_off);
        lay->shstr_size = b.len - lay->shstr_off;
        secs[nsec - 1].offset = lay->shstr_off;
        secs[nsec - 1].size = lay->shstr_size;
        eb_align(&b, 8);
        lay->shoff = b.len;
        lay->shnum = nsec;
        eb_reserve(&b, lay->shoff + nsec * lay->shentsize);
        b.len = lay->shoff + nsec * lay->shentsize;
        for (size_t i = 0; i < nsec; i++) {
            eb_put(&b, eb_sh(lay, s->cls, i, "name"), 4, name_at[i]);
            eb_put(&b, eb_sh(lay, s->cls, i, "type"), 4, secs[i].type);
            eb_put(&b, eb_sh(lay, s->cls, i, "flags"), w, secs[i].flags);
            eb_put(&b, eb_sh(lay, s->cls, i, "addr"), w,
                   secs[i].flags & 2 ? s->base + secs[i].offset : 0);
            eb_put(&b, eb_sh(lay, s->cls, i, "offset"), w, secs[i].offset);
            eb_put(&b, eb_sh(lay, s->cls, i, "size"), w, secs[i].size);
        }
        if (s->xnum) {
            eb_put(&b, eb_sh(lay, s->cls, 0, "size"), w, nsec);
            eb_put(&b, eb_sh(lay, s->cls, 0, "link"), 4, lay->shstrndx);
            eb_put(&b, eb_sh(lay, s->cls, 0, "info"), 4, lay->phnum);
        }
    }
    lay->len = b.len;

    /* Program headers. */
    struct {
        size_t index;
        uint32_t type;
        uint64_t off, size, align;
    } ph[] = {
        { lay->ph_load, EB_PT_LOAD, 0, lay->shoff ? lay->shoff : b.len, 0x1000 },
        { lay->ph_interp, EB_PT_INTERP, lay->interp_off, lay->interp_len, 1 },
        { lay->ph_dynamic, EB_PT_DYNAMIC, lay->dyn_off, lay->dyn_count * lay->dyn_entsize, 8 },
        { lay->ph_note, EB_PT_NOTE, lay->note_off, lay->note_size, 4 },
        { lay->ph_note8, EB_PT_NOTE, lay->note8_off, lay->note8_size, 8 },
    };
    for (size_t i = 0; i < sizeof ph / sizeof *ph; i++) {
        if (ph[i].index == SIZE_MAX)
            continue;
        eb_put(&b, eb_ph(lay, s->cls, ph[i].index, "type"), 4, ph[i].type);
        eb_put(&b, eb_ph(lay, s->cls, ph[i].index, "offset"), w, ph[i].off);
        eb_put(&b, eb_ph(lay, s->cls, ph[i].index, "vaddr"), w, s->base + ph[i].off);
        eb_put(&b, eb_ph(lay, s->cls, ph[i].index, "filesz"), w, ph[i].size);
        eb_put(&b, eb_ph(lay, s->cls, ph[i].index, "memsz"), w, ph[i].size);
        eb_put(&b, eb_ph(lay, s->cls, ph[i].index, "align"), w, ph[i].align);
    }

    /* The ELF header. */
    static const unsigned char magic[4] = { 0x7f, 'E', 'L', 'F' };
    memcpy(b.p, magic, 4);
    b.p[4] = s->cls == 64 ? 2 : 1;
    b.p[5] = s->be ? 2 : 1;
    b.p[6] = 1;
    b.p[7] = s->osabi;
    eb_put(&b, 16, 2, s->type);
    eb_put(&b, 18, 2, s->machine);
    eb_put(&b, 20, 4, 1);
    eb_put(&b, eb_eh(s->cls, "phoff"), w, lay->phoff);
    eb_put(&b, eb_eh(s->cls, "shoff"), w, lay->shoff);
    eb_put(&b, eb_eh(s->cls, "phentsize") - 2, 2, lay->ehsize);
    eb_put(&b, eb_eh(s->cls, "phentsize"), 2, lay->phentsize);
    eb_put(&b, eb_eh(s->cls, "phnum"), 2, s->xnum ? 0xffff : lay->phnum);
    eb_put(&b, eb_eh(s->cls, "shentsize"), 2, s->sections ? lay->shentsize : 0);
    eb_put(&b, eb_eh(s->cls, "shnum"), 2, s->xnum ? 0 : lay->shnum);
    eb_put(&b, eb_eh(s->cls, "shstrndx"), 2, s->xnum ? 0xffff : lay->shstrndx);
    lay->len = b.len;
    return b.p;
}

/* A plain shared object of this class, byte order and machine: SONAME and NEEDED as given. */
static inline unsigned char *eb_simple(int cls, bool be, uint16_t machine, const char *soname,
                                       const char *const *needed, size_t *len)
{
    struct eb_spec s = { 0 };
    s.cls = cls;
    s.be = be;
    s.type = EB_ET_DYN;
    s.machine = machine;
    s.dynamic = true;
    s.soname = soname;
    for (size_t i = 0; needed && needed[i] && i < 8; i++)
        s.needed[i] = needed[i];
    s.sections = true;
    struct eb_layout lay;
    unsigned char *p = eb_build(&s, &lay);
    *len = lay.len;
    return p;
}

#endif
