/* src/pe: hand-built PE images (the layouts of Microsoft's "PE Format", one field at a time),
 * every truncation and corruption of them, every failed allocation, and a DLL built by
 * mingw-w64 (fuzz/corpus/fuzz_pe/mingw-imports.dll: imports cudart64_110.dll, KERNEL32.dll and
 * msvcrt.dll). */
#include "core/alloc.h"
#include "pe/pe.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define IMG_SIZE   0x400
#define LFANEW     0x40
#define SEC_RAW    0x200
#define SEC_VA     0x1000
#define IMAGE_BASE 0x10000000u

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

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* rva of a byte of the one section */
static unsigned char *at(unsigned char *img, uint32_t rva)
{
    return img + SEC_RAW + (rva - SEC_VA);
}

/* A PE32+ DLL for x86-64 with one section holding: the import table (two DLLs) at 0x1000, the
 * delay-load table at 0x1080 (one RVA-form descriptor, one old VA-form), names from 0x1100. */
static void build(unsigned char *img)
{
    memset(img, 0, IMG_SIZE);
    img[0] = 'M';
    img[1] = 'Z';
    put32(img + 0x3c, LFANEW);
    unsigned char *pe = img + LFANEW;
    memcpy(pe, "PE\0\0", 4);
    put16(pe + 4, GD_PE_MACHINE_AMD64);
    put16(pe + 6, 1);       /* sections */
    put16(pe + 20, 240);    /* optional header: 112 + 16 directories */
    put16(pe + 22, 0x2022); /* DLL, executable, large-address aware */
    unsigned char *opt = pe + 24;
    put16(opt, 0x20b);
    put64(opt + 24, IMAGE_BASE);
    put32(opt + 108, 16);
    put32(opt + 112 + 8 * 1, 0x1000); /* import directory */
    put32(opt + 112 + 8 * 1 + 4, 60);
    put32(opt + 112 + 8 * 13, 0x1080); /* delay-load directory */
    put32(opt + 112 + 8 * 13 + 4, 96);
    unsigned char *sec = opt + 240;
    memcpy(sec, ".idata\0", 8);
    put32(sec + 8, 0x200); /* virtual size */
    put32(sec + 12, SEC_VA);
    put32(sec + 16, 0x200); /* raw size */
    put32(sec + 20, SEC_RAW);
    put32(at(img, 0x1000) + 12, 0x1100);
    put32(at(img, 0x1014) + 12, 0x1120);
    put32(at(img, 0x1080), 1); /* attributes: RVA-based */
    put32(at(img, 0x1080) + 4, 0x1140);
    put32(at(img, 0x10a0), 0); /* the VC6 form: a virtual address */
    put32(at(img, 0x10a0) + 4, IMAGE_BASE + 0x1160);
    strcpy((char *)at(img, 0x1100), "KERNEL32.dll");
    strcpy((char *)at(img, 0x1120), "cudart64_110.dll");
    strcpy((char *)at(img, 0x1140), "cudnn64_8.dll");
    strcpy((char *)at(img, 0x1160), "zlibwapi.dll");
}

static void test_hand_built(void **state)
{
    (void)state;
    static unsigned char img[IMG_SIZE];
    build(img);
    struct gd_pe *pe = NULL;
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_OK);
    assert_int_equal(pe->machine, GD_PE_MACHINE_AMD64);
    assert_string_equal(gd_pe_machine_name(pe->machine), "x86_64");
    assert_true(pe->pe32plus);
    assert_true(pe->is_dll);
    assert_int_equal(pe->imports_status, GD_OK);
    assert_int_equal(pe->n_imports, 2);
    assert_string_equal(pe->imports[0], "KERNEL32.dll");
    assert_string_equal(pe->imports[1], "cudart64_110.dll");
    assert_int_equal(pe->delay_status, GD_OK);
    assert_int_equal(pe->n_delay_imports, 2);
    assert_string_equal(pe->delay_imports[0], "cudnn64_8.dll");
    assert_string_equal(pe->delay_imports[1], "zlibwapi.dll");
    gd_pe_free(pe);
}

static void test_not_pe(void **state)
{
    (void)state;
    static unsigned char img[IMG_SIZE];
    struct gd_pe *pe = (struct gd_pe *)1;
    build(img);
    img[0] = 'X';
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_EFORMAT);
    assert_null(pe);
    /* A VA-form delay name below the image base is no address inside the image. */
    build(img);
    put32(at(img, 0x10a0) + 4, 0x1160);
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_OK);
    assert_int_equal(pe->delay_status, GD_EFORMAT);
    assert_int_equal(pe->n_delay_imports, 1);
    gd_pe_free(pe);
    build(img);
    img[LFANEW + 1] = 'X';
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_EFORMAT);
    build(img);
    put16(img + LFANEW + 24, 0x777); /* optional header magic */
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_EFORMAT);
    build(img);
    put32(img + 0x3c, 0xfffffff0u); /* e_lfanew past the end */
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_ETRUNCATED);
    build(img);
    put16(img + LFANEW + 6, 1000); /* more sections than Windows loads */
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_ELIMIT);
    assert_int_equal(gd_pe_read_memory("MZ", 2, &pe), GD_EFORMAT);
}

/* Broken tables leave the headers readable, with the reason. */
static void test_broken_tables(void **state)
{
    (void)state;
    static unsigned char img[IMG_SIZE];
    struct gd_pe *pe = NULL;
    build(img);
    put32(at(img, 0x1014) + 12, 0x9000); /* a name outside every section */
    memset(at(img, 0x10a0), 0, 32);      /* only the RVA-form delay entry */
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_OK);
    assert_int_equal(pe->imports_status, GD_EFORMAT);
    assert_int_equal(pe->n_imports, 1);
    assert_int_equal(pe->delay_status, GD_OK);
    assert_int_equal(pe->n_delay_imports, 1);
    gd_pe_free(pe);
    /* A name running to the end of the file without its NUL. */
    build(img);
    memset(at(img, 0x1140), 'a', IMG_SIZE - SEC_RAW - 0x140);
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_OK);
    assert_int_equal(pe->delay_status, GD_ETRUNCATED);
    gd_pe_free(pe);
    /* The delay table's directory pointing past its section. */
    build(img);
    put32(img + LFANEW + 24 + 112 + 8 * 13, 0x1000 + 0x1f0);
    assert_int_equal(gd_pe_read_memory(img, sizeof img, &pe), GD_OK);
    assert_int_equal(pe->delay_status, GD_ETRUNCATED);
    gd_pe_free(pe);
}

/* Every prefix of the image: a status or a result, never a crash (ASan watches). */
static void test_truncations(void **state)
{
    (void)state;
    static unsigned char img[IMG_SIZE];
    build(img);
    for (size_t len = 0; len < IMG_SIZE; len++) {
        unsigned char *copy = gd_malloc(len ? len : 1);
        assert_non_null(copy);
        memcpy(copy, img, len);
        struct gd_pe *pe = NULL;
        enum gd_status st = gd_pe_read_memory(copy, len, &pe);
        if (st == GD_OK)
            assert_true(len >= 64);
        else
            assert_null(pe);
        gd_pe_free(pe);
        gd_free(copy);
    }
}

static void test_alloc_failures(void **state)
{
    (void)state;
    static unsigned char img[IMG_SIZE];
    build(img);
    for (unsigned long n = 1;; n++) {
        gd_alloc_fail_at(n);
        struct gd_pe *pe = NULL;
        enum gd_status st = gd_pe_read_memory(img, sizeof img, &pe);
        unsigned long made = gd_alloc_fail_at(0);
        if (st == GD_OK) {
            /* No allocation failed: the run is complete. */
            assert_true(made < n);
            gd_pe_free(pe);
            break;
        }
        assert_int_equal(st, GD_ENOMEM);
        assert_null(pe);
    }
}

static void test_mingw_dll(void **state)
{
    (void)state;
    const char *path = GD_SOURCE_DIR "/fuzz/corpus/fuzz_pe/mingw-imports.dll";
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char data[1 << 16];
    size_t len = fread(data, 1, sizeof data, f);
    fclose(f);
    struct gd_pe *pe = NULL;
    assert_int_equal(gd_pe_read_memory(data, len, &pe), GD_OK);
    assert_int_equal(pe->machine, GD_PE_MACHINE_AMD64);
    assert_true(pe->pe32plus);
    assert_true(pe->is_dll);
    assert_int_equal(pe->n_imports, 3);
    assert_string_equal(pe->imports[0], "cudart64_110.dll");
    assert_string_equal(pe->imports[1], "KERNEL32.dll");
    assert_string_equal(pe->imports[2], "msvcrt.dll");
    /* GNU ld leaves the delay-load directory empty (its delay imports are plain code). */
    assert_int_equal(pe->n_delay_imports, 0);
    gd_pe_free(pe);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_built),     cmocka_unit_test(test_not_pe),
        cmocka_unit_test(test_broken_tables),  cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_alloc_failures), cmocka_unit_test(test_mingw_dll),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
