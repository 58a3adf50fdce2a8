/* Wheel metadata: RECORD lines (CSV as pip writes them), dist-info directory names, METADATA
 * header fields. */
#define _GNU_SOURCE
#include "parse/record.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

struct collected {
    char text[16384];
    size_t calls, stop_after;
};

static bool collect(void *user, const char *path, long long size)
{
    struct collected *c = user;
    size_t n = strlen(c->text);
    snprintf(c->text + n, sizeof c->text - n, "%s[%s]=%lld", n ? " " : "", path, size);
    c->calls++;
    return c->stop_after == 0 || c->calls < c->stop_after;
}

static const char *records(const char *data, size_t len, size_t stop_after)
{
    static struct collected c;
    memset(&c, 0, sizeof c);
    c.stop_after = stop_after;
    gd_parse_record(data, len, collect, &c);
    return c.text;
}

static void test_record_lines(void **state)
{
    (void)state;
    static const char rec[] = "nvidia/cudnn/lib/libcudnn.so.9,sha256=Abc-_123,830040\n"
                              "nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD,,\n"
                              "\"nvidia/odd,name/lib x.so\",sha256=x,12\r\n"
                              "\"a \"\"quoted\"\" name\",sha256=y,7\n"
                              "nvidia/cudnn/include/cudnn.h,sha256=z\n"
                              "\n"
                              "no-hash-no-size\n"
                              "nvidia/bad/size.so,sha256=q,12a\n"
                              "nvidia/neg/size.so,sha256=q,-5\n"
                              "nvidia/huge/size.so,sha256=q,99999999999999999999\n"
                              "nvidia/big/size.so,sha256=q,1000000000000000\n"
                              ",sha256=empty-path,3\n"
                              "\"unterminated,sha256=q,4\n"
                              "\"\",sha256=q,5\n"
                              "last/line/no/newline.so,sha256=w,42";
    assert_string_equal(records(rec, sizeof rec - 1, 0),
                        "[nvidia/cudnn/lib/libcudnn.so.9]=830040 "
                        "[nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD]=-1 "
                        "[nvidia/odd,name/lib x.so]=12 "
                        "[a \"quoted\" name]=7 "
                        "[nvidia/cudnn/include/cudnn.h]=-1 "
                        "[no-hash-no-size]=-1 "
                        "[nvidia/bad/size.so]=-1 "
                        "[nvidia/neg/size.so]=-1 "
                        "[nvidia/huge/size.so]=-1 "
                        "[nvidia/big/size.so]=1000000000000000 "
                        "[last/line/no/newline.so]=42");
    /* The callback stops the walk. */
    assert_string_equal(records(rec, sizeof rec - 1, 2),
                        "[nvidia/cudnn/lib/libcudnn.so.9]=830040 "
                        "[nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD]=-1");
    /* Nothing read past the length given: a line cut inside its size. */
    assert_string_equal(records("a.so,h,1234\nb.so,h,99", 20, 0), "[a.so]=1234 [b.so]=9");
    /* A line cut inside a quoted path is garbage, not an over-read. */
    assert_string_equal(records("\"abc", 4, 0), "");
    assert_string_equal(records("", 0, 0), "");
    /* NULs and over-long paths: the line is skipped. */
    static const char nul[] = "a\0b.so,h,1\nc.so,h,2\n";
    assert_string_equal(records(nul, sizeof nul - 1, 0), "[c.so]=2");
    char *longline = malloc(5000 + 16);
    memset(longline, 'p', 5000);
    memcpy(longline + 5000, ",h,1\nok,h,3\n", 13);
    assert_string_equal(records(longline, strlen(longline), 0), "[ok]=3");
    free(longline);
}

static void test_dist_info_name(void **state)
{
    (void)state;
    char name[64], version[32];
    assert_true(gd_dist_info_name("nvidia_cudnn_cu12-9.1.0.70.dist-info", name, sizeof name,
                                  version, sizeof version));
    assert_string_equal(name, "nvidia_cudnn_cu12");
    assert_string_equal(version, "9.1.0.70");
    assert_true(gd_dist_info_name("torch-2.3.0+cu121.dist-info", name, sizeof name, version,
                                  sizeof version));
    assert_string_equal(name, "torch");
    assert_string_equal(version, "2.3.0+cu121");
    /* Not of that form: the buffers are left alone. */
    static const char *const bad[] = {
        "nvidia_cudnn_cu12-9.1.0.70.egg-info", /* another suffix */
        "nvidia_cudnn_cu12.dist-info",         /* no version */
        "-9.1.0.dist-info",                    /* no name */
        "nvidia_cudnn_cu12-.dist-info",        /* empty version */
        ".dist-info",
        "dist-info",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        strcpy(name, "untouched");
        strcpy(version, "untouched");
        if (gd_dist_info_name(bad[i], name, sizeof name, version, sizeof version))
            fail_msg("\"%s\" was taken for a dist-info name", bad[i]);
        assert_string_equal(name, "untouched");
        assert_string_equal(version, "untouched");
    }
    /* Buffers too small: refused, never truncated into a wrong name. */
    char small[8];
    assert_false(gd_dist_info_name("nvidia_cudnn_cu12-9.1.0.70.dist-info", small, sizeof small,
                                   version, sizeof version));
    assert_false(gd_dist_info_name("nvidia_cudnn_cu12-9.1.0.70.dist-info", name, sizeof name, small,
                                   sizeof small));
    assert_true(gd_dist_info_name("abcdefg-1234567.dist-info", small, sizeof small, version,
                                  sizeof version));
    assert_string_equal(small, "abcdefg");
}

static void test_metadata_field(void **state)
{
    (void)state;
    static const char meta[] = "Metadata-Version: 2.1\n"
                               "Name:   nvidia-cudnn-cu12  \r\n"
                               "Version: 9.1.0.70\n"
                               "Name-Alias: not this\n"
                               "Summary:\n"
                               "Requires-Dist: nvidia-cublas-cu12\n"
                               "\n"
                               "Author: in the body\n";
    char buf[64];
    assert_true(gd_metadata_field(meta, sizeof meta - 1, "Name", buf, sizeof buf));
    assert_string_equal(buf, "nvidia-cudnn-cu12");
    assert_true(gd_metadata_field(meta, sizeof meta - 1, "Version", buf, sizeof buf));
    assert_string_equal(buf, "9.1.0.70");
    assert_true(gd_metadata_field(meta, sizeof meta - 1, "Metadata-Version", buf, sizeof buf));
    assert_string_equal(buf, "2.1");
    /* Field names are case-insensitive (RFC 822 headers). */
    assert_true(gd_metadata_field(meta, sizeof meta - 1, "version", buf, sizeof buf));
    assert_string_equal(buf, "9.1.0.70");
    assert_true(gd_metadata_field(meta, sizeof meta - 1, "NAME", buf, sizeof buf));
    assert_string_equal(buf, "nvidia-cudnn-cu12");
    /* Absent, empty, in the body, or too long for the buffer: false, buffer untouched. */
    static const char *const absent[] = { "Author", "Summary", "License", "Nam" };
    for (size_t i = 0; i < sizeof absent / sizeof *absent; i++) {
        strcpy(buf, "untouched");
        assert_false(gd_metadata_field(meta, sizeof meta - 1, absent[i], buf, sizeof buf));
        assert_string_equal(buf, "untouched");
    }
    char tiny[6] = "xxxxx";
    assert_false(gd_metadata_field(meta, sizeof meta - 1, "Version", tiny, sizeof tiny));
    assert_string_equal(tiny, "xxxxx");
    /* The text may end without a newline; a length that cuts it is respected. */
    assert_true(gd_metadata_field("Name: abc", 9, "Name", buf, sizeof buf));
    assert_string_equal(buf, "abc");
    assert_true(gd_metadata_field("Name: abcdef", 8, "Name", buf, sizeof buf));
    assert_string_equal(buf, "ab");
    assert_false(gd_metadata_field("", 0, "Name", buf, sizeof buf));
    static const char nul[] = "Name: a\0b\n";
    assert_false(gd_metadata_field(nul, sizeof nul - 1, "Name", buf, sizeof buf));
    /* Read as Python's email parser reads headers: a folded value is unfolded; a lone CR ends a
     * line; a line that is neither a field nor a continuation ends the headers. */
    static const char folded[] = "Name: a\n  b\nSummary: x\rVersion: 2\r\rLicense: body\n";
    assert_true(gd_metadata_field(folded, sizeof folded - 1, "Name", buf, sizeof buf));
    assert_string_equal(buf, "a  b");
    assert_true(gd_metadata_field(folded, sizeof folded - 1, "Version", buf, sizeof buf));
    assert_string_equal(buf, "2");
    assert_false(gd_metadata_field(folded, sizeof folded - 1, "License", buf, sizeof buf));
    static const char nofield[] = "Name: a\nnot a header\nVersion: 2\n";
    assert_false(gd_metadata_field(nofield, sizeof nofield - 1, "Version", buf, sizeof buf));
    /* The first field of a name counts, even when it does not fit. */
    assert_false(
        gd_metadata_field("Version: 123456\nVersion: 1\n", 27, "Version", tiny, sizeof tiny));
    assert_string_equal(tiny, "xxxxx");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_lines),
        cmocka_unit_test(test_dist_info_name),
        cmocka_unit_test(test_metadata_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
