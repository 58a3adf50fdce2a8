/*
 * Windows: a DLL a framework's extension module imports that Python 3.8 and later cannot find,
 * though the standard order (LoadLibrary, and Python 3.7 and earlier) finds it on PATH or in
 * the current directory. Python 3.8 loads extension modules with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
 * | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR and searches neither ("What's New In Python 3.8": DLL
 * dependencies of extension modules; os.add_dll_directory). The probe (src/probe/fwdlls.c)
 * records each such DLL as a `framework_dll` entity whose `path` is absent and whose
 * `standard.path` says where the standard order finds it; one finding per framework lists them,
 * with an os.add_dll_directory call per directory.
 */
#include "rules/frameworks.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "kb/kb.h"

#include <stdio.h>
#include <string.h>

static const struct gd_kb_row *dll_row(const struct gd_kb *kb, const char *framework)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "frameworks");
    for (size_t i = 0; framework && i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *kind = gd_kb_str(row, "kind"), *fw = gd_kb_str(row, "framework");
        if (kind && fw && strcmp(kind, "dll_directories") == 0 && strcmp(fw, framework) == 0)
            return row;
    }
    return NULL;
}

/* The variable a framework reads for a directory it adds as "<VAR>\bin" (CuPy: CUDA_PATH), or
 * NULL. */
static const char *bin_variable(const struct gd_kb_row *row, char *buf, size_t size)
{
    for (size_t i = 0; row && i < gd_kb_list_len(row, "dirs"); i++) {
        const char *d = gd_kb_list_at(row, "dirs", i);
        const char *end = d ? strstr(d, "}/bin") : NULL;
        if (d && strncmp(d, "{env:", 5) == 0 && end && (end[5] == '\0' || end[5] == '|')) {
            snprintf(buf, size, "%.*s", (int)(end - d - 5), d + 5);
            return buf;
        }
    }
    return NULL;
}

static bool only_elsewhere(const struct gd_entity *lib)
{
    const struct gd_fact *path = gd_entity_fact(lib, "path");
    return path && path->state == GD_FACT_ABSENT && gd_fw_val(lib, "standard.path") &&
           gd_fw_val(lib, "framework");
}

/* "C:\tools\cuda\bin" -> "C:\tools\cuda" (the directory a <VAR>\bin variable names). */
static void parent(const char *dir, char *buf, size_t size)
{
    snprintf(buf, size, "%s", dir);
    size_t n = strlen(buf);
    while (n > 1 && (buf[n - 1] == '\\' || buf[n - 1] == '/'))
        buf[--n] = '\0';
    char *sep = strrchr(buf, '\\');
    char *slash = strrchr(buf, '/');
    if (slash > sep)
        sep = slash;
    if (sep && sep > buf)
        *sep = '\0';
}

static void one_framework(struct gd_report *r, const struct gd_kb *kb, const struct gd_entity *fw,
                          const struct gd_entity *const *libs, size_t nlibs)
{
    const char *id = gd_entity_id(fw);
    struct gd_buf names, dirs;
    gd_buf_init(&names, 8192);
    gd_buf_init(&dirs, 8192);
    const struct gd_entity *first = NULL;
    size_t n = 0;
    for (size_t k = 0; k < nlibs; k++) {
        if (strcmp(gd_fw_val(libs[k], "framework"), id) != 0)
            continue;
        if (!first)
            first = libs[k];
        gd_buf_printf(&names, "%s%s", n++ ? ", " : "", gd_fw_val(libs[k], "dll"));
        const char *dir = gd_fw_val(libs[k], "standard.dir");
        if (dir && !strstr(gd_buf_str(&dirs), dir))
            gd_buf_printf(&dirs, "%s%s", gd_buf_str(&dirs)[0] ? ", " : "", dir);
    }
    if (gd_buf_status(&names) == GD_ENOMEM || gd_buf_status(&dirs) == GD_ENOMEM)
        gd_report_out_of_memory(r);
    if (!first || gd_buf_status(&names) != GD_OK || gd_buf_status(&dirs) != GD_OK) {
        gd_buf_free(&names);
        gd_buf_free(&dirs);
        return;
    }
    const char *dist = gd_fw_val(fw, "dist"), *version = gd_fw_val(fw, "version");
    const char *framework = gd_fw_val(fw, "framework");
    const char *rule = gd_fw_val(first, "standard.rule");
    struct gd_finding *f = gd_finding_add(
        r, "framework.dll-only-on-path", GD_SEV_ERROR,
        "%s %s cannot be imported: %s %s only where Python 3.8 and later no longer look (%s)",
        dist ? dist : "?", version ? version : "", gd_buf_str(&names), n > 1 ? "are" : "is",
        rule ? rule : "PATH");
    gd_finding_set_why(
        f,
        "Python 3.8 and later load an extension module with LoadLibraryExW and "
        "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR: the DLLs it "
        "imports are looked for in the module's own directory, the application's (python.exe's), "
        "the directories added with os.add_dll_directory, and System32 - no longer in PATH or "
        "the current directory. %s's native modules import %s, found only in %s; the import "
        "fails with \"DLL load failed while importing ...: The specified module could not be "
        "found.\" It worked with Python 3.7 and earlier, which searched PATH.",
        dist ? dist : "The framework", gd_buf_str(&names), gd_buf_str(&dirs));
    gd_finding_add_evidence(f, gd_entity_fact(fw, "version"));
    for (size_t k = 0; k < nlibs; k++) {
        if (strcmp(gd_fw_val(libs[k], "framework"), id) != 0)
            continue;
        gd_finding_add_evidence(f, gd_entity_fact(libs[k], "path"));
        gd_finding_add_evidence(f, gd_entity_fact(libs[k], "standard.path"));
    }
    gd_finding_add_evidence(f, gd_entity_fact(fw, "windows.app_dir"));
    gd_finding_add_evidence(f, gd_entity_fact(fw, "windows.dll_directories"));
    /* One add_dll_directory per directory, in the order met. */
    const char *p = gd_buf_str(&dirs);
    while (*p) {
        size_t len = strcspn(p, ",");
        gd_finding_add_fix(f,
                           "Before `import %s`: `os.add_dll_directory(r\"%.*s\")` (Python 3.8+ "
                           "searches that directory for the DLLs of extension modules from then "
                           "on).",
                           framework ? framework : "...", (int)len, p);
        p += len;
        while (*p == ',' || *p == ' ')
            p++;
    }
    char var[64], up[4096];
    const struct gd_kb_row *row = dll_row(kb, framework);
    const char *dir = gd_fw_val(first, "standard.dir");
    if (bin_variable(row, var, sizeof var) && dir) {
        parent(dir, up, sizeof up);
        gd_finding_add_fix(f, "Or set %s=%s: %s adds %s\\bin itself before importing its modules.",
                           var, up, framework ? framework : "the framework", var);
        gd_fix_reference(f, kb, row);
    }
    gd_finding_add_fix(f,
                       "Or install the DLLs where that order looks: the directory of the module "
                       "that imports them (%s) or the application's.",
                       gd_fw_val(first, "needed_by") ? gd_fw_val(first, "needed_by") : "?");
    gd_buf_free(&names);
    gd_buf_free(&dirs);
}

void gd_rule_windows_dlls(struct gd_report *r, const struct gd_kb *kb)
{
    size_t nall = 0;
    struct gd_entity *const *all = gd_report_kind(r, "framework_dll", &nall);
    if (!nall)
        return;
    const struct gd_entity **libs = gd_calloc(nall, sizeof *libs);
    if (!libs) {
        gd_report_out_of_memory(r);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < nall; i++)
        if (only_elsewhere(all[i]))
            libs[n++] = all[i];
    /* Each framework once, in the order its first DLL was recorded. */
    for (size_t i = 0; i < n; i++) {
        const char *id = gd_fw_val(libs[i], "framework");
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(gd_fw_val(libs[k], "framework"), id) == 0;
        const struct gd_entity *fw = seen ? NULL : gd_report_entity(r, id);
        if (fw)
            one_framework(r, kb, fw, libs, n);
    }
    gd_free(libs);
}
