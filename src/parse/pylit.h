/*
 * The literal values a Python source file assigns at its top level, read without running Python:
 * the generated build_info.py of TensorFlow, version.py of torch, jax and jaxlib, cupy's
 * _version.py, onnxruntime's capi/version_info.py, tensorrt's __init__.py.
 *
 * The file is tokenized as Python's tokenizer does (strings of every quoting, comments, implicit
 * line joining inside brackets, backslash continuations, "\n", "\r\n" or "\r" line ends), so a
 * docstring or a bracket never hides or fakes a statement. Only logical lines that start in
 * column 0 are statements of the module; indented lines (bodies of def, class, if, try, ...) and
 * compound statements are skipped.
 *
 * A statement `NAME = value`, `NAME: annotation = value`, or `A = B = value` binds each NAME to
 * the value when the value is a literal: str and bytes literals (single, double or triple
 * quotes, r/u/b prefixes, escapes decoded, adjacent literals concatenated), ints (decimal, 0x,
 * 0o, 0b, '_' separators, a leading '-' or '+') that fit a long long, True, False, None, lists
 * and tuples, dicts `{k: v}`, `dict(k=v)` and `dict`/`OrderedDict`/`collections.OrderedDict`
 * of a list of (key, value) pairs, all nested. Any other expression (names, calls, arithmetic,
 * f-strings, floats, sets, comprehensions, a dict whose keys are not all strings) binds the name
 * to GD_PYLIT_OTHER, unevaluated. So do augmented assignments (`x += 1`), tuple targets
 * (`a, b = ...`), `import`, `from ... import`, `def` and `class`: a later statement hides an
 * earlier literal, as it would in Python. Not followed: `del`, `global`, assignments inside
 * `if`/`try`/`for` bodies, the walrus, `from m import *`, PEP 701 f-strings that nest their own
 * quote character, source encodings other than UTF-8 (bytes are kept as they are).
 *
 * Ownership: everything a struct gd_pylit_file hands out (values, strings, names) is borrowed
 * from it until gd_pylit_free, which releases it all at once (one arena per file).
 */
#ifndef GD_PARSE_PYLIT_H
#define GD_PARSE_PYLIT_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* A file larger than this is GD_ELIMIT (the real files are under 10 KiB; tensorrt's
 * __init__.py, the largest, about 6 KiB). */
#define GD_PYLIT_MAX_FILE (4u * 1024 * 1024)
/* Values nested deeper than this (a list in a list ...) are GD_PYLIT_OTHER. */
#define GD_PYLIT_MAX_DEPTH 32
/* More values than this in one file is GD_ELIMIT: each value read (scalar, list, dict or
 * OTHER, at any depth) and each binding counts one. */
#define GD_PYLIT_MAX_VALUES 100000
/* The source text an OTHER value keeps, as evidence: at most this many bytes less one. */
#define GD_PYLIT_OTHER_TEXT 1024

enum gd_pylit_kind {
    GD_PYLIT_NONE,
    GD_PYLIT_BOOL,
    GD_PYLIT_INT,
    GD_PYLIT_STR,
    GD_PYLIT_LIST,  /* list or tuple */
    GD_PYLIT_DICT,  /* {..}, dict(k=v), collections.OrderedDict([(k, v), ...]) */
    GD_PYLIT_OTHER, /* any other expression: not evaluated */
};

struct gd_pylit {
    enum gd_pylit_kind kind;
    bool b;      /* BOOL */
    long long i; /* INT; BOOL: 0 or 1 */
    /* STR: the decoded bytes, NUL-terminated, n of them (a "\x00" escape makes a NUL inside);
     * \u, \U and \x escapes of str literals become UTF-8, of bytes literals bytes; a lone
     * surrogate becomes U+FFFD. OTHER: the expression's source text, as written, cut to
     * GD_PYLIT_OTHER_TEXT - 1 bytes (for evidence only). */
    const char *s;
    size_t n;               /* STR, OTHER: length of s; LIST, DICT: number of items */
    struct gd_pylit *items; /* LIST, DICT: n values */
    const char **keys;      /* DICT: keys[i] -> items[i], in source order; keys may repeat */
};

struct gd_pylit_file;

/* Read the top-level literal assignments of `len` bytes of Python source into `*out` (new; free
 * with gd_pylit_free). GD_OK, also for a file Python would reject: the statements that hold the
 * error are dropped (gd_pylit_error_line says where), the others kept. GD_ENOMEM; GD_ELIMIT past
 * GD_PYLIT_MAX_FILE or GD_PYLIT_MAX_VALUES. On failure `*out` is NULL. Never reads outside
 * [data, data + len). */
enum gd_status gd_pylit_parse(const char *data, size_t len, struct gd_pylit_file **out);

/* The value of the last top-level binding of `name`; NULL if none (or f NULL). */
const struct gd_pylit *gd_pylit_get(const struct gd_pylit_file *f, const char *name);

/* dict[key]: the last item with that key, as Python keeps it; NULL if not a dict or no such
 * key. */
const struct gd_pylit *gd_pylit_key(const struct gd_pylit *dict, const char *key);

/* The string of a STR value; NULL for NULL or any other kind. */
const char *gd_pylit_str(const struct gd_pylit *value);

/* Every binding in file order, repeated names included: the count, and the name and value of
 * the i-th (i < count). */
size_t gd_pylit_count(const struct gd_pylit_file *f);
const char *gd_pylit_binding(const struct gd_pylit_file *f, size_t i,
                             const struct gd_pylit **value);

/* 0 when the whole file read as Python tokens; else the first line (1-based) where it did not:
 * an unterminated string or bracket, a NUL byte, a backslash not ending its line. */
size_t gd_pylit_error_line(const struct gd_pylit_file *f);

void gd_pylit_free(struct gd_pylit_file *f);

#endif
