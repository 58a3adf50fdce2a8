/* PE reader (pe.h). Offsets and layouts: Microsoft, "PE Format". */
#include "pe/pe.h"

#include "core/alloc.h"

#include <string.h>

struct reader {
    const struct gd_pe_source *src;
    struct gd_pe_section sec[GD_PE_MAX_SECTIONS];
    size_t n_sec;
    uint64_t image_base;
};

/* Exactly `n` bytes at `off`, or GD_ETRUNCATED. */
static enum gd_status read_at(const struct reader *r, void *buf, size_t n, uint64_t off)
{
    if (off > r->src->size || n > r->src->size - off)
        return GD_ETRUNCATED;
    size_t got = 0;
    enum gd_status st = r->src->read(r->src->ctx, buf, n, off, &got);
    if (st != GD_OK)
        return st;
    return got == n ? GD_OK : GD_ETRUNCATED;
}

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The file offset of `rva`, through the section that maps it; false when none does or the
 * bytes there are not in the file (uninitialised data). */
static bool map_rva(const struct gd_pe_section *sec, size_t n_sec, uint32_t rva, uint64_t *off)
{
    for (size_t i = 0; i < n_sec; i++) {
        const struct gd_pe_section *s = &sec[i];
        uint32_t span = s->vsize > s->raw_size ? s->vsize : s->raw_size;
        if (rva >= s->va && rva - s->va < span) {
            uint32_t delta = rva - s->va;
            if (delta >= s->raw_size)
                return false;
            *off = (uint64_t)s->raw_off + delta;
            return true;
        }
    }
    return false;
}

static bool rva_to_off(const struct reader *r, uint32_t rva, uint64_t *off)
{
    return map_rva(r->sec, r->n_sec, rva, off);
}

bool gd_pe_rva_to_offset(const struct gd_pe *pe, uint32_t rva, uint64_t *off)
{
    return map_rva(pe->sections, pe->n_sections, rva, off);
}

/* The NUL-terminated name at `rva` (new memory); GD_EFORMAT when unmapped, GD_ELIMIT past the
 * cap, GD_ETRUNCATED at the end of the file. */
static enum gd_status read_name(const struct reader *r, uint32_t rva, char **out)
{
    *out = NULL;
    uint64_t off;
    if (!rva_to_off(r, rva, &off))
        return GD_EFORMAT;
    char buf[GD_PE_MAX_NAME + 1];
    size_t want = sizeof buf;
    if (off >= r->src->size)
        return GD_ETRUNCATED;
    if (r->src->size - off < want)
        want = (size_t)(r->src->size - off);
    size_t got = 0;
    enum gd_status st = r->src->read(r->src->ctx, buf, want, off, &got);
    if (st != GD_OK)
        return st;
    size_t len = 0;
    while (len < got && buf[len])
        len++;
    if (len == got)
        return got == sizeof buf ? GD_ELIMIT : GD_ETRUNCATED;
    if (len == 0)
        return GD_EFORMAT;
    *out = gd_strndup(buf, len);
    return *out ? GD_OK : GD_ENOMEM;
}

static enum gd_status add_name(char ***list, size_t *n, char *name)
{
    if (*n >= GD_PE_MAX_IMPORTS) {
        gd_free(name);
        return GD_ELIMIT;
    }
    char **grown = gd_realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown) {
        gd_free(name);
        return GD_ENOMEM;
    }
    grown[(*n)++] = name;
    *list = grown;
    return GD_OK;
}

/* A table of `entry`-byte descriptors at `rva`, ending at an all-zero one, whose 32-bit name
 * field sits at `name_at`; `delay`: the delay-load form, whose names are virtual addresses
 * unless bit 0 of the attributes says RVA (the Visual C++ 6 layout). */
static enum gd_status read_table(const struct reader *r, uint32_t rva, size_t entry, size_t name_at,
                                 bool delay, char ***list, size_t *n)
{
    uint64_t off;
    if (!rva_to_off(r, rva, &off))
        return GD_EFORMAT;
    for (size_t i = 0;; i++) {
        if (i > GD_PE_MAX_IMPORTS)
            return GD_ELIMIT;
        unsigned char d[32];
        enum gd_status st = read_at(r, d, entry, off + (uint64_t)i * entry);
        if (st != GD_OK)
            return st;
        bool zero = true;
        for (size_t k = 0; k < entry; k++)
            zero &= d[k] == 0;
        if (zero)
            return GD_OK;
        uint32_t name = le32(d + name_at);
        if (delay && !(le32(d) & 1)) {
            uint64_t va = name;
            if (va < r->image_base || va - r->image_base > UINT32_MAX)
                return GD_EFORMAT;
            name = (uint32_t)(va - r->image_base);
        }
        char *s = NULL;
        st = read_name(r, name, &s);
        if (st == GD_OK)
            st = add_name(list, n, s);
        if (st != GD_OK)
            return st;
    }
}

enum gd_status gd_pe_read(const struct gd_pe_source *src, struct gd_pe **out)
{
    *out = NULL;
    struct reader *r = gd_calloc(1, sizeof *r);
    if (!r)
        return GD_ENOMEM;
    r->src = src;
    struct gd_pe *pe = NULL;
    unsigned char dos[64], coff[24], opt[240];
    enum gd_status st = read_at(r, dos, sizeof dos, 0);
    if (st == GD_ETRUNCATED || (st == GD_OK && (dos[0] != 'M' || dos[1] != 'Z')))
        st = GD_EFORMAT;
    if (st != GD_OK)
        goto out;
    uint32_t lfanew = le32(dos + 0x3c);
    st = read_at(r, coff, sizeof coff, lfanew);
    if (st != GD_OK)
        goto out;
    if (memcmp(coff, "PE\0\0", 4) != 0) {
        st = GD_EFORMAT;
        goto out;
    }
    pe = gd_calloc(1, sizeof *pe);
    if (!pe) {
        st = GD_ENOMEM;
        goto out;
    }
    pe->machine = le16(coff + 4);
    size_t n_sec = le16(coff + 6);
    size_t opt_size = le16(coff + 20);
    pe->is_dll = (le16(coff + 22) & 0x2000) != 0; /* IMAGE_FILE_DLL */
    if (n_sec > GD_PE_MAX_SECTIONS) {
        st = GD_ELIMIT;
        goto out;
    }
    /* The optional header: magic, image base, and the data directories. */
    size_t opt_read = opt_size < sizeof opt ? opt_size : sizeof opt;
    memset(opt, 0, sizeof opt);
    if (opt_read < 2) {
        st = GD_EFORMAT;
        goto out;
    }
    st = read_at(r, opt, opt_read, (uint64_t)lfanew + 24);
    if (st != GD_OK)
        goto out;
    uint16_t magic = le16(opt);
    if (magic != 0x10b && magic != 0x20b) {
        st = GD_EFORMAT;
        goto out;
    }
    pe->pe32plus = magic == 0x20b;
    size_t count_at = pe->pe32plus ? 108 : 92, dirs_at = count_at + 4;
    if (opt_read < dirs_at) {
        st = GD_ETRUNCATED;
        goto out;
    }
    r->image_base = pe->pe32plus ? le64(opt + 24) : le32(opt + 28);
    uint32_t n_dirs = le32(opt + count_at);
    /* Directory i: 8 bytes at dirs_at + 8 i, present when within both the count and the
     * optional header's stated size. */
    uint32_t dir_rva[14] = { 0 }, dir_size[14] = { 0 };
    for (size_t i = 0; i < 14; i++) {
        if (i < n_dirs && dirs_at + 8 * i + 8 <= opt_read) {
            dir_rva[i] = le32(opt + dirs_at + 8 * i);
            dir_size[i] = le32(opt + dirs_at + 8 * i + 4);
        }
    }
    uint64_t sec_off = (uint64_t)lfanew + 24 + opt_size;
    for (size_t i = 0; i < n_sec; i++) {
        unsigned char s[40];
        st = read_at(r, s, sizeof s, sec_off + 40 * i);
        if (st != GD_OK)
            goto out;
        r->sec[i] = (struct gd_pe_section){ .vsize = le32(s + 8),
                                            .va = le32(s + 12),
                                            .raw_size = le32(s + 16),
                                            .raw_off = le32(s + 20) };
    }
    r->n_sec = n_sec;
    if (n_sec) {
        pe->sections = gd_malloc(n_sec * sizeof *pe->sections);
        if (!pe->sections) {
            st = GD_ENOMEM;
            goto out;
        }
        memcpy(pe->sections, r->sec, n_sec * sizeof *pe->sections);
        pe->n_sections = n_sec;
    }
    /* Directory 2: the resource table (read by version.c when asked). */
    pe->resource_rva = dir_rva[2];
    pe->resource_size = dir_size[2];
    /* Directory 1: the import table, 20-byte descriptors with the name RVA at 12. */
    if (dir_rva[1])
        pe->imports_status = read_table(r, dir_rva[1], 20, 12, false, &pe->imports, &pe->n_imports);
    /* Directory 13: the delay-load table, 32-byte descriptors with the name at 4. */
    if (dir_rva[13])
        pe->delay_status =
            read_table(r, dir_rva[13], 32, 4, true, &pe->delay_imports, &pe->n_delay_imports);
    if (pe->imports_status == GD_ENOMEM || pe->delay_status == GD_ENOMEM)
        st = GD_ENOMEM;
out:
    gd_free(r);
    if (st != GD_OK) {
        gd_pe_free(pe);
        return st;
    }
    *out = pe;
    return GD_OK;
}

static enum gd_status read_memory(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got)
{
    const struct gd_pe_memory *m = ctx;
    *got = 0;
    if (offset >= m->len)
        return GD_OK;
    size_t avail = m->len - (size_t)offset;
    *got = n < avail ? n : avail;
    memcpy(buf, (const unsigned char *)m->data + offset, *got);
    return GD_OK;
}

struct gd_pe_source gd_pe_memory_source(struct gd_pe_memory *mem)
{
    return (struct gd_pe_source){ read_memory, mem, mem->len };
}

enum gd_status gd_pe_read_memory(const void *data, size_t len, struct gd_pe **out)
{
    struct gd_pe_memory m = { data, len };
    struct gd_pe_source src = gd_pe_memory_source(&m);
    return gd_pe_read(&src, out);
}

static void free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gd_free(list[i]);
    gd_free(list);
}

void gd_pe_free(struct gd_pe *pe)
{
    if (!pe)
        return;
    free_list(pe->imports, pe->n_imports);
    free_list(pe->delay_imports, pe->n_delay_imports);
    gd_free(pe->sections);
    gd_free(pe);
}

const char *gd_pe_machine_name(uint16_t machine)
{
    switch (machine) {
    case GD_PE_MACHINE_AMD64:
        return "x86_64";
    case GD_PE_MACHINE_I386:
        return "i386";
    case GD_PE_MACHINE_ARM64:
        return "aarch64";
    default:
        return NULL;
    }
}
