/*
 * Importing a framework in a Python child: the interpreter runs gpudoctor's import script
 * (`python -c SCRIPT FRAMEWORK`), which imports the framework, asks it what it sees and writes
 * one JSON object on its standard output (src/parse/pyanswer.h); the framework's own output goes
 * to standard error, which is kept as evidence. Each child has the deadline, so one that hangs
 * or crashes hides nothing of the others.
 */
#ifndef GD_PROBE_PYIMPORT_H
#define GD_PROBE_PYIMPORT_H

#include "os/os.h"

#include <gpudoctor/gpudoctor.h>
#include <stddef.h>

struct gd_env;

/* Each stream of a child is kept up to this; the rest is read and dropped. */
#define GD_IMPORT_OUTPUT_MAX (64 * 1024)
/* Children run at once: importing TensorFlow maps hundreds of MiB, and `--import all` on a
 * machine of many environments must not start them all together. */
#define GD_IMPORT_PARALLEL 4

/* The frameworks the script knows, by import name, in the order they are run. */
#define GD_IMPORT_FRAMEWORKS 6
extern const char *const gd_import_frameworks[GD_IMPORT_FRAMEWORKS];

/* The script (Python 2.7 and 3 alike): argv[1] names the framework. */
extern const char gd_import_script[];

struct gd_import_job {
    const char *python;            /* the interpreter, a host path (borrowed) */
    const char *framework;         /* one of gd_import_frameworks (borrowed) */
    struct gd_child_result result; /* filled by gd_imports_run; gd_child_result_free it */
};

/*
 * Run every job, GD_IMPORT_PARALLEL at a time, each child with `timeout_ms` and exactly the
 * environment `env`. GD_OK when every child ran (however it ended: the result says); GD_ECHILD
 * when one could not be started, GD_ENOMEM. Every result can be freed whatever the status.
 */
enum gd_status gd_imports_run(struct gd_import_job *jobs, size_t n, const struct gd_env *env,
                              unsigned timeout_ms);

#endif
