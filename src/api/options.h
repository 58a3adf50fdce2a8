/* The options behind the opaque public struct gd_options. */
#ifndef GD_API_OPTIONS_H
#define GD_API_OPTIONS_H

#include "core/strlist.h"

#include <gpudoctor/gpudoctor.h>

#include <stdbool.h>

struct gd_env;

struct gd_options {
    char *root;                      /* host directory; NULL means "/" */
    char *kb_dir;                    /* --kb override directory, or NULL */
    struct gd_env *extra;            /* variables set with gd_options_set_env */
    bool clear_env;                  /* ignore the process environment even for the live root */
    bool calls;                      /* ask libraries their versions (gd_options_set_calls) */
    char *host_os;                   /* gd_options_set_host_os, or NULL: the probe decides */
    struct gd_strlist pythons;       /* gd_options_add_python, in the order given */
    struct gd_strlist sites;         /* gd_options_add_site, in the order given */
    enum gd_import_mode import_mode; /* gd_options_set_import */
    unsigned import_timeout_s;       /* gd_options_set_import_timeout */
    bool no_devices;                 /* gd_options_set_devices(false) */
    unsigned timeout_ms;             /* gd_options_set_timeout; 0: each step's default */
    gd_progress_fn progress;         /* gd_options_set_progress, or NULL */
    void *progress_user;
    /* A machine described for compat and plan (include/gpudoctor/advise.h). */
    bool described;
    char *driver;           /* gd_options_set_driver */
    char *os;               /* gd_options_set_os: "linux" or "windows" */
    struct gd_strlist gpus; /* "gpu:<model>" and "cc:<x.y>", in the order given */
};

#endif
