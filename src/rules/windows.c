/*
 * Native Windows.
 *
 * gd_rule_windows: TensorFlow after its last release with GPU support there (2.10, the
 * `last_native_windows_gpu` fact of tf_builds) runs on the CPU only; GPU users stay below it or
 * move to WSL2. The release, the commands and the WSL requirements all come from tf_builds, so a
 * --kb table can change them. A host counts as native Windows when `host.os.id` is "windows"
 * (what a probe of a Windows tree records) and it is not WSL.
 *
 * gd_rule_win_driver (Windows only): the driver's nvcuda.dll and nvml.dll (src/probe/win_driver.c).
 * gd_rule_win_cuda (Windows only): what the Windows probes found of CUDA and cuDNN
 * (src/probe/win_cuda.c, src/probe/env.c) against what TensorFlow up to 2.10 was built and tested
 * with, the DLL cuDNN 8.3+ needs beside it, and CUDA_PATH_V<major>_<minor> variables that name a
 * directory that is not there or a toolkit of another version. The DLL names, the versions and
 * the dependency all come from windows_cuda and tf_builds.
 */
#include "rules/frameworks.h"

#include "core/buf.h"
#include "core/str.h"
#include "kb/kb.h"
#include "kb/windows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gd_kb_row *tf_row(const struct gd_kb *kb, const char *kind, const char *field,
                                      const char *value)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "tf_builds");
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *k = gd_kb_str(row, "kind"), *v = field ? gd_kb_str(row, field) : NULL;
        if (k && strcmp(k, kind) == 0 && (!field || (v && strcmp(v, value) == 0)))
            return row;
    }
    return NULL;
}

static void commands(struct gd_finding *f, const struct gd_kb_row *row, const char *lead)
{
    char text[1024];
    size_t len = 0;
    text[0] = '\0';
    for (size_t k = 0; k < gd_kb_list_len(row, "commands"); k++) {
        const char *c = gd_kb_list_at(row, "commands", k);
        size_t n = c ? strlen(c) : 0;
        if (!c || len + n + 8 >= sizeof text)
            continue;
        memcpy(text + len, len ? " && " : "", len ? 4 : 0);
        len += len ? 4 : 0;
        memcpy(text + len, c, n + 1);
        len += n;
    }
    if (len)
        gd_finding_add_fix(f, "%s `%s`.", lead, text);
}

/* Whether an earlier framework entity of the same environment already gave `id` for
 * TensorFlow (tensorflow and its Windows build tensorflow-intel are one install). */
static bool env_done(const struct gd_report *r, const struct gd_entity *fw, size_t upto)
{
    const char *env = gd_fw_val(fw, "env");
    for (size_t i = 0; env && i < upto; i++) {
        const struct gd_entity *o = gd_report_entity_at(r, i);
        const char *framework = gd_fw_val(o, "framework"), *oenv = gd_fw_val(o, "env");
        if (strcmp(gd_entity_kind(o), "framework") == 0 && framework &&
            strcmp(framework, "tensorflow") == 0 && gd_fw_judged_role(o) && oenv &&
            strcmp(oenv, env) == 0)
            return true;
    }
    return false;
}

/* The steps that move TensorFlow to WSL2: install WSL2 (tf_builds: wsl_setup), keep the Windows
 * driver, install the Linux build there and check that it sees the GPU (pip_requirements of
 * the and-cuda page). */
static void wsl_steps(struct gd_report *r, struct gd_finding *f, const struct gd_kb *kb,
                      const struct gd_kb_row *wsl)
{
    const struct gd_kb_row *setup = tf_row(kb, "wsl_setup", NULL, NULL);
    const char *where = setup ? gd_kb_str(setup, "where") : NULL;
    if (setup)
        commands(f, setup,
                 gd_report_printf(r, "Or use WSL2, where the Linux build has the GPU: in %s run",
                                  where ? where : "PowerShell"));
    const char *driver = gd_kb_str(wsl, "driver_wsl");
    gd_finding_add_fix(f,
                       "Keep the NVIDIA driver on Windows%s%s%s: WSL2 uses it; install no Linux "
                       "NVIDIA driver inside WSL.",
                       driver ? " (" : "", driver ? driver : "", driver ? " or newer)" : "");
    commands(f, wsl, setup ? "Then in the Ubuntu shell:" : "Or use WSL2, and there:");
    const char *verify = gd_kb_str(wsl, "verify");
    if (verify)
        gd_finding_add_fix(f, "Check there that `%s` lists the GPU.", verify);
    gd_fix_reference(f, kb, setup);
}

void gd_rule_windows(struct gd_report *r, const struct gd_kb *kb)
{
    const char *os = gd_rv(r, "host", "os.id");
    if (!os || strcmp(os, "windows") != 0 || gd_fact_is_true(gd_rf(r, "wsl", "detected")))
        return;
    struct gd_version last;
    const struct gd_kb_row *fact = NULL;
    if (gd_kb_tf_last_native_windows_gpu(kb, &last, &fact) != GD_OK)
        return;
    const struct gd_fact *count = gd_rf(r, "gpus", "count");
    bool no_gpu = count && count->state == GD_FACT_KNOWN && count->int_value == 0;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *fw = gd_report_entity_at(r, i);
        const char *framework = gd_fw_val(fw, "framework"), *version = gd_fw_val(fw, "version");
        struct gd_version v;
        if (strcmp(gd_entity_kind(fw), "framework") != 0 || !framework ||
            strcmp(framework, "tensorflow") != 0 || !gd_fw_judged_role(fw) || !version ||
            gd_version_parse(version, &v) != GD_OK || gd_version_cmp_parts(&v, &last, 2) <= 0 ||
            env_done(r, fw, i))
            continue;
        struct gd_finding *f = gd_finding_add(
            r, "framework.tf-windows-no-gpu", no_gpu ? GD_SEV_INFO : GD_SEV_WARNING,
            "%s %s on native Windows has no GPU support: the last release with it there is %s",
            gd_fw_val(fw, "dist"), version, last.text);
        gd_finding_set_why(f,
                           "TensorFlow after %s builds no GPU support for native Windows: "
                           "tf.config.list_physical_devices('GPU') is empty and everything "
                           "runs on the CPU, without an error.",
                           last.text);
        gd_finding_add_evidence(f, gd_rf(r, "host", "os.id"));
        gd_finding_add_evidence(f, gd_entity_fact(fw, "version"));
        gd_finding_add_evidence(f, gd_entity_fact(fw, "env"));
        const struct gd_kb_row *win = tf_row(kb, "windows_native_gpu", NULL, NULL);
        const struct gd_kb_row *wsl = tf_row(kb, "pip_requirements", "and_cuda", "true");
        if (win)
            commands(f, win,
                     "To keep native Windows, install a release that still has it (with "
                     "its CUDA and cuDNN from conda):");
        if (wsl)
            wsl_steps(r, f, kb, wsl);
        gd_fix_reference(f, kb, fact);
        gd_fix_reference(f, kb, win);
        gd_fix_reference(f, kb, wsl);
    }
}

/* ---- the driver ----------------------------------------------------------------------------- */

void gd_rule_win_driver(struct gd_report *r, const struct gd_kb *kb)
{
    const struct gd_fact *path = gd_rf(r, "driver", "nvcuda.path");
    const struct gd_fact *nvml = gd_rf(r, "driver", "nvml.path");
    const struct gd_fact *version = gd_rf(r, "driver", "nvcuda.version");
    /* The live probe loaded an nvcuda.dll that answered (one on PATH, beside the program): a
     * driver runs, whatever System32 lacks; its facts say which file it was. */
    long long init;
    bool answers = gd_fact_int_of(gd_rf(r, "cuda_driver", "init.code"), &init) && init == 0;
    if (path && path->state == GD_FACT_ABSENT && !answers) {
        struct gd_finding *f = gd_finding_add(r, "windows.driver-not-installed", GD_SEV_ERROR,
                                              "The NVIDIA driver is not installed (no nvcuda.dll)");
        gd_finding_set_why(f, "nvcuda.dll is the CUDA driver that every CUDA program and framework "
                              "loads first: without it the CUDA runtime reports "
                              "cudaErrorInsufficientDriver, TensorFlow lists no GPU and "
                              "torch.cuda.is_available() is False.");
        gd_finding_add_evidence(f, path);
        gd_finding_add_evidence(f, nvml);
        gd_fix_install_driver(f, r, kb);
        return;
    }
    if (!gd_fact_known_value(path))
        return;
    if (nvml && nvml->state == GD_FACT_ABSENT) {
        struct gd_finding *f = gd_finding_add(r, "windows.nvml-missing", GD_SEV_WARNING,
                                              "nvcuda.dll is installed but nvml.dll is not");
        gd_finding_set_why(f, "nvidia-smi and every program that reads the GPUs through NVML "
                              "(pynvml, gpustat, the frameworks' memory statistics) fail to find "
                              "nvml.dll; CUDA itself works. A partial or damaged driver install.");
        gd_finding_add_evidence(f, nvml);
        gd_finding_add_evidence(f, path);
        gd_fix_install_driver(f, r, kb);
    }
    const char *v = gd_fact_known_value(version);
    struct gd_finding *f = gd_finding_add(
        r, "windows.driver-ok", GD_SEV_OK, "NVIDIA driver %s is installed (nvcuda.dll%s)",
        v ? v : "of unknown version", gd_fact_known_value(nvml) ? " and nvml.dll" : "");
    gd_finding_add_evidence(f, path);
    gd_finding_add_evidence(f, gd_rf(r, "driver", "nvcuda.file_version"));
    gd_finding_add_evidence(f, version);
    gd_finding_add_evidence(f, nvml);
}

/* ---- CUDA, cuDNN and TensorFlow's DLLs ------------------------------------------------------ */

struct machine_cuda {
    const struct gd_entity *toolkits[32];
    size_t ntoolkits;
    const struct gd_entity *cudnns[32];
    size_t ncudnns;
};

static void machine_cuda_of(const struct gd_report *r, struct machine_cuda *m)
{
    memset(m, 0, sizeof *m);
    size_t n = 0;
    struct gd_entity *const *tk = gd_report_kind(r, "cuda_toolkit", &n);
    for (size_t i = 0; i < n && m->ntoolkits < 32; i++)
        m->toolkits[m->ntoolkits++] = tk[i];
    struct gd_entity *const *cu = gd_report_kind(r, "cudnn_dir", &n);
    for (size_t i = 0; i < n && m->ncudnns < 32; i++)
        m->cudnns[m->ncudnns++] = cu[i];
}

static bool parse(const char *text, struct gd_version *v)
{
    return text && gd_version_parse(text, v) == GD_OK;
}

/* The CUDA and cuDNN TensorFlow `fw` (<= 2.10, a CUDA build) was built and tested with: its own
 * build_info (CUDA 11.2, cuDNN 8), the minor of the cuDNN from the tested configuration of its
 * release on Windows, else from how TensorFlow says to install the last native GPU releases
 * (CUDA 11.2 with cuDNN 8.1.0) when that names the same CUDA. */
static bool tested_of(const struct gd_kb *kb, const struct gd_entity *fw,
                      const struct gd_version *tf, struct gd_version *cuda,
                      struct gd_version *cudnn, const struct gd_kb_row **row,
                      const struct gd_fact **from)
{
    *row = NULL;
    *from = NULL;
    bool has_cuda = parse(gd_fw_val(fw, "build.cuda"), cuda);
    bool has_cudnn = parse(gd_fw_val(fw, "build.cudnn"), cudnn);
    if (has_cuda)
        *from = gd_entity_fact(fw, "build.cuda");
    struct gd_kb_tf_build b;
    if (gd_kb_tf_build(kb, tf, GD_KB_OS_WINDOWS, &b) == GD_OK &&
        (!has_cuda || gd_version_has_prefix(cuda, &b.cuda) ||
         gd_version_has_prefix(&b.cuda, cuda))) {
        if (!has_cuda)
            *cuda = b.cuda;
        if (!has_cudnn || gd_version_has_prefix(&b.cudnn, cudnn))
            *cudnn = b.cudnn;
        *row = b.row;
        return true;
    }
    const struct gd_kb_row *win = tf_row(kb, "windows_native_gpu", NULL, NULL);
    struct gd_version below, wc, wd;
    if (win && parse(gd_kb_str(win, "tensorflow_below"), &below) &&
        gd_version_cmp(tf, &below) < 0 && parse(gd_kb_str(win, "cuda"), &wc) &&
        parse(gd_kb_str(win, "cudnn"), &wd) &&
        (!has_cuda || gd_version_cmp_parts(cuda, &wc, 2) == 0) &&
        (!has_cudnn || gd_version_has_prefix(&wd, cudnn))) {
        *cuda = wc;
        *cudnn = wd;
        *row = win;
        return true;
    }
    return has_cuda && has_cudnn;
}

/* "11.2 (C:/...), 12.3 (...)" of the toolkits. */
static const char *toolkit_list(struct gd_report *r, const struct machine_cuda *m)
{
    struct gd_buf b;
    gd_buf_init(&b, 8192);
    for (size_t i = 0; i < m->ntoolkits; i++) {
        const char *v = gd_fw_val(m->toolkits[i], "version");
        gd_buf_printf(&b, "%s%s (%s)", i ? ", " : "", v ? v : "version unknown",
                      gd_fw_val(m->toolkits[i], "path"));
    }
    const char *out = gd_report_strdup(r, gd_buf_str(&b));
    if (gd_buf_status(&b) == GD_ENOMEM)
        gd_report_out_of_memory(r);
    gd_buf_free(&b);
    return out;
}

static void tf_cuda(struct gd_report *r, const struct gd_kb *kb, const struct gd_entity *fw,
                    const struct gd_version *tf, const struct machine_cuda *m)
{
    struct gd_version cuda, cudnn;
    const struct gd_kb_row *row;
    const struct gd_fact *from;
    if (!tested_of(kb, fw, tf, &cuda, &cudnn, &row, &from))
        return;
    const char *dist = gd_fw_val(fw, "dist"), *version = gd_fw_val(fw, "version");
    const struct gd_kb_row *dlls = NULL;
    gd_kb_win_framework_dlls(kb, "tensorflow", &cuda, &dlls);
    /* CUDA: a toolkit of the tested major.minor, else of its major (same DLL names), else
     * none. */
    const struct gd_entity *same = NULL, *major = NULL;
    for (size_t i = 0; i < m->ntoolkits; i++) {
        struct gd_version v;
        if (!parse(gd_fw_val(m->toolkits[i], "version"), &v))
            continue;
        if (gd_version_cmp_parts(&v, &cuda, 2) == 0 && !same)
            same = m->toolkits[i];
        if (v.parts[0] == cuda.parts[0] && !major)
            major = m->toolkits[i];
    }
    if (!same) {
        bool missing = !major;
        struct gd_finding *f =
            missing ? gd_finding_add(r, "windows.tf-cuda-untested", GD_SEV_ERROR,
                                     "%s %s needs CUDA %lu (built and tested with %s), but no "
                                     "CUDA %lu toolkit is installed",
                                     dist, version, cuda.parts[0], cuda.text, cuda.parts[0])
                    : gd_finding_add(r, "windows.tf-cuda-untested", GD_SEV_INFO,
                                     "%s %s was built and tested with CUDA %s; this machine has "
                                     "CUDA %s",
                                     dist, version, cuda.text, gd_fw_val(major, "version"));
        if (missing) {
            gd_finding_set_why(
                f,
                "TensorFlow loads the CUDA %lu DLLs by name (%s...): none of this machine's "
                "toolkits (%s) has them, so it logs \"Could not load dynamic library\" for "
                "each and runs on the CPU.",
                cuda.parts[0],
                dlls && gd_kb_list_len(dlls, "dlls") > 1 ? gd_kb_list_at(dlls, "dlls", 1)
                                                         : "cudart",
                m->ntoolkits ? toolkit_list(r, m) : "none found");
        } else {
            gd_finding_set_why(f,
                               "Every CUDA %lu toolkit ships the DLL names TensorFlow loads, so "
                               "it usually works; CUDA %s is the configuration TensorFlow "
                               "tested.",
                               cuda.parts[0], cuda.text);
        }
        gd_finding_add_evidence(f, gd_entity_fact(fw, "version"));
        gd_finding_add_evidence(f, from);
        gd_finding_add_evidence(f, gd_rf(r, "cuda_toolkits", "versions"));
        if (major)
            gd_finding_add_evidence(f, gd_entity_fact(major, "version"));
        if (missing && dlls) {
            struct gd_buf names;
            gd_buf_init(&names, 2048);
            for (size_t k = 0; k < gd_kb_list_len(dlls, "dlls"); k++) {
                const char *n = gd_kb_list_at(dlls, "dlls", k);
                if (!strchr(n, '{') && strcmp(n, "nvcuda.dll") != 0)
                    gd_buf_printf(&names, "%s%s", gd_buf_str(&names)[0] ? ", " : "", n);
            }
            gd_finding_add_fix(f, "TensorFlow %s loads %s.", version, gd_buf_str(&names));
            if (gd_buf_status(&names) == GD_ENOMEM)
                gd_report_out_of_memory(r);
            gd_buf_free(&names);
        }
        const struct gd_kb_row *win = tf_row(kb, "windows_native_gpu", NULL, NULL);
        if (missing && win)
            commands(f, win,
                     "TensorFlow's install for GPU on native Windows (its CUDA and cuDNN "
                     "from conda):");
        if (missing)
            gd_finding_add_fix(f,
                               "Or install the CUDA %s toolkit from NVIDIA's archive beside the "
                               "other versions (each has its own vX.Y directory and "
                               "CUDA_PATH_V variable), and put its bin directory first in PATH.",
                               cuda.text);
        gd_fix_reference(f, kb, row);
        gd_fix_reference(f, kb, dlls);
        gd_fix_reference(f, kb, win);
    }
    /* cuDNN: one of the build's major, not older than the tested minor (TensorFlow refuses an
     * older minor at start). */
    const struct gd_entity *found = NULL, *older = NULL;
    for (size_t i = 0; i < m->ncudnns; i++) {
        const char *maj = gd_fw_val(m->cudnns[i], "major");
        if (!maj || strtoul(maj, NULL, 10) != cudnn.parts[0])
            continue;
        struct gd_version v;
        if (parse(gd_fw_val(m->cudnns[i], "version"), &v) && cudnn.nparts >= 2 &&
            gd_version_cmp_parts(&v, &cudnn, 2) < 0) {
            if (!older)
                older = m->cudnns[i];
            continue;
        }
        found = m->cudnns[i];
        break;
    }
    if (found)
        return;
    struct gd_finding *f =
        older
            ? gd_finding_add(r, "windows.tf-cudnn-untested", GD_SEV_ERROR,
                             "%s %s was built with cuDNN %s; the cuDNN %lu on this machine is "
                             "older (%s)",
                             dist, version, cudnn.text, cudnn.parts[0], gd_fw_val(older, "version"))
            : gd_finding_add(r, "windows.tf-cudnn-untested", GD_SEV_ERROR,
                             "%s %s needs cuDNN %s (cudnn64_%lu.dll), but none is installed%s",
                             dist, version, cudnn.text, cudnn.parts[0],
                             m->ncudnns ? " (only other majors)" : "");
    gd_finding_set_why(f, older ? "TensorFlow refuses a cuDNN older than the one it was built with "
                                  "(\"Loaded runtime CuDNN library ... but source was compiled "
                                  "with ...\") and runs on the CPU."
                                : "TensorFlow loads cuDNN by the name of its major: without it, it "
                                  "logs \"Could not load dynamic library\" and runs on the CPU.");
    gd_finding_add_evidence(f, gd_entity_fact(fw, "version"));
    gd_finding_add_evidence(f, gd_entity_fact(fw, "build.cudnn"));
    if (older)
        gd_finding_add_evidence(f, gd_entity_fact(older, "version"));
    for (size_t i = 0; i < m->ncudnns && i < 4; i++)
        if (m->cudnns[i] != older)
            gd_finding_add_evidence(f, gd_entity_fact(m->cudnns[i], "dll"));
    const struct gd_kb_row *win = tf_row(kb, "windows_native_gpu", NULL, NULL);
    if (win)
        commands(f, win,
                 "TensorFlow's install for GPU on native Windows (its CUDA and cuDNN from "
                 "conda):");
    gd_fix_reference(f, kb, row);
    gd_fix_reference(f, kb, win);
}

/* cuDNN 8.3 to 8.x without zlibwapi.dll where Windows looks for it. */
static void cudnn_dependency(struct gd_report *r, const struct gd_kb *kb, const struct gd_entity *e)
{
    const char *major = gd_fw_val(e, "major");
    const struct gd_fact *zlib = gd_entity_fact(e, "zlibwapi.path");
    if (!major || !zlib || zlib->state != GD_FACT_ABSENT)
        return;
    struct gd_version v;
    const char *dll = NULL;
    const struct gd_kb_row *row = NULL;
    bool known = parse(gd_fw_val(e, "version"), &v) && v.nparts >= 2;
    if (known && gd_kb_win_cudnn_dependency(kb, &v, &dll, &row) != GD_OK)
        return; /* this release needs nothing beside it (8.2, 9.x) */
    if (!known) {
        /* Only the major is known: the range's lower end says which releases need it. */
        struct gd_version lo;
        char text[16];
        snprintf(text, sizeof text, "%s.99", major);
        if (!parse(text, &lo) || gd_kb_win_cudnn_dependency(kb, &lo, &dll, &row) != GD_OK)
            return;
    }
    const char *min = gd_kb_str(row, "cudnn_min");
    const char *where = gd_fw_val(e, "dll");
    struct gd_finding *f =
        known ? gd_finding_add(r, "windows.cudnn-zlib-missing", GD_SEV_ERROR,
                               "cuDNN %s needs %s, which is not where Windows looks for it", v.text,
                               dll)
              : gd_finding_add(r, "windows.cudnn-zlib-missing", GD_SEV_WARNING,
                               "cuDNN %s (release unknown) needs %s from %s on, and it is not "
                               "where Windows looks for it",
                               major, dll, min);
    gd_finding_set_why(f,
                       "cuDNN %s and later 8.x link zlib's %s, which NVIDIA does not ship with "
                       "cuDNN: loading cuDNN's sub-libraries fails (\"Could not locate %s\"), "
                       "and TensorFlow, PyTorch or CuPy stop at their first convolution.",
                       min, dll, dll);
    gd_finding_add_evidence(f, gd_entity_fact(e, "dll"));
    gd_finding_add_evidence(f, gd_entity_fact(e, "version"));
    gd_finding_add_evidence(f, zlib);
    gd_finding_add_fix(f,
                       "Install zlib's %s (the x64 build of the zlib DLL; NVIDIA's cuDNN "
                       "installation guide links it) into a directory on PATH, such as the "
                       "directory of %s when that is on PATH, or into C:\\Windows\\System32.",
                       dll, where ? gd_path_base(where) : "cuDNN's DLLs");
    gd_finding_add_fix(f, "For CuPy and other Python 3.8+ extension modules PATH is not searched: "
                          "there only System32 or python.exe's directory serve.");
    gd_fix_reference(f, kb, row);
}

/* CUDA_PATH_V<major>_<minor> that names no directory, or a toolkit of another version. */
static void cuda_path_versions(struct gd_report *r, const struct gd_kb *kb)
{
    const struct gd_entity *env = NULL;
    size_t n = 0;
    struct gd_entity *const *envs = gd_report_kind(r, "env", &n);
    if (n)
        env = envs[0];
    for (size_t i = 0; env && i < env->nfacts; i++) {
        const struct gd_fact *exists = env->facts[i];
        size_t len = strlen(exists->name);
        if (!gd_str_starts_with(exists->name, "CUDA_PATH_V") || len < 8 ||
            strcmp(exists->name + len - 7, ".exists") != 0)
            continue;
        char var[64], fact[96];
        snprintf(var, sizeof var, "%.*s", (int)(len - 7), exists->name);
        snprintf(fact, sizeof fact, "%s.version", var);
        const char *named = gd_rv(r, "env", fact);
        snprintf(fact, sizeof fact, "%s.cuda_version", var);
        const struct gd_fact *found = gd_rf(r, "env", fact);
        const char *value = gd_rv(r, "env", var);
        struct gd_version want, have;
        if (gd_fact_is_false(exists)) {
            struct gd_finding *f = gd_finding_add(
                r, "env.cuda-path-version-missing", GD_SEV_WARNING,
                "%s points to %s, which is not a directory", var, value ? value : "?");
            gd_finding_set_why(f,
                               "The CUDA %s installer sets %s to its toolkit; a directory that "
                               "is gone means that toolkit was uninstalled or moved, and "
                               "tools that pick a toolkit by this variable (CMake, build "
                               "scripts) fail.",
                               named ? named : "", var);
            gd_finding_add_evidence(f, gd_rf(r, "env", var));
            gd_finding_add_evidence(f, exists);
            gd_finding_add_fix(f,
                               "Reinstall CUDA %s, or remove the stale variable: `reg delete "
                               "\"HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session "
                               "Manager\\Environment\" /v %s` in an administrator prompt, "
                               "then open a new terminal.",
                               named ? named : "it", var);
        } else if (named && parse(named, &want) && gd_fact_known_value(found) &&
                   parse(gd_fact_known_value(found), &have) &&
                   gd_version_cmp_parts(&want, &have, 2) != 0) {
            struct gd_finding *f =
                gd_finding_add(r, "env.cuda-path-version-mismatch", GD_SEV_WARNING,
                               "%s points to a CUDA %s toolkit (%s), not CUDA %s", var,
                               gd_fact_known_value(found), value ? value : "?", named);
            gd_finding_set_why(f,
                               "The installer names the variable after the toolkit's version; "
                               "a tool that asks for CUDA %s through %s gets CUDA %s's headers "
                               "and DLLs.",
                               named, var, gd_fact_known_value(found));
            gd_finding_add_evidence(f, gd_rf(r, "env", var));
            gd_finding_add_evidence(f, found);
            gd_finding_add_fix(f,
                               "Point %s at the CUDA %s toolkit (C:\\Program Files\\NVIDIA GPU "
                               "Computing Toolkit\\CUDA\\v%s by default) with `setx %s \"...\" "
                               "/M` in an administrator prompt, or remove it when that toolkit is "
                               "not installed; then open a new terminal.",
                               var, named, named, var);
        }
    }
    (void)kb;
}

void gd_rule_win_cuda(struct gd_report *r, const struct gd_kb *kb)
{
    struct machine_cuda m;
    machine_cuda_of(r, &m);
    for (size_t i = 0; i < m.ncudnns; i++)
        cudnn_dependency(r, kb, m.cudnns[i]);
    cuda_path_versions(r, kb);
    struct gd_version last;
    if (gd_kb_tf_last_native_windows_gpu(kb, &last, NULL) != GD_OK)
        return;
    size_t n = 0;
    struct gd_entity *const *fws = gd_report_kind(r, "framework", &n);
    for (size_t i = 0; i < n; i++) {
        const struct gd_entity *fw = fws[i];
        const char *framework = gd_fw_val(fw, "framework"), *version = gd_fw_val(fw, "version");
        const char *build = gd_fw_val(fw, "build");
        struct gd_version v;
        if (!framework || strcmp(framework, "tensorflow") != 0 || !gd_fw_judged_role(fw) ||
            !build || strcmp(build, "cuda") != 0 || !version ||
            gd_version_parse(version, &v) != GD_OK || gd_version_cmp_parts(&v, &last, 2) > 0)
            continue;
        tf_cuda(r, kb, fw, &v, &m);
    }
}
