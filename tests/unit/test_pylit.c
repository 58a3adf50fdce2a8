/* Top-level literal assignments of Python files (build_info.py, version.py, ...), read without
 * Python: the real files of each era (the fuzz seeds), every literal form, what is skipped,
 * hostile input, limits, and every allocation failing in turn. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/buf.h"
#include "parse/pylit.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- a Python-like repr of values, to compare whole results in one string ---- */

static void repr_str(struct gd_buf *b, const char *s, size_t n)
{
    gd_buf_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\'' || c == '\\')
            gd_buf_printf(b, "\\%c", c);
        else if (c == '\n')
            gd_buf_puts(b, "\\n");
        else if (c == '\t')
            gd_buf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            gd_buf_printf(b, "\\x%02x", c);
        else
            gd_buf_putc(b, (char)c);
    }
    gd_buf_putc(b, '\'');
}

static void repr(struct gd_buf *b, const struct gd_pylit *v)
{
    switch (v->kind) {
    case GD_PYLIT_NONE:
        gd_buf_puts(b, "None");
        break;
    case GD_PYLIT_BOOL:
        gd_buf_puts(b, v->b ? "True" : "False");
        break;
    case GD_PYLIT_INT:
        gd_buf_printf(b, "%lld", v->i);
        break;
    case GD_PYLIT_STR:
        repr_str(b, v->s, v->n);
        break;
    case GD_PYLIT_OTHER:
        gd_buf_printf(b, "<%s>", v->s);
        break;
    case GD_PYLIT_LIST:
    case GD_PYLIT_DICT:
        gd_buf_putc(b, v->kind == GD_PYLIT_LIST ? '[' : '{');
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                gd_buf_puts(b, ", ");
            if (v->kind == GD_PYLIT_DICT) {
                repr_str(b, v->keys[i], strlen(v->keys[i]));
                gd_buf_puts(b, ": ");
            }
            repr(b, &v->items[i]);
        }
        gd_buf_putc(b, v->kind == GD_PYLIT_LIST ? ']' : '}');
        break;
    }
}

/* Every binding as "name = repr\n"; new memory. */
static char *dump(const struct gd_pylit_file *f)
{
    struct gd_buf b;
    gd_buf_init(&b, 1u << 24);
    for (size_t i = 0; i < gd_pylit_count(f); i++) {
        const struct gd_pylit *v;
        const char *name = gd_pylit_binding(f, i, &v);
        gd_buf_printf(&b, "%s = ", name);
        repr(&b, v);
        gd_buf_putc(&b, '\n');
    }
    char *s = strdup(gd_buf_str(&b));
    gd_buf_free(&b);
    return s;
}

static char *value_repr(const struct gd_pylit *v)
{
    if (!v)
        return strdup("(absent)");
    struct gd_buf b;
    gd_buf_init(&b, 1u << 24);
    repr(&b, v);
    char *s = strdup(gd_buf_str(&b));
    gd_buf_free(&b);
    return s;
}

static struct gd_pylit_file *parse_n(const char *src, size_t len)
{
    struct gd_pylit_file *f = NULL;
    enum gd_status st = gd_pylit_parse(src, len, &f);
    if (st != GD_OK)
        fail_msg("gd_pylit_parse: %s", gd_status_str(st));
    return f;
}

/* ---- the syntax, table-driven ---- */

struct syntax_case {
    const char *src;
    const char *want; /* dump() of the result */
    size_t error_line;
};

static const struct syntax_case syntax[] = {
    /* Strings: quotes, prefixes, escapes, concatenation. */
    { "a = \"dq\"; b = 'sq'\n", "a = 'dq'\nb = 'sq'\n", 0 },
    { "c = \"\"\"tri\nple\"\"\"\nd = '''x'y\"z'''\n", "c = 'tri\\nple'\nd = 'x\\'y\"z'\n", 0 },
    { "d = r\"\\d+\\n\" \"x\" R'\\''\n", "d = '\\\\d+\\\\nx\\\\\\''\n", 0 },
    { "e = b\"\\x00\\xff\" B'\\u00e9'\n", "e = '\\x00\xff\\\\u00e9'\n", 0 },
    { "f = u\"\\u00e9\\U0001F600\\x41\\101\\n\\t\\\\\\\"\\q\\0\"\n",
      "f = '\xc3\xa9\xf0\x9f\x98\x80"
      "AA\\n\\t\\\\\"\\\\q\\x00'\n",
      0 },
    { "g = '\\xe9\\ud800\\a\\b\\f\\v\\r'\n",
      "g = '\xc3\xa9\xef\xbf\xbd\\x07\\x08\\x0c\\x0b\\x0d'\n", 0 },
    { "h = \"con\" \\\n    \"tinued\"\ni = (\"par\"  # why\n     \"en\")\n",
      "h = 'continued'\ni = 'paren'\n", 0 },
    { "k = \"line\\\njoin\"\nl = r'''raw\\\nkept'''\n", "k = 'linejoin'\nl = 'raw\\\\\\nkept'\n",
      0 },
    { "m = ''\nn = \"\"\"\"\"\"\n", "m = ''\nn = ''\n", 0 },
    /* f-strings, \N{...}, bad escapes and str + bytes are expressions, not evaluated. */
    { "g = f\"{a}\"\nh = 'a' f'b'\ni = '\\N{DASH}'\nj = '\\x4'\nk = b'a' 'b'\nl = rb'\\x'\n",
      "g = <f\"{a}\">\nh = <'a' f'b'>\ni = <'\\N{DASH}'>\nj = <'\\x4'>\nk = <b'a' 'b'>\n"
      "l = '\\\\x'\n",
      0 },
    /* Ints, booleans, None, signs, trailing commas. */
    { "x = [1, -2, +3, 0x1F, 0o17, 0b101, 1_000, 0_0, 0, -9223372036854775808,]\n"
      "y = (True, False, None,)\nz = 9223372036854775807\n",
      "x = [1, -2, 3, 31, 15, 5, 1000, 0, 0, -9223372036854775808]\ny = [True, False, None]\n"
      "z = 9223372036854775807\n",
      0 },
    { "a = 1.5\nb = 1e-5\nc = 10j\nd = 01\ne = 9223372036854775808\nf = 1__0\ng = 1_\nh = 0x\n"
      "i = --1\n",
      "a = <1.5>\nb = <1e-5>\nc = <10j>\nd = <01>\ne = <9223372036854775808>\nf = <1__0>\n"
      "g = <1_>\nh = <0x>\ni = <--1>\n",
      0 },
    /* Lists, tuples, dicts in every spelling, nested. */
    { "t = 1, 2\nu = (1,)\nv = ()\nw = ('a')\nx = [[], {}, ((1, 2), [3])]\n",
      "t = [1, 2]\nu = [1]\nv = []\nw = 'a'\nx = [[], {}, [[1, 2], [3]]]\n", 0 },
    { "d = {'a': 1, \"b\": [2], 'c': {'d': None},}\ne = dict(k=1, l=[2, 3],)\nf = dict()\n"
      "g = OrderedDict([('x', 1), ['y', 2]])\nh = collections.OrderedDict((('z', 3),))\n"
      "i = dict({'a': 1}, b=2)\nj = {'a': 1, 'a': 2}\n",
      "d = {'a': 1, 'b': [2], 'c': {'d': None}}\ne = {'k': 1, 'l': [2, 3]}\nf = {}\n"
      "g = {'x': 1, 'y': 2}\nh = {'z': 3}\ni = {'a': 1, 'b': 2}\nj = {'a': 1, 'a': 2}\n",
      0 },
    { "u = (\n    # a comment inside brackets\n    \"a\",  # and after an item\n)\n", "u = ['a']\n",
      0 },
    /* Expressions that are not literals. */
    { "u = a + 1\nt = f(1)\ns = {1, 2}\nr = [i for i in y]\nq = {**z}\np = [*y]\no = \"a\" % 1\n"
      "n = lambda: 0\nm = x.y\nk = -x\nj = {'k': lambda x: x, 'l': 1}\ni = {1: 'int key'}\n"
      "h = dict(a=1)['a']\ng = OrderedDict([('a', 1), ('b',)])\nl = dict('abc')\nm = dict(1)\nf = "
      "{'a\\x00b': 1}\n"
      "e = (x for x in y)\nd = collections.abc\nc = dict\nb = *a, 1\na = x if y else z\n",
      "u = <a + 1>\nt = <f(1)>\ns = <{1, 2}>\nr = <[i for i in y]>\nq = <{**z}>\np = <[*y]>\n"
      "o = <\"a\" % 1>\nn = <lambda: 0>\nm = <x.y>\nk = <-x>\nj = {'k': <lambda x: x>, 'l': 1}\n"
      "i = <{1: 'int key'}>\nh = <dict(a=1)['a']>\ng = <OrderedDict([('a', 1), ('b',)])>\n"
      "l = <dict('abc')>\nm = <dict(1)>\n"
      "f = <{'a\\x00b': 1}>\ne = <(x for x in y)>\nd = <collections.abc>\nc = <dict>\n"
      "b = <*a, 1>\na = <x if y else z>\n",
      0 },
    /* The last assignment wins; import, def and class rebind; augmented assignment, tuple
     * targets; an annotation alone binds nothing. */
    { "x = 1\nx += 1\ny = 2\nimport y.z as q, y\nz = 3\ndef z(): pass\nw = 4\nclass w: pass\n"
      "v: int\nu = t = 5\na, *b = 6, 7\nc = 8; c = 9\nfrom .m import (e,\n  f as g)\n"
      "async def h(): pass\nimport k as if\n",
      "x = 1\nx = <x += 1>\ny = 2\nq = <import y.z as q, y>\ny = <import y.z as q, y>\nz = 3\n"
      "z = <def z>\nw = 4\nw = <class w>\nu = 5\nt = 5\na = <a, *b = 6, 7>\nb = <a, *b = 6, 7>\n"
      "c = 8\nc = 9\ne = <from .m import (e,\n  f as g)>\ng = <from .m import (e,\n  f as g)>\n"
      "h = <async def h>\n",
      0 },
    /* Not top level: indented code, compound statements, docstrings, decorators. */
    { "if True: d = 10\nelse:\n    d = 11\nfor i in x: e = 1\ntry:\n    f = 1\nexcept E:\n"
      "    pass\n@deco\ndef g():\n    \"\"\"\nh = 'docstring'\n\"\"\"\n    i = 1\n  \nj = 2\n"
      "x.y = 3\nx[0] = 4\nTrue = 5\nprint(k)\nk\nmatch = 6\n",
      "g = <def g>\nj = 2\nmatch = 6\n", 0 },
    /* Annotated assignments, as torch/version.py and jax/version.py write them. */
    { "cuda: Optional[str] = '12.1'\n_release_version: str | None = None\n"
      "m: Dict[str, int] = {'a': 1}\nn: Callable = lambda: 0\n",
      "cuda = '12.1'\n_release_version = None\nm = {'a': 1}\nn = <lambda: 0>\n", 0 },
    /* Line ends: CRLF, CR alone (Python reads both), none at the end; form feeds. */
    { "a = \"1\"\r\nb = '''x\r\ny'''\r\n", "a = '1'\nb = 'x\\ny'\n", 0 },
    { "a = \"1\"\rb = '''x\ry'''\rc = 2", "a = '1'\nb = 'x\\ny'\nc = 2\n", 0 },
    { "\fa = 1\n \fb = 2\n\f  c = 3\n", "a = 1\nb = 2\n", 0 },
    /* Broken files: the statements holding the error are dropped, the rest kept. */
    { "a = 1\nb = \"unterminated\nc = 3\nd = \"\"\"never\nends\n", "a = 1\nc = 3\n", 2 },
    { "a = 1\nb = [1, 2,\nc = 3\n", "a = 1\n", 2 },
    { "a = 1 \\ 2\nb = 2\n", "b = 2\n", 1 },
    { "x = (]\ny = {)\nz = 1)\nq = 2\n", "x = <(]>\ny = <{)>\nz = <1)>\nq = 2\n", 0 },
    { "a = 1; b = 'x\n", "", 1 },
    { "a =\nb = 2\n=\n= 1\n", "a = <>\nb = 2\n", 0 },
    { "", "", 0 },
    { "=", "", 0 },
    { "x", "", 0 },
    { "'", "", 1 },
    { "(", "", 1 },
    { "\\", "", 1 },
    { "\"\"\"", "", 1 },
    { "\r", "", 0 },
    { "   x = 1", "", 0 },
};

static void test_syntax(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof syntax / sizeof *syntax; i++) {
        const struct syntax_case *c = &syntax[i];
        struct gd_pylit_file *f = parse_n(c->src, strlen(c->src));
        char *got = dump(f);
        if (strcmp(got, c->want) != 0)
            fail_msg("case %zu:\n%s\ngot:\n%s\nwant:\n%s", i, c->src, got, c->want);
        if (gd_pylit_error_line(f) != c->error_line)
            fail_msg("case %zu: error line %zu, want %zu", i, gd_pylit_error_line(f),
                     c->error_line);
        free(got);
        gd_pylit_free(f);
    }
}

/* NULs: CPython refuses them anywhere; the line holding one is dropped. */
static void test_nul_bytes(void **state)
{
    (void)state;
    static const char src[] = "a = 1\nb = \"x\0y\"\nc = 3\n\0\nd = 4\ne = '\\x00'\nf = '\\\0'r";
    struct gd_pylit_file *f = parse_n(src, sizeof src - 1);
    char *got = dump(f);
    assert_string_equal(got, "a = 1\nc = 3\nd = 4\ne = '\\x00'\n");
    assert_int_equal(gd_pylit_error_line(f), 2);
    assert_int_equal(gd_pylit_get(f, "e")->n, 1);
    free(got);
    gd_pylit_free(f);
    /* In a comment too. */
    static const char comment[] = "a = (1,  # \0\n 2)\nb = 2\n# \0\nc = 3\n";
    f = parse_n(comment, sizeof comment - 1);
    got = dump(f);
    assert_string_equal(got, "b = 2\nc = 3\n");
    assert_int_equal(gd_pylit_error_line(f), 1);
    free(got);
    gd_pylit_free(f);
    /* The length given is respected: a value cut by it is not read past its end. */
    f = parse_n("x = 'abc'\ny = 1", 7);
    got = dump(f);
    assert_string_equal(got, "");
    assert_int_equal(gd_pylit_error_line(f), 1);
    free(got);
    gd_pylit_free(f);
}

/* ---- the real files, each era (fuzz/corpus/fuzz_pylit) ---- */

static char *read_seed(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz/corpus/fuzz_pylit/%s", GD_SOURCE_DIR, name);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        fail_msg("cannot open %s", path);
    char *data = malloc(1u << 20);
    *len = fread(data, 1, 1u << 20, fp);
    fclose(fp);
    return data;
}

struct real_case {
    const char *file, *expr, *want;
};

/* expr: NAME or NAME[KEY]. */
static const struct real_case real[] = {
    { "tf_build_info_plain_linux", "is_cuda_build", "True" },
    { "tf_build_info_plain_linux", "cuda_version_number", "'10.1'" },
    { "tf_build_info_plain_linux", "cudnn_version_number", "'7'" },
    { "tf_build_info_plain_windows", "cudart_dll_name", "'cudart64_100.dll'" },
    { "tf_build_info_plain_windows", "is_rocm_build", "False" },
    { "tf_build_info_2_3_dict_windows", "build_info[cuda_version]", "'64_101'" },
    { "tf_build_info_2_3_dict_windows", "build_info[cuda_compute_capabilities]",
      "['sm_35', 'sm_37', 'sm_52', 'sm_60', 'sm_61', 'compute_70']" },
    { "tf_build_info_2_5_ordereddict_windows", "build_info[cudnn_dll_name]", "'cudnn64_8.dll'" },
    { "tf_build_info_2_5_ordereddict_windows", "build_info[is_tensorrt_build]", "False" },
    { "tf_build_info_ordereddict_future_linux", "build_info[cuda_version]", "'11.0'" },
    { "tf_build_info_2_13_linux", "build_info[cuda_version]", "'12.1'" },
    { "tf_build_info_2_13_linux", "build_info[cudnn_version]", "'8'" },
    { "tf_build_info_2_13_linux", "build_info[cuda_compute_capabilities]",
      "['sm_52', 'sm_60', 'sm_61', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'compute_90']" },
    { "tf_build_info_2_13_linux", "build_info[is_cuda_build]", "True" },
    { "tf_build_info_cpu_only", "build_info[is_cuda_build]", "False" },
    { "tf_build_info_cpu_only", "build_info[cuda_version]", "(absent)" },
    { "torch_1_13_debian_version", "__version__", "'1.13.0a0'" },
    { "torch_1_13_debian_version", "cuda", "None" },
    { "torch_2_1_cu121_version", "__version__", "'2.1.0+cu121'" },
    { "torch_2_1_cu121_version", "cuda", "'12.1'" },
    { "torch_2_1_cu121_version", "hip", "None" },
    { "torch_2_1_cu121_version", "debug", "False" },
    { "torch_2_4_cpu_version", "cuda", "None" },
    { "torch_2_7_cu126_xpu_version", "xpu", "None" },
    { "torch_2_3_rocm_version", "hip", "'6.0.32830-d62f6a171'" },
    { "jax_0_1_version", "__version__", "'0.1.71'" },
    { "jaxlib_0_1_version", "__version__", "'0.1.27'" },
    { "jax_0_3_version", "__version__", "'0.3.8'" },
    { "jax_0_3_version", "__version_info__", "<_version_as_tuple(__version__)>" },
    { "jax_0_5_release_version", "_release_version", "'0.5.3'" },
    { "jax_0_5_release_version", "_version", "'0.5.3'" },
    { "jax_0_5_release_version", "__version__", "<_get_version_string()>" },
    { "cupy_13_version", "__version__", "'13.3.0'" },
    { "onnxruntime_version_info_cuda_windows", "cuda_version", "'12.2'" },
    { "onnxruntime_version_info_cuda_windows", "cudnn_version", "'9'" },
    { "onnxruntime_version_info_cpu_windows", "use_cuda", "False" },
    { "onnxruntime_version_info_cpu_windows", "cuda_version", "(absent)" },
    { "tensorrt_10_init", "__version__", "'10.0.1'" },
    { "tensorrt_10_init", "LIBRARIES", "(absent)" },
};

static const struct gd_pylit *lookup(const struct gd_pylit_file *f, const char *expr)
{
    char name[128];
    const char *bracket = strchr(expr, '[');
    if (!bracket)
        return gd_pylit_get(f, expr);
    snprintf(name, sizeof name, "%.*s", (int)(bracket - expr), expr);
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(strlen(bracket) - 2), bracket + 1);
    return gd_pylit_key(gd_pylit_get(f, name), key);
}

static void test_real_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
        size_t len;
        char *data = read_seed(real[i].file, &len);
        struct gd_pylit_file *f = parse_n(data, len);
        char *got = value_repr(lookup(f, real[i].expr));
        if (strcmp(got, real[i].want) != 0)
            fail_msg("%s: %s = %s, want %s", real[i].file, real[i].expr, got, real[i].want);
        assert_int_equal(gd_pylit_error_line(f), 0);
        free(got);
        gd_pylit_free(f);
        free(data);
    }
}

static void test_accessors(void **state)
{
    (void)state;
    struct gd_pylit_file *f = parse_n("d = {'a': 1, 'b': 'x', 'a': 2}\nl = [1]\n", 40);
    const struct gd_pylit *d = gd_pylit_get(f, "d"), *l = gd_pylit_get(f, "l");
    assert_int_equal(gd_pylit_key(d, "a")->i, 2); /* the last, as Python keeps it */
    assert_string_equal(gd_pylit_str(gd_pylit_key(d, "b")), "x");
    assert_null(gd_pylit_key(d, "c"));
    assert_null(gd_pylit_key(l, "a"));
    assert_null(gd_pylit_key(NULL, "a"));
    assert_null(gd_pylit_key(d, NULL));
    assert_null(gd_pylit_str(l));
    assert_null(gd_pylit_str(NULL));
    assert_null(gd_pylit_get(f, "nope"));
    assert_null(gd_pylit_get(f, NULL));
    assert_null(gd_pylit_get(NULL, "d"));
    assert_null(gd_pylit_binding(f, 2, NULL));
    assert_string_equal(gd_pylit_binding(f, 1, NULL), "l");
    assert_int_equal(gd_pylit_count(NULL), 0);
    assert_int_equal(gd_pylit_error_line(NULL), 0);
    gd_pylit_free(f);
    gd_pylit_free(NULL);
}

/* ---- limits ---- */

static char *repeat(const char *head, const char *unit, size_t times, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * times + tl + 1);
    memcpy(s, head, hl);
    for (size_t i = 0; i < times; i++)
        memcpy(s + hl + i * ul, unit, ul);
    memcpy(s + hl + ul * times, tail, tl + 1);
    return s;
}

static void test_nesting(void **state)
{
    (void)state;
    /* 32 levels below the top value are read; deeper values are OTHER. */
    char *ok = repeat("a = ", "[", GD_PYLIT_MAX_DEPTH + 1, "1");
    char *close = repeat(ok, "]", GD_PYLIT_MAX_DEPTH + 1, "\n");
    struct gd_pylit_file *f = parse_n(close, strlen(close));
    const struct gd_pylit *v = gd_pylit_get(f, "a");
    for (int d = 0; d <= GD_PYLIT_MAX_DEPTH; d++) {
        assert_int_equal(v->kind, GD_PYLIT_LIST);
        v = &v->items[0];
    }
    assert_int_equal(v->kind, GD_PYLIT_OTHER);
    assert_string_equal(v->s, "1");
    gd_pylit_free(f);
    free(ok);
    free(close);
    /* 200,000 open brackets: no recursion that deep, an error at line 1, the next line kept. */
    char *deep = repeat("b = ", "(", 200000, "");
    char *src = malloc(strlen(deep) + 32);
    sprintf(src, "a = 1\n%s\n", deep);
    f = parse_n(src, strlen(src));
    char *got = dump(f);
    assert_string_equal(got, "a = 1\n");
    assert_int_equal(gd_pylit_error_line(f), 2);
    free(got);
    gd_pylit_free(f);
    free(src);
    free(deep);
    /* Balanced, deep: an OTHER of the text, cut to GD_PYLIT_OTHER_TEXT - 1 bytes. */
    char *open = repeat("c = ", "(", 100000, "");
    char *bal = repeat(open, ")", 100000, "\nd = 2\n");
    f = parse_n(bal, strlen(bal));
    assert_int_equal(gd_pylit_get(f, "c")->kind, GD_PYLIT_OTHER);
    assert_int_equal(gd_pylit_get(f, "c")->n, GD_PYLIT_OTHER_TEXT - 1);
    assert_int_equal(gd_pylit_get(f, "d")->i, 2);
    gd_pylit_free(f);
    free(open);
    free(bal);
}

static void test_limits(void **state)
{
    (void)state;
    struct gd_pylit_file *f = (struct gd_pylit_file *)1;
    /* The file size. */
    char *big = malloc(GD_PYLIT_MAX_FILE + 1);
    memset(big, ' ', GD_PYLIT_MAX_FILE + 1);
    memcpy(big, "x = 1\n", 6);
    assert_int_equal(gd_pylit_parse(big, GD_PYLIT_MAX_FILE + 1, &f), GD_ELIMIT);
    assert_null(f);
    assert_int_equal(gd_pylit_parse(big, GD_PYLIT_MAX_FILE, &f), GD_OK);
    assert_int_equal(gd_pylit_get(f, "x")->i, 1);
    gd_pylit_free(f);
    free(big);
    /* The number of values: a list of 100,000 items (and the list itself) is one too many. */
    char *many = repeat("x = [", "0,", GD_PYLIT_MAX_VALUES, "]\n");
    assert_int_equal(gd_pylit_parse(many, strlen(many), &f), GD_ELIMIT);
    assert_null(f);
    free(many);
    many = repeat("x = [", "0,", GD_PYLIT_MAX_VALUES - 2, "]\n");
    assert_int_equal(gd_pylit_parse(many, strlen(many), &f), GD_OK);
    assert_int_equal(gd_pylit_get(f, "x")->n, GD_PYLIT_MAX_VALUES - 2);
    gd_pylit_free(f);
    free(many);
}

/* ---- allocation failure: every allocation fails in turn, and each time it is GD_ENOMEM ---- */

static void check_alloc_failures(const char *src, size_t len)
{
    struct gd_pylit_file *f = NULL;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_pylit_parse(src, len, &f), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    char *want = dump(f);
    gd_pylit_free(f);
    assert_true(total > 0);
    for (unsigned long n = 1; n <= total; n++) {
        gd_alloc_fail_at(n);
        enum gd_status st = gd_pylit_parse(src, len, &f);
        gd_alloc_fail_at(0);
        if (st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed: %s, want GD_ENOMEM", n, total,
                     gd_status_str(st));
        assert_null(f);
    }
    /* And with no failure, the same answer again. */
    f = parse_n(src, len);
    char *again = dump(f);
    assert_string_equal(again, want);
    free(again);
    free(want);
    gd_pylit_free(f);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    static const char *const files[] = { "tf_build_info_2_13_linux", "torch_2_1_cu121_version",
                                         "jax_0_5_release_version", "tensorrt_10_init" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        size_t len;
        char *data = read_seed(files[i], &len);
        check_alloc_failures(data, len);
        free(data);
    }
    /* Big enough for the arena to take several chunks and the stack to grow. */
    char *many = repeat("x = {'k': [", "'abcdefgh', ", 3000, "]}\ny = dict(a=(1, 2))\n");
    check_alloc_failures(many, strlen(many));
    free(many);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syntax),         cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_real_files),     cmocka_unit_test(test_accessors),
        cmocka_unit_test(test_nesting),        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
