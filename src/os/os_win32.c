/* Win32 implementation of src/os/os.h (Windows 10/11, built with mingw-w64, tested under wine).
 *
 * Paths are UTF-8 at the interface and UTF-16 towards Windows (the W functions: a user name or a
 * folder with non-ASCII characters must work). Paths this file hands out (realpath, getcwd) use
 * '/' as the separator, which every Win32 file function accepts, so that code joining paths with
 * '/' (src/sysroot) works unchanged.
 *
 * What Windows cannot do as POSIX does, and how it is answered:
 *  - a child running a function of this process (fork): Windows has no fork, so the child is
 *    this program (GetModuleFileNameW) started again with the function named on its command
 *    line (os.h, gd_os_child_serve), run as a program child is: a job object, the deadline, the
 *    exception codes read as signals; its report comes on the pipe of its standard output;
 *  - the grace period of a program at its deadline: a console program without a console of its
 *    own gets no polite signal, so its job object is terminated at once;
 *  - a program that crashes ends with an exception code (0xC0000005 ...), mapped to the signal a
 *    POSIX reader expects (SIGSEGV ...), so that rules read one vocabulary. */
#define WIN32_LEAN_AND_MEAN
#include "os/os.h"

#include "core/alloc.h"
#include "core/env.h"
#include "os/childfn.h"
#include "os/win32.h"

#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <shellapi.h>
#include <winioctl.h>

#include "os/signals.h"

#define LINK_MAX_BYTES 4096
/* Long paths (\\?\ form) reach 32767 UTF-16 units. */
#define WPATH_MAX 32768

static enum gd_status from_win(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_NETPATH:
    case ERROR_INVALID_DRIVE:
        return GD_ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
        return GD_EACCES;
    case ERROR_CANT_RESOLVE_FILENAME:
        return GD_ELOOP;
    case ERROR_DIRECTORY:
        return GD_ENOTDIR;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return GD_ENOMEM;
    case ERROR_FILENAME_EXCED_RANGE:
    case ERROR_BUFFER_OVERFLOW:
        return GD_ELIMIT;
    default:
        return GD_EIO;
    }
}

/* UTF-8 to new UTF-16 memory; NULL for bad UTF-8 (*st GD_EINVAL) or no memory (GD_ENOMEM). */
static wchar_t *widen(const char *s, enum gd_status *st)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) {
        *st = GD_EINVAL;
        return NULL;
    }
    wchar_t *w = gd_calloc((size_t)n, sizeof *w);
    if (!w) {
        *st = GD_ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    *st = GD_OK;
    return w;
}

/* UTF-16 (n units, or NUL-terminated with n < 0) to new UTF-8 memory, NULL without memory. */
static char *narrow(const wchar_t *w, int n)
{
    int len = WideCharToMultiByte(CP_UTF8, 0, w, n, NULL, 0, NULL, NULL);
    if (len < 0)
        len = 0;
    char *s = gd_malloc((size_t)len + 1);
    if (!s)
        return NULL;
    if (len)
        WideCharToMultiByte(CP_UTF8, 0, w, n, s, len, NULL, NULL);
    s[len] = '\0';
    /* A NUL-terminated input brings its own NUL into the count. */
    return s;
}

static void forward_slashes(char *s)
{
    for (; *s; s++)
        if (*s == '\\')
            *s = '/';
}

/* Open for a query of attributes (or with `access` for reading/writing), directories too. */
static HANDLE open_path(const char *path, DWORD access, bool nofollow, enum gd_status *st)
{
    wchar_t *w = widen(path, st);
    if (!w)
        return INVALID_HANDLE_VALUE;
    DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (nofollow ? FILE_FLAG_OPEN_REPARSE_POINT : 0);
    HANDLE h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, flags, NULL);
    if (h == INVALID_HANDLE_VALUE)
        *st = from_win(GetLastError());
    gd_free(w);
    return h;
}

/* A symbolic link or a junction: the reparse points Windows follows as links. */
static bool is_link_tag(DWORD tag)
{
    return tag == IO_REPARSE_TAG_SYMLINK || tag == IO_REPARSE_TAG_MOUNT_POINT;
}

static enum gd_status handle_stat(HANDLE h, struct gd_os_stat *st)
{
    BY_HANDLE_FILE_INFORMATION info;
    memset(st, 0, sizeof *st);
    DWORD ft = GetFileType(h);
    if (ft == FILE_TYPE_CHAR) {
        st->type = GD_FT_CHR;
        return GD_OK;
    }
    if (ft == FILE_TYPE_PIPE) {
        st->type = GD_FT_FIFO;
        return GD_OK;
    }
    if (!GetFileInformationByHandle(h, &info))
        return from_win(GetLastError());
    st->type = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? GD_FT_DIR : GD_FT_REG;
    if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) {
        FILE_ATTRIBUTE_TAG_INFO tag;
        if (GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag, sizeof tag) &&
            is_link_tag(tag.ReparseTag))
            st->type = GD_FT_LNK;
    }
    /* No POSIX mode on Windows: what the attributes say, so that "not writable" still shows. */
    st->mode = (info.dwFileAttributes & FILE_ATTRIBUTE_READONLY) ? 0555 : 0755;
    if (st->type == GD_FT_REG)
        st->mode &= 0666;
    st->size = ((unsigned long long)info.nFileSizeHigh << 32) | info.nFileSizeLow;
    st->dev = info.dwVolumeSerialNumber;
    st->ino = ((unsigned long long)info.nFileIndexHigh << 32) | info.nFileIndexLow;
    return GD_OK;
}

static enum gd_status stat_path(const char *path, bool nofollow, struct gd_os_stat *st)
{
    enum gd_status s = GD_OK;
    HANDLE h = open_path(path, FILE_READ_ATTRIBUTES, nofollow, &s);
    if (h == INVALID_HANDLE_VALUE)
        return s;
    s = handle_stat(h, st);
    CloseHandle(h);
    return s;
}

enum gd_status gd_os_lstat(const char *path, struct gd_os_stat *st)
{
    return stat_path(path, true, st);
}

enum gd_status gd_os_stat(const char *path, struct gd_os_stat *st)
{
    return stat_path(path, false, st);
}

/* The layout of FSCTL_GET_REPARSE_POINT's answer for symlinks and junctions (REPARSE_DATA_BUFFER
 * of the Windows DDK, which mingw's user-mode headers do not declare). */
struct reparse_head {
    DWORD tag;
    WORD data_len, reserved;
    WORD subst_off, subst_len, print_off, print_len;
};

enum gd_status gd_os_readlink(const char *path, char **target)
{
    *target = NULL;
    enum gd_status st = GD_OK;
    HANDLE h = open_path(path, FILE_READ_ATTRIBUTES, true, &st);
    if (h == INVALID_HANDLE_VALUE)
        return st;
    /* MAXIMUM_REPARSE_DATA_BUFFER_SIZE is 16 KiB. */
    union {
        struct reparse_head head;
        unsigned char bytes[16 * 1024];
    } buf;
    DWORD got = 0;
    BOOL ok = DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, NULL, 0, &buf, sizeof buf, &got, NULL);
    DWORD err = GetLastError();
    CloseHandle(h);
    if (!ok)
        return err == ERROR_NOT_A_REPARSE_POINT ? GD_EINVAL : from_win(err);
    if (got < sizeof buf.head || !is_link_tag(buf.head.tag))
        return GD_EINVAL;
    /* Symlinks carry a 4-byte flags word before their path buffer, junctions do not. */
    size_t base = sizeof buf.head + (buf.head.tag == IO_REPARSE_TAG_SYMLINK ? 4 : 0);
    /* The print name is what the user wrote ("..\lib"); the substitute name may carry the
     * \??\ prefix of the object manager. */
    size_t off = buf.head.print_len ? buf.head.print_off : buf.head.subst_off;
    size_t len = buf.head.print_len ? buf.head.print_len : buf.head.subst_len;
    if (base + off + len > got || len % 2)
        return GD_EFORMAT;
    wchar_t w[sizeof buf / 2];
    memcpy(w, buf.bytes + base + off, len);
    char *s = narrow(w, (int)(len / 2));
    if (!s)
        return GD_ENOMEM;
    if (strlen(s) > LINK_MAX_BYTES) {
        gd_free(s);
        return GD_ELIMIT;
    }
    forward_slashes(s);
    *target = s;
    return GD_OK;
}

struct gd_os_file {
    HANDLE h;
    struct gd_os_stat st; /* as of the open: callers ask for it right after */
};

enum gd_status gd_os_open_read(const char *path, bool nofollow, struct gd_os_file **out)
{
    *out = NULL;
    enum gd_status st = GD_OK;
    HANDLE h = open_path(path, GENERIC_READ, nofollow, &st);
    if (h == INVALID_HANDLE_VALUE)
        return st;
    struct gd_os_stat s;
    st = handle_stat(h, &s);
    if (st == GD_OK && s.type == GD_FT_LNK)
        st = GD_ELOOP;
    else if (st == GD_OK && s.type != GD_FT_REG)
        st = GD_ENOTREG;
    struct gd_os_file *f = st == GD_OK ? gd_malloc(sizeof *f) : NULL;
    if (st == GD_OK && !f)
        st = GD_ENOMEM;
    if (st != GD_OK) {
        CloseHandle(h);
        return st;
    }
    f->h = h;
    f->st = s;
    *out = f;
    return GD_OK;
}

enum gd_status gd_os_open_read_known(const char *path, bool nofollow,
                                     const struct gd_os_stat *known, struct gd_os_file **out)
{
    /* The handle's information costs no extra round trip here: always asked. */
    (void)known;
    return gd_os_open_read(path, nofollow, out);
}

enum gd_status gd_os_file_stat(struct gd_os_file *f, struct gd_os_stat *st)
{
    *st = f->st;
    return GD_OK;
}

enum gd_status gd_os_pread(struct gd_os_file *f, void *buf, size_t n, unsigned long long offset,
                           size_t *got)
{
    size_t total = 0;
    *got = 0;
    while (total < n) {
        unsigned long long at = offset + total;
        OVERLAPPED ov;
        memset(&ov, 0, sizeof ov);
        ov.Offset = (DWORD)at;
        ov.OffsetHigh = (DWORD)(at >> 32);
        size_t want = n - total;
        DWORD chunk = want > 0x40000000u ? 0x40000000u : (DWORD)want;
        DWORD r = 0;
        /* A synchronous handle with an OVERLAPPED reads at that offset: pread. */
        if (!ReadFile(f->h, (char *)buf + total, chunk, &r, &ov)) {
            DWORD e = GetLastError();
            if (e == ERROR_HANDLE_EOF)
                break;
            return from_win(e);
        }
        if (r == 0)
            break;
        total += r;
    }
    *got = total;
    return GD_OK;
}

void gd_os_close(struct gd_os_file *f)
{
    if (!f)
        return;
    CloseHandle(f->h);
    gd_free(f);
}

struct gd_os_dir {
    HANDLE find;
    WIN32_FIND_DATAW data;
    bool have; /* `data` holds an entry not yet returned */
    /* The last name returned, in UTF-8: a name is at most MAX_PATH UTF-16 units, 3 bytes each
     * at most (a surrogate pair: 4 bytes for 2 units). Kept here, not allocated, so that
     * readdir cannot fail for want of memory, as on POSIX, where callers rely on it. */
    char name[MAX_PATH * 3 + 1];
};

enum gd_status gd_os_opendir(const char *path, struct gd_os_dir **out)
{
    *out = NULL;
    size_t len = strlen(path);
    char *pattern = gd_malloc(len + 3);
    if (!pattern)
        return GD_ENOMEM;
    memcpy(pattern, path, len);
    size_t at = len;
    if (at == 0 || (path[at - 1] != '/' && path[at - 1] != '\\'))
        pattern[at++] = '/';
    pattern[at++] = '*';
    pattern[at] = '\0';
    enum gd_status st = GD_OK;
    wchar_t *w = widen(pattern, &st);
    gd_free(pattern);
    if (!w)
        return st;
    struct gd_os_dir *d = gd_calloc(1, sizeof *d);
    if (!d) {
        gd_free(w);
        return GD_ENOMEM;
    }
    d->find = FindFirstFileExW(w, FindExInfoBasic, &d->data, FindExSearchNameMatch, NULL, 0);
    DWORD e = GetLastError();
    gd_free(w);
    if (d->find == INVALID_HANDLE_VALUE) {
        gd_free(d);
        /* An empty directory still lists "." and "..", so a failure is no directory there: a
         * file named as one says ERROR_DIRECTORY, ERROR_PATH_NOT_FOUND or (wine)
         * ERROR_INVALID_NAME, hence the question asked again. */
        struct gd_os_stat s;
        if (e == ERROR_DIRECTORY || (gd_os_stat(path, &s) == GD_OK && s.type != GD_FT_DIR))
            return GD_ENOTDIR;
        return from_win(e);
    }
    d->have = true;
    *out = d;
    return GD_OK;
}

enum gd_status gd_os_readdir(struct gd_os_dir *d, const char **name)
{
    for (;;) {
        if (!d->have) {
            if (!FindNextFileW(d->find, &d->data)) {
                DWORD e = GetLastError();
                return e == ERROR_NO_MORE_FILES ? GD_ENOENT : from_win(e);
            }
        }
        d->have = false;
        const wchar_t *n = d->data.cFileName;
        if ((n[0] == L'.' && n[1] == 0) || (n[0] == L'.' && n[1] == L'.' && n[2] == 0))
            continue;
        int len = WideCharToMultiByte(CP_UTF8, 0, n, -1, d->name, (int)sizeof d->name, NULL, NULL);
        if (len <= 0)
            return GD_EIO; /* cannot happen: the buffer holds the longest name */
        *name = d->name;
        return GD_OK;
    }
}

enum gd_status gd_os_readdir_type(struct gd_os_dir *d, const char **name, enum gd_file_type *type,
                                  bool *known)
{
    /* Reparse tags decide what a link is here (see gd_os_lstat): the callers stat instead. */
    *type = GD_FT_OTHER;
    *known = false;
    return gd_os_readdir(d, name);
}

void gd_os_closedir(struct gd_os_dir *d)
{
    if (!d)
        return;
    FindClose(d->find);
    gd_free(d);
}

/* ---- directories held open ------------------------------------------------------------
 * Win32 has no calls relative to a directory handle that the file APIs used here take: a
 * handle keeps the directory's path, and each call joins it with the relative one. */
struct gd_os_dirh {
    char *path;
};

/* `path` relative to `at` (NULL: as it is), new memory; NULL when out of memory. */
static char *path_at(const struct gd_os_dirh *at, const char *path)
{
    if (!at)
        return gd_strdup(path);
    size_t a = strlen(at->path), n = strlen(path);
    char *out = gd_malloc(a + 1 + n + 1);
    if (!out)
        return NULL;
    memcpy(out, at->path, a);
    size_t k = a;
    if (k == 0 || (out[k - 1] != '/' && out[k - 1] != '\\'))
        out[k++] = '/';
    memcpy(out + k, path, n + 1);
    return out;
}

enum gd_status gd_os_dirh_open(const struct gd_os_dirh *at, const char *path, bool nofollow,
                               struct gd_os_dirh **out)
{
    *out = NULL;
    char *full = path_at(at, path);
    if (!full)
        return GD_ENOMEM;
    struct gd_os_stat st;
    enum gd_status s = stat_path(full, nofollow, &st);
    if (s == GD_OK && st.type == GD_FT_LNK)
        s = GD_ELOOP;
    else if (s == GD_OK && st.type != GD_FT_DIR)
        s = GD_ENOTDIR;
    struct gd_os_dirh *h = s == GD_OK ? gd_malloc(sizeof *h) : NULL;
    if (s == GD_OK && !h)
        s = GD_ENOMEM;
    if (s != GD_OK) {
        gd_free(full);
        return s;
    }
    h->path = full;
    *out = h;
    return GD_OK;
}

void gd_os_dirh_close(struct gd_os_dirh *h)
{
    if (!h)
        return;
    gd_free(h->path);
    gd_free(h);
}

enum gd_status gd_os_lstat_at(const struct gd_os_dirh *at, const char *path, struct gd_os_stat *st)
{
    char *full = path_at(at, path);
    if (!full)
        return GD_ENOMEM;
    enum gd_status s = gd_os_lstat(full, st);
    gd_free(full);
    return s;
}

enum gd_status gd_os_readlink_at(const struct gd_os_dirh *at, const char *path, char **target)
{
    *target = NULL;
    char *full = path_at(at, path);
    if (!full)
        return GD_ENOMEM;
    enum gd_status s = gd_os_readlink(full, target);
    gd_free(full);
    return s;
}

enum gd_status gd_os_open_read_at(const struct gd_os_dirh *at, const char *path, bool nofollow,
                                  const struct gd_os_stat *known, struct gd_os_file **out)
{
    *out = NULL;
    char *full = path_at(at, path);
    if (!full)
        return GD_ENOMEM;
    enum gd_status s = gd_os_open_read_known(full, nofollow, known, out);
    gd_free(full);
    return s;
}

enum gd_status gd_os_opendir_dirh(struct gd_os_dirh *h, struct gd_os_dir **out)
{
    return gd_os_opendir(h->path, out);
}

enum gd_status gd_os_access(const char *path, bool read, bool write)
{
    /* Windows' permission check is an ACL walk against this process's token; opening with the
     * asked access lets the system make it, as it will for the program that needs the file. */
    DWORD access = (read ? GENERIC_READ : 0) | (write ? GENERIC_WRITE : 0);
    enum gd_status st = GD_OK;
    HANDLE h = open_path(path, access ? access : FILE_READ_ATTRIBUTES, false, &st);
    if (h == INVALID_HANDLE_VALUE)
        return st;
    CloseHandle(h);
    return GD_OK;
}

static void copy_field(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
}

enum gd_status gd_os_uname(struct gd_os_uname *u)
{
    /* GetVersionEx lies to programs without a compatibility manifest; RtlGetVersion does not. */
    typedef LONG(WINAPI * rtl_get_version_fn)(OSVERSIONINFOW *);
    OSVERSIONINFOW v;
    memset(&v, 0, sizeof v);
    v.dwOSVersionInfoSize = sizeof v;
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    FARPROC p = ntdll ? GetProcAddress(ntdll, "RtlGetVersion") : NULL;
    rtl_get_version_fn get = NULL;
    if (p)
        memcpy(&get, &p, sizeof get);
    if (!get || get(&v) != 0)
        return GD_EUNSUPPORTED;
    copy_field(u->sysname, sizeof u->sysname, "Windows");
    snprintf(u->release, sizeof u->release, "%lu.%lu.%lu", (unsigned long)v.dwMajorVersion,
             (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber);
    snprintf(u->version, sizeof u->version, "build %lu", (unsigned long)v.dwBuildNumber);
    SYSTEM_INFO si;
    GetNativeSystemInfo(&si);
    const char *m = "unknown";
    switch (si.wProcessorArchitecture) {
    case PROCESSOR_ARCHITECTURE_AMD64:
        m = "x86_64";
        break;
    case PROCESSOR_ARCHITECTURE_INTEL:
        m = "i686";
        break;
#ifdef PROCESSOR_ARCHITECTURE_ARM64
    case PROCESSOR_ARCHITECTURE_ARM64:
        m = "aarch64";
        break;
#endif
    default:
        break;
    }
    copy_field(u->machine, sizeof u->machine, m);
    return GD_OK;
}

enum gd_status gd_os_libc_version(char *buf, size_t size)
{
    (void)buf;
    (void)size;
    return GD_EUNSUPPORTED; /* no glibc on Windows */
}

enum gd_status gd_os_environ(struct gd_env *env)
{
    wchar_t *block = GetEnvironmentStringsW();
    if (!block)
        return GD_ENOMEM;
    enum gd_status st = GD_OK;
    for (const wchar_t *e = block; *e && st != GD_ENOMEM; e += wcslen(e) + 1) {
        /* "=C:=C:\dir": cmd.exe's per-drive current directories, no variable a program reads. */
        if (e[0] == L'=')
            continue;
        char *s = narrow(e, -1);
        if (!s) {
            st = GD_ENOMEM;
            break;
        }
        if (gd_env_put(env, s) == GD_ENOMEM)
            st = GD_ENOMEM;
        gd_free(s);
    }
    FreeEnvironmentStringsW(block);
    return st;
}

bool gd_os_isatty(int fd)
{
    return _isatty(fd) != 0;
}

bool gd_os_names_ignore_case(void)
{
    return true;
}

enum gd_status gd_os_stored_name(const char *path, char **name)
{
    *name = NULL;
    /* FindFirstFile reads '*' and '?' as wildcards; no stored name holds either. */
    if (strpbrk(path, "*?"))
        return GD_EINVAL;
    enum gd_status st = GD_OK;
    wchar_t *w = widen(path, &st);
    if (!w)
        return st;
    WIN32_FIND_DATAW data;
    HANDLE h = FindFirstFileExW(w, FindExInfoBasic, &data, FindExSearchNameMatch, NULL, 0);
    DWORD e = GetLastError();
    gd_free(w);
    if (h == INVALID_HANDLE_VALUE)
        return from_win(e);
    FindClose(h);
    *name = narrow(data.cFileName, -1);
    return *name ? GD_OK : GD_ENOMEM;
}

unsigned long long gd_os_monotonic_ns(void)
{
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    unsigned long long freq = (unsigned long long)f.QuadPart;
    unsigned long long count = (unsigned long long)c.QuadPart;
    if (freq == 0)
        return 0;
    return count / freq * 1000000000ULL + count % freq * 1000000000ULL / freq;
}

/* "\\?\C:\x" -> "C:/x", "\\?\UNC\srv\share" -> "//srv/share". */
static char *final_to_path(const wchar_t *w)
{
    char *s = narrow(w, -1);
    if (!s)
        return NULL;
    char *p = s;
    if (strncmp(p, "\\\\?\\UNC\\", 8) == 0) {
        p += 6;
        p[0] = '\\';
        p[1] = '\\';
    } else if (strncmp(p, "\\\\?\\", 4) == 0) {
        p += 4;
    }
    memmove(s, p, strlen(p) + 1);
    forward_slashes(s);
    return s;
}

enum gd_status gd_os_realpath(const char *path, char **out)
{
    *out = NULL;
    enum gd_status st = GD_OK;
    HANDLE h = open_path(path, FILE_READ_ATTRIBUTES, false, &st);
    if (h == INVALID_HANDLE_VALUE)
        return st;
    wchar_t *w = gd_calloc(WPATH_MAX, sizeof *w);
    DWORD n = w ? GetFinalPathNameByHandleW(h, w, WPATH_MAX, FILE_NAME_NORMALIZED) : 0;
    DWORD e = GetLastError();
    CloseHandle(h);
    if (!w)
        return GD_ENOMEM;
    if (n == 0 || n >= WPATH_MAX) {
        gd_free(w);
        return n ? GD_ELIMIT : from_win(e);
    }
    *out = final_to_path(w);
    gd_free(w);
    return *out ? GD_OK : GD_ENOMEM;
}

bool gd_os_path_is_absolute(const char *path)
{
    bool sep0 = path[0] == '/' || path[0] == '\\';
    bool drive = ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
                 path[1] == ':' && (path[2] == '/' || path[2] == '\\');
    return sep0 || drive;
}

const char *gd_os_live_root(void)
{
    /* Not "/", which Windows reads as the current drive's root: run from D:\\work, that would
     * inspect D:\\Windows and read every C:\\ path of the environment as another drive's. */
    static char root[4] = "C:/";
    wchar_t w[MAX_PATH];
    UINT n = GetSystemWindowsDirectoryW(w, MAX_PATH);
    if (n >= 2 && n < MAX_PATH && w[1] == L':' &&
        ((w[0] >= L'A' && w[0] <= L'Z') || (w[0] >= L'a' && w[0] <= L'z')))
        root[0] = (char)(w[0] >= L'a' ? w[0] - L'a' + L'A' : w[0]);
    return root;
}

enum gd_status gd_os_getcwd(char **out)
{
    *out = NULL;
    DWORD n = GetCurrentDirectoryW(0, NULL);
    if (n == 0)
        return from_win(GetLastError());
    wchar_t *w = gd_calloc(n, sizeof *w);
    if (!w)
        return GD_ENOMEM;
    DWORD got = GetCurrentDirectoryW(n, w);
    if (got == 0 || got >= n) {
        gd_free(w);
        return GD_EIO;
    }
    *out = final_to_path(w);
    gd_free(w);
    return *out ? GD_OK : GD_ENOMEM;
}

/* ---- child processes ------------------------------------------------------------------------- */

struct gd_child_out {
    HANDLE h;
};

void gd_os_child_write(struct gd_child_out *out, const char *line, size_t len)
{
    DWORD w = 0;
    for (size_t done = 0; done < len; done += w)
        if (!WriteFile(out->h, line + done, (DWORD)(len - done), &w, NULL) || w == 0)
            return;
}

char **gd_os_child_cmdline(int argc, char **argv, int *count)
{
    (void)argc;
    (void)argv;
    int n = 0;
    wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!w || n <= 0)
        return NULL;
    char **out = gd_calloc((size_t)n + 1, sizeof *out);
    for (int i = 0; out && i < n; i++)
        if (!(out[i] = narrow(w[i], -1)))
            out = NULL; /* the process exits: nothing to give back */
    LocalFree(w);
    *count = n;
    return out;
}

/* msvcrt's abort() exits with status 3, which reads as an exit: the UCRT's (what vendor DLLs
 * built with Visual C++ call) ends the process with __fastfail, STATUS_STACK_BUFFER_OVERRUN, read
 * as SIGABRT. A function child's own abort ends the same way. */
static void abort_as_ucrt(int sig)
{
    (void)sig;
    TerminateProcess(GetCurrentProcess(), 0xC0000409);
}

void gd_os_child_enter(const struct gd_child_def *def, void *arg)
{
    /* The report goes to the pipe on standard output, kept on a handle of its own (not
     * inherited: a grandchild must not hold the pipe open) before the null device takes the
     * standard streams, so that what a vendor library prints cannot mix into the report. */
    HANDLE self = GetCurrentProcess(), report = NULL;
    if (!DuplicateHandle(self, GetStdHandle(STD_OUTPUT_HANDLE), self, &report, 0, FALSE,
                         DUPLICATE_SAME_ACCESS))
        _exit(125);
    int null = _open("NUL", _O_RDWR | _O_BINARY);
    if (null >= 0) {
        _dup2(null, 0);
        _dup2(null, 1);
        _dup2(null, 2);
        SetStdHandle(STD_INPUT_HANDLE, (HANDLE)_get_osfhandle(0));
        SetStdHandle(STD_OUTPUT_HANDLE, (HANDLE)_get_osfhandle(1));
        SetStdHandle(STD_ERROR_HANDLE, (HANDLE)_get_osfhandle(2));
    }
    /* A crash must end the process, not wait on an error dialog until the deadline. */
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
    signal(SIGABRT, abort_as_ucrt);
    struct gd_child_out out = { report };
    def->fn(arg, &out);
    /* _exit: no atexit handlers, as a fork's child ends. */
    _exit(0);
}

/* One pipe the parent reads: a program's standard output or error. */
struct stream {
    HANDLE h; /* read end, NULL once closed */
    char **data;
    size_t *len, cap;
    bool *truncated;
    bool out_of_memory;
    gd_child_watch_fn watch;
    void *user;
    size_t job;
};

struct running {
    HANDLE process, job; /* NULL when not started or done */
    bool reaped;
    struct stream out, err;
    struct gd_child_result *res;
    size_t max;
    unsigned long long start;
};

static void append(struct stream *s, size_t max, const char *buf, size_t n)
{
    if (*s->len + n > max) {
        n = max - *s->len;
        *s->truncated = true;
    }
    if (n == 0)
        return;
    if (gd_grow((void **)s->data, &s->cap, *s->len + n + 1, 1) != 0) {
        *s->truncated = true;
        s->out_of_memory = true;
        return;
    }
    memcpy(*s->data + *s->len, buf, n);
    *s->len += n;
    (*s->data)[*s->len] = '\0';
    if (s->watch)
        s->watch(s->user, s->job, buf, n);
}

static void close_stream(struct stream *s)
{
    if (s->h)
        CloseHandle(s->h);
    s->h = NULL;
}

/* Read what the pipe holds now without blocking (anonymous pipes have no overlapped I/O, so
 * PeekNamedPipe says how much is there); true when something was read. The pipe is closed at
 * its end. Past the cap the bytes are read all the same and dropped. */
static bool read_stream(struct stream *s, size_t max)
{
    if (!s->h)
        return false;
    DWORD avail = 0;
    if (!PeekNamedPipe(s->h, NULL, 0, NULL, &avail, NULL)) {
        close_stream(s); /* ERROR_BROKEN_PIPE: every writer is gone */
        return false;
    }
    if (avail == 0)
        return false;
    char buf[16384];
    DWORD got = 0;
    if (!ReadFile(s->h, buf, avail < sizeof buf ? avail : (DWORD)sizeof buf, &got, NULL)) {
        close_stream(s);
        return false;
    }
    append(s, max, buf, got);
    return got > 0;
}

/* The process has ended: whatever it wrote is in the pipe. */
static void drain(struct stream *s, size_t max)
{
    while (read_stream(s, max))
        ;
    close_stream(s);
}

/* An exception code as the POSIX signal a reader of the result expects. */
bool gd_win_exception_signal(unsigned long code, int *sig)
{
    switch (code) {
    case 0xC0000005: /* STATUS_ACCESS_VIOLATION */
    case 0xC00000FD: /* STATUS_STACK_OVERFLOW */
        *sig = SIGSEGV;
        return true;
    case 0xC000001D: /* STATUS_ILLEGAL_INSTRUCTION: AVX code on a CPU without AVX */
    case 0xC0000096: /* STATUS_PRIVILEGED_INSTRUCTION */
        *sig = SIGILL;
        return true;
    case 0xC0000094: /* STATUS_INTEGER_DIVIDE_BY_ZERO */
    case 0xC000008E: /* STATUS_FLOAT_DIVIDE_BY_ZERO */
        *sig = SIGFPE;
        return true;
    case 0xC0000409: /* STATUS_STACK_BUFFER_OVERRUN: __fastfail, what the UCRT's abort() uses */
        *sig = SIGABRT;
        return true;
    case 0x80000003: /* STATUS_BREAKPOINT */
        *sig = SIGTRAP;
        return true;
    default:
        return false;
    }
}

static void reap(struct running *r)
{
    DWORD code = 0;
    r->reaped = true;
    r->res->elapsed_ns = gd_os_monotonic_ns() - r->start;
    bool got = GetExitCodeProcess(r->process, &code);
    CloseHandle(r->process);
    r->process = NULL;
    if (r->job) {
        /* Its descendants go with it, as a POSIX process group does. */
        TerminateJobObject(r->job, 1);
        CloseHandle(r->job);
        r->job = NULL;
    }
    if (r->res->end == GD_CHILD_TIMED_OUT)
        return;
    int sig = 0;
    if (got && gd_win_exception_signal(code, &sig)) {
        r->res->end = GD_CHILD_SIGNALED;
        r->res->code = sig;
    } else {
        r->res->end = GD_CHILD_EXITED;
        r->res->code = got ? (int)code : -1;
    }
}

/* Quote one argument for CommandLineToArgvW and the C runtime's parser: backslashes count only
 * before a quote. Appends to buf (cap in wchar_t units); false when it does not fit. */
static bool quote_arg(wchar_t *buf, size_t cap, size_t *at, const wchar_t *arg)
{
#define PUT(c)              \
    do {                    \
        if (*at + 1 >= cap) \
            return false;   \
        buf[(*at)++] = (c); \
    } while (0)
    bool plain = arg[0] != 0 && wcspbrk(arg, L" \t\n\v\"") == NULL;
    if (plain) {
        for (const wchar_t *p = arg; *p; p++)
            PUT(*p);
        return true;
    }
    PUT(L'"');
    for (const wchar_t *p = arg;; p++) {
        size_t slashes = 0;
        while (*p == L'\\') {
            slashes++;
            p++;
        }
        if (*p == 0) {
            for (size_t i = 0; i < slashes * 2; i++)
                PUT(L'\\');
            break;
        }
        if (*p == L'"') {
            for (size_t i = 0; i < slashes * 2 + 1; i++)
                PUT(L'\\');
        } else {
            for (size_t i = 0; i < slashes; i++)
                PUT(L'\\');
        }
        PUT(*p);
    }
    PUT(L'"');
    return true;
#undef PUT
}

/* The command line (32767 units at most, Windows' own limit) and the environment block of a
 * program job, in new memory; `*env` stays NULL, this process's environment inherited, for a
 * function child (`inherit`), as a fork inherits it. */
enum gd_status gd_win_command_line(const char *const *argv, wchar_t **cmd)
{
    enum gd_status st = GD_OK;
    wchar_t *line = gd_calloc(WPATH_MAX, sizeof *line);
    *cmd = NULL;
    if (!line)
        return GD_ENOMEM;
    size_t at = 0;
    for (size_t i = 0; argv[i] && st == GD_OK; i++) {
        wchar_t *w = widen(argv[i], &st);
        if (!w)
            break;
        bool ok = (i == 0 || at + 1 < WPATH_MAX) && quote_arg(line, WPATH_MAX, &at, w);
        gd_free(w);
        if (!ok)
            st = GD_ELIMIT;
        else if (argv[i + 1])
            line[at++] = L' ';
    }
    if (st != GD_OK) {
        gd_free(line);
        return st;
    }
    line[at] = 0;
    *cmd = line;
    return GD_OK;
}

static enum gd_status build_command(const struct gd_child_job *job, bool inherit, wchar_t **cmd,
                                    wchar_t **env)
{
    *env = NULL;
    enum gd_status st = gd_win_command_line(job->argv, cmd);
    if (st != GD_OK || inherit)
        return st;
    /* NAME=VALUE\0...\0\0 in UTF-16 (CREATE_UNICODE_ENVIRONMENT). */
    size_t units = 2;
    for (size_t i = 0; job->envp && job->envp[i]; i++) {
        int n = MultiByteToWideChar(CP_UTF8, 0, job->envp[i], -1, NULL, 0);
        units += n > 0 ? (size_t)n : 1;
    }
    *env = gd_calloc(units, sizeof **env);
    if (!*env)
        return GD_ENOMEM;
    size_t e = 0;
    for (size_t i = 0; job->envp && job->envp[i]; i++) {
        int n = MultiByteToWideChar(CP_UTF8, 0, job->envp[i], -1, *env + e, (int)(units - e));
        if (n > 1)
            e += (size_t)n;
    }
    /* An empty block still needs two NULs (calloc'd). */
    return GD_OK;
}

/* Windows' text for error `e`. Some name the file as an insert ("%1 is not a valid Win32
 * application"): it is left out, the caller names the file itself. */
static void system_message(DWORD e, char *buf, size_t size)
{
    char tmp[256];
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0,
                             tmp, sizeof tmp, NULL);
    while (n > 0 && (tmp[n - 1] == '\n' || tmp[n - 1] == '\r' || tmp[n - 1] == '.'))
        n--;
    tmp[n] = '\0';
    char *insert = strstr(tmp, "%1");
    if (insert) {
        /* " for %1", "%1 is": the insert and the space on one side. */
        size_t at = (size_t)(insert - tmp), cut = 2;
        if (insert[2] == ' ') {
            cut++;
        } else if (at >= 5 && strncmp(insert - 5, " for ", 5) == 0) {
            at -= 5;
            cut += 5;
        } else if (at > 0 && insert[-1] == ' ') {
            at--;
            cut++;
        }
        memmove(tmp + at, tmp + at + cut, strlen(tmp + at + cut) + 1);
        n = (DWORD)strlen(tmp);
    }
    if (n == 0)
        snprintf(buf, size, "Windows error %lu", (unsigned long)e);
    else
        snprintf(buf, size, "%.*s", (int)n, tmp);
}

/* CreateProcess suspended, into a job object that kills every descendant when it is closed,
 * with standard input on NUL and both outputs on pipes. GD_ECHILD when no pipe or job can be
 * had; a program that cannot be executed is GD_CHILD_EXEC_FAILED in the result. */
static enum gd_status start_program(const struct gd_child_job *job, bool inherit, struct running *r)
{
    wchar_t *cmd = NULL, *env = NULL, *app = NULL;
    HANDLE out_w = NULL, err_w = NULL, null_r = INVALID_HANDLE_VALUE;
    enum gd_status st = build_command(job, inherit, &cmd, &env);
    if (st == GD_OK)
        app = widen(job->argv[0], &st);
    if (st == GD_ELIMIT || st == GD_EINVAL) {
        r->res->end = GD_CHILD_EXEC_FAILED;
        r->res->code = ERROR_BAD_ARGUMENTS;
        snprintf(r->res->exec_error, sizeof r->res->exec_error, "%s",
                 st == GD_ELIMIT ? "command line too long" : "argument not valid UTF-8");
        r->reaped = true;
        st = GD_OK;
        goto out;
    }
    if (st != GD_OK)
        goto out;
    SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };
    HANDLE out_r = NULL, err_r = NULL;
    if (!CreatePipe(&out_r, &out_w, &sa, 0) || !CreatePipe(&err_r, &err_w, &sa, 0)) {
        if (out_r)
            CloseHandle(out_r);
        st = GD_ECHILD;
        goto out;
    }
    /* The parent's ends stay in the parent. */
    SetHandleInformation(out_r, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(err_r, HANDLE_FLAG_INHERIT, 0);
    r->out.h = out_r;
    r->err.h = err_r;
    null_r = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
                         OPEN_EXISTING, 0, NULL);
    r->job = CreateJobObjectW(NULL, NULL);
    if (!r->job || null_r == INVALID_HANDLE_VALUE) {
        st = GD_ECHILD;
        goto out;
    }
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
    memset(&lim, 0, sizeof lim);
    lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    SetInformationJobObject(r->job, JobObjectExtendedLimitInformation, &lim, sizeof lim);
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = null_r;
    si.hStdOutput = out_w;
    si.hStdError = err_w;
    PROCESS_INFORMATION pi;
    memset(&pi, 0, sizeof pi);
    r->start = gd_os_monotonic_ns();
    /* Inheritable handles are those of this child alone: children start one after another and
     * each one's write ends are closed right after its start. CREATE_NO_WINDOW: a console
     * program gets a hidden console, not a window popping up. */
    DWORD flags = CREATE_SUSPENDED | CREATE_NO_WINDOW | (env ? CREATE_UNICODE_ENVIRONMENT : 0);
    if (!CreateProcessW(app, cmd, NULL, NULL, TRUE, flags, env, NULL, &si, &pi)) {
        DWORD e = GetLastError();
        r->res->end = GD_CHILD_EXEC_FAILED;
        r->res->code = (int)e;
        system_message(e, r->res->exec_error, sizeof r->res->exec_error);
        r->reaped = true;
        close_stream(&r->out);
        close_stream(&r->err);
        CloseHandle(r->job);
        r->job = NULL;
        goto out;
    }
    /* In the job before it runs a single instruction, so that nothing it starts escapes. */
    if (!AssignProcessToJobObject(r->job, pi.hProcess)) {
        CloseHandle(r->job);
        r->job = NULL; /* a job that may not nest (old systems): the process alone is killed */
    }
    ResumeThread(pi.hThread);
    CloseHandle(pi.hThread);
    r->process = pi.hProcess;
    r->reaped = false;
out:
    if (out_w)
        CloseHandle(out_w);
    if (err_w)
        CloseHandle(err_w);
    if (null_r != INVALID_HANDLE_VALUE)
        CloseHandle(null_r);
    if (st != GD_OK) {
        close_stream(&r->out);
        close_stream(&r->err);
        if (r->job)
            CloseHandle(r->job);
        r->job = NULL;
    }
    gd_free(app);
    gd_free(cmd);
    gd_free(env);
    return st;
}

/* This program's own path (the running module), in UTF-8 with '\\' kept: CreateProcessW is
 * given it as the application. New memory, NULL when it cannot be had. */
static char *self_path(void)
{
    wchar_t *w = gd_calloc(WPATH_MAX, sizeof *w);
    if (!w)
        return NULL;
    DWORD n = GetModuleFileNameW(NULL, w, WPATH_MAX);
    char *s = n > 0 && n < WPATH_MAX ? narrow(w, (int)n) : NULL;
    gd_free(w);
    return s;
}

/* A function in a child: this program started again with the function named on its command
 * line (gd_os_child_serve runs it there), this process's environment inherited as a fork
 * inherits it; from then on a program child like any other. GD_EUNSUPPORTED, with the reason
 * in the result, for a function this program does not serve. */
static enum gd_status start_function(const struct gd_child_job *job, struct running *r)
{
    char *self = self_path();
    if (!self)
        return GD_ENOMEM;
    char **argv = NULL;
    enum gd_status st = gd_os_child_argv(self, job->def, job->arg, &argv);
    gd_free(self);
    if (st == GD_EUNSUPPORTED) {
        r->res->end = GD_CHILD_EXEC_FAILED;
        snprintf(r->res->exec_error, sizeof r->res->exec_error,
                 "this program does not run %s in a child (gd_os_child_serve)", job->def->name);
        return st;
    }
    if (st != GD_OK)
        return st;
    struct gd_child_job program = { NULL, NULL, (const char *const *)argv, NULL };
    st = start_program(&program, true, r);
    gd_free(argv);
    return st;
}

static void kill_one(struct running *r)
{
    if (r->reaped)
        return;
    if (r->job)
        TerminateJobObject(r->job, 1);
    else
        TerminateProcess(r->process, 1);
    WaitForSingleObject(r->process, 5000);
    reap(r);
}

enum gd_status gd_os_children_run(const struct gd_child_job *jobs, size_t n, unsigned timeout_ms,
                                  size_t max_output, struct gd_child_result *results)
{
    return gd_os_children_run_watched(jobs, n, timeout_ms, max_output, results, NULL, NULL);
}

enum gd_status gd_os_children_run_watched(const struct gd_child_job *jobs, size_t n,
                                          unsigned timeout_ms, size_t max_output,
                                          struct gd_child_result *results, gd_child_watch_fn watch,
                                          void *user)
{
    struct running *run = gd_calloc(n ? n : 1, sizeof *run);
    if (!run)
        return GD_ENOMEM;
    enum gd_status st = GD_OK;
    fflush(NULL);
    for (size_t i = 0; i < n; i++) {
        memset(&results[i], 0, sizeof results[i]);
        struct running *r = &run[i];
        r->res = &results[i];
        r->max = max_output;
        r->reaped = true;
        r->out = (struct stream){ .data = &results[i].output,
                                  .len = &results[i].len,
                                  .truncated = &results[i].truncated,
                                  .watch = watch,
                                  .user = user,
                                  .job = i };
        r->err = (struct stream){ .data = &results[i].errors,
                                  .len = &results[i].errors_len,
                                  .truncated = &results[i].errors_truncated };
    }
    for (size_t i = 0; i < n && st == GD_OK; i++)
        st = jobs[i].argv ? start_program(&jobs[i], false, &run[i])
                          : start_function(&jobs[i], &run[i]);
    unsigned long long deadline =
        gd_os_monotonic_ns() + (unsigned long long)timeout_ms * 1000000ULL;
    for (;;) {
        bool waiting = false;
        for (size_t i = 0; i < n; i++) {
            struct running *r = &run[i];
            bool progress = read_stream(&r->out, max_output) | read_stream(&r->err, max_output);
            (void)progress;
            if (!r->reaped && WaitForSingleObject(r->process, 0) == WAIT_OBJECT_0) {
                reap(r);
                drain(&r->out, r->max);
                drain(&r->err, r->max);
            }
            waiting |= !r->reaped || r->out.h || r->err.h;
        }
        if (!waiting)
            break;
        if (gd_os_monotonic_ns() >= deadline) {
            for (size_t i = 0; i < n; i++) {
                if (!run[i].reaped)
                    run[i].res->end = GD_CHILD_TIMED_OUT;
                kill_one(&run[i]);
                drain(&run[i].out, run[i].max);
                drain(&run[i].err, run[i].max);
            }
            break;
        }
        /* Anonymous pipes cannot be waited on: look again every millisecond or so. */
        Sleep(1);
    }
    for (size_t i = 0; i < n; i++) {
        close_stream(&run[i].out);
        close_stream(&run[i].err);
        if (run[i].job)
            CloseHandle(run[i].job);
        if (!results[i].output)
            results[i].output = gd_strdup("");
        if (!results[i].errors)
            results[i].errors = gd_strdup("");
        bool lost = run[i].out.out_of_memory || run[i].err.out_of_memory;
        if ((!results[i].output || !results[i].errors || lost) && st == GD_OK)
            st = GD_ENOMEM;
    }
    gd_free(run);
    return st;
}

/* ---- dynamic loading ------------------------------------------------------------------------- */

void *gd_os_dlopen(const char *path, char *err, size_t size)
{
    enum gd_status st = GD_OK;
    wchar_t *w = widen(path, &st);
    if (!w) {
        if (err && size)
            snprintf(err, size, "%s", st == GD_ENOMEM ? "out of memory" : "name not UTF-8");
        return NULL;
    }
    /* Paths come with '/' (src/os writes them so): LoadLibraryEx's documentation asks for
     * backslashes ("be sure to use backslashes (\), not forward slashes"). */
    for (wchar_t *c = w; *c; c++)
        if (*c == L'/')
            *c = L'\\';
    /* No error dialog box for a missing dependency: the message comes back instead. */
    UINT old = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
    HMODULE h = LoadLibraryExW(w, NULL, 0);
    DWORD e = GetLastError();
    SetErrorMode(old);
    gd_free(w);
    if (!h && err && size) {
        char msg[200];
        system_message(e, msg, sizeof msg);
        snprintf(err, size, "LoadLibrary %s: %s (error %lu)", path, msg, (unsigned long)e);
    }
    return (void *)h;
}

void *gd_os_dlsym(void *handle, const char *symbol)
{
    FARPROC p = GetProcAddress((HMODULE)handle, symbol);
    void *v = NULL;
    /* A function pointer into an object pointer, as dlsym hands it out. */
    memcpy(&v, &p, sizeof v < sizeof p ? sizeof v : sizeof p);
    return v;
}

bool gd_os_dlpath(void *handle, char *buf, size_t size)
{
    if (!handle)
        return false;
    wchar_t *w = gd_calloc(WPATH_MAX, sizeof *w);
    if (!w)
        return false;
    DWORD n = GetModuleFileNameW((HMODULE)handle, w, WPATH_MAX);
    char *s = n > 0 && n < WPATH_MAX ? narrow(w, (int)n) : NULL;
    gd_free(w);
    if (!s)
        return false;
    forward_slashes(s);
    snprintf(buf, size, "%s", s);
    gd_free(s);
    return true;
}

void gd_os_setenv(const char *name, const char *value)
{
    enum gd_status st = GD_OK;
    wchar_t *wn = widen(name, &st);
    wchar_t *wv = value ? widen(value, &st) : NULL;
    if (wn && (wv || !value)) {
        /* Both copies: Win32's (GetEnvironmentVariable) and the C runtime's (getenv), which a
         * vendor library may read either of. */
        SetEnvironmentVariableW(wn, wv);
        _wputenv_s(wn, wv ? wv : L"");
    }
    gd_free(wn);
    gd_free(wv);
}
