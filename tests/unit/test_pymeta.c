/* Python core metadata (METADATA, PKG-INFO), egg-info requires.txt, PEP 508 requirements and
 * PEP 503 names: the real files (the fuzz seeds), every requirement form, hostile input, caps,
 * and every allocation failing in turn. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/buf.h"
#include "parse/pymeta.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* "name|extras|specifier|extra|marker" */
static void req_line(struct gd_buf *b, const struct gd_pyreq *r)
{
    gd_buf_printf(b, "%s|%s|%s|%s|%s\n", r->name, r->extras, r->specifier, r->extra, r->marker);
}

/* The whole result: a header line, then one line per requirement; new memory. */
static char *dump(const struct gd_pymeta *m)
{
    struct gd_buf b;
    gd_buf_init(&b, 1u << 24);
    gd_buf_printf(&b, "%s %s [", m->name, m->version);
    for (size_t i = 0; i < m->extras.count; i++)
        gd_buf_printf(&b, "%s%s", i ? "," : "", m->extras.items[i]);
    gd_buf_printf(&b, "] skipped %zu\n", m->nskipped);
    for (size_t i = 0; i < m->nrequires; i++)
        req_line(&b, &m->requires[i]);
    char *s = strdup(gd_buf_str(&b));
    gd_buf_free(&b);
    return s;
}

static char *read_seed(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz/corpus/fuzz_pymeta/%s", GD_SOURCE_DIR, name);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        fail_msg("cannot open %s", path);
    char *data = malloc(1u << 20);
    *len = fread(data, 1, 1u << 20, fp);
    fclose(fp);
    return data;
}

/* ---- PEP 508 requirements, as Requires-Dist values ---- */

struct req_case {
    const char *text;
    const char *want; /* req_line(), or NULL when it must be refused */
};

static const struct req_case reqs[] = {
    /* The forms of the real files. */
    { "filelock", "filelock||||\n" },
    { "nvidia-cudnn-cu12 (==8.9.2.26) ; platform_system == \"Linux\" and platform_machine == "
      "\"x86_64\"",
      "nvidia-cudnn-cu12||==8.9.2.26||platform_system == \"Linux\" and platform_machine == "
      "\"x86_64\"\n" },
    { "nvidia-cudnn-cu12==9.5.1.17; platform_system == \"Linux\"",
      "nvidia-cudnn-cu12||==9.5.1.17||platform_system == \"Linux\"\n" },
    { "nvidia-cublas-cu12 ==12.3.4.1 ; extra == 'and-cuda'",
      "nvidia-cublas-cu12||==12.3.4.1|and-cuda|extra == 'and-cuda'\n" },
    { "numpy <2.0.0,>=1.23.5 ; python_version <= \"3.11\"",
      "numpy||<2.0.0,>=1.23.5||python_version <= \"3.11\"\n" },
    { "name>=1.0,<2", "name||>=1.0,<2||\n" },
    { "name (>=1.0, <2)", "name||>=1.0, <2||\n" },
    { "name[extra1,extra2]>=1", "name|extra1,extra2|>=1||\n" },
    { "attrs[docs, tests] ; extra == 'dev'", "attrs|docs,tests||dev|extra == 'dev'\n" },
    { "jax-cuda12-plugin[with_cuda]<=0.4.30,>=0.4.30; extra == \"cuda12\"",
      "jax-cuda12-plugin|with_cuda|<=0.4.30,>=0.4.30|cuda12|extra == \"cuda12\"\n" },
    { "name ==1.0 ; extra == \"and-cuda\"", "name||==1.0|and-cuda|extra == \"and-cuda\"\n" },
    { "name; python_version >= \"3.8\" and extra == 'dev'",
      "name|||dev|python_version >= \"3.8\" and extra == 'dev'\n" },
    { "cloudpickle ; (platform_python_implementation == \"CPython\") and extra == 'tests-no-zope'",
      "cloudpickle|||tests-no-zope|(platform_python_implementation == \"CPython\") and extra == "
      "'tests-no-zope'\n" },
    { "x; 'gpu'==extra", "x|||gpu|'gpu'==extra\n" },
    { "x; extra=='a' or extra == 'b'", "x|||a|extra=='a' or extra == 'b'\n" },
    { "x; extra != 'a'", "x||||extra != 'a'\n" },
    { "x; extras == 'a'", "x||||extras == 'a'\n" },
    { "x; python_version > '3' and 'extra' == extra", "x|||extra|python_version > '3' and "
                                                      "'extra' == extra\n" },
    { "pkg[]", "pkg||||\n" },
    { "A.B_c-9 ~=1.4.2, !=1.4.5, ==1.*, ===foo", "A.B_c-9||~=1.4.2, !=1.4.5, ==1.*, ===foo||\n" },
    { "  spaced  >= 1  ;  os_name == 'posix'  ", "spaced||>= 1||os_name == 'posix'\n" },
    { "ok @ https://example.org/ok.whl ; python_version > \"3\"",
      "ok||@ https://example.org/ok.whl||python_version > \"3\"\n" },
    { "ok @ https://example.org/a;b.whl", "ok||@ https://example.org/a;b.whl||\n" },
    { "x==1.0+cu121", "x||==1.0+cu121||\n" },
    { "x==1!2.0", "x||==1!2.0||\n" },
    /* Refused: not PEP 508. */
    { "", NULL },
    { "   ", NULL },
    { "-leading-dash", NULL },
    { "trailing-dash-", NULL },
    { "bad name (==1)", NULL },
    { "x (==1", NULL },
    { "x[a", NULL },
    { "x[a b]", NULL },
    { "x[,]", NULL },
    { "x;", NULL },
    { "x ;   ", NULL },
    { "x{1}", NULL },
    { "x==1; extra == 'unterminated", "x||==1||extra == 'unterminated\n" },
};

static void test_requirements(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof reqs / sizeof *reqs; i++) {
        struct gd_pyreq r;
        memset(&r, 0x5a, sizeof r);
        bool ok = gd_pyreq_parse(reqs[i].text, strlen(reqs[i].text), &r);
        if (!reqs[i].want) {
            if (ok)
                fail_msg("\"%s\" was taken for a requirement", reqs[i].text);
            static const struct gd_pyreq zero;
            assert_memory_equal(&r, &zero, sizeof r);
            continue;
        }
        if (!ok)
            fail_msg("\"%s\" was refused", reqs[i].text);
        struct gd_buf b;
        gd_buf_init(&b, 4096);
        req_line(&b, &r);
        if (strcmp(gd_buf_str(&b), reqs[i].want) != 0)
            fail_msg("\"%s\": got %s want %s", reqs[i].text, gd_buf_str(&b), reqs[i].want);
        gd_buf_free(&b);
    }
}

/* Parts that do not fit their buffers: the requirement is refused, never cut. */
static void test_requirement_sizes(void **state)
{
    (void)state;
    char text[1024];
    struct gd_pyreq r;
    memset(text, 'n', 127);
    strcpy(text + 127, "==1");
    assert_true(gd_pyreq_parse(text, strlen(text), &r));
    assert_int_equal(strlen(r.name), 127);
    memset(text, 'n', 128);
    strcpy(text + 128, "==1");
    assert_false(gd_pyreq_parse(text, strlen(text), &r));
    /* The specifier: 255 fits, 256 does not. */
    strcpy(text, "x==");
    memset(text + 3, '1', 253);
    text[256] = '\0';
    assert_true(gd_pyreq_parse(text, strlen(text), &r));
    strcpy(text + 256, "1");
    assert_false(gd_pyreq_parse(text, strlen(text), &r));
    /* The extra: 63 fits, 64 does not. */
    snprintf(text, sizeof text, "x; extra == '%063d'", 0);
    assert_true(gd_pyreq_parse(text, strlen(text), &r));
    snprintf(text, sizeof text, "x; extra == '%064d'", 0);
    assert_false(gd_pyreq_parse(text, strlen(text), &r));
    /* The marker: 255 fits. */
    snprintf(text, sizeof text, "x; a == '%0248d'", 0);
    assert_int_equal(strlen(text) - 3, 255);
    assert_true(gd_pyreq_parse(text, strlen(text), &r));
    snprintf(text, sizeof text, "x; a == '%0249d'", 0);
    assert_false(gd_pyreq_parse(text, strlen(text), &r));
    /* Requested extras. */
    snprintf(text, sizeof text, "x[%0128d]", 0);
    assert_false(gd_pyreq_parse(text, strlen(text), &r));
    snprintf(text, sizeof text, "x[%0127d]", 0);
    assert_true(gd_pyreq_parse(text, strlen(text), &r));
    snprintf(text, sizeof text, "x[%063d,%063d]", 0, 1);
    assert_true(gd_pyreq_parse(text, strlen(text), &r));
    snprintf(text, sizeof text, "x[%063d,%064d]", 0, 1);
    assert_false(gd_pyreq_parse(text, strlen(text), &r));
    /* A NUL anywhere, and a length that cuts the text. */
    assert_false(gd_pyreq_parse("x\0==1", 5, &r));
    assert_true(gd_pyreq_parse("abc==1.0", 5, &r));
    assert_string_equal(r.name, "abc");
    assert_string_equal(r.specifier, "==");
}

/* ---- whole files ---- */

struct file_case {
    const char *seed;
    const char *want; /* dump(): the header line, then the requirements (a prefix is enough) */
};

static const struct file_case files[] = {
    { "METADATA_tensorflow_2_16_and_cuda",
      "tensorflow 2.16.1 [and-cuda] skipped 0\n"
      "absl-py||>=1.0.0||\n"
      "astunparse||>=1.6.0||\n"
      "h5py||>=3.10.0||\n"
      "ml-dtypes||~=0.3.1||\n"
      "numpy||<2.0.0,>=1.23.5||python_version <= \"3.11\"\n"
      "numpy||<2.0.0,>=1.26.0||python_version >= \"3.12\"\n"
      "protobuf||!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5,<5.0.0dev,>=3.20.3||\n"
      "tensorflow-io-gcs-filesystem||>=0.23.1||python_version < \"3.12\"\n"
      "tensorboard||<2.17,>=2.16||\n"
      "keras||>=3.0.0||\n"
      "tensorflow-intel||==2.16.1||platform_system == \"Windows\"\n"
      "nvidia-cublas-cu12||==12.3.4.1|and-cuda|extra == 'and-cuda'\n"
      "nvidia-cuda-cupti-cu12||==12.3.101|and-cuda|extra == 'and-cuda'\n"
      "nvidia-cuda-nvcc-cu12||==12.3.107|and-cuda|extra == 'and-cuda'\n"
      "nvidia-cuda-nvrtc-cu12||==12.3.107|and-cuda|extra == 'and-cuda'\n"
      "nvidia-cuda-runtime-cu12||==12.3.101|and-cuda|extra == 'and-cuda'\n"
      "nvidia-cudnn-cu12||==8.9.7.29|and-cuda|extra == 'and-cuda'\n"
      "nvidia-cufft-cu12||==11.0.12.1|and-cuda|extra == 'and-cuda'\n"
      "nvidia-nccl-cu12||==2.19.3|and-cuda|extra == 'and-cuda'\n" },
    { "METADATA_torch_2_1_cu121",
      "torch 2.1.0+cu121 [dynamo,opt-einsum] skipped 0\n"
      "filelock||||\ntyping-extensions||||\nsympy||||\nnetworkx||||\njinja2||||\nfsspec||||\n"
      "nvidia-cuda-nvrtc-cu12||==12.1.105||platform_system == \"Linux\" and platform_machine == "
      "\"x86_64\"\n" },
    { "METADATA_torch_2_6_cu126",
      "torch 2.6.0+cu126 [opt-einsum,optree] skipped 0\n"
      "filelock||||\n"
      "typing-extensions||>=4.10.0||\n"
      "setuptools||||python_version >= \"3.12\"\n"
      "sympy||==1.13.1||python_version >= \"3.9\"\n"
      "nvidia-cuda-nvrtc-cu12||==12.6.77||platform_system == \"Linux\" and platform_machine == "
      "\"x86_64\"\n" },
    { "METADATA_jax_cuda12_extras",
      "jax 0.4.30 [cpu,cuda12,cuda12-local,tpu] skipped 0\n"
      "jaxlib||<=0.4.30,>=0.4.27||\nml-dtypes||>=0.2.0||\nnumpy||>=1.22||\n"
      "jaxlib||==0.4.30|cpu|extra == \"cpu\"\n"
      "jaxlib||==0.4.30|cuda12|extra == \"cuda12\"\n"
      "jax-cuda12-plugin|with_cuda|<=0.4.30,>=0.4.30|cuda12|extra == \"cuda12\"\n" },
    { "METADATA_attrs_debian_markers",
      "attrs 22.2.0 [cov,dev,docs,tests,tests-no-zope,tests_no_zope] skipped 0\n"
      "attrs|tests||cov|extra == 'cov'\n"
      "coverage|toml|>=5.3|cov|extra == 'cov'\n"
      "attrs|docs,tests||dev|extra == 'dev'\n"
      "cloudpickle|||tests-no-zope|(platform_python_implementation == \"CPython\") and extra == "
      "'tests-no-zope'\n" },
    { "PKG-INFO_torch_1_13_debian", "torch 1.13.0a0+gitunknown [] skipped 0\n" },
    { "METADATA_crlf", "nvidia-cudnn-cu12 9.1.0.70 [] skipped 0\nnvidia-cublas-cu12||||\n" },
    { "METADATA_cr_only", "nvidia-cudnn-cu12 9.1.0.70 [] skipped 0\nnvidia-cublas-cu12||||\n" },
    /* Lower- and upper-case field names, folded lines, a URL, a bad requirement and an empty
     * one (skipped), and a line that is no header: the end of the headers. */
    { "METADATA_folded_case_url", "folded 1.0 [and-cuda] skipped 2\n"
                                  "nvidia-cudnn-cu12||==8.9.4.25|and-cuda|extra == \"and-cuda\"\n"
                                  "ok||@ https://example.org/ok.whl||python_version > \"3\"\n" },
};

static void test_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        size_t len;
        char *data = read_seed(files[i].seed, &len);
        struct gd_pymeta m;
        assert_int_equal(gd_pymeta_parse(data, len, &m), GD_OK);
        char *got = dump(&m);
        if (strncmp(got, files[i].want, strlen(files[i].want)) != 0)
            fail_msg("%s:\ngot:\n%s\nwant:\n%s", files[i].seed, got, files[i].want);
        free(got);
        gd_pymeta_free(&m);
        free(data);
    }
}

/* The description is never read as fields; the first Name wins; hostile bytes. */
static void test_headers(void **state)
{
    (void)state;
    struct gd_pymeta m;
    static const struct {
        const char *text;
        size_t len;
        const char *want;
    } cases[] = {
        { "Name: a\nName: b\nVersion: 1\n\nVersion: 2\nRequires-Dist: body\n", 0,
          "a 1 [] skipped 0\n" },
        { "Name: a\nVersion 1\nRequires-Dist: x\n", 0, "a  [] skipped 0\n" },
        { "Name : a\nVersion: 1\n", 0, "  [] skipped 0\n" },
        { "  Name: continuation first\nName: a\n", 0, "a  [] skipped 0\n" },
        { "Name:\n  a\n   \nVersion:1", 0, "a 1 [] skipped 0\n" },
        { "Name: a\0b\nVersion: 1\nRequires-Dist: x\0y\nProvides-Extra: e\0\n", 38,
          " 1 [] skipped 1\n" },
        { "Name: \xc3\xa9t\xc3\xa9\nVersion: 1\n", 0, "\xc3\xa9t\xc3\xa9 1 [] skipped 0\n" },
        { "N\xc3\xa1me: a\nName: b\n", 0, "  [] skipped 0\n" },
        { "Provides-Extra: a\nProvides-Extra: a\nProvides-Extra:\nProvides-Extra: b\n", 0,
          "  [a,b] skipped 0\n" },
        { "Name: a\r\n\r\nName: b", 0, "a  [] skipped 0\n" },
        { "Name: a\r\rName: b", 0, "a  [] skipped 0\n" },
        { "Name: a\n\r\nVersion: 1", 0, "a  [] skipped 0\n" },
        { "", 0, "  [] skipped 0\n" },
        { "N", 0, "  [] skipped 0\n" },
        { ":", 0, "  [] skipped 0\n" },
        { "\n", 0, "  [] skipped 0\n" },
        { "\r", 0, "  [] skipped 0\n" },
        { "Requires-Dist: x\n", 15, "  [] skipped 1\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
        assert_int_equal(gd_pymeta_parse(cases[i].text, len, &m), GD_OK);
        char *got = dump(&m);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("case %zu: got %s want %s", i, got, cases[i].want);
        free(got);
        gd_pymeta_free(&m);
    }
    /* Name and Version over 127 bytes: left empty, not cut. */
    char text[512];
    snprintf(text, sizeof text, "Name: %0127d\nVersion: %0128d\n", 0, 0);
    assert_int_equal(gd_pymeta_parse(text, strlen(text), &m), GD_OK);
    assert_int_equal(strlen(m.name), 127);
    assert_string_equal(m.version, "");
    gd_pymeta_free(&m);
    gd_pymeta_free(NULL);
}

static char *repeat(const char *unit, size_t times)
{
    size_t ul = strlen(unit);
    char *s = malloc(ul * times + 1);
    for (size_t i = 0; i < times; i++)
        memcpy(s + i * ul, unit, ul);
    s[ul * times] = '\0';
    return s;
}

static void test_caps(void **state)
{
    (void)state;
    struct gd_pymeta m;
    char *text = repeat("Requires-Dist: x\n", GD_PYMETA_MAX_REQUIRES);
    assert_int_equal(gd_pymeta_parse(text, strlen(text), &m), GD_OK);
    assert_int_equal(m.nrequires, GD_PYMETA_MAX_REQUIRES);
    /* requires.txt lines on top of a full list: GD_ELIMIT, and the list is as it was. */
    assert_int_equal(gd_pyreq_parse_requires_txt("[e]\ny\n", 6, &m), GD_ELIMIT);
    assert_int_equal(m.nrequires, GD_PYMETA_MAX_REQUIRES);
    assert_int_equal(m.extras.count, 0);
    gd_pymeta_free(&m);
    free(text);
    text = repeat("Requires-Dist: x\n", GD_PYMETA_MAX_REQUIRES + 1);
    memset(&m, 0x5a, sizeof m);
    assert_int_equal(gd_pymeta_parse(text, strlen(text), &m), GD_ELIMIT);
    assert_null(m.requires);
    assert_int_equal(m.nrequires + m.extras.count, 0);
    free(text);
    /* Provides-Extra values (distinct ones count). */
    struct gd_buf b;
    gd_buf_init(&b, 1u << 20);
    for (int i = 0; i <= GD_PYMETA_MAX_EXTRAS; i++)
        gd_buf_printf(&b, "Provides-Extra: e%d\n", i);
    assert_int_equal(gd_pymeta_parse(gd_buf_str(&b), b.len, &m), GD_ELIMIT);
    assert_int_equal(gd_pymeta_parse(gd_buf_str(&b), b.len - strlen("Provides-Extra: e1024\n"), &m),
                     GD_OK);
    assert_int_equal(m.extras.count, GD_PYMETA_MAX_EXTRAS);
    gd_pymeta_free(&m);
    gd_buf_free(&b);
    /* A Requires-Dist value past GD_PYMETA_LINE_MAX is skipped, as is a requires.txt line. */
    char *longname = repeat("a", GD_PYMETA_LINE_MAX);
    gd_buf_init(&b, 1u << 20);
    gd_buf_printf(&b, "Requires-Dist: x; m == '%s'\nRequires-Dist: y\n", longname);
    assert_int_equal(gd_pymeta_parse(gd_buf_str(&b), b.len, &m), GD_OK);
    assert_int_equal(m.nrequires, 1);
    assert_int_equal(m.nskipped, 1);
    gd_buf_free(&b);
    gd_buf_init(&b, 1u << 20);
    gd_buf_printf(&b, "%s\nz\n", longname);
    assert_int_equal(gd_pyreq_parse_requires_txt(gd_buf_str(&b), b.len, &m), GD_OK);
    assert_int_equal(m.nrequires, 2);
    assert_int_equal(m.nskipped, 2);
    gd_buf_free(&b);
    gd_pymeta_free(&m);
    free(longname);
}

/* ---- requires.txt ---- */

static void test_requires_txt(void **state)
{
    (void)state;
    static const struct {
        const char *seed;
        const char *want;
    } cases[] = {
        { "requires_txt_torch_1_13_debian",
          "  [opt-einsum] skipped 0\nopt-einsum||>=3.3|opt-einsum|extra == \"opt-einsum\"\n" },
        { "requires_txt_pygments_debian",
          "  [plugins] skipped 0\nimportlib-metadata|||plugins|(python_version < \"3.8\") and "
          "extra == \"plugins\"\n" },
        { "requires_txt_click_debian",
          "  [] skipped 0\ncolorama||||platform_system == \"Windows\"\n" },
        { "requires_txt_pyjwt_debian", "  [crypto,dev,docs,tests] skipped 0\n"
                                       "cryptography||>=3.4.0|crypto|extra == \"crypto\"\n"
                                       "coverage|toml|==5.0.4|dev|extra == \"dev\"\n" },
        { "requires_txt_sections_markers",
          "  [cuda12,gpu] skipped 2\n"
          "numpy||>=1.20||\n"
          "nvidia-cudnn-cu12||==9.*|cuda12|(platform_machine == \"x86_64\") and extra == "
          "\"cuda12\"\n"
          "colorama||||sys_platform == \"win32\"\n"
          "cupy-cuda12x||>=13|gpu|(python_version >= \"3.9\") and extra == \"gpu\"\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len;
        char *data = read_seed(cases[i].seed, &len);
        struct gd_pymeta m = { 0 };
        assert_int_equal(gd_pyreq_parse_requires_txt(data, len, &m), GD_OK);
        char *got = dump(&m);
        if (strncmp(got, cases[i].want, strlen(cases[i].want)) != 0)
            fail_msg("%s:\ngot:\n%s\nwant:\n%s", cases[i].seed, got, cases[i].want);
        free(got);
        gd_pymeta_free(&m);
        free(data);
    }
    /* Appended to what PKG-INFO gave: Debian's torch egg-info, both files. */
    size_t plen, rlen;
    char *pkg = read_seed("PKG-INFO_torch_1_13_debian", &plen);
    char *req = read_seed("requires_txt_torch_1_13_debian", &rlen);
    struct gd_pymeta m;
    assert_int_equal(gd_pymeta_parse(pkg, plen, &m), GD_OK);
    assert_int_equal(gd_pyreq_parse_requires_txt(req, rlen, &m), GD_OK);
    char *got = dump(&m);
    assert_string_equal(got, "torch 1.13.0a0+gitunknown [opt-einsum] skipped 0\n"
                             "opt-einsum||>=3.3|opt-einsum|extra == \"opt-einsum\"\n");
    free(got);
    gd_pymeta_free(&m);
    free(pkg);
    free(req);
    /* Hostile: headings cut short, NULs, CR line ends, empty. */
    static const struct {
        const char *text;
        size_t len;
        const char *want;
    } hostile[] = {
        { "[", 0, "  [] skipped 1\n" },
        { "[]\nx\n", 0, "  [] skipped 0\nx||||\n" },
        { "[a\nx\n[b]\ny", 0, "  [b] skipped 2\ny|||b|extra == \"b\"\n" },
        { "x\0\ny\n", 5, "  [] skipped 1\ny||||\n" },
        { "[a\0]\nx\n", 7, "  [] skipped 2\n" },
        { "x\ry\r\nz", 0, "  [] skipped 0\nx||||\ny||||\nz||||\n" },
        { "x; a == 'b'\n[:c == 'd']\ny; e == 'f'\n", 0,
          "  [] skipped 0\nx||||a == 'b'\ny||||(e == 'f') and c == 'd'\n" },
        { "", 0, "  [] skipped 0\n" },
        { "#", 0, "  [] skipped 0\n" },
    };
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        size_t len = hostile[i].len ? hostile[i].len : strlen(hostile[i].text);
        struct gd_pymeta h = { 0 };
        assert_int_equal(gd_pyreq_parse_requires_txt(hostile[i].text, len, &h), GD_OK);
        got = dump(&h);
        if (strcmp(got, hostile[i].want) != 0)
            fail_msg("case %zu: got %s want %s", i, got, hostile[i].want);
        free(got);
        gd_pymeta_free(&h);
    }
    /* A section's marker too long for a requirement's: its lines are skipped. */
    char text[600];
    snprintf(text, sizeof text, "[e:a == '%0240d']\nx\n", 0);
    struct gd_pymeta h = { 0 };
    assert_int_equal(gd_pyreq_parse_requires_txt(text, strlen(text), &h), GD_OK);
    assert_int_equal(h.nrequires, 0);
    assert_int_equal(h.nskipped, 2);
    gd_pymeta_free(&h);
}

/* ---- PEP 503 names ---- */

static void test_names(void **state)
{
    (void)state;
    static const struct {
        const char *in, *norm;
    } names[] = {
        { "nvidia-cudnn-cu12", "nvidia-cudnn-cu12" },
        { "nvidia_cudnn_cu12", "nvidia-cudnn-cu12" },
        { "Nvidia.CUDNN__cu12", "nvidia-cudnn-cu12" },
        { "tf-nightly", "tf-nightly" },
        { "a-_.-b", "a-b" },
        { "_leading", "-leading" },
        { "trailing.", "trailing-" },
        { "", "" },
        { "PyYAML", "pyyaml" },
    };
    char out[64];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        gd_pyname_normalize(names[i].in, out, sizeof out);
        assert_string_equal(out, names[i].norm);
        assert_true(gd_pyname_equal(names[i].in, names[i].norm));
        assert_true(gd_pyname_equal(names[i].norm, names[i].in));
    }
    assert_false(gd_pyname_equal("nvidia-cudnn-cu12", "nvidia-cudnn-cu11"));
    assert_false(gd_pyname_equal("tensorflow", "tensorflow-cpu"));
    assert_false(gd_pyname_equal("ab", "a-b"));
    assert_false(gd_pyname_equal(NULL, "a"));
    assert_false(gd_pyname_equal("a", NULL));
    /* Short buffers: a terminated prefix. */
    char small[5];
    gd_pyname_normalize("Nvidia_CUDNN", small, sizeof small);
    assert_string_equal(small, "nvid");
    gd_pyname_normalize("Nvidia_CUDNN", small, 1);
    assert_string_equal(small, "");
    small[0] = 'x';
    gd_pyname_normalize("a", small, 0);
    assert_int_equal(small[0], 'x');
}

/* ---- allocation failure: each allocation fails in turn, and each time it is GD_ENOMEM ---- */

static void check_parse_failures(const char *data, size_t len)
{
    struct gd_pymeta m;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_pymeta_parse(data, len, &m), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    char *want = dump(&m);
    gd_pymeta_free(&m);
    assert_true(total > 0);
    static const struct gd_pymeta zero;
    for (unsigned long n = 1; n <= total; n++) {
        gd_alloc_fail_at(n);
        enum gd_status st = gd_pymeta_parse(data, len, &m);
        gd_alloc_fail_at(0);
        if (st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed: %s", n, total, gd_status_str(st));
        assert_memory_equal(&m, &zero, sizeof m);
    }
    assert_int_equal(gd_pymeta_parse(data, len, &m), GD_OK);
    char *again = dump(&m);
    assert_string_equal(again, want);
    gd_pymeta_free(&m);
    free(again);
    free(want);
}

static void check_requires_failures(const char *pkg, size_t plen, const char *req, size_t rlen)
{
    struct gd_pymeta m;
    assert_int_equal(gd_pymeta_parse(pkg, plen, &m), GD_OK);
    char *before = dump(&m);
    gd_alloc_fail_at(0);
    assert_int_equal(gd_pyreq_parse_requires_txt(req, rlen, &m), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    char *want = dump(&m);
    gd_pymeta_free(&m);
    assert_true(total > 0);
    for (unsigned long n = 1; n <= total; n++) {
        assert_int_equal(gd_pymeta_parse(pkg, plen, &m), GD_OK);
        gd_alloc_fail_at(n);
        enum gd_status st = gd_pyreq_parse_requires_txt(req, rlen, &m);
        gd_alloc_fail_at(0);
        if (st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed: %s", n, total, gd_status_str(st));
        char *got = dump(&m);
        assert_string_equal(got, before); /* as it was before the call */
        free(got);
        gd_pymeta_free(&m);
    }
    free(before);
    free(want);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    static const char *const seeds[] = { "METADATA_tensorflow_2_16_and_cuda",
                                         "METADATA_attrs_debian_markers",
                                         "METADATA_jax_cuda12_extras" };
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        size_t len;
        char *data = read_seed(seeds[i], &len);
        check_parse_failures(data, len);
        free(data);
    }
    size_t plen, rlen;
    char *pkg = read_seed("METADATA_jax_cuda12_extras", &plen);
    char *req = read_seed("requires_txt_pyjwt_debian", &rlen);
    check_requires_failures(pkg, plen, req, rlen);
    free(pkg);
    free(req);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requirements), cmocka_unit_test(test_requirement_sizes),
        cmocka_unit_test(test_files),        cmocka_unit_test(test_headers),
        cmocka_unit_test(test_caps),         cmocka_unit_test(test_requires_txt),
        cmocka_unit_test(test_names),        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
