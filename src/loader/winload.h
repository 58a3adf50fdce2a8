/*
 * Which DLL would Windows' loader load, from where, and why — answered without loading anything,
 * inside a root (a Windows tree seen from Linux, or the live machine under gpudoctor.exe).
 *
 * Microsoft, "Dynamic-link library search order" (learn.microsoft.com/windows/win32/dlls/
 * dynamic-link-library-search-order), for an unpackaged desktop application:
 *   1. a name with a path is opened at that path;
 *   2. API sets: a name beginning with "api-" or "ext-" is a contract that the loader's API set
 *      schema maps to a host DLL, never a file looked for ("API set loader operation"; wine's
 *      loader tests the same two prefixes);
 *   3. the loaded-module list: a module of the same base name already loaded, from whatever
 *      directory, is reused (names compare without regard to case);
 *   4. KnownDLLs, a registry list (HKLM\SYSTEM\CurrentControlSet\Control\Session
 *      Manager\KnownDLLs) that a tree cannot show: they live in System32, where the search
 *      below finds them; only a same-named DLL in a directory searched before System32 would
 *      be taken where Windows takes the known one;
 *   then the directories, in one of two orders:
 *   - GD_WIN_STANDARD, LoadLibrary and the import tables of a program, SafeDllSearchMode on
 *     (the default): the application's directory, System32 (SysWOW64 for a 32-bit x86 process
 *     when the tree has it: "File System Redirector"), the 16-bit system directory
 *     (Windows\System), the Windows directory, the current directory, the PATH directories;
 *   - GD_WIN_EXTENSION, LoadLibraryEx with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
 *     LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR, which is how Python 3.8 and later load an extension
 *     module (CPython's Python/dynload_win.c, bpo-36085): the directory of the DLL loaded by
 *     path (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR, "added to the beginning of the list"), the
 *     application's directory, the directories added with AddDllDirectory
 *     (os.add_dll_directory; Microsoft leaves their order unspecified: they are searched in the
 *     order given), System32. PATH and the current directory are not searched: "What's New In
 *     Python 3.8", DLL dependencies of extension modules.
 * The dependencies of a module loaded by path are searched "as if they were loaded by using
 * only their module names", with the directories of that one load request: in the standard order
 * the application's directory, not the module's; in the extension order the module's own.
 *
 * A candidate built for another machine (an x86 DLL for an x64 process) is skipped and the search
 * goes on; when nothing else is found the load fails with STATUS_INVALID_IMAGE_FORMAT. Microsoft
 * does not document it; wine's loader (dlls/ntdll/loader.c, search_dll_file) and ReactOS's
 * reimplementation of the NT 6 loader (LdrpMapDllSearchPath: "repeat until exhausted the whole
 * PATH or found PE image for current machine platform") both do exactly that. A candidate that
 * is not a PE image stops the search with the loader's error (ERROR_BAD_EXE_FORMAT, "%1 is not a
 * valid Win32 application"). File names compare without regard to case, as NTFS does for
 * Windows, so a Windows tree on a case-sensitive Linux file system resolves the same (ASCII
 * letters are folded; NTFS's upcase table folds other letters too).
 *
 * Paths are paths inside the root, with '/' ("/Windows/System32/nvcuda.dll"); Windows spellings
 * given by a caller ("C:\Program Files\...", "%SystemRoot%") are mapped to it: a drive letter
 * is the root, a UNC path is outside it. The whole import tree loads breadth first, as the
 * loader processes import descriptors; delay-load imports are listed, not loaded (they load on
 * first use).
 */
#ifndef GD_LOADER_WINLOAD_H
#define GD_LOADER_WINLOAD_H

#include "pe/pe.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gd_root;

enum gd_win_mode {
    GD_WIN_STANDARD,  /* LoadLibrary, a program's import table: SafeDllSearchMode's order */
    GD_WIN_EXTENSION, /* LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | _DLL_LOAD_DIR: Python 3.8+ imports */
};
/* "standard", "extension". */
const char *gd_win_mode_name(enum gd_win_mode mode);

enum gd_win_rule {
    GD_WIN_RULE_MAIN,     /* a module loaded by its path (the --from file, a framework's) */
    GD_WIN_RULE_LOADED,   /* the loaded-module list: same base name */
    GD_WIN_RULE_API_SET,  /* api-* / ext-*: the API set schema, no file */
    GD_WIN_RULE_PATH,     /* the name holds a path */
    GD_WIN_RULE_DLL_DIR,  /* LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR: the loaded DLL's directory */
    GD_WIN_RULE_APP_DIR,  /* the application's directory */
    GD_WIN_RULE_USER_DIR, /* AddDllDirectory, os.add_dll_directory */
    GD_WIN_RULE_SYSTEM32, /* System32 (SysWOW64 for a WOW64 process) */
    GD_WIN_RULE_SYSTEM16, /* the 16-bit system directory, Windows\System */
    GD_WIN_RULE_WINDOWS,  /* the Windows directory */
    GD_WIN_RULE_CWD,      /* the current directory */
    GD_WIN_RULE_PATH_ENV, /* the PATH environment variable */
    GD_WIN_RULE_NOT_FOUND,
};
/* "application directory", "System32", "PATH", ... */
const char *gd_win_rule_name(enum gd_win_rule rule);

enum gd_win_verdict {
    GD_WIN_TRY_ACCEPTED,
    GD_WIN_TRY_NO_FILE,       /* nothing of that name (in any case) there */
    GD_WIN_TRY_WRONG_MACHINE, /* a PE image for another machine: skipped */
    GD_WIN_TRY_NOT_PE,        /* not a PE image (or not a file): the loader stops with an error */
    GD_WIN_TRY_UNREADABLE,    /* cannot be read: skipped */
};
/* "found", "not there", "wrong machine", "not a PE image", "unreadable". */
const char *gd_win_verdict_name(enum gd_win_verdict verdict);

struct gd_win_try {
    char *path; /* the file tried, as the tree spells it when it exists */
    enum gd_win_rule rule;
    enum gd_win_verdict verdict;
};

struct gd_win_object;

struct gd_win_edge {
    const char *name;         /* as imported or asked (strings owned by the load) */
    struct gd_win_object *to; /* NULL when not found, and for an API set */
    enum gd_win_rule rule;    /* how it was found; GD_WIN_RULE_API_SET counts as found */
    const char *dir;          /* the search directory that held it, or NULL */
    char *error;              /* the loader's error when it fails rather than "not found" */
    size_t position;          /* a missing entry's place: modules loaded before it */
    struct gd_win_try *tries; /* only with gd_winload_options.record_tries */
    size_t ntries, cap_tries;
};

struct gd_win_object {
    size_t index;     /* load order */
    const char *name; /* the name it was first loaded under (strings owned by the load) */
    const char *path; /* where it was found, inside the root, as the tree spells it */
    const char *dir;  /* the directory of path */
    struct gd_pe *pe;
    const struct gd_win_object *loader; /* whose import loaded it; NULL for a module by path */
    enum gd_win_rule found_by;
    const char *found_dir;
    size_t request;           /* the load request it belongs to (its search directories) */
    struct gd_win_edge *deps; /* one per import-table entry, in order, once processed */
    size_t ndeps;
};

/* One directory of a request's search, in order. */
struct gd_win_dir {
    const char *dir;      /* inside the root; NULL when it cannot be placed in it (see why) */
    const char *as_given; /* the spelling it came from (a PATH entry, --app), or NULL */
    enum gd_win_rule rule;
    const char *why; /* why it is not searched ("a UNC path", "unknown"), or NULL */
};

struct gd_winload_options {
    enum gd_win_mode mode;
    const char *path_env;        /* PATH (';'-separated Windows paths), NULL: unset */
    const char *cwd;             /* the current directory, NULL: unknown (not searched) */
    const char *app_dir;         /* the application's directory, NULL: unknown (not searched) */
    const char *windows_dir;     /* %SystemRoot%, NULL: /Windows of the root */
    const char *const *dll_dirs; /* AddDllDirectory directories, in the order added */
    size_t ndll_dirs;
    bool record_tries; /* keep every path tried (gpudoctor which) */
};

/* A Windows path ("C:\Program Files\x", "\x", "x\y", "/x") as a path inside the root: the drive
 * letter dropped, '\' turned into '/', "." and ".." resolved; relative paths count from `cwd`
 * (a path inside the root). GD_EINVAL for a UNC or device path, a relative path without `cwd`,
 * or "". On GD_OK `*out` is new. */
enum gd_status gd_win_path_in_root(const char *win, const char *cwd, char **out);

/* `path` inside the root as the tree spells it, each component matched without regard to case
 * (the exact spelling first). GD_ENOENT when a component has no match. On GD_OK `*out` is new. */
enum gd_status gd_win_find(struct gd_root *root, const char *path, char **out);

/* The application directory of a Python that loads modules from `path` (a .pyd inside a site
 * directory, or a site directory): the first ancestor holding python.exe (python.org and conda
 * installs, their Lib\site-packages below), or a venv's pyvenv.cfg `home` (a venv's
 * Scripts\python.exe only starts its base interpreter: bpo-34977). GD_ENOENT when there is
 * none. On GD_OK `*out` is new (a path inside the root). */
enum gd_status gd_win_python_app_dir(struct gd_root *root, const char *path, char **out);
/* The same, and the environment's prefix (sys.exec_prefix: the directory holding python.exe or
 * pyvenv.cfg) into `*prefix` when it is not NULL (new memory on GD_OK). */
enum gd_status gd_win_python_dirs(struct gd_root *root, const char *path, char **prefix,
                                  char **out);

struct gd_winload;

/* A process: `machine` is the process's (GD_PE_MACHINE_*; 0: that of the first module loaded,
 * else x86-64). Options are copied. On GD_OK `*out` is new. */
enum gd_status gd_winload_new(struct gd_root *root, const struct gd_winload_options *options,
                              uint16_t machine, struct gd_winload **out);
void gd_winload_free(struct gd_winload *L);

/* Load the module at `path` (inside the root, or a Windows spelling) by its path, as one load
 * request (LoadLibraryEx(path), Python's import of a .pyd), and with `deps` its import tree.
 * GD_ENOENT, GD_EFORMAT, GD_ETRUNCATED... when it cannot be read as a PE image (not a search
 * problem). `*out` is borrowed from the load. */
enum gd_status gd_winload_module(struct gd_winload *L, const char *path, bool deps,
                                 struct gd_win_object **out);
/* Resolve `name` as an import of `from` (with the directories of its load request), or with
 * `from` NULL as LoadLibrary(name) in a new request (in the extension order, without a DLL load
 * directory); load what it finds and with `deps` its import tree. A name without an extension
 * gets ".dll" (a trailing '.' means none), as LoadLibrary does. `*out` is borrowed. */
enum gd_status gd_winload_resolve(struct gd_winload *L, const struct gd_win_object *from,
                                  const char *name, bool deps, struct gd_win_edge **out);

/* The search directories of request `request` (an object's), in order. Borrowed. */
size_t gd_winload_dirs(struct gd_winload *L, size_t request, const struct gd_win_dir **out);
enum gd_win_mode gd_winload_mode(const struct gd_winload *L);
uint16_t gd_winload_machine(const struct gd_winload *L);
/* Modules in load order. */
size_t gd_winload_count(const struct gd_winload *L);
struct gd_win_object *gd_winload_at(const struct gd_winload *L, size_t i);
/* Names that were needed but not found (API sets are not missing), each once, in the order
 * first needed. */
size_t gd_winload_missing_count(const struct gd_winload *L);
const struct gd_win_edge *gd_winload_missing_at(const struct gd_winload *L, size_t i);

#endif
