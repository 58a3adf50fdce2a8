/*
 * The answer of gpudoctor's import script (src/probe/imports.c): one JSON object that a Python
 * child writes on its standard output after importing a framework, e.g.
 *
 *   {"imported": true, "version": "2.1.0+cu121", "cuda": "12.1", "cuda_available": false,
 *    "device_count": 0, "arch_list": ["sm_50", "sm_90"], "cudnn": 8902, "errors": {}}
 *
 * Untrusted all the same: what runs as "python" may be a wrapper, a broken interpreter or
 * anything else. Only the names below are taken, each only with the JSON types it may have;
 * strings are cleaned to printable UTF-8 and cut, lists and GPUs are capped. The object's
 * `errors` member maps a name to the last line of the exception its query raised (the framework
 * imported, but torch.cuda.device_count() raised), which becomes an item of its own.
 *
 * Names (the script writes only what its framework has):
 *   imported (bool), error, error_type (str): whether the import raised, and what;
 *   version, hip, jaxlib, backend, device (str); cuda, cudnn (str, int or null); driver,
 *   device_count (int); cuda_build, cuda_available (bool); arch_list, compute_capabilities,
 *   platforms, providers (lists of str, given joined with ","); gpus (a list of objects with
 *   name and capability, given as gpu[i].name and gpu[i].capability).
 */
#ifndef GD_PARSE_PYANSWER_H
#define GD_PARSE_PYANSWER_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* Bigger than any answer of the script; a child that writes more is not answering. */
#define GD_ANSWER_MAX (64 * 1024)
/* A string value, a joined list or an exception's line is cut to this (with its NUL). */
#define GD_ANSWER_TEXT_MAX 512
/* GPUs listed; the rest are counted in device_count only. */
#define GD_ANSWER_GPUS_MAX 16
/* JSON nesting accepted: the answer is two levels deep. */
#define GD_ANSWER_DEPTH 4

enum gd_answer_type {
    GD_ANSWER_STR,    /* `text` */
    GD_ANSWER_INT,    /* `number` (and `text` in decimal) */
    GD_ANSWER_BOOL,   /* `number` 0 or 1 (and `text` "false" or "true") */
    GD_ANSWER_NONE,   /* Python's None (JSON null; `text` ""), or an empty list (`text` "[]") */
    GD_ANSWER_RAISED, /* the query raised: `text` is the exception's last line */
    GD_ANSWER_BAD,    /* present with a type it cannot have: `text` says which it has */
};

struct gd_answer_item {
    const char *name; /* "version", "gpu[0].name", ... */
    enum gd_answer_type type;
    const char *text; /* never NULL: "" for none */
    long long number;
};

/* Called for each item, in the order of the list above (the errors last); everything it is
 * given lives only for the call. */
typedef void (*gd_answer_fn)(void *user, const struct gd_answer_item *item);

/*
 * Parse `len` bytes. GD_OK when they are one JSON object (white space around it allowed), after
 * calling `fn` for each item; GD_EFORMAT when not (`why`, of `why_size` bytes, says what it is
 * instead: "empty", "not JSON: unexpected character", "a JSON array, not an object", "more
 * after the JSON object"), with no call; GD_ELIMIT past GD_ANSWER_MAX or GD_ANSWER_DEPTH;
 * GD_ENOMEM.
 */
enum gd_status gd_parse_import_answer(const char *data, size_t len, gd_answer_fn fn, void *user,
                                      char *why, size_t why_size);

#endif
