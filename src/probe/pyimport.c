/* The import script and the children that run it. */
#include "probe/pyimport.h"

#include "core/alloc.h"
#include "core/env.h"

#include <string.h>

const char *const gd_import_frameworks[GD_IMPORT_FRAMEWORKS] = {
    "tensorflow", "torch", "jax", "cupy", "onnxruntime", "tensorrt",
};

/*
 * Why it is written as it is:
 * - The answer goes to a duplicate of the real standard output, and descriptor 1 and sys.stdout
 *   become standard error before the import: whatever the framework prints (C++ logging, a
 *   print() in an __init__) cannot mix with the answer, and stays as evidence.
 * - Every query is made on its own: one that raises (cupy's getDeviceCount without a driver)
 *   is reported under "errors" with its exception's last line, and the others still answer.
 * - The import catches BaseException: a package that calls sys.exit() while importing failed
 *   to import, and says so like any other.
 * - os._exit(0) after the answer: a framework's exit handlers (TensorFlow's, at interpreter
 *   shutdown) must not hang or crash a child that has answered.
 * - No f-strings and nothing past Python 2.7, so that an old environment answers too.
 * The APIs asked: torch.version, torch.cuda and torch.backends.cudnn; TensorFlow's
 * tf.sysconfig.get_build_info() (2.3+), tf.config.list_physical_devices (2.1+, else its
 * experimental twin) and tf.config.experimental.get_device_details; jax.devices(),
 * jax.default_backend() and each Device's platform, device_kind and compute_capability;
 * cupy.cuda.runtime (runtimeGetVersion, driverGetVersion, getDeviceCount,
 * getDeviceProperties) and cupy.cuda.Device(i).compute_capability ("80");
 * onnxruntime.get_available_providers() and get_device(); tensorrt.__version__.
 */
const char gd_import_script[] =
    "import os, sys, json, traceback\n"
    "out = os.fdopen(os.dup(1), 'w')\n"
    "os.dup2(2, 1)\n"
    "sys.stdout = sys.stderr\n"
    "fw = sys.argv[1]\n"
    "r = {}\n"
    "errors = {}\n"
    "def last(e):\n"
    "    t = ''.join(traceback.format_exception_only(type(e), e)).strip().splitlines()\n"
    "    return t[-1] if t else type(e).__name__\n"
    "def get(key, f):\n"
    "    try:\n"
    "        v = f()\n"
    "        r[key] = v\n"
    "        return v\n"
    "    except Exception as e:\n"
    "        errors[key] = last(e)\n"
    "def cc(t):\n"
    "    return None if t is None else '%d.%d' % tuple(t)[:2]\n"
    "try:\n"
    "    m = __import__(fw)\n"
    "    r['imported'] = True\n"
    "except BaseException as e:\n"
    "    traceback.print_exc()\n"
    "    m = None\n"
    "    r['imported'] = False\n"
    "    r['error'] = last(e)\n"
    "    r['error_type'] = type(e).__name__\n"
    "if m is not None:\n"
    "    get('version', lambda: str(m.__version__))\n"
    "if fw == 'torch' and m is not None:\n"
    "    get('cuda', lambda: m.version.cuda)\n"
    "    get('hip', lambda: m.version.hip)\n"
    "    get('cuda_build', lambda: m.version.cuda is not None)\n"
    "    ok = get('cuda_available', lambda: bool(m.cuda.is_available()))\n"
    "    n = get('device_count', lambda: int(m.cuda.device_count()))\n"
    "    get('arch_list', lambda: list(m.cuda.get_arch_list()))\n"
    "    get('cudnn', lambda: m.backends.cudnn.version())\n"
    "    if ok and n:\n"
    "        get('gpus', lambda: [{'name': m.cuda.get_device_name(i),\n"
    "                              'capability': cc(m.cuda.get_device_capability(i))}\n"
    "                             for i in range(n)])\n"
    "elif fw == 'tensorflow' and m is not None:\n"
    "    b = get('build', lambda: dict(m.sysconfig.get_build_info()))\n"
    "    if b is not None:\n"
    "        r.pop('build')\n"
    "        r['cuda_build'] = bool(b.get('is_cuda_build', False))\n"
    "        r['cuda'] = b.get('cuda_version')\n"
    "        r['cudnn'] = b.get('cudnn_version')\n"
    "        r['compute_capabilities'] = b.get('cuda_compute_capabilities')\n"
    "    else:\n"
    "        errors['cuda_build'] = errors.pop('build')\n"
    "    def tf_gpus():\n"
    "        c = m.config\n"
    "        ls = getattr(c, 'list_physical_devices', None) or "
    "c.experimental.list_physical_devices\n"
    "        g = []\n"
    "        for d in ls('GPU'):\n"
    "            try:\n"
    "                x = dict(c.experimental.get_device_details(d))\n"
    "            except Exception:\n"
    "                x = {}\n"
    "            g.append({'name': x.get('device_name', d.name),\n"
    "                      'capability': cc(x.get('compute_capability'))})\n"
    "        return g\n"
    "    g = get('gpus', tf_gpus)\n"
    "    if g is None:\n"
    "        errors['device_count'] = errors['cuda_available'] = errors['gpus']\n"
    "    else:\n"
    "        r['device_count'] = len(g)\n"
    "        r['cuda_available'] = len(g) > 0\n"
    "elif fw == 'jax' and m is not None:\n"
    "    def jaxlib_version():\n"
    "        import jaxlib\n"
    "        v = getattr(jaxlib, '__version__', None)\n"
    "        if v is None:\n"
    "            from jaxlib import version\n"
    "            v = version.__version__\n"
    "        return str(v)\n"
    "    get('jaxlib', jaxlib_version)\n"
    "    get('backend', lambda: str(m.default_backend()))\n"
    "    d = get('devices', lambda: list(m.devices()))\n"
    "    if d is None:\n"
    "        errors['device_count'] = errors['cuda_available'] = errors.pop('devices')\n"
    "    else:\n"
    "        r.pop('devices')\n"
    "        r['platforms'] = sorted(set(str(x.platform) for x in d))\n"
    "        g = [x for x in d if x.platform in ('gpu', 'cuda', 'rocm')]\n"
    "        r['device_count'] = len(g)\n"
    "        r['cuda_available'] = len(g) > 0\n"
    "        r['gpus'] = [{'name': str(x.device_kind),\n"
    "                      'capability': getattr(x, 'compute_capability', None)} for x in g]\n"
    "elif fw == 'cupy' and m is not None:\n"
    "    rt = m.cuda.runtime\n"
    "    get('cuda', lambda: int(rt.runtimeGetVersion()))\n"
    "    get('driver', lambda: int(rt.driverGetVersion()))\n"
    "    get('cuda_build', lambda: not getattr(rt, 'is_hip', False))\n"
    "    n = get('device_count', lambda: int(rt.getDeviceCount()))\n"
    "    r['cuda_available'] = bool(n)\n"
    "    def cupy_gpus():\n"
    "        g = []\n"
    "        for i in range(n):\n"
    "            name = rt.getDeviceProperties(i)['name']\n"
    "            if isinstance(name, bytes):\n"
    "                name = name.decode('utf-8', 'replace')\n"
    "            c = str(m.cuda.Device(i).compute_capability)\n"
    "            g.append({'name': name, 'capability': c[:-1] + '.' + c[-1:]})\n"
    "        return g\n"
    "    if n:\n"
    "        get('gpus', cupy_gpus)\n"
    "elif fw == 'onnxruntime' and m is not None:\n"
    "    p = get('providers', lambda: [str(x) for x in m.get_available_providers()])\n"
    "    get('device', lambda: str(m.get_device()))\n"
    "    if p is not None:\n"
    "        r['cuda_build'] = 'CUDAExecutionProvider' in p\n"
    "r['errors'] = errors\n"
    "sys.stderr.flush()\n"
    "out.write(json.dumps(r, default=str) + '\\n')\n"
    "out.flush()\n"
    "os._exit(0)\n";

/* "NAME=VALUE" strings of `env`, NULL-terminated, in one allocation with the pointers first. */
static char **environment(const struct gd_env *env)
{
    size_t n = gd_env_count(env), bytes = (n + 1) * sizeof(char *);
    for (size_t i = 0; i < n; i++)
        bytes += strlen(gd_env_name_at(env, i)) + strlen(gd_env_value_at(env, i)) + 2;
    char **envp = gd_malloc(bytes);
    if (!envp)
        return NULL;
    char *p = (char *)(envp + n + 1);
    for (size_t i = 0; i < n; i++) {
        const char *name = gd_env_name_at(env, i), *value = gd_env_value_at(env, i);
        size_t a = strlen(name), b = strlen(value);
        envp[i] = p;
        memcpy(p, name, a);
        p[a] = '=';
        memcpy(p + a + 1, value, b + 1);
        p += a + b + 2;
    }
    envp[n] = NULL;
    return envp;
}

enum gd_status gd_imports_run(struct gd_import_job *jobs, size_t n, const struct gd_env *env,
                              unsigned timeout_ms)
{
    for (size_t i = 0; i < n; i++)
        memset(&jobs[i].result, 0, sizeof jobs[i].result);
    if (n == 0)
        return GD_OK;
    char **envp = environment(env);
    const char *(*argv)[5] = gd_calloc(n, sizeof *argv);
    struct gd_child_job *children = gd_calloc(n, sizeof *children);
    struct gd_child_result *results = gd_calloc(n, sizeof *results);
    enum gd_status st = envp && argv && children && results ? GD_OK : GD_ENOMEM;
    for (size_t i = 0; st == GD_OK && i < n; i++) {
        argv[i][0] = jobs[i].python;
        argv[i][1] = "-c";
        argv[i][2] = gd_import_script;
        argv[i][3] = jobs[i].framework;
        argv[i][4] = NULL;
        children[i].argv = argv[i];
        children[i].envp = (const char *const *)envp;
    }
    /* A batch at a time, each with the whole deadline. */
    for (size_t at = 0; st == GD_OK && at < n; at += GD_IMPORT_PARALLEL) {
        size_t k = n - at < GD_IMPORT_PARALLEL ? n - at : GD_IMPORT_PARALLEL;
        st = gd_os_children_run(children + at, k, timeout_ms, GD_IMPORT_OUTPUT_MAX, results + at);
        for (size_t i = at; i < at + k; i++) {
            jobs[i].result = results[i];
            memset(&results[i], 0, sizeof results[i]);
        }
    }
    gd_free(results);
    gd_free(children);
    gd_free(argv);
    gd_free(envp);
    return st;
}
