/* The frameworks probe on trees built here: distributions, their builds from each kind of file,
 * the CUDA libraries of their native modules (resolved through RUNPATH, preload globs and wheel
 * files), fat binaries, Keras backends, hostile files; every allocation failed in turn. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/env.h"
#include "core/report.h"
#include "kb/kb.h"
#include "probe/probe.h"
#include "sysroot/sysroot.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "elfbuild.h"
#include "testutil.h"

static struct gd_kb *kb;
static char *tree;

static int setup(void **state)
{
    (void)state;
    return gd_kb_open(NULL, &kb) == GD_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gd_kb_free(kb);
    if (tree) {
        tu_rmtree(tree);
        free(tree);
    }
    return 0;
}

static void fresh_tree(void)
{
    if (tree) {
        tu_rmtree(tree);
        free(tree);
    }
    tree = tu_mkdtemp("frameworks");
}

struct run {
    struct gd_root *root;
    struct gd_env *env;
    struct gd_strlist pythons, sites;
    struct gd_probe_ctx ctx;
    struct gd_report *report;
};

/* A context over the tree, with /site given as a site directory and the variables given. */
static void run_ctx_vars(struct run *r, const char *const *vars)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(gd_root_new(tree, &r->root), GD_OK);
    r->env = gd_env_new();
    assert_non_null(r->env);
    for (size_t i = 0; vars && vars[i]; i++)
        assert_int_equal(gd_env_put(r->env, vars[i]), GD_OK);
    assert_int_equal(gd_strlist_push(&r->sites, "/site"), GD_OK);
    r->report = gd_report_new();
    assert_non_null(r->report);
    r->ctx.root = r->root;
    r->ctx.env = r->env;
    r->ctx.kb = kb;
    r->ctx.report = r->report;
    r->ctx.pythons = &r->pythons;
    r->ctx.sites = &r->sites;
}

static void run_ctx(struct run *r)
{
    run_ctx_vars(r, NULL);
}

/* The probe over the tree. */
static void run(struct run *r, const char *const *vars)
{
    run_ctx_vars(r, vars);
    gd_probe_frameworks(&r->ctx);
}

static void run_free(struct run *r)
{
    gd_report_free(r->report);
    gd_root_free(r->root);
    gd_env_free(r->env);
    gd_strlist_free(&r->pythons);
    gd_strlist_free(&r->sites);
}

/* The value of a fact, "-" for an absent one, "?" for an unknown one, NULL when not recorded. */
static const char *fact(const struct run *r, const char *entity, const char *name)
{
    const struct gd_fact *f = gd_report_fact(r->report, entity, name);
    if (!f)
        return NULL;
    if (f->state == GD_FACT_ABSENT)
        return "-";
    if (f->state == GD_FACT_UNKNOWN)
        return "?";
    return f->value;
}

#define EXPECT(r, entity, name, want)                                                    \
    do {                                                                                 \
        const char *got_ = fact(r, entity, name);                                        \
        if (!got_ || strcmp(got_, want) != 0)                                            \
            fail_msg("%s.%s is %s, not %s", entity, name, got_ ? got_ : "(none)", want); \
    } while (0)
#define EXPECT_NONE(r, entity, name)                                    \
    do {                                                                \
        const char *got_ = fact(r, entity, name);                       \
        if (got_)                                                       \
            fail_msg("%s.%s is %s, expected none", entity, name, got_); \
    } while (0)

static void metadata(const char *dir, const char *name, const char *version, const char *extra)
{
    char rel[512], text[4096];
    snprintf(rel, sizeof rel, "site/%s/METADATA", dir);
    snprintf(text, sizeof text,
             "Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s\nThe description.\nName: not-me\n",
             name, version, extra ? extra : "");
    tu_write(tree, rel, text);
}

/* ---- builds -------------------------------------------------------------------------------- */

static void test_tensorflow_dict(void **state)
{
    (void)state;
    fresh_tree();
    metadata("tensorflow-2.4.0.dist-info", "tensorflow", "2.4.0", NULL);
    tu_write(tree, "site/tensorflow/python/platform/build_info.py",
             "# Copyright 2020 The TensorFlow Authors.\n"
             "\"\"\"Auto-generated module providing information about the build.\"\"\"\n"
             "from __future__ import absolute_import\n"
             "import collections\n\n"
             "build_info = collections.OrderedDict()\n" /* replaced below, as Python would */
             "build_info = {'cpu_compiler': '/dt7/usr/bin/gcc',\n"
             "    'cuda_compute_capabilities': ['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75',\n"
             "                                  'compute_80'],\n"
             "    'cuda_version': '11.0', 'cudnn_version': '8',\n"
             "    'is_cuda_build': True, 'is_rocm_build': False}\n");
    struct run r;
    run(&r, NULL);
    const char *id = "framework:/site/tensorflow-2.4.0.dist-info";
    EXPECT(&r, id, "framework", "tensorflow");
    EXPECT(&r, id, "dist", "tensorflow");
    EXPECT(&r, id, "version", "2.4.0");
    EXPECT(&r, id, "build", "cuda");
    EXPECT(&r, id, "build.cuda", "11.0");
    EXPECT(&r, id, "build.cudnn", "8");
    EXPECT(&r, id, "build.compute_capabilities", "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80");
    EXPECT(&r, "frameworks", "count", "1");
    assert_false(gd_report_failed(r.report));
    run_free(&r);
}

static void test_tensorflow_assign_and_cpu(void **state)
{
    (void)state;
    fresh_tree();
    /* TensorFlow 2.0 wrote module-level assignments. */
    metadata("tensorflow_gpu-2.0.0.dist-info", "tensorflow-gpu", "2.0.0", NULL);
    tu_write(tree, "site/tensorflow/python/platform/build_info.py",
             "is_rocm_build = False\nis_cuda_build = True\ncuda_version_number = '10.0'\n"
             "cudnn_version_number = '7'\n");
    metadata("tensorflow_cpu-2.16.1.dist-info", "tensorflow-cpu", "2.16.1", NULL);
    struct run r;
    run(&r, NULL);
    const char *gpu = "framework:/site/tensorflow_gpu-2.0.0.dist-info";
    EXPECT(&r, gpu, "role", "alias");
    EXPECT(&r, gpu, "build", "cuda");
    EXPECT(&r, gpu, "build.cuda", "10.0");
    EXPECT(&r, gpu, "build.cudnn", "7");
    /* The same build_info.py is read for both (they share the package directory); what the
     * file says wins over the name's role. */
    const char *cpu = "framework:/site/tensorflow_cpu-2.16.1.dist-info";
    EXPECT(&r, cpu, "role", "cpu-only");
    EXPECT(&r, cpu, "build", "cuda");
    run_free(&r);

    tu_write(tree, "site/tensorflow/python/platform/build_info.py",
             "build_info = collections.OrderedDict([('is_cuda_build', False),\n"
             "    ('is_rocm_build', False), ('is_tensorrt_build', False)])\n");
    run(&r, NULL);
    EXPECT(&r, cpu, "build", "cpu");
    EXPECT(&r, cpu, "build.cuda", "-");
    run_free(&r);

    /* No build file: the role decides. */
    tu_write(tree, "site/tensorflow/python/platform/unrelated.py", "x = 1\n");
    char path[4096];
    assert_int_equal(
        unlink(tu_path(path, sizeof path, tree, "site/tensorflow/python/platform/build_info.py")),
        0);
    run(&r, NULL);
    EXPECT(&r, cpu, "build", "cpu");
    EXPECT(&r, cpu, "build_info", "-");
    EXPECT(&r, gpu, "build", "?");
    run_free(&r);
}

static void test_torch_builds(void **state)
{
    (void)state;
    fresh_tree();
    metadata("torch-2.1.0+cu121.dist-info", "torch", "2.1.0+cu121",
             "Requires-Dist: filelock\n"
             "Requires-Dist: nvidia-cudnn-cu12 (==8.9.2.26) ; platform_system == \"Linux\" and "
             "platform_machine == \"x86_64\"\n"
             "Requires-Dist: nvidia-cudnn-cu12 ==8.9.2.26; platform_system == \"Windows\"\n"
             "Requires-Dist: nvidia-cublas-cu12==12.1.3.1; platform_system == \"Linux\"");
    tu_write(tree, "site/torch/version.py",
             "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', "
             "'git_version', 'hip']\n__version__ = '2.1.0+cu121'\ndebug = False\n"
             "cuda: Optional[str] = '12.1'\ngit_version = "
             "'7bcf7da3a268b435777fe87c7794c382f444e86d'\nhip: Optional[str] = None\n");
    struct run r;
    run(&r, NULL);
    const char *id = "framework:/site/torch-2.1.0+cu121.dist-info";
    EXPECT(&r, id, "build", "cuda");
    EXPECT(&r, id, "build.cuda", "12.1");
    EXPECT(&r, id, "git_version", "7bcf7da3a268b435777fe87c7794c382f444e86d");
    EXPECT(&r, id, "requires.nvidia-cudnn-cu12", "==8.9.2.26");
    EXPECT(&r, id, "requires.nvidia-cublas-cu12", "==12.1.3.1");
    EXPECT_NONE(&r, id, "requires.filelock");
    run_free(&r);

    /* ROCm: hip set. */
    tu_write(tree, "site/torch/version.py",
             "__version__ = '2.1.0+rocm5.6'\ncuda = None\nhip = '5.6.31061-8c743ae5d'\n");
    run(&r, NULL);
    EXPECT(&r, id, "build", "rocm");
    EXPECT(&r, id, "build.hip", "5.6.31061-8c743ae5d");
    run_free(&r);

    /* No version.py: the local version label. */
    char path[4096];
    assert_int_equal(unlink(tu_path(path, sizeof path, tree, "site/torch/version.py")), 0);
    run(&r, NULL);
    EXPECT(&r, id, "version_py", "-");
    EXPECT(&r, id, "build", "cuda");
    EXPECT(&r, id, "build.cuda", "12.1");
    run_free(&r);
}

static void test_torch_egg_info_file(void **state)
{
    (void)state;
    fresh_tree();
    /* setuptools once wrote the egg-info as a single PKG-INFO file. */
    tu_write(tree, "site/torch-1.0.0-py3.6.egg-info",
             "Metadata-Version: 1.1\nName: torch\nVersion: 1.0.0\n");
    tu_write(tree, "site/torch/version.py",
             "__version__ = '1.0.0'\ndebug = False\ncuda = None\ngit_version = 'Unknown'\n");
    struct run r;
    run(&r, NULL);
    const char *id = "framework:/site/torch-1.0.0-py3.6.egg-info";
    EXPECT(&r, id, "version", "1.0.0");
    EXPECT(&r, id, "build", "cpu");
    run_free(&r);

    /* Debian's python3-torch: an egg-info directory, requires.txt beside PKG-INFO. */
    fresh_tree();
    tu_write(tree, "site/torch-1.13.0a0+gitunknown.egg-info/PKG-INFO",
             "Metadata-Version: 2.1\nName: torch\nVersion: 1.13.0a0+gitunknown\n");
    tu_write(tree, "site/torch-1.13.0a0+gitunknown.egg-info/requires.txt",
             "typing_extensions\n\n[opt-einsum]\nopt-einsum>=3.3\n");
    tu_write(tree, "site/torch/version.py",
             "__version__ = '1.13.0a0+gitunknown'\ndebug = False\ncuda = None\n"
             "git_version = 'Unknown'\nhip = None\n");
    run(&r, NULL);
    id = "framework:/site/torch-1.13.0a0+gitunknown.egg-info";
    EXPECT(&r, id, "version", "1.13.0a0+gitunknown");
    EXPECT(&r, id, "build", "cpu");
    run_free(&r);
}

static void test_jax_and_cupy(void **state)
{
    (void)state;
    fresh_tree();
    metadata("jax-0.4.30.dist-info", "jax", "0.4.30", NULL);
    metadata("jaxlib-0.4.30.dist-info", "jaxlib", "0.4.30", NULL);
    struct run r;
    run(&r, NULL);
    const char *jaxlib = "framework:/site/jaxlib-0.4.30.dist-info";
    EXPECT(&r, jaxlib, "build", "cpu");
    EXPECT_NONE(&r, "framework:/site/jax-0.4.30.dist-info", "build");
    run_free(&r);

    metadata("jax_cuda12_plugin-0.4.30.dist-info", "jax-cuda12-plugin", "0.4.30",
             "Requires-Dist: jax-cuda12-pjrt ==0.4.30\n"
             "Requires-Dist: nvidia-cublas-cu12 >=12.1.3.1 ; extra == 'with_cuda'\n"
             "Provides-Extra: with_cuda");
    run(&r, NULL);
    EXPECT(&r, jaxlib, "build", "cuda");
    EXPECT(&r, jaxlib, "build.cuda", "12");
    EXPECT(&r, "framework:/site/jax_cuda12_plugin-0.4.30.dist-info", "role", "plugin");
    /* with_cuda's wheels are not installed. */
    EXPECT(&r, "framework:/site/jax_cuda12_plugin-0.4.30.dist-info", "extras.with_cuda", "false");
    run_free(&r);

    fresh_tree();
    metadata("jaxlib-0.4.23+cuda12.cudnn89.dist-info", "jaxlib", "0.4.23+cuda12.cudnn89", NULL);
    metadata("cupy_cuda112-10.6.0.dist-info", "cupy-cuda112", "10.6.0", NULL);
    metadata("cupy_cuda12x-13.3.0.dist-info", "cupy-cuda12x", "13.3.0", NULL);
    metadata("onnxruntime-1.18.0.dist-info", "onnxruntime", "1.18.0", NULL);
    run(&r, NULL);
    jaxlib = "framework:/site/jaxlib-0.4.23+cuda12.cudnn89.dist-info";
    EXPECT(&r, jaxlib, "build", "cuda");
    EXPECT(&r, jaxlib, "build.cuda", "12");
    EXPECT(&r, jaxlib, "build.cudnn", "8.9");
    EXPECT(&r, "framework:/site/cupy_cuda112-10.6.0.dist-info", "build.cuda", "11.2");
    EXPECT(&r, "framework:/site/cupy_cuda12x-13.3.0.dist-info", "build.cuda", "12");
    EXPECT(&r, "framework:/site/onnxruntime-1.18.0.dist-info", "build", "cpu");
    run_free(&r);
}

/* ---- Keras ---------------------------------------------------------------------------------- */

static void test_keras(void **state)
{
    (void)state;
    fresh_tree();
    metadata("keras-3.3.3.dist-info", "keras", "3.3.3", NULL);
    tu_write(tree, "home/u/.keras/keras.json",
             "{\n    \"floatx\": \"float32\",\n    \"epsilon\": 1e-07,\n    \"backend\": \"jax\",\n"
             "    \"image_data_format\": \"channels_last\"\n}\n");
    const char *home[] = { "HOME=/home/u", NULL };
    struct run r;
    run(&r, home);
    EXPECT(&r, "keras:/site", "major", "3");
    EXPECT(&r, "keras:/site", "backend", "jax");
    EXPECT(&r, "keras:/site", "backend.from", "config");
    run_free(&r);

    const char *var[] = { "HOME=/home/u", "KERAS_BACKEND=torch", NULL };
    run(&r, var);
    EXPECT(&r, "keras:/site", "backend", "torch");
    EXPECT(&r, "keras:/site", "backend.from", "env");
    run_free(&r);

    /* KERAS_HOME elsewhere, without keras.json: the default. */
    const char *kh[] = { "HOME=/home/u", "KERAS_HOME=/nowhere", NULL };
    run(&r, kh);
    EXPECT(&r, "keras:/site", "backend", "tensorflow");
    EXPECT(&r, "keras:/site", "backend.from", "default");
    run_free(&r);

    /* An image without HOME: /root, then /home/<user>. A keras.json that does not parse is
     * the default, as Keras falls back. */
    run(&r, NULL);
    EXPECT(&r, "keras:/site", "backend", "jax");
    run_free(&r);
    tu_write(tree, "home/u/.keras/keras.json", "{\"backend\": ");
    run(&r, home);
    EXPECT(&r, "keras:/site", "backend", "tensorflow");
    run_free(&r);

    /* Keras 2 has no backend choice. */
    fresh_tree();
    metadata("keras-2.15.0.dist-info", "keras", "2.15.0", NULL);
    run(&r, NULL);
    EXPECT(&r, "keras:/site", "major", "2");
    EXPECT_NONE(&r, "keras:/site", "backend");
    run_free(&r);
}

/* ---- libraries and kernels ---------------------------------------------------------------- */

static void write_so(const char *rel, const char *soname, const char *runpath,
                     const char *const *needed)
{
    struct eb_spec s = { 0 };
    s.cls = 64;
    s.type = EB_ET_DYN;
    s.machine = EB_EM_X86_64;
    s.dynamic = true;
    s.soname = soname;
    s.runpath = runpath;
    for (size_t i = 0; needed && needed[i] && i < 8; i++)
        s.needed[i] = needed[i];
    s.sections = true;
    struct eb_layout lay;
    unsigned char *p = eb_build(&s, &lay);
    tu_write_n(tree, rel, p, lay.len);
    free(p);
}

static void copy_fixture(const char *from, const char *rel)
{
    FILE *f = fopen(from, "rb");
    assert_non_null(f);
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    tu_write_n(tree, rel, buf, n);
}

static void torch_tree(bool cudnn_wheel)
{
    fresh_tree();
    metadata("torch-2.1.0+cu121.dist-info", "torch", "2.1.0+cu121",
             "Requires-Dist: nvidia-cudnn-cu12 (==8.9.2.26)");
    tu_write(tree, "site/torch-2.1.0+cu121.dist-info/RECORD",
             "torch/__init__.py,sha256=x,10\n"
             "torch/lib/libtorch_cuda.so,sha256=x,100\n"
             "torch/lib/libkernels.so,sha256=x,100\n"
             "torch/_C.cpython-311-x86_64-linux-gnu.so,sha256=x,100\n"
             "../../../bin/torchrun,sha256=x,10\n"
             "torch-2.1.0+cu121.dist-info/RECORD,,\n");
    tu_write(tree, "site/torch/version.py", "__version__ = '2.1.0+cu121'\ncuda = '12.1'\n");
    const char *needed[] = { "libc10.so",    "libcudart.so.12", "libcudnn.so.8",
                             "libcuda.so.1", "libcublas.so.12", NULL };
    write_so("site/torch/lib/libtorch_cuda.so", "libtorch_cuda.so",
             "$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN", needed);
    copy_fixture(GD_SOURCE_DIR "/tests/fixtures/fatbin/libfatbin-cuda13.so",
                 "site/torch/lib/libkernels.so");
    /* Not an ELF file at all: skipped. */
    tu_write(tree, "site/torch/_C.cpython-311-x86_64-linux-gnu.so", "junk");
    if (cudnn_wheel)
        write_so("site/nvidia/cudnn/lib/libcudnn.so.8", "libcudnn.so.8", NULL, NULL);
    /* cuBLAS where torch's preload glob finds it, not on any search path. */
    write_so("site/nvidia/cublas/lib/libcublas.so.12", "libcublas.so.12", NULL, NULL);
}

static void test_torch_libraries(void **state)
{
    (void)state;
    torch_tree(true);
    struct run r;
    run(&r, NULL);
    const char *fw = "framework:/site/torch-2.1.0+cu121.dist-info";
    EXPECT(&r, fw, "native_modules", "3");
    const char *cudnn = "framework_lib:/site/torch-2.1.0+cu121.dist-info:libcudnn.so.8";
    EXPECT(&r, cudnn, "how", "needed");
    EXPECT(&r, cudnn, "needed_by", "/site/torch/lib/libtorch_cuda.so");
    EXPECT(&r, cudnn, "path", "/site/nvidia/cudnn/lib/libcudnn.so.8");
    EXPECT(&r, cudnn, "rule", "runpath");
    EXPECT(&r, cudnn, "version", "8");
    EXPECT(&r, cudnn, "family", "cudnn");
    const char *cudart = "framework_lib:/site/torch-2.1.0+cu121.dist-info:libcudart.so.12";
    EXPECT(&r, cudart, "path", "-");
    const char *cublas = "framework_lib:/site/torch-2.1.0+cu121.dist-info:libcublas.so.12";
    EXPECT(&r, cublas, "path", "/site/nvidia/cublas/lib/libcublas.so.12");
    EXPECT(&r, cublas, "rule", "preload");
    /* The driver's library and torch's own are not CUDA family libraries of the framework. */
    assert_null(
        gd_report_entity(r.report, "framework_lib:/site/torch-2.1.0+cu121.dist-info:libcuda.so.1"));
    assert_null(
        gd_report_entity(r.report, "framework_lib:/site/torch-2.1.0+cu121.dist-info:libc10.so"));
    const char *k = "kernels:/site/torch/lib/libkernels.so";
    EXPECT(&r, k, "sass", "sm_75,sm_90a,sm_100f");
    EXPECT(&r, k, "ptx", "compute_120");
    EXPECT(&r, k, "entries", "4");
    EXPECT(&r, k, "framework", fw);
    assert_null(gd_report_entity(r.report, "kernels:/site/torch/lib/libtorch_cuda.so"));
    assert_false(gd_report_failed(r.report));
    run_free(&r);

    torch_tree(false);
    run(&r, NULL);
    EXPECT(&r, cudnn, "path", "-");
    run_free(&r);
}

static void test_tensorflow_dlopens(void **state)
{
    (void)state;
    fresh_tree();
    metadata("tensorflow-2.15.0.dist-info", "tensorflow", "2.15.0", NULL);
    tu_write(tree, "site/tensorflow-2.15.0.dist-info/RECORD",
             "tensorflow/libtensorflow_framework.so.2,sha256=x,1\n");
    tu_write(tree, "site/tensorflow/python/platform/build_info.py",
             "build_info = collections.OrderedDict([('cuda_version', '12.2'), ('cudnn_version', "
             "'8'), ('is_cuda_build', True)])\n");
    write_so("site/tensorflow/libtensorflow_framework.so.2", "libtensorflow_framework.so.2",
             "$ORIGIN/../nvidia/cudnn/lib:$ORIGIN/../nvidia/cuda_runtime/lib", NULL);
    write_so("site/nvidia/cudnn/lib/libcudnn.so.8", "libcudnn.so.8", NULL, NULL);
    struct run r;
    run(&r, NULL);
    const char *cudnn = "framework_lib:/site/tensorflow-2.15.0.dist-info:libcudnn.so.8";
    EXPECT(&r, cudnn, "how", "dlopen");
    EXPECT(&r, cudnn, "path", "/site/nvidia/cudnn/lib/libcudnn.so.8");
    EXPECT(&r, "framework_lib:/site/tensorflow-2.15.0.dist-info:libcudart.so.12", "path", "-");
    EXPECT(&r, "framework_lib:/site/tensorflow-2.15.0.dist-info:libcupti.so.12.2", "optional",
           "true");
    run_free(&r);
}

/* ---- hostile files ------------------------------------------------------------------------ */

static void test_hostile(void **state)
{
    (void)state;
    fresh_tree();
    static const unsigned char junk[] = { 0x7f, 'E', 'L', 'F', 0, 0xff, '\n', ':', 0, 1, 2 };
    tu_write_n(tree, "site/torch-2.0.0.dist-info/METADATA", junk, sizeof junk);
    tu_mkdirs(tree, "site/tensorflow-2.4.0.dist-info"); /* no METADATA */
    tu_mkfifo(tree, "site/tensorflow/python/platform/build_info.py");
    tu_write(tree, "site/jaxlib-0.4.1.dist-info/METADATA", "Name: jaxlib\nVersion: 0.4.1\n");
    tu_symlink(tree, "site/jaxlib-0.4.1.dist-info/RECORD", "RECORD");
    tu_write(tree, "site/cupy-12.0.0.dist-info/METADATA", "Name: cupy\nVersion: 12.0.0\n");
    tu_write(tree, "site/tf_keras-2.16.0.dist-info/METADATA",
             "Name: tf-keras\nVersion: '\"\nVersion: 2\n");
    tu_write(tree, "site/not-a-framework-1.0.dist-info/METADATA", "Name: x\n");
    tu_write(tree, "site/-1.0.dist-info/METADATA", "Name: x\n");
    struct run r;
    run(&r, NULL);
    EXPECT(&r, "framework:/site/torch-2.0.0.dist-info", "framework", "torch");
    EXPECT(&r, "framework:/site/tensorflow-2.4.0.dist-info", "version", "-");
    EXPECT(&r, "framework:/site/tensorflow-2.4.0.dist-info", "build_info", "?");
    EXPECT(&r, "framework:/site/tensorflow-2.4.0.dist-info", "build", "?");
    EXPECT(&r, "framework:/site/cupy-12.0.0.dist-info", "build", "?");
    EXPECT(&r, "frameworks", "count", "5");
    assert_false(gd_report_failed(r.report));
    run_free(&r);

    /* A build file that does not parse keeps what parsed and says where it stopped. */
    fresh_tree();
    metadata("tensorflow-2.4.0.dist-info", "tensorflow", "2.4.0", NULL);
    tu_write(tree, "site/tensorflow/python/platform/build_info.py",
             "build_info = {'is_cuda_build': True, 'cuda_version': '11.0'}\nx = 'unterminated\n");
    run(&r, NULL);
    EXPECT(&r, "framework:/site/tensorflow-2.4.0.dist-info", "build", "cuda");
    run_free(&r);
    tu_write(tree, "site/tensorflow/python/platform/build_info.py",
             "build_info = {'is_cuda_build': True, 'cuda_version': '64_112'\n");
    run(&r, NULL);
    EXPECT(&r, "framework:/site/tensorflow-2.4.0.dist-info", "build", "?");
    run_free(&r);
    /* TensorFlow's Windows spelling reads as the version it names (cuda_configure.bzl). */
    tu_write(tree, "site/tensorflow/python/platform/build_info.py",
             "build_info = {'is_cuda_build': True, 'cuda_version': '64_112', "
             "'cudnn_version': '64_8'}\n");
    run(&r, NULL);
    EXPECT(&r, "framework:/site/tensorflow-2.4.0.dist-info", "build.cuda", "11.2");
    EXPECT(&r, "framework:/site/tensorflow-2.4.0.dist-info", "build.cudnn", "8");
    run_free(&r);
    tu_write(tree, "site/tensorflow/python/platform/build_info.py",
             "build_info = {'is_cuda_build': True, 'cuda_version': '64_1a2'}\n");
    run(&r, NULL);
    EXPECT(&r, "framework:/site/tensorflow-2.4.0.dist-info", "build.cuda", "?");
    run_free(&r);
}

/* Every allocation failed in turn: the report says it is incomplete, never a wrong fact. */
static void test_alloc_failures(void **state)
{
    (void)state;
    torch_tree(true);
    metadata("keras-3.3.3.dist-info", "keras", "3.3.3", NULL);
    metadata("jaxlib-0.4.30.dist-info", "jaxlib", "0.4.30", NULL);
    tu_write(
        tree, "site/tensorflow/python/platform/build_info.py",
        "build_info = {'is_cuda_build': True, 'cuda_version': '12.2', 'cudnn_version': '8'}\n");
    metadata("tensorflow-2.15.0.dist-info", "tensorflow", "2.15.0", NULL);
    /* Counted over the probe alone, as each failing run below fails inside it. */
    struct run r;
    run_ctx(&r);
    gd_alloc_fail_at(0);
    gd_probe_frameworks(&r.ctx);
    unsigned long total = gd_alloc_fail_at(0);
    assert_false(gd_report_failed(r.report));
    size_t want = gd_report_entity_count(r.report);
    run_free(&r);
    assert_true(total > 50);
    for (unsigned long n = 1; n <= total + 1; n++) {
        struct run f;
        run_ctx(&f);
        gd_alloc_fail_at(n);
        gd_probe_frameworks(&f.ctx);
        gd_alloc_fail_at(0);
        bool failed = gd_report_failed(f.report);
        if (n <= total && !failed)
            fail_msg("allocation %lu of %lu failed, yet the report is complete", n, total);
        if (!failed)
            assert_int_equal(gd_report_entity_count(f.report), want);
        run_free(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensorflow_dict), cmocka_unit_test(test_tensorflow_assign_and_cpu),
        cmocka_unit_test(test_torch_builds),    cmocka_unit_test(test_torch_egg_info_file),
        cmocka_unit_test(test_jax_and_cupy),    cmocka_unit_test(test_keras),
        cmocka_unit_test(test_torch_libraries), cmocka_unit_test(test_tensorflow_dlopens),
        cmocka_unit_test(test_hostile),         cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
