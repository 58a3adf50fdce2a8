/*
 * gpudoctor which: which file the dynamic loader would load for a library name, from where and
 * why, and a whole dependency tree — computed by emulating glibc's search, without loading or
 * running anything. Ownership as in gpudoctor.h.
 */
#ifndef GPUDOCTOR_WHICH_H
#define GPUDOCTOR_WHICH_H

#include <gpudoctor/gpudoctor.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gd_which;

/*
 * Where `name` resolves as a DT_NEEDED entry of the ELF `from` (a path inside the root), or as
 * its dlopen(name) with `dlopen`; with `from` NULL, as for a program of this machine's
 * architecture with no RPATH or RUNPATH. Every place tried is kept. A name that is not found
 * is a result, not an error: the statuses are for gpudoctor's own failures and for a `from` that
 * cannot be read (GD_ENOENT, GD_EFORMAT, ...). On GD_OK `*out` is new.
 */
GD_API enum gd_status gd_which_name(const struct gd_options *opts, const char *name,
                                    const char *from, bool dlopen, struct gd_which **out);

/* The whole dependency tree of the ELF at `path` (inside the root), loaded breadth first as
 * glibc loads it. Statuses as for gd_which_name. */
GD_API enum gd_status gd_which_tree(const struct gd_options *opts, const char *path,
                                    struct gd_which **out);

/*
 * Windows (docs/which.md, "Windows"): how Windows' loader would load `name` as an import of the
 * PE file `from` (a .exe, .dll or .pyd inside the root; or with `from` NULL as LoadLibrary(name)
 * of a program), or with `name` NULL the whole import tree of `from`. What a tree cannot tell
 * about the process comes from `win` (NULL: all defaults) and the options' environment (PATH,
 * SystemRoot: --env, or this process's own on a live Windows machine). Statuses as for
 * gd_which_name (GD_EFORMAT, GD_ETRUNCATED: `from` is not a PE image we can read).
 */
enum gd_which_win_mode {
    GD_WHICH_WIN_AUTO,      /* extension for a .pyd `from`, standard otherwise */
    GD_WHICH_WIN_STANDARD,  /* LoadLibrary, a program's imports: app dir, System32, System,
                             * Windows, current directory, PATH */
    GD_WHICH_WIN_EXTENSION, /* Python 3.8+'s import of an extension module: the module's
                             * directory, app dir, os.add_dll_directory's, System32 */
};

struct gd_which_win {
    enum gd_which_win_mode mode;
    const char *app_dir;         /* the application's directory; NULL: python.exe above `from`,
                                  * an .exe `from`'s own directory, else `from`'s directory */
    const char *cwd;             /* the current directory; NULL: this process's on a live
                                  * Windows machine, else not known (not searched) */
    const char *const *dll_dirs; /* os.add_dll_directory / AddDllDirectory, in order added */
    size_t ndll_dirs;
};

GD_API enum gd_status gd_which_windows(const struct gd_options *opts, const char *name,
                                       const char *from, const struct gd_which_win *win,
                                       struct gd_which **out);

/* Whether a which under these options is Windows': the options' host OS
 * (gd_options_set_host_os) when set, else a root that is a Windows tree (Windows\System32 and no
 * os-release) or the live root of gpudoctor.exe, else `from` (may be NULL) being a PE image. */
GD_API bool gd_which_is_windows(const struct gd_options *opts, const char *from);

GD_API void gd_which_free(struct gd_which *which);

/* True when the name was found, or every dependency of the tree. */
GD_API bool gd_which_ok(const struct gd_which *which);

/* The loader's error when it would stop instead of reporting a library as missing (a file that
 * is not an ELF where the library is searched: "/opt/x/libfoo.so.1: file too short"), or NULL.
 * Borrowed. */
GD_API const char *gd_which_error(const struct gd_which *which);

enum gd_which_format {
    GD_WHICH_TEXT, /* the explanation, or the tree */
    GD_WHICH_JSON, /* everything, schema in docs/which.md (and docs/json-schema.md) */
    GD_WHICH_LDD,  /* ldd's lines: "\tNAME => PATH" or "\tNAME => not found" (trees only) */
};

/* Format a result; `*out` is new memory (gd_free). GD_EINVAL for GD_WHICH_LDD on a name. */
GD_API enum gd_status gd_which_render(const struct gd_which *which, enum gd_which_format format,
                                      const struct gd_render_options *options, char **out,
                                      size_t *len);
/* The same text written to `out` as it is made, never all of it in memory. GD_EIO when
 * writing fails (a full disk, a closed pipe: the caller decides what to tell). */
GD_API enum gd_status gd_which_print(const struct gd_which *which, enum gd_which_format format,
                                     const struct gd_render_options *options, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
