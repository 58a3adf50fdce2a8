/*
 * Fatbin sections: gd_fatbin_parse on the bytes, then gd_fatbin_read_source on the same bytes
 * through a source that watches every read, through one that ends early (a file that shrank
 * between stat and read), and over the input less its first 8 bytes read at offset 8.
 *
 * Invariants: a failure is a documented status and leaves the result empty. On success the
 * architectures are sorted by sm, SASS before PTX, distinct, each found again by
 * gd_fatbin_find, with a count of at least 1 and known flavour bits; their counts, the LTO-IR
 * and the unknown entries add up to `entries`; every cap holds; an entry takes at least 64 bytes
 * and a container 16, so neither outnumbers what the input can hold; an input without a complete
 * 16-byte header lists nothing. Reads: only whole GD_ELF_PAGE pages starting inside the
 * announced size, page_reads counts exactly those, and a page is read again only once the cache
 * must have dropped it. The watched source gives the result of gd_fatbin_parse, and reading at
 * an offset gives the result of parsing from there.
 */
#include "fuzz.h"

#include "elf/fatbin.h"

/* The page cache of elf.c holds this many pages and replaces them round-robin. */
#define FUZZ_FATBIN_CACHE_PAGES 8

struct watched {
    const uint8_t *data;
    size_t size;      /* announced */
    size_t delivered; /* bytes the source really has (< size: the file shrank) */
    size_t reads;
    size_t *last_read; /* per page: index of its last read, SIZE_MAX before the first */
};

static enum gd_status watched_read(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got)
{
    struct watched *w = ctx;
    FUZZ_CHECK(n == GD_ELF_PAGE && offset % GD_ELF_PAGE == 0);
    FUZZ_CHECK(offset < w->size);
    size_t page = (size_t)(offset / GD_ELF_PAGE);
    if (w->last_read[page] != SIZE_MAX)
        FUZZ_CHECK(w->reads - w->last_read[page] - 1 >= FUZZ_FATBIN_CACHE_PAGES);
    w->last_read[page] = w->reads++;
    size_t take = 0;
    if (offset < w->delivered)
        take = w->delivered - (size_t)offset < n ? w->delivered - (size_t)offset : n;
    if (take)
        memcpy(buf, w->data + offset, take);
    *got = take;
    return GD_OK;
}

static bool documented(enum gd_status st)
{
    return st == GD_EFORMAT || st == GD_ETRUNCATED || st == GD_ELIMIT || st == GD_ENOMEM;
}

static void check_result(enum gd_status st, const struct gd_fatbin *f, size_t size)
{
    if (st != GD_OK) {
        FUZZ_CHECK(documented(st));
        FUZZ_CHECK(f->archs == NULL && f->narchs == 0 && f->entries == 0 && f->containers == 0);
        FUZZ_CHECK(f->lto_entries == 0 && f->unknown_entries == 0 && !f->partial);
        return;
    }
    FUZZ_CHECK(f->narchs <= GD_FATBIN_MAX_ARCHS && f->entries <= GD_FATBIN_MAX_ENTRIES);
    FUZZ_CHECK(f->containers <= GD_FATBIN_MAX_CONTAINERS);
    FUZZ_CHECK(f->narchs == 0 || f->archs != NULL);
    FUZZ_CHECK(f->entries <= size / 64 && f->containers <= size / 16);
    FUZZ_CHECK(f->containers > 0 || f->entries == 0);
    FUZZ_CHECK(!f->relocatable); /* only gd_fatbin_read_file knows section names */
    size_t sum = f->lto_entries + f->unknown_entries;
    for (size_t i = 0; i < f->narchs; i++) {
        const struct gd_fatbin_arch *a = &f->archs[i];
        FUZZ_CHECK(a->count >= 1);
        FUZZ_CHECK(a->variants != 0 && (a->variants & ~7u) == 0);
        if (i > 0) {
            const struct gd_fatbin_arch *p = &f->archs[i - 1];
            FUZZ_CHECK(p->sm < a->sm || (p->sm == a->sm && !p->ptx && a->ptx));
        }
        FUZZ_CHECK(gd_fatbin_find(f, a->sm, a->ptx) == a);
        sum += a->count;
    }
    FUZZ_CHECK(sum == f->entries);
    if (size < 16)
        FUZZ_CHECK(f->entries == 0 && f->containers == 0);
}

static void check_same(const struct gd_fatbin *a, const struct gd_fatbin *b)
{
    FUZZ_CHECK(a->narchs == b->narchs && a->entries == b->entries);
    FUZZ_CHECK(a->containers == b->containers && a->lto_entries == b->lto_entries);
    FUZZ_CHECK(a->unknown_entries == b->unknown_entries && a->compressed == b->compressed);
    FUZZ_CHECK(a->partial == b->partial);
    for (size_t i = 0; i < a->narchs; i++) {
        const struct gd_fatbin_arch *x = &a->archs[i], *y = &b->archs[i];
        FUZZ_CHECK(x->sm == y->sm && x->ptx == y->ptx && x->count == y->count);
        FUZZ_CHECK(x->variants == y->variants && x->version_major == y->version_major &&
                   x->version_minor == y->version_minor);
    }
}

/* gd_fatbin_read_source over the whole of a watched source that delivers `delivered` of the
 * `size` bytes. */
static enum gd_status read_watched(const uint8_t *data, size_t size, size_t delivered,
                                   struct gd_fatbin *out)
{
    size_t pages = size / GD_ELF_PAGE + 1;
    struct watched w = { data, size, delivered, 0, malloc(pages * sizeof(size_t)) };
    if (!w.last_read) {
        memset(out, 0, sizeof *out);
        return GD_ENOMEM;
    }
    for (size_t i = 0; i < pages; i++)
        w.last_read[i] = SIZE_MAX;
    struct gd_elf_source src = { watched_read, &w, size };
    enum gd_status st = gd_fatbin_read_source(&src, 0, size, out);
    FUZZ_CHECK(out->page_reads == w.reads);
    free(w.last_read);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gd_fatbin f, again;
    enum gd_status st = gd_fatbin_parse(data, size, &f);
    check_result(st, &f, size);

    enum gd_status st2 = read_watched(data, size, size, &again);
    check_result(st2, &again, size);
    FUZZ_CHECK(st2 == st || st2 == GD_ENOMEM || st == GD_ENOMEM);
    if (st == GD_OK && st2 == GD_OK)
        check_same(&f, &again);
    gd_fatbin_free(&again);
    gd_fatbin_free(&f);
    FUZZ_CHECK(f.archs == NULL && f.narchs == 0);

    /* The file shrank to the half: whatever is read is still checked. */
    st = read_watched(data, size, size / 2, &f);
    check_result(st, &f, size);
    gd_fatbin_free(&f);

    /* A section at an offset of its file reads as the same bytes on their own. */
    if (size > 8) {
        struct gd_elf_memory m = { data, size };
        struct gd_elf_source src = gd_elf_source_memory(&m);
        st = gd_fatbin_read_source(&src, 8, size - 8, &f);
        st2 = gd_fatbin_parse(data + 8, size - 8, &again);
        check_result(st, &f, size - 8);
        FUZZ_CHECK(st2 == st || st2 == GD_ENOMEM || st == GD_ENOMEM);
        if (st == GD_OK && st2 == GD_OK)
            check_same(&f, &again);
        gd_fatbin_free(&again);
        gd_fatbin_free(&f);
    }
    /* A range past the end of the source. */
    struct gd_elf_memory m = { data, size };
    struct gd_elf_source src = gd_elf_source_memory(&m);
    st = gd_fatbin_read_source(&src, size / 2, size - size / 2 + 1, &f);
    FUZZ_CHECK(st == GD_ETRUNCATED || st == GD_ENOMEM);
    check_result(st, &f, size);
    return 0;
}
