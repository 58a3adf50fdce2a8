/*
 * ELF files: gd_elf_read_memory on the bytes, then gd_elf_read on the same bytes through a
 * source that watches every read, and through one that ends early (a file that shrank between
 * stat and read: it announces `size` bytes and delivers fewer).
 *
 * Invariants: a failure is a documented status and leaves no result. On success the class is 32
 * or 64 and file_size the input's size; every string (interpreter, SONAME, RPATH, RUNPATH, each
 * NEEDED, each section name) is non-NULL where it must be, at most GD_ELF_MAX_STRING long and
 * terminated (strlen under AddressSanitizer proves the NUL lies inside its allocation); the
 * dynamic strings are pieces of the input; nneeded <= GD_ELF_MAX_NEEDED, nsections <=
 * GD_ELF_MAX_SHDRS; no dynamic section means no dynamic strings; the build id is even-length
 * lowercase hex; a section is found again by its name. Reads: the reader asks only for whole
 * GD_ELF_PAGE pages that start inside the announced size, page_reads counts exactly those
 * reads, and a page is read again only once the cache must have dropped it (at least
 * FUZZ_ELF_CACHE_PAGES other reads since), so page_reads <= the file's pages + cache misses.
 * Both sources give the same result as gd_elf_read_memory.
 */
#include "fuzz.h"

#include "elf/elf.h"

/* The page cache of elf.c holds this many pages and replaces them round-robin: a page can only
 * have been evicted after that many other pages were read. */
#define FUZZ_ELF_CACHE_PAGES 8

/* The strings checked against the input: the rest are only checked for termination, because
 * a search per section name would make each run quadratic in the input. */
#define FUZZ_ELF_PIECES 16

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
        FUZZ_CHECK(w->reads - w->last_read[page] - 1 >= FUZZ_ELF_CACHE_PAGES);
    w->last_read[page] = w->reads++;
    size_t take = 0;
    if (offset < w->delivered)
        take = w->delivered - (size_t)offset < n ? w->delivered - (size_t)offset : n;
    if (take)
        memcpy(buf, w->data + offset, take);
    *got = take;
    return GD_OK;
}

static bool contains(const uint8_t *data, size_t size, const char *s, size_t n)
{
    for (size_t i = 0; n <= size && i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0)
            return true;
    return false;
}

/* A string of the result: terminated, bounded, and (when `piece`) found in the input. */
static void check_string(const uint8_t *data, size_t size, const char *s, bool piece)
{
    FUZZ_CHECK(s != NULL);
    size_t n = strlen(s);
    FUZZ_CHECK(n <= GD_ELF_MAX_STRING && n < size);
    if (piece)
        FUZZ_CHECK(contains(data, size, s, n));
}

static void check_elf(const uint8_t *data, size_t size, const struct gd_elf *elf)
{
    FUZZ_CHECK(elf->elf_class == 32 || elf->elf_class == 64);
    FUZZ_CHECK(elf->file_size == size);
    if (elf->interp)
        check_string(data, size, elf->interp, true);
    if (elf->soname)
        check_string(data, size, elf->soname, true);
    if (elf->rpath)
        check_string(data, size, elf->rpath, true);
    if (elf->runpath)
        check_string(data, size, elf->runpath, true);
    FUZZ_CHECK(elf->nneeded <= GD_ELF_MAX_NEEDED);
    FUZZ_CHECK(elf->nneeded == 0 || elf->needed != NULL);
    for (size_t i = 0; i < elf->nneeded; i++)
        check_string(data, size, elf->needed[i], i < FUZZ_ELF_PIECES);
    if (!elf->has_dynamic)
        FUZZ_CHECK(!elf->soname && !elf->rpath && !elf->runpath && elf->nneeded == 0);

    FUZZ_CHECK(elf->nsections <= GD_ELF_MAX_SHDRS);
    FUZZ_CHECK(elf->nsections == 0 || elf->sections != NULL);
    for (size_t i = 0; i < elf->nsections; i++) {
        const char *name = elf->sections[i].name;
        check_string(data, size, name, false);
        /* One copy of the name table, however many sections name the same bytes. */
        if (name[0])
            FUZZ_CHECK(elf->shstrings && name >= elf->shstrings &&
                       (size_t)(name - elf->shstrings) < size);
    }
    /* The first sections are found again by name (the first of that name). */
    for (size_t i = 0; i < elf->nsections && i < FUZZ_ELF_PIECES; i++) {
        const struct gd_elf_section *s = gd_elf_section(elf, elf->sections[i].name);
        FUZZ_CHECK(s != NULL && s <= &elf->sections[i]);
        FUZZ_CHECK(strcmp(s->name, elf->sections[i].name) == 0);
    }

    size_t id = fuzz_strnlen(elf->build_id, sizeof elf->build_id);
    FUZZ_CHECK(id < sizeof elf->build_id && id % 2 == 0);
    for (size_t i = 0; i < id; i++)
        FUZZ_CHECK((elf->build_id[i] >= '0' && elf->build_id[i] <= '9') ||
                   (elf->build_id[i] >= 'a' && elf->build_id[i] <= 'f'));
    FUZZ_CHECK(fuzz_terminated(elf->abi_tag, sizeof elf->abi_tag));

    /* A machine name written into a short, exact-size buffer stays terminated inside it. */
    char *buf = malloc(8);
    if (buf) {
        const char *m = gd_elf_machine_name(elf->machine, buf, 8);
        FUZZ_CHECK(m != NULL && (m != buf || fuzz_terminated(buf, 8)));
        free(buf);
    }
    FUZZ_CHECK(gd_elf_compatible(elf, elf));
}

static bool same_string(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_same(const struct gd_elf *a, const struct gd_elf *b)
{
    FUZZ_CHECK(a->elf_class == b->elf_class && a->big_endian == b->big_endian);
    FUZZ_CHECK(a->type == b->type && a->machine == b->machine && a->osabi == b->osabi);
    FUZZ_CHECK(same_string(a->interp, b->interp) && same_string(a->soname, b->soname));
    FUZZ_CHECK(same_string(a->rpath, b->rpath) && same_string(a->runpath, b->runpath));
    FUZZ_CHECK(a->nneeded == b->nneeded && a->nsections == b->nsections);
    for (size_t i = 0; i < a->nneeded; i++)
        FUZZ_CHECK(strcmp(a->needed[i], b->needed[i]) == 0);
    for (size_t i = 0; i < a->nsections; i++)
        FUZZ_CHECK(strcmp(a->sections[i].name, b->sections[i].name) == 0);
    FUZZ_CHECK(a->flags == b->flags && a->flags_1 == b->flags_1);
    FUZZ_CHECK(strcmp(a->build_id, b->build_id) == 0 && strcmp(a->abi_tag, b->abi_tag) == 0);
    FUZZ_CHECK(a->page_reads == b->page_reads);
}

static bool documented(enum gd_status st)
{
    return st == GD_EFORMAT || st == GD_ETRUNCATED || st == GD_ELIMIT || st == GD_ENOMEM;
}

/* gd_elf_read through a watched source that delivers `delivered` of the `size` bytes. */
static enum gd_status read_watched(const uint8_t *data, size_t size, size_t delivered,
                                   struct gd_elf **out)
{
    size_t pages = size / GD_ELF_PAGE + 1;
    struct watched w = { data, size, delivered, 0, malloc(pages * sizeof(size_t)) };
    if (!w.last_read) {
        *out = NULL;
        return GD_ENOMEM;
    }
    for (size_t i = 0; i < pages; i++)
        w.last_read[i] = SIZE_MAX;
    struct gd_elf_source src = { watched_read, &w, size };
    enum gd_status st = gd_elf_read(&src, out);
    if (st == GD_OK)
        FUZZ_CHECK((*out)->page_reads == w.reads);
    free(w.last_read);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gd_elf *elf = (struct gd_elf *)1, *again = (struct gd_elf *)1;
    enum gd_status st = gd_elf_read_memory(data, size, &elf);
    if (st == GD_OK) {
        FUZZ_CHECK(elf != NULL);
        check_elf(data, size, elf);
    } else {
        FUZZ_CHECK(documented(st) && elf == NULL);
    }

    enum gd_status st2 = read_watched(data, size, size, &again);
    FUZZ_CHECK(st2 == st || st2 == GD_ENOMEM || st == GD_ENOMEM);
    if (st == GD_OK && st2 == GD_OK)
        check_same(elf, again);
    gd_elf_free(again);
    gd_elf_free(elf);

    /* The file shrank to the half: whatever is read is still checked. */
    st = read_watched(data, size, size / 2, &elf);
    if (st == GD_OK)
        check_elf(data, size, elf);
    else
        FUZZ_CHECK(documented(st) && elf == NULL);
    gd_elf_free(elf);
    return 0;
}
