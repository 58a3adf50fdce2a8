#include "sysroot/sysroot.h"

#include "core/alloc.h"
#include "core/hash.h"
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
struct dir_cache {
    char **keys;
    uint64_t *hashes;
    size_t cap, count;
};

/* Answers of stat and lstat by host path: a check asks about the same files many times (every
 * environment's base interpreter, each loader candidate, each copy's links). Only "there" and
 * "not there" are kept; other failures are asked again. Same snapshot rule and cap as above. */
#define GD_ROOT_STAT_CACHE_MAX 65536
struct stat_entry {
    char *key; /* host path; NULL: an empty slot */
    uint64_t hash;
    bool follow;
    enum gd_status status; /* GD_OK or GD_ENOENT */
    struct gd_os_stat st;
};
struct stat_cache {
    struct stat_entry *items;
    size_t cap, count;
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
};
struct listings {
    struct gd_strmap by_dir; /* host path -> struct listing */
    struct listing **items;
    size_t count, cap, names;
};

struct gd_root {
    struct dir_cache dirs;
    struct stat_cache stats;
    struct listings listed;
    char *dir;    /* canonical host directory */
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
    gd_free(root->dir);
    gd_free(root->prefix);
    gd_free(root);
}

void gd_root_forget(struct gd_root *root)
{
    for (size_t i = 0; i < root->dirs.cap; i++)
        gd_free(root->dirs.keys[i]);
    gd_free(root->dirs.keys);
    gd_free(root->dirs.hashes);
    memset(&root->dirs, 0, sizeof root->dirs);
    for (size_t i = 0; i < root->stats.cap; i++)
        gd_free(root->stats.items[i].key);
    gd_free(root->stats.items);
    memset(&root->stats, 0, sizeof root->stats);
    for (size_t i = 0; i < root->listed.count; i++) {
        gd_free(root->listed.items[i]->key);
        gd_free(root->listed.items[i]->block);
        gd_free(root->listed.items[i]->names);
        gd_free(root->listed.items[i]);
    }
    gd_free(root->listed.items);
    gd_strmap_clear(&root->listed.by_dir);
    memset(&root->listed, 0, sizeof root->listed);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What a listing of the directory `dir` (a host path) says of its entry `name`: 1 with `*type`
 * (TYPE_UNKNOWN when the directory did not say), 0 when it lacks the name, -1 when the
 * directory was not listed. */
static int listed_type(const struct gd_root *root, const char *dir, const char *name,
                       unsigned char *type)
{
    const struct listing *l = gd_strmap_get(&root->listed.by_dir, dir);
    if (!l)
        return -1;
    const char *key = name;
    char *const *hit =
        l->count ? bsearch(&key, l->names, l->count, sizeof *l->names, cmp_names) : NULL;
    if (!hit)
        return 0;
    *type = (unsigned char)(*hit)[-1];
    return 1;
}

/* The same for a host path, split at its last '/'. */
static int listed_type_of(const struct gd_root *root, const char *host, unsigned char *type)
{
    const char *slash = strrchr(host, '/');
    if (!slash || !slash[1] || !root->listed.count)
        return -1;
    size_t n = (size_t)(slash - host);
    char dir[GD_ROOT_PATH_MAX * 2 + 2];
    if (n == 0 || n >= sizeof dir)
        return -1;
    memcpy(dir, host, n);
    dir[n] = '\0';
    return listed_type(root, dir, slash + 1, type);
}

/* Keep a copy of a listing (block with type bytes, sorted names). Failing to keep it marks
 * the root out of memory, as every failed allocation does: a check must not pass for complete
 * after one. */
static void listing_keep(struct gd_root *root, const char *host, const char *block, size_t len,
                         char *const *names, size_t count)
{
    struct listings *ls = &root->listed;
    if (ls->names + count > GD_ROOT_LISTED_MAX || gd_strmap_get(&ls->by_dir, host))
        return;
    struct listing *l = gd_calloc(1, sizeof *l);
    if (!l) {
        root->out_of_memory = true;
        return;
    }
    l->key = gd_strdup(host);
    l->block = gd_malloc(len ? len : 1);
    l->names = count ? gd_malloc(count * sizeof *l->names) : NULL;
    if (!l->key || !l->block || (count && !l->names) ||
        gd_grow((void **)&ls->items, &ls->cap, ls->count + 1, sizeof *ls->items) != 0 ||
        gd_strmap_put(&ls->by_dir, l->key, l) != GD_OK) {
        gd_free(l->key);
        gd_free(l->block);
        gd_free(l->names);
        gd_free(l);
        root->out_of_memory = true;
        return;
    }
    if (len)
        memcpy(l->block, block, len);
    for (size_t i = 0; i < count; i++)
        l->names[i] = l->block + (names[i] - block);
    l->block_len = len;
    l->count = count;
    ls->items[ls->count++] = l;
    ls->names += count;
}

static bool dir_cached(const struct dir_cache *c, const char *path, uint64_t h)
{
    if (!c->cap)
        return false;
    for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        if (!c->keys[i])
            return false;
        if (c->hashes[i] == h && strcmp(c->keys[i], path) == 0)
            return true;
    }
}

static void dir_put(struct dir_cache *c, char *key, uint64_t h)
{
    size_t i = h & (c->cap - 1);
    while (c->keys[i])
        i = (i + 1) & (c->cap - 1);
    c->keys[i] = key;
    c->hashes[i] = h;
    c->count++;
}

static struct stat_entry *stat_slot(const struct stat_cache *c, const char *host, uint64_t h,
                                    bool follow)
{
    for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        struct stat_entry *e = &c->items[i];
        if (!e->key || (e->hash == h && e->follow == follow && strcmp(e->key, host) == 0))
            return e;
    }
}

/* stat (follow) or lstat of a host path, through the cache. GD_ENOMEM when remembering the
 * answer failed: the caller's answer must not pass for complete. */
static enum gd_status cached_stat(struct gd_root *root, const char *host, bool follow,
                                  struct gd_os_stat *out)
{
    struct stat_cache *c = &root->stats;
    uint64_t h = gd_hash_str(host);
    if (c->cap) {
        struct stat_entry *e = stat_slot(c, host, h, follow);
        if (e->key) {
            if (e->status == GD_OK)
                *out = e->st;
            return e->status;
        }
    }
    enum gd_status st = follow ? gd_os_stat(host, out) : gd_os_lstat(host, out);
    if ((st != GD_OK && st != GD_ENOENT) || c->count >= GD_ROOT_STAT_CACHE_MAX)
        return st;
    if ((c->count + 1) * 2 > c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        struct stat_entry *items = gd_calloc(cap, sizeof *items);
        if (!items)
            return GD_ENOMEM;
        struct stat_cache grown = { items, cap, c->count };
        for (size_t i = 0; i < c->cap; i++)
            if (c->items[i].key)
                *stat_slot(&grown, c->items[i].key, c->items[i].hash, c->items[i].follow) =
                    c->items[i];
        gd_free(c->items);
        *c = grown;
    }
    char *key = gd_strdup(host);
    if (!key)
        return GD_ENOMEM;
    struct stat_entry *e = stat_slot(c, host, h, follow);
    *e = (struct stat_entry){ key, h, follow, st, { 0 } };
    if (st == GD_OK)
        e->st = *out;
    c->count++;
    return st;
}

/* The cached lstat of a host path, or NULL when it is not in the cache or not there. */
static const struct gd_os_stat *stat_known(const struct gd_root *root, const char *host)
{
    if (!root->stats.cap)
        return NULL;
    const struct stat_entry *e = stat_slot(&root->stats, host, gd_hash_str(host), false);
    return e->key && e->status == GD_OK ? &e->st : NULL;
}

/* lstat of a host path for its type only: from the listing of its directory when there is
 * one (absent: GD_ENOENT where names are case-sensitive), else through the cache. Only `type`
 * is set from a listing. */
static enum gd_status listed_stat(struct gd_root *root, const char *host, struct gd_os_stat *out)
{
    unsigned char type;
    int listed = listed_type_of(root, host, &type);
    /* Where the file system folds case (Windows), a name the listing spells otherwise is there
     * all the same: only the system can say it is absent. */
    if (listed == 0 && !gd_os_names_ignore_case())
        return GD_ENOENT;
    if (listed == 1 && type != TYPE_UNKNOWN) {
        memset(out, 0, sizeof *out);
        out->type = (enum gd_file_type)type;
        return GD_OK;
    }
    return cached_stat(root, host, false, out);
}

/* Remember `path` as a directory. GD_ENOMEM when an allocation failed (the caller's answer
 * must then not pass for complete); GD_OK also when the cache is full. */
static enum gd_status dir_remember(struct dir_cache *c, const char *path, uint64_t h)
{
    if (c->count >= GD_ROOT_DIR_CACHE_MAX || dir_cached(c, path, h))
        return GD_OK;
    if ((c->count + 1) * 2 > c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        char **keys = gd_calloc(cap, sizeof *keys);
        uint64_t *hashes = gd_calloc(cap, sizeof *hashes);
        if (!keys || !hashes) {
            gd_free(keys);
            gd_free(hashes);
            return GD_ENOMEM;
        }
        struct dir_cache grown = { keys, hashes, cap, 0 };
        for (size_t i = 0; i < c->cap; i++)
            if (c->keys[i])
                dir_put(&grown, c->keys[i], c->hashes[i]);
        gd_free(c->keys);
        gd_free(c->hashes);
        *c = grown;
    }
    char *key = gd_strdup(path);
    if (!key)
        return GD_ENOMEM;
    dir_put(c, key, h);
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
    char *rest;
    size_t link_end;
    int links;
    char last_link[GD_ROOT_PATH_MAX + 1];
    char *last_target;
};

static enum gd_status walk_link(struct walk *w, const char *host, size_t after)
{
    char *target = NULL;
    enum gd_status st = gd_os_readlink(host, &target);
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

/* Whether the first `n` bytes of an absolute path hold no empty, "." or ".." component: one
 * pass instead of three strstr calls, on every path a check resolves. */
static bool plain_dir(const char *path, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (path[i] != '/')
            continue;
        const char *c = path + i + 1;
        size_t left = n - i - 1;
        if (left == 0 || c[0] == '/' || (c[0] == '.' && (left == 1 || c[1] == '/')) ||
            (c[0] == '.' && c[1] == '.' && (left == 2 || c[2] == '/')))
            return false;
    }
    return true;
}

enum gd_status gd_root_resolve(struct gd_root *root, const char *path, bool follow_last, char **out)
{
    *out = NULL;
    if (!path || strlen(path) > GD_ROOT_PATH_MAX)
        return GD_ELIMIT;
    /* Not `= { 0 }`: that zero-fills two path buffers (8 KiB) on every call, a third of a
     * check's instructions for 100 environments. Each field is set before it is read. */
    struct walk w;
    w.out[0] = '\0';
    w.out_len = 0;
    w.link_end = 0;
    w.links = 0;
    w.last_link[0] = '\0';
    w.last_target = NULL;
    w.rest = gd_strdup(path);
    if (!w.rest) {
        root->out_of_memory = true;
        return GD_ENOMEM;
    }
    enum gd_status st = GD_OK;
    bool escaped = false;
    char *escape = NULL; /* the link that climbed above the root */
    size_t pos = 0;
    /* A canonical path whose directory the root has seen already: start at its last
     * component instead of hashing every prefix again (a check resolves tens of thousands of
     * paths in a few hundred directories). Only a plain absolute path qualifies: no ".", ".."
     * or empty component, and a last component that does not start with a dot. */
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) : 0;
    if (path[0] == '/' && dir_len > 0 && slash[1] && slash[1] != '.' && plain_dir(path, dir_len)) {
        memcpy(w.out, path, dir_len);
        w.out[dir_len] = '\0';
        if (dir_cached(&root->dirs, w.out, gd_hash_str(w.out))) {
            w.out_len = dir_len;
            pos = dir_len;
        }
    }
    for (;;) {
        while (w.rest[pos] == '/')
            pos++;
        if (!w.rest[pos])
            break;
        size_t start = pos;
        while (w.rest[pos] && w.rest[pos] != '/')
            pos++;
        size_t len = pos - start, after = pos;
        while (w.rest[after] == '/')
            after++;
        bool last = w.rest[after] == '\0';
        const char *comp = w.rest + start;
        if (len == 1 && comp[0] == '.')
            continue;
        if (len == 2 && comp[0] == '.' && comp[1] == '.') {
            if (w.out_len == 0) {
                /* ".." at "/" stays at "/", as the kernel does; from a link it is suspicious.
                 * Blame the link being walked now: links met later overwrite last_link. */
                if (start < w.link_end && !escaped) {
                    escaped = true;
                    escape = link_detail(&w);
                }
            } else {
                while (w.out_len > 0 && w.out[w.out_len - 1] != '/')
                    w.out_len--;
                if (w.out_len > 0)
                    w.out_len--;
            }
            continue;
        }
        if (w.out_len + 1 + len > GD_ROOT_PATH_MAX) {
            st = GD_ELIMIT;
            break;
        }
        w.out[w.out_len++] = '/';
        memcpy(w.out + w.out_len, comp, len);
        w.out_len += len;
        w.out[w.out_len] = '\0';
        uint64_t h = gd_hash_str(w.out);
        if (dir_cached(&root->dirs, w.out, h))
            continue; /* a directory, not a link: nothing to follow or refuse */
        char *host = gd_root_host_path(root, w.out);
        if (!host) {
            st = GD_ENOMEM;
            break;
        }
        struct gd_os_stat s;
        st = listed_stat(root, host, &s);
        if (st == GD_OK && s.type == GD_FT_DIR)
            st = dir_remember(&root->dirs, w.out, h);
        if (st == GD_OK && s.type == GD_FT_LNK && (!last || follow_last)) {
            if (++w.links > GD_ROOT_MAX_LINKS) {
                st = GD_ELOOP;
            } else {
                st = walk_link(&w, host, after);
                pos = 0;
            }
        } else if (st == GD_OK && !last && s.type != GD_FT_DIR) {
            st = GD_ENOTDIR;
        }
        gd_free(host);
        if (st != GD_OK)
            break;
    }
    if (st == GD_ELOOP) {
        note(root, GD_ANOMALY_LOOP, path, w.last_link);
    } else if (escaped) {
        if (!escape)
            root->out_of_memory = true; /* the note would lose its detail */
        note(root, GD_ANOMALY_ESCAPE, path, escape);
    }
    /* A trailing '/' asks for a directory: "file/" is ENOTDIR, as the kernel says. */
    size_t plen = strlen(path);
    if (st == GD_OK && plen > 1 && path[plen - 1] == '/' && w.out_len > 0) {
        char *host = gd_root_host_path(root, w.out);
        struct gd_os_stat s;
        if (!host)
            st = GD_ENOMEM;
        else if (gd_os_stat(host, &s) == GD_OK && s.type != GD_FT_DIR)
            st = GD_ENOTDIR;
        gd_free(host);
    }
    if (st == GD_OK) {
        if (w.out_len == 0)
            w.out[w.out_len++] = '/';
        *out = gd_strndup(w.out, w.out_len);
        if (!*out)
            st = GD_ENOMEM;
    }
    gd_free(escape);
    gd_free(w.rest);
    gd_free(w.last_target);
    if (st == GD_ENOMEM)
        root->out_of_memory = true;
    return st;
}

/* The host path to hand to the OS: under the live root the kernel resolves; elsewhere we do. */
static enum gd_status host_for(struct gd_root *root, const char *path, bool follow_last,
                               char **host)
{
    *host = NULL;
    if (root->live) {
        /* The same cap as gd_root_resolve: past it gd_root_host_path would fail as ENOMEM. */
        if (strlen(path) > GD_ROOT_PATH_MAX)
            return GD_ELIMIT;
        *host = gd_root_host_path(root, path);
        return *host ? GD_OK : GD_ENOMEM;
    }
    char *inside = NULL;
    enum gd_status st = gd_root_resolve(root, path, follow_last, &inside);
    if (st != GD_OK)
        return st;
    *host = gd_root_host_path(root, inside);
    gd_free(inside);
    return *host ? GD_OK : GD_ENOMEM;
}

static enum gd_status do_stat(struct gd_root *root, const char *path, bool follow, bool type_only,
                              struct gd_os_stat *st)
{
    char *host;
    enum gd_status s = host_for(root, path, follow, &host);
    if (s == GD_OK) {
        /* Under a foreign root the path is resolved already: lstat must not follow again. */
        s = type_only && !root->live ? listed_stat(root, host, st)
                                     : cached_stat(root, host, follow && root->live, st);
        gd_free(host);
    }
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
    char *host;
    enum gd_status st = host_for(root, path, false, &host);
    if (st == GD_OK) {
        st = gd_os_readlink(host, target);
        gd_free(host);
    }
    note_status(root, st, path);
    return st;
}

enum gd_status gd_root_open(struct gd_root *root, const char *path, struct gd_os_file **out)
{
    *out = NULL;
    char *host;
    enum gd_status st = host_for(root, path, true, &host);
    if (st == GD_OK) {
        /* Resolved already under a foreign root: O_NOFOLLOW stops a link swapped in since.
         * The resolver's lstat of it (in the cache) stands for the open file's fstat. */
        const struct gd_os_stat *known = root->live ? NULL : stat_known(root, host);
        st = gd_os_open_read_known(host, !root->live, known, out);
        gd_free(host);
    }
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
    enum gd_status st = host_for(root, dir, true, &host);
    struct gd_os_dir *d = NULL;
    const struct listing *kept = st == GD_OK ? gd_strmap_get(&root->listed.by_dir, host) : NULL;
    if (kept) {
        st = listing_copy(kept, out);
        gd_free(host);
        note_status(root, st, dir);
        return st;
    }
    if (st == GD_OK)
        st = gd_os_opendir(host, &d);
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
        gd_free(host);
        return st;
    }
    if (out->count > 1)
        qsort(out->names, out->count, sizeof *out->names, cmp_names);
    listing_keep(root, host, out->block, len, out->names, out->count);
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
