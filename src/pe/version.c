/* The version resource of a PE image (version.h). Layouts: Microsoft, "PE Format" (.rsrc) and
 * the VS_VERSIONINFO family of structures. */
#include "pe/version.h"

#include "core/alloc.h"

#include <stdio.h>
#include <string.h>

#define RT_VERSION      16
#define FIXED_SIGNATURE 0xFEEF04BDu
#define FIXED_SIZE      52 /* sizeof(VS_FIXEDFILEINFO) */
#define KEY_MAX         64 /* UTF-16 units of a block's key we accept */
#define SUBDIR_BIT      0x80000000u
#define CHILDREN_MAX    512 /* blocks of one level walked at most */

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Exactly `n` bytes at `off` of the source, or GD_ETRUNCATED. */
static enum gd_status read_at(const struct gd_pe_source *src, void *buf, size_t n, uint64_t off)
{
    if (off > src->size || n > src->size - off)
        return GD_ETRUNCATED;
    size_t got = 0;
    enum gd_status st = src->read(src->ctx, buf, n, off, &got);
    if (st != GD_OK)
        return st;
    return got == n ? GD_OK : GD_ETRUNCATED;
}

/* `n` bytes at `rva` + `delta` of the image, through its sections. */
static enum gd_status read_rva(const struct gd_pe_source *src, const struct gd_pe *pe, uint32_t rva,
                               uint32_t delta, void *buf, size_t n)
{
    uint64_t off;
    if (delta > UINT32_MAX - rva || !gd_pe_rva_to_offset(pe, rva + delta, &off))
        return GD_EFORMAT;
    return read_at(src, buf, n, off);
}

/* The entries of the resource directory at `dir` (an offset from the table's start): its
 * `index`-th entry matching `id` (any entry when `id` < 0), and whether it leads to another
 * directory. GD_ENOENT when none matches. */
static enum gd_status dir_entry(const struct gd_pe_source *src, const struct gd_pe *pe,
                                uint32_t dir, long id, uint32_t *target, bool *subdir)
{
    unsigned char h[16];
    enum gd_status st = read_rva(src, pe, pe->resource_rva, dir, h, sizeof h);
    if (st != GD_OK)
        return st;
    /* Named entries first, then those with an ID (the resource types are IDs). */
    size_t named = le16(h + 12), ids = le16(h + 14), total = named + ids;
    if (total > GD_PE_RES_ENTRIES_MAX)
        return GD_ELIMIT;
    for (size_t i = 0; i < total; i++) {
        unsigned char e[8];
        if (dir > UINT32_MAX - 16 - 8 * i)
            return GD_EFORMAT;
        st = read_rva(src, pe, pe->resource_rva, dir + 16 + 8 * (uint32_t)i, e, sizeof e);
        if (st != GD_OK)
            return st;
        uint32_t name = le32(e), to = le32(e + 4);
        if (id >= 0 && (i < named || (name & SUBDIR_BIT) || name != (uint32_t)id))
            continue;
        *subdir = (to & SUBDIR_BIT) != 0;
        *target = to & ~SUBDIR_BIT;
        return GD_OK;
    }
    return GD_ENOENT;
}

enum gd_status gd_pe_version_read(const struct gd_pe_source *src, const struct gd_pe *pe,
                                  struct gd_pe_version *out)
{
    memset(out, 0, sizeof *out);
    if (!pe->resource_rva)
        return GD_ENOENT;
    /* Type RT_VERSION -> its first name -> its first language -> the data entry. */
    uint32_t at = 0;
    bool subdir = true;
    for (int level = 0; level < 3; level++) {
        if (!subdir)
            return GD_EFORMAT; /* a data entry where a directory belongs */
        enum gd_status st = dir_entry(src, pe, at, level == 0 ? RT_VERSION : -1, &at, &subdir);
        if (st != GD_OK)
            return st;
    }
    if (subdir)
        return GD_EFORMAT; /* a fourth level: no such thing */
    unsigned char d[16];
    enum gd_status st = read_rva(src, pe, pe->resource_rva, at, d, sizeof d);
    if (st != GD_OK)
        return st;
    /* IMAGE_RESOURCE_DATA_ENTRY: the data's RVA (not an offset in the table) and size. */
    uint32_t rva = le32(d), size = le32(d + 4);
    if (size > GD_PE_VERSION_MAX)
        return GD_ELIMIT;
    if (size < 6)
        return GD_EFORMAT;
    unsigned char *data = gd_malloc(size);
    if (!data)
        return GD_ENOMEM;
    st = read_rva(src, pe, rva, 0, data, size);
    if (st == GD_OK)
        st = gd_pe_version_parse(data, size, out);
    gd_free(data);
    return st;
}

/* ---- VS_VERSIONINFO and its child blocks ----------------------------------------------------- */

/* A block: wLength, wValueLength, wType, a NUL-terminated UTF-16 key, padding to 32 bits, the
 * value, padding, the children. Offsets are from the start of the data, which the resource
 * compiler aligns, so "32-bit aligned" is relative to it. */
struct block {
    size_t start, end;        /* [start, end) */
    const unsigned char *key; /* UTF-16LE, `key_units` units without the NUL */
    size_t key_units;
    size_t value, value_bytes; /* the value: where, and how many bytes fit in the block */
    uint16_t value_length, type;
    size_t children; /* where the children start (== end when none) */
};

static size_t align4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

static enum gd_status read_block(const unsigned char *b, size_t len, size_t at, struct block *out)
{
    if (at > len || len - at < 6)
        return GD_ETRUNCATED;
    size_t length = le16(b + at);
    if (length < 6)
        return GD_EFORMAT;
    if (length > len - at)
        return GD_ETRUNCATED;
    out->start = at;
    out->end = at + length;
    out->value_length = le16(b + at + 2);
    out->type = le16(b + at + 4);
    out->key = b + at + 6;
    size_t k = 0, p = at + 6;
    for (;; k++, p += 2) {
        if (k > KEY_MAX)
            return GD_EFORMAT;
        if (p + 2 > out->end)
            return GD_EFORMAT; /* no NUL before the block ends */
        if (le16(b + p) == 0)
            break;
    }
    out->key_units = k;
    out->value = align4(p + 2);
    if (out->value > out->end)
        out->value = out->end;
    /* wValueLength counts bytes for binary values and, per the documentation, UTF-16 units for
     * text; some compilers write bytes for text too: the text reader stops at the NUL. */
    size_t want = out->type == 1 ? (size_t)out->value_length * 2 : out->value_length;
    size_t room = out->end - out->value;
    out->value_bytes = want < room ? want : room;
    out->children = align4(out->value + out->value_bytes);
    if (out->children > out->end)
        out->children = out->end;
    return GD_OK;
}

static bool key_is(const struct block *blk, const char *ascii)
{
    size_t n = strlen(ascii);
    if (blk->key_units != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (le16(blk->key + 2 * i) != (unsigned char)ascii[i])
            return false;
    return true;
}

/* Append code point `cp` as UTF-8 if it fits whole. */
static void put_utf8(char *out, size_t size, size_t *n, uint32_t cp)
{
    char u[4];
    size_t k;
    if (cp < 0x20 || cp == 0x7f)
        cp = '?'; /* evidence stays on one line */
    if (cp < 0x80) {
        u[0] = (char)cp;
        k = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3f));
        k = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        k = 3;
    } else {
        u[0] = (char)(0xf0 | cp >> 18);
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        k = 4;
    }
    if (*n + k < size) {
        memcpy(out + *n, u, k);
        *n += k;
    }
}

/* UTF-16LE text of `bytes` bytes at `p`, up to its NUL, into `out` as UTF-8. */
static void utf16_text(const unsigned char *p, size_t bytes, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i + 1 < bytes; i += 2) {
        uint32_t u = le16(p + i);
        if (u == 0)
            break;
        if (u >= 0xd800 && u < 0xdc00 && i + 3 < bytes) {
            uint32_t lo = le16(p + i + 2);
            if (lo >= 0xdc00 && lo < 0xe000) {
                put_utf8(out, size, &n, 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00));
                i += 2;
                continue;
            }
        }
        put_utf8(out, size, &n, u >= 0xd800 && u < 0xe000 ? 0xfffd : u);
    }
    out[n] = '\0';
}

/* A String block of the table: keep the value when its key is one we report. */
static void string_value(const unsigned char *b, const struct block *s, struct gd_pe_version *out)
{
    static const struct {
        const char *key;
        size_t offset;
    } keys[] = {
        { "CompanyName", offsetof(struct gd_pe_version, company_name) },
        { "FileDescription", offsetof(struct gd_pe_version, file_description) },
        { "FileVersion", offsetof(struct gd_pe_version, file_version) },
        { "ProductName", offsetof(struct gd_pe_version, product_name) },
        { "ProductVersion", offsetof(struct gd_pe_version, product_version) },
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        if (!key_is(s, keys[i].key))
            continue;
        char *dst = (char *)out + keys[i].offset;
        /* The whole rest of the block: a text length in bytes or units reads the same. */
        utf16_text(b + s->value, s->end - s->value, dst, GD_PE_VERSION_STR);
        return;
    }
}

/* StringFileInfo: its first StringTable (key: language and code page in 8 hex digits). */
static enum gd_status string_file_info(const unsigned char *b, const struct block *sfi,
                                       struct gd_pe_version *out)
{
    struct block table;
    if (sfi->children >= sfi->end)
        return GD_OK;
    enum gd_status st = read_block(b, sfi->end, sfi->children, &table);
    if (st != GD_OK)
        return st;
    if (table.key_units != 8)
        return GD_EFORMAT;
    /* Kept only whole: a key broken halfway must not leave half a language behind it (the fixed
     * part of the resource still stands then). */
    char lang[9];
    for (size_t i = 0; i < 8; i++) {
        uint16_t c = le16(table.key + 2 * i);
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return GD_EFORMAT;
        lang[i] = (char)c;
    }
    lang[8] = '\0';
    memcpy(out->lang, lang, sizeof lang);
    /* A StringTable's strings start right after its key (it has no value). */
    size_t at = table.children, count = 0;
    while (at < table.end) {
        if (++count > CHILDREN_MAX)
            return GD_ELIMIT;
        struct block s;
        st = read_block(b, table.end, at, &s);
        if (st != GD_OK)
            return st;
        string_value(b, &s, out);
        at = align4(s.end);
    }
    return GD_OK;
}

enum gd_status gd_pe_version_parse(const void *data, size_t len, struct gd_pe_version *out)
{
    memset(out, 0, sizeof *out);
    const unsigned char *b = data;
    struct block root;
    enum gd_status st = read_block(b, len, 0, &root);
    if (st != GD_OK)
        return st;
    if (!key_is(&root, "VS_VERSION_INFO"))
        return GD_EFORMAT;
    if (root.value_length) {
        /* VS_FIXEDFILEINFO: signature, struct version, then the versions as MS/LS DWORDs. */
        if (root.value_length < FIXED_SIZE || root.value_bytes < FIXED_SIZE)
            return root.end - root.value < FIXED_SIZE ? GD_ETRUNCATED : GD_EFORMAT;
        const unsigned char *f = b + root.value;
        if (le32(f) != FIXED_SIGNATURE)
            return GD_EFORMAT;
        uint32_t v[4] = { le32(f + 8), le32(f + 12), le32(f + 16), le32(f + 20) };
        for (int i = 0; i < 2; i++) {
            out->file[2 * i] = (uint16_t)(v[i] >> 16);
            out->file[2 * i + 1] = (uint16_t)(v[i] & 0xffff);
            out->product[2 * i] = (uint16_t)(v[2 + i] >> 16);
            out->product[2 * i + 1] = (uint16_t)(v[2 + i] & 0xffff);
        }
        out->has_fixed = true;
    }
    /* Children: StringFileInfo and VarFileInfo, in either order. A broken one leaves the fixed
     * part standing. */
    size_t at = root.children, count = 0;
    while (at < root.end) {
        if (++count > CHILDREN_MAX) {
            out->strings_status = GD_ELIMIT;
            break;
        }
        struct block child;
        st = read_block(b, root.end, at, &child);
        if (st != GD_OK) {
            out->strings_status = st;
            break;
        }
        if (key_is(&child, "StringFileInfo") && !out->lang[0]) {
            st = string_file_info(b, &child, out);
            if (st != GD_OK) {
                out->strings_status = st;
                break;
            }
        }
        at = align4(child.end);
    }
    if (!out->has_fixed && !out->lang[0])
        return out->strings_status != GD_OK ? out->strings_status : GD_EFORMAT;
    return GD_OK;
}

void gd_pe_version_format(const uint16_t v[4], char *buf, size_t size)
{
    snprintf(buf, size, "%u.%u.%u.%u", (unsigned)v[0], (unsigned)v[1], (unsigned)v[2],
             (unsigned)v[3]);
}
