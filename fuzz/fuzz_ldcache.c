/*
 * ld.so.cache files: gd_ldcache_parse on the bytes, then gd_ldcache_lookup of every entry's own
 * name and of a few fixed names, with and without flags.
 *
 * Invariants: a failure is a documented status and leaves no result. On success the format is
 * one of the three; every entry's name and path are terminated (strlen under AddressSanitizer
 * proves the NUL lies inside the block that owns them), shorter than GD_LDCACHE_STRING_MAX,
 * inside the first `size` bytes of that block (one copy of the string table, however many
 * entries share a string) and pieces of the input, as is the generator up to its first NUL; the
 * entries are sorted by name, then by file order, and their file orders are a permutation of
 * 0..count-1. A lookup of an entry's own name finds the first entry (file order) of that name
 * without a hwcaps subdirectory, which is the first such entry of its run in the sorted table, or
 * NULL when every one has hwcaps; with the entry's own flags a hwcaps-free entry is always found,
 * with acceptable flags. A lookup of a name no entry has finds nothing.
 */
#include "fuzz.h"

#include "core/alloc.h"
#include "loader/ldcache.h"

/* The names the loader asks the cache for most. */
static const char *const fixed[] = {
    "libcuda.so.1",      "libcudart.so.13", "libcudnn.so.9", "libc.so.6", "",
    "libnvidia-ml.so.1", "libcublas.so.13"
};

static bool contains(const uint8_t *data, size_t size, const char *s, size_t n)
{
    for (size_t i = 0; n <= size && i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0)
            return true;
    return false;
}

/* The entries are checked against the input up to this many: more would make a run quadratic. */
#define FUZZ_LDCACHE_PIECES 32

static bool same_subdir(const struct gd_ldcache_entry *e, const char *hwcaps)
{
    return hwcaps ? e->hwcaps && strcmp(e->hwcaps, hwcaps) == 0 : !e->hwcaps;
}

/* The lookup by e's name gives the first entry in file order with that name, subdirectory and
 * acceptable flags: the scan glibc's cache search amounts to. */
static void check_lookup(const struct gd_ldcache *c, size_t i)
{
    const struct gd_ldcache_entry *e = &c->entries[i];
    const struct gd_ldcache_entry *want = NULL;
    for (size_t k = 0; k < c->count && !want; k++)
        if (strcmp(c->entries[k].name, e->name) == 0 && same_subdir(&c->entries[k], e->hwcaps))
            want = &c->entries[k];
    FUZZ_CHECK(want != NULL && want->order <= i);
    FUZZ_CHECK(gd_ldcache_lookup(c, e->name, 0, e->hwcaps) == want);

    /* The one-pass search, with e's own subdirectory first: e's name has an entry there. */
    const char *levels[2] = { e->hwcaps ? e->hwcaps : "x86-64-v3", "x86-64-v2" };
    const struct gd_ldcache_entry *seq = gd_ldcache_lookup(c, e->name, e->flags, levels[0]);
    if (!seq)
        seq = gd_ldcache_lookup(c, e->name, e->flags, levels[1]);
    if (!seq)
        seq = gd_ldcache_lookup(c, e->name, e->flags, NULL);
    FUZZ_CHECK(gd_ldcache_lookup_best(c, e->name, e->flags, levels, 2) == seq);

    const struct gd_ldcache_entry *f = gd_ldcache_lookup(c, e->name, e->flags, e->hwcaps);
    FUZZ_CHECK(f != NULL && f->order <= e->order);
    FUZZ_CHECK(strcmp(f->name, e->name) == 0 && same_subdir(f, e->hwcaps));
    FUZZ_CHECK(gd_ldcache_flags_match(f->flags, e->flags));
}

/* The parse that takes its buffer gives the same answer and the same entries. */
static void check_owned(const uint8_t *data, size_t size, enum gd_status want,
                        const struct gd_ldcache *c)
{
    char *copy = gd_malloc(size + 1);
    if (!copy)
        return;
    memcpy(copy, data, size);
    copy[size] = '\0';
    struct gd_ldcache *o = (struct gd_ldcache *)1;
    enum gd_status st = gd_ldcache_parse_owned(copy, size, &o); /* takes copy */
    FUZZ_CHECK(st == want || st == GD_ENOMEM || want == GD_ENOMEM);
    if (st != GD_OK) {
        FUZZ_CHECK(o == NULL);
        return;
    }
    if (c) {
        FUZZ_CHECK(o->count == c->count && o->format == c->format);
        for (size_t i = 0; i < o->count; i++) {
            FUZZ_CHECK(strcmp(o->entries[i].name, c->entries[i].name) == 0);
            FUZZ_CHECK(strcmp(o->entries[i].path, c->entries[i].path) == 0);
            FUZZ_CHECK((o->entries[i].hwcaps == NULL) == (c->entries[i].hwcaps == NULL));
        }
    }
    gd_ldcache_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gd_ldcache *c = (struct gd_ldcache *)1;
    enum gd_status st = gd_ldcache_parse(data, size, &c);
    check_owned(data, size, st, st == GD_OK ? c : NULL);
    if (st != GD_OK) {
        FUZZ_CHECK(c == NULL);
        FUZZ_CHECK(st == GD_EFORMAT || st == GD_ETRUNCATED || st == GD_ELIMIT || st == GD_ENOMEM);
        return 0;
    }
    FUZZ_CHECK(c != NULL);
    FUZZ_CHECK(c->format == GD_LDCACHE_OLD || c->format == GD_LDCACHE_NEW ||
               c->format == GD_LDCACHE_COMPAT);
    FUZZ_CHECK(c->count == 0 || c->entries != NULL);
    if (c->generator) {
        size_t n = strlen(c->generator);
        FUZZ_CHECK(n < size && contains(data, size, c->generator, n));
    }

    for (size_t i = 0; i < c->count; i++) {
        const struct gd_ldcache_entry *e = &c->entries[i];
        FUZZ_CHECK(e->name != NULL && e->path != NULL);
        size_t nl = strlen(e->name), pl = strlen(e->path);
        FUZZ_CHECK(nl < GD_LDCACHE_STRING_MAX && pl < GD_LDCACHE_STRING_MAX);
        /* One copy of the string table, not one per entry: the strings lie in its first
         * `size` bytes, however many entries share them. */
        FUZZ_CHECK(e->name >= c->strings && (size_t)(e->name - c->strings) + nl < size);
        FUZZ_CHECK(e->path >= c->strings && (size_t)(e->path - c->strings) + pl < size);
        if (i < FUZZ_LDCACHE_PIECES)
            FUZZ_CHECK(contains(data, size, e->name, nl) && contains(data, size, e->path, pl));
        if (e->hwcaps && strcmp(e->hwcaps, "unknown") != 0)
            FUZZ_CHECK(e->hwcaps >= c->strings &&
                       (size_t)(e->hwcaps - c->strings) + strlen(e->hwcaps) < size);
        FUZZ_CHECK(e->order == i); /* file order */
    }

    /* Every entry's own name, each against a scan of the whole table: a 4 KiB input holds at
     * most a few hundred entries. */
    for (size_t i = 0; i < c->count && i < 1024; i++)
        check_lookup(c, i);

    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) {
        const struct gd_ldcache_entry *e = gd_ldcache_lookup(c, fixed[k], 0, NULL);
        bool any = false;
        for (size_t i = 0; i < c->count && !any; i++)
            any = strcmp(c->entries[i].name, fixed[k]) == 0;
        if (!any)
            FUZZ_CHECK(e == NULL);
        if (e)
            FUZZ_CHECK(strcmp(e->name, fixed[k]) == 0 && !e->hwcaps);
        uint32_t wanted = gd_ldcache_flags_for(64, 62);
        e = gd_ldcache_lookup(c, fixed[k], wanted, NULL);
        if (e)
            FUZZ_CHECK(strcmp(e->name, fixed[k]) == 0 && gd_ldcache_flags_match(e->flags, wanted));
        char *buf = malloc(12);
        if (buf) {
            FUZZ_CHECK(gd_ldcache_flags_name(e ? e->flags : (uint32_t)size, buf, 12) == buf);
            FUZZ_CHECK(fuzz_terminated(buf, 12));
            free(buf);
        }
    }
    gd_ldcache_free(c);
    return 0;
}
