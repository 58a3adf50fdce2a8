/*
 * Minimal PE images for the tests of the Windows DLL search: a DLL (or a program) for a chosen
 * machine whose import table names chosen DLLs, laid out as Microsoft's "PE Format" says — the
 * DOS header, the COFF header, a PE32 (i386) or PE32+ optional header with its data directories,
 * one section holding the import descriptors and the names. Nothing runs from them: the search
 * reads the headers and the import table, as the loader does before mapping anything. The DLLs
 * mingw-w64 builds are used beside them (tests/fixtures/roots/win-dllsearch).
 */
#ifndef GD_TESTS_PEBUILD_H
#define GD_TESTS_PEBUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PB_LFANEW  0x40
#define PB_SEC_RAW 0x200
#define PB_SEC_VA  0x1000

static inline void pb_put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void pb_put32(unsigned char *p, uint32_t v)
{
    pb_put16(p, v & 0xffff);
    pb_put16(p + 2, v >> 16);
}

/* A new image (free()) of `*len` bytes: a DLL unless `exe`, for `machine` (0x8664, 0x014c,
 * 0xaa64), importing the `n` names of `imports` (at most 32, each under 100 bytes). */
static inline unsigned char *pb_image(uint16_t machine, int exe, const char *const *imports,
                                      size_t n, size_t *len)
{
    size_t descs = (n + 1) * 20, names = 0;
    for (size_t i = 0; i < n; i++)
        names += strlen(imports[i]) + 1;
    size_t raw = (descs + names + 0x1ff) & ~(size_t)0x1ff;
    if (raw == 0)
        raw = 0x200;
    *len = PB_SEC_RAW + raw;
    unsigned char *img = calloc(1, *len);
    if (!img)
        return NULL;
    int plus = machine != 0x014c;
    img[0] = 'M';
    img[1] = 'Z';
    pb_put32(img + 0x3c, PB_LFANEW);
    unsigned char *pe = img + PB_LFANEW;
    memcpy(pe, "PE\0\0", 4);
    pb_put16(pe + 4, machine);
    pb_put16(pe + 6, 1);
    size_t opt_size = plus ? 240 : 224;
    pb_put16(pe + 20, (unsigned)opt_size);
    pb_put16(pe + 22, exe ? 0x0022 : 0x2022); /* executable (+ DLL), large-address aware */
    unsigned char *opt = pe + 24;
    pb_put16(opt, plus ? 0x20b : 0x10b);
    size_t dirs = plus ? 112 : 96;
    pb_put32(opt + dirs - 4, 16);
    if (n) {
        pb_put32(opt + dirs + 8, PB_SEC_VA); /* the import directory */
        pb_put32(opt + dirs + 12, (uint32_t)descs);
    }
    unsigned char *sec = opt + opt_size;
    memcpy(sec, ".idata\0", 8);
    pb_put32(sec + 8, (uint32_t)raw);
    pb_put32(sec + 12, PB_SEC_VA);
    pb_put32(sec + 16, (uint32_t)raw);
    pb_put32(sec + 20, PB_SEC_RAW);
    uint32_t name_rva = PB_SEC_VA + (uint32_t)descs;
    for (size_t i = 0; i < n; i++) {
        pb_put32(img + PB_SEC_RAW + i * 20 + 12, name_rva);
        strcpy((char *)img + PB_SEC_RAW + (name_rva - PB_SEC_VA), imports[i]);
        name_rva += (uint32_t)strlen(imports[i]) + 1;
    }
    return img;
}

#endif
