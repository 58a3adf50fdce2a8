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

GD_API void gd_which_free(struct gd_which *which);

/* True when the name was found, or every dependency of the tree. */
GD_API bool gd_which_ok(const struct gd_which *which);

/* The loader's error when it would stop instead of reporting a library as missing (a file that
 * is not an ELF where the library is searched: "/opt/x/libfoo.so.1: file too short"), or NULL.
 * Borrowed. */
GD_API const char *gd_which_error(const struct gd_which *which);

enum gd_which_format {
    GD_WHICH_TEXT, /* the explanation, or the tree */
    GD_WHICH_JSON, /* everything, schema in docs/which.md */
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
