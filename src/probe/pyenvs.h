/*
 * The Python environments of the inspected machine, found from files alone: nothing is run, no
 * interpreter is asked for its sys.path. Each environment is a prefix (a directory holding
 * bin/python and lib/pythonX.Y) with the site directories its interpreter would import from, in
 * the order it would import from them, as site.py computes them (CPython's Lib/site.py and
 * Debian's patched copy; getpath.py for how an interpreter finds its prefix and pyvenv.cfg).
 *
 * Where environments are looked for, in this order (the order of the list):
 *   1. --python PATH (an interpreter, or a prefix) and --site DIR given by the user;
 *   2. VIRTUAL_ENV and CONDA_PREFIX (marked active);
 *   3. python3, python, python2, python2.7 and the pythonX.Y of each X.Y its prefix's lib has, in
 *      every PATH directory (looked up by name: listing a /usr/bin of a thousand files cost 50
 *      times as much); pyenv's shims stand for
 *      the version pyenv selects (PYENV_VERSION, .python-version up from the current directory
 *      on the live machine, then $PYENV_ROOT/version);
 *   4. conda: the root of CONDA_EXE, MAMBA_ROOT_PREFIX, miniconda3, anaconda3, miniforge3,
 *      mambaforge and micromamba in each home and conda, ... in /opt; each root's base (when
 *      it has conda-meta) and envs/<name>; ~/.conda/envs/<name> and the prefixes
 * ~/.conda/environments.txt lists;
 *   5. pyenv: $PYENV_ROOT/versions/<name> or ~/.pyenv/versions/<name>;
 *   6. virtualenvwrapper: $WORKON_HOME/<name> or ~/.virtualenvs/<name>;
 *   7. the system: /usr (and /usr/local when it holds a Python of its own, as the python:3.x
 *      container images do), one environment per Python version whose standard library
 *      (lib/pythonX.Y/os.py, the landmark getpath.py looks for) is there, or whose Debian
 *      dist-packages directory is;
 *   8. user sites: <home>/.local/lib/pythonX.Y/site-packages of each home;
 *   9. the base interpreter of each venv (pyvenv.cfg's `home`), when nothing above found it.
 * Homes are $HOME and, under a foreign root, /root and every /home/<user> too. A project's .venv
 * is found only when it is active (VIRTUAL_ENV), on PATH or given: searching every directory
 * for one would be slow and guesswork.
 *
 * An environment is kept once per real prefix (symlinks resolved inside the root) and Python
 * version: /usr may hold python3.11 and python3.12 (deadsnakes), ~/.local one user site per
 * version; everything else has one version per prefix.
 *
 * Caps, so that a hostile or huge tree costs bounded time: GD_PYENVS_MAX environments (more are
 * counted, not kept), GD_PYENV_DIR_ENTRIES_MAX entries of one envs/, versions/ or .virtualenvs/
 * directory, GD_PYENV_PATH_DIRS_MAX PATH directories, GD_PYENV_HOMES_MAX homes,
 * GD_PYENV_SITE_DIRS_MAX site directories per environment, GD_PYENV_FILE_MAX bytes of
 * pyvenv.cfg, environments.txt or pyenv's version file, GD_PYENV_PROBLEMS_MAX problems.
 * No file larger than that is read, and no directory is listed twice.
 */
#ifndef GD_PROBE_PYENVS_H
#define GD_PROBE_PYENVS_H

#include "core/strlist.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

#define GD_PYENVS_MAX            256
#define GD_PYENV_DIR_ENTRIES_MAX 1024
#define GD_PYENV_PATH_DIRS_MAX   64
#define GD_PYENV_HOMES_MAX       256
#define GD_PYENV_SITE_DIRS_MAX   16
#define GD_PYENV_FILE_MAX        (64 * 1024)
#define GD_PYENV_PROBLEMS_MAX    64

struct gd_probe_ctx;

enum gd_pyenv_kind {
    GD_PYENV_SYSTEM, /* a distribution's or a hand-built interpreter's own prefix */
    GD_PYENV_VENV,  /* a virtual environment: pyvenv.cfg (venv, virtualenv, uv, pyenv-virtualenv) */
    GD_PYENV_CONDA, /* a conda, mamba or micromamba prefix: conda-meta/ */
    GD_PYENV_PYENV, /* an interpreter that pyenv built: <pyenv root>/versions/<name> */
    GD_PYENV_USER,  /* a user site: ~/.local/lib/pythonX.Y/site-packages (pip install --user) */
    GD_PYENV_GIVEN, /* a site directory given with --site; its prefix is that directory */
};

struct gd_pyenv {
    enum gd_pyenv_kind kind;
    char *prefix;   /* canonical path inside the root */
    char *python;   /* an interpreter of it as found (not resolved), or NULL when it has none */
    char *version;  /* "3.11", or NULL when nothing states it */
    char *found_by; /* how it was found: "--python", "--site", "VIRTUAL_ENV", "CONDA_PREFIX",
                     * "PATH", "pyenv shim", "conda", "environments.txt", "pyenv",
                     * "virtualenvwrapper", "system", "user site", "venv base" */
    bool active;    /* named by VIRTUAL_ENV or CONDA_PREFIX */
    const char *active_var; /* which of the two (static), or NULL */
    char *base_prefix; /* venvs: the base interpreter's prefix, from pyvenv.cfg's home; or NULL */
    bool system_site;  /* venvs: include-system-site-packages (site.py's default: true) */
    struct gd_strlist site_dirs; /* canonical, in import order, existing directories only */

    /* Where each of the above came from, for the facts' sources. */
    enum gd_source_kind found_kind;
    char *found_ref; /* the variable, option, path or file that led to it */
    enum gd_source_kind version_kind;
    char *version_ref; /* the file or path that states the version; NULL with version */
    bool is_default;   /* what `python3` (else `python`) typed in a shell runs: first on PATH */
    char *venv_cfg;    /* venvs: the pyvenv.cfg read; NULL otherwise */
    bool system_site_stated; /* pyvenv.cfg says include-system-site-packages */
    char *venv_home;         /* venvs: pyvenv.cfg's home (the base's bin), NULL when unstated */
    char *base_python;       /* venvs: the base interpreter in `home`, NULL when it is missing */
};

/* Something named as a Python environment or interpreter that is not one: a dangling
 * interpreter symlink on PATH, a VIRTUAL_ENV that does not exist, a venv whose base is gone. */
struct gd_pyenv_problem {
    char *path;   /* what was named */
    char *reason; /* "dangling symbolic link", "no such directory", ... */
    enum gd_source_kind kind;
    char *ref; /* where it was named: the variable, option, PATH entry or file */
};

struct gd_pyenvs {
    struct gd_pyenv *items;
    size_t count, cap;
    size_t dropped; /* environments found past GD_PYENVS_MAX */
    struct gd_pyenv_problem *problems;
    size_t nproblems, cap_problems;
};

/* Find the Python environments of ctx's root, reading its environment snapshot and the
 * --python/--site options in ctx. `*out` is overwritten (not freed first) and owns what it
 * holds: release it with gd_pyenvs_free. GD_OK, or GD_ENOMEM with `*out` empty: a list with a
 * hole in it is never returned. */
enum gd_status gd_find_python_envs(struct gd_probe_ctx *ctx, struct gd_pyenvs *out);
void gd_pyenvs_free(struct gd_pyenvs *envs);

/* "system", "venv", "conda", "pyenv", "user", "given". */
const char *gd_pyenv_kind_name(enum gd_pyenv_kind kind);

/* Records one `python_env` entity per environment (id "python_env:<prefix>", or
 * "python_env:<prefix>@<version>" for the second and later versions at one prefix) and a
 * `python` summary entity; keeps the list in ctx for the probes after it (the inventory). */
void gd_probe_python(struct gd_probe_ctx *ctx);

#endif
