/*
 * Helpers shared by the unit tests: temporary trees built at test time (files, directories,
 * symlinks, FIFOs), removed again at the end. Every function aborts the test through cmocka when
 * the host refuses, so a test never runs against a half-built tree.
 *
 * The same helpers serve the mingw build, whose tests run under wine (tests/windows.cmake): a
 * temporary directory under GetTempPathW (its path written with '/', as src/os writes paths),
 * files through the UTF-16 API, chmod as the read-only attribute. What Windows cannot make
 * skips the test that asks for it (cmocka's skip(), with the reason printed), never fakes it:
 * a FIFO (Windows has none), a file that cannot be read (no mode bits: an ACL would be needed),
 * a shell script run as a program, and a symbolic link where the system refuses to make one
 * (wine 8 answers CreateSymbolicLinkW with success and makes nothing; Windows without developer
 * mode refuses it).
 *
 * Include after <cmocka.h>, in a file that defines _GNU_SOURCE before any include.
 */
#ifndef GD_TESTS_TESTUTIL_H
#define GD_TESTS_TESTUTIL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <io.h>
#include <windows.h>
#include <wchar.h>
typedef unsigned tu_mode_t;
#else
#include <fcntl.h>
#include <ftw.h>
typedef mode_t tu_mode_t;
#endif

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

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

#ifdef _WIN32

/* UTF-8 to new UTF-16 memory (free()). */
static inline wchar_t *tu_wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (!w)
        fail_msg("cannot convert %s to UTF-16", s);
    MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
    return w;
}

/* UTF-16 to new UTF-8 memory (free()), '\' turned into '/'. */
static inline char *tu_narrow(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (!s)
        fail_msg("cannot convert a path to UTF-8");
    WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    for (char *p = s; *p; p++)
        if (*p == '\\')
            *p = '/';
    return s;
}

/* Windows' text for the last error, for failure messages. */
static inline const char *tu_winerr(DWORD e)
{
    static char buf[256];
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0,
                             buf, sizeof buf, NULL);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.'))
        buf[--n] = '\0';
    if (n == 0)
        snprintf(buf, sizeof buf, "Windows error %lu", (unsigned long)e);
    return buf;
}

/* One directory; true when it was made or was there. */
static inline int tu_mkdir_one(const char *path)
{
    wchar_t *w = tu_wide(path);
    BOOL ok = CreateDirectoryW(w, NULL) || GetLastError() == ERROR_ALREADY_EXISTS;
    DWORD e = GetLastError();
    free(w);
    if (!ok)
        fail_msg("mkdir %s: %s", path, tu_winerr(e));
    return 1;
}

/* A new directory under the user's temporary directory (%TMP%, %TEMP%). Free with tu_rmtree()
 * and free(). */
static inline char *tu_mkdtemp(const char *tag)
{
    wchar_t base[MAX_PATH + 1];
    DWORD n = GetTempPathW(MAX_PATH + 1, base);
    if (n == 0 || n > MAX_PATH)
        fail_msg("GetTempPathW: %s", tu_winerr(GetLastError()));
    char *tmp = tu_narrow(base);
    size_t len = strlen(tmp);
    while (len > 1 && tmp[len - 1] == '/')
        tmp[--len] = '\0';
    static unsigned counter;
    for (unsigned tries = 0; tries < 100; tries++) {
        LARGE_INTEGER t;
        QueryPerformanceCounter(&t);
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/gd-%s-%lx%x%x", tmp, tag,
                 (unsigned long)GetCurrentProcessId(), (unsigned)(t.QuadPart & 0xffff), counter++);
        wchar_t *w = tu_wide(dir);
        BOOL made = CreateDirectoryW(w, NULL);
        DWORD e = GetLastError();
        free(w);
        if (made) {
            free(tmp);
            char *out = strdup(dir);
            if (!out)
                fail_msg("out of memory");
            return out;
        }
        if (e != ERROR_ALREADY_EXISTS)
            fail_msg("mkdir %s: %s", dir, tu_winerr(e));
    }
    fail_msg("no fresh directory under %s", tmp);
    return NULL;
}

/* The absolute, canonical form of an existing path, '/' as separator (new memory, free()):
 * GetFullPathNameW for "." and "..", GetLongPathNameW for 8.3 names. */
static inline char *tu_realpath(const char *path)
{
    wchar_t *w = tu_wide(path), full[32768], longer[32768];
    DWORD n = GetFullPathNameW(w, 32768, full, NULL);
    free(w);
    if (n == 0 || n >= 32768)
        fail_msg("GetFullPathNameW %s: %s", path, tu_winerr(GetLastError()));
    n = GetLongPathNameW(full, longer, 32768);
    if (n == 0 || n >= 32768)
        fail_msg("GetLongPathNameW %s: %s", path, tu_winerr(GetLastError()));
    return tu_narrow(longer);
}

static inline FILE *tu_fopen(const char *path, const char *mode)
{
    wchar_t *w = tu_wide(path), *m = tu_wide(mode);
    FILE *f = _wfopen(w, m);
    free(w);
    free(m);
    return f;
}

#else

static inline int tu_mkdir_one(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        fail_msg("mkdir %s: %s", path, strerror(errno));
    return 1;
}

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

static inline FILE *tu_fopen(const char *path, const char *mode)
{
    return fopen(path, mode);
}

/* The absolute, canonical form of an existing path (new memory, free()). */
static inline char *tu_realpath(const char *path)
{
    char *p = realpath(path, NULL);
    if (!p)
        fail_msg("realpath %s: %s", path, strerror(errno));
    return p;
}

#endif

/* Seconds on a monotonic clock, for tests that time a call. */
static inline double tu_now_s(void)
{
#ifdef _WIN32
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
#endif
}

/* A file opened for reading and writing at any offset: made empty when `create`, else an
 * existing file to change. */
static inline FILE *tu_open_rw(const char *path, bool create)
{
    FILE *f = tu_fopen(path, create ? "wb+" : "rb+");
    if (!f)
        fail_msg("fopen %s: %s", path, strerror(errno));
    return f;
}

static inline void tu_seek(FILE *f, unsigned long long off)
{
#ifdef _WIN32
    int r = _fseeki64(f, (long long)off, SEEK_SET);
#else
    int r = fseeko(f, (off_t)off, SEEK_SET);
#endif
    if (r != 0)
        fail_msg("seek to %llu: %s", off, strerror(errno));
}

/* pwrite and pread on a stream: exactly `len` bytes at `off`, or the test fails. */
static inline void tu_pwrite(FILE *f, const void *data, size_t len, unsigned long long off)
{
    tu_seek(f, off);
    if (fwrite(data, 1, len, f) != len || fflush(f) != 0)
        fail_msg("write %zu bytes at %llu: %s", len, off, strerror(errno));
}

static inline void tu_pread(FILE *f, void *data, size_t len, unsigned long long off)
{
    tu_seek(f, off);
    if (fread(data, 1, len, f) != len)
        fail_msg("read %zu bytes at %llu: %s", len, off, strerror(errno));
}

/* The file's size set to `size`, a hole where it grows (the file system permitting). */
static inline void tu_set_size(FILE *f, unsigned long long size)
{
    if (fflush(f) != 0)
        fail_msg("fflush: %s", strerror(errno));
#ifdef _WIN32
    /* Not _chsize_s, which writes the zeros itself: SetEndOfFile leaves them to the system. */
    HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
    LARGE_INTEGER at;
    at.QuadPart = (LONGLONG)size;
    if (!SetFilePointerEx(h, at, NULL, FILE_BEGIN) || !SetEndOfFile(h))
        fail_msg("set the size to %llu: %s", size, tu_winerr(GetLastError()));
#else
    if (ftruncate(fileno(f), (off_t)size) != 0)
        fail_msg("set the size to %llu: %s", size, strerror(errno));
#endif
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
        tu_mkdir_one(path);
        *p = '/';
    }
    tu_mkdir_one(path);
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
    FILE *f = tu_fopen(path, "wb");
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

#ifdef _WIN32

#ifndef SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE
#define SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE 0x2
#endif

/* A symlink at `rel` whose target text is `target` with '\' for '/' (a relative link written
 * with '/' does not resolve on Windows; gd_os_readlink turns them back). Windows must be told
 * whether the target is a directory: it is looked at now (a dangling link is a file link).
 * False, with the reason printed, when the system makes no link. */
static inline bool tu_try_symlink(const char *root, const char *rel, const char *target)
{
    char path[PATH_MAX], where[2 * PATH_MAX];
    tu_parents(root, rel);
    tu_path(path, sizeof path, root, rel);
    bool absolute = target[0] == '/' || target[0] == '\\' || (target[0] && target[1] == ':');
    if (absolute) {
        snprintf(where, sizeof where, "%s", target);
    } else {
        snprintf(where, sizeof where, "%s", path);
        char *slash = strrchr(where, '/');
        snprintf(slash + 1, sizeof where - (size_t)(slash + 1 - where), "%s", target);
    }
    wchar_t *wwhere = tu_wide(where), *wpath = tu_wide(path), *wtarget = tu_wide(target);
    for (wchar_t *p = wtarget; *p; p++)
        if (*p == L'/')
            *p = L'\\';
    DWORD a = GetFileAttributesW(wwhere);
    DWORD flags = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE;
    if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY))
        flags |= SYMBOLIC_LINK_FLAG_DIRECTORY;
    BOOL ok = CreateSymbolicLinkW(wpath, wtarget, flags);
    DWORD e = GetLastError();
    /* Made, and a reparse point: wine 8 says yes and leaves nothing. */
    DWORD made = GetFileAttributesW(wpath);
    free(wwhere);
    free(wpath);
    free(wtarget);
    if (!ok || made == INVALID_FILE_ATTRIBUTES || !(made & FILE_ATTRIBUTE_REPARSE_POINT)) {
        print_message("this system makes no symbolic link %s -> %s (%s)\n", path, target,
                      ok ? "CreateSymbolicLinkW made nothing" : tu_winerr(e));
        return false;
    }
    return true;
}

/* Windows has no FIFO in its file system. */
static inline bool tu_try_mkfifo(const char *root, const char *rel)
{
    print_message("Windows has no FIFOs in the file system (%s/%s)\n", root, rel);
    return false;
}

/* The read-only attribute for a mode without write bits; a mode without read bits cannot be
 * had without an ACL, and skips the test. */
static inline void tu_chmod(const char *root, const char *rel, tu_mode_t mode)
{
    char path[PATH_MAX];
    tu_path(path, sizeof path, root, rel);
    if (!(mode & 0444)) {
        print_message("Windows has no mode bits: %s cannot be made unreadable by chmod: skipped\n",
                      path);
        skip();
    }
    wchar_t *w = tu_wide(path);
    DWORD a = GetFileAttributesW(w);
    if (a == INVALID_FILE_ATTRIBUTES)
        fail_msg("chmod %s: %s", path, tu_winerr(GetLastError()));
    a = (mode & 0222) ? (a & ~(DWORD)FILE_ATTRIBUTE_READONLY) : (a | FILE_ATTRIBUTE_READONLY);
    if (!SetFileAttributesW(w, a ? a : FILE_ATTRIBUTE_NORMAL))
        fail_msg("chmod %s: %s", path, tu_winerr(GetLastError()));
    free(w);
}

/* A fake program is a shell script: Windows runs none. */
static inline const char *tu_script(const char *root, const char *rel, const char *body)
{
    (void)body;
    print_message("a shell script cannot run as a program on Windows (%s/%s): skipped\n", root,
                  rel);
    skip();
    return ""; /* not reached */
}

/* rm -rf of a wide path: links are removed, never followed; read-only attributes cleared. */
static inline void tu_rmtree_w(const wchar_t *path)
{
    DWORD a = GetFileAttributesW(path);
    if (a == INVALID_FILE_ATTRIBUTES)
        return;
    if (a & FILE_ATTRIBUTE_READONLY)
        SetFileAttributesW(path, a & ~(DWORD)FILE_ATTRIBUTE_READONLY);
    if (!(a & FILE_ATTRIBUTE_DIRECTORY)) {
        DeleteFileW(path);
        return;
    }
    if (!(a & FILE_ATTRIBUTE_REPARSE_POINT)) {
        size_t n = wcslen(path);
        wchar_t *pattern = malloc((n + 3) * sizeof *pattern);
        if (!pattern)
            return;
        wcscpy(pattern, path);
        wcscpy(pattern + n, L"\\*");
        WIN32_FIND_DATAW d;
        HANDLE h = FindFirstFileW(pattern, &d);
        free(pattern);
        if (h != INVALID_HANDLE_VALUE) {
            do {
                if (wcscmp(d.cFileName, L".") == 0 || wcscmp(d.cFileName, L"..") == 0)
                    continue;
                size_t k = wcslen(d.cFileName);
                wchar_t *child = malloc((n + k + 2) * sizeof *child);
                if (!child)
                    break;
                wcscpy(child, path);
                child[n] = L'\\';
                wcscpy(child + n + 1, d.cFileName);
                tu_rmtree_w(child);
                free(child);
            } while (FindNextFileW(h, &d));
            FindClose(h);
        }
    }
    RemoveDirectoryW(path);
}

static inline void tu_rmtree(const char *dir)
{
    if (!dir)
        return;
    wchar_t *w = tu_wide(dir);
    tu_rmtree_w(w);
    free(w);
}

#else

/* A symlink at `rel` whose target text is exactly `target` (POSIX systems always make one: a
 * refusal fails the test). */
static inline bool tu_try_symlink(const char *root, const char *rel, const char *target)
{
    char path[PATH_MAX];
    tu_parents(root, rel);
    tu_path(path, sizeof path, root, rel);
    if (symlink(target, path) != 0)
        fail_msg("symlink %s -> %s: %s", path, target, strerror(errno));
    return true;
}

static inline bool tu_try_mkfifo(const char *root, const char *rel)
{
    char path[PATH_MAX];
    tu_parents(root, rel);
    tu_path(path, sizeof path, root, rel);
    if (mkfifo(path, 0644) != 0)
        fail_msg("mkfifo %s: %s", path, strerror(errno));
    return true;
}

static inline void tu_chmod(const char *root, const char *rel, tu_mode_t mode)
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

/* A checked-in fixture's symlinks are links here, or the test is skipped: wine 8 follows a
 * Unix symlink as if it were its target, and Git for Windows checks links out as small files
 * unless asked otherwise. `link` names one of the fixture's links. */
static inline void tu_need_fixture_links(const char *link)
{
#ifdef _WIN32
    wchar_t *w = tu_wide(link);
    DWORD a = GetFileAttributesW(w);
    free(w);
    bool is_link = a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_REPARSE_POINT);
#else
    struct stat st;
    bool is_link = lstat(link, &st) == 0 && S_ISLNK(st.st_mode);
#endif
    if (!is_link) {
        print_message("%s is not a symbolic link on this system: the fixture's links are not "
                      "there: skipped\n",
                      link);
        skip();
    }
}

/* A symlink, or the test is skipped where the system makes none. */
static inline void tu_symlink(const char *root, const char *rel, const char *target)
{
    if (!tu_try_symlink(root, rel, target))
        skip();
}

/* A FIFO, or the test is skipped where the system has none (Windows). */
static inline void tu_mkfifo(const char *root, const char *rel)
{
    if (!tu_try_mkfifo(root, rel))
        skip();
}

#endif
