/*
 * The compatibility tables of the knowledge base (docs/kb.md): cuda_toolkit, cuda_arch,
 * cudnn_builds, tf_builds, torch_builds, jax_builds, cupy_builds, onnxruntime_builds.
 * Consistency (sources, versions, duplicates, order, agreement between tables) and spot checks:
 * rows asserted against the value their source states, quoted in a comment.
 */
#include "core/version.h"
#include "kb/kb.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct gd_kb *kb;

static int setup(void **state)
{
    (void)state;
    return gd_kb_open(NULL, &kb) == GD_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gd_kb_free(kb);
    return 0;
}

static const struct gd_kb_table *table(const char *name)
{
    const struct gd_kb_table *t = gd_kb_table(kb, name);
    if (!t)
        fail_msg("no table %s", name);
    return t;
}

static struct gd_version ver(const char *s)
{
    struct gd_version v;
    if (gd_version_parse(s, &v) != GD_OK)
        fail_msg("\"%s\" is not a version", s);
    return v;
}

/* The field is `value`, or is a list holding it. */
static bool is(const struct gd_kb_row *row, const char *field, const char *value)
{
    const char *s = gd_kb_str(row, field);
    return (s && strcmp(s, value) == 0) || gd_kb_list_has(row, field, value);
}

/* The only row of `t` whose fields equal the (field, value) pairs given, NULL-terminated. */
static const struct gd_kb_row *find(const struct gd_kb_table *t, ...)
{
    const struct gd_kb_row *found = NULL;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        va_list ap;
        va_start(ap, t);
        bool ok = true;
        for (const char *f = va_arg(ap, const char *); f && ok; f = va_arg(ap, const char *))
            ok = is(row, f, va_arg(ap, const char *));
        va_end(ap);
        if (!ok)
            continue;
        if (found)
            fail_msg("%s: two rows match", gd_kb_table_name(t));
        found = row;
    }
    if (!found)
        fail_msg("%s: no row matches", gd_kb_table_name(t));
    return found;
}

static void expect(const struct gd_kb_row *row, const char *field, const char *want)
{
    const char *got = gd_kb_str(row, field);
    if (!got || strcmp(got, want) != 0)
        fail_msg("%s is %s, want %s", field, got ? got : "(none)", want);
}

/* ---- consistency ---------------------------------------------------------------------------- */

static const char *const tables[] = { "cuda_toolkit", "cuda_arch",          "cudnn_builds",
                                      "tf_builds",    "torch_builds",       "jax_builds",
                                      "cupy_builds",  "onnxruntime_builds", "windows_cuda" };

/* Fields holding versions (a string or a list of strings), per table. */
static const struct {
    const char *table;
    const char *fields[12];
} version_fields[] = {
    { "cuda_toolkit",
      { "cuda", "version", "linux", "windows", "cuda_major", "driver_min", "windows_min",
        "driver_family_below", "since", NULL } },
    { "cuda_arch", { "cuda", "cc", NULL } },
    { "cudnn_builds",
      { "cudnn", "cudnn_last", "cuda_major", "cuda", "driver_linux", "driver_windows", "cc",
        "cc_min", NULL } },
    { "tf_builds",
      { "tensorflow", "cuda", "cudnn", "tensorflow_below", "value", "driver_linux", "driver_wsl",
        NULL } },
    { "torch_builds",
      { "torch", "cuda", "cudnn", "python_min", "python_max", "pypi_default_cuda", NULL } },
    { "jax_builds",
      { "cuda_major", "cuda_built", "cuda_min", "cudnn_built", "cudnn_min", "cudnn_below",
        "nccl_built", "nccl_min", "driver_linux", "cc_min", NULL } },
    { "cupy_builds", { "cupy", "cuda", "cc_min", "python", "cudnn", NULL } },
    { "onnxruntime_builds",
      { "onnxruntime", "cuda", "cuda_major", "cudnn", "cudnn_major", "cudnn_linux", "cudnn_windows",
        NULL } },
    { "windows_cuda", { "cuda", "cudnn_major", "cudnn_min", "cudnn_below", NULL } },
};

/* Fields every row must have, per table and kind ("" for tables without kinds). */
static const struct {
    const char *table, *kind;
    const char *fields[8];
} required[] = {
    { "cuda_toolkit", "driver", { "cuda", "label", "linux", NULL } },
    { "cuda_toolkit", "minor_compat", { "cuda_major", "driver_min", NULL } },
    { "cuda_toolkit", "forward_compat", { "since", "package", "gpus", NULL } },
    { "cuda_arch", "event", { "cuda", "event", "cc", NULL } },
    { "cuda_arch", "family", { "name", "cc", NULL } },
    { "cudnn_builds", "", { "cudnn", "cuda_major", NULL } },
    { "tf_builds", "build", { "tensorflow", "os", "package", "python", "cuda", "cudnn", NULL } },
    { "tf_builds", "fact", { "name", "value", NULL } },
    { "tf_builds",
      "windows_native_gpu",
      { "tensorflow_below", "cuda", "cudnn", "commands", NULL } },
    { "tf_builds", "pip_requirements", { "cuda", "cudnn", "driver_linux", "commands", NULL } },
    { "tf_builds", "wsl_setup", { "where", "commands", NULL } },
    { "windows_cuda", "toolkit_dir", { "path", "subdir", "bin", NULL } },
    { "windows_cuda", "env", { "meaning", NULL } },
    { "windows_cuda", "cudnn_dir", { "path", "subdir", "bin", NULL } },
    { "windows_cuda", "driver_dll", { "family", "dll", "dirs", NULL } },
    { "windows_cuda", "driver_version", { "from_field", "digits", "decimals", NULL } },
    { "windows_cuda", "dll", { "family", "dll", "cuda", NULL } },
    { "windows_cuda", "cudnn_dll", { "dll", "cudnn_major", NULL } },
    { "windows_cuda", "dependency", { "dll", "needed_by", "cudnn_min", "cudnn_below", NULL } },
    { "windows_cuda", "framework_dlls", { "framework", "cuda", "dlls", NULL } },
    { "torch_builds", "matrix", { "torch", "python", "python_min", "python_max", NULL } },
    { "torch_builds", "wheel", { "torch", "cuda", "tag", "status", NULL } },
    { "torch_builds", "release", { "torch", "cuda", "tags", "pip", NULL } },
    { "torch_builds", "index", { "torch_min", "pip", NULL } },
    { "jax_builds",
      "",
      { "plugin", "cuda_major", "cuda_min", "cudnn_min", "driver_linux", "cc_min", NULL } },
    { "cupy_builds", "", { "cupy", "cuda", "cc_min", NULL } },
    { "onnxruntime_builds", "", { "onnxruntime", "cuda_major", NULL } },
};

static bool has(const struct gd_kb_row *row, const char *field)
{
    const char *s = gd_kb_str(row, field);
    return (s && *s) || gd_kb_list_len(row, field) > 0;
}

static void check_versions(const struct gd_kb_table *t, const struct gd_kb_row *row, size_t i,
                           const char *field)
{
    const char *s = gd_kb_str(row, field);
    struct gd_version v;
    if (s && gd_version_parse(s, &v) != GD_OK)
        fail_msg("%s rows[%zu]: %s \"%s\" is not a version", gd_kb_table_name(t), i, field, s);
    for (size_t k = 0; k < gd_kb_list_len(row, field); k++) {
        const char *item = gd_kb_list_at(row, field, k);
        if (!item || gd_version_parse(item, &v) != GD_OK)
            fail_msg("%s rows[%zu]: %s[%zu] \"%s\" is not a version", gd_kb_table_name(t), i, field,
                     k, item ? item : "(not a string)");
    }
}

/* Every row names a defined source and only defined "also" ids, has its kind's fields, and
 * its version fields parse; every source has a title and a retrieved date and is used. */
static void test_sources_and_shape(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < sizeof tables / sizeof *tables; ti++) {
        const struct gd_kb_table *t = table(tables[ti]);
        assert_true(gd_kb_row_count(t) > 0);
        for (size_t i = 0; i < gd_kb_row_count(t); i++) {
            const struct gd_kb_row *row = gd_kb_row_at(t, i);
            if (!gd_kb_source_url(t, gd_kb_row_source(row)))
                fail_msg("%s rows[%zu]: no source", tables[ti], i);
            for (size_t a = 0; a < gd_kb_list_len(row, "also"); a++)
                if (!gd_kb_source_url(t, gd_kb_list_at(row, "also", a)))
                    fail_msg("%s rows[%zu]: also %s is not a source", tables[ti], i,
                             gd_kb_list_at(row, "also", a));
            const char *kind = gd_kb_str(row, "kind");
            bool known = false;
            for (size_t r = 0; r < sizeof required / sizeof *required; r++) {
                if (strcmp(required[r].table, tables[ti]) != 0 ||
                    strcmp(required[r].kind, kind ? kind : "") != 0)
                    continue;
                known = true;
                for (const char *const *f = required[r].fields; *f; f++)
                    if (!has(row, *f))
                        fail_msg("%s rows[%zu] (%s): no %s", tables[ti], i, kind ? kind : "-", *f);
            }
            if (!known)
                fail_msg("%s rows[%zu]: unknown kind %s", tables[ti], i, kind ? kind : "(none)");
            for (size_t v = 0; v < sizeof version_fields / sizeof *version_fields; v++)
                if (strcmp(version_fields[v].table, tables[ti]) == 0)
                    for (const char *const *f = version_fields[v].fields; *f; f++)
                        check_versions(t, row, i, *f);
        }
        for (size_t s = 0; s < gd_kb_source_count(t); s++) {
            const char *id = gd_kb_source_id_at(t, s);
            const char *date = gd_kb_source_retrieved(t, id);
            if (!gd_kb_source_title(t, id) || !date || strlen(date) != 10 || date[4] != '-')
                fail_msg("%s source %s: title or YYYY-MM-DD date missing", tables[ti], id);
            if (strncmp(gd_kb_source_url(t, id), "https://", 8) != 0)
                fail_msg("%s source %s: not an https URL", tables[ti], id);
            bool used = false;
            for (size_t i = 0; i < gd_kb_row_count(t) && !used; i++) {
                const struct gd_kb_row *row = gd_kb_row_at(t, i);
                used = strcmp(gd_kb_row_source(row), id) == 0 || gd_kb_list_has(row, "also", id);
            }
            if (!used)
                fail_msg("%s source %s is used by no row", tables[ti], id);
        }
    }
}

/* The key of a row for the duplicate check: the fields that say what the row is about. */
static void key_of(const char *tname, const struct gd_kb_row *row, char *buf, size_t size)
{
    static const struct {
        const char *table;
        const char *fields[7];
    } keys[] = {
        { "cuda_toolkit", { "kind", "cuda", "label", "cuda_major", "since", NULL } },
        { "cuda_arch", { "kind", "cuda", "event", "name", "source", NULL } },
        { "tf_builds", { "kind", "tensorflow", "os", "name", "tensorflow_below", "cuda", NULL } },
        { "torch_builds", { "kind", "torch", "cuda", NULL } },
        { "jax_builds", { "plugin", "current", "cudnn_min", NULL } },
        { "cupy_builds", { "cupy", NULL } },
        { "windows_cuda",
          { "kind", "dll", "cuda", "variable", "variable_pattern", "framework", NULL } },
    };
    size_t len = (size_t)snprintf(buf, size, "%s", tname);
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        if (strcmp(keys[k].table, tname) != 0)
            continue;
        for (const char *const *f = keys[k].fields; *f && len < size; f++) {
            const char *v = gd_kb_str(row, *f);
            len += (size_t)snprintf(buf + len, size - len, "|%s", v ? v : "-");
        }
        return;
    }
    /* cudnn_builds: a package row is (releases, CUDA major, CUDA list, compute capabilities);
     * two rows with the same would be two answers for one question. */
    for (const char *const *f = (const char *const[]){ "cudnn", "cudnn_last", "cuda_major", NULL };
         *f && len < size; f++) {
        const char *v = gd_kb_str(row, *f);
        len += (size_t)snprintf(buf + len, size - len, "|%s", v ? v : "-");
    }
    for (const char *const *f = (const char *const[]){ "cuda", "cc", "onnxruntime", NULL }; *f; f++)
        for (size_t i = 0; i < gd_kb_list_len(row, *f) && len < size; i++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "|",
                                    gd_kb_list_at(row, *f, i));
}

static void test_no_duplicates(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < sizeof tables / sizeof *tables; ti++) {
        const struct gd_kb_table *t = table(tables[ti]);
        size_t n = gd_kb_row_count(t);
        for (size_t i = 0; i < n; i++) {
            char a[512], b[512];
            key_of(tables[ti], gd_kb_row_at(t, i), a, sizeof a);
            for (size_t j = i + 1; j < n; j++) {
                key_of(tables[ti], gd_kb_row_at(t, j), b, sizeof b);
                if (strcmp(a, b) == 0)
                    fail_msg("%s rows[%zu] and [%zu] are about the same thing: %s", tables[ti], i,
                             j, a);
            }
        }
    }
    /* ONNX Runtime: a release appears once per CUDA major (a listed "1.18" and "1.18.1" of one
     * major would overlap). */
    const struct gd_kb_table *t = table("onnxruntime_builds");
    for (size_t i = 0; i < gd_kb_row_count(t); i++)
        for (size_t j = i + 1; j < gd_kb_row_count(t); j++) {
            const struct gd_kb_row *a = gd_kb_row_at(t, i), *b = gd_kb_row_at(t, j);
            if (strcmp(gd_kb_str(a, "cuda_major"), gd_kb_str(b, "cuda_major")) != 0)
                continue;
            for (size_t x = 0; x < gd_kb_list_len(a, "onnxruntime"); x++)
                for (size_t y = 0; y < gd_kb_list_len(b, "onnxruntime"); y++) {
                    struct gd_version va = ver(gd_kb_list_at(a, "onnxruntime", x));
                    struct gd_version vb = ver(gd_kb_list_at(b, "onnxruntime", y));
                    if (gd_version_has_prefix(&va, &vb) || gd_version_has_prefix(&vb, &va))
                        fail_msg("onnxruntime_builds rows[%zu] and [%zu] overlap", i, j);
                }
        }
}

/* The release order of a driver row inside its major.minor: RC < GA < Update n, or the patch
 * the row names. */
static int driver_row_cmp(const struct gd_kb_row *a, const struct gd_kb_row *b)
{
    struct gd_version ca = ver(gd_kb_str(a, "cuda")), cb = ver(gd_kb_str(b, "cuda"));
    int c = gd_version_cmp(&ca, &cb);
    if (c)
        return c;
    const char *va = gd_kb_str(a, "version"), *vb = gd_kb_str(b, "version");
    if (va && vb) {
        struct gd_version x = ver(va), y = ver(vb);
        return gd_version_cmp(&x, &y);
    }
    const char *ua = gd_kb_str(a, "update"), *ub = gd_kb_str(b, "update");
    if (!ua || !ub)
        fail_msg("driver rows of CUDA %s cannot be ordered", gd_kb_str(a, "cuda"));
    return atoi(ua) - atoi(ub);
}

/* NVIDIA's minimums never decrease with the release inside a major (per OS); TensorFlow's
 * tested CUDA and cuDNN never decrease with the release (per OS); the events of one compute
 * capability alternate, starting with "added". */
static void test_monotonic(void **state)
{
    (void)state;
    const struct gd_kb_table *t = table("cuda_toolkit");
    static const char *const os_fields[] = { "linux", "windows" };
    for (size_t i = 0; i < gd_kb_row_count(t); i++)
        for (size_t j = 0; j < gd_kb_row_count(t); j++) {
            const struct gd_kb_row *a = gd_kb_row_at(t, i), *b = gd_kb_row_at(t, j);
            if (!is(a, "kind", "driver") || !is(b, "kind", "driver") || i == j)
                continue;
            struct gd_version ca = ver(gd_kb_str(a, "cuda")), cb = ver(gd_kb_str(b, "cuda"));
            if (gd_version_major(&ca) != gd_version_major(&cb) || driver_row_cmp(a, b) >= 0)
                continue;
            for (size_t o = 0; o < 2; o++) {
                const char *da = gd_kb_str(a, os_fields[o]), *db = gd_kb_str(b, os_fields[o]);
                if (!da || !db)
                    continue;
                struct gd_version x = ver(da), y = ver(db);
                if (gd_version_cmp(&x, &y) > 0)
                    fail_msg("%s: %s needs %s but the later %s needs %s", os_fields[o],
                             gd_kb_str(a, "label"), da, gd_kb_str(b, "label"), db);
            }
        }

    t = table("tf_builds");
    for (size_t i = 0; i < gd_kb_row_count(t); i++)
        for (size_t j = 0; j < gd_kb_row_count(t); j++) {
            const struct gd_kb_row *a = gd_kb_row_at(t, i), *b = gd_kb_row_at(t, j);
            if (!is(a, "kind", "build") || !is(b, "kind", "build") ||
                strcmp(gd_kb_str(a, "os"), gd_kb_str(b, "os")) != 0)
                continue;
            struct gd_version ta = ver(gd_kb_str(a, "tensorflow"));
            struct gd_version tb = ver(gd_kb_str(b, "tensorflow"));
            if (gd_version_cmp(&ta, &tb) >= 0)
                continue;
            struct gd_version xa = ver(gd_kb_str(a, "cuda")), xb = ver(gd_kb_str(b, "cuda"));
            struct gd_version da = ver(gd_kb_str(a, "cudnn")), db = ver(gd_kb_str(b, "cudnn"));
            if (gd_version_cmp(&xa, &xb) > 0 || gd_version_cmp(&da, &db) > 0)
                fail_msg("tf_builds %s: %s has CUDA %s cuDNN %s, the later %s %s / %s",
                         gd_kb_str(a, "os"), gd_kb_str(a, "tensorflow"), gd_kb_str(a, "cuda"),
                         gd_kb_str(a, "cudnn"), gd_kb_str(b, "tensorflow"), gd_kb_str(b, "cuda"),
                         gd_kb_str(b, "cudnn"));
        }

    t = table("cuda_arch");
    static const char *const ccs[] = { "2.0", "3.0", "3.5", "3.7", "5.0",  "6.1",  "7.0",  "7.5",
                                       "8.0", "8.6", "8.9", "9.0", "10.0", "10.1", "11.0", "12.0" };
    for (size_t c = 0; c < sizeof ccs / sizeof *ccs; c++) {
        struct gd_version cc = ver(ccs[c]);
        const char *last = NULL;
        struct gd_version last_at = ver("0");
        /* Walk the events of this cc in toolkit order (the table lists them in that order). */
        for (size_t i = 0; i < gd_kb_row_count(t); i++) {
            const struct gd_kb_row *row = gd_kb_row_at(t, i);
            if (!is(row, "kind", "event"))
                continue;
            bool listed = false;
            for (size_t k = 0; k < gd_kb_list_len(row, "cc"); k++) {
                struct gd_version item = ver(gd_kb_list_at(row, "cc", k));
                listed = listed || gd_version_cmp(&item, &cc) == 0;
            }
            if (!listed)
                continue;
            struct gd_version at = ver(gd_kb_str(row, "cuda"));
            const char *ev = gd_kb_str(row, "event");
            if (gd_version_cmp(&at, &last_at) < 0)
                fail_msg("cuda_arch: events of %s out of toolkit order", ccs[c]);
            if ((!last && strcmp(ev, "added") != 0) || (last && strcmp(ev, last) == 0))
                fail_msg("cuda_arch: %s is %s at CUDA %s after %s", ccs[c], ev,
                         gd_kb_str(row, "cuda"), last ? last : "nothing");
            last = ev;
            last_at = at;
        }
        if (!last)
            fail_msg("cuda_arch: no event for %s", ccs[c]);
    }
}

/* A CUDA version some table names has a driver row in cuda_toolkit (same major.minor; a bare
 * major, as old Windows rows write it, needs one of that major). */
static void expect_cuda_known(const char *where, const char *cuda)
{
    const struct gd_kb_table *t = table("cuda_toolkit");
    struct gd_version v = ver(cuda);
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        if (!is(row, "kind", "driver"))
            continue;
        struct gd_version c = ver(gd_kb_str(row, "cuda"));
        if (gd_version_cmp_parts(&v, &c, v.nparts < 2 ? 1 : 2) == 0)
            return;
    }
    fail_msg("%s names CUDA %s, which cuda_toolkit does not have", where, cuda);
}

static void each_cuda(const char *tname, const char *field)
{
    const struct gd_kb_table *t = table(tname);
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *s = gd_kb_str(row, field);
        if (s)
            expect_cuda_known(tname, s);
        for (size_t k = 0; k < gd_kb_list_len(row, field); k++)
            expect_cuda_known(tname, gd_kb_list_at(row, field, k));
    }
}

/* A framework version or CUDA version that frameworks.json refers to is in the build tables. */
static bool tf_release_known(const char *v)
{
    const struct gd_kb_table *t = table("tf_builds");
    struct gd_version want = ver(v);
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        if (!is(row, "kind", "build"))
            continue;
        struct gd_version r = ver(gd_kb_str(row, "tensorflow"));
        if (gd_version_cmp_parts(&want, &r, 2) == 0)
            return true;
    }
    return false;
}

static void test_across_tables(void **state)
{
    (void)state;
    each_cuda("tf_builds", "cuda");
    each_cuda("torch_builds", "cuda");
    each_cuda("cudnn_builds", "cuda");
    each_cuda("cupy_builds", "cuda");
    each_cuda("onnxruntime_builds", "cuda");
    each_cuda("jax_builds", "cuda_min");

    const struct gd_kb_table *fw = table("frameworks");
    const struct gd_kb_table *tf = table("tf_builds");
    const struct gd_kb_table *torch = table("torch_builds");
    const struct gd_kb_table *jax = table("jax_builds");
    const struct gd_kb_table *cupy = table("cupy_builds");
    size_t checked = 0;
    for (size_t i = 0; i < gd_kb_row_count(fw); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(fw, i);
        const char *framework = gd_kb_str(row, "framework"), *cuda = gd_kb_str(row, "cuda");
        if (!framework)
            continue;
        if (strcmp(framework, "tensorflow") == 0) {
            /* Every TensorFlow release frameworks.json names is a tested release. */
            static const char *const fields[] = { "version_min", "version_below" };
            for (size_t f = 0; f < 2; f++)
                if (gd_kb_str(row, fields[f])) {
                    checked++;
                    if (!tf_release_known(gd_kb_str(row, fields[f])))
                        fail_msg("frameworks rows[%zu]: TensorFlow %s is not in tf_builds", i,
                                 gd_kb_str(row, fields[f]));
                }
            for (size_t k = 0; k < gd_kb_list_len(row, "versions_seen"); k++) {
                checked++;
                if (!tf_release_known(gd_kb_list_at(row, "versions_seen", k)))
                    fail_msg("frameworks rows[%zu]: TensorFlow %s is not in tf_builds", i,
                             gd_kb_list_at(row, "versions_seen", k));
            }
            /* A dlopen row's CUDA prefix is the CUDA of some Linux build. */
            if (is(row, "kind", "dlopen")) {
                struct gd_version prefix = ver(cuda);
                bool found = false;
                for (size_t j = 0; j < gd_kb_row_count(tf) && !found; j++) {
                    const struct gd_kb_row *b = gd_kb_row_at(tf, j);
                    if (!is(b, "kind", "build") || !is(b, "os", "linux"))
                        continue;
                    struct gd_version c = ver(gd_kb_str(b, "cuda"));
                    found = gd_version_has_prefix(&c, &prefix);
                }
                checked++;
                if (!found)
                    fail_msg("frameworks: TensorFlow dlopen row for CUDA %s matches no build",
                             cuda);
            }
        } else if (strcmp(framework, "torch") == 0 && is(row, "kind", "wheel_deps")) {
            checked++;
            bool found = false;
            for (size_t j = 0; j < gd_kb_row_count(torch) && !found; j++)
                found = is(gd_kb_row_at(torch, j), "kind", "wheel") &&
                        is(gd_kb_row_at(torch, j), "cuda", cuda);
            if (!found)
                fail_msg("frameworks: torch wheel_deps for CUDA %s is no wheel of torch_builds",
                         cuda);
        } else if (strcmp(framework, "jax") == 0 && is(row, "kind", "dlopen")) {
            checked++;
            bool found = false;
            for (size_t j = 0; j < gd_kb_row_count(jax) && !found; j++)
                found = is(gd_kb_row_at(jax, j), "cuda_major", cuda) &&
                        is(gd_kb_row_at(jax, j), "current", "true");
            if (!found)
                fail_msg("frameworks: JAX loads CUDA %s libraries, jax_builds has no plugin", cuda);
        } else if (strcmp(framework, "cupy") == 0 && is(row, "kind", "dist") && cuda) {
            /* The CUDA a CuPy wheel name implies is in some CuPy release's requirements. */
            checked++;
            struct gd_version want = ver(cuda);
            bool found = false;
            for (size_t j = 0; j < gd_kb_row_count(cupy) && !found; j++)
                for (size_t k = 0; k < gd_kb_list_len(gd_kb_row_at(cupy, j), "cuda"); k++) {
                    struct gd_version c = ver(gd_kb_list_at(gd_kb_row_at(cupy, j), "cuda", k));
                    found = found || gd_version_has_prefix(&c, &want);
                }
            if (!found)
                fail_msg("frameworks: %s implies CUDA %s, no CuPy release lists it",
                         gd_kb_str(row, "dist"), cuda);
        }
    }
    assert_true(checked >= 20);

    /* Two PyTorch sources agree: every variant the release matrix gives a minor release is
     * installed by the pip commands of that minor's releases (previous-versions). */
    size_t compared = 0;
    for (size_t i = 0; i < gd_kb_row_count(torch); i++) {
        const struct gd_kb_row *rel = gd_kb_row_at(torch, i);
        if (!is(rel, "kind", "release"))
            continue;
        struct gd_version rv = ver(gd_kb_str(rel, "torch"));
        for (size_t j = 0; j < gd_kb_row_count(torch); j++) {
            const struct gd_kb_row *w = gd_kb_row_at(torch, j);
            if (!is(w, "kind", "wheel"))
                continue;
            struct gd_version wv = ver(gd_kb_str(w, "torch"));
            if (gd_version_cmp_parts(&rv, &wv, 2) != 0)
                continue;
            compared++;
            if (!gd_kb_list_has(rel, "cuda", gd_kb_str(w, "cuda")))
                fail_msg("torch %s: the matrix has CUDA %s, previous-versions does not",
                         gd_kb_str(rel, "torch"), gd_kb_str(w, "cuda"));
        }
        /* tags are the cu<major><minor> of cuda, in order. */
        for (size_t k = 0; k < gd_kb_list_len(rel, "cuda"); k++) {
            struct gd_version c = ver(gd_kb_list_at(rel, "cuda", k));
            char tag[16];
            snprintf(tag, sizeof tag, "cu%lu%lu", gd_version_major(&c), gd_version_minor(&c));
            if (!gd_kb_list_at(rel, "tags", k) || strcmp(gd_kb_list_at(rel, "tags", k), tag) != 0)
                fail_msg("torch %s: tag %zu is not %s", gd_kb_str(rel, "torch"), k, tag);
            /* pip[k] installs that variant of that release: it names the release, and the tag
             * unless it is the variant PyPI itself serves. */
            const char *pip = gd_kb_list_at(rel, "pip", k);
            char want[64];
            snprintf(want, sizeof want, "torch==%s", gd_kb_str(rel, "torch"));
            if (!pip || !strstr(pip, want))
                fail_msg("torch %s: pip[%zu] does not install %s", gd_kb_str(rel, "torch"), k,
                         want);
            if (!strstr(pip, tag) &&
                !(gd_kb_str(rel, "pypi_default_cuda") &&
                  strcmp(gd_kb_str(rel, "pypi_default_cuda"), gd_kb_list_at(rel, "cuda", k)) == 0))
                fail_msg("torch %s: pip[%zu] names no %s", gd_kb_str(rel, "torch"), k, tag);
        }
        if (gd_kb_list_len(rel, "pip") != gd_kb_list_len(rel, "tags"))
            fail_msg("torch %s: one pip command per tag", gd_kb_str(rel, "torch"));
    }
    assert_true(compared >= 20);
}

/* ---- spot checks: each value as its source (source id of the table) states it -------------- */

static void test_spot_cuda_toolkit(void **state)
{
    (void)state;
    const struct gd_kb_table *t = table("cuda_toolkit");
    const struct gd_kb_row *r;
    /* cuda-rn-13.2.2 Table 3: "CUDA 12.4 GA | >=550.54.14 | >=551.61" */
    r = find(t, "kind", "driver", "label", "CUDA 12.4 GA", NULL);
    expect(r, "cuda", "12.4");
    expect(r, "linux", "550.54.14");
    expect(r, "windows", "551.61");
    /* "CUDA 11.8 GA | >=520.61.05 | >=520.06" */
    r = find(t, "kind", "driver", "label", "CUDA 11.8 GA", NULL);
    expect(r, "linux", "520.61.05");
    expect(r, "windows", "520.06");
    /* "CUDA 13.0 GA | >=580.65.06 | N/A" */
    r = find(t, "kind", "driver", "label", "CUDA 13.0 GA", NULL);
    expect(r, "linux", "580.65.06");
    assert_null(gd_kb_str(r, "windows"));
    /* "CUDA 12.8 Update 1 | >=570.124.06 | >=572.61" */
    r = find(t, "kind", "driver", "label", "CUDA 12.8 Update 1", NULL);
    expect(r, "linux", "570.124.06");
    expect(r, "update", "1");
    /* "CUDA 11.0.3 Update 1 | >= 450.51.06 | >= 451.82" */
    r = find(t, "kind", "driver", "version", "11.0.3", NULL);
    expect(r, "linux", "450.51.06");
    expect(r, "windows", "451.82");
    /* "CUDA 10.1 (10.1.105 general release, and updates) | >= 418.39 | >= 418.96"; the
     * compatibility guide's Table 2 says the same (cuda-compat-minor). */
    r = find(t, "kind", "driver", "cuda", "10.1", NULL);
    expect(r, "linux", "418.39");
    expect(r, "windows", "418.96");
    assert_true(gd_kb_list_has(r, "also", "cuda-compat-minor"));
    /* "CUDA 7.0 (7.0.28) | >= 346.46 | >= 347.62" */
    expect(find(t, "kind", "driver", "version", "7.0.28", NULL), "linux", "346.46");
    /* Table 2 / minor-version-compatibility: "12.x >= 525 < 580", "13.x >= 580", and the
     * footnote: 450.80.02 (Linux) / 452.39 (Windows) across 11.x. */
    r = find(t, "kind", "minor_compat", "cuda_major", "12", NULL);
    expect(r, "driver_min", "525");
    expect(r, "driver_family_below", "580");
    expect(find(t, "kind", "minor_compat", "cuda_major", "13", NULL), "driver_min", "580");
    r = find(t, "kind", "minor_compat", "cuda_major", "11", NULL);
    expect(r, "driver_min", "450.80.02");
    expect(r, "windows_min", "452.39");
    /* cuda-compat-forward: "introduced ... in CUDA 10.0", "cuda-compat-<cuda_major_version>-
     * <cuda_minor_version>", "NVIDIA Data Center GPUs", "Jetson boards". */
    r = find(t, "kind", "forward_compat", NULL);
    expect(r, "since", "10.0");
    assert_true(gd_kb_list_has(r, "gpus", "NVIDIA Data Center GPUs"));
    assert_true(gd_kb_list_has(r, "gpus", "Jetson boards"));
    expect(r, "os", "linux");
}

static void test_spot_cuda_arch(void **state)
{
    (void)state;
    const struct gd_kb_table *t = table("cuda_arch");
    const struct gd_kb_row *r;
    /* cmake-cuda-archs: "VERSION_GREATER_EQUAL 12.0 ... REMOVE_ITEM ... 35 37". */
    r = find(t, "kind", "event", "cuda", "12.0", "event", "dropped", NULL);
    assert_true(gd_kb_list_has(r, "cc", "3.5") && gd_kb_list_has(r, "cc", "3.7"));
    /* "VERSION_GREATER_EQUAL 11.8 ... APPEND ... 89 90". */
    r = find(t, "kind", "event", "cuda", "11.8", "event", "added", NULL);
    assert_true(gd_kb_list_has(r, "cc", "8.9") && gd_kb_list_has(r, "cc", "9.0"));
    /* cuda-rn-13.2.2: "support for Maxwell, Pascal, and Volta ... removed in CUDA Toolkit
     * 13.0"; llvm-cuda-cpp: "SM(60), SM(61), SM(62), // Pascal". */
    r = find(t, "kind", "event", "cuda", "13.0", "event", "dropped", "source", "cuda-rn-13.2.2",
             NULL);
    assert_true(gd_kb_list_has(r, "cc", "6.1"));
    assert_false(gd_kb_list_has(r, "cc", "7.5"));
    assert_true(gd_kb_list_has(find(t, "kind", "family", "name", "Volta", NULL), "cc", "7.2"));
    /* cuda-features-13.0: "SM101 has been renumbered as SM110 from this release." */
    assert_true(gd_kb_list_has(find(t, "kind", "event", "cuda", "13.0", "event", "added", NULL),
                               "cc", "11.0"));
}

static void test_spot_cudnn(void **state)
{
    (void)state;
    const struct gd_kb_table *t = table("cudnn_builds");
    const struct gd_kb_row *r;
    /* cudnn-sm-9.17.0: "cuDNN 9.17.0 for CUDA 13.x | 13.1, 13.0 | ... | >=580.65.06 | N/A |
     * 12.0, 10.0, 9.0, 8.9, 8.6, 8.0, 7.5". */
    r = find(t, "cudnn", "9.17.0", "cuda_major", "13", NULL);
    expect(r, "driver_linux", "580.65.06");
    assert_null(gd_kb_str(r, "driver_windows"));
    assert_true(gd_kb_list_has(r, "cc", "7.5"));
    assert_false(gd_kb_list_has(r, "cc", "7.0"));
    /* cudnn-sm-9.10.2: "cuDNN 9.10.2 for CUDA 12.x | 12.9, 12.8 | Yes | >=570.26 | >=570.65 |
     * 12.0, 10.0, ...". */
    r = find(t, "cudnn", "9.10.2", "driver_linux", "570.26", NULL);
    expect(r, "driver_windows", "570.65");
    assert_true(gd_kb_list_has(r, "cc", "12.0"));
    assert_false(gd_kb_list_has(r, "cuda", "12.6"));
    /* cudnn-sm-8.9.6: "cuDNN 8.9.6 for CUDA 12.x 12.2 Yes >=525.60.13 >=527.41 ... 12.1 ...
     * 12.0". */
    r = find(t, "cudnn", "8.9.6", "cuda_major", "12", NULL);
    expect(r, "driver_windows", "527.41");
    assert_true(gd_kb_list_has(r, "cuda", "12.0") && !gd_kb_list_has(r, "cuda", "12.3"));
    /* cudnn-sm-8.2.2: "11.4 | SM 3.5 and later | r470". */
    r = find(t, "cudnn", "8.2.2", "cuda", "11.4", NULL);
    expect(r, "driver_linux", "470");
    expect(r, "cc_min", "3.5");
    /* cudnn-sm-8.0.3, cuDNN 7.6.4 - 7.6.5: "CUDA 9.0.176 | r384.111". */
    expect(find(t, "cudnn", "7.6.4", "cuda", "9.0", NULL), "driver_linux", "384.111");
}

static void test_spot_tensorflow(void **state)
{
    (void)state;
    const struct gd_kb_table *t = table("tf_builds");
    const struct gd_kb_row *r;
    /* tf-source-linux: "tensorflow-2.15.0 | 3.9-3.11 | Clang 16.0.0 | Bazel 6.1.0 | 8.9 | 12.2" */
    r = find(t, "kind", "build", "os", "linux", "tensorflow", "2.15.0", NULL);
    expect(r, "cudnn", "8.9");
    expect(r, "cuda", "12.2");
    expect(r, "compiler", "Clang 16.0.0");
    /* "tensorflow-2.18.0 | 3.9-3.12 | Clang 17.0.6 | Bazel 6.5.0 | 9.3 | 12.5" */
    r = find(t, "kind", "build", "os", "linux", "tensorflow", "2.18.0", NULL);
    expect(r, "cudnn", "9.3");
    expect(r, "cuda", "12.5");
    /* "tensorflow_gpu-1.13.1 | 2.7, 3.3-3.7 | GCC 4.8 | Bazel 0.19.2 | 7.4 | 10.0" */
    r = find(t, "kind", "build", "os", "linux", "tensorflow", "1.13.1", NULL);
    expect(r, "package", "tensorflow_gpu");
    expect(r, "python", "2.7, 3.3-3.7");
    expect(r, "cuda", "10.0");
    /* tf-source-windows: "tensorflow_gpu-2.5.0 | 3.6-3.9 | MSVC 2019 | Bazel 3.7.2 | 8.1 | 11.2",
     * "tensorflow_gpu-1.13.0 | 3.5-3.7 | MSVC 2015 update 3 | ... | 7.4 | 10" */
    r = find(t, "kind", "build", "os", "windows", "tensorflow", "2.5.0", NULL);
    expect(r, "compiler", "MSVC 2019");
    expect(r, "cuda", "11.2");
    expect(find(t, "kind", "build", "os", "windows", "tensorflow", "1.13.0", NULL), "cuda", "10");
    /* tf-release-2.11.1: "TensorFlow 2.10 was the last TensorFlow release that supported GPU on
     * native-Windows." */
    expect(find(t, "kind", "fact", "name", "last_native_windows_gpu", NULL), "value", "2.10");
    /* tf-pip-2.13: "NVIDIA GPU drivers version 450.80.02 or higher", "CUDA Toolkit 11.8",
     * "cuDNN SDK 8.6.0"; Windows Native: "conda install -c conda-forge cudatoolkit=11.2
     * cudnn=8.1.0". */
    r = find(t, "kind", "pip_requirements", "tensorflow", "2.13", NULL);
    expect(r, "driver_linux", "450.80.02");
    expect(r, "cudnn", "8.6.0");
    r = find(t, "kind", "windows_native_gpu", NULL);
    assert_true(
        gd_kb_list_has(r, "commands", "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0"));
    /* tf-pip-and-cuda: ">= 525.60.13 for Linux", ">= 528.33 for WSL on Windows". */
    r = find(t, "kind", "pip_requirements", "and_cuda", "true", NULL);
    expect(r, "driver_wsl", "528.33");
    expect(r, "cuda", "12.3");
}

static void test_spot_torch(void **state)
{
    (void)state;
    const struct gd_kb_table *t = table("torch_builds");
    const struct gd_kb_row *r;
    /* torch-release-matrix: "2.1 | >=3.8, <=3.11 | C++17 | CUDA 11.8, CUDNN 8.7.0.84 | CUDA 12.1,
     * CUDNN 8.9.2.26" */
    r = find(t, "kind", "wheel", "torch", "2.1", "cuda", "12.1", NULL);
    expect(r, "cudnn", "8.9.2.26");
    expect(r, "status", "experimental");
    expect(r, "tag", "cu121");
    r = find(t, "kind", "wheel", "torch", "2.1", "cuda", "11.8", NULL);
    expect(r, "cudnn", "8.7.0.84");
    expect(r, "status", "stable");
    /* "2.7 | ... | CUDA 11.8 (CUDNN 9.1.0.70), CUDA 12.6 (CUDNN 9.5.1.17) | CUDA 12.8 (CUDNN
     * 9.7.1.26)" */
    expect(find(t, "kind", "wheel", "torch", "2.7", "cuda", "12.8", NULL), "cudnn", "9.7.1.26");
    /* "2.9 | ... | CUDA 13.0 (CUDNN 9.13.0.50)" as experimental */
    r = find(t, "kind", "wheel", "torch", "2.9", "cuda", "13.0", NULL);
    expect(r, "cudnn", "9.13.0.50");
    expect(r, "status", "experimental");
    /* "1.12 | >=3.7, <=3.10" */
    r = find(t, "kind", "matrix", "torch", "1.12", NULL);
    expect(r, "python_min", "3.7");
    expect(r, "python_max", "3.10");
    /* torch-previous-versions, v2.0.1: "# CUDA 11.7 pip install torch==2.0.1 torchvision==0.15.2
     * torchaudio==2.0.2" and "# CUDA 11.8 ... --index-url .../whl/cu118" */
    r = find(t, "kind", "release", "torch", "2.0.1", NULL);
    expect(r, "pypi_default_cuda", "11.7");
    assert_true(gd_kb_list_has(r, "tags", "cu118"));
    /* v1.12.1: "+cu116 ... +cu113 ... +cu102" */
    r = find(t, "kind", "release", "torch", "1.12.1", NULL);
    assert_true(gd_kb_list_has(r, "cuda", "10.2") && gd_kb_list_has(r, "cuda", "11.6"));
    /* The torch part of each variant's pip command. v2.1.0: "pip install torch==2.1.0
     * torchvision==0.16.0 torchaudio==2.1.0 --index-url https://download.pytorch.org/whl/cu121";
     * v2.0.1 CUDA 11.7: "pip install torch==2.0.1 torchvision==0.15.2 torchaudio==2.0.2"; v1.12.1:
     * "pip install torch==1.12.1+cu113 ... --extra-index-url
     * https://download.pytorch.org/whl/cu113"; v1.10.1: "-f
     * https://download.pytorch.org/whl/cu111/torch_stable.html"; v1.9.0: "pip install
     * torch==1.9.0+cu111 ... -f https://download.pytorch.org/whl/torch_stable.html". */
    assert_true(gd_kb_list_has(find(t, "kind", "release", "torch", "2.1.0", NULL), "pip",
                               "pip install torch==2.1.0 --index-url "
                               "https://download.pytorch.org/whl/cu121"));
    assert_true(gd_kb_list_has(find(t, "kind", "release", "torch", "2.0.1", NULL), "pip",
                               "pip install torch==2.0.1"));
    assert_true(gd_kb_list_has(r, "pip",
                               "pip install torch==1.12.1+cu113 --extra-index-url "
                               "https://download.pytorch.org/whl/cu113"));
    assert_true(gd_kb_list_has(find(t, "kind", "release", "torch", "1.10.1", NULL), "pip",
                               "pip install torch==1.10.1+cu111 -f "
                               "https://download.pytorch.org/whl/cu111/torch_stable.html"));
    assert_true(gd_kb_list_has(find(t, "kind", "release", "torch", "1.9.0", NULL), "pip",
                               "pip install torch==1.9.0+cu111 -f "
                               "https://download.pytorch.org/whl/torch_stable.html"));
    expect(find(t, "kind", "index", NULL), "pip",
           "pip install torch=={version} --index-url https://download.pytorch.org/whl/{tag}");
}

static void test_spot_jax_cupy_ort(void **state)
{
    (void)state;
    const struct gd_kb_row *r;
    /* jax-install-current: "the driver version must be ... >= 580 for CUDA 13 on Linux"; "On
     * CUDA 13, JAX supports NVIDIA GPUs that have SM version 7.5 or newer"; "CUDNN 9.8 | CUDNN
     * >=9.8, <10.0" */
    r = find(table("jax_builds"), "cuda_major", "13", NULL);
    expect(r, "driver_linux", "580");
    expect(r, "cc_min", "7.5");
    expect(r, "cudnn_min", "9.8");
    /* jax-install-2024: ">= 525.60.13 for CUDA 12 on Linux", "CUDNN 9.1 | CUDNN >=9.1, <10.0" */
    r = find(table("jax_builds"), "cuda_major", "12", "current", "false", NULL);
    expect(r, "driver_linux", "525.60.13");
    expect(r, "cudnn_min", "9.1");
    expect(r, "cuda_min", "12.1");
    /* cupy-install-13.2.0: "CUDA Toolkit: v11.2 / ... / v12.4", "Compute Capability 3.0 or
     * larger"; cupy-install-8.6.0: "v9.0 / v9.2 / v10.0 ..." (no 9.1) */
    r = find(table("cupy_builds"), "cupy", "13.2.0", NULL);
    assert_true(gd_kb_list_has(r, "cuda", "11.2") && gd_kb_list_has(r, "cuda", "12.4"));
    assert_false(gd_kb_list_has(r, "cuda", "12.5"));
    expect(r, "cc_min", "3.0");
    r = find(table("cupy_builds"), "cupy", "8.6.0", NULL);
    assert_true(gd_kb_list_has(r, "cuda", "9.0") && !gd_kb_list_has(r, "cuda", "9.1"));
    /* ort-cuda-ep: "1.18.1 | 12.x | 9.x | cuDNN 9 is required", "1.18.0 | 12.x | 8.x" */
    const struct gd_kb_table *t = table("onnxruntime_builds");
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        r = gd_kb_row_at(t, i);
        if (gd_kb_list_has(r, "onnxruntime", "1.18.1"))
            expect(r, "cudnn_major", "9");
        if (gd_kb_list_has(r, "onnxruntime", "1.18.0"))
            expect(r, "cudnn_major", "8");
        /* ort-cuda-ep-1.16: "1.14<br/>1.13.1<br/>1.13 | 11.6 | 8.2.4 (Linux)<br/>8.5.0.96
         * (Windows)" */
        if (gd_kb_list_has(r, "onnxruntime", "1.13.1")) {
            expect(r, "cuda", "11.6");
            expect(r, "cudnn_linux", "8.2.4");
            expect(r, "cudnn_windows", "8.5.0.96");
        }
    }
    /* gpus (cuda-gpus-2022, nvidia-forum-190426): "Tesla K80 | 3.7", "It has compute capability
     * of 3.7 only." */
    r = find(table("gpus"), "name", "Tesla K80", NULL);
    expect(r, "cc", "3.7");
    assert_true(gd_kb_list_has(r, "also", "nvidia-forum-190426"));
}

static void test_spot_windows(void **state)
{
    (void)state;
    const struct gd_kb_table *t = table("windows_cuda");
    const struct gd_kb_row *r;
    /* pathfinder-supported-libs, SUPPORTED_WINDOWS_DLLS_CTK: "cudart64_110.dll",
     * "cusparse64_11.dll", "nvrtc64_112_0.dll"; pathfinder-catalog: cufft64_11.dll beside
     * libcufft.so.11 (CUDA 12). */
    r = find(t, "kind", "dll", "dll", "cudart64_110.dll", NULL);
    expect(r, "cuda", "11");
    r = find(t, "kind", "dll", "dll", "cufft64_11.dll", NULL);
    expect(r, "cuda", "12");
    r = find(t, "kind", "dll", "dll", "cusolver64_10.dll", NULL);
    expect(r, "cuda", "11.0");
    /* tf-issue-44291: 11.1.0, 11.1.1 and 11.2.0 install cusolver64_11.dll. */
    r = find(t, "kind", "dll", "dll", "cusolver64_11.dll", "cuda", "11", NULL);
    expect(r, "source", "tf-issue-44291");
    /* cupy-issue-6226: "cuDNN 8.3.0+ requires zlib"; cudnn-frontend-pr-1006: Windows needs
     * cublasLt*.dll and nvrtc*.dll. */
    r = find(t, "kind", "dependency", NULL);
    expect(r, "dll", "zlibwapi.dll");
    expect(r, "cudnn_min", "8.3");
    expect(r, "cudnn_below", "9");
    /* mpv-animejanai-pr-81: 32.0.16.1047 -> 610.47, last five digits, dot before the last
     * two. */
    r = find(t, "kind", "driver_version", NULL);
    expect(r, "digits", "5");
    expect(r, "decimals", "2");
    /* pynvml-issue-31: nvml.dll in C:\WINDOWS\system32; chromium-nvml: the NVSMI folder. */
    r = find(t, "kind", "driver_dll", "dll", "nvml.dll", NULL);
    assert_true(gd_kb_list_has(r, "dirs", "Windows/System32"));
    assert_true(gd_kb_list_has(r, "dirs", "Program Files/NVIDIA Corporation/NVSMI"));
    /* tf-issue-72097: 'cublas64_11.dll', 'cublasLt64_11.dll', 'cufft64_10.dll',
     * 'cusparse64_11.dll', 'cudnn64_8.dll'. */
    r = find(t, "kind", "framework_dlls", "framework", "tensorflow", NULL);
    static const char *const tf[] = { "cublas64_11.dll",  "cublasLt64_11.dll",
                                      "cufft64_10.dll",   "cusparse64_11.dll",
                                      "cudart64_110.dll", "cudnn64_{cudnn_major}.dll" };
    for (size_t i = 0; i < sizeof tf / sizeof *tf; i++)
        assert_true(gd_kb_list_has(r, "dlls", tf[i]));
    /* Every DLL TensorFlow names is a row of its family, for its CUDA major. */
    for (size_t i = 0; i < gd_kb_list_len(r, "dlls"); i++) {
        const char *dll = gd_kb_list_at(r, "dlls", i);
        if (strchr(dll, '{') || strcmp(dll, "nvcuda.dll") == 0)
            continue;
        find(t, "kind", "dll", "dll", dll, "cuda", "11", NULL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sources_and_shape), cmocka_unit_test(test_no_duplicates),
        cmocka_unit_test(test_monotonic),         cmocka_unit_test(test_across_tables),
        cmocka_unit_test(test_spot_cuda_toolkit), cmocka_unit_test(test_spot_cuda_arch),
        cmocka_unit_test(test_spot_cudnn),        cmocka_unit_test(test_spot_tensorflow),
        cmocka_unit_test(test_spot_torch),        cmocka_unit_test(test_spot_jax_cupy_ort),
        cmocka_unit_test(test_spot_windows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
