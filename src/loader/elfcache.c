#include "loader/elfcache.h"

#include "core/alloc.h"
#include "core/strmap.h"
#include "sysroot/sysroot.h"

#include <string.h>

struct entry {
    char *path; /* canonical, inside the root: the key */
    struct gd_os_stat fs;
    enum gd_status read;
    struct gd_elf *elf; /* NULL unless read is GD_OK */
};

struct gd_elf_cache {
    struct gd_root *root;
    struct gd_strmap by_path; /* canonical path -> struct entry */
    struct entry **items;
    size_t count, cap;
    struct gd_elf_pages *pages; /* the reader's page cache, one for every file read */
};

enum gd_status gd_elf_cache_new(struct gd_root *root, struct gd_elf_cache **out)
{
    *out = NULL;
    struct gd_elf_cache *c = gd_calloc(1, sizeof *c);
    struct gd_elf_pages *pages = gd_elf_pages_new();
    if (!c || !pages) {
        gd_free(c);
        gd_elf_pages_free(pages);
        return GD_ENOMEM;
    }
    c->root = root;
    c->pages = pages;
    *out = c;
    return GD_OK;
}

void gd_elf_cache_free(struct gd_elf_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->count; i++) {
        gd_free(c->items[i]->path);
        gd_elf_free(c->items[i]->elf);
        gd_free(c->items[i]);
    }
    gd_free(c->items);
    gd_strmap_clear(&c->by_path);
    gd_elf_pages_free(c->pages);
    gd_free(c);
}

/* Keep what was read of `canon` (taken: `canon` and `elf` belong to the cache after GD_OK). */
static enum gd_status keep(struct gd_elf_cache *c, char *canon, const struct gd_os_stat *fs,
                           enum gd_status read, struct gd_elf *elf)
{
    struct entry *e = gd_malloc(sizeof *e);
    if (!e || gd_grow((void **)&c->items, &c->cap, c->count + 1, sizeof *c->items) != 0 ||
        gd_strmap_put(&c->by_path, canon, e) != GD_OK) {
        gd_free(e);
        return GD_ENOMEM;
    }
    *e = (struct entry){ canon, *fs, read, elf };
    c->items[c->count++] = e;
    return GD_OK;
}

enum gd_status gd_elf_cache_read(struct gd_elf_cache *c, const char *path, struct gd_elf **elf,
                                 struct gd_os_stat *fs, enum gd_status *read)
{
    *elf = NULL;
    *read = GD_OK;
    memset(fs, 0, sizeof *fs);
    char *canon = NULL;
    enum gd_status rs = gd_root_resolve(c->root, path, true, &canon);
    /* Nothing there: what the open would say, with nothing for the root to note (most of a
     * loader's candidates are not there). */
    if (rs == GD_ENOENT || rs == GD_ENOTDIR)
        return rs;
    if (rs == GD_OK) {
        const struct entry *e = gd_strmap_get(&c->by_path, canon);
        if (e) {
            gd_free(canon);
            *fs = e->fs;
            *read = e->read;
            if (e->read == GD_OK)
                *read = gd_elf_copy(e->elf, elf);
            return GD_OK;
        }
    }
    /* Not read yet, or the path does not resolve: the open says why, and notes what the root
     * notes of it under the name it was asked by. */
    struct gd_os_file *f;
    enum gd_status st = gd_root_open(c->root, path, &f);
    if (st != GD_OK) {
        gd_free(canon);
        return st;
    }
    struct gd_elf *got = NULL;
    enum gd_status fst = gd_os_file_stat(f, fs);
    *read = fst;
    if (fst == GD_OK)
        *read = gd_elf_read_file_ex(f, fs->size, GD_ELF_LOADER_ONLY, c->pages, &got);
    gd_os_close(f);
    /* Kept: the headers or why they are not an ELF's. Not a failure of this process (out of
     * memory, no status of the open file) nor one past the cap. */
    bool kept = false;
    if (canon && fst == GD_OK && c->count < GD_ELF_CACHE_MAX && *read != GD_ENOMEM) {
        enum gd_status ks = keep(c, canon, fs, *read, got);
        if (ks != GD_OK) {
            gd_elf_free(got);
            gd_free(canon);
            *read = ks;
            return GD_OK;
        }
        kept = true;
    }
    if (kept && *read == GD_OK) {
        *read = gd_elf_copy(got, elf);
    } else if (!kept) {
        *elf = got;
        gd_free(canon);
    }
    return GD_OK;
}
