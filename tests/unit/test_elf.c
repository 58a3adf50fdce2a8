/* The ELF reader on hand-built images (every class, byte order and field), hostile variants of
 * them, a sparse 1 GiB file read in a few pages, and this machine's own programs. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "elf/elf.h"
#include "os/os.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "elfbuild.h"
#include "testutil.h"

static const unsigned char build_id[20] = { 0x13, 0x5a, 0xfc, 0x8c, 0x6d, 0x1b, 0x9e,
                                            0x02, 0x35, 0x6c, 0xce, 0x21, 0x8b, 0xf0,
                                            0x10, 0x9c, 0x36, 0x87, 0xad, 0x9f };
static const char build_id_hex[] = "135afc8c6d1b9e02356cce218bf0109c3687ad9f";

/* Everything the reader knows about, in one spec. */
static struct eb_spec full_spec(int cls, bool be)
{
    struct eb_spec s = { 0 };
    s.cls = cls;
    s.be = be;
    s.type = EB_ET_DYN;
    s.machine = cls == 64 ? (be ? EB_EM_PPC64 : EB_EM_X86_64) : (be ? EB_EM_PPC : EB_EM_386);
    s.osabi = 3;
    s.interp = cls == 64 ? "/lib64/ld-linux-x86-64.so.2" : "/lib/ld-linux.so.2";
    s.dynamic = true;
    s.soname = "libcudnn.so.9";
    s.rpath = "$ORIGIN/../lib";
    s.runpath = "/usr/local/cuda/lib64:$ORIGIN";
    s.needed[0] = "libcudart.so.12";
    s.needed[1] = "libc.so.6";
    s.needed[2] = "libdl.so.2";
    s.flags = 0x8;     /* DF_BIND_NOW */
    s.flags_1 = 0x801; /* DF_1_NOW | DF_1_NODEFLIB */
    s.build_id = build_id;
    s.build_id_len = sizeof build_id;
    s.abi_tag = true;
    s.abi[0] = 0;
    s.abi[1] = 3;
    s.abi[2] = 2;
    s.abi[3] = 0;
    s.sections = true;
    s.base = cls == 64 ? 0x400000 : 0x8048000;
    return s;
}

static void check_full(const struct gd_elf *e, const struct eb_spec *s, const struct eb_layout *l)
{
    assert_int_equal(e->elf_class, s->cls);
    assert_int_equal(e->big_endian, s->be);
    assert_int_equal(e->osabi, 3);
    assert_int_equal(e->type, EB_ET_DYN);
    assert_int_equal(e->machine, s->machine);
    assert_int_equal(e->file_size, l->len);
    assert_string_equal(e->interp, s->interp);
    assert_true(e->has_dynamic);
    assert_string_equal(e->soname, "libcudnn.so.9");
    assert_string_equal(e->rpath, "$ORIGIN/../lib");
    assert_string_equal(e->runpath, "/usr/local/cuda/lib64:$ORIGIN");
    assert_int_equal(e->nneeded, 3);
    assert_string_equal(e->needed[0], "libcudart.so.12");
    assert_string_equal(e->needed[1], "libc.so.6");
    assert_string_equal(e->needed[2], "libdl.so.2");
    assert_int_equal(e->flags, 0x8);
    assert_int_equal(e->flags_1, 0x801);
    assert_string_equal(e->build_id, build_id_hex);
    assert_string_equal(e->abi_tag, "Linux 3.2.0");
    assert_true(e->page_reads >= 1);
    /* Sections: the null one, .interp, .dynstr, .dynamic, .note, .shstrtab. */
    assert_int_equal(e->nsections, 6);
    assert_int_equal(e->sections_status, GD_OK);
    assert_string_equal(e->sections[0].name, "");
    static const char *const names[] = {
        "", ".interp", ".dynstr", ".dynamic", ".note", ".shstrtab"
    };
    static const uint32_t types[] = { 0, 1, 3, 6, 7, 3 };
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(e->sections[i].name, names[i]);
        assert_int_equal(e->sections[i].type, types[i]);
    }
    const struct gd_elf_section *dynstr = gd_elf_section(e, ".dynstr");
    assert_ptr_equal(dynstr, &e->sections[2]);
    assert_int_equal(dynstr->offset, l->dynstr_off);
    assert_int_equal(dynstr->size, l->dynstr_size);
    assert_int_equal(dynstr->flags, 2);
    assert_int_equal(dynstr->addr, s->base + l->dynstr_off);
    const struct gd_elf_section *dyn = gd_elf_section(e, ".dynamic");
    assert_non_null(dyn);
    assert_int_equal(dyn->offset, l->dyn_off);
    assert_int_equal(dyn->size, l->dyn_count * l->dyn_entsize);
    assert_int_equal(dyn->flags, 3);
    const struct gd_elf_section *shstr = gd_elf_section(e, ".shstrtab");
    assert_int_equal(shstr->offset, l->shstr_off);
    assert_int_equal(shstr->size, l->shstr_size);
    assert_int_equal(shstr->addr, 0);
    assert_null(gd_elf_section(e, ".text"));
}

/* Every field read back, for ELF32 and ELF64 in both byte orders, with plain and extended
 * (PN_XNUM, e_shnum == 0) header counts. */
static void test_fields(void **state)
{
    (void)state;
    for (int xnum = 0; xnum < 2; xnum++) {
        for (int cls = 32; cls <= 64; cls += 32) {
            for (int be = 0; be < 2; be++) {
                struct eb_spec s = full_spec(cls, be);
                s.xnum = xnum;
                struct eb_layout l;
                unsigned char *img = eb_build(&s, &l);
                if (xnum) {
                    assert_int_equal(eb_get_at(img, be, eb_eh(cls, "phnum"), 2), 0xffff);
                    assert_int_equal(eb_get_at(img, be, eb_eh(cls, "shnum"), 2), 0);
                    assert_int_equal(eb_get_at(img, be, eb_eh(cls, "shstrndx"), 2), 0xffff);
                }
                struct gd_elf *e = NULL;
                assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
                check_full(e, &s, &l);
                gd_elf_free(e);
                free(img);
            }
        }
    }
}

/* A minimal object: no PT_INTERP, no dynamic section, no notes, no section headers. */
static void test_minimal(void **state)
{
    (void)state;
    struct eb_spec s = { 0 };
    s.cls = 64;
    s.type = EB_ET_EXEC;
    s.machine = EB_EM_AARCH64;
    struct eb_layout l;
    unsigned char *img = eb_build(&s, &l);
    struct gd_elf *e = NULL;
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
    assert_int_equal(e->type, EB_ET_EXEC);
    assert_int_equal(e->machine, EB_EM_AARCH64);
    assert_null(e->interp);
    assert_false(e->has_dynamic);
    assert_null(e->soname);
    assert_null(e->rpath);
    assert_null(e->runpath);
    assert_int_equal(e->nneeded, 0);
    assert_null(e->needed);
    assert_int_equal(e->nsections, 0);
    assert_string_equal(e->build_id, "");
    assert_string_equal(e->abi_tag, "");
    gd_elf_free(e);
    free(img);
    /* The other GNU ABI tag operating systems, and an unknown one. */
    s = full_spec(64, false);
    static const char *const want[] = { "Linux 3.2.0", "GNU 3.2.0", "Solaris 3.2.0",
                                        "FreeBSD 3.2.0", "OS 3.2.0" };
    for (uint32_t os = 0; os < 5; os++) {
        s.abi[0] = os == 4 ? 77 : os;
        img = eb_build(&s, &l);
        assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
        assert_string_equal(e->abi_tag, want[os]);
        gd_elf_free(e);
        free(img);
    }
    gd_elf_free(NULL);
}

/* Notes in an 8-aligned PT_NOTE (as .note.gnu.property is in ELF64): the descriptor starts at
 * the next 8-byte boundary after the 12-byte header and the name, as glibc's
 * ELF_NOTE_DESC_OFFSET and binutils compute it, so a build id after a property note is found. */
static void test_notes_align8(void **state)
{
    (void)state;
    struct eb_spec s = full_spec(64, false);
    s.notes8 = true;
    s.abi_tag = false;
    struct eb_layout l;
    unsigned char *img = eb_build(&s, &l);
    /* Property note: 12 + "GNU\0" = 16 (aligned), 16 bytes of descriptor: the build id note
     * starts 32 bytes in, its descriptor 48 bytes in. */
    assert_int_equal(eb_get_at(img, false, l.note8_off + 32 + 8, 4), 3);
    assert_memory_equal(img + l.note8_off + 48, build_id, sizeof build_id);
    struct gd_elf *e = NULL;
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
    assert_string_equal(e->build_id, build_id_hex);
    gd_elf_free(e);
    free(img);
    /* A build id as long as the field holds (64 bytes: 128 hex digits), and one longer. */
    unsigned char big[65];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)(0xa0 + i % 16);
    s = full_spec(64, true);
    s.build_id = big;
    s.build_id_len = 64;
    img = eb_build(&s, &l);
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
    assert_int_equal(strlen(e->build_id), 128);
    assert_memory_equal(e->build_id, "a0a1a2a3", 8);
    assert_string_equal(e->abi_tag, "Linux 3.2.0"); /* the next note is still found */
    gd_elf_free(e);
    free(img);
    s.build_id_len = 65;
    img = eb_build(&s, &l);
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
    assert_string_equal(e->build_id, "");
    assert_string_equal(e->abi_tag, "Linux 3.2.0");
    gd_elf_free(e);
    free(img);
}

static bool bad_status(enum gd_status st)
{
    return st == GD_EFORMAT || st == GD_ETRUNCATED || st == GD_ELIMIT;
}

/* Every prefix of every image: refused with a status when it cuts what a loader needs (the
 * headers, program headers, interpreter, dynamic section and its strings), never read past or
 * crashed on. A prefix that cuts only the notes and the section header table, which end each
 * image, is an object without them, as glibc's loader maps it all the same. */
static void test_truncated(void **state)
{
    (void)state;
    for (int xnum = 0; xnum < 2; xnum++) {
        for (int cls = 32; cls <= 64; cls += 32) {
            for (int be = 0; be < 2; be++) {
                struct eb_spec s = full_spec(cls, be);
                s.xnum = xnum;
                struct eb_layout l;
                unsigned char *img = eb_build(&s, &l);
                /* With PN_XNUM the program header count is in section 0. */
                size_t needed = xnum ? l.shoff + (cls == 64 ? 64 : 40) : l.note_off;
                for (size_t len = 0; len < l.len; len++) {
                    /* An exact-size copy, so that the sanitizer sees any over-read. */
                    unsigned char *copy = malloc(len ? len : 1);
                    memcpy(copy, img, len);
                    struct gd_elf *e = (struct gd_elf *)1;
                    enum gd_status st = gd_elf_read_memory(copy, len, &e);
                    if (len < needed && !bad_status(st))
                        fail_msg("ELF%d %s truncated to %zu of %zu bytes: %s", cls,
                                 be ? "BE" : "LE", len, l.len, gd_status_str(st));
                    if (len >= needed && st != GD_OK)
                        fail_msg("ELF%d %s truncated to %zu of %zu bytes (sections cut): %s", cls,
                                 be ? "BE" : "LE", len, l.len, gd_status_str(st));
                    if (st == GD_OK) {
                        assert_string_equal(e->soname, "libcudnn.so.9");
                        assert_int_equal(e->nneeded, 3);
                        assert_string_equal(e->runpath, "/usr/local/cuda/lib64:$ORIGIN");
                        assert_int_equal(e->nsections, 0);
                        assert_null(e->sections);
                        assert_true(bad_status(e->sections_status));
                        assert_string_equal(e->build_id,
                                            len >= l.note_off + l.note_size ? build_id_hex : "");
                        gd_elf_free(e);
                    } else {
                        assert_null(e);
                    }
                    /* Shorter than an ELF header: not an ELF at all. */
                    if (len < 16)
                        assert_int_equal(st, GD_EFORMAT);
                    free(copy);
                }
                free(img);
            }
        }
    }
}

/* A source that announces more bytes than it delivers (a file that shrank under us). */
struct short_source {
    const unsigned char *data;
    size_t real;
};

static enum gd_status short_read(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got)
{
    const struct short_source *s = ctx;
    *got = 0;
    if (offset >= s->real)
        return GD_OK;
    size_t take = s->real - (size_t)offset < n ? s->real - (size_t)offset : n;
    memcpy(buf, s->data + offset, take);
    *got = take;
    return GD_OK;
}

static enum gd_status failing_read(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got)
{
    (void)ctx;
    (void)buf;
    (void)n;
    (void)offset;
    *got = 0;
    return GD_EIO;
}

static void test_source_lies(void **state)
{
    (void)state;
    struct eb_spec s = full_spec(64, false);
    struct eb_layout l;
    unsigned char *img = eb_build(&s, &l);
    for (size_t real = 0; real < l.len; real += 7) {
        struct short_source ss = { img, real };
        struct gd_elf_source src = { short_read, &ss, l.len };
        struct gd_elf *e = (struct gd_elf *)1;
        enum gd_status st = gd_elf_read(&src, &e);
        if (real < l.note_off) {
            assert_true(bad_status(st));
            assert_null(e);
        } else {
            /* Only notes and sections missing: read without them. */
            assert_int_equal(st, GD_OK);
            assert_int_equal(e->sections_status, GD_ETRUNCATED);
            assert_int_equal(e->nsections, 0);
            assert_string_equal(e->soname, "libcudnn.so.9");
            gd_elf_free(e);
        }
    }
    /* Read errors come back as they are. */
    struct gd_elf_source src = { failing_read, NULL, l.len };
    struct gd_elf *e = (struct gd_elf *)1;
    assert_int_equal(gd_elf_read(&src, &e), GD_EIO);
    assert_null(e);
    free(img);
}

/* Read `img` after `edit` changed it; returns the status, frees the result. */
static enum gd_status read_edited(const unsigned char *img, size_t len, struct gd_elf **keep)
{
    struct gd_elf *e = NULL;
    enum gd_status st = gd_elf_read_memory(img, len, &e);
    if (st != GD_OK)
        assert_null(e);
    if (keep)
        *keep = e;
    else
        gd_elf_free(e);
    return st;
}

/* The image reads, without sections, for `why`; everything a loader needs is there. */
static void sections_broken(const unsigned char *img, size_t len, enum gd_status why)
{
    struct gd_elf *e = NULL;
    assert_int_equal(read_edited(img, len, &e), GD_OK);
    assert_int_equal(e->sections_status, why);
    assert_int_equal(e->nsections, 0);
    assert_null(gd_elf_section(e, ".dynamic"));
    assert_string_equal(e->soname, "libcudnn.so.9");
    assert_int_equal(e->nneeded, 3);
    gd_elf_free(e);
}

static void put(unsigned char *img, const struct eb_spec *s, size_t off, int bytes, uint64_t v)
{
    eb_put_at(img, s->be, off, bytes, v);
}

/* Hostile headers: each change of one field yields the status it deserves. */
static void test_hostile_headers(void **state)
{
    (void)state;
    for (int cls = 32; cls <= 64; cls += 32) {
        for (int be = 0; be < 2; be++) {
            struct eb_spec s = full_spec(cls, be);
            struct eb_layout l;
            unsigned char *orig = eb_build(&s, &l), *img = malloc(l.len);
            int w = cls / 8;
#define FRESH() memcpy(img, orig, l.len)
            /* The identification bytes. */
            FRESH();
            img[1] = 'e';
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            FRESH();
            img[4] = 3; /* no such class */
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            FRESH();
            img[5] = 0; /* no byte order */
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            FRESH();
            img[6] = 2; /* EI_VERSION */
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            /* Program headers past the end, or at an offset that overflows. */
            FRESH();
            put(img, &s, eb_eh(cls, "phoff"), w, l.len - 8);
            assert_int_equal(read_edited(img, l.len, NULL), GD_ETRUNCATED);
            FRESH();
            put(img, &s, eb_eh(cls, "phoff"), w, cls == 64 ? UINT64_MAX - 16 : UINT32_MAX - 16);
            assert_int_equal(read_edited(img, l.len, NULL), GD_ETRUNCATED);
            FRESH();
            put(img, &s, eb_eh(cls, "phnum"), 2, 5000); /* past GD_ELF_MAX_PHDRS */
            assert_int_equal(read_edited(img, l.len, NULL), GD_ELIMIT);
            FRESH();
            put(img, &s, eb_eh(cls, "phnum"), 2, 200); /* runs past the end */
            assert_int_equal(read_edited(img, l.len, NULL), GD_ETRUNCATED);
            FRESH();
            put(img, &s, eb_eh(cls, "phentsize"), 2, 8);
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            FRESH();
            put(img, &s, eb_eh(cls, "phentsize"), 2, 0xffff);
            assert_int_equal(read_edited(img, l.len, NULL), GD_ETRUNCATED);
            /* A broken section header table: read without sections, and why. */
            FRESH();
            put(img, &s, eb_eh(cls, "shoff"), w, l.len - 4);
            sections_broken(img, l.len, GD_ETRUNCATED);
            FRESH();
            put(img, &s, eb_eh(cls, "shoff"), w, cls == 64 ? UINT64_MAX - 40 : UINT32_MAX - 40);
            sections_broken(img, l.len, GD_ETRUNCATED);
            FRESH();
            put(img, &s, eb_eh(cls, "shentsize"), 2, 12);
            sections_broken(img, l.len, GD_EFORMAT);
            FRESH();
            put(img, &s, eb_eh(cls, "shnum"), 2, 60000);
            sections_broken(img, l.len, GD_ETRUNCATED);
            /* Extended counts: a section count past GD_ELF_MAX_SHDRS; a program header count
             * past GD_ELF_MAX_PHDRS, or in an unreadable section 0, is fatal. */
            FRESH();
            put(img, &s, eb_eh(cls, "shnum"), 2, 0);
            put(img, &s, eb_sh(&l, cls, 0, "size"), w, 1000000000);
            sections_broken(img, l.len, GD_ELIMIT);
            FRESH();
            put(img, &s, eb_eh(cls, "phnum"), 2, 0xffff);
            put(img, &s, eb_sh(&l, cls, 0, "info"), 4, 100000);
            assert_int_equal(read_edited(img, l.len, NULL), GD_ELIMIT);
            FRESH();
            put(img, &s, eb_eh(cls, "phnum"), 2, 0xffff);
            put(img, &s, eb_eh(cls, "shentsize"), 2, 4); /* section 0 unreadable */
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            /* The section name table out of range or broken: names are empty, nothing fails. */
            struct gd_elf *e = NULL;
            FRESH();
            put(img, &s, eb_eh(cls, "shstrndx"), 2, 99);
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_int_equal(e->nsections, 6);
            for (size_t i = 0; i < e->nsections; i++)
                assert_string_equal(e->sections[i].name, "");
            assert_null(gd_elf_section(e, ".dynamic"));
            assert_string_equal(e->soname, "libcudnn.so.9");
            gd_elf_free(e);
            FRESH();
            put(img, &s, eb_sh(&l, cls, 3, "name"), 4, 100000); /* .dynamic's name */
            put(img, &s, eb_sh(&l, cls, l.shstrndx, "offset"), w, l.len + 100);
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_string_equal(e->sections[3].name, "");
            assert_string_equal(e->sections[2].name, ""); /* the table is past the end */
            gd_elf_free(e);
            FRESH();
            /* The table's last byte is not a NUL: its last name is unterminated. */
            put(img, &s, eb_sh(&l, cls, l.shstrndx, "size"), w, l.shstr_size - 1);
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_string_equal(e->sections[l.shstrndx].name, "");
            assert_string_equal(e->sections[1].name, ".interp");
            gd_elf_free(e);
            /* No section headers at all (sstrip): fine. */
            FRESH();
            put(img, &s, eb_eh(cls, "shoff"), w, 0);
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_int_equal(e->nsections, 0);
            assert_string_equal(e->soname, "libcudnn.so.9");
            gd_elf_free(e);
#undef FRESH
            free(img);
            free(orig);
        }
    }
}

/* Hostile segments: PT_INTERP, PT_DYNAMIC, the dynamic string table and the notes. */
static void test_hostile_segments(void **state)
{
    (void)state;
    for (int cls = 32; cls <= 64; cls += 32) {
        for (int be = 0; be < 2; be++) {
            struct eb_spec s = full_spec(cls, be);
            struct eb_layout l;
            unsigned char *orig = eb_build(&s, &l), *img = malloc(l.len);
            int w = cls / 8;
            struct gd_elf *e = NULL;
#define FRESH() memcpy(img, orig, l.len)
            /* PT_INTERP past the end, and without its NUL. */
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_interp, "offset"), w, l.len - 2);
            assert_int_equal(read_edited(img, l.len, NULL), GD_ETRUNCATED);
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_interp, "filesz"), w, l.interp_len - 1);
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_interp, "filesz"), w, 0);
            assert_true(bad_status(read_edited(img, l.len, NULL)));
            /* PT_DYNAMIC past the end, or with a count past GD_ELF_MAX_DYN. */
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_dynamic, "offset"), w, l.len - 8);
            assert_int_equal(read_edited(img, l.len, NULL), GD_ETRUNCATED);
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_dynamic, "filesz"), w,
                cls == 64 ? (1ULL << 40) : 0x7fffffff);
            assert_int_equal(read_edited(img, l.len, NULL), GD_ELIMIT);
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_dynamic, "filesz"), w, 70000ULL * l.dyn_entsize);
            assert_true(bad_status(read_edited(img, l.len, NULL)));
            /* A SONAME index past DT_STRSZ: the string table index is out of range. */
            size_t soname_val = l.dyn_off + 3 * l.dyn_entsize + (size_t)w;
            assert_int_equal(eb_get_at(img, be, soname_val - (size_t)w, w), 14);
            FRESH();
            put(img, &s, soname_val, w, l.dynstr_size);
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            FRESH();
            put(img, &s, soname_val, w, cls == 64 ? UINT64_MAX : UINT32_MAX);
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            /* DT_STRSZ cuts the last string (RUNPATH) before its NUL: unterminated. */
            size_t strsz_val = l.dyn_off + 7 * l.dyn_entsize + (size_t)w;
            assert_int_equal(eb_get_at(img, be, strsz_val - (size_t)w, w), 10);
            FRESH();
            put(img, &s, strsz_val, w, l.dynstr_size - 1);
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            /* DT_STRTAB at an address no PT_LOAD maps. */
            size_t strtab_val = strsz_val - l.dyn_entsize;
            assert_int_equal(eb_get_at(img, be, strtab_val - (size_t)w, w), 5);
            FRESH();
            put(img, &s, strtab_val, w, 0x10);
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            /* No DT_STRTAB at all while strings are named. */
            FRESH();
            put(img, &s, strtab_val - (size_t)w, w, 0x6ffffef5); /* DT_GNU_HASH: ignored */
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            /* The PT_LOAD maps less than the string table: strings are bounded by it. */
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_load, "filesz"), w, l.dynstr_off + 4);
            assert_int_equal(read_edited(img, l.len, NULL), GD_EFORMAT);
            /* The PT_LOAD maps past the end of the file: strings are bounded by the file. */
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_load, "filesz"), w, 0x7fffffff);
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_string_equal(e->soname, "libcudnn.so.9");
            gd_elf_free(e);
            /* Overlapping PT_LOADs: the first that maps the address decides. */
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_note, "type"), 4, EB_PT_LOAD);
            put(img, &s, eb_ph(&l, cls, l.ph_note, "vaddr"), w, s.base);
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_string_equal(e->soname, "libcudnn.so.9");
            assert_string_equal(e->build_id, ""); /* that PT_NOTE is a PT_LOAD now */
            gd_elf_free(e);
            /* Notes: sizes past the segment, a segment past the end: skipped, not fatal. */
            FRESH();
            put(img, &s, l.note_off, 4, 0xfffffff0); /* namesz of the build id note */
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_string_equal(e->build_id, "");
            assert_string_equal(e->abi_tag, "");
            gd_elf_free(e);
            FRESH();
            put(img, &s, l.note_off + 4, 4, 0xfffffff0); /* descsz */
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_string_equal(e->build_id, "");
            gd_elf_free(e);
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_note, "offset"), w, l.len - 4);
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_string_equal(e->build_id, "");
            gd_elf_free(e);
            FRESH();
            put(img, &s, eb_ph(&l, cls, l.ph_note, "filesz"), w, 1 << 20); /* past NOTES_MAX */
            assert_int_equal(read_edited(img, l.len, &e), GD_OK);
            assert_string_equal(e->build_id, "");
            assert_string_equal(e->soname, "libcudnn.so.9");
            gd_elf_free(e);
#undef FRESH
            free(img);
            free(orig);
        }
    }
}

/* A PT_LOAD whose file offset plus a string's distance into it overflows: the string must not
 * wrap around to the start of the file and be read from there. */
static void test_wrapping_offset(void **state)
{
    (void)state;
    struct eb_spec s = { 0 };
    s.cls = 64;
    s.type = EB_ET_DYN;
    s.machine = EB_EM_X86_64;
    s.dynamic = true;
    s.soname = "libx.so.1";
    s.base = 0x400000;
    struct eb_layout l;
    unsigned char *img = eb_build(&s, &l);
    struct gd_elf *e = NULL;
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
    assert_string_equal(e->soname, "libx.so.1");
    gd_elf_free(e);
    /* Entries: DT_SONAME, DT_STRTAB, DT_STRSZ, DT_NULL. */
    assert_int_equal(eb_get_at(img, false, l.dyn_off, 8), 14);
    assert_int_equal(eb_get_at(img, false, l.dyn_off + 32, 8), 10);
    eb_put_at(img, false, eb_ph(&l, 64, l.ph_load, "offset"), 8, UINT64_MAX - 0xfff);
    eb_put_at(img, false, eb_ph(&l, 64, l.ph_load, "filesz"), 8, 0x10000);
    eb_put_at(img, false, l.dyn_off + 40, 8, 0x10000); /* DT_STRSZ */
    /* The table sits at 2^64 - 0x1000 + dynstr_off: this index wraps to file offset 1. */
    eb_put_at(img, false, l.dyn_off + 8, 8, 0x1000 - l.dynstr_off + 1);
    e = NULL;
    enum gd_status st = gd_elf_read_memory(img, l.len, &e);
    if (st == GD_OK)
        fail_msg("a wrapped string offset was read as the SONAME \"%s\"", e->soname);
    assert_true(bad_status(st));
    assert_null(e);
    free(img);
}

/* More DT_NEEDED entries than GD_ELF_MAX_NEEDED. */
static void test_needed_limit(void **state)
{
    (void)state;
    struct eb_spec s = full_spec(64, false);
    s.needed_repeat = GD_ELF_MAX_NEEDED;
    struct eb_layout l;
    unsigned char *img = eb_build(&s, &l);
    struct gd_elf *e = NULL;
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
    assert_int_equal(e->nneeded, GD_ELF_MAX_NEEDED);
    assert_string_equal(e->needed[GD_ELF_MAX_NEEDED - 1], "libcudart.so.12");
    gd_elf_free(e);
    free(img);
    s.needed_repeat = GD_ELF_MAX_NEEDED + 1;
    img = eb_build(&s, &l);
    e = (struct gd_elf *)1;
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_ELIMIT);
    assert_null(e);
    free(img);
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Section headers that all name long strings of one table: the names share one copy of the
 * table (the fuzz helper's 4.2 MB file cost 4.2 GB when each name was copied), a name with no
 * NUL before the table ends is "", and one longer than GD_ELF_MAX_STRING is "" too. */
static void test_section_names_share_the_table(void **state)
{
    (void)state;
    enum { NSEC = 4000, LONG = 60000 };
    size_t table_off = 64, table_len = LONG + 1 + 10 + GD_ELF_MAX_STRING + 1 + 6;
    size_t shoff = (table_off + table_len + 7) & ~(size_t)7;
    size_t size = shoff + (size_t)NSEC * 64;
    unsigned char *img = calloc(1, size);
    assert_non_null(img);
    memcpy(img,
           "\x7f"
           "ELF",
           4);
    img[4] = 2; /* ELFCLASS64 */
    img[5] = 1; /* little-endian */
    img[6] = 1;
    put_le(img + 16, 3, 2);  /* ET_DYN */
    put_le(img + 18, 62, 2); /* x86-64 */
    put_le(img + 20, 1, 4);
    put_le(img + 40, shoff, 8);
    put_le(img + 52, 64, 2); /* e_ehsize */
    put_le(img + 58, 64, 2); /* e_shentsize */
    put_le(img + 60, NSEC, 2);
    put_le(img + 62, 1, 2); /* e_shstrndx */
    unsigned char *t = img + table_off;
    memset(t, 'a', LONG); /* name at 0: LONG characters */
    memcpy(t + LONG + 1, "short.name", 10);
    size_t too_long = LONG + 1 + 11;
    memset(t + too_long, 'b', GD_ELF_MAX_STRING); /* its NUL is one past the bound */
    size_t tail = too_long + GD_ELF_MAX_STRING + 1;
    memcpy(t + tail, "nonul!", 6); /* the table ends without a NUL */
    for (size_t i = 0; i < NSEC; i++) {
        unsigned char *h = img + shoff + i * 64;
        uint32_t name = i == 2   ? LONG + 1
                        : i == 3 ? (uint32_t)too_long
                        : i == 4 ? (uint32_t)tail
                        : i == 5 ? (uint32_t)table_len
                                 : (uint32_t)(i % 7);
        put_le(h, name, 4);
        put_le(h + 4, i == 1 ? 3 : 1, 4); /* SHT_STRTAB for the table */
        put_le(h + 24, i == 1 ? table_off : 0, 8);
        put_le(h + 32, i == 1 ? table_len : 0, 8);
    }
    struct gd_elf *e = NULL;
    assert_int_equal(gd_elf_read_memory(img, size, &e), GD_OK);
    assert_int_equal(e->nsections, NSEC);
    assert_non_null(e->shstrings);
    for (size_t i = 0; i < NSEC; i++) {
        const char *n = e->sections[i].name;
        assert_non_null(n);
        if (n[0])
            assert_true(n >= e->shstrings && n < e->shstrings + table_len);
    }
    assert_int_equal(strlen(e->sections[0].name), LONG);
    assert_int_equal(strlen(e->sections[6].name), LONG - 6);
    assert_string_equal(e->sections[2].name, "short.name");
    assert_string_equal(e->sections[3].name, ""); /* longer than GD_ELF_MAX_STRING */
    assert_string_equal(e->sections[4].name, ""); /* no NUL before the end */
    assert_string_equal(e->sections[5].name, ""); /* past the table */
    assert_ptr_equal(gd_elf_section(e, "short.name"), &e->sections[2]);
    gd_elf_free(e);
    free(img);
}

/* Each allocation of a read failed in turn: GD_ENOMEM every time, never another answer. */
static void test_alloc_failures(void **state)
{
    (void)state;
    struct eb_spec s = full_spec(64, true);
    struct eb_layout l;
    unsigned char *img = eb_build(&s, &l);
    struct gd_elf *e = NULL;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    gd_elf_free(e);
    assert_true(total > 10);
    for (unsigned long n = 1; n <= total; n++) {
        gd_alloc_fail_at(n);
        e = (struct gd_elf *)1;
        enum gd_status st = gd_elf_read_memory(img, l.len, &e);
        gd_alloc_fail_at(0);
        if (st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed, yet the read says %s", n, total,
                     gd_status_str(st));
        assert_null(e);
    }
    free(img);
}

/* A copy owns its strings: every field is the same after the original is gone, for a full
 * object (sections, notes) and a minimal one (no strings at all); out of memory anywhere in the
 * copy is GD_ENOMEM with nothing left behind. */
static void test_copy(void **state)
{
    (void)state;
    struct eb_spec s = full_spec(64, false);
    struct eb_layout l;
    unsigned char *img = eb_build(&s, &l);
    struct gd_elf *e = NULL, *c = NULL;
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
    assert_int_equal(gd_elf_copy(e, &c), GD_OK);
    assert_ptr_not_equal(c->dynstrings, e->dynstrings);
    memset(e->dynstrings, 'x', e->dynstrings_len);
    memset(e->shstrings, 'x', e->shstrings_len);
    gd_elf_free(e);
    check_full(c, &s, &l);
    for (unsigned long n = 1;; n++) {
        struct gd_elf *again = (struct gd_elf *)1;
        gd_alloc_fail_at(n);
        enum gd_status st = gd_elf_copy(c, &again);
        gd_alloc_fail_at(0);
        if (st == GD_OK) {
            check_full(again, &s, &l);
            gd_elf_free(again);
            break;
        }
        assert_int_equal(st, GD_ENOMEM);
        assert_null(again);
    }
    gd_elf_free(c);
    free(img);

    struct eb_spec m = { 0 };
    m.cls = 64;
    m.type = EB_ET_EXEC;
    m.machine = EB_EM_X86_64;
    img = eb_build(&m, &l);
    assert_int_equal(gd_elf_read_memory(img, l.len, &e), GD_OK);
    assert_int_equal(gd_elf_copy(e, &c), GD_OK);
    gd_elf_free(e);
    assert_null(c->interp);
    assert_null(c->soname);
    assert_null(c->dynstrings);
    assert_int_equal(c->nneeded, 0);
    assert_int_equal(c->nsections, 0);
    assert_int_equal(c->machine, EB_EM_X86_64);
    gd_elf_free(c);
    free(img);
}

/* A 1 GiB sparse file with its headers at the start and the section header table (and the
 * section names) near the end costs a few page reads, not a read of the file. */
static void test_few_page_reads(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("elf");
    char path[PATH_MAX];
    tu_path(path, sizeof path, dir, "libhuge.so");
    struct eb_spec s = full_spec(64, false);
    struct eb_layout l;
    unsigned char *img = eb_build(&s, &l);
    const uint64_t size = 1ULL << 30, tail = size - 3 * 4096 + 100;
    /* Section names and the table move to the tail; the section for the names points there. */
    uint64_t shstr_at = tail, shoff = (tail + l.shstr_size + 7) / 8 * 8;
    eb_put_at(img, false, eb_sh(&l, 64, l.shstrndx, "offset"), 8, shstr_at);
    eb_put_at(img, false, eb_eh(64, "shoff"), 8, shoff);
    FILE *out = tu_open_rw(path, true);
    tu_pwrite(out, img, l.shoff, 0);
    tu_pwrite(out, img + l.shstr_off, l.shstr_size, shstr_at);
    size_t shbytes = l.shnum * l.shentsize;
    tu_pwrite(out, img + l.shoff, shbytes, shoff);
    tu_set_size(out, size);
    fclose(out);
    free(img);

    struct gd_os_file *f = NULL;
    assert_int_equal(gd_os_open_read(path, false, &f), GD_OK);
    struct gd_elf *e = NULL;
    assert_int_equal(gd_elf_read_file(f, &e), GD_OK);
    gd_os_close(f);
    assert_int_equal(e->file_size, size);
    assert_string_equal(e->soname, "libcudnn.so.9");
    assert_string_equal(e->needed[0], "libcudart.so.12");
    assert_string_equal(e->build_id, build_id_hex);
    assert_int_equal(e->nsections, 6);
    assert_string_equal(e->sections[3].name, ".dynamic");
    assert_int_equal(gd_elf_section(e, ".shstrtab")->offset, shstr_at);
    if (e->page_reads > 8)
        fail_msg("%u page reads for a 1 GiB file", e->page_reads);
    assert_true(e->page_reads >= 2);
    gd_elf_free(e);
    tu_rmtree(dir);
    free(dir);
}

/* This machine's programs, when present: an executable with an interpreter and libc. */
static void test_real_files(void **state)
{
    (void)state;
    static const char *const files[] = { "/bin/sh", "/bin/ls", "/usr/bin/env" };
    size_t read = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        struct gd_os_file *f = NULL;
        if (gd_os_open_read(files[i], false, &f) != GD_OK)
            continue;
        struct gd_elf *e = NULL;
        enum gd_status st = gd_elf_read_file(f, &e);
        gd_os_close(f);
        if (st == GD_EFORMAT) /* a script, on some systems */
            continue;
        assert_int_equal(st, GD_OK);
        read++;
        assert_true(e->elf_class == 32 || e->elf_class == 64);
        assert_true(e->type == EB_ET_DYN || e->type == EB_ET_EXEC);
        assert_true(e->has_dynamic);
        assert_non_null(e->interp);
        assert_true(strstr(e->interp, "ld") != NULL);
        bool libc = false;
        for (size_t k = 0; k < e->nneeded; k++)
            libc |= strncmp(e->needed[k], "libc.so", 7) == 0;
        assert_true(libc);
        assert_true(e->nsections > 10);
        assert_non_null(gd_elf_section(e, ".dynamic"));
        assert_non_null(gd_elf_section(e, ".text"));
        if (e->page_reads > 16)
            fail_msg("%s: %u page reads", files[i], e->page_reads);
        gd_elf_free(e);
    }
    if (read == 0)
        skip();
}

static void test_names_and_compat(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(gd_elf_machine_name(62, buf, sizeof buf), "x86-64");
    assert_string_equal(gd_elf_machine_name(183, buf, sizeof buf), "AArch64");
    assert_string_equal(gd_elf_machine_name(3, buf, sizeof buf), "i386");
    assert_string_equal(gd_elf_machine_name(40, buf, sizeof buf), "ARM");
    assert_string_equal(gd_elf_machine_name(21, buf, sizeof buf), "PowerPC64");
    assert_string_equal(gd_elf_machine_name(22, buf, sizeof buf), "S/390");
    assert_string_equal(gd_elf_machine_name(243, buf, sizeof buf), "RISC-V");
    const char *other = gd_elf_machine_name(1234, buf, sizeof buf);
    assert_ptr_equal(other, buf);
    assert_string_equal(other, "machine 1234");
    struct gd_elf a = { 0 }, b = { 0 };
    a.elf_class = b.elf_class = 64;
    a.machine = b.machine = 62;
    assert_true(gd_elf_compatible(&a, &b));
    b.big_endian = true;
    assert_false(gd_elf_compatible(&a, &b));
    b.big_endian = false;
    b.elf_class = 32;
    assert_false(gd_elf_compatible(&a, &b));
    b.elf_class = 64;
    b.machine = 183;
    assert_false(gd_elf_compatible(&a, &b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_minimal),
        cmocka_unit_test(test_notes_align8),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_source_lies),
        cmocka_unit_test(test_hostile_headers),
        cmocka_unit_test(test_hostile_segments),
        cmocka_unit_test(test_needed_limit),
        cmocka_unit_test(test_wrapping_offset),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_few_page_reads),
        cmocka_unit_test(test_real_files),
        cmocka_unit_test(test_names_and_compat),
        cmocka_unit_test(test_section_names_share_the_table),
        cmocka_unit_test(test_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
