#include "sysroot/sysroot.h"

#include "core/alloc.h"
#include "core/arena.h"
#include "core/hash.h"
#include "core/str.h"
#include "core/strmap.h"
#include "core/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Canonical paths the resolver has seen to be real directories (not links), so that a second
 * path through them costs no lstat: a site directory's thousand files share one prefix of ten
 * components. A check is a snapshot of the tree, so nothing is ever evicted; past
 * GD_ROOT_DIR_CACHE_MAX entries the cache stops growing. Open addressing, power-of-two size. */
#define GD_ROOT_DIR_CACHE_MAX 65536
struct listing;
struct dir_cache {
    char **keys;
    uint64_t *hashes;
    /* Its listing once gd_root_list kept one (foreign roots), else NULL: the resolver reads a
     * component's type there without hashing the directory's host path again. */
    struct listing **listings;
    size_t cap, count;
};

/* Answers of stat and lstat by path inside the root (canonical under a foreign root, as asked
 * under the live one, where it is the host path): a check asks about the same files many times
 * (every environment's base interpreter, each loader candidate, each copy's links). Only "there"
 * and "not there" are kept; other failures are asked again. Same snapshot rule and cap as above. */
#define GD_ROOT_STAT_CACHE_MAX 65536
struct stat_entry {
    char *key; /* path inside the root */
    uint64_t hash;
    bool follow;
    enum gd_status status; /* GD_OK or GD_ENOENT */
    struct gd_os_stat st;
};
/* The entries one after the other, and a table of their numbers (+ 1; 0: an empty slot) by
 * hash: a table of whole entries, half empty and made anew at each doubling, was two and a half
 * megabytes of fresh pages for ten thousand answers. */
struct stat_cache {
    struct stat_entry *items;
    size_t count, cap_items;
    uint32_t *slots;
    size_t cap; /* slots: 0 or a power of two */
};

/* Directory listings by host path, with each entry's type when the directory said it: the
 * resolver answers a component of a listed directory without an lstat (absent: ENOENT; a
 * directory, a file: not a link), and a second listing costs no system call. Each entry is
 * stored as its type byte then its name; `names` point at the names, sorted. Same snapshot
 * rule as above; past GD_ROOT_LISTED_MAX names in all, directories are no longer kept. */
#define GD_ROOT_LISTED_MAX 1000000
#define TYPE_UNKNOWN       0xff
struct listing {
    char *key; /* host path of the directory */
    char *block;
    size_t block_len;
    char **names;
    size_t count;
    struct gd_os_dirh *h; /* the directory held open (foreign roots), or NULL */
};
struct listings {
    struct gd_strmap by_dir; /* host path -> struct listing */
    struct listing **items;
    size_t count, cap, names;
};

/* Symbolic links' targets by canonical path: each block is the path, its NUL, the target.
 * Same snapshot rule; past GD_ROOT_LINK_CACHE_MAX links they are read each time. */
#define GD_ROOT_LINK_CACHE_MAX 65536
struct links {
    struct gd_strmap by_path;
    char **items;
    size_t count, cap;
};

/* Listed directories stay open, so that a system call for a path below one walks only the
 * rest of it (gd_os_dirh): at most GD_ROOT_HELD_MAX at a time, the oldest closed first (a
 * check goes through the environments one after the other). */
#define GD_ROOT_HELD_MAX 256

struct gd_root {
    struct dir_cache dirs;
    struct stat_cache stats;
    struct listings listed;
    struct links links;
    struct listing *held[GD_ROOT_HELD_MAX]; /* a ring of the listings holding their directory */
    size_t nheld, next_held;
    struct gd_os_dirh *top; /* the root directory held open (foreign roots), made on first use */
    struct gd_arena *kept;  /* what the caches keep: see keep() */
    bool top_failed;
    struct listing *top_listing; /* of "/" (foreign roots), not in the directory cache */
    char *dir;                   /* canonical host directory */
    char *prefix; /* prepended to a root path to get the host path: "" for the live root */
    bool live;
    struct gd_anomaly *anomalies;
    size_t nanomalies, cap, dropped;
    /* The last anomaly dropped: one event is noted twice (by the resolver, then by the caller
     * that got its status), and must be counted once. */
    enum gd_anomaly_kind last_drop_kind;
    unsigned long long last_drop_hash; /* 0 when none */
    bool out_of_memory;                /* sticky: see gd_root_out_of_memory */
};

enum gd_status gd_root_new(const char *dir, struct gd_root **out)
{
    *out = NULL;
    /* "/" is the live machine: on Windows its system drive (gd_os_live_root), not the current
     * drive that "/" names to the system there. */
    const char *live = gd_os_live_root();
    if (strcmp(dir, "/") == 0)
        dir = live;
    struct gd_os_stat st;
    enum gd_status status = gd_os_stat(dir, &st);
    if (status != GD_OK)
        return status;
    if (st.type != GD_FT_DIR)
        return GD_ENOTDIR;
    struct gd_root *root = gd_calloc(1, sizeof *root);
    if (!root)
        return GD_ENOMEM;
    status = gd_os_realpath(dir, &root->dir);
    if (status != GD_OK) {
        gd_free(root);
        return status;
    }
    char *top = NULL;
    status = gd_os_realpath(live, &top);
    if (status != GD_OK) {
        gd_root_free(root);
        return status;
    }
    root->live = strcmp(root->dir, top) == 0;
    gd_free(top);
    /* A root's paths begin with '/': the prefix is its directory without the trailing one ("" for
     * "/", "C:" for a drive's root "C:/" — the live machine on Windows). */
    root->prefix = gd_strdup(strcmp(root->dir, "/") == 0 ? "" : root->dir);
    if (!root->prefix) {
        gd_root_free(root);
        return GD_ENOMEM;
    }
    size_t n = strlen(root->prefix);
    if (n > 1 && root->prefix[n - 1] == '/')
        root->prefix[n - 1] = '\0';
    *out = root;
    return GD_OK;
}

void gd_root_free(struct gd_root *root)
{
    if (!root)
        return;
    for (size_t i = 0; i < root->nanomalies; i++) {
        gd_free(root->anomalies[i].path);
        gd_free(root->anomalies[i].detail);
    }
    gd_free(root->anomalies);
    gd_root_forget(root);
    gd_os_dirh_close(root->top);
    gd_free(root->dir);
    gd_free(root->prefix);
    gd_free(root);
}

void gd_root_forget(struct gd_root *root)
{
    gd_free(root->dirs.keys);
    gd_free(root->dirs.hashes);
    gd_free(root->dirs.listings);
    memset(&root->dirs, 0, sizeof root->dirs);
    gd_free(root->links.items);
    gd_strmap_clear(&root->links.by_path);
    memset(&root->links, 0, sizeof root->links);
    root->top_listing = NULL;
    gd_free(root->stats.items);
    gd_free(root->stats.slots);
    memset(&root->stats, 0, sizeof root->stats);
    for (size_t i = 0; i < root->listed.count; i++)
        gd_os_dirh_close(root->listed.items[i]->h);
    gd_free(root->listed.items);
    gd_strmap_clear(&root->listed.by_dir);
    memset(&root->listed, 0, sizeof root->listed);
    root->nheld = root->next_held = 0;
    gd_arena_free(root->kept);
    root->kept = NULL;
}

/* Room for what the caches keep (keys, listings, link targets): one arena, released at once
 * when the root forgets, instead of a malloc and a free for each of tens of thousands. NULL
 * when out of memory. */
static void *keep(struct gd_root *root, size_t size)
{
    if (!root->kept && !(root->kept = gd_arena_new()))
        return NULL;
    return gd_arena_alloc(root->kept, size);
}

static char *keep_str(struct gd_root *root, const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = keep(root, n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What listing `l` says of its entry `name`: 1 with `*type` (TYPE_UNKNOWN when the directory
 * did not say), 0 when it lacks the name, -1 when it cannot tell: where the file system folds
 * case (Windows) an entry spelled otherwise is the same file, found here ignoring ASCII case;
 * a name outside ASCII may fold in ways only the system knows. */
static int listed_type(const struct listing *l, const char *name, unsigned char *type)
{
    const char *key = name;
    char *const *hit =
        l->count ? bsearch(&key, l->names, l->count, sizeof *l->names, cmp_names) : NULL;
    if (!hit && gd_os_names_ignore_case()) {
        for (size_t i = 0; i < l->count && !hit; i++)
            if (gd_str_ieq(l->names[i], name))
                hit = &l->names[i];
        for (const char *p = name; !hit && *p; p++)
            if ((unsigned char)*p >= 0x80)
                return -1;
    }
    if (!hit)
        return 0;
    *type = (unsigned char)(*hit)[-1];
    return 1;
}

/* Keep a copy of a listing (block with type bytes, sorted names); the copy, or NULL when it
 * is not kept. Failing to keep it marks the root out of memory, as every failed allocation
 * does: a check must not pass for complete after one. */
static struct listing *listing_keep(struct gd_root *root, const char *host, const char *block,
                                    size_t len, char *const *names, size_t count)
{
    struct listings *ls = &root->listed;
    if (ls->names + count > GD_ROOT_LISTED_MAX || gd_strmap_get(&ls->by_dir, host))
        return NULL;
    struct listing *l = keep(root, sizeof *l);
    if (!l) {
        root->out_of_memory = true;
        return NULL;
    }
    l->key = keep_str(root, host);
    l->block = keep(root, len ? len : 1);
    l->names = count ? keep(root, count * sizeof *l->names) : NULL;
    /* What the arena holds goes with it, kept or not. */
    if (!l->key || !l->block || (count && !l->names) ||
        gd_grow((void **)&ls->items, &ls->cap, ls->count + 1, sizeof *ls->items) != 0 ||
        gd_strmap_put(&ls->by_dir, l->key, l) != GD_OK) {
        root->out_of_memory = true;
        return NULL;
    }
    if (len)
        memcpy(l->block, block, len);
    for (size_t i = 0; i < count; i++)
        l->names[i] = l->block + (names[i] - block);
    l->block_len = len;
    l->count = count;
    ls->items[ls->count++] = l;
    ls->names += count;
    return l;
}

/* The slot of `path` (hash `h`) in the directory cache, or SIZE_MAX. */
static size_t dir_find(const struct dir_cache *c, const char *path, uint64_t h)
{
    if (!c->cap)
        return SIZE_MAX;
    for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        if (!c->keys[i])
            return SIZE_MAX;
        if (c->hashes[i] == h && strcmp(c->keys[i], path) == 0)
            return i;
    }
}

static void dir_put(struct dir_cache *c, char *key, uint64_t h, struct listing *l)
{
    size_t i = h & (c->cap - 1);
    while (c->keys[i])
        i = (i + 1) & (c->cap - 1);
    c->keys[i] = key;
    c->hashes[i] = h;
    c->listings[i] = l;
    c->count++;
}

/* The slot of (`key`, `follow`) with hash `h`: its entry's number + 1, or 0 where it would go. */
static uint32_t *stat_slot(const struct stat_cache *c, const char *key, uint64_t h, bool follow)
{
    for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        uint32_t *slot = &c->slots[i];
        if (!*slot)
            return slot;
        const struct stat_entry *e = &c->items[*slot - 1];
        if (e->hash == h && e->follow == follow && strcmp(e->key, key) == 0)
            return slot;
    }
}

/* The deepest directory held open on the way to a path inside a foreign root: `h` and the
 * length of the path's prefix it stands for; `h` NULL: none (the root's own). */
struct base {
    const struct gd_os_dirh *h;
    size_t len;
};

/* Where the system call for `key` (a canonical path inside a foreign root) goes: relative to
 * `b`, else to the root directory held open, else (that could not be opened) by host path,
 * written into `buf`. NULL when the host path does not fit. */
static const char *sys_path(struct gd_root *root, const char *key, const struct base *b,
                            const struct gd_os_dirh **at, char *buf, size_t size)
{
    if (b && b->h) {
        *at = b->h;
        return key[b->len] ? key + b->len + 1 : ".";
    }
    if (!root->top && !root->top_failed) {
        /* Out of memory is the check's failure (sticky); any other reason, the host path. */
        enum gd_status hs = gd_os_dirh_open(NULL, root->dir, false, &root->top);
        if (hs == GD_ENOMEM)
            root->out_of_memory = true;
        else if (hs != GD_OK)
            root->top_failed = true;
    }
    if (root->top) {
        *at = root->top;
        return key[0] == '/' && key[1] ? key + 1 : ".";
    }
    *at = NULL;
    size_t np = strlen(root->prefix), n = strlen(key);
    if (np + n >= size)
        return NULL;
    memcpy(buf, root->prefix, np);
    memcpy(buf + np, key, n + 1);
    return buf;
}

/* stat (follow) or lstat of `key` (a path inside the root: see struct stat_entry) through the
 * cache; `h` its hash, 0 when the caller has none. The host path is made only for the system
 * call. GD_ENOMEM when remembering the answer failed: the caller's answer must not pass for
 * complete. */
static enum gd_status cached_stat(struct gd_root *root, const char *key, uint64_t h, bool follow,
                                  const struct base *b, struct gd_os_stat *out)
{
    struct stat_cache *c = &root->stats;
    if (!h)
        h = gd_hash_str(key);
    if (c->cap) {
        uint32_t n = *stat_slot(c, key, h, follow);
        if (n) {
            const struct stat_entry *e = &c->items[n - 1];
            if (e->status == GD_OK)
                *out = e->st;
            return e->status;
        }
    }
    enum gd_status st;
    if (root->live) {
        st = follow ? gd_os_stat(key, out) : gd_os_lstat(key, out);
    } else {
        char buf[GD_ROOT_PATH_MAX * 2 + 2];
        const struct gd_os_dirh *at;
        const char *rel = sys_path(root, key, b, &at, buf, sizeof buf);
        if (!rel)
            return GD_ELIMIT;
        st = gd_os_lstat_at(at, rel, out);
    }
    if ((st != GD_OK && st != GD_ENOENT) || c->count >= GD_ROOT_STAT_CACHE_MAX)
        return st;
    if ((c->count + 1) * 2 > c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        uint32_t *slots = gd_calloc(cap, sizeof *slots);
        if (!slots)
            return GD_ENOMEM;
        struct stat_cache grown = *c;
        grown.slots = slots;
        grown.cap = cap;
        for (size_t i = 0; i < c->count; i++)
            *stat_slot(&grown, c->items[i].key, c->items[i].hash, c->items[i].follow) =
                (uint32_t)(i + 1);
        gd_free(c->slots);
        *c = grown;
    }
    char *copy = keep_str(root, key);
    if (!copy || gd_grow((void **)&c->items, &c->cap_items, c->count + 1, sizeof *c->items) != 0)
        return GD_ENOMEM;
    struct stat_entry *e = &c->items[c->count];
    *e = (struct stat_entry){ copy, h, follow, st, { 0 } };
    if (st == GD_OK)
        e->st = *out;
    *stat_slot(c, key, h, follow) = (uint32_t)(++c->count);
    return st;
}

/* The cached lstat of `key` (hash `h`, 0: none yet), or NULL when it is not in the cache or
 * not there. */
static const struct gd_os_stat *stat_known(const struct gd_root *root, const char *key, uint64_t h)
{
    if (!root->stats.cap)
        return NULL;
    uint32_t n = *stat_slot(&root->stats, key, h ? h : gd_hash_str(key), false);
    const struct stat_entry *e = n ? &root->stats.items[n - 1] : NULL;
    return e && e->status == GD_OK ? &e->st : NULL;
}

/* Remember `path` as a directory. GD_ENOMEM when an allocation failed (the caller's answer
 * must then not pass for complete); GD_OK also when the cache is full. */
static enum gd_status dir_remember(struct gd_root *root, const char *path, uint64_t h)
{
    struct dir_cache *c = &root->dirs;
    if (c->count >= GD_ROOT_DIR_CACHE_MAX || dir_find(c, path, h) != SIZE_MAX)
        return GD_OK;
    if ((c->count + 1) * 2 > c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        char **keys = gd_calloc(cap, sizeof *keys);
        uint64_t *hashes = gd_calloc(cap, sizeof *hashes);
        struct listing **listings = gd_calloc(cap, sizeof *listings);
        if (!keys || !hashes || !listings) {
            gd_free(keys);
            gd_free(hashes);
            gd_free(listings);
            return GD_ENOMEM;
        }
        struct dir_cache grown = { keys, hashes, listings, cap, 0 };
        for (size_t i = 0; i < c->cap; i++)
            if (c->keys[i])
                dir_put(&grown, c->keys[i], c->hashes[i], c->listings[i]);
        gd_free(c->keys);
        gd_free(c->hashes);
        gd_free(c->listings);
        *c = grown;
    }
    char *key = keep_str(root, path);
    if (!key)
        return GD_ENOMEM;
    dir_put(c, key, h, NULL);
    return GD_OK;
}

bool gd_root_is_live(const struct gd_root *root)
{
    return root->live;
}

const char *gd_root_dir(const struct gd_root *root)
{
    return root->dir;
}

/* Remember an anomaly once per (kind, path). Out of memory here only loses the note. */
static void note(struct gd_root *root, enum gd_anomaly_kind kind, const char *path,
                 const char *detail)
{
    for (size_t i = 0; i < root->nanomalies; i++)
        if (root->anomalies[i].kind == kind && strcmp(root->anomalies[i].path, path) == 0)
            return;
    if (root->nanomalies == GD_ROOT_ANOMALY_MAX) {
        unsigned long long h = gd_hash_str(path);
        if (h == root->last_drop_hash && kind == root->last_drop_kind)
            return;
        root->last_drop_hash = h;
        root->last_drop_kind = kind;
        root->dropped++;
        return;
    }
    if (gd_grow((void **)&root->anomalies, &root->cap, root->nanomalies + 1,
                sizeof *root->anomalies) != 0) {
        root->out_of_memory = true;
        return;
    }
    char *p = gd_strdup(path), *d = gd_strdup(detail ? detail : "");
    if (!p || !d) {
        gd_free(p);
        gd_free(d);
        root->out_of_memory = true;
        return;
    }
    root->anomalies[root->nanomalies++] = (struct gd_anomaly){ kind, p, d };
}

static void note_status(struct gd_root *root, enum gd_status status, const char *path)
{
    switch (status) {
    case GD_ELOOP:
        note(root, GD_ANOMALY_LOOP, path, "too many levels of symbolic links");
        break;
    case GD_EACCES:
    case GD_EIO:
        note(root, GD_ANOMALY_UNREADABLE, path, gd_status_str(status));
        break;
    case GD_ENOTREG:
        note(root, GD_ANOMALY_NOT_REGULAR, path, "not a regular file");
        break;
    case GD_ENOMEM:
        root->out_of_memory = true;
        break;
    default:
        break;
    }
}

char *gd_root_host_path(const struct gd_root *root, const char *path)
{
    /* One allocation: every file gpudoctor opens comes through here. Under the live root a
     * path with a drive ("D:/x" on Windows) is its own host path; "/x" is on the root's drive
     * ("C:/x"), a relative one from the root. */
    bool own = root->live && path[0] != '/' && gd_os_path_is_absolute(path);
    size_t np = own ? 0 : strlen(root->prefix), n = strlen(path);
    size_t slash = !own && path[0] != '/';
    if (np + slash + n > GD_ROOT_PATH_MAX * 2)
        return NULL;
    char *out = gd_malloc(np + slash + n + 1);
    if (!out)
        return NULL;
    memcpy(out, root->prefix, np);
    if (slash)
        out[np] = '/';
    memcpy(out + np + slash, path, n + 1);
    return out;
}

/* The resolver's state: `out` is the canonical path so far (empty means "/"), `rest` the part
 * still to walk. Components of `rest` before `link_end` came from a symlink's target. */
struct walk {
    char out[GD_ROOT_PATH_MAX + 1];
    size_t out_len;
    char *rest; /* rest_buf, until a link's target makes it longer (then new memory) */
    char rest_buf[GD_ROOT_PATH_MAX + 1];
    size_t link_end;
    int links;
    char last_link[GD_ROOT_PATH_MAX + 1];
    char *last_target;
};

/* The target of the link at canonical path `inside` (new memory), read once per check: every
 * path under a merged /usr's /lib, every environment's python3 -> /usr/bin/python3, the
 * interpreter of every load (/lib64) goes through the same few links. */
static enum gd_status cached_readlink(struct gd_root *root, const char *inside,
                                      const struct base *b, char **target)
{
    *target = NULL;
    const char *known = gd_strmap_get(&root->links.by_path, inside);
    if (known) {
        *target = gd_strdup(known + strlen(known) + 1);
        return *target ? GD_OK : GD_ENOMEM;
    }
    char buf[GD_ROOT_PATH_MAX * 2 + 2];
    const struct gd_os_dirh *at;
    const char *rel = sys_path(root, inside, b, &at, buf, sizeof buf);
    if (!rel)
        return GD_ELIMIT;
    enum gd_status st = gd_os_readlink_at(at, rel, target);
    size_t n = strlen(inside);
    if (st != GD_OK || root->links.count >= GD_ROOT_LINK_CACHE_MAX)
        return st;
    /* The path then the target, in one block: the key and the value. */
    size_t tn = strlen(*target);
    char *kept = keep(root, n + 1 + tn + 1);
    if (kept) {
        memcpy(kept, inside, n + 1);
        memcpy(kept + n + 1, *target, tn + 1);
    }
    if (!kept ||
        gd_grow((void **)&root->links.items, &root->links.cap, root->links.count + 1,
                sizeof *root->links.items) != 0 ||
        gd_strmap_put(&root->links.by_path, kept, kept) != GD_OK) {
        gd_free(*target);
        *target = NULL;
        return GD_ENOMEM;
    }
    root->links.items[root->links.count++] = kept;
    return GD_OK;
}

static enum gd_status walk_link(struct gd_root *root, struct walk *w, const struct base *b,
                                size_t after)
{
    char *target = NULL;
    enum gd_status st = cached_readlink(root, w->out, b, &target);
    if (st != GD_OK)
        return st;
    if (!target[0]) {
        gd_free(target);
        return GD_ENOENT;
    }
    size_t tlen = strlen(target), rlen = strlen(w->rest + after);
    if (tlen + rlen + 2 > GD_ROOT_PATH_MAX * 4) {
        gd_free(target);
        return GD_ELIMIT;
    }
    char *rest = gd_malloc(tlen + rlen + 2);
    if (!rest) {
        gd_free(target);
        return GD_ENOMEM;
    }
    memcpy(rest, target, tlen);
    rest[tlen] = '/';
    memcpy(rest + tlen + 1, w->rest + after, rlen + 1);
    /* Components still pending from an outer link's target stay "from a link". */
    size_t outer = w->link_end > after ? w->link_end - after : 0;
    w->link_end = tlen + 1 + outer;
    memcpy(w->last_link, w->out, w->out_len);
    w->last_link[w->out_len] = '\0';
    gd_free(w->last_target);
    w->last_target = target;
    if (w->rest != w->rest_buf)
        gd_free(w->rest);
    w->rest = rest;
    if (target[0] == '/') {
        w->out_len = 0;
    } else {
        while (w->out_len > 0 && w->out[w->out_len - 1] != '/')
            w->out_len--;
        if (w->out_len > 0)
            w->out_len--; /* drop the link's own name and its slash */
    }
    return GD_OK;
}

/* "LINK -> TARGET" for the link being walked. New memory; NULL when out of memory. */
static char *link_detail(const struct walk *w)
{
    struct gd_buf d;
    gd_buf_init(&d, GD_ROOT_PATH_MAX * 3);
    gd_buf_printf(&d, "%s -> %s", w->last_link, w->last_target ? w->last_target : "");
    char *detail = NULL;
    gd_buf_take(&d, &detail, NULL);
    return detail;
}

/* What the walk learned of the path's last component (after the link it names, when that is
 * followed): its type from a listing, or its whole lstat answer, and the hash of the canonical
 * path when one was computed, so that callers ask nothing twice. */
struct last {
    bool known; /* st.type is set */
    bool full;  /* st is the whole lstat answer, not only a listing's type */
    struct gd_os_stat st;
    uint64_t hash;    /* of the canonical path (w.out), 0 when not computed */
    struct base base; /* where the system calls for the path go (sys_path) */
};

/* Candidates tried before the walk starts: the path and its parents, longest first. */
#define TRIED_MAX 8

/* Resolve `path` into `w->out` (canonical, "/" for the root) as gd_root_resolve describes,
 * with what it learned of the last component in `*last`. `w->rest` may be new memory whatever the
 * status: free it with walk_done. Anomalies are noted here; out of memory is noted by the
 * caller. */
static enum gd_status walk_path(struct gd_root *root, const char *path, bool follow_last,
                                struct walk *w, struct last *last)
{
    /* Not `= { 0 }`: that zero-fills two path buffers (8 KiB) on every call, a third of a
     * check's instructions for 100 environments. Each field is set before it is read. */
    w->out[0] = '\0';
    w->out_len = 0;
    w->link_end = 0;
    w->links = 0;
    w->last_link[0] = '\0';
    w->last_target = NULL;
    w->rest = NULL;
    last->known = last->full = false;
    last->hash = 0;
    last->base = (struct base){ NULL, 0 };
    if (!path || strlen(path) > GD_ROOT_PATH_MAX)
        return GD_ELIMIT;
    /* In the walk's own buffer: a copy per resolution was a malloc and a free each. */
    w->rest = w->rest_buf;
    memcpy(w->rest_buf, path, strlen(path) + 1);
    enum gd_status st = GD_OK;
    bool escaped = false;
    char *escape = NULL; /* the link that climbed above the root */
    size_t pos = 0;
    /* Start at the deepest directory the root has seen (the path itself when it is one)
     * instead of "/": a check resolves tens of thousands of paths in a few hundred
     * directories, most of them in a known directory, the rest (a missing include/, a loader's
     * candidate "$ORIGIN/../../nvidia/cudnn/lib/...") a level or two below one. Keys are
     * canonical, so a prefix with ".", ".." or "//" in it is simply not found; the walk from
     * the directory found handles whatever follows. Each prefix asked is hashed once: the
     * walk reuses the hash while its path is still the same bytes. */
    size_t rlen = strlen(w->rest), ntried = 0;
    struct {
        size_t len;
        uint64_t hash;
    } tried[TRIED_MAX];
    const struct listing *dir_listing = root->top_listing; /* of w->out, when kept */
    /* The deepest directory held open on the way (sys_path). */
    struct base base = { dir_listing ? dir_listing->h : NULL, 0 };
    if (w->rest[0] == '/') {
        /* Only prefixes before a "." or ".." component can be keys: a loader's
         * "$ORIGIN/../../nvidia/..." starts at $ORIGIN, with no hashing of what follows.
         * (Looking for the dots, not the slashes: paths have a few, "/.virtualenvs" among
         * them.) */
        size_t limit = rlen;
        for (const char *p = strchr(w->rest, '.'); p; p = strchr(p + 1, '.')) {
            if (p[-1] == '/' &&
                (p[1] == '/' || p[1] == '\0' || (p[1] == '.' && (p[2] == '/' || p[2] == '\0')))) {
                limit = (size_t)(p - 1 - w->rest);
                break;
            }
        }
        for (size_t end = limit; end > 1 && ntried < TRIED_MAX;) {
            memcpy(w->out, w->rest, end);
            w->out[end] = '\0';
            uint64_t h = gd_hash_str(w->out);
            size_t i = dir_find(&root->dirs, w->out, h);
            if (i != SIZE_MAX) {
                w->out_len = pos = end;
                dir_listing = root->dirs.listings[i];
                if (dir_listing && dir_listing->h)
                    base = (struct base){ dir_listing->h, end };
                last->known = true;
                memset(&last->st, 0, sizeof last->st);
                last->st.type = GD_FT_DIR;
                last->hash = h;
                break;
            }
            tried[ntried].len = end;
            tried[ntried++].hash = h;
            while (end > 0 && w->rest[end - 1] != '/')
                end--;
            end = end > 0 ? end - 1 : 0;
        }
        if (!pos)
            w->out[0] = '\0';
    }
    bool verbatim = true; /* w->out is still the first w->out_len bytes of the path */
    for (;;) {
        while (w->rest[pos] == '/')
            pos++;
        if (!w->rest[pos])
            break;
        size_t start = pos;
        while (w->rest[pos] && w->rest[pos] != '/')
            pos++;
        size_t len = pos - start, after = pos;
        while (w->rest[after] == '/')
            after++;
        bool is_last = w->rest[after] == '\0';
        const char *comp = w->rest + start;
        if (len == 1 && comp[0] == '.') {
            verbatim = false;
            continue;
        }
        if (len == 2 && comp[0] == '.' && comp[1] == '.') {
            verbatim = false;
            last->known = false;
            last->hash = 0;
            dir_listing = NULL;
            if (w->out_len == 0) {
                /* ".." at "/" stays at "/", as the kernel does; from a link it is suspicious.
                 * Blame the link being walked now: links met later overwrite last_link. */
                dir_listing = root->top_listing;
                if (start < w->link_end && !escaped) {
                    escaped = true;
                    escape = link_detail(w);
                }
            } else {
                while (w->out_len > 0 && w->out[w->out_len - 1] != '/')
                    w->out_len--;
                if (w->out_len > 0)
                    w->out_len--;
                w->out[w->out_len] = '\0';
            }
            if (base.len > w->out_len)
                base = (struct base){ NULL, 0 };
            continue;
        }
        if (w->out_len + 1 + len > GD_ROOT_PATH_MAX) {
            st = GD_ELIMIT;
            break;
        }
        if (start != w->out_len + 1)
            verbatim = false;
        const struct listing *parent = dir_listing;
        w->out[w->out_len++] = '/';
        memcpy(w->out + w->out_len, comp, len);
        w->out_len += len;
        w->out[w->out_len] = '\0';
        last->known = last->full = false;
        last->hash = 0;
        dir_listing = NULL;
        uint64_t h = 0;
        bool not_cached = false; /* asked above: not a directory the root has seen */
        for (size_t t = 0; verbatim && t < ntried; t++)
            if (tried[t].len == w->out_len) {
                h = tried[t].hash;
                not_cached = true;
                break;
            }
        /* The parent's listing says what the entry is (absent: ENOENT) without a system call;
         * a directory the root has seen is not a link: nothing to follow or refuse. Where the
         * file system folds case, listed_type matches ignoring case, or leaves it to the
         * system. */
        struct gd_os_stat s;
        bool have = false;
        unsigned char type;
        if (parent) {
            int listed = listed_type(parent, w->out + w->out_len - len, &type);
            if (listed == 0) {
                st = GD_ENOENT;
                break;
            }
            if (listed == 1 && type != TYPE_UNKNOWN) {
                memset(&s, 0, sizeof s);
                s.type = (enum gd_file_type)type;
                have = true;
            }
        }
        if (!not_cached && (!have || s.type == GD_FT_DIR)) {
            if (!h)
                h = gd_hash_str(w->out);
            size_t i = dir_find(&root->dirs, w->out, h);
            if (i != SIZE_MAX) {
                dir_listing = root->dirs.listings[i];
                if (dir_listing && dir_listing->h)
                    base = (struct base){ dir_listing->h, w->out_len };
                last->known = true;
                memset(&last->st, 0, sizeof last->st);
                last->st.type = GD_FT_DIR;
                last->hash = h;
                continue;
            }
        }
        bool full = false;
        if (!have) {
            st = cached_stat(root, w->out, h, false, &base, &s);
            full = true;
            if (!h)
                h = gd_hash_str(w->out);
        }
        if (st == GD_OK && s.type == GD_FT_DIR) {
            if (!h)
                h = gd_hash_str(w->out);
            st = dir_remember(root, w->out, h);
        }
        if (st == GD_OK && s.type == GD_FT_LNK && (!is_last || follow_last)) {
            if (++w->links > GD_ROOT_MAX_LINKS) {
                st = GD_ELOOP;
            } else {
                st = walk_link(root, w, &base, after);
                pos = 0;
                verbatim = false;
                /* Back in the link's directory, or at "/" for an absolute target. */
                dir_listing = w->out_len ? parent : root->top_listing;
                w->out[w->out_len] = '\0';
                if (base.len > w->out_len)
                    base = (struct base){ NULL, 0 };
            }
        } else if (st == GD_OK && !is_last && s.type != GD_FT_DIR) {
            st = GD_ENOTDIR;
        }
        if (st != GD_OK)
            break;
        if (s.type != GD_FT_LNK || (is_last && !follow_last)) {
            last->known = true;
            last->full = full;
            last->st = s;
            last->hash = h;
        }
    }
    if (st == GD_ELOOP) {
        note(root, GD_ANOMALY_LOOP, path, w->last_link);
    } else if (escaped) {
        if (!escape)
            root->out_of_memory = true; /* the note would lose its detail */
        note(root, GD_ANOMALY_ESCAPE, path, escape);
    }
    gd_free(escape);
    /* A trailing '/' asks for a directory: "file/" is ENOTDIR, as the kernel says. */
    size_t plen = strlen(path);
    if (st == GD_OK && plen > 1 && path[plen - 1] == '/' && w->out_len > 0) {
        char *host = gd_root_host_path(root, w->out);
        struct gd_os_stat s;
        if (!host)
            st = GD_ENOMEM;
        else if (gd_os_stat(host, &s) == GD_OK && s.type != GD_FT_DIR)
            st = GD_ENOTDIR;
        gd_free(host);
    }
    if (st == GD_OK && w->out_len == 0) {
        w->out[w->out_len++] = '/';
        w->out[w->out_len] = '\0';
        last->known = true;
        memset(&last->st, 0, sizeof last->st);
        last->st.type = GD_FT_DIR;
        last->hash = 0;
    }
    last->base = base;
    return st;
}

static void walk_done(struct walk *w)
{
    if (w->rest != w->rest_buf)
        gd_free(w->rest);
    gd_free(w->last_target);
}

enum gd_status gd_root_resolve(struct gd_root *root, const char *path, bool follow_last, char **out)
{
    *out = NULL;
    struct walk w;
    struct last last;
    enum gd_status st = walk_path(root, path, follow_last, &w, &last);
    if (st == GD_OK) {
        *out = gd_strndup(w.out, w.out_len);
        if (!*out)
            st = GD_ENOMEM;
    }
    walk_done(&w);
    if (st == GD_ENOMEM)
        root->out_of_memory = true;
    return st;
}

/* The host path to hand to the OS: under the live root the kernel resolves; elsewhere we do.
 * `w` and `last` (foreign roots only) keep the canonical path and what the walk learned;
 * free `w` with walk_done after. */
static enum gd_status host_walk(struct gd_root *root, const char *path, bool follow_last,
                                char **host, struct walk *w, struct last *last)
{
    *host = NULL;
    w->rest = NULL;
    w->last_target = NULL;
    last->known = false;
    if (root->live) {
        /* The same cap as gd_root_resolve: past it gd_root_host_path would fail as ENOMEM. */
        if (strlen(path) > GD_ROOT_PATH_MAX)
            return GD_ELIMIT;
        *host = gd_root_host_path(root, path);
        return *host ? GD_OK : GD_ENOMEM;
    }
    enum gd_status st = walk_path(root, path, follow_last, w, last);
    if (st == GD_OK) {
        *host = gd_root_host_path(root, w->out);
        if (!*host)
            st = GD_ENOMEM;
    }
    if (st == GD_ENOMEM)
        root->out_of_memory = true;
    return st;
}

/* The host path alone (new memory). */
static enum gd_status host_for(struct gd_root *root, const char *path, bool follow_last,
                               char **host)
{
    struct walk w;
    struct last last;
    enum gd_status st = host_walk(root, path, follow_last, host, &w, &last);
    walk_done(&w);
    return st;
}

static enum gd_status do_stat(struct gd_root *root, const char *path, bool follow, bool type_only,
                              struct gd_os_stat *st)
{
    enum gd_status s;
    if (root->live) {
        char *host;
        s = host_for(root, path, follow, &host);
        if (s == GD_OK)
            s = cached_stat(root, host, 0, follow, NULL, st);
        gd_free(host);
    } else {
        /* Resolved by the walk, whose answer for the last component stands when it is enough;
         * else lstat of the canonical path (it must not follow again). */
        struct walk w;
        struct last last;
        s = walk_path(root, path, follow, &w, &last);
        if (s == GD_OK && last.known && (last.full || type_only))
            *st = last.st;
        else if (s == GD_OK)
            s = cached_stat(root, w.out, last.hash, false, &last.base, st);
        walk_done(&w);
    }
    if (s == GD_ENOMEM)
        root->out_of_memory = true;
    note_status(root, s == GD_ENOTREG ? GD_OK : s, path);
    return s;
}

enum gd_status gd_root_stat(struct gd_root *root, const char *path, struct gd_os_stat *st)
{
    return do_stat(root, path, true, false, st);
}

enum gd_status gd_root_lstat(struct gd_root *root, const char *path, struct gd_os_stat *st)
{
    return do_stat(root, path, false, false, st);
}

bool gd_root_exists(struct gd_root *root, const char *path)
{
    struct gd_os_stat st;
    return do_stat(root, path, true, true, &st) == GD_OK;
}

bool gd_root_is_dir(struct gd_root *root, const char *path)
{
    struct gd_os_stat st;
    return do_stat(root, path, true, true, &st) == GD_OK && st.type == GD_FT_DIR;
}

enum gd_status gd_root_readlink(struct gd_root *root, const char *path, char **target)
{
    *target = NULL;
    enum gd_status st;
    if (root->live) {
        char *host;
        st = host_for(root, path, false, &host);
        if (st == GD_OK)
            st = gd_os_readlink(host, target);
        gd_free(host);
    } else {
        struct walk w;
        struct last last;
        st = walk_path(root, path, false, &w, &last);
        char buf[GD_ROOT_PATH_MAX * 2 + 2];
        const struct gd_os_dirh *at = NULL;
        const char *rel =
            st == GD_OK ? sys_path(root, w.out, &last.base, &at, buf, sizeof buf) : NULL;
        if (st == GD_OK)
            st = rel ? gd_os_readlink_at(at, rel, target) : GD_ELIMIT;
        walk_done(&w);
    }
    if (st == GD_ENOMEM)
        root->out_of_memory = true;
    note_status(root, st, path);
    return st;
}

enum gd_status gd_root_open(struct gd_root *root, const char *path, struct gd_os_file **out)
{
    *out = NULL;
    enum gd_status st;
    if (root->live) {
        char *host;
        st = host_for(root, path, true, &host);
        if (st == GD_OK)
            st = gd_os_open_read_known(host, false, NULL, out);
        gd_free(host);
    } else {
        /* Resolved already: O_NOFOLLOW stops a link swapped in since. The resolver's lstat of
         * it (its own, or one in the cache) stands for the open file's fstat. */
        struct walk w;
        struct last last;
        st = walk_path(root, path, true, &w, &last);
        char buf[GD_ROOT_PATH_MAX * 2 + 2];
        const struct gd_os_dirh *at = NULL;
        const char *rel =
            st == GD_OK ? sys_path(root, w.out, &last.base, &at, buf, sizeof buf) : NULL;
        if (st == GD_OK && !rel)
            st = GD_ELIMIT;
        if (st == GD_OK) {
            const struct gd_os_stat *known =
                last.full ? &last.st : stat_known(root, w.out, last.hash);
            st = gd_os_open_read_at(at, rel, true, known, out);
        }
        walk_done(&w);
    }
    if (st == GD_ENOMEM)
        root->out_of_memory = true;
    note_status(root, st, path);
    return st;
}

static enum gd_status read_up_to(struct gd_root *root, const char *path, size_t cap, bool head,
                                 char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    struct gd_os_file *f;
    enum gd_status st = gd_root_open(root, path, &f);
    if (st != GD_OK)
        return st;
    /* Read until EOF (a short read). A regular file's size is known from the open: its bytes
     * and the EOF come in one read into a buffer of that size (ld.so.cache, 60 KB, took nine
     * reads and four copies in 8 KiB steps). /proc and /sys files report no size: they grow
     * the buffer from 8 KiB. Never more than cap bytes, or cap + 1 to tell "larger" (not head). */
    size_t limit = head ? cap : cap + 1;
    struct gd_os_stat fs = { 0 };
    size_t size = 8192;
    if (gd_os_file_stat(f, &fs) == GD_OK && fs.size > 0 && fs.size < limit)
        size = (size_t)fs.size + 1;
    if (size > limit)
        size = limit;
    char *buf = gd_malloc(size + 1);
    size_t n = 0;
    if (!buf)
        st = GD_ENOMEM;
    while (st == GD_OK && n < limit) {
        if (n == size) {
            size_t bigger = size < limit / 2 ? size * 2 : limit;
            char *grown = gd_realloc(buf, bigger + 1);
            if (!grown) {
                st = GD_ENOMEM;
                break;
            }
            buf = grown;
            size = bigger;
        }
        size_t want = size - n, got = 0;
        st = gd_os_pread(f, buf + n, want, n, &got);
        n += got;
        if (st != GD_OK || got < want)
            break;
    }
    if (st == GD_OK && !head && n > cap)
        st = GD_ELIMIT;
    gd_os_close(f);
    if (st == GD_ELIMIT) {
        char detail[64];
        snprintf(detail, sizeof detail, "larger than %zu bytes", cap);
        note(root, GD_ANOMALY_TOO_LARGE, path, detail);
    } else {
        note_status(root, st, path);
    }
    if (st != GD_OK) {
        gd_free(buf);
        if (st == GD_ENOMEM)
            root->out_of_memory = true;
        return st;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return GD_OK;
}

enum gd_status gd_root_read_file(struct gd_root *root, const char *path, size_t cap, char **data,
                                 size_t *len)
{
    return read_up_to(root, path, cap, false, data, len);
}

enum gd_status gd_root_read_head(struct gd_root *root, const char *path, size_t max, char **data,
                                 size_t *len)
{
    return read_up_to(root, path, max, true, data, len);
}

void gd_names_free(struct gd_names *names)
{
    if (!names)
        return;
    gd_free(names->names);
    gd_free(names->block);
    names->names = NULL;
    names->block = NULL;
    names->count = 0;
}

/* Keep listing `l`'s directory open (`h`, taken), closing the one held longest when
 * GD_ROOT_HELD_MAX are. */
static void hold(struct gd_root *root, struct listing *l, struct gd_os_dirh *h)
{
    struct listing **slot = &root->held[root->next_held];
    if (root->nheld == GD_ROOT_HELD_MAX) {
        gd_os_dirh_close((*slot)->h);
        (*slot)->h = NULL;
    } else {
        root->nheld++;
    }
    l->h = h;
    *slot = l;
    root->next_held = (root->next_held + 1) % GD_ROOT_HELD_MAX;
}

/* A caller's copy of a kept listing. */
static enum gd_status listing_copy(const struct listing *l, struct gd_names *out)
{
    if (!l->count)
        return GD_OK;
    out->block = gd_malloc(l->block_len);
    out->names = gd_malloc(l->count * sizeof *out->names);
    if (!out->block || !out->names) {
        gd_names_free(out);
        return GD_ENOMEM;
    }
    memcpy(out->block, l->block, l->block_len);
    for (size_t i = 0; i < l->count; i++)
        out->names[i] = out->block + (l->names[i] - l->block);
    out->count = l->count;
    return GD_OK;
}

enum gd_status gd_root_list(struct gd_root *root, const char *dir, struct gd_names *out)
{
    out->names = NULL;
    out->count = 0;
    out->block = NULL;
    char *host;
    struct walk w;
    struct last last;
    enum gd_status st = host_walk(root, dir, true, &host, &w, &last);
    /* Under a foreign root a kept listing hangs on its directory's slot in the cache too,
     * where the resolver reads it ("/" has its own). */
    size_t slot = SIZE_MAX;
    bool top = false;
    const struct listing *kept = NULL;
    if (st == GD_OK && !root->live) {
        top = strcmp(w.out, "/") == 0;
        if (!top)
            slot = dir_find(&root->dirs, w.out, last.hash ? last.hash : gd_hash_str(w.out));
        kept = top ? root->top_listing : slot != SIZE_MAX ? root->dirs.listings[slot] : NULL;
    }
    if (st == GD_OK && !kept)
        kept = gd_strmap_get(&root->listed.by_dir, host);
    struct gd_os_dir *d = NULL;
    if (kept) {
        walk_done(&w);
        st = listing_copy(kept, out);
        gd_free(host);
        note_status(root, st, dir);
        return st;
    }
    /* Under a foreign root the directory is held open, relative to the deepest one held on the
     * way; it stays open with its listing (hold). */
    struct gd_os_dirh *h = NULL;
    if (st == GD_OK && !root->live) {
        char buf[GD_ROOT_PATH_MAX * 2 + 2];
        const struct gd_os_dirh *at = NULL;
        const char *rel = sys_path(root, w.out, &last.base, &at, buf, sizeof buf);
        st = rel ? gd_os_dirh_open(at, rel, true, &h) : GD_ELIMIT;
        if (st == GD_OK)
            st = gd_os_opendir_dirh(h, &d);
    } else if (st == GD_OK) {
        st = gd_os_opendir(host, &d);
    }
    walk_done(&w);
    /* The entries, each its type byte then its NUL-terminated name, in one block; the pointers
     * are set once it stops moving. A copy per name was most of the cost of listing
     * /usr/lib/x86_64-linux-gnu (3000 files). */
    struct gd_buf block;
    gd_buf_init(&block, SIZE_MAX);
    size_t *offsets = NULL, cap = 0, len = 0;
    while (st == GD_OK) {
        const char *name;
        enum gd_file_type type;
        bool known;
        enum gd_status r = gd_os_readdir_type(d, &name, &type, &known);
        if (r == GD_ENOENT)
            break;
        if (r != GD_OK) {
            st = r;
            break;
        }
        if (out->count == GD_ROOT_DIR_MAX) {
            st = GD_ELIMIT;
            note(root, GD_ANOMALY_TOO_LARGE, dir, "more directory entries than gpudoctor lists");
            break;
        }
        if (gd_grow((void **)&offsets, &cap, out->count + 1, sizeof *offsets) != 0) {
            st = GD_ENOMEM;
            break;
        }
        offsets[out->count++] = block.len + 1;
        char tag = (char)(known ? (unsigned char)type : TYPE_UNKNOWN);
        gd_buf_add(&block, &tag, 1);
        gd_buf_add(&block, name, strlen(name) + 1);
        if ((st = gd_buf_status(&block)) != GD_OK)
            break;
    }
    gd_os_closedir(d);
    if (st == GD_OK && out->count) {
        st = gd_buf_take(&block, &out->block, &len);
        out->names = st == GD_OK ? gd_malloc(out->count * sizeof *out->names) : NULL;
        if (st == GD_OK && !out->names)
            st = GD_ENOMEM;
        for (size_t i = 0; st == GD_OK && i < out->count; i++)
            out->names[i] = out->block + offsets[i];
    }
    gd_buf_free(&block);
    gd_free(offsets);
    note_status(root, st, dir);
    if (st != GD_OK) {
        gd_names_free(out);
        gd_os_dirh_close(h);
        gd_free(host);
        return st;
    }
    if (out->count > 1)
        qsort(out->names, out->count, sizeof *out->names, cmp_names);
    struct listing *l = listing_keep(root, host, out->block, len, out->names, out->count);
    if (l && top)
        root->top_listing = l;
    else if (l && slot != SIZE_MAX)
        root->dirs.listings[slot] = l;
    if (l && h) {
        hold(root, l, h);
        h = NULL;
    }
    gd_os_dirh_close(h);
    gd_free(host);
    return GD_OK;
}

enum gd_status gd_root_stored_name(struct gd_root *root, const char *path, char **name)
{
    *name = NULL;
    if (!gd_os_names_ignore_case())
        return GD_EUNSUPPORTED;
    char *host;
    enum gd_status st = host_for(root, path, false, &host);
    if (st == GD_OK) {
        st = gd_os_stored_name(host, name);
        gd_free(host);
    }
    note_status(root, st == GD_ENOMEM ? st : GD_OK, path);
    return st;
}

enum gd_status gd_root_access(struct gd_root *root, const char *path, bool read, bool write)
{
    if (!root->live)
        return GD_EUNSUPPORTED;
    return gd_os_access(path, read, write);
}

size_t gd_root_anomaly_count(const struct gd_root *root)
{
    return root->nanomalies;
}

const struct gd_anomaly *gd_root_anomaly_at(const struct gd_root *root, size_t i)
{
    return i < root->nanomalies ? &root->anomalies[i] : NULL;
}

size_t gd_root_anomalies_dropped(const struct gd_root *root)
{
    return root->dropped;
}

bool gd_root_out_of_memory(const struct gd_root *root)
{
    return root->out_of_memory;
}

const char *gd_anomaly_kind_name(enum gd_anomaly_kind kind)
{
    switch (kind) {
    case GD_ANOMALY_LOOP:
        return "symlink-loop";
    case GD_ANOMALY_ESCAPE:
        return "symlink-escape";
    case GD_ANOMALY_UNREADABLE:
        return "unreadable";
    case GD_ANOMALY_TOO_LARGE:
        return "too-large";
    case GD_ANOMALY_NOT_REGULAR:
        return "not-regular";
    }
    return "unknown";
}
