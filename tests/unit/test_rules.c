/*
 * Rules, driven with hand-built reports: for every finding id of docs/findings.md a report that
 * produces it (severity, evidence, the words of its title and fixes) and a near miss that does
 * not. Facts are written as "ENTITY.FACT=T:VALUE", T one of s (string), i (int), b (bool),
 * a (absent, VALUE the reason) and u (unknown, VALUE the reason); an entity id with dots of its
 * own ("soname:libcudnn.so.9") ends at a '|' instead: "soname:libcudnn.so.9|path=s:/x".
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/buf.h"
#include "core/report.h"
#include "kb/kb.h"
#include "rules/rules.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

static struct gd_kb *embedded; /* gd_kb_open(NULL) */
static struct gd_kb *test_kb;  /* env_values replaced by a table with a hides_warnings_at row */
static char *test_kb_dir;

static int setup(void **state)
{
    (void)state;
    if (gd_kb_open(NULL, &embedded) != GD_OK)
        return -1;
    test_kb_dir = tu_mkdtemp("rules-kb");
    tu_write(test_kb_dir, "env_values.json",
             "{\"table\": \"env_values\", \"format\": 1,\n"
             " \"sources\": {\"tf\": {\"url\": \"https://example.org/tf-logging\"}},\n"
             " \"rows\": [{\"variable\": \"TF_CPP_MIN_LOG_LEVEL\", \"read_by\": \"TensorFlow\",\n"
             "   \"values\": [\"0\", \"1\", \"2\", \"3\"], \"hides_warnings_at\": \"2\",\n"
             "   \"source\": \"tf\"}]}\n");
    if (gd_kb_open(test_kb_dir, &test_kb) != GD_OK || gd_kb_problem_count(test_kb) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gd_kb_free(embedded);
    gd_kb_free(test_kb);
    tu_rmtree(test_kb_dir);
    free(test_kb_dir);
    return 0;
}

static const char *kind_of(const char *id)
{
    if (strncmp(id, "LD_LIBRARY_PATH[", 16) == 0)
        return "path_entry";
    if (strncmp(id, "anomaly[", 8) == 0)
        return "anomaly";
    if (strncmp(id, "library_link[", 13) == 0)
        return "library_link";
    if (strncmp(id, "soname:", 7) == 0)
        return "soname";
    if (strncmp(id, "import:", 7) == 0)
        return "framework_import";
    /* "<kind>:<key>": the frameworks' entities and the live machine's. */
    static const char *const kinds[] = { "framework_lib", "framework_dll", "framework",
                                         "kernels",       "keras",         "python_env",
                                         "gpu",           "gpu_process",   "cuda_runtime",
                                         "cuda_device",   "test_device",   "test_library",
                                         "test_nccl",     "cuda_toolkit",  "cudnn_dir",
                                         "cuda_dll" };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        size_t n = strlen(kinds[i]);
        if (strncmp(id, kinds[i], n) == 0 && id[n] == ':')
            return kinds[i];
    }
    if (strchr(id, ':'))
        return "library"; /* "<family>:<path>" */
    return id;
}

/* Add one "ENTITY.FACT=T:VALUE" fact. */
static void add_fact(struct gd_report *r, const char *spec)
{
    const char *bar = strchr(spec, '|'), *eq = strchr(spec, '=');
    const char *dot = bar && eq && bar < eq ? bar : strchr(spec, '.');
    if (!dot || !eq || dot > eq || eq[1] == '\0' || eq[2] != ':')
        fail_msg("bad fact spec \"%s\"", spec);
    char entity[256], name[128];
    snprintf(entity, sizeof entity, "%.*s", (int)(dot - spec), spec);
    snprintf(name, sizeof name, "%.*s", (int)(eq - dot - 1), dot + 1);
    const char *value = eq + 3;
    struct gd_entity *e = gd_report_add_entity(r, kind_of(entity), entity);
    struct gd_source src = gd_src(GD_SOURCE_FILE, "test");
    const struct gd_fact *f = NULL;
    switch (eq[1]) {
    case 's':
        f = gd_fact_str(e, name, value, src);
        break;
    case 'i':
        f = gd_fact_int(e, name, strtoll(value, NULL, 10), src);
        break;
    case 'b':
        f = gd_fact_bool(e, name, strcmp(value, "true") == 0, src);
        break;
    case 'a':
        f = gd_fact_absent(e, name, *value ? value : NULL, src);
        break;
    case 'u':
        f = gd_fact_unknown(e, name, value, src);
        break;
    default:
        fail_msg("bad fact type in \"%s\"", spec);
    }
    assert_non_null(f);
    /* A framework's libraries and kernels are its parts, as the frameworks probe links them. */
    if (strcmp(name, "framework") == 0 && eq[1] == 's' &&
        (strcmp(kind_of(entity), "framework_lib") == 0 || strcmp(kind_of(entity), "kernels") == 0))
        gd_entity_add_part(gd_report_add_entity(r, "framework", value), e);
}

#define NONE (-1)
/* A near miss: the finding must not be there. */
#define MISS        \
    NONE, { NULL }, \
    {               \
        NULL        \
    }
#define MAX_FACT 24

struct rule_case {
    const char *name;
    gd_rule_fn rule;
    char kb; /* 'e': the embedded KB, 't': the test KB */
    const char *facts[MAX_FACT];
    const char *id;          /* the finding looked for */
    int severity;            /* its severity, or NONE: it must not be there */
    const char *evidence[6]; /* "ENTITY.FACT" labels among its evidence */
    const char *text[4];     /* substrings of its title, why or one of its fixes */
};

/* Frequent facts. */
#define KM(v) "driver.kernel_module.version=s:" v
#define NO_KM "driver.kernel_module.version=a:"
#define LIBCUDA(v) \
    "driver.libcuda.path=s:/usr/lib/x86_64-linux-gnu/libcuda.so." v, "driver.libcuda.version=s:" v
#define NO_LIBCUDA   "driver.libcuda.path=a:no libcuda.so.1 in the driver library directories"
#define IN_CONTAINER "container.detected=b:true", "container.runtime=s:docker"
#define DEV(ctl, uvm, n, gpus)                                               \
    "devices.nvidiactl.present=b:" ctl, "devices.nvidia-uvm.present=b:" uvm, \
        "devices.gpus.count=i:" n, "devices.gpus=s:" gpus
#define DEV_OK   DEV("true", "true", "1", "nvidia0"), "devices.nvidia0.present=b:true"
#define WSL2     "wsl.detected=b:true", "wsl.version=i:2"
#define WSL_FINE "devices.dxg.present=b:true", "wsl.libcuda.present=b:true", "wsl.ld_conf=b:true"
#define E        gd_rule_env
/* An import of torch in /venv, and of another framework. */
#define IMP(f)        "import:/venv:torch|" f
#define IMP_FW(fw, f) "import:/venv:" fw "|" f
#define IMP_BASE(fw)                                          \
    IMP_FW(fw, "env=s:/venv"), IMP_FW(fw, "framework=s:" fw), \
        IMP_FW(fw, "python=s:/venv/bin/python")
#define I gd_rule_imports
#define MIXED(home)                                                                           \
    "LD_LIBRARY_PATH[0].path=s:/usr/local/cuda-11.8/lib64",                                   \
        "LD_LIBRARY_PATH[0].cuda_version=s:11.8", "LD_LIBRARY_PATH[1].path=s:/opt/other/lib", \
        "LD_LIBRARY_PATH[1].exists=b:true",                                                   \
        "LD_LIBRARY_PATH[2].path=s:/usr/local/cuda-12.4/lib64",                               \
        "LD_LIBRARY_PATH[2].cuda_version=s:12.4",                                             \
        "LD_LIBRARY_PATH[3].path=s:/usr/local/cuda-12.4/extras/CUPTI/lib64",                  \
        "LD_LIBRARY_PATH[3].cuda_version=s:12.4", home

/* A framework entity "framework:<id>" in the environment /v (site /v/s). */
#define FW(id, framework, dist, version)                                        \
    "framework:" id ".framework=s:" framework, "framework:" id ".dist=s:" dist, \
        "framework:" id "|version=s:" version, "framework:" id ".env=s:/v",     \
        "framework:" id ".site=s:/v/s"
/* framework_lib:/v/t:<family> of framework:/v/t. */
#define LIB(family, soname)                                         \
    "framework_lib:/v/t:" family "|soname=s:" soname,               \
        "framework_lib:/v/t:" family ".framework=s:framework:/v/t", \
        "framework_lib:/v/t:" family ".how=s:needed",               \
        "framework_lib:/v/t:" family ".family=s:" family
/* framework_dll:/v/t:<dll> of framework:/v/t, missed by Python 3.8+'s search from the module
 * <module>.pyd; DLL_ON_PATH: where the standard order finds it. */
#define DLL(dll, module)                                                            \
    "framework_dll:/v/t:" dll "|framework=s:framework:/v/t",                        \
        "framework_dll:/v/t:" dll "|dll=s:" dll,                                    \
        "framework_dll:/v/t:" dll "|needed_by=s:/v/s/cupy_backends/" module ".pyd", \
        "framework_dll:/v/t:" dll "|path=a:not in the module's directory"
#define DLL_ON_PATH(dll)                                               \
    "framework_dll:/v/t:" dll "|standard.path=s:/tools/cuda/bin/" dll, \
        "framework_dll:/v/t:" dll "|standard.rule=s:PATH",             \
        "framework_dll:/v/t:" dll "|standard.dir=s:C:\\tools\\cuda\\bin"
#define GPU(cc) "gpu:0|compute_capability=s:" cc, "gpu:0.model=s:NVIDIA Test GPU"
#define KERNELS(sass)                                                                       \
    "kernels:/v/k.framework=s:framework:/v/t", "kernels:/v/k.library=s:/v/s/libtorch_cuda", \
        "kernels:/v/k.sass=s:" sass
#define VENV \
    "python_env:/v.prefix=s:/v", "python_env:/v.site_dirs=i:1", "python_env:/v|site_dirs[0]=s:/v/s"
#define KERAS(version, backend, from)                                         \
    "keras:/v|version=s:" version, "keras:/v.major=s:3", "keras:/v.env=s:/v", \
        "keras:/v.backend=s:" backend, "keras:/v|backend.from=s:" from

static const struct rule_case cases[] = {
    /* ---- driver ---- */
    { "no module, no libcuda",
      gd_rule_driver,
      'e',
      { NO_KM, "driver.module.nvidia.loaded=b:false", NO_LIBCUDA,
        "devices.nvidiactl.present=b:false", "host.os.id=s:debian" },
      "driver.not-installed",
      GD_SEV_ERROR,
      { "driver.kernel_module.version", "driver.module.nvidia.loaded", "driver.libcuda.path",
        "devices.nvidiactl.present" },
      { "The NVIDIA driver is not installed", "cudaErrorInsufficientDriver" } },
    { "no driver in a container: install it on the host",
      gd_rule_driver,
      'e',
      { NO_KM, NO_LIBCUDA, IN_CONTAINER },
      "driver.not-installed",
      GD_SEV_ERROR,
      { "container.runtime", "driver.libcuda.path" },
      { "the driver belongs on the host", "--gpus all" } },
    { "module loaded, libcuda missing: installed",
      gd_rule_driver,
      'e',
      { NO_KM, "driver.module.nvidia.loaded=b:true", NO_LIBCUDA },
      "driver.not-installed",
      MISS },
    { "WSL: no Linux driver judged",
      gd_rule_driver,
      'e',
      { NO_KM, NO_LIBCUDA, "wsl.detected=b:true" },
      "driver.not-installed",
      MISS },
    { "libcuda without module",
      gd_rule_driver,
      'e',
      { NO_KM, "driver.module.nvidia.loaded=b:false", LIBCUDA("535.104.05") },
      "driver.module-not-loaded",
      GD_SEV_ERROR,
      { "driver.libcuda.path", "driver.libcuda.version", "driver.module.nvidia.loaded" },
      { "user-space driver 535.104.05 is installed but its kernel module is not loaded",
        "`sudo modprobe nvidia`", "Key was rejected by service" } },
    { "libcuda without module, in a container",
      gd_rule_driver,
      'e',
      { NO_KM, LIBCUDA("535.104.05"), IN_CONTAINER },
      "driver.module-not-loaded",
      GD_SEV_ERROR,
      { "driver.libcuda.path" },
      { "The kernel module lives on the host" } },
    { "module known from /sys only: loaded",
      gd_rule_driver,
      'e',
      { NO_KM, "driver.kernel_module.sys_version=s:535.104.05", LIBCUDA("535.104.05") },
      "driver.module-not-loaded",
      MISS },
    { "module loaded by /proc/modules only: loaded",
      gd_rule_driver,
      'e',
      { NO_KM, "driver.module.nvidia.loaded=b:true", LIBCUDA("535.104.05") },
      "driver.module-not-loaded",
      MISS },
    { "module without libcuda",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), NO_LIBCUDA },
      "driver.libcuda-missing",
      GD_SEV_ERROR,
      { "driver.libcuda.path", "driver.kernel_module.version" },
      { "kernel module 535.104.05 is loaded but libcuda.so.1 is not installed",
        "same version as the module (535.104.05)" } },
    { "module without libcuda, in a container",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), NO_LIBCUDA, IN_CONTAINER },
      "driver.libcuda-missing",
      GD_SEV_ERROR,
      { "driver.libcuda.path" },
      { "NVIDIA_DRIVER_CAPABILITIES including compute" } },
    { "module with libcuda",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("535.104.05") },
      "driver.libcuda-missing",
      MISS },
    { "libraries newer than the module: reboot",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("550.54.14") },
      "driver.version-mismatch",
      GD_SEV_ERROR,
      { "driver.kernel_module.version", "driver.libcuda.version", "driver.libcuda.path" },
      { "NVIDIA kernel module 535.104.05 does not match the user-space driver 550.54.14",
        "Reboot, so that the kernel loads the 550.54.14 module", "sudo rmmod nvidia_uvm",
        "Driver/library version mismatch" } },
    { "libraries older than the module: reinstall",
      gd_rule_driver,
      'e',
      { KM("550.54.14"), LIBCUDA("535.104.05") },
      "driver.version-mismatch",
      GD_SEV_ERROR,
      { "driver.kernel_module.version", "driver.libcuda.version" },
      { "The libraries are older than the running module", "Reinstall the driver 550.54.14" } },
    { "NVML of another version than module and libcuda",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("535.104.05"), "driver.nvml.version=s:550.54.14" },
      "driver.version-mismatch",
      GD_SEV_ERROR,
      { "driver.kernel_module.version", "driver.nvml.version" },
      { "does not match the user-space driver 550.54.14", "Reboot" } },
    { "module version from /sys only",
      gd_rule_driver,
      'e',
      { NO_KM, "driver.kernel_module.sys_version=s:535.104.05", LIBCUDA("550.54.14") },
      "driver.version-mismatch",
      GD_SEV_ERROR,
      { "driver.kernel_module.sys_version", "driver.libcuda.version" },
      { "NVIDIA kernel module 535.104.05 does not match" } },
    { "mismatch inside a container: the host reboots",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("550.54.14"), IN_CONTAINER },
      "driver.version-mismatch",
      GD_SEV_ERROR,
      { "driver.libcuda.version" },
      { "reboot the host" } },
    { "one version everywhere",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("535.104.05"), "driver.nvml.version=s:535.104.05" },
      "driver.version-mismatch",
      MISS },
    { "two libcuda versions installed",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("535.104.05"), "driver.libcuda.copies.count=i:2",
        "driver.libcuda.copies=s:/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05, "
        "/usr/lib64/libcuda.so.470.223.02" },
      "driver.multiple-libcuda",
      GD_SEV_WARNING,
      { "driver.libcuda.copies", "driver.libcuda.path", "driver.kernel_module.version" },
      { "Several versions of libcuda are installed", "sudo nvidia-uninstall" } },
    { "one libcuda version in two directories",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("535.104.05"), "driver.libcuda.copies.count=i:2",
        "driver.libcuda.copies=s:/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05, "
        "/usr/lib64/libcuda.so.535.104.05" },
      "driver.multiple-libcuda",
      MISS },
    { "a single copy",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("535.104.05"), "driver.libcuda.copies.count=i:1",
        "driver.libcuda.copies=s:/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05" },
      "driver.multiple-libcuda",
      MISS },
    { "nouveau holds the GPU",
      gd_rule_driver,
      'e',
      { NO_KM, NO_LIBCUDA, "driver.module.nouveau.loaded=b:true",
        "driver.nouveau.blacklisted=b:false" },
      "driver.nouveau-loaded",
      GD_SEV_ERROR,
      { "driver.module.nouveau.loaded", "driver.nouveau.blacklisted" },
      { "nouveau driver is loaded and holds the GPU", "blacklist nouveau",
        "sudo update-initramfs -u" } },
    { "nouveau next to the NVIDIA driver, blacklisted already",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("535.104.05"), "driver.module.nouveau.loaded=b:true",
        "driver.nouveau.blacklisted=b:true", "driver.nouveau.blacklisted_by=s:blacklist nouveau" },
      "driver.nouveau-loaded",
      GD_SEV_WARNING,
      { "driver.module.nouveau.loaded", "driver.nouveau.blacklisted_by" },
      { "next to the NVIDIA driver", "blacklisted but still loaded" } },
    { "nouveau blacklisted and not loaded",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("535.104.05"), "driver.module.nouveau.loaded=b:false",
        "driver.nouveau.blacklisted=b:true" },
      "driver.nouveau-loaded",
      MISS },
    { "module and libcuda of one version",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("535.104.05"), "driver.kernel_module.flavor=s:open" },
      "driver.ok",
      GD_SEV_OK,
      { "driver.kernel_module.version", "driver.libcuda.version", "driver.kernel_module.flavor" },
      { "NVIDIA driver 535.104.05 is loaded; kernel module and libcuda match" } },
    { "loaded, libcuda's version unknown",
      gd_rule_driver,
      'e',
      { "driver.module.nvidia.loaded=b:true",
        "driver.libcuda.path=s:/usr/lib/x86_64-linux-gnu/libcuda.so.1",
        "driver.libcuda.version=u:the file name carries no driver version" },
      "driver.ok",
      GD_SEV_OK,
      { "driver.libcuda.version" },
      { "NVIDIA driver is loaded (the version of libcuda is not known)" } },
    { "mismatch is not ok",
      gd_rule_driver,
      'e',
      { KM("535.104.05"), LIBCUDA("550.54.14") },
      "driver.ok",
      MISS },

    /* ---- device files ---- */
    { "no /dev/nvidiactl",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), DEV("false", "true", "1", "nvidia0") },
      "devices.nvidiactl-missing",
      GD_SEV_ERROR,
      { "devices.nvidiactl.present", "driver.kernel_module.version" },
      { "/dev/nvidiactl is missing", "sudo nvidia-modprobe -c 0 -u" } },
    { "no /dev/nvidiactl in a container given a GPU",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), IN_CONTAINER, DEV("false", "true", "1", "nvidia0") },
      "devices.nvidiactl-missing",
      GD_SEV_ERROR,
      { "devices.nvidiactl.present" },
      { "Restart the container with `--gpus all`" } },
    { "/dev/nvidiactl present",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), DEV_OK },
      "devices.nvidiactl-missing",
      MISS },
    { "no module: device files not expected",
      gd_rule_devices,
      'e',
      { NO_KM, DEV("false", "false", "0", "") },
      "devices.nvidiactl-missing",
      MISS },
    { "module loaded, no GPU node",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), DEV("true", "true", "0", "") },
      "devices.no-gpu-nodes",
      GD_SEV_ERROR,
      { "devices.gpus.count", "driver.kernel_module.version" },
      { "No /dev/nvidia<N> device file exists", "dmesg" } },
    { "a container without GPU nodes is container.c's",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), IN_CONTAINER, DEV("true", "true", "0", "") },
      "devices.no-gpu-nodes",
      MISS },
    { "GPU nodes not countable",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), "devices.nvidiactl.present=b:true", "devices.nvidia-uvm.present=b:true",
        "devices.gpus.count=u:permission denied" },
      "devices.no-gpu-nodes",
      MISS },
    { "no /dev/nvidia-uvm",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), DEV("true", "false", "1", "nvidia0"),
        "driver.module.nvidia_uvm.loaded=b:false" },
      "devices.uvm-missing",
      GD_SEV_ERROR,
      { "devices.nvidia-uvm.present", "driver.module.nvidia_uvm.loaded" },
      { "/dev/nvidia-uvm is missing", "CUDA_ERROR_UNKNOWN", "sudo modprobe nvidia-uvm",
        "/etc/modules-load.d/nvidia-uvm.conf" } },
    { "no /dev/nvidia-uvm in a container",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), IN_CONTAINER, DEV("true", "false", "1", "nvidia0") },
      "devices.uvm-missing",
      GD_SEV_ERROR,
      { "devices.nvidia-uvm.present" },
      { "--device /dev/nvidia-uvm" } },
    { "WSL has no /dev/nvidia-uvm to miss",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), "wsl.detected=b:true", DEV("true", "false", "1", "nvidia0") },
      "devices.uvm-missing",
      MISS },
    { "device files this user may not open",
      gd_rule_devices,
      'e',
      { "host.live=b:true", KM("535.104.05"), DEV_OK, "devices.nvidiactl.accessible=b:false",
        "devices.nvidia-uvm.accessible=b:true", "devices.nvidia0.accessible=b:false" },
      "devices.permission-denied",
      GD_SEV_ERROR,
      { "devices.nvidiactl.accessible", "devices.nvidia0.accessible" },
      { "This user may not open /dev/nvidiactl, /dev/nvidia0", "sudo usermod -aG video $USER" } },
    { "permissions of a foreign root say nothing",
      gd_rule_devices,
      'e',
      { "host.live=b:false", KM("535.104.05"), DEV_OK, "devices.nvidiactl.accessible=b:false" },
      "devices.permission-denied",
      MISS },
    { "every device file accessible",
      gd_rule_devices,
      'e',
      { "host.live=b:true", KM("535.104.05"), DEV_OK, "devices.nvidiactl.accessible=b:true",
        "devices.nvidia-uvm.accessible=b:true", "devices.nvidia0.accessible=b:true" },
      "devices.permission-denied",
      MISS },
    { "a directory bind-mounted as /dev/nvidia-uvm",
      gd_rule_devices,
      'e',
      { "host.live=b:true", KM("535.104.05"), DEV_OK, "devices.nvidiactl.type=s:character device",
        "devices.nvidia-uvm.type=s:directory", "devices.nvidia0.type=s:character device" },
      "devices.not-char-device",
      GD_SEV_ERROR,
      { "devices.nvidia-uvm.type" },
      { "/dev/nvidia-uvm is not a character device", "sudo nvidia-modprobe -c 0 -u" } },
    { "two plain files",
      gd_rule_devices,
      'e',
      { "host.live=b:true", KM("535.104.05"), DEV_OK, "devices.nvidiactl.type=s:regular file",
        "devices.nvidia0.type=s:regular file" },
      "devices.not-char-device",
      GD_SEV_ERROR,
      { "devices.nvidiactl.type", "devices.nvidia0.type" },
      { "/dev/nvidiactl, /dev/nvidia0 are not a character device" } },
    { "character devices",
      gd_rule_devices,
      'e',
      { "host.live=b:true", KM("535.104.05"), DEV_OK, "devices.nvidiactl.type=s:character device",
        "devices.nvidia-uvm.type=s:character device", "devices.nvidia0.type=s:character device" },
      "devices.not-char-device",
      MISS },
    { "every node in place",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), DEV("true", "true", "2", "nvidia0 nvidia1") },
      "devices.ok",
      GD_SEV_OK,
      { "devices.gpus", "devices.nvidiactl.present", "devices.nvidia-uvm.present" },
      { "2 GPU device files, /dev/nvidiactl and /dev/nvidia-uvm are present" } },
    { "GPU nodes not countable: no count is made up",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), "devices.nvidiactl.present=b:true", "devices.nvidia-uvm.present=b:true",
        "devices.gpus.count=u:permission denied" },
      "devices.ok",
      GD_SEV_OK,
      { "devices.gpus.count", "devices.nvidiactl.present" },
      { "/dev/nvidiactl and /dev/nvidia-uvm are present (the GPU device files could not be "
        "counted)" } },
    { "a node missing is not ok",
      gd_rule_devices,
      'e',
      { KM("535.104.05"), DEV("true", "false", "2", "nvidia0 nvidia1") },
      "devices.ok",
      MISS },

    /* ---- containers ---- */
    { "a podman container",
      gd_rule_container,
      'e',
      { "container.detected=b:true", "container.runtime=s:podman" },
      "container.detected",
      GD_SEV_INFO,
      { "container.runtime" },
      { "Running in a container (podman)" } },
    { "not a container",
      gd_rule_container,
      'e',
      { "container.detected=b:false", "container.runtime=a:no container marker",
        "container.nvidia.driver_capabilities=s:utility" },
      "container.detected",
      MISS },
    { "host module visible, no GPU passed in",
      gd_rule_container,
      'e',
      { IN_CONTAINER, KM("535.104.05"), "devices.gpus.count=i:0",
        "container.nvidia.visible_devices=a:not set" },
      "container.no-gpu-devices",
      GD_SEV_ERROR,
      { "driver.kernel_module.version", "devices.gpus.count", "container.runtime",
        "container.nvidia.visible_devices" },
      { "started without GPU access", "docker run --gpus all", "nvidia.com/gpu: 1",
        "nvidia-ctk cdi generate" } },
    { "a GPU passed in",
      gd_rule_container,
      'e',
      { IN_CONTAINER, KM("535.104.05"), "devices.gpus.count=i:1" },
      "container.no-gpu-devices",
      MISS },
    { "no module visible: no GPU expected",
      gd_rule_container,
      'e',
      { IN_CONTAINER, NO_KM, "devices.gpus.count=i:0" },
      "container.no-gpu-devices",
      MISS },
    { "NVIDIA_VISIBLE_DEVICES=none",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.visible_devices=s:none" },
      "container.visible-devices-none",
      GD_SEV_WARNING,
      { "container.nvidia.visible_devices" },
      { "NVIDIA_VISIBLE_DEVICES=\"none\" gives this container no GPU",
        "NVIDIA_VISIBLE_DEVICES=all" } },
    { "NVIDIA_VISIBLE_DEVICES=void",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.visible_devices=s:void" },
      "container.visible-devices-none",
      GD_SEV_WARNING,
      { "container.nvidia.visible_devices" },
      { "NVIDIA_VISIBLE_DEVICES=\"void\"" } },
    { "NVIDIA_VISIBLE_DEVICES empty",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.visible_devices=s:" },
      "container.visible-devices-none",
      GD_SEV_WARNING,
      { "container.nvidia.visible_devices" },
      { "NVIDIA_VISIBLE_DEVICES=\"\"" } },
    { "NVIDIA_VISIBLE_DEVICES=all",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.visible_devices=s:all" },
      "container.visible-devices-none",
      MISS },
    { "NVIDIA_VISIBLE_DEVICES=0,1",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.visible_devices=s:0,1" },
      "container.visible-devices-none",
      MISS },
    { "NVIDIA_DRIVER_CAPABILITIES=utility",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.driver_capabilities=s:utility", NO_LIBCUDA },
      "container.no-compute-capability",
      GD_SEV_ERROR,
      { "container.nvidia.driver_capabilities", "driver.libcuda.path" },
      { "NVIDIA_DRIVER_CAPABILITIES=\"utility\" lacks compute",
        "NVIDIA_DRIVER_CAPABILITIES=compute,utility" } },
    { "NVIDIA_DRIVER_CAPABILITIES=graphics,display",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.driver_capabilities=s:graphics,display" },
      "container.no-compute-capability",
      GD_SEV_ERROR,
      { "container.nvidia.driver_capabilities" },
      { "\"graphics,display\" lacks compute" } },
    { "NVIDIA_DRIVER_CAPABILITIES=compute,utility",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.driver_capabilities=s:compute,utility" },
      "container.no-compute-capability",
      MISS },
    { "NVIDIA_DRIVER_CAPABILITIES=utility,compute",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.driver_capabilities=s:utility,compute" },
      "container.no-compute-capability",
      MISS },
    { "NVIDIA_DRIVER_CAPABILITIES=utility, compute (a space after the comma)",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.driver_capabilities=s:utility, compute" },
      "container.no-compute-capability",
      MISS },
    { "NVIDIA_DRIVER_CAPABILITIES=all",
      gd_rule_container,
      'e',
      { IN_CONTAINER, "container.nvidia.driver_capabilities=s:all" },
      "container.no-compute-capability",
      MISS },

    /* ---- WSL ---- */
    { "WSL 1",
      gd_rule_wsl,
      'e',
      { "wsl.detected=b:true", "wsl.version=i:1" },
      "wsl.version-1",
      GD_SEV_ERROR,
      { "wsl.version" },
      { "This is WSL 1, which has no GPU support", "wsl --set-version" } },
    { "WSL 2", gd_rule_wsl, 'e', { WSL2, WSL_FINE }, "wsl.version-1", MISS },
    { "WSL 2 without /dev/dxg",
      gd_rule_wsl,
      'e',
      { WSL2, "devices.dxg.present=b:false", "wsl.libcuda.present=b:true", "wsl.ld_conf=b:true" },
      "wsl.dxg-missing",
      GD_SEV_ERROR,
      { "devices.dxg.present", "wsl.detected" },
      { "/dev/dxg is missing: WSL has no GPU", "wsl --update" } },
    { "WSL 2 with /dev/dxg", gd_rule_wsl, 'e', { WSL2, WSL_FINE }, "wsl.dxg-missing", MISS },
    { "WSL 2 without the Windows driver's libcuda",
      gd_rule_wsl,
      'e',
      { WSL2, "devices.dxg.present=b:true", "wsl.libcuda.present=b:false",
        "wsl.lib_dir.present=b:false", "wsl.ld_conf=b:false" },
      "wsl.libcuda-missing",
      GD_SEV_ERROR,
      { "wsl.libcuda.present", "wsl.lib_dir.present" },
      { "/usr/lib/wsl/lib/libcuda.so.1 is missing", "wsl --shutdown" } },
    { "WSL 2 with libcuda", gd_rule_wsl, 'e', { WSL2, WSL_FINE }, "wsl.libcuda-missing", MISS },
    { "a Linux driver inside WSL",
      gd_rule_wsl,
      'e',
      { WSL2, WSL_FINE, LIBCUDA("535.104.05") },
      "wsl.linux-driver-installed",
      GD_SEV_WARNING,
      { "driver.libcuda.path", "driver.libcuda.version" },
      { "A Linux NVIDIA driver's libcuda is installed inside WSL",
        "(/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05)", "libnvidia-compute-*" } },
    { "libcuda from /usr/lib/wsl/lib",
      gd_rule_wsl,
      'e',
      { WSL2, WSL_FINE, "driver.libcuda.path=s:/usr/lib/wsl/lib/libcuda.so.1" },
      "wsl.linux-driver-installed",
      MISS },
    { "/usr/lib/wsl/lib not in ld.so.conf.d",
      gd_rule_wsl,
      'e',
      { WSL2, "devices.dxg.present=b:true", "wsl.libcuda.present=b:true", "wsl.ld_conf=b:false" },
      "wsl.ld-conf-missing",
      GD_SEV_WARNING,
      { "wsl.ld_conf" },
      { "/usr/lib/wsl/lib is not in the loader's configuration",
        "/etc/ld.so.conf.d/ld.wsl.conf" } },
    { "no ld.so.conf entry, but no libcuda to find either",
      gd_rule_wsl,
      'e',
      { WSL2, "devices.dxg.present=b:true", "wsl.libcuda.present=b:false", "wsl.ld_conf=b:false" },
      "wsl.ld-conf-missing",
      MISS },
    { "WSL 2 set up right",
      gd_rule_wsl,
      'e',
      { WSL2, WSL_FINE },
      "wsl.ok",
      GD_SEV_OK,
      { "wsl.libcuda.present", "devices.dxg.present" },
      { "WSL 2 with the Windows driver's libcuda in /usr/lib/wsl/lib and /dev/dxg" } },
    { "not WSL", gd_rule_wsl, 'e', { "wsl.detected=b:false", WSL_FINE }, "wsl.ok", MISS },

    /* ---- environment ---- */
    { "CUDA_HOME missing, nvcc on PATH",
      E,
      'e',
      { "env.CUDA_HOME=s:/usr/local/cuda-12.9", "env.CUDA_HOME.exists=b:false",
        "env.nvcc.path=s:/usr/local/cuda-12.4/bin/nvcc", "env.nvcc.cuda_version=s:12.4" },
      "env.cuda-home-missing",
      GD_SEV_WARNING,
      { "env.CUDA_HOME", "env.CUDA_HOME.exists" },
      { "CUDA_HOME points to /usr/local/cuda-12.9, which is not a directory",
        "toolkit whose nvcc is on PATH, CUDA 12.4: `export CUDA_HOME=/usr/local/cuda-12.4`." } },
    { "CUDA_HOME missing, no nvcc",
      E,
      'e',
      { "env.CUDA_HOME=s:/opt/cuda", "env.CUDA_HOME.exists=b:false",
        "env.nvcc.path=a:no nvcc in any PATH directory" },
      "env.cuda-home-missing",
      GD_SEV_WARNING,
      { "env.CUDA_HOME.exists" },
      { "`ls -d /usr/local/cuda*`", "`unset CUDA_HOME`" } },
    { "CUDA_HOME exists",
      E,
      'e',
      { "env.CUDA_HOME=s:/usr/local/cuda", "env.CUDA_HOME.exists=b:true" },
      "env.cuda-home-missing",
      MISS },
    { "CUDA_HOME not checkable",
      E,
      'e',
      { "env.CUDA_HOME=s:/root/cuda", "env.CUDA_HOME.exists=u:permission denied" },
      "env.cuda-home-missing",
      MISS },
    { "CUDA_PATH missing",
      E,
      'e',
      { "env.CUDA_PATH=s:/usr/local/cuda-11.0", "env.CUDA_PATH.exists=b:false",
        "env.nvcc.path=s:/usr/local/cuda-12.4/bin/nvcc" },
      "env.cuda-path-missing",
      GD_SEV_WARNING,
      { "env.CUDA_PATH", "env.CUDA_PATH.exists" },
      { "CUDA_PATH points to /usr/local/cuda-11.0", "`export CUDA_PATH=/usr/local/cuda-12.4`" } },
    { "CUDA_PATH exists",
      E,
      'e',
      { "env.CUDA_PATH=s:/usr/local/cuda", "env.CUDA_PATH.exists=b:true" },
      "env.cuda-path-missing",
      MISS },
    { "CUDNN_PATH missing (nvcc says nothing about cuDNN)",
      E,
      'e',
      { "env.CUDNN_PATH=s:/opt/cudnn", "env.CUDNN_PATH.exists=b:false",
        "env.nvcc.path=s:/usr/local/cuda-12.4/bin/nvcc" },
      "env.cudnn-path-missing",
      GD_SEV_WARNING,
      { "env.CUDNN_PATH", "env.CUDNN_PATH.exists" },
      { "CUDNN_PATH points to /opt/cudnn", "Point it at an installed cuDNN" } },
    { "CUDNN_PATH exists",
      E,
      'e',
      { "env.CUDNN_PATH=s:/opt/cudnn", "env.CUDNN_PATH.exists=b:true" },
      "env.cudnn-path-missing",
      MISS },
    { "LD_LIBRARY_PATH names a missing directory",
      E,
      'e',
      { "LD_LIBRARY_PATH[0].path=s:/usr/lib", "LD_LIBRARY_PATH[0].exists=b:true",
        "LD_LIBRARY_PATH[1].path=s:/opt/nope/lib", "LD_LIBRARY_PATH[1].exists=b:false" },
      "env.ld-library-path-missing-dir",
      GD_SEV_INFO,
      { "LD_LIBRARY_PATH[1].path", "LD_LIBRARY_PATH[1].exists" },
      { "LD_LIBRARY_PATH names directories that do not exist" } },
    { "LD_LIBRARY_PATH directories all exist",
      E,
      'e',
      { "LD_LIBRARY_PATH[0].path=s:/usr/lib", "LD_LIBRARY_PATH[0].exists=b:true",
        "LD_LIBRARY_PATH[1].path=s:/opt/lib", "LD_LIBRARY_PATH[1].exists=u:permission denied" },
      "env.ld-library-path-missing-dir",
      MISS },
    { "an empty LD_LIBRARY_PATH entry",
      E,
      'e',
      { "LD_LIBRARY_PATH[0].path=s:/usr/lib", "LD_LIBRARY_PATH[0].exists=b:true",
        "LD_LIBRARY_PATH[1].path=s:", "LD_LIBRARY_PATH[1].empty=b:true" },
      "env.ld-library-path-empty-entry",
      GD_SEV_INFO,
      { "LD_LIBRARY_PATH[1].path" },
      { "which means the current directory", "ld.so(8)" } },
    { "no empty entry",
      E,
      'e',
      { "LD_LIBRARY_PATH[0].path=s:/usr/lib", "LD_LIBRARY_PATH[0].exists=b:true" },
      "env.ld-library-path-empty-entry",
      MISS },
    { "CUDA 11.8 and 12.4 mixed, CUDA_HOME names 12.4",
      E,
      'e',
      { MIXED("env.CUDA_HOME.cuda_version=s:12.4") },
      "env.ld-library-path-mixed-cuda",
      GD_SEV_WARNING,
      { "LD_LIBRARY_PATH[0].cuda_version", "LD_LIBRARY_PATH[2].cuda_version",
        "LD_LIBRARY_PATH[3].path", "env.CUDA_HOME.cuda_version" },
      { "LD_LIBRARY_PATH mixes CUDA 11.8 and 12.4",
        "Keep one toolkit (CUDA 12.4, the one CUDA_HOME names): `export "
        "LD_LIBRARY_PATH=/opt/other/lib:/usr/local/cuda-12.4/lib64:/usr/local/cuda-12.4/extras/"
        "CUPTI/lib64`." } },
    { "CUDA 11.8 and 12.4 mixed, no CUDA_HOME: the first searched stays",
      E,
      'e',
      { MIXED("env.CUDA_HOME=a:not set") },
      "env.ld-library-path-mixed-cuda",
      GD_SEV_WARNING,
      { "LD_LIBRARY_PATH[0].cuda_version" },
      { "Keep one toolkit (CUDA 11.8): `export "
        "LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64:/opt/other/lib`." } },
    { "CUDA 11.8 and 12.4 mixed, CUDA_HOME names neither",
      E,
      'e',
      { MIXED("env.CUDA_HOME.cuda_version=s:13.0") },
      "env.ld-library-path-mixed-cuda",
      GD_SEV_WARNING,
      { "LD_LIBRARY_PATH[2].cuda_version" },
      { "Keep one toolkit (CUDA 11.8): `export" } },
    { "12.4 and 12.4.1: one toolkit release",
      E,
      'e',
      { "LD_LIBRARY_PATH[0].path=s:/usr/local/cuda-12.4/lib64",
        "LD_LIBRARY_PATH[0].cuda_version=s:12.4", "LD_LIBRARY_PATH[1].path=s:/usr/local/cuda/lib64",
        "LD_LIBRARY_PATH[1].cuda_version=s:12.4.1" },
      "env.ld-library-path-mixed-cuda",
      MISS },
    { "CUDA_VISIBLE_DEVICES=-1",
      E,
      'e',
      { "env.CUDA_VISIBLE_DEVICES=s:-1" },
      "env.cuda-visible-devices-hides-all",
      GD_SEV_WARNING,
      { "env.CUDA_VISIBLE_DEVICES" },
      { "CUDA_VISIBLE_DEVICES=\"-1\" hides every GPU", "`unset CUDA_VISIBLE_DEVICES`" } },
    { "CUDA_VISIBLE_DEVICES empty",
      E,
      'e',
      { "env.CUDA_VISIBLE_DEVICES=s:" },
      "env.cuda-visible-devices-hides-all",
      GD_SEV_WARNING,
      { "env.CUDA_VISIBLE_DEVICES" },
      { "CUDA_VISIBLE_DEVICES=\"\" hides every GPU" } },
    { "Slurm's NoDevFiles",
      E,
      'e',
      { "env.CUDA_VISIBLE_DEVICES=s:NoDevFiles" },
      "env.cuda-visible-devices-hides-all",
      GD_SEV_WARNING,
      { "env.CUDA_VISIBLE_DEVICES" },
      { "--gres=gpu:1" } },
    { "CUDA_VISIBLE_DEVICES=0,1",
      E,
      'e',
      { "env.CUDA_VISIBLE_DEVICES=s:0,1" },
      "env.cuda-visible-devices-hides-all",
      MISS },
    { "CUDA_VISIBLE_DEVICES by UUID",
      E,
      'e',
      { "env.CUDA_VISIBLE_DEVICES=s:GPU-8f6c1b2e-0d3a-4c5b-9e7f-123456789abc,MIG-1" },
      "env.cuda-visible-devices-hides-all",
      MISS },
    { "CUDA_VISIBLE_DEVICES not set",
      E,
      'e',
      { "env.CUDA_VISIBLE_DEVICES=a:not set" },
      "env.cuda-visible-devices-hides-all",
      MISS },
    { "nvcc 12.4, CUDA_HOME 11.8",
      E,
      'e',
      { "env.nvcc.path=s:/usr/local/cuda-12.4/bin/nvcc", "env.nvcc.cuda_version=s:12.4",
        "env.CUDA_HOME=s:/usr/local/cuda-11.8", "env.CUDA_HOME.cuda_version=s:11.8" },
      "env.nvcc-mismatch",
      GD_SEV_WARNING,
      { "env.nvcc.path", "env.nvcc.cuda_version", "env.CUDA_HOME", "env.CUDA_HOME.cuda_version" },
      { "nvcc on PATH is CUDA 12.4 but CUDA_HOME is CUDA 11.8",
        "export PATH=\"$CUDA_HOME/bin:$PATH\"" } },
    { "nvcc 12.4.1, CUDA_HOME 12.4",
      E,
      'e',
      { "env.nvcc.cuda_version=s:12.4.1", "env.CUDA_HOME.cuda_version=s:12.4" },
      "env.nvcc-mismatch",
      MISS },
    { "nvcc without CUDA_HOME",
      E,
      'e',
      { "env.nvcc.cuda_version=s:12.4", "env.CUDA_HOME=a:not set" },
      "env.nvcc-mismatch",
      MISS },
    { "CUDA_MODULE_LOADING=lazy (values are case-sensitive)",
      E,
      'e',
      { "env.CUDA_MODULE_LOADING=s:lazy" },
      "env.invalid-value",
      GD_SEV_WARNING,
      { "env.CUDA_MODULE_LOADING" },
      { "CUDA_MODULE_LOADING=\"lazy\" is not a value", "LAZY" } },
    { "XLA_PYTHON_CLIENT_MEM_FRACTION=75",
      E,
      'e',
      { "env.XLA_PYTHON_CLIENT_MEM_FRACTION=s:75" },
      "env.invalid-value",
      GD_SEV_WARNING,
      { "env.XLA_PYTHON_CLIENT_MEM_FRACTION" },
      { "a number greater than 0 and at most 1" } },
    { "KERAS_BACKEND=pytorch",
      E,
      'e',
      { "env.KERAS_BACKEND=s:pytorch" },
      "env.invalid-value",
      GD_SEV_WARNING,
      { "env.KERAS_BACKEND" },
      { "KERAS_BACKEND=\"pytorch\"", "torch" } },
    { "accepted values",
      E,
      'e',
      { "env.CUDA_MODULE_LOADING=s:LAZY", "env.XLA_PYTHON_CLIENT_MEM_FRACTION=s:.75",
        "env.KERAS_BACKEND=s:torch", "env.CUDA_DEVICE_ORDER=s:PCI_BUS_ID",
        "env.TF_FORCE_GPU_ALLOW_GROWTH=s:true" },
      "env.invalid-value",
      MISS },
    { "PYTORCH_CUDA_ALLOC_CONF with an unknown option",
      E,
      'e',
      { "env.PYTORCH_CUDA_ALLOC_CONF=s:expandable_segments:True,max_split_mb:128" },
      "env.pytorch-alloc-conf-invalid",
      GD_SEV_ERROR,
      { "env.PYTORCH_CUDA_ALLOC_CONF" },
      { "PYTORCH_CUDA_ALLOC_CONF has an option PyTorch does not know: \"max_split_mb:128\"",
        "max_split_size_mb" } },
    { "PYTORCH_CUDA_ALLOC_CONF without option:value",
      E,
      'e',
      { "env.PYTORCH_CUDA_ALLOC_CONF=s:expandable_segments" },
      "env.pytorch-alloc-conf-invalid",
      GD_SEV_ERROR,
      { "env.PYTORCH_CUDA_ALLOC_CONF" },
      { "\"expandable_segments\"" } },
    { "PYTORCH_CUDA_ALLOC_CONF well formed",
      E,
      'e',
      { "env.PYTORCH_CUDA_ALLOC_CONF=s:expandable_segments:True, max_split_size_mb:128" },
      "env.pytorch-alloc-conf-invalid",
      MISS },
    { "TF_CPP_MIN_LOG_LEVEL=3",
      E,
      't',
      { "env.TF_CPP_MIN_LOG_LEVEL=s:3" },
      "env.tf-warnings-hidden",
      GD_SEV_INFO,
      { "env.TF_CPP_MIN_LOG_LEVEL" },
      { "TF_CPP_MIN_LOG_LEVEL=3 hides TensorFlow's warnings", "`unset TF_CPP_MIN_LOG_LEVEL`" } },
    { "TF_CPP_MIN_LOG_LEVEL=1",
      E,
      't',
      { "env.TF_CPP_MIN_LOG_LEVEL=s:1" },
      "env.tf-warnings-hidden",
      MISS },

    /* ---- the inspected tree ---- */
    { "a symlink loop",
      gd_rule_root,
      'e',
      { "anomaly[0].kind=s:symlink-loop", "anomaly[0].path=s:/usr/lib/libcuda.so.1",
        "anomaly[0].detail=s:/usr/lib" },
      "root.symlink-loop",
      GD_SEV_WARNING,
      { "anomaly[0].path", "anomaly[0].detail" },
      { "/usr/lib/libcuda.so.1 cannot be opened: its symbolic links loop",
        "`namei -l /usr/lib/libcuda.so.1`" } },
    { "an anomaly without a path",
      gd_rule_root,
      'e',
      { "anomaly[0].kind=s:symlink-loop", "anomaly[0].path=u:x" },
      "root.symlink-loop",
      MISS },
    { "anomaly facts on another kind of entity",
      gd_rule_root,
      'e',
      { "notanomaly.kind=s:symlink-loop", "notanomaly.path=s:/x" },
      "root.symlink-loop",
      MISS },
    { "a link above the root",
      gd_rule_root,
      'e',
      { "anomaly[0].kind=s:symlink-escape", "anomaly[0].path=s:/usr/local/cuda/lib64",
        "anomaly[0].detail=s:/usr/local/cuda -> ../../../../opt/cuda" },
      "root.symlink-escape",
      GD_SEV_WARNING,
      { "anomaly[0].path", "anomaly[0].detail" },
      { "A symbolic link on the way to /usr/local/cuda/lib64 climbs above the root" } },
    { "an unknown anomaly kind",
      gd_rule_root,
      'e',
      { "anomaly[0].kind=s:symlink-escaped", "anomaly[0].path=s:/x" },
      "root.symlink-escape",
      MISS },
    { "an unreadable file",
      gd_rule_root,
      'e',
      { "anomaly[0].kind=s:unreadable", "anomaly[0].path=s:/etc/ld.so.cache",
        "anomaly[0].detail=s:permission denied" },
      "root.unreadable",
      GD_SEV_WARNING,
      { "anomaly[0].path", "anomaly[0].detail" },
      { "/etc/ld.so.cache cannot be read (permission denied)", "`ls -l /etc/ld.so.cache`" } },
    { "unreadable, kind not known",
      gd_rule_root,
      'e',
      { "anomaly[0].kind=u:x", "anomaly[0].path=s:/etc/ld.so.cache" },
      "root.unreadable",
      MISS },
    { "a file too large",
      gd_rule_root,
      'e',
      { "anomaly[0].kind=s:too-large", "anomaly[0].path=s:/etc/os-release",
        "anomaly[0].detail=s:larger than 65536 bytes" },
      "root.too-large",
      GD_SEV_WARNING,
      { "anomaly[0].path", "anomaly[0].detail" },
      { "/etc/os-release is far larger than such a file can be (larger than 65536 bytes)",
        "`head -c 200 /etc/os-release`" } },
    { "a too-large note on a non-anomaly",
      gd_rule_root,
      'e',
      { "host.kind=s:too-large", "host.path=s:/etc/os-release" },
      "root.too-large",
      MISS },
    { "a FIFO as a file",
      gd_rule_root,
      'e',
      { "anomaly[0].kind=s:not-regular", "anomaly[0].path=s:/proc/driver/nvidia/version",
        "anomaly[0].detail=s:not a regular file", "anomaly[1].kind=s:unreadable",
        "anomaly[1].path=s:/x" },
      "root.not-regular",
      GD_SEV_WARNING,
      { "anomaly[0].path", "anomaly[0].detail" },
      { "/proc/driver/nvidia/version is not a regular file" } },
    { "nothing odd in the tree",
      gd_rule_root,
      'e',
      { "host.os.id=s:debian" },
      "root.not-regular",
      MISS },
    { "anomalies dropped",
      gd_rule_root,
      'e',
      { "root.anomalies.dropped=i:7" },
      "root.more-anomalies",
      GD_SEV_INFO,
      { "root.anomalies.dropped" },
      { "More problems in the tree were found than listed" } },
    { "none dropped",
      gd_rule_root,
      'e',
      { "anomaly[0].kind=s:unreadable", "anomaly[0].path=s:/x" },
      "root.more-anomalies",
      MISS },

    /* ---- CUDA libraries ---- */
    { "the loader finds cudart",
      gd_rule_libs,
      'e',
      { "soname:libcudart.so.12|family=s:cudart",
        "soname:libcudart.so.12|path=s:/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127",
        "soname:libcudart.so.12|soname=s:libcudart.so.12",
        "cudart:/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127|path=s:/usr/local/cuda-12.4/"
        "lib64/libcudart.so.12.4.127",
        "cudart:/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127|version=s:12.4.127" },
      "libs.found",
      GD_SEV_OK,
      { "soname:libcudart.so.12.path",
        "cudart:/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127.version" },
      { "Programs load CUDA runtime 12.4.127" } },
    { "nothing resolved: no summary",
      gd_rule_libs,
      'e',
      { "soname:libcudart.so.12|family=s:cudart", "soname:libcudart.so.12|path=a:not found" },
      "libs.found",
      MISS },
    { "only the stub",
      gd_rule_libs,
      'e',
      { "cuda:/usr/local/cuda/lib64/stubs/libcuda.so|family=s:cuda",
        "cuda:/usr/local/cuda/lib64/stubs/libcuda.so|path=s:/usr/local/cuda/lib64/stubs/libcuda.so",
        "cuda:/usr/local/cuda/lib64/stubs/libcuda.so|stub=b:true", NO_LIBCUDA },
      "libs.cuda-stub-only",
      GD_SEV_INFO,
      { "cuda:/usr/local/cuda/lib64/stubs/libcuda.so.path", "driver.libcuda.path" },
      { "link-time stub", "never copy or link the stub" } },
    { "the stub next to the driver's libcuda",
      gd_rule_libs,
      'e',
      { "cuda:/usr/local/cuda/lib64/stubs/libcuda.so|family=s:cuda",
        "cuda:/usr/local/cuda/lib64/stubs/libcuda.so|stub=b:true",
        "cuda:/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14|family=s:cuda",
        "cuda:/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14|stub=b:false" },
      "libs.cuda-stub-only",
      MISS },
    { "libcuda.so.1 resolves to the stub",
      gd_rule_libs,
      'e',
      { "soname:libcuda.so.1|path=s:/usr/local/cuda/lib64/stubs/libcuda.so.1",
        "soname:libcuda.so.1|rule=s:LD_LIBRARY_PATH",
        "cuda:/usr/local/cuda/lib64/stubs/libcuda.so.1|family=s:cuda",
        "cuda:/usr/local/cuda/lib64/stubs/libcuda.so.1|path=s:/usr/local/cuda/lib64/stubs/"
        "libcuda.so.1",
        "cuda:/usr/local/cuda/lib64/stubs/libcuda.so.1|stub=b:true" },
      "libs.stub-on-search-path",
      GD_SEV_ERROR,
      { "soname:libcuda.so.1.path", "soname:libcuda.so.1.rule" },
      { "CUDA_ERROR_STUB_LIBRARY", "LD_LIBRARY_PATH" } },
    { "libcuda.so.1 resolves to the stub through a link made in the stubs directory",
      gd_rule_libs,
      'e',
      { "soname:libcuda.so.1|soname=s:libcuda.so.1",
        "soname:libcuda.so.1|path=s:/usr/local/cuda/lib64/stubs/libcuda.so.1",
        "soname:libcuda.so.1|rule=s:LD_LIBRARY_PATH",
        "cuda:/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so|family=s:cuda",
        "cuda:/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so|path=s:/usr/local/"
        "cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so",
        "cuda:/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so|stub=b:true",
        "cuda:/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/"
        "libcuda.so|loader.selected_for=s:libcuda.so.1" },
      "libs.stub-on-search-path",
      GD_SEV_ERROR,
      { "soname:libcuda.so.1.path", "soname:libcuda.so.1.rule" },
      { "Programs would load the CUDA stub "
        "/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so" } },
    { "the loader finds cuDNN through its SONAME link",
      gd_rule_libs,
      'e',
      { "soname:libcudnn.so.9|family=s:cudnn", "soname:libcudnn.so.9|soname=s:libcudnn.so.9",
        "soname:libcudnn.so.9|path=s:/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0|path=s:/usr/lib/x86_64-linux-gnu/"
        "libcudnn.so.9.1.0",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0|version=s:9.1.0",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0|loader.selected_for=s:libcudnn.so.9" },
      "libs.found",
      GD_SEV_OK,
      { "soname:libcudnn.so.9.path", "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0.version" },
      { "Programs load cuDNN 9.1.0" } },
    { "libcuda.so.1 resolves to the driver",
      gd_rule_libs,
      'e',
      { "soname:libcuda.so.1|path=s:/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14",
        "cuda:/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14|path=s:/usr/lib/x86_64-linux-gnu/"
        "libcuda.so.550.54.14",
        "cuda:/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14|stub=b:false" },
      "libs.stub-on-search-path",
      MISS },
    { "cuDNN 8 and 9",
      gd_rule_libs,
      'e',
      { "soname:libcudnn.so.8|family=s:cudnn", "soname:libcudnn.so.8|soname=s:libcudnn.so.8",
        "soname:libcudnn.so.8|path=s:/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7",
        "soname:libcudnn.so.9|family=s:cudnn", "soname:libcudnn.so.9|soname=s:libcudnn.so.9",
        "soname:libcudnn.so.9|path=s:/opt/cudnn9/lib/libcudnn.so.9.1.0" },
      "libs.multiple-majors",
      GD_SEV_INFO,
      { "soname:libcudnn.so.8.path", "soname:libcudnn.so.9.path" },
      { "libcudnn.so.8 and libcudnn.so.9" } },
    { "one cuDNN",
      gd_rule_libs,
      'e',
      { "soname:libcudnn.so.9|family=s:cudnn", "soname:libcudnn.so.9|soname=s:libcudnn.so.9",
        "soname:libcudnn.so.9|path=s:/opt/cudnn9/lib/libcudnn.so.9.1.0" },
      "libs.multiple-majors",
      MISS },
    { "LD_LIBRARY_PATH shadows the cache's cuDNN",
      gd_rule_libs,
      'e',
      { "soname:libcudnn.so.9|family=s:cudnn", "soname:libcudnn.so.9|soname=s:libcudnn.so.9",
        "soname:libcudnn.so.9|path=s:/opt/old/lib/libcudnn.so.9",
        "soname:libcudnn.so.9|rule=s:LD_LIBRARY_PATH",
        "cudnn:/opt/old/lib/libcudnn.so.9|path=s:/opt/old/lib/libcudnn.so.9",
        "cudnn:/opt/old/lib/libcudnn.so.9|soname=s:libcudnn.so.9",
        "cudnn:/opt/old/lib/libcudnn.so.9|version=s:9.0.0",
        "cudnn:/opt/old/lib/libcudnn.so.9|found_in=s:LD_LIBRARY_PATH",
        "cudnn:/opt/old/lib/libcudnn.so.9|loader_directory=b:true",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0|path=s:/usr/lib/x86_64-linux-gnu/"
        "libcudnn.so.9.1.0",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0|soname=s:libcudnn.so.9",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0|version=s:9.1.0",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0|found_in=s:ld.so.cache",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0|loader_directory=b:true",
        "env.LD_LIBRARY_PATH=s:/opt/old/lib" },
      "libs.ld-library-path-shadows",
      GD_SEV_WARNING,
      { "soname:libcudnn.so.9.path", "soname:libcudnn.so.9.rule", "env.LD_LIBRARY_PATH",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0.path" },
      { "/opt/old/lib/libcudnn.so.9 (9.0.0) instead of "
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0 (9.1.0)",
        "remove its directory from LD_LIBRARY_PATH" } },
    { "the cache's own cuDNN",
      gd_rule_libs,
      'e',
      { "soname:libcudnn.so.9|family=s:cudnn", "soname:libcudnn.so.9|soname=s:libcudnn.so.9",
        "soname:libcudnn.so.9|path=s:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0",
        "soname:libcudnn.so.9|rule=s:ld.so.cache" },
      "libs.ld-library-path-shadows",
      MISS },
    { "a dangling cuDNN link",
      gd_rule_libs,
      'e',
      { "library_link[0].path=s:/usr/lib/x86_64-linux-gnu/libcudnn.so.8",
        "library_link[0].target=s:libcudnn.so.8.9.7",
        "library_link[0].problem=s:dangling symlink" },
      "libs.broken-link",
      GD_SEV_WARNING,
      { "library_link[0].path", "library_link[0].target" },
      { "dangling symlink to libcudnn.so.8.9.7", "sudo ldconfig" } },
    { "no broken link",
      gd_rule_libs,
      'e',
      { "soname:libcudnn.so.9|family=s:cudnn" },
      "libs.broken-link",
      MISS },
    { "only libcudnn.so.8.9.7, no libcudnn.so.8",
      gd_rule_libs,
      'e',
      { "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7|path=s:/usr/lib/x86_64-linux-gnu/"
        "libcudnn.so.8.9.7",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7|soname=s:libcudnn.so.8",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7|soname_link.present=b:false" },
      "libs.missing-soname-link",
      GD_SEV_ERROR,
      { "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7.soname",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7.soname_link.present" },
      { "has no libcudnn.so.8 link", "sudo ldconfig", "ln -s libcudnn.so.8.9.7 libcudnn.so.8" } },
    { "the link is there",
      gd_rule_libs,
      'e',
      { "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7|soname=s:libcudnn.so.8",
        "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7|soname_link.present=b:true" },
      "libs.missing-soname-link",
      MISS },
    { "cuDNN headers 8.9.7, library 8.6.0",
      gd_rule_libs,
      'e',
      { "cudnn:/opt/cudnn/lib/libcudnn.so.8|path=s:/opt/cudnn/lib/libcudnn.so.8",
        "cudnn:/opt/cudnn/lib/libcudnn.so.8|version.header=s:8.9.7",
        "cudnn:/opt/cudnn/lib/libcudnn.so.8|version.wheel=s:8.6.0.163" },
      "libs.header-mismatch",
      GD_SEV_WARNING,
      { "cudnn:/opt/cudnn/lib/libcudnn.so.8.version.header",
        "cudnn:/opt/cudnn/lib/libcudnn.so.8.version.wheel" },
      { "say 8.9.7 but the library is 8.6.0.163" } },
    { "headers 9.1.0, file name 9: they agree",
      gd_rule_libs,
      'e',
      { "cudnn:/opt/cudnn/lib/libcudnn.so.9|path=s:/opt/cudnn/lib/libcudnn.so.9",
        "cudnn:/opt/cudnn/lib/libcudnn.so.9|version.header=s:9.1.0",
        "cudnn:/opt/cudnn/lib/libcudnn.so.9|version.name=s:9" },
      "libs.header-mismatch",
      MISS },
    { "the version call crashed",
      gd_rule_libs,
      'e',
      { "cudnn:/opt/cudnn/lib/libcudnn.so.9|path=s:/opt/cudnn/lib/libcudnn.so.9",
        "cudnn:/opt/cudnn/lib/libcudnn.so.9|version.call=u:crashed with SIGSEGV during call" },
      "libs.call-failed",
      GD_SEV_WARNING,
      { "cudnn:/opt/cudnn/lib/libcudnn.so.9.version.call" },
      { "crashed with SIGSEGV during call", "gpudoctor which --tree" } },
    { "the version call was not asked",
      gd_rule_libs,
      'e',
      { "cudnn:/opt/cudnn/lib/libcudnn.so.9|path=s:/opt/cudnn/lib/libcudnn.so.9",
        "cudnn:/opt/cudnn/lib/libcudnn.so.9|version.call=u:not asked: gpudoctor check --calls "
        "loads the library to ask it" },
      "libs.call-failed",
      MISS },
    /* ---- imports ---- */
    { "the import raised: a library the loader cannot find",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:ok"), IMP("imported=b:false"),
        IMP("error=s:ImportError: libcudnn.so.8: cannot open shared object file: No such file or "
            "directory"),
        IMP("stderr.count=i:2"), IMP("stderr[0]=s:Traceback (most recent call last):"),
        IMP("stderr[1]=s:ImportError: libcudnn.so.8: cannot open shared object file") },
      "import.failed",
      GD_SEV_ERROR,
      { "import:/venv:torch.imported", "import:/venv:torch.error", "import:/venv:torch.stderr[1]" },
      { "torch cannot be imported in /venv: ImportError: libcudnn.so.8",
        "`gpudoctor which libcudnn.so.8`", "/venv/bin/python -c 'import torch'" } },
    { "Python exited before answering: the framework is not on its path",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:exit 1"),
        IMP("imported=u:/venv/bin/python exited with status 1 without an answer"),
        IMP("error=s:ModuleNotFoundError: No module named 'torch'") },
      "import.failed",
      GD_SEV_ERROR,
      { "import:/venv:torch.status", "import:/venv:torch.error" },
      { "No module named 'torch'", "print(sys.path)" } },
    { "a module the framework needs is missing",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:ok"), IMP("imported=b:false"),
        IMP("error=s:ModuleNotFoundError: No module named 'numpy'") },
      "import.failed",
      GD_SEV_ERROR,
      { "import:/venv:torch.imported" },
      { "imports the module `numpy`, which this environment lacks" } },
    { "the interpreter cannot be started",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:exec failed: No such file or directory"),
        IMP("imported=u:/venv/bin/python could not be started: No such file or directory") },
      "import.failed",
      GD_SEV_ERROR,
      { "import:/venv:torch.python", "import:/venv:torch.status" },
      { "/venv/bin/python of /venv cannot be started: No such file or directory",
        "`ls -lL /venv/bin/python`" } },
    { "the import worked",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:ok"), IMP("imported=b:true") },
      "import.failed",
      MISS },
    { "not run under --root",
      I,
      'e',
      { IMP_BASE("torch"),
        IMP("status=u:not run: nothing under a foreign root (--root) is executed"),
        IMP("imported=u:not run: nothing under a foreign root (--root) is executed") },
      "import.failed",
      MISS },
    { "the import crashed",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:signal SIGSEGV"),
        IMP("imported=u:/venv/bin/python was killed by SIGSEGV before it answered"),
        IMP("stderr.count=i:1"), IMP("stderr[0]=s:Fatal Python error: Segmentation fault") },
      "import.crashed",
      GD_SEV_ERROR,
      { "import:/venv:torch.status", "import:/venv:torch.stderr[0]" },
      { "Importing torch in /venv crashed: SIGSEGV", "-X faulthandler" } },
    { "TensorFlow dies of SIGILL: AVX",
      I,
      'e',
      { IMP_BASE("tensorflow"), IMP_FW("tensorflow", "status=s:signal SIGILL") },
      "import.crashed",
      GD_SEV_ERROR,
      { "import:/venv:tensorflow.status" },
      { "AVX", "grep -o -m1 -w avx /proc/cpuinfo" } },
    { "a timeout is no crash",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:timeout") },
      "import.crashed",
      MISS },
    { "the import hung",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:timeout"), "imports.timeout_s=i:60",
        IMP("imported=u:/venv/bin/python did not answer within 60 s (killed)") },
      "import.timeout",
      GD_SEV_WARNING,
      { "import:/venv:torch.status", "imports.timeout_s" },
      { "did not finish within 60 s", "timeout -s INT 300 /venv/bin/python", "--import-timeout" } },
    { "an answer in time",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:ok") },
      "import.timeout",
      MISS },
    { "no answer",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:bad answer: not JSON: unexpected character"),
        IMP("imported=u:the answer was not understood: not JSON: unexpected character") },
      "import.no-answer",
      GD_SEV_WARNING,
      { "import:/venv:torch.status" },
      { "did not answer about torch", "torch.cuda.is_available()" } },
    { "an exit status is a failure, not a missing answer",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:exit 2") },
      "import.no-answer",
      MISS },
    { "a CUDA build that sees no GPU",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:ok"), IMP("imported=b:true"), IMP("version=s:2.1.0+cu121"),
        IMP("cuda_build=b:true"), IMP("cuda=s:12.1"), IMP("cuda_available=b:false"),
        IMP("device_count=i:0"), IMP("stderr.count=i:1"),
        IMP("stderr[0]=s:UserWarning: CUDA initialization: Found no NVIDIA driver on your system."),
        "env.CUDA_VISIBLE_DEVICES=s:", NO_KM, "driver.module.nvidia.loaded=b:false" },
      "import.gpu-not-visible",
      GD_SEV_WARNING,
      { "import:/venv:torch.cuda_available", "import:/venv:torch.cuda_build",
        "import:/venv:torch.stderr[0]", "env.CUDA_VISIBLE_DEVICES" },
      { "torch 2.1.0+cu121 in /venv is built for CUDA but sees no GPU",
        "No CUDA GPUs are available", "No NVIDIA kernel module is loaded",
        "CUDA_VISIBLE_DEVICES= chooses" } },
    { "JAX: the CUDA build known from its files",
      I,
      'e',
      { IMP_BASE("jax"), IMP_FW("jax", "status=s:ok"), IMP_FW("jax", "imported=b:true"),
        IMP_FW("jax", "cuda_available=b:false"), "framework:/x|framework=s:jax",
        "framework:/x|env=s:/venv", "framework:/x|build=s:cuda" },
      "import.gpu-not-visible",
      GD_SEV_WARNING,
      { "import:/venv:jax.cuda_available" },
      { "jax in /venv is built for CUDA but sees no GPU", "print(jax.devices())" } },
    { "a CPU build sees no GPU, as it should",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:ok"), IMP("imported=b:true"), IMP("cuda_build=b:false"),
        IMP("cuda_available=b:false"), "framework:/x|framework=s:torch", "framework:/x|env=s:/venv",
        "framework:/x|build=s:cuda" },
      "import.gpu-not-visible",
      MISS },
    { "imports and sees its GPUs",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:ok"), IMP("imported=b:true"), IMP("version=s:2.1.0+cu121"),
        IMP("cuda_build=b:true"), IMP("cuda_available=b:true"), IMP("device_count=i:2") },
      "import.ok",
      GD_SEV_OK,
      { "import:/venv:torch.imported", "import:/venv:torch.cuda_available" },
      { "torch 2.1.0+cu121 imports in /venv and sees 2 GPUs" } },
    { "no ok for a failed import",
      I,
      'e',
      { IMP_BASE("torch"), IMP("status=s:ok"), IMP("imported=b:false") },
      "import.ok",
      MISS },
    /* ---- knowledge base ---- */
    { "a --kb table that failed to load",
      gd_rule_kb,
      'e',
      { "kb.problem[0]=s:/tmp/kb/env_values.json: invalid JSON: unexpected character (the "
        "embedded table is used)" },
      "kb.table-invalid",
      GD_SEV_WARNING,
      { "kb.problem[0]" },
      { "A knowledge-base table was not used: /tmp/kb/env_values.json: invalid JSON",
        "docs/kb.md" } },
    { "no KB problem", gd_rule_kb, 'e', { "host.os.id=s:debian" }, "kb.table-invalid", MISS },
    /* ---- frameworks and Keras ---- */
    /* 550.54.14 runs both CUDA variants of 2.1.0 (cu121: 530.30.02): the newer one, with the
     * command of PyTorch's previous-versions page. */
    { "torch +cpu on a GPU machine",
      gd_rule_frameworks,
      'e',
      { "gpus.count=i:1", KM("550.54.14"), GPU("8.6"), FW("/v/t", "torch", "torch", "2.1.0+cpu"),
        "framework:/v/t.build=s:cpu" },
      "framework.cpu-only-build",
      GD_SEV_WARNING,
      { "framework:/v/t.build", "gpus.count", "driver.kernel_module.version" },
      { "torch 2.1.0+cpu in /v is a CPU-only build",
        "`pip uninstall torch`, then install the CUDA build of the same release that this "
        "machine runs: torch 2.1.0, its cu121 wheel (CUDA 12.1): `pip install torch==2.1.0 "
        "--index-url https://download.pytorch.org/whl/cu121`.",
        "Reference: https://github.com/pytorch/pytorch.github.io/blob/" } },
    /* 470.82.01: cu121 not at all (the 12 family needs 525), cu118 through minor version
     * compatibility (450.80.02). */
    { "torch +cpu on a 470 driver",
      gd_rule_frameworks,
      'e',
      { "gpus.count=i:1", KM("470.82.01"), GPU("8.6"), FW("/v/t", "torch", "torch", "2.1.0+cpu"),
        "framework:/v/t.build=s:cpu" },
      "framework.cpu-only-build",
      GD_SEV_WARNING,
      { "driver.kernel_module.version" },
      { "torch 2.1.0, its cu118 wheel (CUDA 11.8, through minor version compatibility): `pip "
        "install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu118`." } },
    /* 450.36.06 runs no variant of 2.5.1 (CUDA 11.8 needs 450.80.02 even through minor
     * version compatibility): the newest release it does run, 1.12.1's CUDA 10.2 wheel. */
    { "torch +cpu whose release this driver cannot run",
      gd_rule_frameworks,
      'e',
      { "gpus.count=i:1", KM("450.36.06"), GPU("7.0"), FW("/v/t", "torch", "torch", "2.5.1+cpu"),
        "framework:/v/t.build=s:cpu" },
      "framework.cpu-only-build",
      GD_SEV_WARNING,
      { "driver.kernel_module.version" },
      { "No CUDA build of torch 2.5.1 in the knowledge base surely runs on this machine.",
        "install the newest release that does: torch 1.12.1, its cu102 wheel (CUDA 10.2): `pip "
        "install torch==1.12.1+cu102 --extra-index-url "
        "https://download.pytorch.org/whl/cu102`." } },
    /* Without a driver version nothing is chosen. */
    { "torch +cpu, driver version unknown",
      gd_rule_frameworks,
      'e',
      { "gpus.count=i:1", "driver.module.nvidia.loaded=b:true", GPU("8.6"),
        FW("/v/t", "torch", "torch", "2.1.0+cpu"), "framework:/v/t.build=s:cpu" },
      "framework.cpu-only-build",
      GD_SEV_WARNING,
      { "framework:/v/t.build" },
      { "No CUDA build of torch 2.1.0 in the knowledge base surely runs on this machine.",
        "The driver's version is not known, so no torch build can be chosen" } },
    /* jaxlib without a plugin on 550: the CUDA 12 plugin (>= 525, SM 5.2+); not CUDA 13's
     * (>= 580). */
    { "jaxlib without its CUDA plugin",
      gd_rule_frameworks,
      'e',
      { "gpus.count=i:1", KM("550.54.14"), GPU("8.6"), FW("/v/t", "jax", "jaxlib", "0.4.30"),
        "framework:/v/t.build=s:cpu" },
      "framework.cpu-only-build",
      GD_SEV_WARNING,
      { "framework:/v/t.build" },
      { "Beside jaxlib 0.4.30, install JAX with its CUDA 12 plugin (jax-cuda12-plugin; driver 525 "
        "or newer, compute capability 5.2 or newer): `pip install -U 'jax[cuda12]'`." } },
    { "Debian's python3-torch without a GPU",
      gd_rule_frameworks,
      'e',
      { "gpus.count=a:", "framework:/v/t.framework=s:torch", "framework:/v/t.dist=s:torch",
        "framework:/v/t.version=s:1.13.0a0+gitunknown", "framework:/v/t.env=s:/usr",
        "framework:/v/t.site=s:/usr/lib/python3/dist-packages", "framework:/v/t.build=s:cpu" },
      "framework.cpu-only-build",
      GD_SEV_INFO,
      { "framework:/v/t.build" },
      { "CPU-only build" } },
    /* 2.16.1 is tested with CUDA 12.3 (545.23.06): 550.54.14 runs it. */
    { "tensorflow-cpu with a GPU",
      gd_rule_frameworks,
      'e',
      { "gpus.count=i:2", KM("550.54.14"), GPU("8.6"),
        FW("/v/t", "tensorflow", "tensorflow-cpu", "2.16.1"), "framework:/v/t.build=s:cpu" },
      "framework.cpu-only-build",
      GD_SEV_WARNING,
      { "framework:/v/t.build" },
      { "`pip uninstall tensorflow-cpu`, then install the CUDA build of the same release: "
        "TensorFlow 2.16.1 (tested with CUDA 12.3, cuDNN 8.9): `python3 -m pip install "
        "'tensorflow[and-cuda]==2.16.1'` (the and-cuda extra brings CUDA and cuDNN).",
        "Reference: https://www.tensorflow.org/install/source#gpu" } },
    /* On 470.82.01 2.16.1's CUDA 12.3 does not start. CUDA 11.8 (2.12 to 2.14) would run only
     * through minor version compatibility, while 2.5.0 to 2.11.0 (CUDA 11.2, 460.27.03) run
     * with the toolkit's own driver: the newest of those comes first. */
    { "tensorflow-cpu on a 470 driver",
      gd_rule_frameworks,
      'e',
      { "gpus.count=i:1", KM("470.82.01"), GPU("8.6"),
        FW("/v/t", "tensorflow", "tensorflow-cpu", "2.16.1"), "framework:/v/t.build=s:cpu" },
      "framework.cpu-only-build",
      GD_SEV_WARNING,
      { "driver.kernel_module.version" },
      { "No tested CUDA build of TensorFlow 2.16.1 in the knowledge base surely runs",
        "install the newest release that does: TensorFlow 2.11.0 (tested with CUDA 11.2, cuDNN "
        "8.1): `python3 -m pip install 'tensorflow==2.11.*'`, with that CUDA and cuDNN installed "
        "where the loader finds them." } },
    { "a CUDA build",
      gd_rule_frameworks,
      'e',
      { "gpus.count=i:1", FW("/v/t", "torch", "torch", "2.1.0+cu121"),
        "framework:/v/t.build=s:cuda" },
      "framework.cpu-only-build",
      MISS },
    { "cuDNN 8 missing, cuDNN 9 present",
      gd_rule_frameworks,
      'e',
      { FW("/v/t", "torch", "torch", "2.1.0+cu121"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.1",
        "framework:/v/t|requires.nvidia-cudnn-cu12=s:==8.9.2.26", LIB("cudnn", "libcudnn.so.8"),
        "framework_lib:/v/t:cudnn.path=a:not found", "framework_lib:/v/t:cudnn.optional=b:false",
        "cudnn:/usr/lib/cudnn9|path=s:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0",
        "cudnn:/usr/lib/cudnn9|family=s:cudnn", "cudnn:/usr/lib/cudnn9|version=s:9.1.0" },
      "framework.cuda-lib-missing",
      GD_SEV_ERROR,
      { "framework_lib:/v/t:cudnn.path", "cudnn:/usr/lib/cudnn9.version",
        "framework:/v/t.requires.nvidia-cudnn-cu12" },
      { "needs libcudnn.so.8", "pip install 'nvidia-cudnn-cu12==8.9.2.26'" } },
    { "a missing library without a pin: the CUDA libraries to install",
      gd_rule_frameworks,
      'e',
      { FW("/v/t", "tensorflow", "tensorflow", "2.15.0"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.2", "framework_lib:/v/t:fft|soname=s:libcufft.so.11",
        "framework_lib:/v/t:fft.framework=s:framework:/v/t", "framework_lib:/v/t:fft.how=s:dlopen",
        "framework_lib:/v/t:fft.family=s:cufft", "framework_lib:/v/t:fft.path=a:not found" },
      "framework.cuda-lib-missing",
      GD_SEV_ERROR,
      { "framework_lib:/v/t:fft.path" },
      { "provide libcufft.so.11", "Could not load dynamic library" } },
    { "an optional library missing",
      gd_rule_frameworks,
      'e',
      { FW("/v/t", "tensorflow", "tensorflow", "2.15.0"), "framework:/v/t.build=s:cuda",
        LIB("cupti", "libcupti.so.12"), "framework_lib:/v/t:cupti.path=a:not found",
        "framework_lib:/v/t:cupti.optional=b:true" },
      "framework.cuda-lib-missing",
      MISS },
    { "SASS up to sm_86 on an H100",
      gd_rule_frameworks,
      'e',
      { GPU("9.0"), FW("/v/t", "torch", "torch", "1.12.1+cu113"), "framework:/v/t.build=s:cuda",
        KERNELS("sm_37,sm_50,sm_60,sm_70,sm_75,sm_80,sm_86"), "kernels:/v/k.ptx=a:no PTX entry" },
      "framework.no-kernel-for-gpu",
      GD_SEV_ERROR,
      { "gpu:0.compute_capability", "kernels:/v/k.sass", "kernels:/v/k.ptx" },
      { "compute capability 9.0", "no kernel image is available", "sm_90" } },
    { "PTX compute_80 serves an H100",
      gd_rule_frameworks,
      'e',
      { GPU("9.0"), FW("/v/t", "torch", "torch", "1.12.1+cu113"), "framework:/v/t.build=s:cuda",
        KERNELS("sm_80,sm_86"), "kernels:/v/k.ptx=s:compute_80" },
      "framework.no-kernel-for-gpu",
      MISS },
    { "PTX only for an H100",
      gd_rule_frameworks,
      'e',
      { GPU("9.0"), FW("/v/t", "torch", "torch", "1.12.1+cu113"), "framework:/v/t.build=s:cuda",
        KERNELS("sm_80,sm_86"), "kernels:/v/k.ptx=s:compute_80" },
      "framework.ptx-jit-only",
      GD_SEV_WARNING,
      { "kernels:/v/k.ptx" },
      { "only PTX" } },
    { "SASS sm_80 serves compute capability 8.6",
      gd_rule_frameworks,
      'e',
      { GPU("8.6"), FW("/v/t", "torch", "torch", "2.1.0+cu121"), "framework:/v/t.build=s:cuda",
        KERNELS("sm_80,sm_90"), "kernels:/v/k.ptx=s:compute_90" },
      "framework.ptx-jit-only",
      MISS },
    { "sm_90a serves 9.0 only: not an RTX 5090",
      gd_rule_frameworks,
      'e',
      { GPU("12.0"), FW("/v/t", "torch", "torch", "2.6.0+cu126"), "framework:/v/t.build=s:cuda",
        KERNELS("sm_80,sm_90,sm_90a"), "kernels:/v/k.ptx=s:compute_90a" },
      "framework.no-kernel-for-gpu",
      GD_SEV_ERROR,
      { "kernels:/v/k.ptx" },
      { "compute capability 12.0" } },
    { "TensorFlow's build_info list on a Kepler GK104",
      gd_rule_frameworks,
      'e',
      { GPU("3.0"), FW("/v/t", "tensorflow", "tensorflow", "2.4.0"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.compute_capabilities=s:sm_35,sm_50,sm_60,sm_70,sm_75,compute_80" },
      "framework.no-kernel-for-gpu",
      GD_SEV_ERROR,
      { "framework:/v/t.build.compute_capabilities" },
      { "compute capability 3.0" } },
    { "TensorFlow's compute_80 is SASS too: an RTX 3090 runs it",
      gd_rule_frameworks,
      'e',
      { GPU("8.6"), FW("/v/t", "tensorflow", "tensorflow", "2.4.0"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.compute_capabilities=s:sm_35,sm_50,sm_60,sm_70,sm_75,compute_80" },
      "framework.ptx-jit-only",
      MISS },
    { "TensorFlow (cuDNN 8) and torch (cuDNN 9) in one venv",
      gd_rule_frameworks,
      'e',
      { VENV, FW("/v/tf", "tensorflow", "tensorflow", "2.15.0"), "framework:/v/tf.build=s:cuda",
        "framework:/v/tf|build.cudnn=s:8", FW("/v/t", "torch", "torch", "2.4.0+cu121"),
        "framework:/v/t.build=s:cuda", LIB("cudnn", "libcudnn.so.9") },
      "framework.cudnn-major-conflict",
      GD_SEV_ERROR,
      { "framework:/v/tf.build.cudnn", "framework_lib:/v/t:cudnn.soname" },
      { "cuDNN 8", "cuDNN 9", "own virtual environment" } },
    { "one cuDNN major",
      gd_rule_frameworks,
      'e',
      { VENV, FW("/v/tf", "tensorflow", "tensorflow", "2.17.0"), "framework:/v/tf.build=s:cuda",
        "framework:/v/tf|build.cudnn=s:9", FW("/v/t", "torch", "torch", "2.4.0+cu121"),
        "framework:/v/t.build=s:cuda", LIB("cudnn", "libcudnn.so.9") },
      "framework.cudnn-major-conflict",
      MISS },
    { "Keras 3 on jax without jax",
      gd_rule_keras,
      'e',
      { VENV, KERAS("3.0.5", "jax", "config") },
      "keras.backend-not-installed",
      GD_SEV_ERROR,
      { "keras:/v.backend", "keras:/v.backend.from" },
      { "not installed", "No module named 'jax'" } },
    { "Keras 3 on jax with jaxlib",
      gd_rule_keras,
      'e',
      { VENV, KERAS("3.0.5", "jax", "config"), FW("/v/j", "jax", "jaxlib", "0.4.26"),
        "framework:/v/j.build=s:cuda" },
      "keras.backend-not-installed",
      MISS },
    { "Keras 3 on theano",
      gd_rule_keras,
      'e',
      { VENV, KERAS("3.3.3", "theano", "env") },
      "keras.backend-unknown",
      GD_SEV_ERROR,
      { "keras:/v.backend" },
      { "theano" } },
    { "Keras 3 on tensorflow",
      gd_rule_keras,
      'e',
      { VENV, KERAS("3.3.3", "tensorflow", "default"),
        FW("/v/tf", "tensorflow", "tensorflow", "2.16.1"), "framework:/v/tf.build=s:cuda" },
      "keras.backend-unknown",
      MISS },
    { "Keras 3 on a CPU-only torch with a GPU",
      gd_rule_keras,
      'e',
      { "gpus.count=i:1", VENV, KERAS("3.3.3", "torch", "env"),
        FW("/v/t", "torch", "torch", "2.3.0+cpu"), "framework:/v/t.build=s:cpu" },
      "keras.backend-cpu-only",
      GD_SEV_WARNING,
      { "keras:/v.backend", "framework:/v/t.build" },
      { "CPU-only build" } },
    { "Keras 3 on a CPU-only torch, no GPU",
      gd_rule_keras,
      'e',
      { "gpus.count=a:", VENV, KERAS("3.3.3", "torch", "env"),
        FW("/v/t", "torch", "torch", "2.3.0+cpu"), "framework:/v/t.build=s:cpu" },
      "keras.backend-cpu-only",
      MISS },
    { "Keras 3 beside TensorFlow 2.15",
      gd_rule_keras,
      'e',
      { VENV, KERAS("3.0.5", "tensorflow", "default"),
        FW("/v/tf", "tensorflow", "tensorflow", "2.15.0"), "framework:/v/tf.build=s:cuda" },
      "keras.keras3-with-old-tensorflow",
      GD_SEV_ERROR,
      { "keras:/v.version", "framework:/v/tf.version" },
      { "expects Keras 2", "keras<3" } },
    { "Keras 3 beside TensorFlow 2.16",
      gd_rule_keras,
      'e',
      { VENV, KERAS("3.3.3", "tensorflow", "default"),
        FW("/v/tf", "tensorflow", "tensorflow", "2.16.1"), "framework:/v/tf.build=s:cuda" },
      "keras.keras3-with-old-tensorflow",
      MISS },
    { "TF_USE_LEGACY_KERAS without tf-keras",
      gd_rule_keras,
      'e',
      { "env.TF_USE_LEGACY_KERAS=s:1", VENV, KERAS("3.3.3", "tensorflow", "default"),
        FW("/v/tf", "tensorflow", "tensorflow", "2.16.1"), "framework:/v/tf.build=s:cuda" },
      "keras.tf-keras-missing",
      GD_SEV_ERROR,
      { "env.TF_USE_LEGACY_KERAS", "framework:/v/tf.version" },
      { "tf-keras~=2.16.1" } },
    { "TF_USE_LEGACY_KERAS with tf-keras",
      gd_rule_keras,
      'e',
      { "env.TF_USE_LEGACY_KERAS=s:1", VENV, KERAS("3.3.3", "tensorflow", "default"),
        FW("/v/tf", "tensorflow", "tensorflow", "2.16.1"), "framework:/v/tf.build=s:cuda",
        FW("/v/tk", "keras", "tf-keras", "2.16.0") },
      "keras.tf-keras-missing",
      MISS },
    /* ---- frameworks against the driver ---- */
    /* torch 2.5.1+cu124 on 470.82.01: CUDA 12.4 needs 525 at least; 1.12.1's cu113 (CUDA 11.3,
     * 465.19.01) is the newest wheel this driver runs with its own minimum. */
    { "CUDA 12.4 wheel on a 470 driver",
      gd_rule_fwdriver,
      'e',
      { KM("470.82.01"), GPU("8.6"), FW("/v/t", "torch", "torch", "2.5.1+cu124"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:12.4" },
      "framework.driver-too-old",
      GD_SEV_ERROR,
      { "driver.kernel_module.version", "framework:/v/t.build.cuda" },
      { "torch 2.5.1+cu124 uses CUDA 12.4, which needs NVIDIA driver 525 or newer; this machine "
        "has 470.82.01",
        "Upgrade the NVIDIA driver to 550.54.14 or newer (CUDA 12.4's own driver; 525 or newer "
        "runs it through minor version compatibility).",
        "Or keep this driver and install torch 1.12.1, its cu113 wheel (CUDA 11.3): `pip install "
        "torch==1.12.1+cu113 --extra-index-url https://download.pytorch.org/whl/cu113`.",
        "cudaErrorInsufficientDriver" } },
    /* TensorFlow 2.4.0 (CUDA 11.0) on 440.33: no 11.x family minimum reached; CUDA 10.1 builds
     * (2.3.0, 418.39) run. */
    { "TensorFlow 2.4 on a 440 driver",
      gd_rule_fwdriver,
      'e',
      { KM("440.33.01"), GPU("7.0"), FW("/v/t", "tensorflow", "tensorflow", "2.4.0"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:11.0" },
      "framework.driver-too-old",
      GD_SEV_ERROR,
      { "framework:/v/t.build.cuda" },
      { "needs NVIDIA driver 450.80.02 or newer; this machine has 440.33.01",
        "Or keep this driver and install TensorFlow 2.3.0 (tested with CUDA 10.1, cuDNN 7.6): "
        "`python3 -m pip install 'tensorflow==2.3.*'`" } },
    /* The libcudart it loads decides: torch built for 12.1 but loading a 12.4 runtime. */
    { "the loaded runtime is newer than the build",
      gd_rule_fwdriver,
      'e',
      { KM("520.61.05"), FW("/v/t", "torch", "torch", "2.1.0+cu121"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.1", LIB("cudart", "libcudart.so.12"),
        "framework_lib:/v/t:cudart.path=s:/v/s/nvidia/cuda_runtime/lib/libcudart.so.12",
        "framework_lib:/v/t:cudart.version=s:12.4.127" },
      "framework.driver-too-old",
      GD_SEV_ERROR,
      { "framework_lib:/v/t:cudart.version" },
      { "uses CUDA 12.4.127, which needs NVIDIA driver 525 or newer" } },
    { "a driver new enough",
      gd_rule_fwdriver,
      'e',
      { KM("550.54.14"), FW("/v/t", "torch", "torch", "2.5.1+cu124"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.4" },
      "framework.driver-too-old",
      MISS },
    { "WSL: the Windows driver is not judged here",
      gd_rule_fwdriver,
      'e',
      { WSL2, "driver.libcuda.version=s:470.82.01", FW("/v/t", "torch", "torch", "2.5.1+cu124"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:12.4" },
      "framework.driver-too-old",
      MISS },
    { "CUDA 12.4 on a 535 driver",
      gd_rule_fwdriver,
      'e',
      { KM("535.104.05"), FW("/v/t", "torch", "torch", "2.5.1+cu124"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:12.4" },
      "framework.driver-minor-compat",
      GD_SEV_INFO,
      { "driver.kernel_module.version", "framework:/v/t.build.cuda" },
      { "torch 2.5.1+cu124 runs CUDA 12.4 on driver 535.104.05 through minor version "
        "compatibility",
        "upgrade the NVIDIA driver to 550.54.14 or newer", "cudaErrorUnsupportedPtxVersion" } },
    { "CUDA 12.4 on its own driver",
      gd_rule_fwdriver,
      'e',
      { KM("550.54.14"), FW("/v/t", "torch", "torch", "2.5.1+cu124"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.4" },
      "framework.driver-minor-compat",
      MISS },
    /* ---- frameworks against the libraries they load ---- */
    /* TensorFlow 2.15.0 states cuDNN 8 only; its tested build is 8.9. */
    { "TensorFlow 2.15 loads cuDNN 8.6",
      gd_rule_fwversions,
      'e',
      { FW("/v/t", "tensorflow", "tensorflow", "2.15.0"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.2", "framework:/v/t|build.cudnn=s:8",
        LIB("cudnn", "libcudnn.so.8"),
        "framework_lib:/v/t:cudnn.path=s:/v/s/nvidia/cudnn/lib/libcudnn.so.8",
        "framework_lib:/v/t:cudnn.version=s:8.6.0.163", "framework_lib:/v/t:cudnn.rule=s:runpath" },
      "framework.cudnn-older-than-build",
      GD_SEV_ERROR,
      { "framework_lib:/v/t:cudnn.version", "framework_lib:/v/t:cudnn.path",
        "framework:/v/t.build.cudnn" },
      { "tensorflow 2.15.0 loads cuDNN 8.6.0.163, older than the cuDNN 8.9 it was built with",
        "tensorflow 2.15.0 was built with cuDNN 8.9 (its tested build configuration, "
        "https://www.tensorflow.org/install/source#gpu).",
        "In /v: `pip install 'nvidia-cudnn-cu12>=8.9,<9'`.",
        "Loaded runtime CuDNN library: 8.6.0.163 but source was compiled with: 8.9" } },
    /* torch pins its cuDNN; a system copy found first through the cache is older. */
    { "torch pins cuDNN 8.9.2.26, the cache gives 8.5",
      gd_rule_fwversions,
      'e',
      { FW("/v/t", "torch", "torch", "2.1.0+cu121"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.1",
        "framework:/v/t|requires.nvidia-cudnn-cu12=s:==8.9.2.26", LIB("cudnn", "libcudnn.so.8"),
        "framework_lib:/v/t:cudnn.path=s:/usr/lib/x86_64-linux-gnu/libcudnn.so.8",
        "framework_lib:/v/t:cudnn.version=s:8.5.0", "framework_lib:/v/t:cudnn.rule=s:ld.so.cache" },
      "framework.cudnn-older-than-build",
      GD_SEV_ERROR,
      { "framework:/v/t.requires.nvidia-cudnn-cu12", "framework_lib:/v/t:cudnn.rule" },
      { "The loader finds /usr/lib/x86_64-linux-gnu/libcudnn.so.8 first (ld.so.cache)",
        "In /v: `pip install 'nvidia-cudnn-cu12==8.9.2.26'` (the pin torch 2.1.0+cu121 states).",
        "cuDNN version incompatibility" } },
    { "a newer cuDNN minor is fine",
      gd_rule_fwversions,
      'e',
      { FW("/v/t", "tensorflow", "tensorflow", "2.15.0"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.2", "framework:/v/t|build.cudnn=s:8",
        LIB("cudnn", "libcudnn.so.8"),
        "framework_lib:/v/t:cudnn.path=s:/v/s/nvidia/cudnn/lib/libcudnn.so.8",
        "framework_lib:/v/t:cudnn.version=s:8.9.7.29" },
      "framework.cudnn-older-than-build",
      MISS },
    { "a cuDNN not found is another finding's",
      gd_rule_fwversions,
      'e',
      { FW("/v/t", "tensorflow", "tensorflow", "2.15.0"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cudnn=s:8", LIB("cudnn", "libcudnn.so.8"),
        "framework_lib:/v/t:cudnn.path=a:not found", "framework_lib:/v/t:cudnn.version=s:8.6.0" },
      "framework.cudnn-older-than-build",
      MISS },
    { "TensorFlow 2.15 loads the CUDA 12.1 runtime",
      gd_rule_fwversions,
      'e',
      { FW("/v/t", "tensorflow", "tensorflow", "2.15.0"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.2", LIB("cudart", "libcudart.so.12"),
        "framework_lib:/v/t:cudart.path=s:/v/s/nvidia/cuda_runtime/lib/libcudart.so.12",
        "framework_lib:/v/t:cudart.version=s:12.1.105" },
      "framework.cuda-version-mismatch",
      GD_SEV_WARNING,
      { "framework_lib:/v/t:cudart.version", "framework:/v/t.build.cuda" },
      { "tensorflow 2.15.0 loads the CUDA 12.1 runtime, older than the CUDA 12.2 it was built "
        "with",
        "In /v: `pip install 'nvidia-cuda-runtime-cu12>=12.2'`." } },
    { "a newer CUDA runtime",
      gd_rule_fwversions,
      'e',
      { FW("/v/t", "tensorflow", "tensorflow", "2.15.0"), "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.cuda=s:12.2", LIB("cudart", "libcudart.so.12"),
        "framework_lib:/v/t:cudart.path=s:/v/s/nvidia/cuda_runtime/lib/libcudart.so.12",
        "framework_lib:/v/t:cudart.version=s:12.3.101" },
      "framework.cuda-version-mismatch",
      MISS },
    /* ---- native Windows ---- */
    { "TensorFlow 2.15 on native Windows",
      gd_rule_windows,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "tensorflow", "tensorflow", "2.15.0") },
      "framework.tf-windows-no-gpu",
      GD_SEV_WARNING,
      { "host.os.id", "framework:/v/t.version" },
      { "tensorflow 2.15.0 on native Windows has no GPU support: the last release with it there "
        "is 2.10",
        "Or use WSL2, where the Linux build has the GPU: in an administrator PowerShell run "
        "`wsl --install`.",
        "Then in the Ubuntu shell: `python3 -m pip install tensorflow[and-cuda]`.",
        "Check there that `python3 -c \"import tensorflow as tf; "
        "print(tf.config.list_physical_devices('GPU'))\"` lists the GPU." } },
    { "TensorFlow 2.10 on native Windows",
      gd_rule_windows,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "tensorflow", "tensorflow", "2.10.1") },
      "framework.tf-windows-no-gpu",
      MISS },
    { "TensorFlow 2.15 on Linux",
      gd_rule_windows,
      'e',
      { "host.os.id=s:ubuntu", FW("/v/t", "tensorflow", "tensorflow", "2.15.0") },
      "framework.tf-windows-no-gpu",
      MISS },
    /* ---- Windows: a framework's DLLs where Python 3.8+ does not look ---- */
    { "CuPy's CUDA DLLs only on PATH",
      gd_rule_windows_dlls,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "cupy", "cupy-cuda11x", "11.6.0"),
        DLL("cudart64_110.dll", "runtime"), DLL_ON_PATH("cudart64_110.dll"),
        DLL("cublas64_11.dll", "cublas"), DLL_ON_PATH("cublas64_11.dll") },
      "framework.dll-only-on-path",
      GD_SEV_ERROR,
      { "framework_dll:/v/t:cudart64_110.dll.path",
        "framework_dll:/v/t:cudart64_110.dll.standard.path",
        "framework_dll:/v/t:cublas64_11.dll.standard.path", "framework:/v/t.version" },
      { "cupy-cuda11x 11.6.0 cannot be imported: cudart64_110.dll, cublas64_11.dll are only",
        "Before `import cupy`: `os.add_dll_directory(r\"C:\\tools\\cuda\\bin\")`",
        "Or set CUDA_PATH=C:\\tools\\cuda: cupy adds CUDA_PATH\\bin itself" } },
    { "a DLL found nowhere",
      gd_rule_windows_dlls,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "cupy", "cupy-cuda11x", "11.6.0"),
        DLL("cudart64_110.dll", "runtime") },
      "framework.dll-only-on-path",
      MISS },
    { "a DLL Python finds",
      gd_rule_windows_dlls,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "cupy", "cupy-cuda11x", "11.6.0"),
        "framework_dll:/v/t:cudart64_110.dll|framework=s:framework:/v/t",
        "framework_dll:/v/t:cudart64_110.dll|dll=s:cudart64_110.dll",
        "framework_dll:/v/t:cudart64_110.dll|path=s:/v/s/cupy/.data/lib/cudart64_110.dll",
        DLL_ON_PATH("cudart64_110.dll") },
      "framework.dll-only-on-path",
      MISS },
    /* ---- native Windows: the driver's DLLs ---- */
    { "Windows without nvcuda.dll",
      gd_rule_win_driver,
      'e',
      { "host.os.id=s:windows", "driver.nvcuda.path=a:no nvcuda.dll in Windows/System32",
        "driver.nvml.path=a:no nvml.dll in Windows/System32" },
      "windows.driver-not-installed",
      GD_SEV_ERROR,
      { "driver.nvcuda.path", "driver.nvml.path" },
      { "The NVIDIA driver is not installed (no nvcuda.dll)", "nvidia.com/Download",
        "Restart Windows" } },
    { "Windows: no nvcuda.dll in System32, but a loaded one answers",
      gd_rule_win_driver,
      'e',
      { "host.os.id=s:windows", "driver.nvcuda.path=a:no nvcuda.dll in Windows/System32",
        "cuda_driver.init.code=i:0", "cuda_driver.library=s:D:/tools/nvcuda.dll" },
      "windows.driver-not-installed",
      MISS },
    { "Windows: no nvcuda.dll in System32, and cuInit failed",
      gd_rule_win_driver,
      'e',
      { "host.os.id=s:windows", "driver.nvcuda.path=a:no nvcuda.dll in Windows/System32",
        "cuda_driver.init.code=i:100" },
      "windows.driver-not-installed",
      GD_SEV_ERROR,
      { "driver.nvcuda.path" },
      { "The NVIDIA driver is not installed (no nvcuda.dll)" } },
    { "Windows with nvcuda.dll",
      gd_rule_win_driver,
      'e',
      { "host.os.id=s:windows", "driver.nvcuda.path=s:/Windows/System32/nvcuda.dll",
        "driver.nvml.path=s:/Windows/System32/nvml.dll" },
      "windows.driver-not-installed",
      MISS },
    { "Windows without nvml.dll",
      gd_rule_win_driver,
      'e',
      { "host.os.id=s:windows", "driver.nvcuda.path=s:/Windows/System32/nvcuda.dll",
        "driver.nvml.path=a:no nvml.dll in Windows/System32, Program Files/NVIDIA "
        "Corporation/NVSMI" },
      "windows.nvml-missing",
      GD_SEV_WARNING,
      { "driver.nvml.path", "driver.nvcuda.path" },
      { "nvcuda.dll is installed but nvml.dll is not", "nvidia-smi" } },
    { "Windows with NVML in the NVSMI folder",
      gd_rule_win_driver,
      'e',
      { "host.os.id=s:windows", "driver.nvcuda.path=s:/Windows/System32/nvcuda.dll",
        "driver.nvml.path=s:/Program Files/NVIDIA Corporation/NVSMI/nvml.dll" },
      "windows.nvml-missing",
      MISS },
    { "Windows driver 536.23",
      gd_rule_win_driver,
      'e',
      { "host.os.id=s:windows", "driver.nvcuda.path=s:/Windows/System32/nvcuda.dll",
        "driver.nvcuda.file_version=s:31.0.15.3623", "driver.nvcuda.version=s:536.23",
        "driver.nvml.path=s:/Windows/System32/nvml.dll" },
      "windows.driver-ok",
      GD_SEV_OK,
      { "driver.nvcuda.path", "driver.nvcuda.version" },
      { "NVIDIA driver 536.23 is installed (nvcuda.dll and nvml.dll)" } },
    { "Windows driver missing: no ok",
      gd_rule_win_driver,
      'e',
      { "host.os.id=s:windows", "driver.nvcuda.path=a:no nvcuda.dll in Windows/System32" },
      "windows.driver-ok",
      MISS },
    /* The Linux driver rules do not judge a Windows machine (rules.c), whose probes record none
     * of their facts. */
    { "Windows: no Linux driver finding",
      gd_rules_run,
      'e',
      { "host.os.id=s:windows", NO_KM, "driver.module.nvidia.loaded=b:false", NO_LIBCUDA,
        "devices.nvidiactl.present=b:false", "driver.nvcuda.path=s:/Windows/System32/nvcuda.dll" },
      "driver.not-installed",
      MISS },
    { "Windows: CUDA_PATH to nothing",
      E,
      'e',
      { "host.os.id=s:windows", "env.CUDA_PATH=s:C:\\CUDA\\v11.8", "env|CUDA_PATH.exists=b:false",
        "cuda_toolkits.versions=s:12.3" },
      "env.cuda-path-missing",
      GD_SEV_WARNING,
      { "env.CUDA_PATH", "env.CUDA_PATH.exists", "cuda_toolkits.versions" },
      { "this machine has CUDA 12.3", "setx CUDA_PATH" } },
    /* ---- native Windows: CUDA, cuDNN and TensorFlow up to 2.10 ---- */
    { "TensorFlow 2.10 on Windows, CUDA 12.3 only",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "tensorflow", "tensorflow", "2.10.0"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:11.2",
        "framework:/v/t|build.cudnn=s:8", "cuda_toolkit:/c/v12.3|version=s:12.3",
        "cuda_toolkit:/c/v12.3|path=s:/c/v12.3", "cuda_toolkits.versions=s:12.3" },
      "windows.tf-cuda-untested",
      GD_SEV_ERROR,
      { "framework:/v/t.version", "framework:/v/t.build.cuda", "cuda_toolkits.versions" },
      { "tensorflow 2.10.0 needs CUDA 11 (built and tested with 11.2), but no CUDA 11 toolkit",
        "cusolver64_11.dll", "cudatoolkit=11.2 cudnn=8.1.0" } },
    { "TensorFlow 2.10 on Windows, CUDA 11.8",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "tensorflow", "tensorflow", "2.10.0"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:11.2",
        "framework:/v/t|build.cudnn=s:8", "cuda_toolkit:/c/v11.8|version=s:11.8",
        "cuda_toolkit:/c/v11.8|path=s:/c/v11.8" },
      "windows.tf-cuda-untested",
      GD_SEV_INFO,
      { "framework:/v/t.version", "cuda_toolkit:/c/v11.8.version" },
      { "built and tested with CUDA 11.2; this machine has CUDA 11.8" } },
    { "TensorFlow 2.10 on Windows, CUDA 11.2",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "tensorflow", "tensorflow", "2.10.0"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:11.2",
        "framework:/v/t|build.cudnn=s:8", "cuda_toolkit:/c/v11.2|version=s:11.2",
        "cuda_toolkit:/c/v11.2|path=s:/c/v11.2" },
      "windows.tf-cuda-untested",
      MISS },
    { "TensorFlow 2.15 on Windows: not a GPU build to judge",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "tensorflow", "tensorflow", "2.15.0"),
        "framework:/v/t.build=s:cpu", "cuda_toolkit:/c/v12.3|version=s:12.3" },
      "windows.tf-cuda-untested",
      MISS },
    { "TensorFlow 2.10 on Windows without cuDNN",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "tensorflow", "tensorflow", "2.10.0"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:11.2",
        "framework:/v/t|build.cudnn=s:8", "cuda_toolkit:/c/v11.2|version=s:11.2",
        "cudnn_dir:/c/v9|major=i:9", "cudnn_dir:/c/v9|dll=s:/c/v9/cudnn64_9.dll" },
      "windows.tf-cudnn-untested",
      GD_SEV_ERROR,
      { "framework:/v/t.build.cudnn", "cudnn_dir:/c/v9.dll" },
      { "tensorflow 2.10.0 needs cuDNN 8.1.0 (cudnn64_8.dll), but none is installed (only other "
        "majors)" } },
    { "TensorFlow 2.10 on Windows with an older cuDNN 8",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "tensorflow", "tensorflow", "2.10.0"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:11.2",
        "framework:/v/t|build.cudnn=s:8", "cuda_toolkit:/c/v11.2|version=s:11.2",
        "cudnn_dir:/c/b|major=i:8", "cudnn_dir:/c/b|version=s:8.0.5" },
      "windows.tf-cudnn-untested",
      GD_SEV_ERROR,
      { "cudnn_dir:/c/b.version" },
      { "was built with cuDNN 8.1.0; the cuDNN 8 on this machine is older (8.0.5)" } },
    { "TensorFlow 2.10 on Windows with cuDNN 8.4",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", FW("/v/t", "tensorflow", "tensorflow", "2.10.0"),
        "framework:/v/t.build=s:cuda", "framework:/v/t|build.cuda=s:11.2",
        "framework:/v/t|build.cudnn=s:8", "cuda_toolkit:/c/v11.2|version=s:11.2",
        "cudnn_dir:/c/b|major=i:8", "cudnn_dir:/c/b|version=s:8.4.1" },
      "windows.tf-cudnn-untested",
      MISS },
    { "cuDNN 8.4 without zlibwapi.dll",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", "cudnn_dir:/c/b|major=i:8", "cudnn_dir:/c/b|version=s:8.4.1",
        "cudnn_dir:/c/b|dll=s:/c/b/cudnn64_8.dll",
        "cudnn_dir:/c/b|zlibwapi.path=a:no zlibwapi.dll in /c/b, Windows/System32" },
      "windows.cudnn-zlib-missing",
      GD_SEV_ERROR,
      { "cudnn_dir:/c/b.zlibwapi.path", "cudnn_dir:/c/b.version" },
      { "cuDNN 8.4.1 needs zlibwapi.dll", "System32", "cupy/cupy/issues/6226" } },
    { "cuDNN 8 of unknown release without zlibwapi.dll",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", "cudnn_dir:/c/b|major=i:8",
        "cudnn_dir:/c/b|version=u:only the major", "cudnn_dir:/c/b|dll=s:/c/b/cudnn64_8.dll",
        "cudnn_dir:/c/b|zlibwapi.path=a:no zlibwapi.dll in /c/b" },
      "windows.cudnn-zlib-missing",
      GD_SEV_WARNING,
      { "cudnn_dir:/c/b.zlibwapi.path" },
      { "cuDNN 8 (release unknown) needs zlibwapi.dll from 8.3 on" } },
    { "cuDNN 8.2 needs no zlib",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", "cudnn_dir:/c/b|major=i:8", "cudnn_dir:/c/b|version=s:8.2.4",
        "cudnn_dir:/c/b|zlibwapi.path=a:no zlibwapi.dll in /c/b" },
      "windows.cudnn-zlib-missing",
      MISS },
    { "cuDNN 8.4 with zlibwapi.dll in System32",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", "cudnn_dir:/c/b|major=i:8", "cudnn_dir:/c/b|version=s:8.4.1",
        "cudnn_dir:/c/b|zlibwapi.path=s:/Windows/System32/zlibwapi.dll" },
      "windows.cudnn-zlib-missing",
      MISS },
    { "CUDA_PATH_V11_8 to nothing",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", "env|CUDA_PATH_V11_8=s:C:\\CUDA\\v11.8",
        "env|CUDA_PATH_V11_8.version=s:11.8", "env|CUDA_PATH_V11_8.exists=b:false" },
      "env.cuda-path-version-missing",
      GD_SEV_WARNING,
      { "env.CUDA_PATH_V11_8", "env.CUDA_PATH_V11_8.exists" },
      { "CUDA_PATH_V11_8 points to C:\\CUDA\\v11.8, which is not a directory", "reg delete" } },
    { "CUDA_PATH_V11_8 to its toolkit",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", "env|CUDA_PATH_V11_8=s:C:\\CUDA\\v11.8",
        "env|CUDA_PATH_V11_8.version=s:11.8", "env|CUDA_PATH_V11_8.exists=b:true",
        "env|CUDA_PATH_V11_8.cuda_version=s:11.8" },
      "env.cuda-path-version-missing",
      MISS },
    { "CUDA_PATH_V11_8 to CUDA 12.3",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", "env|CUDA_PATH_V11_8=s:C:\\CUDA\\v12.3",
        "env|CUDA_PATH_V11_8.version=s:11.8", "env|CUDA_PATH_V11_8.exists=b:true",
        "env|CUDA_PATH_V11_8.cuda_version=s:12.3" },
      "env.cuda-path-version-mismatch",
      GD_SEV_WARNING,
      { "env.CUDA_PATH_V11_8", "env.CUDA_PATH_V11_8.cuda_version" },
      { "CUDA_PATH_V11_8 points to a CUDA 12.3 toolkit", "setx CUDA_PATH_V11_8" } },
    { "CUDA_PATH_V11_8 to CUDA 11.8",
      gd_rule_win_cuda,
      'e',
      { "host.os.id=s:windows", "env|CUDA_PATH_V11_8=s:C:\\CUDA\\v11.8",
        "env|CUDA_PATH_V11_8.version=s:11.8", "env|CUDA_PATH_V11_8.exists=b:true",
        "env|CUDA_PATH_V11_8.cuda_version=s:11.8.89" },
      "env.cuda-path-version-mismatch",
      MISS },
    /* ---- GPU code against the GPU: the bounds the tables prove ---- */
    /* A K80 under torch 2.8: every later release is CUDA 12.6+, which cannot build 3.7. */
    { "torch 2.8 on a K80",
      gd_rule_frameworks,
      'e',
      { GPU("3.7"), FW("/v/t", "torch", "torch", "2.8.0+cu126"), "framework:/v/t.build=s:cuda",
        KERNELS("sm_50,sm_60,sm_70,sm_75,sm_80,sm_86,sm_90"), "kernels:/v/k.ptx=s:compute_90" },
      "framework.no-kernel-for-gpu",
      GD_SEV_ERROR,
      { "gpu:0.compute_capability" },
      { "No PyTorch release after 2.7 can serve compute capability 3.7: the later ones are built "
        "with CUDA 12.6 or newer, which cannot compile for it (CUDA 12.0 dropped it).",
        "whether its build carries sm_37 is not in the knowledge base",
        "To try it: torch 2.7, its cu118 wheel (CUDA 11.8): `pip install 'torch==2.7.*' "
        "--index-url https://download.pytorch.org/whl/cu118`" } },
    /* An H100 under torch 1.12: CUDA 11.8 added 9.0; 2.0's cu118 is the first wheel with it. */
    { "torch 1.12 on an H100",
      gd_rule_frameworks,
      'e',
      { GPU("9.0"), FW("/v/t", "torch", "torch", "1.12.1+cu113"), "framework:/v/t.build=s:cuda",
        KERNELS("sm_37,sm_50,sm_60,sm_70,sm_75,sm_80,sm_86"), "kernels:/v/k.ptx=a:no PTX entry" },
      "framework.no-kernel-for-gpu",
      GD_SEV_ERROR,
      { "kernels:/v/k.sass" },
      { "The oldest PyTorch release whose CUDA can compile for compute capability 9.0 is 2.0.1 "
        "(CUDA 11.8; CUDA 11.8 added it)" } },
    /* A Blackwell 12.1 under TensorFlow: no tested build has a CUDA that can build it. */
    { "TensorFlow on compute capability 12.1",
      gd_rule_frameworks,
      'e',
      { GPU("12.1"), FW("/v/t", "tensorflow", "tensorflow", "2.18.0"),
        "framework:/v/t.build=s:cuda",
        "framework:/v/t|build.compute_capabilities=s:sm_60,sm_70,sm_80,sm_89" },
      "framework.no-kernel-for-gpu",
      GD_SEV_ERROR,
      { "framework:/v/t.build.compute_capabilities" },
      { "No TensorFlow build in the knowledge base has a CUDA that can compile for compute "
        "capability 12.1 (its newest, 2.18.0, uses CUDA 12.5)." } },

};

/* The live machine's rules have their cases in a file of their own. */
#include "rules_live_cases.h"

#define NCASES (sizeof cases / sizeof *cases + sizeof live_cases / sizeof *live_cases)

static const struct rule_case *case_at(size_t i)
{
    size_t n = sizeof cases / sizeof *cases;
    return i < n ? &cases[i] : &live_cases[i - n];
}

/* A report of `facts`. */
static struct gd_report *report_of(const char *const *facts)
{
    struct gd_report *r = gd_report_new();
    assert_non_null(r);
    for (size_t i = 0; i < MAX_FACT && facts[i]; i++)
        add_fact(r, facts[i]);
    return r;
}

static const struct gd_finding *find(const struct gd_report *r, const char *id)
{
    for (size_t i = 0; i < gd_report_finding_count(r); i++)
        if (strcmp(gd_finding_id(gd_report_finding_at(r, i)), id) == 0)
            return gd_report_finding_at(r, i);
    return NULL;
}

static bool has_evidence(const struct gd_finding *f, const char *label)
{
    for (size_t i = 0; i < gd_finding_evidence_count(f); i++) {
        const struct gd_fact *e = gd_finding_evidence_at(f, i);
        char have[256];
        snprintf(have, sizeof have, "%s.%s", gd_entity_id(gd_fact_entity(e)), gd_fact_name(e));
        if (strcmp(have, label) == 0)
            return true;
    }
    return false;
}

static bool has_text(const struct gd_finding *f, const char *text)
{
    if (strstr(gd_finding_title(f), text) || (gd_finding_why(f) && strstr(gd_finding_why(f), text)))
        return true;
    for (size_t i = 0; i < gd_finding_fix_count(f); i++)
        if (strstr(gd_finding_fix_at(f, i), text))
            return true;
    return false;
}

/* Every finding of `r` is well formed: an id, a title, evidence facts of this report. */
static void check_findings(const struct gd_report *r, const char *name)
{
    for (size_t i = 0; i < gd_report_finding_count(r); i++) {
        const struct gd_finding *f = gd_report_finding_at(r, i);
        if (!gd_finding_id(f) || !gd_finding_title(f) || !*gd_finding_title(f))
            fail_msg("%s: finding %zu without id or title", name, i);
        for (size_t k = 0; k < gd_finding_evidence_count(f); k++)
            if (gd_fact_entity(gd_finding_evidence_at(f, k))->report != r)
                fail_msg("%s: %s has evidence from another report", name, gd_finding_id(f));
    }
}

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        const struct rule_case *c = case_at(i);
        struct gd_report *r = report_of(c->facts);
        c->rule(r, c->kb == 't' ? test_kb : embedded);
        assert_false(gd_report_failed(r));
        check_findings(r, c->name);
        const struct gd_finding *f = find(r, c->id);
        if (c->severity == NONE) {
            if (f)
                fail_msg("%s: %s is there: %s", c->name, c->id, gd_finding_title(f));
            gd_report_free(r);
            continue;
        }
        if (!f)
            fail_msg("%s: no %s", c->name, c->id);
        if ((int)gd_finding_severity(f) != c->severity)
            fail_msg("%s: %s is %s", c->name, c->id, gd_severity_name(gd_finding_severity(f)));
        for (size_t k = 0; k < 6 && c->evidence[k]; k++)
            if (!has_evidence(f, c->evidence[k]))
                fail_msg("%s: %s lacks evidence %s", c->name, c->id, c->evidence[k]);
        for (size_t k = 0; k < 4 && c->text[k]; k++)
            if (!has_text(f, c->text[k]))
                fail_msg("%s: %s does not say \"%s\" (title: %s)", c->name, c->id, c->text[k],
                         gd_finding_title(f));
        if (c->severity != GD_SEV_OK && c->severity != GD_SEV_INFO && !gd_finding_fix_count(f))
            fail_msg("%s: %s has no fix", c->name, c->id);
        gd_report_free(r);
    }
}

/* A failed cuInit on Windows gets no Linux step (device files, dmesg, modprobe, systemd), for
 * every status the rule knows a fix for. */
static void test_init_failed_windows_steps(void **state)
{
    (void)state;
    static const char *const codes[] = {
        "999", "803", "804", "802", "34", "46", "100", "304", "1"
    };
    static const char *const linux_only[] = { "/dev/",     "dmesg",           "modprobe",
                                              "systemctl", "LD_LIBRARY_PATH", "docker" };
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
        char code[64];
        snprintf(code, sizeof code, "cuda_driver.init.code=i:%s", codes[i]);
        const char *facts[MAX_FACT] = { "host.os.id=s:windows", "cuda_driver.init=s:CUDA_ERROR",
                                        code,
                                        "cuda_driver.library=s:C:/Windows/System32/nvcuda.dll",
                                        "gpus.count=i:0" };
        struct gd_report *r = report_of(facts);
        gd_rule_cuda(r, embedded);
        const struct gd_finding *f = find(r, "cuda.init-failed");
        if (!f)
            fail_msg("code %s: no cuda.init-failed", codes[i]);
        assert_true(gd_finding_fix_count(f) > 0);
        for (size_t k = 0; k < gd_finding_fix_count(f); k++)
            for (size_t j = 0; j < sizeof linux_only / sizeof *linux_only; j++)
                if (strstr(gd_finding_fix_at(f, k), linux_only[j]))
                    fail_msg("code %s on Windows: \"%s\"", codes[i], gd_finding_fix_at(f, k));
        gd_report_free(r);
    }
}

/* The live machine's findings (rules_live_cases.h: the driver's answers, the GPU tests, the
 * vendor calls) on a Windows machine: no fix step names what only Linux has. */
static void test_live_cases_windows_steps(void **state)
{
    (void)state;
    static const char *const linux_only[] = {
        "/dev/", "dmesg",    "modprobe",   "systemctl",
        "sudo ", "ldconfig", "ld.so.conf", "LD_LIBRARY_PATH"
    };
    for (size_t i = 0; i < sizeof live_cases / sizeof *live_cases; i++) {
        const struct rule_case *c = &live_cases[i];
        const char *facts[MAX_FACT + 1] = { "host.os.id=s:windows" };
        size_t n = 1;
        for (size_t k = 0; k < MAX_FACT && c->facts[k]; k++)
            if (strncmp(c->facts[k], "host.os.id=", 11) != 0)
                facts[n++] = c->facts[k];
        struct gd_report *r = report_of(facts);
        c->rule(r, c->kb == 't' ? test_kb : embedded);
        for (size_t f = 0; f < gd_report_finding_count(r); f++) {
            const struct gd_finding *fd = gd_report_finding_at(r, f);
            for (size_t k = 0; k < gd_finding_fix_count(fd); k++)
                for (size_t j = 0; j < sizeof linux_only / sizeof *linux_only; j++)
                    if (strstr(gd_finding_fix_at(fd, k), linux_only[j]))
                        fail_msg("%s: %s on Windows: \"%s\"", c->name, gd_finding_id(fd),
                                 gd_finding_fix_at(fd, k));
        }
        gd_report_free(r);
    }
}

/* The ids of a report's findings, in order, with their fix steps: what a rule concluded. */
static void conclusions(const struct gd_report *r, struct gd_buf *out)
{
    for (size_t i = 0; i < gd_report_finding_count(r); i++) {
        const struct gd_finding *f = gd_report_finding_at(r, i);
        gd_buf_printf(out, "%s: %s\n", gd_finding_id(f), gd_finding_title(f));
        for (size_t k = 0; k < gd_finding_fix_count(f); k++)
            gd_buf_printf(out, "  %s\n", gd_finding_fix_at(f, k));
    }
}

/* Fail each allocation of a rule run in turn, for every case of the rules that choose builds
 * from the tables: the report is then marked failed, or the rule concluded exactly what it does
 * without a failure (never a shorter fix taken for a property of the machine). */
static void test_alloc_failures(void **state)
{
    (void)state;
    size_t runs = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct rule_case *c = &cases[i];
        if (c->rule != gd_rule_fwdriver && c->rule != gd_rule_fwversions &&
            c->rule != gd_rule_windows && c->rule != gd_rule_frameworks && c->rule != E &&
            c->rule != gd_rule_win_cuda && c->rule != gd_rule_win_driver)
            continue;
        struct gd_report *r = report_of(c->facts);
        gd_alloc_fail_at(0);
        c->rule(r, embedded);
        unsigned long total = gd_alloc_fail_at(0);
        struct gd_buf want;
        gd_buf_init(&want, 1 << 20);
        conclusions(r, &want);
        gd_report_free(r);
        for (unsigned long n = 1; n <= total; n++) {
            r = report_of(c->facts);
            gd_alloc_fail_at(n);
            c->rule(r, embedded);
            gd_alloc_fail_at(0);
            runs++;
            if (!gd_report_failed(r)) {
                struct gd_buf got;
                gd_buf_init(&got, 1 << 20);
                conclusions(r, &got);
                if (strcmp(gd_buf_str(&got), gd_buf_str(&want)) != 0)
                    fail_msg("%s: allocation %lu of %lu failed unnoticed:\n%s", c->name, n, total,
                             gd_buf_str(&got));
                gd_buf_free(&got);
            }
            gd_report_free(r);
        }
        gd_buf_free(&want);
    }
    assert_true(runs > 100);
}

/* Every id docs/findings.md lists has a case that produces it and a near miss. */
static void test_every_documented_id(void **state)
{
    (void)state;
    FILE *doc = fopen(GD_SOURCE_DIR "/docs/findings.md", "r");
    assert_non_null(doc);
    char line[512];
    size_t ids = 0;
    while (fgets(line, sizeof line, doc)) {
        if (strncmp(line, "### `", 5) != 0)
            continue;
        char id[128];
        size_t n = strcspn(line + 5, "`");
        snprintf(id, sizeof id, "%.*s", (int)n, line + 5);
        bool produced = false, missed = false;
        for (size_t i = 0; i < NCASES; i++) {
            if (strcmp(case_at(i)->id, id) != 0)
                continue;
            produced = produced || case_at(i)->severity != NONE;
            missed = missed || case_at(i)->severity == NONE;
        }
        if (!produced || !missed)
            fail_msg("%s: %s", id, !produced ? "no case produces it" : "no near miss");
        ids++;
    }
    fclose(doc);
    assert_true(ids >= 40);
}

/* The install steps come from the driver_install table: ID, then ID_LIKE, then the "*" row. */
static const struct gd_kb_row *install_row(const char *os)
{
    const struct gd_kb_table *t = gd_kb_table(embedded, "driver_install");
    for (size_t i = 0; i < gd_kb_row_count(t); i++)
        if (strcmp(gd_kb_str(gd_kb_row_at(t, i), "os_id"), os) == 0)
            return gd_kb_row_at(t, i);
    fail_msg("driver_install has no %s row", os);
    return NULL;
}

static void check_install_fix(const char *const *facts, const char *os)
{
    struct gd_report *r = report_of(facts);
    gd_rule_driver(r, embedded);
    const struct gd_finding *f = find(r, "driver.not-installed");
    assert_non_null(f);
    const struct gd_kb_row *row = install_row(os);
    const struct gd_kb_table *t = gd_kb_table(embedded, "driver_install");
    char want[1024];
    for (size_t i = 0; i < gd_kb_list_len(row, "commands"); i++) {
        snprintf(want, sizeof want, "Run: %s", gd_kb_list_at(row, "commands", i));
        if (!has_text(f, want))
            fail_msg("%s: no \"%s\"", os, want);
    }
    const char *before = gd_kb_str(row, "before");
    if (before && !has_text(f, before))
        fail_msg("%s: no \"%s\"", os, before);
    snprintf(want, sizeof want, "Reference: %s", gd_kb_source_url(t, gd_kb_row_source(row)));
    if (!has_text(f, want))
        fail_msg("%s: no \"%s\"", os, want);
    gd_report_free(r);
}

static void test_install_fix(void **state)
{
    (void)state;
    const char *debian[] = { NO_KM, NO_LIBCUDA, "host.os.id=s:debian", NULL };
    check_install_fix(debian, "debian");
    const char *mint[] = { NO_KM, NO_LIBCUDA, "host.os.id=s:linuxmint",
                           "host.os.id_like=s:ubuntu debian", NULL };
    check_install_fix(mint, "ubuntu");
    const char *unknown[] = { NO_KM, NO_LIBCUDA, "host.os.id=s:gentoo", NULL };
    check_install_fix(unknown, "*");
    const char *none[] = { NO_KM, NO_LIBCUDA, "host.os.id=u:no ID= line", NULL };
    check_install_fix(none, "*");

    /* Without the table, a generic step. */
    struct gd_report *r = report_of(debian);
    gd_rule_driver(r, NULL);
    const struct gd_finding *f = find(r, "driver.not-installed");
    assert_non_null(f);
    assert_true(has_text(f, "Install the NVIDIA driver for your GPU and distribution"));
    gd_report_free(r);
}

/* The fixes of a CPU-only build with its fact `site` replaced, alone in a report. */
static void cpu_only_alone(const char *version, const char *site, struct gd_buf *out)
{
    char v[64], s[128];
    snprintf(v, sizeof v, "framework:/v/t|version=s:%s", version);
    snprintf(s, sizeof s, "framework:/v/t.site=s:%s", site);
    const char *facts[] = { "gpus.count=i:1",
                            KM("550.54.14"),
                            GPU("8.6"),
                            "framework:/v/t.framework=s:torch",
                            "framework:/v/t.dist=s:torch",
                            v,
                            s,
                            "framework:/v/t.build=s:cpu",
                            NULL };
    struct gd_report *r = report_of(facts);
    gd_rule_frameworks(r, embedded);
    const struct gd_finding *f = find(r, "framework.cpu-only-build");
    assert_non_null(f);
    for (size_t k = 0; k < gd_finding_fix_count(f); k++)
        gd_buf_printf(out, "%s\n", gd_finding_fix_at(f, k));
    gd_report_free(r);
}

/* Several CPU-only builds in one report (the rule reuses the fixes it computed for the same
 * release): each gets exactly the fixes it gets alone, a distribution's package its own site. */
static void test_cpu_only_many(void **state)
{
    (void)state;
    static const struct {
        const char *id, *version, *site;
    } fws[] = {
        { "/a/t", "2.1.0+cpu", "/a/s" },
        { "/b/t", "2.1.0+cpu", "/b/s" },
        { "/c/t", "2.5.1+cpu", "/c/s" },
        { "/d/t", "2.1.0+cpu", "/usr/lib/python3/dist-packages" },
        { "/e/t", "2.1.0+cpu", "/usr/lib/python3.11/dist-packages" },
        { "/f/t", "2.1.0+cpu", "/f/s" },
    };
    struct gd_report *r = gd_report_new();
    assert_non_null(r);
    const char *machine[] = { "gpus.count=i:1", KM("550.54.14"), GPU("8.6") };
    for (size_t i = 0; i < sizeof machine / sizeof *machine; i++)
        add_fact(r, machine[i]);
    for (size_t i = 0; i < sizeof fws / sizeof *fws; i++) {
        char fact[256];
        static const char *const rest[] = { ".framework=s:torch", ".dist=s:torch", ".build=s:cpu" };
        for (size_t k = 0; k < 3; k++) {
            snprintf(fact, sizeof fact, "framework:%s%s", fws[i].id, rest[k]);
            add_fact(r, fact);
        }
        snprintf(fact, sizeof fact, "framework:%s|version=s:%s", fws[i].id, fws[i].version);
        add_fact(r, fact);
        snprintf(fact, sizeof fact, "framework:%s.site=s:%s", fws[i].id, fws[i].site);
        add_fact(r, fact);
    }
    gd_rule_frameworks(r, embedded);
    size_t seen = 0;
    for (size_t i = 0; i < gd_report_finding_count(r); i++) {
        const struct gd_finding *f = gd_report_finding_at(r, i);
        if (strcmp(gd_finding_id(f), "framework.cpu-only-build") != 0)
            continue;
        assert_true(seen < sizeof fws / sizeof *fws);
        struct gd_buf want, got;
        gd_buf_init(&want, SIZE_MAX);
        gd_buf_init(&got, SIZE_MAX);
        cpu_only_alone(fws[seen].version, fws[seen].site, &want);
        for (size_t k = 0; k < gd_finding_fix_count(f); k++)
            gd_buf_printf(&got, "%s\n", gd_finding_fix_at(f, k));
        assert_true(want.len > 0);
        if (want.len != got.len || memcmp(want.data, got.data, want.len) != 0)
            fail_msg("%s: fixes\n%.*s\nwant\n%.*s", fws[seen].id, (int)got.len, got.data,
                     (int)want.len, want.data);
        assert_true(has_evidence(f, "driver.kernel_module.version"));
        gd_buf_free(&want);
        gd_buf_free(&got);
        seen++;
    }
    assert_int_equal(seen, sizeof fws / sizeof *fws);
    gd_report_free(r);
}

/* env.invalid-value lists exactly what the env_values table accepts, and cites its source. */
static void test_invalid_value_fix(void **state)
{
    (void)state;
    const struct gd_kb_table *t = gd_kb_table(embedded, "env_values");
    const struct gd_kb_row *row = NULL;
    for (size_t i = 0; i < gd_kb_row_count(t); i++)
        if (strcmp(gd_kb_str(gd_kb_row_at(t, i), "variable"), "CUDA_MODULE_LOADING") == 0)
            row = gd_kb_row_at(t, i);
    assert_non_null(row);
    struct gd_buf want;
    gd_buf_init(&want, 4096);
    gd_buf_puts(&want, "Set it to one of: ");
    for (size_t k = 0; k < gd_kb_list_len(row, "values"); k++)
        gd_buf_printf(&want, "%s%s", k ? ", " : "", gd_kb_list_at(row, "values", k));
    gd_buf_puts(&want, ", or unset it.");
    const char *facts[] = { "env.CUDA_MODULE_LOADING=s:sometimes", NULL };
    struct gd_report *r = report_of(facts);
    gd_rule_env(r, embedded);
    const struct gd_finding *f = find(r, "env.invalid-value");
    assert_non_null(f);
    assert_string_equal(gd_finding_fix_at(f, 0), gd_buf_str(&want));
    char ref[512];
    snprintf(ref, sizeof ref, "Reference: %s", gd_kb_source_url(t, gd_kb_row_source(row)));
    assert_true(has_text(f, ref));
    gd_buf_free(&want);
    gd_report_free(r);
}

/* One finding per KB problem. */
static void test_kb_problems(void **state)
{
    (void)state;
    const char *facts[] = { "kb.problem[0]=s:a.json: no \"rows\" array",
                            "kb.problem[1]=s:b.json: invalid JSON", NULL };
    struct gd_report *r = report_of(facts);
    gd_rule_kb(r, embedded);
    assert_int_equal(gd_report_finding_count(r), 2);
    assert_true(has_evidence(gd_report_finding_at(r, 0), "kb.problem[0]"));
    assert_true(has_evidence(gd_report_finding_at(r, 1), "kb.problem[1]"));
    assert_true(has_text(gd_report_finding_at(r, 1), "b.json: invalid JSON"));
    gd_report_free(r);
}

/* A report without a single fact: no driver, and nothing else to say. */
static void test_empty_report(void **state)
{
    (void)state;
    struct gd_report *r = gd_report_new();
    gd_rules_run(r, embedded);
    assert_int_equal(gd_report_finding_count(r), 1);
    assert_string_equal(gd_finding_id(gd_report_finding_at(r, 0)), "driver.not-installed");
    gd_report_free(r);
}

/* gd_rules_run runs every rule: a report with a problem for each finds all of them. */
static void test_rules_run(void **state)
{
    (void)state;
    const char *facts[] = { KM("535.104.05"),
                            LIBCUDA("550.54.14"),
                            IN_CONTAINER,
                            "devices.gpus.count=i:0",
                            "container.nvidia.visible_devices=s:void",
                            "env.CUDA_VISIBLE_DEVICES=s:-1",
                            "anomaly[0].kind=s:unreadable",
                            "anomaly[0].path=s:/x",
                            "kb.problem[0]=s:x.json: invalid JSON",
                            NULL };
    struct gd_report *r = report_of(facts);
    gd_rules_run(r, embedded);
    static const char *const want[] = { "driver.version-mismatch",
                                        "container.detected",
                                        "container.no-gpu-devices",
                                        "container.visible-devices-none",
                                        "env.cuda-visible-devices-hides-all",
                                        "root.unreadable",
                                        "kb.table-invalid" };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!find(r, want[i]))
            fail_msg("gd_rules_run: no %s", want[i]);
    assert_null(find(r, "wsl.ok"));
    gd_report_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_init_failed_windows_steps),
        cmocka_unit_test(test_live_cases_windows_steps),
        cmocka_unit_test(test_every_documented_id),
        cmocka_unit_test(test_install_fix),
        cmocka_unit_test(test_cpu_only_many),
        cmocka_unit_test(test_invalid_value_fix),
        cmocka_unit_test(test_kb_problems),
        cmocka_unit_test(test_empty_report),
        cmocka_unit_test(test_rules_run),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
