/*
 * The version resource of a PE image (VS_VERSIONINFO, what Explorer's "Details" tab shows): the
 * fixed file and product versions of VS_FIXEDFILEINFO and the usual StringFileInfo values, read
 * without trusting the file. NVIDIA's DLLs state their versions only there: nvcuda.dll's file
 * version (31.0.15.3623) is how a Windows machine's driver version (536.23) is known without
 * loading anything.
 *
 * The path: data directory 2 (the resource table) -> the RT_VERSION (16) entry -> its first name
 * -> its first language -> a data entry (RVA and size) -> the VS_VERSIONINFO block, whose child
 * blocks are StringFileInfo (string tables per language) and VarFileInfo. Every directory entry,
 * block length, key and value is checked against the data before use; the walk has a fixed depth,
 * so a table pointing at itself cannot loop.
 * References: Microsoft, "PE Format" (The .rsrc Section); "VS_VERSIONINFO", "VS_FIXEDFILEINFO",
 * "StringFileInfo", "StringTable", "String" (learn.microsoft.com, Win32 menus and other resources).
 */
#ifndef GD_PE_VERSION_H
#define GD_PE_VERSION_H

#include "pe/pe.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A version resource is a few hundred bytes; a larger one is refused (GD_ELIMIT). */
#define GD_PE_VERSION_MAX (64 * 1024)
/* Entries of one resource directory walked at most (GD_ELIMIT past it). */
#define GD_PE_RES_ENTRIES_MAX 4096
/* Bytes kept of each string value (UTF-8, cut on a character boundary). */
#define GD_PE_VERSION_STR 256

struct gd_pe_version {
    bool has_fixed;      /* VS_FIXEDFILEINFO with its signature was there */
    uint16_t file[4];    /* FileVersion, most significant part first: 31, 0, 15, 3623 */
    uint16_t product[4]; /* ProductVersion */
    char lang[9];        /* the string table read ("040904b0"); "" when there is none */
    /* Its values, "" when absent; control characters are written '?', bad UTF-16 U+FFFD. */
    char company_name[GD_PE_VERSION_STR];
    char file_description[GD_PE_VERSION_STR];
    char file_version[GD_PE_VERSION_STR];
    char product_name[GD_PE_VERSION_STR];
    char product_version[GD_PE_VERSION_STR];
    /* Why the string tables could not be read when the fixed part could (GD_OK when they
     * were, or when there are none). */
    enum gd_status strings_status;
};

/* The version resource of the image `pe` read from `src` (gd_pe_read of the same source).
 * GD_OK with `*out` filled; GD_ENOENT when the image has no version resource; GD_EFORMAT for a
 * broken resource table or VS_VERSIONINFO block; GD_ETRUNCATED when it runs past the file;
 * GD_ELIMIT past the caps above; GD_ENOMEM; or a read's own status. */
enum gd_status gd_pe_version_read(const struct gd_pe_source *src, const struct gd_pe *pe,
                                  struct gd_pe_version *out);
/* The VS_VERSIONINFO block alone, `len` bytes at `data` (borrowed): GD_OK, GD_EFORMAT,
 * GD_ETRUNCATED. For the resource data once found, and for tests. */
enum gd_status gd_pe_version_parse(const void *data, size_t len, struct gd_pe_version *out);
/* "31.0.15.3623" into `buf` (at least 24 bytes for any value). */
void gd_pe_version_format(const uint16_t v[4], char *buf, size_t size);

#endif
