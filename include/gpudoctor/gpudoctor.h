/*
 * gpudoctor — why does this machine's NVIDIA GPU stack fail, and what exactly to change.
 *
 * Public API of libgpudoctor. The command-line tool uses nothing but this header.
 *
 * Ownership, once for the whole API:
 *   - A function that hands out an object through `struct X **out` gives the caller a *new*
 *     object; the caller frees it with the matching `gd_X_free()`. `gd_X_free(NULL)` is a no-op.
 *   - Every `const char *` and `const struct ... *` read from a report is *borrowed*: it lives
 *     exactly as long as the report it came from.
 *   - Strings passed in are *copied*; the caller keeps ownership of its arguments.
 *   - A `char **out` buffer is *new* memory the caller releases with gd_free().
 *
 * Errors come in two channels that never mix: a problem of the inspected machine is a *finding*
 * in the report; a failure of gpudoctor itself (out of memory, unreadable option) is the
 * `enum gd_status` a function returns. There is no global last-error.
 */
#ifndef GPUDOCTOR_GPUDOCTOR_H
#define GPUDOCTOR_GPUDOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(GD_BUILDING_SHARED)
#define GD_API __declspec(dllexport)
#elif defined(__GNUC__)
#define GD_API __attribute__((visibility("default")))
#else
#define GD_API
#endif

/* ---- statuses: failures of gpudoctor itself ------------------------------------------------ */

enum gd_status {
    GD_OK = 0,
    GD_ENOMEM,       /* an allocation failed */
    GD_EINVAL,       /* a bad argument from the caller */
    GD_ENOENT,       /* a path or name does not exist */
    GD_EACCES,       /* permission denied */
    GD_ELOOP,        /* too many symbolic links (a loop) */
    GD_ENOTDIR,      /* a path component is not a directory */
    GD_EIO,          /* a read or another system call failed */
    GD_EFORMAT,      /* input is not in the expected format */
    GD_ETRUNCATED,   /* input ends before a structure it announces */
    GD_ELIMIT,       /* input exceeds a size cap gpudoctor enforces */
    GD_ETIMEOUT,     /* a child process ran past its deadline */
    GD_ECHILD,       /* a child process failed (signal, bad exit, broken pipe) */
    GD_EUNSUPPORTED, /* not supported on this platform or for this kind of file */
    GD_ENOTREG,      /* not a regular file (a device, a FIFO, a directory) */
};

/* A short constant description of a status ("no such file or directory"). Never NULL. */
GD_API const char *gd_status_str(enum gd_status status);

/* The library's version, e.g. "0.1.0". */
GD_API const char *gd_version(void);

/* Releases memory handed out by the library through a `char **out` argument. */
GD_API void gd_free(void *p);

/* ---- options --------------------------------------------------------------------------------- */

struct gd_options;

GD_API enum gd_status gd_options_new(struct gd_options **out);
GD_API void gd_options_free(struct gd_options *opts);

/*
 * Inspect the tree at `dir` as if it were "/" (an unpacked container image, a mounted disk).
 * Every file is read inside it; nothing found under it is ever executed or loaded.
 * Default: "/", the live machine. GD_ENOENT / GD_ENOTDIR when `dir` is not a directory.
 */
GD_API enum gd_status gd_options_set_root(struct gd_options *opts, const char *dir);

/*
 * The environment the inspected programs would run with. By default the live machine is
 * inspected with this process's environment and a foreign root with an empty one, because the
 * caller's variables say nothing about an image. Each call adds or replaces one "NAME=VALUE".
 * GD_EINVAL when the string has no '=' or an empty name.
 */
GD_API enum gd_status gd_options_set_env(struct gd_options *opts, const char *name_equals_value);

/* Forget the process environment, even for the live machine: only gd_options_set_env() counts. */
GD_API enum gd_status gd_options_clear_env(struct gd_options *opts);

/*
 * Add the variables of an environment file (docker's --env-file format: NAME=VALUE per line, the
 * value verbatim, '#' comments). `path` is a path of this machine, not inside the root.
 * `*bad_lines` (may be NULL) counts malformed lines skipped. GD_ENOENT, GD_EACCES, GD_ELIMIT
 * (over 1 MiB) when the file cannot be used.
 */
GD_API enum gd_status gd_options_load_env_file(struct gd_options *opts, const char *path,
                                               size_t *bad_lines);

/*
 * Use the knowledge-base tables in `dir` (files named <table>.json, format in docs/kb.md)
 * instead of the embedded ones of the same name. A table that fails to load is reported as a
 * finding and the embedded one is used. NULL restores the embedded tables only.
 */
GD_API enum gd_status gd_options_set_kb_dir(struct gd_options *opts, const char *dir);

/*
 * Ask each CUDA library of the live machine its own version (cudaRuntimeGetVersion,
 * cudnnGetVersion, ncclGetVersion, cublasGetProperty), loading it in a child process with a
 * deadline. Off by default: loading costs time and memory (cuBLAS pulls in the 500 MiB
 * cuBLASLt) and runs vendor code, while file names, headers and wheel records usually state
 * the version already. Never done under a foreign root.
 */
GD_API enum gd_status gd_options_set_calls(struct gd_options *opts, bool enabled);

/*
 * The operating system of the inspected machine, "linux" or "windows", for a tree that cannot
 * tell (`check --os`). Without it the host probe decides: the running system for the live root,
 * a Windows tree by its Windows\System32 directory (a mounted C: drive), otherwise Linux
 * (os-release). GD_EINVAL for anything else.
 */
GD_API enum gd_status gd_options_set_host_os(struct gd_options *opts, const char *os);

/*
 * Also inspect the Python environment of the interpreter at `path` (repeatable, in order): its
 * prefix, version, pyvenv.cfg and site directories, found from its files as for the interpreters
 * on PATH; nothing is run. A directory is taken as the environment's prefix. `path` is a path
 * inside the root; a relative one is taken from the current directory on the live machine and
 * from the root's top under a foreign root. One that is not usable is reported in the `python`
 * entity, not refused. GD_EINVAL for NULL or "".
 */
GD_API enum gd_status gd_options_add_python(struct gd_options *opts, const char *path);

/*
 * Also inspect the site directory `dir` (a site-packages or dist-packages directory inside the
 * root, repeatable) as an environment of its own, kind "given": for packages installed with
 * `pip install --target` or on PYTHONPATH. Paths as for gd_options_add_python. GD_EINVAL for NULL
 * or "".
 */
GD_API enum gd_status gd_options_add_site(struct gd_options *opts, const char *dir);

/*
 * Ask the frameworks themselves (off by default): run each chosen environment's interpreter in a
 * child with a deadline, importing each framework found in it (tensorflow, torch, jax, cupy,
 * onnxruntime, tensorrt) and asking what it sees (torch.cuda.is_available(), TensorFlow's
 * physical GPUs, ...), keeping its standard error as evidence. GD_IMPORT_CHOSEN runs the
 * environments named by VIRTUAL_ENV or CONDA_PREFIX and those given with
 * gd_options_add_python, or, when there are none, the one `python3` on PATH runs;
 * GD_IMPORT_ALL every environment that has an interpreter and a framework. Never done under a
 * foreign root (the facts say so). GD_EINVAL for another value.
 */
enum gd_import_mode { GD_IMPORT_OFF, GD_IMPORT_CHOSEN, GD_IMPORT_ALL };
GD_API enum gd_status gd_options_set_import(struct gd_options *opts, enum gd_import_mode mode);

/* The deadline of each import child, in seconds: 1 to GD_IMPORT_TIMEOUT_MAX, default 60
 * (importing TensorFlow takes seconds, and a first CUDA initialisation may take more). GD_EINVAL
 * outside that range. */
#define GD_IMPORT_TIMEOUT_DEFAULT 60
#define GD_IMPORT_TIMEOUT_MAX     3600
GD_API enum gd_status gd_options_set_import_timeout(struct gd_options *opts, unsigned seconds);

/*
 * Ask the live machine's GPUs (default: on): the CUDA driver API (cuInit, the devices programs
 * see), NVML (every GPU's memory, load, clocks, PCIe link, ECC, processes) and each CUDA runtime a
 * program would load (cudaGetDeviceCount), each in a child process with a deadline. Never under
 * a foreign root. No CUDA context is created by gd_check.
 */
GD_API enum gd_status gd_options_set_devices(struct gd_options *opts, bool enabled);

/*
 * The deadline, in seconds, of each child process that calls into a vendor library (0: the
 * defaults, 30 s for gd_check's questions and 120 s for each part of gd_test). A child that runs
 * past it is killed and reported as hung, with the call it was in. GD_EINVAL above 86400.
 */
GD_API enum gd_status gd_options_set_timeout(struct gd_options *opts, unsigned seconds);

/*
 * Called by gd_test in the calling thread as each step starts and ends: `device` names the GPU
 * ("GPU 0 (NVIDIA H100 80GB HBM3)", or "all GPUs"), `step` the step ("context", "PTX kernel",
 * "cuBLAS SGEMM (/usr/lib/...)"), `state` is "running", "ok", "failed" or "skipped". The strings
 * are borrowed for the call. NULL turns it off.
 */
typedef void (*gd_progress_fn)(void *user, const char *device, const char *step, const char *state);
GD_API enum gd_status gd_options_set_progress(struct gd_options *opts, gd_progress_fn fn,
                                              void *user);

/* ---- running a check ------------------------------------------------------------------------- */

struct gd_report;

/*
 * Probe the machine (or root) described by `opts`, judge the facts and return the report.
 * `opts` may be NULL for the defaults. On GD_OK `*out` is a new report. A machine in any state,
 * however broken, yields GD_OK and findings; only failures of gpudoctor itself yield another
 * status (GD_ENOMEM, GD_EINVAL), with `*out` set to NULL.
 */
GD_API enum gd_status gd_check(const struct gd_options *opts, struct gd_report **out);

/*
 * Prove the live machine's GPU stack works: for each GPU CUDA programs see, create a context,
 * allocate and free, copy to the device and back (checked byte for byte), JIT-compile and run a
 * PTX kernel (its output checked), run an SGEMM through each copy of cuBLAS and a convolution
 * through each copy of cuDNN that a program or installed framework would load (checked against
 * CPU results), an NCCL all-reduce across the GPUs when there are two or more, and find the
 * largest block that can be allocated. Every part runs in a child process with a deadline. The
 * report holds what gd_check gathers, the results, and the findings about them (docs/findings.md,
 * `test.*`). GD_EINVAL for a foreign root: nothing under it is run.
 */
GD_API enum gd_status gd_test(const struct gd_options *opts, struct gd_report **out);

GD_API void gd_report_free(struct gd_report *report);

/* ---- facts: what the probes saw, each with where it came from ---------------------------------
 */

enum gd_fact_state {
    GD_FACT_KNOWN,   /* a value was read */
    GD_FACT_ABSENT,  /* the source was looked at and the thing is not there */
    GD_FACT_UNKNOWN, /* the source could not be read; gd_fact_reason() says why */
};

enum gd_value_type { GD_VALUE_STRING, GD_VALUE_INT, GD_VALUE_BOOL };

enum gd_source_kind {
    GD_SOURCE_FILE,    /* contents of a file: ref is its path inside the root */
    GD_SOURCE_PATH,    /* existence, type or name of a path (stat, readdir, readlink) */
    GD_SOURCE_ENV,     /* an environment variable: ref is its name */
    GD_SOURCE_ELF,     /* a field of an ELF file: ref is "path:FIELD" */
    GD_SOURCE_CALL,    /* a library or system call: ref names it */
    GD_SOURCE_DERIVED, /* computed by gpudoctor from other facts: ref says from what */
    GD_SOURCE_OPTION,  /* given by the user on the command line */
    GD_SOURCE_KB,      /* a row of a knowledge-base table: ref is "<table>: <row> (<source id>)" */
};

struct gd_entity;
struct gd_fact;

GD_API size_t gd_report_entity_count(const struct gd_report *report);
GD_API const struct gd_entity *gd_report_entity_at(const struct gd_report *report, size_t i);
/* The entity with this id (e.g. "host", "driver", "env"), or NULL. */
GD_API const struct gd_entity *gd_report_entity(const struct gd_report *report, const char *id);

GD_API const char *gd_entity_kind(const struct gd_entity *entity);
GD_API const char *gd_entity_id(const struct gd_entity *entity);
GD_API size_t gd_entity_fact_count(const struct gd_entity *entity);
GD_API const struct gd_fact *gd_entity_fact_at(const struct gd_entity *entity, size_t i);
/* The fact of that name, or NULL when no probe recorded it. */
GD_API const struct gd_fact *gd_entity_fact(const struct gd_entity *entity, const char *name);

GD_API const struct gd_entity *gd_fact_entity(const struct gd_fact *fact);
GD_API const char *gd_fact_name(const struct gd_fact *fact);
GD_API enum gd_fact_state gd_fact_state(const struct gd_fact *fact);
GD_API enum gd_value_type gd_fact_type(const struct gd_fact *fact);
/* The value as text ("535.104.05", "42", "true"); NULL unless the state is GD_FACT_KNOWN. */
GD_API const char *gd_fact_value(const struct gd_fact *fact);
/* Why the fact is unknown or absent ("permission denied"), or NULL. */
GD_API const char *gd_fact_reason(const struct gd_fact *fact);
GD_API enum gd_source_kind gd_fact_source_kind(const struct gd_fact *fact);
GD_API const char *gd_fact_source_ref(const struct gd_fact *fact);
/* "file", "path", "env", "elf", "call", "derived", "option", "kb". */
GD_API const char *gd_source_kind_name(enum gd_source_kind kind);

/* ---- findings: what the rules concluded -------------------------------------------------------
 */

enum gd_severity { GD_SEV_OK, GD_SEV_INFO, GD_SEV_WARNING, GD_SEV_ERROR };

/* "ok", "info", "warning", "error". */
GD_API const char *gd_severity_name(enum gd_severity severity);

struct gd_finding;

GD_API size_t gd_report_finding_count(const struct gd_report *report);
GD_API const struct gd_finding *gd_report_finding_at(const struct gd_report *report, size_t i);
/* The most severe finding's severity; GD_SEV_OK for a report without findings. */
GD_API enum gd_severity gd_report_worst(const struct gd_report *report);

/* Stable identifier, documented in docs/findings.md, e.g. "driver.not-installed". */
GD_API const char *gd_finding_id(const struct gd_finding *finding);
GD_API enum gd_severity gd_finding_severity(const struct gd_finding *finding);
/* One line: what is wrong (or right, for GD_SEV_OK). */
GD_API const char *gd_finding_title(const struct gd_finding *finding);
/* Why it matters: the failure or error message the user would otherwise meet. May be NULL. */
GD_API const char *gd_finding_why(const struct gd_finding *finding);
GD_API size_t gd_finding_evidence_count(const struct gd_finding *finding);
GD_API const struct gd_fact *gd_finding_evidence_at(const struct gd_finding *finding, size_t i);
GD_API size_t gd_finding_fix_count(const struct gd_finding *finding);
/* One concrete fix step (a command to run, a file to change). */
GD_API const char *gd_finding_fix_at(const struct gd_finding *finding, size_t i);

/* ---- rendering: pure functions of a report ----------------------------------------------------
 */

enum gd_format {
    GD_FORMAT_TEXT,       /* the checklist for a terminal */
    GD_FORMAT_JSON,       /* the full report, schema in docs/json-schema.md */
    GD_FORMAT_MARKDOWN,   /* for an issue or a pull request */
    GD_FORMAT_PROMETHEUS, /* node_exporter textfile collector */
};

struct gd_render_options {
    bool color;   /* ANSI colours (text only) */
    bool verbose; /* every finding's evidence, the ok ones too, and the facts (text, markdown) */
};

/*
 * Format `report`. On GD_OK `*out` is new memory (release with gd_free()) holding `*len` bytes
 * and a terminating NUL. `options` may be NULL for the defaults (no colour, not verbose).
 */
GD_API enum gd_status gd_render(const struct gd_report *report, enum gd_format format,
                                const struct gd_render_options *options, char **out, size_t *len);

/* ---- explain: why did this run fail? ---------------------------------------------------------
 * A log (a traceback, a training log, dmesg, nvidia-smi's output) is scanned for the signatures
 * of docs/explain.md; each matched signature names one cause; the causes found are ranked and,
 * given a report of the machine (gd_check, or a saved one read with gd_report_read_json), each
 * is confirmed or ruled out with the machine's facts and given fix steps made exact for it.
 * A C/C++ program can classify an error message in its own error path with gd_explain_message.
 *
 * A struct gd_explain (the compiled signatures) is read-only once built: several threads may
 * scan with it at once, each with its own stream. A result owns everything it holds: it may
 * outlive the gd_explain and the report it was made from.
 */

struct gd_explain;
struct gd_explain_stream;
struct gd_explain_result;
struct gd_explain_cause;
struct gd_explain_match;

/*
 * Load and compile the signatures: the embedded explain_signatures, explain_causes and xids
 * tables, or those of gd_options_set_kb_dir (`opts` may be NULL). Rows that cannot be used are
 * left out and listed by gd_explain_problem_at. GD_OK, GD_ENOMEM, or GD_ENOENT / GD_ENOTDIR for
 * a --kb directory that is not one.
 */
GD_API enum gd_status gd_explain_new(const struct gd_options *opts, struct gd_explain **out);
GD_API void gd_explain_free(struct gd_explain *ex);
/* Signatures compiled. */
GD_API size_t gd_explain_signature_count(const struct gd_explain *ex);
/* Problems met loading the tables ("explain_signatures x: pattern does not compile ..."). */
GD_API size_t gd_explain_problem_count(const struct gd_explain *ex);
GD_API const char *gd_explain_problem_at(const struct gd_explain *ex, size_t i);

/*
 * Streaming: feed a log in pieces of any size, in constant memory. `channel` is 0, or 1 for a
 * second interleaved stream (a command's standard error beside its standard output); each has
 * its own line numbers. Lines of any length and any bytes (NUL, invalid UTF-8) are accepted.
 * gd_explain_stream_feed returns GD_OK, GD_ENOMEM (sticky), or GD_EINVAL (bad channel, or fed
 * after finish).
 */
GD_API enum gd_status gd_explain_stream_new(const struct gd_explain *ex,
                                            struct gd_explain_stream **out);
GD_API enum gd_status gd_explain_stream_feed(struct gd_explain_stream *s, unsigned channel,
                                             const void *data, size_t len);
/*
 * End of the log: rank the causes found and, with `machine` (may be NULL: from the log alone),
 * confirm or rule out each and make its fix steps exact. `name` (may be NULL) names the log in
 * the result ("train.log", "-"). On GD_OK `*out` is a new result. GD_ENOMEM.
 */
GD_API enum gd_status gd_explain_stream_finish(struct gd_explain_stream *s, const char *name,
                                               const struct gd_report *machine,
                                               struct gd_explain_result **out);
GD_API void gd_explain_stream_free(struct gd_explain_stream *s);

/* One message (an exception's text, a status string): gd_explain_stream_* in one call. */
GD_API enum gd_status gd_explain_message(const struct gd_explain *ex, const char *msg, size_t len,
                                         const struct gd_report *machine,
                                         struct gd_explain_result **out);
GD_API void gd_explain_result_free(struct gd_explain_result *r);

/* Causes found, most likely first. */
GD_API size_t gd_explain_cause_count(const struct gd_explain_result *r);
GD_API const struct gd_explain_cause *gd_explain_cause_at(const struct gd_explain_result *r,
                                                          size_t i);
/* Lines read per channel, and the log's name (or NULL). */
GD_API unsigned long long gd_explain_result_lines(const struct gd_explain_result *r,
                                                  unsigned channel);
GD_API const char *gd_explain_result_name(const struct gd_explain_result *r);

enum gd_explain_verdict {
    GD_EXPLAIN_UNCHECKED, /* no machine report was given */
    GD_EXPLAIN_CONFIRMED, /* the machine shows the cause (a finding, a missing library, ...) */
    GD_EXPLAIN_NOT_HERE,  /* the machine does not show it: the log is from elsewhere or older */
    GD_EXPLAIN_UNDECIDED, /* the machine's facts neither confirm nor rule it out */
};
/* "unchecked", "confirmed", "not-on-this-machine", "undecided". */
GD_API const char *gd_explain_verdict_name(enum gd_explain_verdict v);

/* The cause's id (docs/explain.md: "cudnn-not-found", ...), title and what it means. */
GD_API const char *gd_explain_cause_id(const struct gd_explain_cause *c);
GD_API const char *gd_explain_cause_title(const struct gd_explain_cause *c);
GD_API const char *gd_explain_cause_meaning(const struct gd_explain_cause *c);
GD_API enum gd_explain_verdict gd_explain_cause_verdict(const struct gd_explain_cause *c);
/* The ranking score (docs/explain.md: signature weights, matched lines, the verdict). */
GD_API int gd_explain_cause_score(const struct gd_explain_cause *c);
/* Matched lines in all (each signature counts a line once). */
GD_API unsigned long long gd_explain_cause_line_count(const struct gd_explain_cause *c);
/* Kept matched lines, in log order. */
GD_API size_t gd_explain_cause_match_count(const struct gd_explain_cause *c);
GD_API const struct gd_explain_match *gd_explain_cause_match_at(const struct gd_explain_cause *c,
                                                                size_t i);
/* What this machine shows about the cause, one statement each ("here libcudnn.so.8 is not
 * found; this machine has cuDNN 9.19.0 ..."). */
GD_API size_t gd_explain_cause_note_count(const struct gd_explain_cause *c);
GD_API const char *gd_explain_cause_note_at(const struct gd_explain_cause *c, size_t i);
/* The machine's facts behind the notes (copies: they live as long as the result). */
GD_API size_t gd_explain_cause_evidence_count(const struct gd_explain_cause *c);
GD_API const struct gd_fact *gd_explain_cause_evidence_at(const struct gd_explain_cause *c,
                                                          size_t i);
/* Fix steps, the exact ones first. */
GD_API size_t gd_explain_cause_fix_count(const struct gd_explain_cause *c);
GD_API const char *gd_explain_cause_fix_at(const struct gd_explain_cause *c, size_t i);

/* A matched line: its signature, where it is, its text and the parameters extracted. */
GD_API const char *gd_explain_match_signature(const struct gd_explain_match *m);
/* The public source of a real occurrence of the signature's message. */
GD_API const char *gd_explain_match_source(const struct gd_explain_match *m);
GD_API unsigned long long gd_explain_match_line(const struct gd_explain_match *m);
GD_API unsigned gd_explain_match_channel(const struct gd_explain_match *m);
/* The line (at most 512 bytes of it, around the match); may hold any byte, NUL included. */
GD_API const char *gd_explain_match_text(const struct gd_explain_match *m, size_t *len);
/* The value of parameter `name` ("library", "version", "requested", "sm", "xid", ...) or NULL. */
GD_API const char *gd_explain_match_param(const struct gd_explain_match *m, const char *name);
GD_API size_t gd_explain_match_param_count(const struct gd_explain_match *m);
GD_API const char *gd_explain_match_param_name(const struct gd_explain_match *m, size_t i);
GD_API const char *gd_explain_match_param_value(const struct gd_explain_match *m, size_t i);

/*
 * Format a result: GD_FORMAT_TEXT or GD_FORMAT_JSON (schema gpudoctor.explain/1,
 * docs/explain.md); GD_EINVAL for the other formats. Output as for gd_render.
 */
GD_API enum gd_status gd_explain_render(const struct gd_explain_result *r, enum gd_format format,
                                        const struct gd_render_options *options, char **out,
                                        size_t *len);

/*
 * Read a report saved with `gpudoctor check --json` (schema gpudoctor.report/1), for explaining
 * against a machine that is not this one. Facts, findings (with evidence and fix steps) come
 * back as they were written. On GD_OK `*out` is a new report. GD_EFORMAT when it is not such a
 * report (not JSON, another schema), GD_ELIMIT past 64 MiB, GD_ENOMEM.
 */
GD_API enum gd_status gd_report_read_json(const char *data, size_t len, struct gd_report **out);

#ifdef __cplusplus
}
#endif

#endif
