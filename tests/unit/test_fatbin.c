/* The fatbin reader on hand-built containers (every field, hostile variants, the caps), on
 * hand-built ELF files (which sections count), on a sparse 1 GiB file read in a few pages, on
 * the checked-in fixtures, on a library nvcc builds at test time, and on the CUDA libraries of
 * this machine, against cuobjdump when one new enough is there. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "elf/elf.h"
#include "elf/fatbin.h"
#include "os/os.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

/* ---- fatbins built by hand ------------------------------------------------------------------ */

struct fb {
    unsigned char *p;
    size_t len, cap;
    size_t container; /* offset of the open container's header */
};

static void fb_put(unsigned char *p, size_t at, int bytes, uint64_t v)
{
    for (int i = 0; i < bytes; i++)
        p[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

/* `n` more zero bytes; returns where they start. */
static size_t fb_grow(struct fb *b, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p)
            fail_msg("out of memory building a fatbin");
        memset(p + b->cap, 0, cap - b->cap);
        b->p = p;
        b->cap = cap;
    }
    size_t at = b->len;
    b->len += n;
    return at;
}

/* A container header (magic, version 1, header size 16); its size is set by fb_close. */
static void fb_container(struct fb *b)
{
    b->container = fb_grow(b, 16);
    fb_put(b->p, b->container, 4, 0xBA55ED50u);
    fb_put(b->p, b->container + 4, 2, 1);
    fb_put(b->p, b->container + 6, 2, 16);
}

static void fb_close(struct fb *b)
{
    fb_put(b->p, b->container + 8, 8, b->len - b->container - 16);
}

struct fb_entry {
    unsigned kind, sm, major, minor;
    uint32_t header;  /* 0: 64 */
    uint64_t payload; /* bytes after the header */
    uint64_t flags;
};

/* An entry with its header fields where nvcc puts them, and a payload of 0xA5 bytes. */
static size_t fb_entry(struct fb *b, const struct fb_entry *e)
{
    uint32_t header = e->header ? e->header : 64;
    size_t at = fb_grow(b, header + e->payload);
    fb_put(b->p, at, 2, e->kind);
    fb_put(b->p, at + 2, 2, 0x0101);
    fb_put(b->p, at + 4, 4, header);
    fb_put(b->p, at + 8, 8, e->payload);
    fb_put(b->p, at + 24, 2, e->minor);
    fb_put(b->p, at + 26, 2, e->major);
    fb_put(b->p, at + 28, 4, e->sm);
    fb_put(b->p, at + 40, 8, e->flags);
    memset(b->p + at + header, 0xA5, e->payload);
    return at;
}

/* A plain 64-byte entry with 16 bytes of payload. */
static void fb_add(struct fb *b, unsigned kind, unsigned sm, uint64_t flags)
{
    struct fb_entry e = { kind, sm, kind == 1 ? 9 : 1, kind == 1 ? 0 : 8, 0, 16, flags };
    fb_entry(b, &e);
}

enum { PTX = 1, SASS = 2, LTO = 8 };
#define F_HOST   0x11ull /* 64-bit, Linux host: every real entry has them */
#define F_LZ     0x2000ull
#define F_ZSTD   0x8000ull
#define F_ARCH   0x100000ull
#define F_FAMILY 0x200000ull

/* What every result must satisfy, whatever the input. */
static void check_invariants(const struct gd_fatbin *f)
{
    size_t sum = f->lto_entries + f->unknown_entries;
    assert_true(f->narchs <= GD_FATBIN_MAX_ARCHS);
    assert_true(f->entries <= GD_FATBIN_MAX_ENTRIES);
    assert_true(f->containers <= GD_FATBIN_MAX_CONTAINERS);
    assert_true(f->narchs == 0 || f->archs != NULL);
    for (size_t i = 0; i < f->narchs; i++) {
        const struct gd_fatbin_arch *a = &f->archs[i];
        assert_true(a->count >= 1);
        assert_true(a->variants != 0 && (a->variants & ~7u) == 0);
        if (i > 0) {
            const struct gd_fatbin_arch *p = &f->archs[i - 1];
            assert_true(p->sm < a->sm || (p->sm == a->sm && !p->ptx && a->ptx));
        }
        assert_ptr_equal(gd_fatbin_find(f, a->sm, a->ptx), a);
        sum += a->count;
    }
    assert_int_equal(sum, f->entries);
}

static void check_empty(const struct gd_fatbin *f)
{
    assert_null(f->archs);
    assert_int_equal(f->narchs, 0);
    assert_int_equal(f->entries, 0);
    assert_int_equal(f->containers, 0);
    assert_false(f->partial);
}

static void expect_arch(const struct gd_fatbin *f, size_t i, unsigned sm, bool ptx, unsigned count,
                        unsigned variants)
{
    if (i >= f->narchs)
        fail_msg("arch %zu of %zu asked for", i, f->narchs);
    const struct gd_fatbin_arch *a = &f->archs[i];
    if (a->sm != sm || a->ptx != ptx || a->count != count || a->variants != variants)
        fail_msg("arch %zu: %s %u x%u variants %u, expected %s %u x%u variants %u", i,
                 a->ptx ? "PTX" : "SASS", a->sm, a->count, a->variants, ptx ? "PTX" : "SASS", sm,
                 count, variants);
}

static enum gd_status parse(const struct fb *b, struct gd_fatbin *out)
{
    /* An exact-size copy, so that AddressSanitizer sees a read past the end. */
    unsigned char *copy = malloc(b->len ? b->len : 1);
    assert_non_null(copy);
    if (b->len)
        memcpy(copy, b->p, b->len);
    enum gd_status st = gd_fatbin_parse(copy, b->len, out);
    free(copy);
    if (st == GD_OK)
        check_invariants(out);
    else
        check_empty(out);
    return st;
}

/* Every field: kinds, header sizes of 64 to 144 bytes, variants, versions, compression, the
 * order of the list, and the counts. */
static void test_fields(void **state)
{
    (void)state;
    struct fb b = { 0 };
    fb_container(&b);
    struct fb_entry e90 = { SASS, 90, 1, 8, 0, 3704, F_HOST };
    fb_entry(&b, &e90);
    struct fb_entry p90 = { PTX, 90, 9, 0, 80, 272, F_HOST | F_ZSTD };
    fb_entry(&b, &p90);
    struct fb_entry s100f = { SASS, 100, 1, 8, 112, 5448, F_HOST | F_FAMILY | 0x1000000 };
    fb_entry(&b, &s100f);
    fb_close(&b);
    fb_container(&b);
    fb_add(&b, SASS, 75, F_HOST);
    struct fb_entry p75 = { PTX, 75, 7, 8, 72, 312, F_HOST | F_LZ };
    fb_entry(&b, &p75);
    struct fb_entry s90a = { SASS, 90, 1, 7, 144, 8, F_HOST | F_ARCH };
    fb_entry(&b, &s90a);
    struct fb_entry lto = { LTO, 90, 1, 65, 120, 1736, F_HOST | 0x10000 };
    fb_entry(&b, &lto);
    fb_add(&b, 0x40, 90, F_HOST); /* a kind not understood */
    struct fb_entry p90b = { PTX, 90, 9, 1, 80, 0, F_HOST };
    fb_entry(&b, &p90b);
    fb_close(&b);

    struct gd_fatbin f;
    assert_int_equal(parse(&b, &f), GD_OK);
    assert_int_equal(f.containers, 2);
    assert_int_equal(f.entries, 9);
    assert_int_equal(f.lto_entries, 1);
    assert_int_equal(f.unknown_entries, 1);
    assert_true(f.compressed);
    assert_false(f.partial);
    assert_false(f.relocatable);
    assert_int_equal(f.narchs, 5);
    expect_arch(&f, 0, 75, false, 1, GD_FATBIN_PLAIN);
    expect_arch(&f, 1, 75, true, 1, GD_FATBIN_PLAIN);
    expect_arch(&f, 2, 90, false, 2, GD_FATBIN_PLAIN | GD_FATBIN_ARCH_SPECIFIC);
    expect_arch(&f, 3, 90, true, 2, GD_FATBIN_PLAIN);
    expect_arch(&f, 4, 100, false, 1, GD_FATBIN_FAMILY);
    /* The highest version of each. */
    assert_int_equal(f.archs[1].version_major, 7);
    assert_int_equal(f.archs[1].version_minor, 8);
    assert_int_equal(f.archs[2].version_major, 1);
    assert_int_equal(f.archs[2].version_minor, 8);
    assert_int_equal(f.archs[3].version_major, 9);
    assert_int_equal(f.archs[3].version_minor, 1);
    assert_null(gd_fatbin_find(&f, 100, true));
    assert_null(gd_fatbin_find(&f, 80, false));
    assert_true(f.page_reads >= 1);
    gd_fatbin_free(&f);
    check_empty(&f);
    gd_fatbin_free(&f); /* twice: a no-op */
    gd_fatbin_free(NULL);

    /* Uncompressed only: not compressed. */
    struct fb u = { 0 };
    fb_container(&u);
    fb_add(&u, SASS, 80, F_HOST);
    fb_close(&u);
    assert_int_equal(parse(&u, &f), GD_OK);
    assert_false(f.compressed);
    gd_fatbin_free(&f);
    free(u.p);
    free(b.p);
}

/* Entries in any order come out sorted by sm, SASS before PTX, one line each. */
static void test_order(void **state)
{
    (void)state;
    static const unsigned sms[] = { 121, 75, 100, 90, 80, 103, 86, 120, 89, 110, 87, 88 };
    const size_t n = sizeof sms / sizeof *sms;
    struct fb b = { 0 };
    for (int round = 0; round < 3; round++) {
        fb_container(&b);
        for (size_t i = 0; i < n; i++) {
            fb_add(&b, PTX, sms[(i + (size_t)round) % n], F_HOST);
            fb_add(&b, SASS, sms[(n - 1 - i + (size_t)round) % n], F_HOST);
        }
        fb_close(&b);
    }
    struct gd_fatbin f;
    assert_int_equal(parse(&b, &f), GD_OK);
    assert_int_equal(f.narchs, 2 * n);
    assert_int_equal(f.entries, 6 * n);
    for (size_t i = 0; i < f.narchs; i++)
        assert_int_equal(f.archs[i].count, 3);
    assert_int_equal(f.archs[0].sm, 75);
    assert_false(f.archs[0].ptx);
    assert_true(f.archs[1].ptx);
    assert_int_equal(f.archs[2 * n - 1].sm, 121);
    gd_fatbin_free(&f);
    free(b.p);
}

/* A valid two-container section, the base of the hostile variants. Offsets of interest. */
struct sample {
    struct fb b;
    size_t c2;     /* second container's header */
    size_t e1, e2; /* first container's entries */
};

static struct sample sample(void)
{
    struct sample s = { { 0 }, 0, 0, 0 };
    fb_container(&s.b);
    struct fb_entry a = { SASS, 80, 1, 8, 0, 64, F_HOST };
    s.e1 = fb_entry(&s.b, &a);
    struct fb_entry p = { PTX, 80, 9, 0, 80, 40, F_HOST | F_ZSTD };
    s.e2 = fb_entry(&s.b, &p);
    fb_close(&s.b);
    s.c2 = s.b.len;
    fb_container(&s.b);
    fb_add(&s.b, SASS, 90, F_HOST);
    fb_close(&s.b);
    return s;
}

static void expect_status(const struct fb *b, enum gd_status want, const char *what)
{
    struct gd_fatbin f;
    enum gd_status st = parse(b, &f);
    if (st != want)
        fail_msg("%s: %s, expected %s", what, gd_status_str(st), gd_status_str(want));
    gd_fatbin_free(&f);
}

/* The first container broken: a status, nothing listed. */
static void test_hostile_first(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        size_t at; /* 0: first container, 1: first entry */
        size_t field;
        int bytes;
        uint64_t value;
        enum gd_status want;
    } cases[] = {
        { "bad magic", 0, 0, 4, 0xBA55ED51u, GD_EFORMAT },
        { "the wrapper's magic", 0, 0, 4, 0x466243B1u, GD_EFORMAT },
        { "version 2", 0, 4, 2, 2, GD_EFORMAT },
        { "container header of 8 bytes", 0, 6, 2, 8, GD_EFORMAT },
        { "container header past the section", 0, 6, 2, 0xFFFF, GD_ETRUNCATED },
        { "container size past the section", 0, 8, 8, 1u << 20, GD_ETRUNCATED },
        { "container size overflowing", 0, 8, 8, UINT64_MAX - 8, GD_ETRUNCATED },
        { "container ending inside an entry header", 0, 8, 8, 40, GD_EFORMAT },
        { "entry header size 0 (would never advance)", 1, 4, 4, 0, GD_EFORMAT },
        { "entry header size 63", 1, 4, 4, 63, GD_EFORMAT },
        { "entry header past its container", 1, 4, 4, 0xFFFFFFFFu, GD_EFORMAT },
        { "entry payload past its container (overlapping the next)", 1, 8, 8, 4096, GD_EFORMAT },
        { "entry payload size overflowing", 1, 8, 8, UINT64_MAX - 32, GD_EFORMAT },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sample s = sample();
        size_t base = cases[i].at == 0 ? 0 : s.e1;
        fb_put(s.b.p, base + cases[i].field, cases[i].bytes, cases[i].value);
        expect_status(&s.b, cases[i].want, cases[i].what);
        free(s.b.p);
    }
    /* Too short for a header, all zero: nothing, no error (padding only). */
    struct fb z = { 0 };
    fb_grow(&z, 40);
    struct gd_fatbin f;
    assert_int_equal(parse(&z, &f), GD_OK);
    check_empty(&f);
    free(z.p);
    /* A short tail of anything is ignored; 16 bytes of it are not a container. */
    struct fb t = { 0 };
    size_t tail = fb_grow(&t, 15);
    memset(t.p + tail, 0x77, 15);
    assert_int_equal(parse(&t, &f), GD_OK);
    check_empty(&f);
    fb_grow(&t, 1);
    expect_status(&t, GD_EFORMAT, "16 bytes of garbage");
    free(t.p);
    /* Nothing at all. */
    struct fb none = { 0 };
    assert_int_equal(parse(&none, &f), GD_OK);
    check_empty(&f);
    assert_int_equal(gd_fatbin_parse(NULL, 0, &f), GD_OK);
    check_empty(&f);
}

/* The second container broken: the first one's entries, marked partial. */
static void test_hostile_later(void **state)
{
    (void)state;
    static const struct {
        size_t field;
        int bytes;
        uint64_t value;
    } cases[] = {
        { 0, 4, 0 /* with the next word zero too: padding, then garbage */ },
        { 0, 4, 0x12345678 },
        { 8, 8, 1u << 30 },
        { 16 + 4, 4, 0 },
        { 16 + 8, 8, 1u << 30 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sample s = sample();
        fb_put(s.b.p, s.c2 + cases[i].field, cases[i].bytes, cases[i].value);
        if (i == 0)
            fb_put(s.b.p, s.c2 + 4, 4, 0);
        struct gd_fatbin f;
        assert_int_equal(parse(&s.b, &f), GD_OK);
        assert_true(f.partial);
        assert_int_equal(f.containers, 1 + (i >= 3));
        assert_int_equal(f.entries, 2);
        assert_int_equal(f.narchs, 2);
        expect_arch(&f, 0, 80, false, 1, GD_FATBIN_PLAIN);
        expect_arch(&f, 1, 80, true, 1, GD_FATBIN_PLAIN);
        gd_fatbin_free(&f);
        free(s.b.p);
    }
}

/* Zero padding between containers is skipped up to GD_FATBIN_MAX_PADDING, a container whose size
 * is not a multiple of 8 is followed by the next 8-aligned one, and empty containers count. */
static void test_padding(void **state)
{
    (void)state;
    size_t pads[] = { 8, 16, 4096, 4104 };
    for (size_t i = 0; i < sizeof pads / sizeof *pads; i++) {
        struct fb b = { 0 };
        fb_container(&b);
        fb_add(&b, SASS, 75, F_HOST);
        fb_close(&b);
        fb_grow(&b, pads[i]);
        fb_container(&b);
        fb_add(&b, SASS, 86, F_HOST);
        fb_close(&b);
        struct gd_fatbin f;
        assert_int_equal(parse(&b, &f), GD_OK);
        bool over = pads[i] > GD_FATBIN_MAX_PADDING;
        assert_int_equal(f.partial, over);
        assert_int_equal(f.containers, over ? 1 : 2);
        gd_fatbin_free(&f);
        free(b.p);
    }

    struct fb b = { 0 };
    fb_container(&b);
    struct fb_entry odd = { SASS, 75, 1, 8, 0, 13, F_HOST };
    fb_entry(&b, &odd);
    fb_close(&b);
    fb_grow(&b, 3); /* to the next multiple of 8 */
    fb_container(&b);
    fb_close(&b); /* empty */
    fb_container(&b);
    fb_add(&b, PTX, 75, F_HOST);
    fb_close(&b);
    struct gd_fatbin f;
    assert_int_equal(parse(&b, &f), GD_OK);
    assert_false(f.partial);
    assert_int_equal(f.containers, 3);
    assert_int_equal(f.entries, 2);
    gd_fatbin_free(&f);
    free(b.p);
}

/* Past each cap the walk stops with what it had, marked partial. */
static void test_caps(void **state)
{
    (void)state;
    struct gd_fatbin f;
    /* Distinct architectures. */
    struct fb b = { 0 };
    fb_container(&b);
    for (unsigned i = 0; i <= GD_FATBIN_MAX_ARCHS; i++)
        fb_add(&b, SASS, 1000 - i, F_HOST);
    fb_close(&b);
    assert_int_equal(parse(&b, &f), GD_OK);
    assert_true(f.partial);
    assert_int_equal(f.narchs, GD_FATBIN_MAX_ARCHS);
    assert_int_equal(f.entries, GD_FATBIN_MAX_ARCHS);
    gd_fatbin_free(&f);
    free(b.p);

    /* Entries: GD_FATBIN_MAX_ENTRIES + 1 headers of 64 bytes without payloads (16 MiB). */
    b = (struct fb){ 0 };
    fb_container(&b);
    size_t at = fb_grow(&b, (GD_FATBIN_MAX_ENTRIES + 1) * (size_t)64);
    for (size_t i = 0; i <= GD_FATBIN_MAX_ENTRIES; i++) {
        unsigned char *e = b.p + at + 64 * i;
        fb_put(e, 0, 2, SASS);
        fb_put(e, 4, 4, 64);
        fb_put(e, 28, 4, 80 + i % 2);
    }
    fb_close(&b);
    assert_int_equal(parse(&b, &f), GD_OK);
    assert_true(f.partial);
    assert_int_equal(f.entries, GD_FATBIN_MAX_ENTRIES);
    assert_int_equal(f.narchs, 2);
    assert_int_equal(f.archs[0].count + f.archs[1].count, GD_FATBIN_MAX_ENTRIES);
    gd_fatbin_free(&f);
    free(b.p);

    /* Containers: GD_FATBIN_MAX_CONTAINERS + 1 empty ones (1 MiB): nothing read, an error. */
    b = (struct fb){ 0 };
    for (size_t i = 0; i <= GD_FATBIN_MAX_CONTAINERS; i++) {
        fb_container(&b);
        fb_close(&b);
    }
    assert_int_equal(parse(&b, &f), GD_ELIMIT);
    /* The same after an entry: that entry, partial. */
    fb_put(b.p, 8, 8, 64 + 16);
    struct fb one = { 0 };
    fb_add(&one, SASS, 80, F_HOST);
    unsigned char *p = malloc(b.len + one.len);
    assert_non_null(p);
    memcpy(p, b.p, 16);
    memcpy(p + 16, one.p, one.len);
    memcpy(p + 16 + one.len, b.p + 16, b.len - 16);
    free(b.p);
    b.p = p;
    b.len += one.len;
    assert_int_equal(parse(&b, &f), GD_OK);
    assert_true(f.partial);
    assert_int_equal(f.containers, GD_FATBIN_MAX_CONTAINERS);
    assert_int_equal(f.entries, 1);
    gd_fatbin_free(&f);
    free(one.p);
    free(b.p);
}

/* ---- ELF files built by hand ---------------------------------------------------------------- */

struct mini_section {
    const char *name;
    uint32_t type;
    const void *data; /* copied into the image; NULL: offset and size are taken as they are */
    uint64_t offset, size;
};

#define SHT_PROGBITS 1
#define SHT_STRTAB   3
#define SHT_NOBITS   8

/* An x86-64 ELF64 shared object with only an ELF header, the sections' contents, a name table
 * and the section header table (no program headers: the reader needs none). Free with free(). */
static unsigned char *mini_elf(const struct mini_section *secs, size_t n, size_t *len)
{
    struct fb b = { 0 };
    fb_grow(&b, 64);
    uint64_t *offsets = calloc(n + 1, sizeof *offsets);
    assert_non_null(offsets);
    for (size_t i = 0; i < n; i++) {
        if (!secs[i].data) {
            offsets[i] = secs[i].offset;
            continue;
        }
        fb_grow(&b, (8 - b.len % 8) % 8);
        offsets[i] = fb_grow(&b, (size_t)secs[i].size);
        memcpy(b.p + offsets[i], secs[i].data, (size_t)secs[i].size);
    }
    size_t names = fb_grow(&b, 1), *name_at = calloc(n + 1, sizeof *name_at);
    assert_non_null(name_at);
    for (size_t i = 0; i <= n; i++) {
        const char *name = i < n ? secs[i].name : ".shstrtab";
        name_at[i] = b.len - names;
        size_t at = fb_grow(&b, strlen(name) + 1);
        memcpy(b.p + at, name, strlen(name) + 1);
    }
    size_t names_size = b.len - names;
    fb_grow(&b, (8 - b.len % 8) % 8);
    size_t shoff = fb_grow(&b, 64 * (n + 2));
    for (size_t i = 0; i <= n; i++) {
        unsigned char *sh = b.p + shoff + 64 * (i + 1);
        fb_put(sh, 0, 4, name_at[i]);
        fb_put(sh, 4, 4, i < n ? secs[i].type : SHT_STRTAB);
        fb_put(sh, 8, 8, i < n ? 2 : 0); /* SHF_ALLOC */
        fb_put(sh, 24, 8, i < n ? offsets[i] : names);
        fb_put(sh, 32, 8, i < n ? secs[i].size : names_size);
        fb_put(sh, 48, 8, i < n ? 8 : 1);
    }
    memcpy(b.p, "\177ELF\2\1\1", 7);
    fb_put(b.p, 16, 2, 3);  /* ET_DYN */
    fb_put(b.p, 18, 2, 62); /* EM_X86_64 */
    fb_put(b.p, 20, 4, 1);
    fb_put(b.p, 40, 8, shoff);
    fb_put(b.p, 52, 2, 64);
    fb_put(b.p, 54, 2, 56);
    fb_put(b.p, 58, 2, 64);
    fb_put(b.p, 60, 2, n + 2);
    fb_put(b.p, 62, 2, n + 1);
    free(offsets);
    free(name_at);
    *len = b.len;
    return b.p;
}

/* gd_fatbin_read_file on the file at `path`, which must be an ELF with sections. */
static enum gd_status read_path(const char *path, struct gd_fatbin *out)
{
    struct gd_os_file *f = NULL;
    assert_int_equal(gd_os_open_read(path, false, &f), GD_OK);
    struct gd_elf *e = NULL;
    enum gd_status st = gd_elf_read_file(f, &e);
    if (st != GD_OK)
        fail_msg("%s: not read as an ELF: %s", path, gd_status_str(st));
    st = gd_fatbin_read_file(f, e, out);
    gd_elf_free(e);
    gd_os_close(f);
    if (st == GD_OK)
        check_invariants(out);
    else
        check_empty(out);
    return st;
}

static enum gd_status read_image(const char *dir, const unsigned char *img, size_t len,
                                 struct gd_fatbin *out)
{
    char path[PATH_MAX];
    tu_write_n(dir, "lib.so", img, len);
    return read_path(tu_path(path, sizeof path, dir, "lib.so"), out);
}

/* Which sections are read: .nv_fatbin (all of them), else __nv_relfatbin; never a section
 * without contents; a section past the end of the file. */
static void test_sections(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("fatbin");
    struct fb a = { 0 }, r = { 0 };
    fb_container(&a);
    fb_add(&a, SASS, 80, F_HOST);
    fb_add(&a, PTX, 80, F_HOST);
    fb_close(&a);
    fb_container(&r);
    fb_add(&r, SASS, 75, F_HOST);
    fb_add(&r, SASS, 90, F_HOST);
    fb_close(&r);
    static const char text[] = "\xc3";
    struct gd_fatbin f;
    size_t len;
    unsigned char *img;

    struct mini_section none[] = { { ".text", SHT_PROGBITS, text, 0, 1 } };
    img = mini_elf(none, 1, &len);
    assert_int_equal(read_image(dir, img, len, &f), GD_ENOENT);
    free(img);

    struct mini_section nobits[] = { { ".nv_fatbin", SHT_NOBITS, NULL, 64, 1u << 20 } };
    img = mini_elf(nobits, 1, &len);
    assert_int_equal(read_image(dir, img, len, &f), GD_ENOENT);
    free(img);

    struct mini_section rel[] = { { "__nv_relfatbin", SHT_PROGBITS, r.p, 0, r.len } };
    img = mini_elf(rel, 1, &len);
    assert_int_equal(read_image(dir, img, len, &f), GD_OK);
    assert_true(f.relocatable);
    assert_int_equal(f.narchs, 2);
    expect_arch(&f, 0, 75, false, 1, GD_FATBIN_PLAIN);
    gd_fatbin_free(&f);
    free(img);

    /* Both: the linked one only, as cuobjdump lists it and the runtime loads it. */
    struct mini_section both[] = { { "__nv_relfatbin", SHT_PROGBITS, r.p, 0, r.len },
                                   { ".nv_fatbin", SHT_PROGBITS, a.p, 0, a.len } };
    img = mini_elf(both, 2, &len);
    assert_int_equal(read_image(dir, img, len, &f), GD_OK);
    assert_false(f.relocatable);
    assert_int_equal(f.narchs, 2);
    expect_arch(&f, 0, 80, false, 1, GD_FATBIN_PLAIN);
    expect_arch(&f, 1, 80, true, 1, GD_FATBIN_PLAIN);
    gd_fatbin_free(&f);
    free(img);

    struct mini_section two[] = { { ".nv_fatbin", SHT_PROGBITS, a.p, 0, a.len },
                                  { ".nv_fatbin", SHT_PROGBITS, r.p, 0, r.len } };
    img = mini_elf(two, 2, &len);
    assert_int_equal(read_image(dir, img, len, &f), GD_OK);
    assert_int_equal(f.containers, 2);
    assert_int_equal(f.narchs, 4);
    gd_fatbin_free(&f);

    /* The second section past the end of the file: partial. The first: an error. */
    struct mini_section cut[] = { { ".nv_fatbin", SHT_PROGBITS, a.p, 0, a.len },
                                  { ".nv_fatbin", SHT_PROGBITS, NULL, len - 64, 4096 } };
    free(img);
    img = mini_elf(cut, 2, &len);
    assert_int_equal(read_image(dir, img, len, &f), GD_OK);
    assert_true(f.partial);
    assert_int_equal(f.narchs, 2);
    gd_fatbin_free(&f);
    free(img);
    struct mini_section cut1[] = { { ".nv_fatbin", SHT_PROGBITS, NULL, 4096, UINT64_MAX - 100 } };
    img = mini_elf(cut1, 1, &len);
    assert_int_equal(read_image(dir, img, len, &f), GD_ETRUNCATED);
    free(img);

    /* A section whose bytes are no fatbin. */
    struct mini_section junk[] = { { ".nv_fatbin", SHT_PROGBITS, "not a fatbin at all", 0, 19 } };
    img = mini_elf(junk, 1, &len);
    assert_int_equal(read_image(dir, img, len, &f), GD_EFORMAT);
    free(img);

    /* An ELF whose section table could not be read: its reason. */
    struct gd_elf elf = { 0 };
    elf.sections_status = GD_ETRUNCATED;
    assert_int_equal(gd_fatbin_read_file(NULL, &elf, &f), GD_ETRUNCATED);
    check_empty(&f);

    free(a.p);
    free(r.p);
    tu_rmtree(dir);
    free(dir);
}

/* A 1 GiB sparse library whose fatbin payloads fill it: only headers are read. */
static void test_few_page_reads(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("fatbin");
    char path[PATH_MAX];
    tu_path(path, sizeof path, dir, "libhuge.so");
    const uint64_t start = 8192;
    static const struct fb_entry entries[] = {
        { SASS, 80, 1, 8, 0, 300u << 20, F_HOST | F_ZSTD },
        { PTX, 80, 9, 0, 80, 8, F_HOST | F_ZSTD },
        { SASS, 90, 1, 8, 64, 250u << 20, F_HOST | F_ARCH },
        { SASS, 100, 1, 8, 112, 250u << 20, F_HOST | F_FAMILY },
        { SASS, 120, 1, 8, 112, 270u << 20, F_HOST },
    };
    /* Two containers: the first three entries, then the last two. */
    FILE *out = tu_open_rw(path, true);
    uint64_t at = start;
    for (size_t c = 0; c < 2; c++) {
        size_t first = c == 0 ? 0 : 3, last = c == 0 ? 3 : 5;
        uint64_t body = 0;
        for (size_t i = first; i < last; i++)
            body += (entries[i].header ? entries[i].header : 64) + entries[i].payload;
        unsigned char h[16] = { 0 };
        fb_put(h, 0, 4, 0xBA55ED50u);
        fb_put(h, 4, 2, 1);
        fb_put(h, 6, 2, 16);
        fb_put(h, 8, 8, body);
        tu_pwrite(out, h, 16, at);
        at += 16;
        for (size_t i = first; i < last; i++) {
            struct fb one = { 0 };
            struct fb_entry e = entries[i];
            uint64_t payload = e.payload;
            e.payload = 0; /* the header alone; the payload stays a hole */
            fb_entry(&one, &e);
            fb_put(one.p, 8, 8, payload);
            tu_pwrite(out, one.p, one.len, at);
            at += one.len + payload;
            free(one.p);
        }
    }
    uint64_t size = at - start;
    struct mini_section s[] = { { ".nv_fatbin", SHT_PROGBITS, NULL, start, size } };
    size_t len;
    unsigned char *img = mini_elf(s, 1, &len);
    assert_true(len < start);
    tu_pwrite(out, img, len, 0);
    tu_set_size(out, at);
    free(img);
    fclose(out);
    assert_true(at > (1ull << 30));

    struct gd_fatbin f;
    assert_int_equal(read_path(path, &f), GD_OK);
    assert_int_equal(f.containers, 2);
    assert_int_equal(f.entries, 5);
    assert_int_equal(f.narchs, 5);
    expect_arch(&f, 2, 90, false, 1, GD_FATBIN_ARCH_SPECIFIC);
    expect_arch(&f, 3, 100, false, 1, GD_FATBIN_FAMILY);
    /* One page per container header and per entry at most; the first two entries share one. */
    if (f.page_reads > 7)
        fail_msg("%u page reads for a 1 GiB fatbin of 5 entries", f.page_reads);
    gd_fatbin_free(&f);
    tu_rmtree(dir);
    free(dir);
}

/* ---- real fatbins -----------------------------------------------------------------------------
 */

/* cuobjdump --list-elf --list-ptx lines ("ELF file    1: name.1.sm_90a.cubin", "PTX file    1:
 * name.1.sm_90.ptx") as a list in the reader's order and form. Returns false when `text` holds
 * no such line. */
static bool from_cuobjdump(const char *text, struct gd_fatbin *out)
{
    memset(out, 0, sizeof *out);
    out->archs = calloc(GD_FATBIN_MAX_ARCHS, sizeof *out->archs);
    assert_non_null(out->archs);
    for (const char *line = text; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        bool ptx = strncmp(line, "PTX file", 8) == 0;
        if (!ptx && strncmp(line, "ELF file", 8) != 0)
            continue;
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *sm = NULL;
        for (const char *p = line; p + 4 <= line + n; p++)
            if (memcmp(p, ".sm_", 4) == 0)
                sm = p + 4;
        if (!sm)
            fail_msg("cuobjdump line without an architecture: %.*s", (int)n, line);
        char *rest;
        unsigned v = (unsigned)strtoul(sm, &rest, 10);
        unsigned variant = *rest == 'a'   ? GD_FATBIN_ARCH_SPECIFIC
                           : *rest == 'f' ? GD_FATBIN_FAMILY
                                          : GD_FATBIN_PLAIN;
        size_t i = 0;
        while (i < out->narchs && !(out->archs[i].sm == v && out->archs[i].ptx == ptx))
            i++;
        if (i == out->narchs) {
            assert_true(out->narchs < GD_FATBIN_MAX_ARCHS);
            out->archs[out->narchs++] = (struct gd_fatbin_arch){ .sm = v, .ptx = ptx };
        }
        out->archs[i].count++;
        out->archs[i].variants |= variant;
        out->entries++;
    }
    return out->entries > 0;
}

/* The reader's list equals cuobjdump's: the same (sm, PTX or SASS, flavours) with the same
 * number of entries; LTO-IR and unknown kinds are not among cuobjdump's ELF and PTX files. */
static void expect_same(const char *what, const struct gd_fatbin *got, const struct gd_fatbin *ref)
{
    bool same = got->narchs == ref->narchs &&
                got->entries - got->lto_entries - got->unknown_entries == ref->entries;
    for (size_t i = 0; same && i < ref->narchs; i++) {
        const struct gd_fatbin_arch *r = &ref->archs[i];
        const struct gd_fatbin_arch *g = gd_fatbin_find(got, r->sm, r->ptx);
        same = g && g->count == r->count && g->variants == r->variants;
    }
    if (same)
        return;
    char text[4096];
    size_t o = 0;
    for (int k = 0; k < 2; k++) {
        const struct gd_fatbin *f = k ? ref : got;
        o += (size_t)snprintf(text + o, sizeof text - o, "%s:", k ? "\ncuobjdump" : "reader");
        for (size_t i = 0; i < f->narchs && o < sizeof text - 64; i++)
            o += (size_t)snprintf(text + o, sizeof text - o, " %s_%u(%u)x%u",
                                  f->archs[i].ptx ? "compute" : "sm", f->archs[i].sm,
                                  f->archs[i].variants, f->archs[i].count);
    }
    fail_msg("%s: the lists differ\n%s", what, text);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    char *text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static unsigned char *slurp_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(n > 0 ? (size_t)n : 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* The nvcc 13 library of tests/fixtures/fatbin (README.md there): exactly what was asked for. */
static void test_fixture_cuda13(void **state)
{
    (void)state;
    struct gd_fatbin f;
    assert_int_equal(read_path(GD_SOURCE_DIR "/tests/fixtures/fatbin/libfatbin-cuda13.so", &f),
                     GD_OK);
    assert_int_equal(f.containers, 1);
    assert_int_equal(f.entries, 4);
    assert_true(f.compressed);
    assert_false(f.partial);
    assert_false(f.relocatable);
    assert_int_equal(f.narchs, 4);
    expect_arch(&f, 0, 75, false, 1, GD_FATBIN_PLAIN);
    expect_arch(&f, 1, 90, false, 1, GD_FATBIN_ARCH_SPECIFIC);
    expect_arch(&f, 2, 100, false, 1, GD_FATBIN_FAMILY);
    expect_arch(&f, 3, 120, true, 1, GD_FATBIN_PLAIN);
    assert_int_equal(f.archs[3].version_major, 9); /* PTX ISA 9.0, CUDA 13.0 */
    assert_int_equal(f.archs[3].version_minor, 0);
    assert_int_equal(f.archs[0].version_major, 1);
    assert_int_equal(f.archs[0].version_minor, 8);
    assert_true(f.page_reads <= 3);
    gd_fatbin_free(&f);
}

/* The CUDA 11.8 section of tests/fixtures/fatbin, against what cuobjdump 11.8 listed for it. */
static void test_fixture_cuda118(void **state)
{
    (void)state;
    size_t len;
    unsigned char *bytes =
        slurp_bytes(GD_SOURCE_DIR "/tests/fixtures/fatbin/cuda11.8.nv_fatbin", &len);
    struct gd_fatbin f;
    assert_int_equal(gd_fatbin_parse(bytes, len, &f), GD_OK);
    check_invariants(&f);
    assert_int_equal(f.containers, 2);
    assert_int_equal(f.entries, 4);
    assert_true(f.compressed);
    expect_arch(&f, 0, 75, false, 1, GD_FATBIN_PLAIN);
    expect_arch(&f, 1, 80, true, 1, GD_FATBIN_PLAIN);
    assert_int_equal(f.archs[1].version_major, 7); /* PTX ISA 7.8 */
    assert_int_equal(f.archs[1].version_minor, 8);
    char *listing = slurp(GD_SOURCE_DIR "/tests/fixtures/fatbin/cuda11.8.cuobjdump.txt");
    struct gd_fatbin ref;
    assert_true(from_cuobjdump(listing, &ref));
    expect_same("cuda11.8.nv_fatbin", &f, &ref);
    free(ref.archs);
    free(listing);
    gd_fatbin_free(&f);
    free(bytes);
}

/* The sections the e2e framework cases link into their libraries (`lib ... fatbin=FILE`):
 * exactly the architectures tests/fixtures/fatbin/README.md says each was made with. */
static void test_fixture_frameworks(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        unsigned narchs, sm[4];
        bool ptx[4];
    } blobs[] = {
        { "sass75-80-86-90.nv_fatbin", 4, { 75, 80, 86, 90 }, { false, false, false, false } },
        { "sass75-80-86.nv_fatbin", 3, { 75, 80, 86 }, { false, false, false } },
        { "sass75-80-ptx80.nv_fatbin", 3, { 75, 80, 80 }, { false, false, true } },
    };
    for (size_t i = 0; i < sizeof blobs / sizeof *blobs; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/tests/fixtures/fatbin/%s", GD_SOURCE_DIR, blobs[i].file);
        size_t len;
        unsigned char *bytes = slurp_bytes(path, &len);
        assert_true(len < 16 * 1024); /* small enough to check in */
        struct gd_fatbin f;
        assert_int_equal(gd_fatbin_parse(bytes, len, &f), GD_OK);
        check_invariants(&f);
        assert_int_equal(f.containers, 1);
        assert_false(f.partial);
        /* fatbinary compresses PTX by default, never SASS unless told. */
        assert_int_equal(f.compressed, blobs[i].ptx[blobs[i].narchs - 1]);
        assert_int_equal(f.entries, blobs[i].narchs);
        assert_int_equal(f.narchs, blobs[i].narchs);
        for (unsigned k = 0; k < blobs[i].narchs; k++)
            expect_arch(&f, k, blobs[i].sm[k], blobs[i].ptx[k], 1, GD_FATBIN_PLAIN);
        if (blobs[i].ptx[blobs[i].narchs - 1]) { /* PTX ISA 7.0, CUDA 11.0's */
            assert_int_equal(f.archs[blobs[i].narchs - 1].version_major, 7);
            assert_int_equal(f.archs[blobs[i].narchs - 1].version_minor, 0);
        }
        gd_fatbin_free(&f);
        free(bytes);
    }
}

/* Every allocation failed in turn: GD_ENOMEM each time, nothing left behind. */
static void test_enomem(void **state)
{
    (void)state;
    struct fb b = { 0 };
    fb_container(&b);
    for (unsigned i = 0; i < 40; i++) /* more architectures than the first allocation holds */
        fb_add(&b, i % 2 ? PTX : SASS, 50 + i, F_HOST);
    fb_close(&b);
    struct gd_fatbin f;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_fatbin_parse(b.p, b.len, &f), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    gd_fatbin_free(&f);
    assert_true(total >= 3);
    for (unsigned long n = 1; n <= total; n++) {
        gd_alloc_fail_at(n);
        enum gd_status st = gd_fatbin_parse(b.p, b.len, &f);
        gd_alloc_fail_at(0);
        if (st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed, yet the parse says %s", n, total,
                     gd_status_str(st));
        check_empty(&f);
    }
    free(b.p);

    /* The same through a file. */
    struct gd_os_file *file = NULL;
    assert_int_equal(
        gd_os_open_read(GD_SOURCE_DIR "/tests/fixtures/fatbin/libfatbin-cuda13.so", false, &file),
        GD_OK);
    struct gd_elf *e = NULL;
    assert_int_equal(gd_elf_read_file(file, &e), GD_OK);
    gd_alloc_fail_at(0);
    assert_int_equal(gd_fatbin_read_file(file, e, &f), GD_OK);
    total = gd_alloc_fail_at(0);
    gd_fatbin_free(&f);
    for (unsigned long n = 1; n <= total; n++) {
        gd_alloc_fail_at(n);
        enum gd_status st = gd_fatbin_read_file(file, e, &f);
        gd_alloc_fail_at(0);
        if (st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed, yet the read says %s", n, total,
                     gd_status_str(st));
        check_empty(&f);
    }
    gd_elf_free(e);
    gd_os_close(file);
}

/* ---- tools of this machine --------------------------------------------------------------------
 */

/* The first of $CUDA_HOME/bin/TOOL, /usr/local/cuda/bin/TOOL and TOOL on PATH that runs; false
 * when none does. */
static bool find_tool(const char *tool, char *out, size_t size)
{
    const char *home = getenv("CUDA_HOME");
    char candidates[3][PATH_MAX];
    snprintf(candidates[0], PATH_MAX, "%s/bin/%s", home && *home ? home : "/nonexistent", tool);
    snprintf(candidates[1], PATH_MAX, "/usr/local/cuda/bin/%s", tool);
    snprintf(candidates[2], PATH_MAX, "%s", tool);
    for (int i = 0; i < 3; i++) {
        char cmd[4 * PATH_MAX];
        size_t n = strlen(candidates[i]);
        snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", candidates[i]);
        if (n < size && system(cmd) == 0) {
            memcpy(out, candidates[i], n + 1);
            return true;
        }
    }
    return false;
}

/* The release a CUDA tool states ("release 13.0" in its --version) as 10 * major + minor; 0
 * when it states none. */
static unsigned tool_release(const char *tool, const char *dir)
{
    char cmd[3 * PATH_MAX], out[PATH_MAX];
    snprintf(out, sizeof out, "%s/version.txt", dir);
    snprintf(cmd, sizeof cmd, "'%s' --version > '%s' 2>&1", tool, out);
    if (system(cmd) != 0)
        return 0;
    char *text = slurp(out);
    const char *r = strstr(text, "release ");
    unsigned major = 0, minor = 0;
    if (r)
        sscanf(r, "release %u.%u", &major, &minor);
    free(text);
    return 10 * major + minor;
}

/* cuobjdump's list for `file`, when a cuobjdump at least as new as `need` (10 * major) is there:
 * an older one names CUDA 13 entries wrongly (tests/fixtures/fatbin/README.md). Prints why and
 * returns false otherwise. */
static bool cuobjdump_list(const char *file, const char *dir, unsigned need, struct gd_fatbin *ref)
{
    char tool[PATH_MAX];
    if (!find_tool("cuobjdump", tool, sizeof tool)) {
        print_message("no cuobjdump: %s not compared with it\n", file);
        return false;
    }
    unsigned release = tool_release(tool, dir);
    if (release < need) {
        print_message("%s is release %u.%u, older than the files' CUDA %u: %s not compared\n", tool,
                      release / 10, release % 10, need / 10, file);
        return false;
    }
    char cmd[4 * PATH_MAX], out[PATH_MAX];
    snprintf(out, sizeof out, "%s/cuobjdump.txt", dir);
    snprintf(cmd, sizeof cmd, "'%s' --list-elf --list-ptx '%s' > '%s' 2>&1", tool, file, out);
    if (system(cmd) != 0)
        fail_msg("failed: %s (%s)", cmd, out);
    char *text = slurp(out);
    bool listed = from_cuobjdump(text, ref);
    free(text);
    if (!listed)
        fail_msg("cuobjdump listed nothing for %s", file);
    return true;
}

/* A library nvcc builds now, for chosen architectures: exactly those are listed, and cuobjdump
 * agrees when one new enough is there. */
static void test_nvcc(void **state)
{
    (void)state;
    char nvcc[PATH_MAX];
    if (!find_tool("nvcc", nvcc, sizeof nvcc)) {
        print_message("no nvcc: the library is not built (the fixtures cover the reader)\n");
        skip();
    }
    char *dir = tu_mkdtemp("fatbin-nvcc");
    unsigned release = tool_release(nvcc, dir);
    if (release < 128) {
        /* sm_100a came with CUDA 12.8 */
        print_message("%s is release %u.%u; this test wants 12.8 or later\n", nvcc, release / 10,
                      release % 10);
        tu_rmtree(dir);
        free(dir);
        skip();
    }
    tu_write(dir, "k.cu",
             "__global__ void gd_add(float *x, float a) { x[threadIdx.x] += a; }\n"
             "extern \"C\" void gd_launch(float *x) { gd_add<<<1, 32>>>(x, 1.0f); }\n");
    char cmd[4 * PATH_MAX], lib[PATH_MAX];
    tu_path(lib, sizeof lib, dir, "libk.so");
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' -shared -Xcompiler -fPIC -o libk.so k.cu "
             "-gencode arch=compute_75,code=sm_75 "
             "-gencode arch=compute_90,code=[sm_90,compute_90] "
             "-gencode arch=compute_100a,code=sm_100a > nvcc.log 2>&1",
             dir, nvcc);
    if (system(cmd) != 0) {
        char log[PATH_MAX];
        char *text = slurp(tu_path(log, sizeof log, dir, "nvcc.log"));
        fail_msg("failed: %s\n%s", cmd, text);
    }
    struct gd_fatbin f;
    assert_int_equal(read_path(lib, &f), GD_OK);
    assert_false(f.partial);
    assert_int_equal(f.narchs, 4);
    /* nvcc -shared may emit more than one container for the same targets: counts vary. */
    assert_int_equal(f.archs[0].sm, 75);
    assert_false(f.archs[0].ptx);
    assert_int_equal(f.archs[0].variants, GD_FATBIN_PLAIN);
    assert_int_equal(f.archs[1].sm, 90);
    assert_false(f.archs[1].ptx);
    assert_int_equal(f.archs[1].variants, GD_FATBIN_PLAIN);
    assert_int_equal(f.archs[2].sm, 90);
    assert_true(f.archs[2].ptx);
    assert_int_equal(f.archs[3].sm, 100);
    assert_false(f.archs[3].ptx);
    assert_int_equal(f.archs[3].variants, GD_FATBIN_ARCH_SPECIFIC);
    struct gd_fatbin ref;
    if (cuobjdump_list(lib, dir, release / 10 * 10, &ref)) {
        expect_same(lib, &f, &ref);
        free(ref.archs);
    }
    gd_fatbin_free(&f);
    tu_rmtree(dir);
    free(dir);
}

/* CUDA libraries of this machine: read in few pages, and equal to cuobjdump's list when a
 * cuobjdump of their CUDA major is there. */
static void test_real_libraries(void **state)
{
    (void)state;
    static const char *const names[] = { "libcufft.so", "libcudnn_cnn.so", "libcublasLt.so",
                                         "libcurand.so" };
    static const char *const dirs[] = { "/usr/local/cuda/lib64", "/usr/local/cuda/lib" };
    char *dir = tu_mkdtemp("fatbin-real");
    char nvcc[PATH_MAX];
    unsigned major = find_tool("nvcc", nvcc, sizeof nvcc) ? tool_release(nvcc, dir) / 10 : 0;
    size_t read = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[PATH_MAX];
        bool found = false;
        for (size_t d = 0; d < 2 && !found; d++) {
            snprintf(path, sizeof path, "%s/%s", dirs[d], names[i]);
            found = access(path, R_OK) == 0;
        }
        if (!found)
            continue;
        struct gd_fatbin f;
        assert_int_equal(read_path(path, &f), GD_OK);
        assert_false(f.partial);
        assert_true(f.narchs > 0);
        /* A page per entry header at most, and one per container header. */
        if (f.page_reads > f.entries + f.containers + 2)
            fail_msg("%s: %u page reads for %zu entries", path, f.page_reads, f.entries);
        struct gd_fatbin ref;
        if (major && cuobjdump_list(path, dir, 10 * major, &ref)) {
            expect_same(path, &f, &ref);
            free(ref.archs);
        } else if (!major) {
            print_message("no nvcc to tell the toolkit's release: %s not compared\n", path);
        }
        gd_fatbin_free(&f);
        read++;
    }
    tu_rmtree(dir);
    free(dir);
    if (read == 0) {
        print_message("no CUDA library under /usr/local/cuda: skipped\n");
        skip();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_hostile_first),
        cmocka_unit_test(test_hostile_later),
        cmocka_unit_test(test_padding),
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_sections),
        cmocka_unit_test(test_few_page_reads),
        cmocka_unit_test(test_fixture_cuda13),
        cmocka_unit_test(test_fixture_cuda118),
        cmocka_unit_test(test_fixture_frameworks),
        cmocka_unit_test(test_enomem),
        cmocka_unit_test(test_nvcc),
        cmocka_unit_test(test_real_libraries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
