/* Environment variables: paths that do not exist, search paths that mix CUDA versions, GPUs
 * hidden by CUDA_VISIBLE_DEVICES, and values the reading program does not understand. */
#include "rules/rules.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "core/version.h"
#include "kb/kb.h"
#include "parse/visible_devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* finding-id: env.cuda-home-missing finding-id: env.cuda-path-missing
 * finding-id: env.cudnn-path-missing (the id is built from the variable name) */
static void missing_dir(struct gd_report *r, const char *var, const char *why)
{
    char fact[64];
    snprintf(fact, sizeof fact, "%s.exists", var);
    const struct gd_fact *exists = gd_rf(r, "env", fact);
    if (!gd_fact_is_false(exists))
        return;
    const char *value = gd_rv(r, "env", var);
    char id[64];
    snprintf(id, sizeof id, "env.%s-missing", var);
    for (char *p = id; *p; p++)
        *p = *p == '_' ? '-' : gd_to_lower(*p);
    struct gd_finding *f = gd_finding_add(r, id, GD_SEV_WARNING,
                                          "%s points to %s, which is not a directory", var, value);
    gd_finding_set_why(f, "%s", why);
    gd_finding_add_evidence(f, gd_rf(r, "env", var));
    gd_finding_add_evidence(f, exists);
    if (gd_rules_windows(r)) {
        /* Windows: the toolkits the installer put side by side (win_cuda.c). */
        int cudnn = strcmp(var, "CUDNN_PATH") == 0;
        const char *versions = cudnn ? NULL : gd_rv(r, "cuda_toolkits", "versions");
        if (versions) {
            gd_finding_add_evidence(f, gd_rf(r, "cuda_toolkits", "versions"));
            gd_finding_add_fix(f,
                               "Point it at an installed toolkit (this machine has CUDA %s, "
                               "under C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\vX.Y) "
                               "with `setx %s \"<directory>\" /M` in an administrator prompt "
                               "(or in System Properties > Environment Variables), or delete it; "
                               "then open a new terminal.",
                               versions, var);
        } else {
            gd_finding_add_fix(f,
                               "Point it at an installed %s with `setx %s \"<directory>\" /M` in "
                               "an administrator prompt (or in System Properties > Environment "
                               "Variables), or delete it; then open a new terminal.",
                               cudnn ? "cuDNN" : "CUDA toolkit", var);
        }
        return;
    }
    const char *nvcc_dir = gd_rv(r, "env", "nvcc.path");
    const char *nvcc_version = gd_rv(r, "env", "nvcc.cuda_version");
    if (strcmp(var, "CUDNN_PATH") != 0 && nvcc_dir && gd_str_ends_with(nvcc_dir, "/bin/nvcc"))
        gd_finding_add_fix(f,
                           "Point it at the toolkit whose nvcc is on PATH%s%s: `export %s=%.*s`.",
                           nvcc_version ? ", CUDA " : "", nvcc_version ? nvcc_version : "", var,
                           (int)(strlen(nvcc_dir) - strlen("/bin/nvcc")), nvcc_dir);
    else
        gd_finding_add_fix(f,
                           "Point it at an installed %s (list candidates with `ls -d "
                           "/usr/local/cuda*`), or `unset %s`.",
                           strcmp(var, "CUDNN_PATH") == 0 ? "cuDNN" : "CUDA toolkit", var);
}

struct entry {
    const struct gd_entity *e;
    const char *path, *cuda;
};

/* Entries of LD_LIBRARY_PATH, in order, from the path_entry entities. */
static size_t path_entries(const struct gd_report *r, struct entry *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < gd_report_entity_count(r) && n < max; i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(e), "path_entry") != 0 ||
            !gd_str_starts_with(gd_entity_id(e), "LD_LIBRARY_PATH["))
            continue;
        out[n].e = e;
        out[n].path = gd_fact_known_value(gd_entity_fact(e, "path"));
        out[n].cuda = gd_fact_known_value(gd_entity_fact(e, "cuda_version"));
        n++;
    }
    return n;
}

static bool same_minor(const char *a, const char *b)
{
    struct gd_version va, vb;
    return gd_version_parse(a, &va) == GD_OK && gd_version_parse(b, &vb) == GD_OK &&
           gd_version_cmp_parts(&va, &vb, 2) == 0;
}

static void ld_library_path(struct gd_report *r)
{
    struct entry entries[256];
    size_t n = path_entries(r, entries, 256);
    struct gd_finding *missing = NULL, *empty = NULL;
    const char *first_cuda = NULL;
    bool mixed = false;
    for (size_t i = 0; i < n; i++) {
        const struct gd_fact *exists = gd_entity_fact(entries[i].e, "exists");
        if (gd_fact_is_false(exists)) {
            if (!missing) {
                missing = gd_finding_add(r, "env.ld-library-path-missing-dir", GD_SEV_INFO,
                                         "LD_LIBRARY_PATH names directories that do not exist");
                gd_finding_set_why(missing, "Harmless to the loader, but usually a typo or a "
                                            "removed CUDA version: the libraries meant to be "
                                            "found there are not.");
                gd_finding_add_fix(missing, "Remove them from LD_LIBRARY_PATH, or install what "
                                            "they were meant to hold.");
            }
            gd_finding_add_evidence(missing, gd_entity_fact(entries[i].e, "path"));
            gd_finding_add_evidence(missing, exists);
        }
        if (gd_fact_is_true(gd_entity_fact(entries[i].e, "empty")) && !empty) {
            empty = gd_finding_add(r, "env.ld-library-path-empty-entry", GD_SEV_INFO,
                                   "LD_LIBRARY_PATH has an empty entry, which means the current "
                                   "directory");
            gd_finding_set_why(empty, "The loader then searches whatever directory a program is "
                                      "started from, so a stray libcudart.so there is picked up "
                                      "first (ld.so(8)).");
            gd_finding_add_evidence(empty, gd_entity_fact(entries[i].e, "path"));
            gd_finding_add_fix(empty, "Remove the leading, trailing or doubled ':'.");
        }
        if (entries[i].cuda) {
            if (!first_cuda)
                first_cuda = entries[i].cuda;
            else if (!same_minor(first_cuda, entries[i].cuda))
                mixed = true;
        }
    }
    if (!mixed)
        return;
    /* Keep the toolkit CUDA_HOME names when it is one of them, else the one searched first. */
    const char *keep = first_cuda;
    const char *home = gd_rv(r, "env", "CUDA_HOME.cuda_version");
    for (size_t i = 0; home && i < n; i++)
        if (entries[i].cuda && same_minor(entries[i].cuda, home))
            keep = entries[i].cuda;
    struct gd_buf versions, value;
    gd_buf_init(&versions, 4096);
    gd_buf_init(&value, 64 * 1024);
    for (size_t i = 0; i < n; i++) {
        if (entries[i].cuda && !strstr(gd_buf_str(&versions), entries[i].cuda))
            gd_buf_printf(&versions, "%s%s", versions.len ? " and " : "", entries[i].cuda);
        if (entries[i].path && (!entries[i].cuda || same_minor(entries[i].cuda, keep)))
            gd_buf_printf(&value, "%s%s", value.len ? ":" : "", entries[i].path);
    }
    /* A list cut short by out of memory would make a wrong title and fix. */
    if (gd_buf_status(&versions) == GD_ENOMEM || gd_buf_status(&value) == GD_ENOMEM)
        gd_report_out_of_memory(r);
    struct gd_finding *f = gd_finding_add(r, "env.ld-library-path-mixed-cuda", GD_SEV_WARNING,
                                          "LD_LIBRARY_PATH mixes CUDA %s", gd_buf_str(&versions));
    gd_finding_set_why(f, "A program then loads libcudart from one toolkit and cuBLAS, cuFFT or "
                          "cuDNN from another: TensorFlow logs \"Could not load dynamic library\" "
                          "for the versions it does not find, others fail with \"undefined "
                          "symbol\" or CUBLAS_STATUS_NOT_INITIALIZED.");
    for (size_t i = 0; i < n; i++) {
        if (!entries[i].cuda)
            continue;
        gd_finding_add_evidence(f, gd_entity_fact(entries[i].e, "path"));
        gd_finding_add_evidence(f, gd_entity_fact(entries[i].e, "cuda_version"));
    }
    gd_finding_add_evidence(f, gd_rf(r, "env", "CUDA_HOME.cuda_version"));
    gd_finding_add_fix(f, "Keep one toolkit (CUDA %s%s): `export LD_LIBRARY_PATH=%s`.", keep,
                       home && same_minor(home, keep) ? ", the one CUDA_HOME names" : "",
                       gd_buf_str(&value));
    gd_buf_free(&versions);
    gd_buf_free(&value);
}

/* CUDA's rules (src/parse/visible_devices.h): the list stops at the first invalid entry, a
 * repeated entry or an empty value hides every GPU. Matched against the machine's GPUs when
 * they are known (visible_devices.visible_entries), else read from the text alone. */
static bool hides_all(const struct gd_report *r, const char *v)
{
    long long visible;
    if (gd_fact_int_of(gd_rf(r, "visible_devices", "visible_entries"), &visible))
        return visible == 0;
    struct gd_vd_list list;
    gd_visible_devices_parse(v, strlen(v), &list);
    return list.n == 0;
}

static void visible_devices(struct gd_report *r)
{
    const char *v = gd_rv(r, "env", "CUDA_VISIBLE_DEVICES");
    if (!v || !hides_all(r, v))
        return;
    struct gd_finding *f = gd_finding_add(r, "env.cuda-visible-devices-hides-all", GD_SEV_WARNING,
                                          "CUDA_VISIBLE_DEVICES=\"%s\" hides every GPU", v);
    gd_finding_set_why(f, "CUDA shows only the devices listed before the first invalid entry, "
                          "none when an entry repeats, and none for an empty value: programs "
                          "report \"no CUDA-capable device is detected\", "
                          "torch.cuda.device_count() is 0 and TensorFlow lists no GPU, although "
                          "the driver works.");
    gd_finding_add_evidence(f, gd_rf(r, "env", "CUDA_VISIBLE_DEVICES"));
    gd_finding_add_evidence(f, gd_rf(r, "visible_devices", "stop"));
    gd_finding_add_fix(f, "`unset CUDA_VISIBLE_DEVICES`, or list the GPUs to use: `export "
                          "CUDA_VISIBLE_DEVICES=0` (indices or GPU- UUIDs from `nvidia-smi -L`).");
    if (strcmp(v, "NoDevFiles") == 0)
        gd_finding_add_fix(f, "Slurm sets \"NoDevFiles\" when the job was given no GPU: request "
                              "one with `--gres=gpu:1` (or `--gpus=1`).");
}

static void nvcc_mismatch(struct gd_report *r)
{
    const char *nvcc = gd_rv(r, "env", "nvcc.cuda_version");
    const char *home = gd_rv(r, "env", "CUDA_HOME.cuda_version");
    if (!nvcc || !home || same_minor(nvcc, home))
        return;
    struct gd_finding *f =
        gd_finding_add(r, "env.nvcc-mismatch", GD_SEV_WARNING,
                       "nvcc on PATH is CUDA %s but CUDA_HOME is CUDA %s", nvcc, home);
    gd_finding_set_why(f, "Builds of CUDA extensions (PyTorch's cpp_extension, pip packages "
                          "compiled from source) use CUDA_HOME's headers with the other nvcc and "
                          "fail, or produce a module that needs the wrong libcudart.");
    gd_finding_add_evidence(f, gd_rf(r, "env", "nvcc.path"));
    gd_finding_add_evidence(f, gd_rf(r, "env", "nvcc.cuda_version"));
    gd_finding_add_evidence(f, gd_rf(r, "env", "CUDA_HOME"));
    gd_finding_add_evidence(f, gd_rf(r, "env", "CUDA_HOME.cuda_version"));
    gd_finding_add_fix(f, "Put CUDA_HOME's compiler first: `export PATH=\"$CUDA_HOME/bin:$PATH\"`, "
                          "or set CUDA_HOME to the toolkit of the nvcc you want.");
}

static bool valid_fraction(const char *v)
{
    char *end = NULL;
    double d = strtod(v, &end);
    return end && end != v && *end == '\0' && d > 0.0 && d <= 1.0;
}

/* PYTORCH_CUDA_ALLOC_CONF: "key:value,key:value", where a value may be a bracketed list with
 * commas of its own (roundup_power2_divisions:[256:1,512:2]); keys must be ones the caching
 * allocator knows. Returns the offending item (copied into `buf`) or NULL. */
static const char *bad_alloc_option(const struct gd_kb_row *row, const char *v, char *buf,
                                    size_t size)
{
    const char *p = v;
    while (*p) {
        const char *start = p;
        int depth = 0;
        while (*p && (depth > 0 || *p != ',')) {
            if (*p == '[')
                depth++;
            else if (*p == ']' && depth > 0)
                depth--;
            p++;
        }
        struct gd_span item = gd_span_trim((struct gd_span){ start, (size_t)(p - start) });
        if (*p == ',')
            p++;
        if (item.n == 0)
            continue;
        gd_span_copy(item, buf, size);
        struct gd_span key, val;
        if (!gd_span_split(item, ':', &key, &val))
            return buf;
        char name[96];
        gd_span_copy(gd_span_trim(key), name, sizeof name);
        if (!gd_kb_list_has(row, "keys", name))
            return buf;
        if (depth != 0)
            return buf; /* an unclosed '[' */
    }
    return NULL;
}

/* An integer, possibly signed (TensorFlow reads log levels with strtol-like parsing). */
static bool is_integer(const char *v)
{
    if (*v == '-' || *v == '+')
        v++;
    if (!*v)
        return false;
    for (; *v; v++)
        if (!gd_is_digit(*v))
            return false;
    return true;
}

static bool in_values(const struct gd_kb_row *row, const char *v, bool fold)
{
    size_t n = gd_kb_list_len(row, "values");
    for (size_t i = 0; i < n; i++) {
        const char *item = gd_kb_list_at(row, "values", i);
        if (item && (fold ? gd_str_ieq(item, v) : strcmp(item, v) == 0))
            return true;
    }
    return false;
}

static void invalid_value(struct gd_report *r, const struct gd_kb_table *t,
                          const struct gd_kb_row *row, const char *var, const char *v,
                          const char *expected)
{
    const char *reader = gd_kb_str(row, "read_by");
    const char *effect = gd_kb_str(row, "invalid");
    struct gd_finding *f = gd_finding_add(r, "env.invalid-value", GD_SEV_WARNING,
                                          "%s=\"%s\" is not a value %s accepts", var, v,
                                          reader ? reader : "its reader");
    gd_finding_set_why(f, "%s Expected: %s.", effect ? effect : "The setting does not take effect.",
                       expected);
    gd_finding_add_evidence(f, gd_rf(r, "env", var));
    gd_finding_add_fix(f, "Set it to one of: %s, or unset it.", expected);
    const char *url = gd_kb_source_url(t, gd_kb_row_source(row));
    if (url)
        gd_finding_add_fix(f, "Reference: %s", url);
}

static void alloc_conf(struct gd_report *r, const struct gd_kb_row *row, const char *var,
                       const char *v)
{
    char bad[256];
    if (!bad_alloc_option(row, v, bad, sizeof bad))
        return;
    struct gd_finding *f =
        gd_finding_add(r, "env.pytorch-alloc-conf-invalid", GD_SEV_ERROR,
                       "%s has an option PyTorch does not know: \"%s\"", var, bad);
    const char *effect = gd_kb_str(row, "invalid");
    gd_finding_set_why(f,
                       "PyTorch parses it at the first CUDA allocation and fails, so every GPU "
                       "program stops at its first tensor. %s",
                       effect ? effect : "");
    gd_finding_add_evidence(f, gd_rf(r, "env", var));
    struct gd_buf keys;
    gd_buf_init(&keys, 4096);
    for (size_t k = 0; k < gd_kb_list_len(row, "keys"); k++)
        gd_buf_printf(&keys, "%s%s", k ? ", " : "", gd_kb_list_at(row, "keys", k));
    if (gd_buf_status(&keys) == GD_ENOMEM)
        gd_report_out_of_memory(r);
    gd_finding_add_fix(f,
                       "Write it as option:value pairs separated by commas, with options among: "
                       "%s (older PyTorch releases know fewer).",
                       gd_buf_str(&keys));
    gd_buf_free(&keys);
}

/* A variable that rejects nothing but is switched off only by exact words: a value that reads
 * as "off" to a person but is not one of them leaves the feature on. */
static void disable_words(struct gd_report *r, const struct gd_kb_table *t,
                          const struct gd_kb_row *row, const char *var, const char *v)
{
    static const char *const offish[] = { "false", "no", "off", "0", "n", "disable", "disabled" };
    bool looks_off = false;
    for (size_t i = 0; i < sizeof offish / sizeof *offish; i++)
        if (gd_str_ieq(v, offish[i]))
            looks_off = true;
    if (!looks_off || gd_kb_list_has(row, "disables_with", v))
        return;
    struct gd_buf words;
    gd_buf_init(&words, 1024);
    for (size_t k = 0; k < gd_kb_list_len(row, "disables_with"); k++)
        gd_buf_printf(&words, "%s%s", k ? ", " : "", gd_kb_list_at(row, "disables_with", k));
    if (gd_buf_status(&words) == GD_ENOMEM)
        gd_report_out_of_memory(r);
    const char *reader = gd_kb_str(row, "read_by");
    struct gd_finding *f = gd_finding_add(r, "env.invalid-value", GD_SEV_WARNING,
                                          "%s=\"%s\" does not switch it off for %s", var, v,
                                          reader ? reader : "its reader");
    gd_finding_set_why(f,
                       "Only %s switch it off; every other value, this one included, switches "
                       "it on.",
                       gd_buf_str(&words));
    gd_finding_add_evidence(f, gd_rf(r, "env", var));
    gd_finding_add_fix(f, "Write one of: %s.", gd_buf_str(&words));
    const char *url = gd_kb_source_url(t, gd_kb_row_source(row));
    if (url)
        gd_finding_add_fix(f, "Reference: %s", url);
    gd_buf_free(&words);
}

static void values(struct gd_report *r, const struct gd_kb *kb)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "env_values");
    size_t n = gd_kb_row_count(t);
    for (size_t i = 0; i < n; i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *var = gd_kb_str(row, "variable");
        const char *v = var ? gd_rv(r, "env", var) : NULL;
        if (!v)
            continue;
        const char *kind = gd_kb_str(row, "kind");
        bool fold = gd_kb_str(row, "case_insensitive") &&
                    strcmp(gd_kb_str(row, "case_insensitive"), "true") == 0;
        size_t nvalues = gd_kb_list_len(row, "values");
        struct gd_buf expected;
        gd_buf_init(&expected, 4096);
        for (size_t k = 0; k < nvalues; k++)
            gd_buf_printf(&expected, "%s%s", k ? ", " : "", gd_kb_list_at(row, "values", k));
        if (gd_buf_status(&expected) == GD_ENOMEM)
            gd_report_out_of_memory(r);
        bool valid = true;
        if (nvalues && !in_values(row, v, fold)) {
            invalid_value(r, t, row, var, v, gd_buf_str(&expected));
            valid = false;
        } else if (kind && strcmp(kind, "fraction") == 0 && !valid_fraction(v)) {
            invalid_value(r, t, row, var, v, "a number greater than 0 and at most 1, e.g. .75");
            valid = false;
        } else if (kind && strcmp(kind, "integer") == 0 && !is_integer(v)) {
            invalid_value(r, t, row, var, v, "an integer");
            valid = false;
        } else if (kind && strcmp(kind, "alloc_conf") == 0) {
            alloc_conf(r, row, var, v);
        }
        if (gd_kb_list_len(row, "disables_with"))
            disable_words(r, t, row, var, v);
        const char *hides = gd_kb_str(row, "hides_warnings_at");
        if (hides && valid && atoi(v) >= atoi(hides)) {
            struct gd_finding *f = gd_finding_add(r, "env.tf-warnings-hidden", GD_SEV_INFO,
                                                  "%s=%s hides TensorFlow's warnings", var, v);
            gd_finding_set_why(f, "TensorFlow explains an unused GPU in warnings (\"Could not load "
                                  "dynamic library ...\", \"Cannot dlopen some GPU libraries\"); "
                                  "at this level they are not printed.");
            gd_finding_add_evidence(f, gd_rf(r, "env", var));
            gd_finding_add_fix(f, "While diagnosing, `unset %s` (or set it to 0).", var);
        }
        gd_buf_free(&expected);
    }
}

void gd_rule_env(struct gd_report *r, const struct gd_kb *kb)
{
    missing_dir(r, "CUDA_HOME",
                "Tools that locate CUDA through it fail: PyTorch's cpp_extension stops with "
                "\"CUDA_HOME environment variable is not set\" or uses the wrong path, and "
                "builds cannot find nvcc or cuda_runtime.h.");
    missing_dir(r, "CUDA_PATH",
                "Tools that locate CUDA through it (CuPy, CMake's FindCUDAToolkit, cuda-python) "
                "look for headers and libraries in a directory that does not exist.");
    missing_dir(r, "CUDNN_PATH",
                "Builds and tools that locate cuDNN through it cannot find cudnn.h or "
                "libcudnn.");
    ld_library_path(r);
    visible_devices(r);
    nvcc_mismatch(r);
    values(r, kb);
}
