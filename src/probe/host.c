/* Host facts: the OS release, kernel, architecture and C library of the inspected machine. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "parse/kv.h"

#include <stdio.h>
#include <string.h>

struct os_release {
    struct gd_entity *host;
    const char *path;
};

static bool on_os_release(void *user, const char *key, const char *value, size_t line)
{
    (void)line;
    static const struct {
        const char *key, *fact;
    } wanted[] = {
        { "ID", "os.id" },
        { "ID_LIKE", "os.id_like" },
        { "VERSION_ID", "os.version_id" },
        { "VERSION_CODENAME", "os.version_codename" },
        { "PRETTY_NAME", "os.pretty_name" },
    };
    struct os_release *o = user;
    for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++)
        if (strcmp(key, wanted[i].key) == 0)
            gd_fact_str(o->host, wanted[i].fact, value, gd_src(GD_SOURCE_FILE, o->path));
    return true;
}

static void probe_os_release(struct gd_probe_ctx *ctx, struct gd_entity *host)
{
    /* os-release(5): /etc/os-release takes precedence, /usr/lib/os-release is the fallback. */
    static const char *const paths[] = { "/etc/os-release", "/usr/lib/os-release" };
    enum gd_status st = GD_ENOENT;
    for (size_t i = 0; i < 2; i++) {
        char *data;
        size_t len;
        st = gd_root_read_file(ctx->root, paths[i], GD_PROBE_TEXT_MAX, &data, &len);
        if (st == GD_ENOENT)
            continue;
        if (st == GD_OK) {
            struct os_release o = { host, paths[i] };
            if (gd_parse_kv(data, len, GD_KV_SHELL, on_os_release, &o, NULL) != GD_OK)
                gd_report_out_of_memory(ctx->report);
            gd_free(data);
            if (!gd_entity_fact(host, "os.id"))
                gd_fact_unknown(host, "os.id", "no ID= line", gd_src(GD_SOURCE_FILE, paths[i]));
            return;
        }
        break;
    }
    gd_probe_fact_failed(host, "os.id", st, gd_src(GD_SOURCE_FILE, "/etc/os-release"));
}

static void first_line_fact(struct gd_probe_ctx *ctx, struct gd_entity *e, const char *name,
                            const char *path)
{
    char *data;
    size_t len;
    enum gd_status st = gd_root_read_file(ctx->root, path, GD_PROBE_TEXT_MAX, &data, &len);
    if (st != GD_OK) {
        gd_probe_fact_failed(e, name, st, gd_src(GD_SOURCE_FILE, path));
        return;
    }
    const char *cur = data;
    struct gd_span line = { data, 0 };
    gd_next_line(&cur, data + len, &line);
    struct gd_span t = gd_span_trim(line);
    char *text = gd_strndup(t.p, t.n);
    if (text)
        gd_fact_str(e, name, text, gd_src(GD_SOURCE_FILE, path));
    else
        gd_report_out_of_memory(ctx->report);
    gd_free(text);
    gd_free(data);
}

static void probe_kernel(struct gd_probe_ctx *ctx, struct gd_entity *host)
{
    if (gd_root_is_live(ctx->root)) {
        struct gd_os_uname u;
        if (gd_os_uname(&u) == GD_OK) {
            gd_fact_str(host, "kernel.release", u.release, gd_src(GD_SOURCE_CALL, "uname(2)"));
            gd_fact_str(host, "arch", u.machine, gd_src(GD_SOURCE_CALL, "uname(2)"));
        }
    } else {
        /* A foreign root has no running kernel; a tree that carries /proc (a fixture, a
         * snapshot) still says what its kernel was. */
        first_line_fact(ctx, host, "kernel.release", "/proc/sys/kernel/osrelease");
    }
    first_line_fact(ctx, host, "kernel.version", "/proc/version");
}

/* A foreign root's architecture, from the dynamic loader it ships (its name is fixed per
 * architecture by each ABI) or its multiarch directory. */
static void probe_foreign_arch(struct gd_probe_ctx *ctx, struct gd_entity *host)
{
    static const struct {
        const char *path, *arch;
    } markers[] = {
        { "/lib64/ld-linux-x86-64.so.2", "x86_64" },
        { "/lib/ld-linux-aarch64.so.1", "aarch64" },
        { "/lib64/ld64.so.2", "ppc64le" },
        { "/usr/lib/x86_64-linux-gnu", "x86_64" },
        { "/usr/lib/aarch64-linux-gnu", "aarch64" },
        { "/usr/lib/powerpc64le-linux-gnu", "ppc64le" },
    };
    first_line_fact(ctx, host, "arch", "/proc/sys/kernel/arch");
    if (gd_fact_known_value(gd_entity_fact(host, "arch")))
        return;
    for (size_t i = 0; i < sizeof markers / sizeof *markers; i++) {
        if (gd_root_exists(ctx->root, markers[i].path)) {
            gd_fact_str(host, "arch", markers[i].arch, gd_src(GD_SOURCE_PATH, markers[i].path));
            return;
        }
    }
    gd_fact_unknown(host, "arch", "no dynamic loader or multiarch directory found",
                    gd_src(GD_SOURCE_PATH, "/lib64, /lib, /usr/lib"));
}

static void probe_glibc(struct gd_probe_ctx *ctx, struct gd_entity *host)
{
    char version[32], ref[512];
    enum gd_source_kind kind;
    enum gd_status st =
        gd_glibc_version(ctx->root, version, sizeof version, &kind, ref, sizeof ref);
    if (st == GD_OK)
        gd_fact_str(host, "glibc.version", version, gd_src(kind, ref));
    else if (st == GD_ENOMEM)
        gd_report_out_of_memory(ctx->report);
    else
        gd_fact_absent(host, "glibc.version", "no glibc found (musl or another C library?)",
                       gd_src(GD_SOURCE_PATH, "/lib, /lib64, /usr/lib"));
}

/* The spellings of a Windows installation's system directory: Windows' own, and the lower case
 * of a wine prefix's drive_c. */
static const char *const windows_markers[] = { "/Windows/System32", "/windows/system32" };

/* Whether the root is a Windows machine: --os says so; the live root is when gpudoctor.exe runs
 * there; a tree is when it holds Windows' system directory and no os-release (a Linux tree with
 * a wine prefix is still Linux). On true `*src` says why. */
static bool is_windows(struct gd_probe_ctx *ctx, struct gd_source *src)
{
    if (ctx->host_os) {
        *src = gd_src(GD_SOURCE_OPTION, "--os");
        return strcmp(ctx->host_os, "windows") == 0;
    }
    if (gd_root_is_live(ctx->root)) {
        struct gd_os_uname u;
        *src = gd_src(GD_SOURCE_CALL, "RtlGetVersion");
        return gd_os_uname(&u) == GD_OK && strcmp(u.sysname, "Windows") == 0;
    }
    const char *marker = gd_root_windows_marker(ctx->root);
    if (marker)
        *src = gd_src(GD_SOURCE_PATH, marker);
    return marker != NULL;
}

const char *gd_root_windows_marker(struct gd_root *root)
{
    for (size_t i = 0; i < sizeof windows_markers / sizeof *windows_markers; i++) {
        if (gd_root_is_dir(root, windows_markers[i]))
            return !gd_root_exists(root, "/etc/os-release") &&
                           !gd_root_exists(root, "/usr/lib/os-release")
                       ? windows_markers[i]
                       : NULL;
    }
    return NULL;
}

static bool is_drive_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* The drive the root is: Windows paths of the inspected machine (its variables) are read on it.
 * A root that is a whole drive ("C:/", "D:\\" given to gpudoctor.exe, the live machine) is that
 * drive, whatever SystemDrive says: "C:\\x" must never be read from another drive. A tree
 * (a mounted disk, a copy) is the drive SystemDrive of the inspected environment names, else C:,
 * Windows' default. */
static void windows_drive(struct gd_probe_ctx *ctx, struct gd_entity *host)
{
    const char *sys = gd_probe_getenv(ctx, "SystemDrive");
    const char *dir = gd_root_dir(ctx->root);
    struct gd_source src;
    char d = 'C';
    if (is_drive_letter(dir[0]) && dir[1] == ':' && dir[2] == '/' && !dir[3]) {
        d = dir[0];
        src = gd_root_is_live(ctx->root)
                  ? gd_src(GD_SOURCE_CALL, "GetSystemWindowsDirectoryW: the system drive")
                  : gd_src(GD_SOURCE_OPTION, "--root");
    } else if (sys && is_drive_letter(sys[0]) && sys[1] == ':' &&
               (!sys[2] || ((sys[2] == '\\' || sys[2] == '/') && !sys[3]))) {
        d = sys[0];
        src = gd_src(GD_SOURCE_ENV, "SystemDrive");
    } else {
        src = gd_src(GD_SOURCE_DERIVED, "Windows' default system drive");
    }
    if (d >= 'a' && d <= 'z')
        d = (char)(d - 'a' + 'A');
    ctx->drive = d;
    char text[3] = { d, ':', '\0' };
    gd_fact_str(host, "windows.drive", text, src);
}

static void probe_windows(struct gd_probe_ctx *ctx, struct gd_entity *host, struct gd_source src)
{
    ctx->windows = true;
    gd_fact_str(host, "os.id", "windows", src);
    windows_drive(ctx, host);
    if (gd_root_is_live(ctx->root)) {
        struct gd_os_uname u;
        if (gd_os_uname(&u) == GD_OK) {
            gd_fact_str(host, "kernel.release", u.release, gd_src(GD_SOURCE_CALL, "RtlGetVersion"));
            gd_fact_str(host, "arch", u.machine, gd_src(GD_SOURCE_CALL, "GetNativeSystemInfo"));
        }
    }
}

void gd_probe_host(struct gd_probe_ctx *ctx)
{
    struct gd_entity *host = gd_report_add_entity(ctx->report, "host", "host");
    gd_fact_str(host, "root", gd_root_dir(ctx->root), gd_src(GD_SOURCE_OPTION, "--root"));
    gd_fact_bool(host, "live", gd_root_is_live(ctx->root),
                 gd_src(GD_SOURCE_DERIVED, "the root is this machine's /"));
    struct gd_source windows;
    if (is_windows(ctx, &windows)) {
        /* No os-release, kernel /proc files or glibc to look for. */
        probe_windows(ctx, host, windows);
        return;
    }
    probe_os_release(ctx, host);
    probe_kernel(ctx, host);
    if (!gd_root_is_live(ctx->root))
        probe_foreign_arch(ctx, host);
    probe_glibc(ctx, host);
}
