/* gd_check through the public API against a small tree, and with each allocation failed. */
#define _GNU_SOURCE
#include "core/alloc.h"

#include <gpudoctor/gpudoctor.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

static char *tree, *kb_dir;
/* Whether the tree has its links and its FIFO: a system without them (Windows has no FIFO; wine
 * 8 makes no symlink) checks the rest, and expects no finding of what it could not make. */
static bool links = true, fifo = true;

/* A container image with a driver mismatch, a nouveau left loaded, two CUDA toolkits, a loop,
 * a link above the root, a FIFO, and an invalid --kb table. */
static int setup(void **state)
{
    (void)state;
    tree = tu_mkdtemp("check");
    tu_write(tree, "etc/os-release",
             "ID=ubuntu\nID_LIKE=debian\nVERSION_ID=\"22.04\"\n"
             "PRETTY_NAME=\"Ubuntu 22.04.3 LTS\"\n");
    tu_write(tree, "proc/driver/nvidia/version",
             "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC "
             "2023\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
    tu_write(tree, "proc/modules",
             "nvidia_uvm 1400832 0 - Live 0x0 (POE)\nnvidia 56717312 1 nvidia_uvm, Live 0x0 (POE)\n"
             "nouveau 2 0 - Live 0x0\n");
    tu_write(tree, "proc/cmdline", "BOOT_IMAGE=/vmlinuz ro quiet\n");
    tu_write(tree, "proc/version", "Linux version 6.1.0-18-amd64 (gcc 12.2.0) #1 SMP\n");
    tu_write(tree, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
    tu_write(tree, "proc/1/cgroup", "0::/system.slice/docker-3f2a9c.scope\n");
    tu_write(tree, "proc/self/mountinfo", "1 0 0:1 / / rw - overlay overlay rw\n");
    tu_write(tree, ".dockerenv", "");
    tu_write(tree, "etc/modprobe.d/nvidia.conf", "options nouveau \\\n  modeset=0\n");
    tu_write(tree, "dev/nvidiactl", "");
    tu_write(tree, "dev/nvidia0", "");
    tu_write(tree, "usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14", "");
    links = tu_try_symlink(tree, "usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.550.54.14");
    tu_write(tree, "usr/lib64/libcuda.so.470.223.02", "");
    links = links &&
            tu_try_symlink(tree, "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "libnvidia-ml.so.1");
    tu_write(tree, "lib/x86_64-linux-gnu/libc-2.35.so", "");
    tu_write(tree, "usr/local/cuda-12.4/version.json", "{\"cuda\": {\"version\": \"12.4.1\"}}");
    tu_mkdirs(tree, "usr/local/cuda-12.4/lib64");
    tu_write(tree, "usr/local/cuda-12.4/bin/nvcc", "");
    tu_write(tree, "usr/local/cuda-11.8/version.txt", "CUDA Version 11.8.89\n");
    tu_mkdirs(tree, "usr/local/cuda-11.8/lib64");
    links = links && tu_try_symlink(tree, "usr/local/cuda", "../../../../usr/local/cuda-12.4");
    fifo = tu_try_mkfifo(tree, "etc/modprobe.d/a-fifo.conf"); /* read before nvidia.conf */
    /* GPUs as the kernel module lists them: a known model, an unknown one without a UUID, one
     * whose file is missing, one whose file has no field gpudoctor reads, and a directory that
     * is no PCI address. */
    tu_write(tree, "proc/driver/nvidia/gpus/0000:01:00.0/information",
             "Model: \t\t Tesla T4\nIRQ:   \t\t 90\n"
             "GPU UUID: \t GPU-1b965d81-1d0f-6501-027c-1ecc1437f5ea\n"
             "Video BIOS: \t 90.04.a7.00.01\nBus Type: \t PCIe\nDMA Size: \t 47 bits\n"
             "DMA Mask: \t 0x7fffffffffff\nBus Location: \t 0000:01:00.0\n"
             "Device Minor: \t 0\nGPU Excluded:\t No\n");
    tu_write(tree, "proc/driver/nvidia/gpus/0000:02:00.0/information",
             "Model: \t\t NVIDIA A10G\nBus Location: \t 0000:02:00.0\nDevice Minor: \t 1\n"
             "GPU Excluded:\t Yes\n");
    tu_mkdirs(tree, "proc/driver/nvidia/gpus/0000:03:00.0");
    tu_write(tree, "proc/driver/nvidia/gpus/0000:04:00.0/information", "IRQ: 16\n");
    tu_write(tree, "proc/driver/nvidia/gpus/not-a-gpu/information", "Model: NVIDIA L4\n");
    kb_dir = tu_mkdtemp("check-kb");
    tu_write(kb_dir, "env_values.json", "{\"table\": \"env_values\", \"format\": 1,}");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree(tree);
    tu_rmtree(kb_dir);
    free(tree);
    free(kb_dir);
    return 0;
}

static struct gd_options *options(void)
{
    struct gd_options *o = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_set_root(o, tree), GD_OK);
    assert_int_equal(gd_options_clear_env(o), GD_OK);
    assert_int_equal(gd_options_set_kb_dir(o, kb_dir), GD_OK);
    static const char *const env[] = {
        "CUDA_HOME=/usr/local/cuda",
        "PATH=/usr/local/cuda-12.4/bin:/usr/bin",
        "LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64::/usr/local/cuda-12.4/lib64:/nope",
        "CUDA_VISIBLE_DEVICES=-1",
        "PYTORCH_CUDA_ALLOC_CONF=bogus",
        "NVIDIA_DRIVER_CAPABILITIES=utility",
        "CUDA_MODULE_LOADING=lazy",
    };
    for (size_t i = 0; i < sizeof env / sizeof *env; i++)
        assert_int_equal(gd_options_set_env(o, env[i]), GD_OK);
    return o;
}

static bool has_finding(const struct gd_report *r, const char *id)
{
    for (size_t i = 0; i < gd_report_finding_count(r); i++)
        if (strcmp(gd_finding_id(gd_report_finding_at(r, i)), id) == 0)
            return true;
    return false;
}

static void test_check(void **state)
{
    (void)state;
    struct gd_options *o = options();
    struct gd_report *r = NULL;
    assert_int_equal(gd_check(o, &r), GD_OK);
    assert_non_null(r);
    enum { LINKS = 1, FIFO = 2 };
    static const struct {
        const char *id;
        unsigned needs; /* what of the tree the finding comes from */
    } want[] = {
        { "driver.version-mismatch", LINKS }, /* libcuda.so.1: a link to the 550 library */
        { "driver.nouveau-loaded", 0 },
        { "devices.uvm-missing", 0 },
        { "container.detected", 0 },
        { "container.no-compute-capability", 0 },
        { "env.ld-library-path-missing-dir", 0 },
        { "env.ld-library-path-empty-entry", 0 },
        { "env.ld-library-path-mixed-cuda", 0 },
        { "env.cuda-visible-devices-hides-all", 0 },
        { "env.pytorch-alloc-conf-invalid", 0 },
        { "env.invalid-value", 0 },
        { "root.symlink-loop", LINKS },
        { "root.symlink-escape", LINKS },
        { "root.not-regular", FIFO },
        { "kb.table-invalid", 0 },
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        bool made = (!(want[i].needs & LINKS) || links) && (!(want[i].needs & FIFO) || fifo);
        if (made && !has_finding(r, want[i].id))
            fail_msg("no %s", want[i].id);
        /* A tree without the link or the FIFO must not be said to have one. */
        if (!made && has_finding(r, want[i].id))
            fail_msg("%s, yet the tree has no %s", want[i].id, links ? "FIFO" : "symlink");
        if (!made)
            print_message("%s: not expected, this system made no %s\n", want[i].id,
                          want[i].needs & LINKS ? "symlink" : "FIFO");
    }
    assert_int_equal(gd_report_worst(r), GD_SEV_ERROR);
    const struct gd_entity *host = gd_report_entity(r, "host");
    assert_string_equal(gd_fact_value(gd_entity_fact(host, "os.id")), "ubuntu");
    assert_string_equal(gd_fact_value(gd_entity_fact(host, "glibc.version")), "2.35");
    assert_string_equal(gd_fact_value(gd_entity_fact(host, "live")), "false");
    const struct gd_entity *drv = gd_report_entity(r, "driver");
    assert_string_equal(gd_fact_value(gd_entity_fact(drv, "nouveau.blacklisted_by")),
                        "options nouveau   modeset=0");
    /* Findings come most severe first. */
    for (size_t i = 1; i < gd_report_finding_count(r); i++)
        assert_true(gd_finding_severity(gd_report_finding_at(r, i - 1)) >=
                    gd_finding_severity(gd_report_finding_at(r, i)));
    gd_report_free(r);

    /* A root that is not a directory is the caller's error, not a finding. */
    r = (struct gd_report *)1;
    char path[PATH_MAX];
    /* gd_options_set_root refuses it at once, as its comment says. */
    assert_int_equal(gd_options_set_root(o, tu_path(path, sizeof path, tree, "missing")),
                     GD_ENOENT);
    assert_int_equal(gd_options_set_root(o, tu_path(path, sizeof path, tree, "etc/os-release")),
                     GD_ENOTDIR);
    assert_int_equal(gd_options_set_root(o, ""), GD_EINVAL);
    assert_int_equal(gd_options_set_env(o, "NOEQUALS"), GD_EINVAL);
    gd_options_free(o);
    gd_options_free(NULL);
}

static const struct gd_fact *fact(const struct gd_report *r, const char *entity, const char *name)
{
    const struct gd_entity *e = gd_report_entity(r, entity);
    if (!e)
        fail_msg("no entity %s", entity);
    const struct gd_fact *f = gd_entity_fact(e, name);
    if (!f)
        fail_msg("no fact %s.%s", entity, name);
    return f;
}

static void assert_fact(const struct gd_report *r, const char *entity, const char *name,
                        enum gd_fact_state state, const char *value, const char *source_ref)
{
    const struct gd_fact *f = fact(r, entity, name);
    if (gd_fact_state(f) != state)
        fail_msg("%s.%s: state %d, want %d", entity, name, (int)gd_fact_state(f), (int)state);
    if (value && (!gd_fact_value(f) || strcmp(gd_fact_value(f), value) != 0))
        fail_msg("%s.%s = %s, want %s", entity, name, gd_fact_value(f), value);
    if (source_ref && strcmp(gd_fact_source_ref(f), source_ref) != 0)
        fail_msg("%s.%s from %s, want %s", entity, name, gd_fact_source_ref(f), source_ref);
}

/* The GPUs of /proc/driver/nvidia/gpus: facts of each, the compute capability from the KB
 * (and from a --kb table that replaces it), and the count beside the device nodes' count. */
static void test_gpus(void **state)
{
    (void)state;
    struct gd_options *o = options();
    struct gd_report *r = NULL;
    assert_int_equal(gd_check(o, &r), GD_OK);
    const char *t4 = "/proc/driver/nvidia/gpus/0000:01:00.0/information";
    assert_fact(r, "gpus", "count", GD_FACT_KNOWN, "4", "/proc/driver/nvidia/gpus");
    assert_fact(r, "devices", "gpus.count", GD_FACT_KNOWN, "1", NULL);
    assert_string_equal(gd_entity_kind(gd_report_entity(r, "gpu:0000:01:00.0")), "gpu");
    assert_fact(r, "gpu:0000:01:00.0", "model", GD_FACT_KNOWN, "Tesla T4", t4);
    assert_fact(r, "gpu:0000:01:00.0", "bus_id", GD_FACT_KNOWN, "0000:01:00.0", t4);
    assert_fact(r, "gpu:0000:01:00.0", "uuid", GD_FACT_KNOWN,
                "GPU-1b965d81-1d0f-6501-027c-1ecc1437f5ea", t4);
    assert_fact(r, "gpu:0000:01:00.0", "minor", GD_FACT_KNOWN, "0", t4);
    assert_fact(r, "gpu:0000:01:00.0", "excluded", GD_FACT_KNOWN, "false", t4);
    assert_fact(r, "gpu:0000:01:00.0", "compute_capability", GD_FACT_KNOWN, "7.5",
                "gpus: NVIDIA T4 (tensorrt-support-matrix)");
    assert_int_equal(gd_fact_source_kind(fact(r, "gpu:0000:01:00.0", "compute_capability")),
                     GD_SOURCE_KB);
    /* Not in the table: absent, with the reason. */
    assert_fact(r, "gpu:0000:02:00.0", "model", GD_FACT_KNOWN, "NVIDIA A10G", NULL);
    assert_fact(r, "gpu:0000:02:00.0", "uuid", GD_FACT_ABSENT, NULL, NULL);
    assert_fact(r, "gpu:0000:02:00.0", "excluded", GD_FACT_KNOWN, "true", NULL);
    assert_fact(r, "gpu:0000:02:00.0", "compute_capability", GD_FACT_ABSENT, NULL, "gpus");
    assert_string_equal(gd_fact_reason(fact(r, "gpu:0000:02:00.0", "compute_capability")),
                        "the model is not in the gpus table");
    /* No information file: the bus id from the directory, nothing else known. */
    assert_fact(r, "gpu:0000:03:00.0", "bus_id", GD_FACT_KNOWN, "0000:03:00.0",
                "/proc/driver/nvidia/gpus/0000:03:00.0");
    assert_fact(r, "gpu:0000:03:00.0", "model", GD_FACT_ABSENT, NULL, NULL);
    assert_null(gd_entity_fact(gd_report_entity(r, "gpu:0000:03:00.0"), "uuid"));
    assert_fact(r, "gpu:0000:03:00.0", "compute_capability", GD_FACT_ABSENT, NULL, NULL);
    assert_string_equal(gd_fact_reason(fact(r, "gpu:0000:03:00.0", "compute_capability")),
                        "the GPU model is not known");
    /* A file without any field read: every fact absent. */
    assert_fact(r, "gpu:0000:04:00.0", "model", GD_FACT_ABSENT, NULL, NULL);
    assert_fact(r, "gpu:0000:04:00.0", "minor", GD_FACT_ABSENT, NULL, NULL);
    assert_null(gd_report_entity(r, "gpu:not-a-gpu"));
    gd_report_free(r);

    /* A --kb gpus table replaces the embedded one: its rows decide, a bad cc is refused. */
    char *dir = tu_mkdtemp("check-kb-gpus");
    tu_write(dir, "gpus.json",
             "{\"table\": \"gpus\", \"format\": 1, \"sources\": {\"me\": {\"url\": "
             "\"https://example.org/\"}}, \"rows\": [{\"name\": \"NVIDIA A10G\", \"cc\": "
             "\"8.6\", \"source\": \"me\"}, {\"name\": \"NVIDIA T4\", \"cc\": \"7.5x\", "
             "\"source\": \"me\"}]}");
    assert_int_equal(gd_options_set_kb_dir(o, dir), GD_OK);
    assert_int_equal(gd_check(o, &r), GD_OK);
    assert_fact(r, "gpu:0000:02:00.0", "compute_capability", GD_FACT_KNOWN, "8.6",
                "gpus: NVIDIA A10G (me)");
    assert_fact(r, "gpu:0000:01:00.0", "compute_capability", GD_FACT_UNKNOWN, NULL,
                "gpus: NVIDIA T4 (me)");
    gd_report_free(r);
    gd_options_free(o);
    tu_rmtree(dir);
    free(dir);
}

/* The finding ids of `r` in order, one string. */
static void ids_of(const struct gd_report *r, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < gd_report_finding_count(r); i++)
        n += (size_t)snprintf(buf + n, size - n, "%s ", gd_finding_id(gd_report_finding_at(r, i)));
    assert_true(n < size);
}

/* Fail each allocation of a whole check in turn. Each run ends in GD_ENOMEM, or in a report
 * that renders and says what the check without a failure says: out of memory must never be
 * taken for a property of the machine (a file missing, a fact unknown). */
static void test_alloc_failures(void **state)
{
    (void)state;
    struct gd_options *o = options();
    struct gd_report *r = NULL;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_check(o, &r), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    static char want[8192], got[8192];
    ids_of(r, want, sizeof want);
    gd_report_free(r);
    assert_true(total > 100);
    for (unsigned long n = 1; n <= total + 1; n++) {
        gd_alloc_fail_at(n);
        r = (struct gd_report *)1;
        enum gd_status st = gd_check(o, &r);
        gd_alloc_fail_at(0);
        if (n <= total && st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed, yet gd_check says %s", n, total,
                     gd_status_str(st));
        if (st == GD_ENOMEM) {
            assert_null(r);
            continue;
        }
        assert_int_equal(st, GD_OK);
        ids_of(r, got, sizeof got);
        assert_string_equal(got, want);
        for (int format = GD_FORMAT_TEXT; format <= GD_FORMAT_PROMETHEUS; format++) {
            struct gd_render_options ro = { true, true };
            char *out = NULL;
            assert_int_equal(gd_render(r, (enum gd_format)format, &ro, &out, NULL), GD_OK);
            gd_free(out);
        }
        gd_report_free(r);
    }
    gd_options_free(o);
}

/* An environment file in docker's format feeds the inspected environment. */
static void test_env_file(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("envfile");
    tu_write(dir, "good.env",
             "# comment\nCUDA_VISIBLE_DEVICES=\nKERAS_BACKEND=pytorch\nnot a variable\n"
             "=nothing\n");
    char path[PATH_MAX];
    struct gd_options *o = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_set_root(o, tree), GD_OK);
    size_t bad = 99;
    assert_int_equal(gd_options_load_env_file(o, tu_path(path, sizeof path, dir, "good.env"), &bad),
                     GD_OK);
    assert_int_equal(bad, 2);
    struct gd_report *r = NULL;
    assert_int_equal(gd_check(o, &r), GD_OK);
    assert_true(has_finding(r, "env.cuda-visible-devices-hides-all"));
    assert_true(has_finding(r, "env.invalid-value"));
    const struct gd_entity *env = gd_report_entity(r, "env");
    assert_string_equal(gd_fact_value(gd_entity_fact(env, "CUDA_VISIBLE_DEVICES")), "");
    /* A foreign root never sees this process's environment. */
    assert_int_equal(gd_fact_state(gd_entity_fact(env, "PATH")), GD_FACT_ABSENT);
    gd_report_free(r);

    assert_int_equal(gd_options_load_env_file(o, tu_path(path, sizeof path, dir, "missing"), &bad),
                     GD_ENOENT);
    assert_int_equal(bad, 0);
    assert_int_equal(gd_options_load_env_file(o, dir, NULL), GD_ENOTREG);
    /* Past 1 MiB it is not an environment file. */
    FILE *f = fopen(tu_path(path, sizeof path, dir, "big.env"), "w");
    for (int i = 0; i < 40000; i++)
        fprintf(f, "VARIABLE_%05d=some value here\n", i);
    fclose(f);
    assert_int_equal(gd_options_load_env_file(o, path, NULL), GD_ELIMIT);
    assert_int_equal(gd_options_load_env_file(NULL, path, NULL), GD_EINVAL);
    gd_options_free(o);
    tu_rmtree(dir);
    free(dir);
}

/* A Windows tree (a mounted C: drive) is told by its system directory; --os decides for a tree
 * that cannot tell, and a Linux tree with a wine prefix's lower-case copy stays Linux. */
static void test_host_os(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("hostos");
    tu_mkdirs(dir, "win/Windows/System32");
    tu_mkdirs(dir, "wine/windows/system32");
    tu_write(dir, "wine/etc/os-release", "ID=debian\n");
    tu_mkdirs(dir, "bare/usr");
    static const struct {
        const char *tree, *os, *want, *source;
    } cases[] = {
        { "win", NULL, "windows", "/Windows/System32" }, { "win", "linux", NULL, NULL },
        { "wine", NULL, "debian", "/etc/os-release" },   { "wine", "windows", "windows", "--os" },
        { "bare", "windows", "windows", "--os" },        { "bare", NULL, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct gd_options *o = NULL;
        char path[PATH_MAX];
        assert_int_equal(gd_options_new(&o), GD_OK);
        assert_int_equal(gd_options_set_root(o, tu_path(path, sizeof path, dir, cases[i].tree)),
                         GD_OK);
        if (cases[i].os)
            assert_int_equal(gd_options_set_host_os(o, cases[i].os), GD_OK);
        struct gd_report *r = NULL;
        assert_int_equal(gd_check(o, &r), GD_OK);
        const struct gd_fact *id = gd_entity_fact(gd_report_entity(r, "host"), "os.id");
        if (cases[i].want) {
            assert_int_equal(gd_fact_state(id), GD_FACT_KNOWN);
            assert_string_equal(gd_fact_value(id), cases[i].want);
            assert_string_equal(gd_fact_source_ref(id), cases[i].source);
        } else {
            /* Linux without os-release: the id is not known, never "windows". */
            assert_int_not_equal(gd_fact_state(id), GD_FACT_KNOWN);
        }
        gd_report_free(r);
        gd_options_free(o);
    }
    struct gd_options *o = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_set_host_os(o, "macos"), GD_EINVAL);
    assert_int_equal(gd_options_set_host_os(o, NULL), GD_EINVAL);
    assert_int_equal(gd_options_set_host_os(NULL, "linux"), GD_EINVAL);
    gd_options_free(o);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),          cmocka_unit_test(test_env_file),
        cmocka_unit_test(test_host_os),        cmocka_unit_test(test_gpus),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
