/*
 * Helpers shared by the unit tests: temporary trees built at test time (files, directories,
 * symlinks, FIFOs), removed again at the end. Every function aborts the test through cmocka when
 * the host refuses, so a test never runs against a half-built tree.
 *
 * Include after <cmocka.h>, in a file that defines _GNU_SOURCE before any include.
 */
#ifndef GD_TESTS_TESTUTIL_H
#define GD_TESTS_TESTUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* A new directory under $TMPDIR (or /tmp), readable by everyone so that a child that dropped
 * its privileges can still walk into it. Free with tu_rmtree() and free(). */
static inline char *tu_mkdtemp(const char *tag)
{
    const char *tmp = getenv("TMPDIR");
    char tmpl[PATH_MAX];
    snprintf(tmpl, sizeof tmpl, "%s/gd-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
    char *dir = mkdtemp(tmpl);
    if (!dir)
        fail_msg("mkdtemp %s: %s", tmpl, strerror(errno));
    chmod(dir, 0755);
    return strdup(dir);
}

/* `root` + "/" + `rel` into `buf`. */
static inline const char *tu_path(char *buf, size_t size, const char *root, const char *rel)
{
    while (*rel == '/')
        rel++;
    int n = snprintf(buf, size, "%s/%s", root, rel);
    if (n < 0 || (size_t)n >= size)
        fail_msg("path too long: %s/%s", root, rel);
    return buf;
}

/* mkdir -p for `rel` inside `root` (every directory 0755). */
static inline void tu_mkdirs(const char *root, const char *rel)
{
    char path[PATH_MAX];
    tu_path(path, sizeof path, root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            fail_msg("mkdir %s: %s", path, strerror(errno));
        *p = '/';
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        fail_msg("mkdir %s: %s", path, strerror(errno));
}

/* The parent directories of `rel`, created as needed. */
static inline void tu_parents(const char *root, const char *rel)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", rel);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    if (dir[0] && strcmp(dir, "/") != 0)
        tu_mkdirs(root, dir);
}

static inline void tu_write_n(const char *root, const char *rel, const void *data, size_t len)
{
    char path[PATH_MAX];
    tu_parents(root, rel);
    tu_path(path, sizeof path, root, rel);
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("fopen %s: %s", path, strerror(errno));
    if (len && fwrite(data, 1, len, f) != len)
        fail_msg("fwrite %s: %s", path, strerror(errno));
    fclose(f);
}

static inline void tu_write(const char *root, const char *rel, const char *text)
{
    tu_write_n(root, rel, text, strlen(text));
}

/* A symlink at `rel` whose target text is exactly `target`. */
static inline void tu_symlink(const char *root, const char *rel, const char *target)
{
    char path[PATH_MAX];
    tu_parents(root, rel);
    tu_path(path, sizeof path, root, rel);
    if (symlink(target, path) != 0)
        fail_msg("symlink %s -> %s: %s", path, target, strerror(errno));
}

static inline void tu_mkfifo(const char *root, const char *rel)
{
    char path[PATH_MAX];
    tu_parents(root, rel);
    tu_path(path, sizeof path, root, rel);
    if (mkfifo(path, 0644) != 0)
        fail_msg("mkfifo %s: %s", path, strerror(errno));
}

static inline void tu_chmod(const char *root, const char *rel, mode_t mode)
{
    char path[PATH_MAX];
    tu_path(path, sizeof path, root, rel);
    if (chmod(path, mode) != 0)
        fail_msg("chmod %s: %s", path, strerror(errno));
}

static inline int tu_rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP || type == FTW_D || type == FTW_DNR)
        return rmdir(path) == 0 ? 0 : -1;
    return unlink(path) == 0 ? 0 : -1;
}

static inline int tu_unlock_entry(const char *path, const struct stat *st, int type,
                                  struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_D || type == FTW_DNR || (type == FTW_F && S_ISREG(st->st_mode)))
        chmod(path, type == FTW_F ? 0644 : 0755);
    return 0;
}

/* An executable shell script at `rel` ("#!/bin/sh", then `body`): a fake program. Returns its
 * path, valid until 32 more calls. */
static inline const char *tu_script(const char *root, const char *rel, const char *body)
{
    static char paths[32][PATH_MAX];
    static size_t next;
    char *p = paths[next++ % 32];
    size_t n = strlen(body) + 16;
    char *text = malloc(n);
    if (!text)
        fail_msg("out of memory");
    snprintf(text, n, "#!/bin/sh\n%s\n", body);
    tu_write(root, rel, text);
    free(text);
    tu_chmod(root, rel, 0755);
    return tu_path(p, PATH_MAX, root, rel);
}

/* rm -rf, after giving back the permissions a test took away. */
static inline void tu_rmtree(const char *dir)
{
    if (!dir)
        return;
    nftw(dir, tu_unlock_entry, 16, FTW_PHYS);
    nftw(dir, tu_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
