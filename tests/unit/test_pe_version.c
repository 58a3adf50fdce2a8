/* src/pe/version.c: VS_VERSIONINFO blocks and resource tables built here field by field (the
 * layouts of Microsoft's "PE Format" .rsrc section and of VS_VERSIONINFO, StringFileInfo,
 * StringTable and String), every truncation and corruption of them, every failed allocation, and
 * the stand-in nvcuda.dll that mingw-w64's windres and ld build for the win-tf210 fixture
 * (tests/fixtures/win/make-dlls.sh). */
#include "core/alloc.h"
#include "pe/pe.h"
#include "pe/version.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* ---- a writer for the version blocks ---------------------------------------------------------
 */

struct out {
    unsigned char b[4096];
    size_t n;
};

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

static void pad4(struct out *o)
{
    while (o->n % 4)
        o->b[o->n++] = 0;
}

static void utf16(struct out *o, const char *s)
{
    for (; *s; s++) {
        put16(o->b + o->n, (unsigned char)*s);
        o->n += 2;
    }
    put16(o->b + o->n, 0);
    o->n += 2;
}

/* Begin a block: returns where its length goes; the caller fills the rest, then end_block. */
static size_t begin(struct out *o, const char *key, unsigned value_length, unsigned type)
{
    pad4(o);
    size_t start = o->n;
    put16(o->b + o->n + 2, value_length);
    put16(o->b + o->n + 4, type);
    o->n += 6;
    utf16(o, key);
    pad4(o);
    return start;
}

static void end_block(struct out *o, size_t start)
{
    put16(o->b + start, (unsigned)(o->n - start));
}

static void string(struct out *o, const char *key, const char *value)
{
    size_t s = begin(o, key, (unsigned)strlen(value) + 1, 1);
    utf16(o, value);
    end_block(o, s);
}

/* A VS_VERSIONINFO like the resource compilers write: fixed info 31.0.15.3623 / product
 * 31.0.15.3623, a StringFileInfo with one table, a VarFileInfo. */
static size_t build_info(struct out *o, bool var_first)
{
    memset(o, 0, sizeof *o);
    size_t root = begin(o, "VS_VERSION_INFO", 52, 0);
    unsigned char *f = o->b + o->n;
    put32(f, 0xFEEF04BDu);
    put32(f + 4, 0x00010000);
    put32(f + 8, 31u << 16 | 0);
    put32(f + 12, 15u << 16 | 3623);
    put32(f + 16, 31u << 16 | 0);
    put32(f + 20, 15u << 16 | 3623);
    o->n += 52;
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0) == var_first) {
            size_t var = begin(o, "VarFileInfo", 0, 1);
            size_t tr = begin(o, "Translation", 4, 0);
            put32(o->b + o->n, 0x04b00409);
            o->n += 4;
            end_block(o, tr);
            end_block(o, var);
        } else {
            size_t sfi = begin(o, "StringFileInfo", 0, 1);
            size_t table = begin(o, "040904b0", 0, 1);
            string(o, "CompanyName", "NVIDIA Corporation");
            string(o, "FileDescription", "NVIDIA CUDA 12.2.135 driver");
            string(o, "FileVersion", "31.0.15.3623");
            string(o, "ProductName", "NVIDIA CUDA 12.2.135 driver");
            string(o, "ProductVersion", "31.0.15.3623");
            end_block(o, table);
            end_block(o, sfi);
        }
    }
    end_block(o, root);
    return o->n;
}

static void test_parse(void **state)
{
    (void)state;
    for (int var_first = 0; var_first < 2; var_first++) {
        struct out o;
        size_t len = build_info(&o, var_first);
        struct gd_pe_version v;
        assert_int_equal(gd_pe_version_parse(o.b, len, &v), GD_OK);
        assert_true(v.has_fixed);
        char text[32];
        gd_pe_version_format(v.file, text, sizeof text);
        assert_string_equal(text, "31.0.15.3623");
        gd_pe_version_format(v.product, text, sizeof text);
        assert_string_equal(text, "31.0.15.3623");
        assert_string_equal(v.lang, "040904b0");
        assert_string_equal(v.company_name, "NVIDIA Corporation");
        assert_string_equal(v.file_description, "NVIDIA CUDA 12.2.135 driver");
        assert_string_equal(v.file_version, "31.0.15.3623");
        assert_string_equal(v.product_version, "31.0.15.3623");
        assert_int_equal(v.strings_status, GD_OK);
    }
}

/* Every prefix of a valid block: a documented status, never a read past the data (ASan). */
static void test_truncations(void **state)
{
    (void)state;
    struct out o;
    size_t len = build_info(&o, false);
    for (size_t n = 0; n < len; n++) {
        unsigned char *copy = gd_malloc(n ? n : 1);
        assert_non_null(copy);
        memcpy(copy, o.b, n);
        struct gd_pe_version v;
        enum gd_status st = gd_pe_version_parse(copy, n, &v);
        /* The root says how long it is: any shorter input is cut. */
        assert_int_equal(st, GD_ETRUNCATED);
        gd_free(copy);
    }
}

static void test_corruptions(void **state)
{
    (void)state;
    struct out o;
    size_t len = build_info(&o, false);
    struct gd_pe_version v;
    unsigned char copy[4096];

    /* Another key at the root. */
    memcpy(copy, o.b, len);
    put16(copy + 6, 'X');
    assert_int_equal(gd_pe_version_parse(copy, len, &v), GD_EFORMAT);
    /* A root shorter than its header. */
    memcpy(copy, o.b, len);
    put16(copy, 4);
    assert_int_equal(gd_pe_version_parse(copy, len, &v), GD_EFORMAT);
    /* A key without its NUL inside the block. */
    memcpy(copy, o.b, len);
    put16(copy, 20);
    assert_int_equal(gd_pe_version_parse(copy, len, &v), GD_EFORMAT);
    /* The fixed info's signature. */
    memcpy(copy, o.b, len);
    put32(copy + 40, 0x12345678);
    assert_int_equal(gd_pe_version_parse(copy, len, &v), GD_EFORMAT);
    /* A value length below VS_FIXEDFILEINFO's size. */
    memcpy(copy, o.b, len);
    put16(copy + 2, 20);
    assert_int_equal(gd_pe_version_parse(copy, len, &v), GD_EFORMAT);
    /* A string table whose key is not eight hex digits: the fixed part stands, the strings
     * say why they are missing. */
    memcpy(copy, o.b, len);
    size_t table = 0;
    for (size_t i = 0; i + 16 <= len; i += 2)
        if (copy[i] == '0' && copy[i + 2] == '4' && copy[i + 4] == '0' && copy[i + 6] == '9') {
            table = i;
            break;
        }
    assert_true(table > 0);
    put16(copy + table, 'z');
    assert_int_equal(gd_pe_version_parse(copy, len, &v), GD_OK);
    assert_true(v.has_fixed);
    assert_string_equal(v.lang, "");
    assert_int_equal(v.strings_status, GD_EFORMAT);
    /* A child whose length runs past its parent. */
    memcpy(copy, o.b, len);
    size_t child = 40 + 52; /* the first child follows the fixed info */
    put16(copy + child, 0xfff0);
    assert_int_equal(gd_pe_version_parse(copy, len, &v), GD_OK);
    assert_int_equal(v.strings_status, GD_ETRUNCATED);
}

/* Values are kept printable, UTF-16 decoded, cut to the buffer on a character boundary. */
static void test_text(void **state)
{
    (void)state;
    struct out o;
    memset(&o, 0, sizeof o);
    size_t root = begin(&o, "VS_VERSION_INFO", 0, 0);
    size_t sfi = begin(&o, "StringFileInfo", 0, 1);
    size_t table = begin(&o, "040904E4", 0, 1);
    size_t s = begin(&o, "CompanyName", 6, 1);
    const unsigned units[] = { 'A', 0x0a, 0xe9, 0xd83d, 0xde00, 0xdc00, 0 };
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        put16(o.b + o.n, units[i]);
        o.n += 2;
    }
    end_block(&o, s);
    s = begin(&o, "ProductName", 400, 1);
    for (int i = 0; i < 400; i++) {
        put16(o.b + o.n, 0x20ac); /* € : three UTF-8 bytes */
        o.n += 2;
    }
    put16(o.b + o.n, 0);
    o.n += 2;
    end_block(&o, s);
    end_block(&o, table);
    end_block(&o, sfi);
    end_block(&o, root);
    struct gd_pe_version v;
    assert_int_equal(gd_pe_version_parse(o.b, o.n, &v), GD_OK);
    assert_false(v.has_fixed);
    assert_string_equal(v.lang, "040904E4");
    assert_string_equal(v.company_name, "A?\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbd");
    size_t n = strlen(v.product_name);
    assert_true(n < GD_PE_VERSION_STR && n % 3 == 0 && n >= GD_PE_VERSION_STR - 3);
}

/* ---- resource tables in an image ------------------------------------------------------------ */

#define IMG_SIZE 0x1000
#define LFANEW   0x40
#define RSRC_RAW 0x200
#define RSRC_VA  0x2000
#define DATA_AT  0x100 /* the version block, from the section's start */

static unsigned char *at(unsigned char *img, uint32_t rva)
{
    return img + RSRC_RAW + (rva - RSRC_VA);
}

/* A directory at `off` (from the table's start) with one ID entry. */
static void directory(unsigned char *img, uint32_t off, uint32_t id, uint32_t to)
{
    unsigned char *d = at(img, RSRC_VA + off);
    put16(d + 14, 1); /* one ID entry */
    put32(d + 16, id);
    put32(d + 20, to);
}

/* A PE32+ DLL with one .rsrc section: type 16 -> name 1 -> language 0x409 -> data entry. */
static size_t build_image(unsigned char *img, const struct out *info)
{
    memset(img, 0, IMG_SIZE);
    img[0] = 'M';
    img[1] = 'Z';
    put32(img + 0x3c, LFANEW);
    unsigned char *pe = img + LFANEW;
    memcpy(pe, "PE\0\0", 4);
    put16(pe + 4, GD_PE_MACHINE_AMD64);
    put16(pe + 6, 1);
    put16(pe + 20, 240);
    put16(pe + 22, 0x2022);
    unsigned char *opt = pe + 24;
    put16(opt, 0x20b);
    put32(opt + 108, 16);
    put32(opt + 112 + 8 * 2, RSRC_VA); /* the resource directory */
    put32(opt + 112 + 8 * 2 + 4, 0xe00);
    unsigned char *sec = opt + 240;
    memcpy(sec, ".rsrc\0\0", 8);
    put32(sec + 8, 0xe00);
    put32(sec + 12, RSRC_VA);
    put32(sec + 16, 0xe00);
    put32(sec + 20, RSRC_RAW);
    directory(img, 0x00, 16, 0x80000000u | 0x18);      /* RT_VERSION */
    directory(img, 0x18, 1, 0x80000000u | 0x30);       /* name 1 */
    directory(img, 0x30, 0x409, 0x48);                 /* language -> data entry */
    put32(at(img, RSRC_VA + 0x48), RSRC_VA + DATA_AT); /* the data's RVA */
    put32(at(img, RSRC_VA + 0x48) + 4, (uint32_t)info->n);
    memcpy(at(img, RSRC_VA + DATA_AT), info->b, info->n);
    return IMG_SIZE;
}

static enum gd_status read_image(const unsigned char *img, size_t len, struct gd_pe_version *v)
{
    struct gd_pe_memory m = { img, len };
    struct gd_pe_source src = gd_pe_memory_source(&m);
    struct gd_pe *pe = NULL;
    enum gd_status st = gd_pe_read(&src, &pe);
    if (st != GD_OK)
        return st;
    st = gd_pe_version_read(&src, pe, v);
    gd_pe_free(pe);
    return st;
}

static void test_image(void **state)
{
    (void)state;
    static unsigned char img[IMG_SIZE];
    struct out o;
    build_info(&o, false);
    size_t len = build_image(img, &o);
    struct gd_pe_version v;
    assert_int_equal(read_image(img, len, &v), GD_OK);
    assert_true(v.has_fixed);
    assert_int_equal(v.file[0], 31);
    assert_int_equal(v.file[3], 3623);
    assert_string_equal(v.file_version, "31.0.15.3623");

    /* No RT_VERSION type: absent. */
    build_image(img, &o);
    put32(at(img, RSRC_VA) + 16, 24); /* RT_MANIFEST */
    assert_int_equal(read_image(img, len, &v), GD_ENOENT);
    /* A named entry is not type 16, even with that number in its name field. */
    build_image(img, &o);
    put16(at(img, RSRC_VA) + 12, 1);
    put16(at(img, RSRC_VA) + 14, 0);
    assert_int_equal(read_image(img, len, &v), GD_ENOENT);
    /* No resource directory at all. */
    build_image(img, &o);
    put32(img + LFANEW + 24 + 112 + 16, 0);
    assert_int_equal(read_image(img, len, &v), GD_ENOENT);
    /* A data entry where the name directory belongs. */
    build_image(img, &o);
    put32(at(img, RSRC_VA) + 20, 0x48);
    assert_int_equal(read_image(img, len, &v), GD_EFORMAT);
    /* A fourth level: the language entry leads to another directory. */
    build_image(img, &o);
    put32(at(img, RSRC_VA + 0x30) + 20, 0x80000000u | 0x00);
    assert_int_equal(read_image(img, len, &v), GD_EFORMAT);
    /* A directory claiming more entries than the cap. */
    build_image(img, &o);
    put16(at(img, RSRC_VA) + 14, 0xffff);
    assert_int_equal(read_image(img, len, &v), GD_ELIMIT);
    /* A subdirectory outside every section: unmapped; one at the section's very end: cut. */
    build_image(img, &o);
    directory(img, 0x00, 16, 0x80000000u | 0x5000);
    assert_int_equal(read_image(img, len, &v), GD_EFORMAT);
    build_image(img, &o);
    directory(img, 0x00, 16, 0x80000000u | 0xdfc);
    assert_int_equal(read_image(img, len, &v), GD_ETRUNCATED);
    /* Data larger than the cap, empty data, data outside every section. */
    build_image(img, &o);
    put32(at(img, RSRC_VA + 0x48) + 4, GD_PE_VERSION_MAX + 1);
    assert_int_equal(read_image(img, len, &v), GD_ELIMIT);
    build_image(img, &o);
    put32(at(img, RSRC_VA + 0x48) + 4, 0);
    assert_int_equal(read_image(img, len, &v), GD_EFORMAT);
    build_image(img, &o);
    put32(at(img, RSRC_VA + 0x48), 0x9000);
    assert_int_equal(read_image(img, len, &v), GD_EFORMAT);
    /* Data running past the end of the file. */
    build_image(img, &o);
    put32(at(img, RSRC_VA + 0x48) + 4, 0xe00);
    assert_int_equal(read_image(img, len - 0x100, &v), GD_ETRUNCATED);
    /* Every truncation of the whole image: a documented status. */
    build_image(img, &o);
    for (size_t n = 0; n < len; n += 7) {
        enum gd_status st = read_image(img, n, &v);
        assert_true(st == GD_OK || st == GD_EFORMAT || st == GD_ETRUNCATED || st == GD_ENOENT);
    }
}

static void test_alloc_failures(void **state)
{
    (void)state;
    static unsigned char img[IMG_SIZE];
    struct out o;
    build_info(&o, false);
    size_t len = build_image(img, &o);
    for (unsigned long n = 1;; n++) {
        gd_alloc_fail_at(n);
        struct gd_pe_version v;
        enum gd_status st = read_image(img, len, &v);
        unsigned long made = gd_alloc_fail_at(0);
        if (st == GD_OK) {
            assert_true(made < n);
            assert_true(v.has_fixed);
            break;
        }
        assert_int_equal(st, GD_ENOMEM);
    }
}

/* The stand-in nvcuda.dll of the win-tf210 root, built by windres and GNU ld. */
static void test_mingw_dll(void **state)
{
    (void)state;
    const char *path = GD_SOURCE_DIR "/tests/fixtures/roots/win-tf210/Windows/System32/nvcuda.dll";
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char data[1 << 16];
    size_t len = fread(data, 1, sizeof data, f);
    fclose(f);
    struct gd_pe_version v;
    assert_int_equal(read_image(data, len, &v), GD_OK);
    char text[32];
    gd_pe_version_format(v.file, text, sizeof text);
    assert_string_equal(text, "31.0.15.3623");
    assert_string_equal(v.file_version, "31.0.15.3623");
    assert_string_equal(v.lang, "040904b0");
    assert_string_equal(v.file_description, "stand-in for nvcuda.dll (NVIDIA CUDA driver)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),       cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_corruptions), cmocka_unit_test(test_text),
        cmocka_unit_test(test_image),       cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_mingw_dll),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
