/* /proc/driver/nvidia/gpus/<bus>/information as the kernel module writes it, and worse. */
#include "core/alloc.h"
#include "parse/nvidia_gpu.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The format of nv_procfs_read_gpu_info (NVIDIA open-gpu-kernel-modules, nv-procfs.c): the
 * tabs are the module's own, the values those of an L4 shown in canonical/snapd#14893. */
static const char l4[] = "Model: \t\t NVIDIA L4\n"
                         "IRQ:   \t\t 16\n"
                         "GPU UUID: \t GPU-3291dfa4-fcc4-0110-615b-c894a0d7c689\n"
                         "Video BIOS: \t 95.04.65.00.13\n"
                         "Bus Type: \t PCIe\n"
                         "DMA Size: \t 47 bits\n"
                         "DMA Mask: \t 0x7fffffffffff\n"
                         "Bus Location: \t 0000:70:00.0\n"
                         "Device Minor: \t 0\n"
                         "GPU Excluded:\t No\n";

struct info_case {
    const char *data;
    enum gd_status status;
    const char *model, *uuid, *bus;
    long minor;
    int excluded;
};

static const struct info_case cases[] = {
    { l4, GD_OK, "NVIDIA L4", "GPU-3291dfa4-fcc4-0110-615b-c894a0d7c689", "0000:70:00.0", 0, 0 },
    /* An H100 with GSP firmware, as copied to a web page (tabs expanded to spaces). */
    { "Model:           NVIDIA H100 80GB HBM3\nIRQ:             10\n"
      "GPU UUID:        GPU-9221d5d1-b60b-a624-bf14-0a1819cfda3b\n"
      "Video BIOS:      96.00.99.00.01\nBus Type:        PCIe\nDMA Size:        52 bits\n"
      "DMA Mask:        0xfffffffffffff\nBus Location:    0000:62:00.0\nDevice Minor:    5\n"
      "GPU Firmware:    535.129.03\nGPU Excluded:    No\n",
      GD_OK, "NVIDIA H100 80GB HBM3", "GPU-9221d5d1-b60b-a624-bf14-0a1819cfda3b", "0000:62:00.0", 5,
      0 },
    /* A 2017 driver: no "NVIDIA " in the model, no Device Minor, no GPU Excluded. */
    { "Model:           GeForce GTX 650\nIRQ:             44\n"
      "GPU UUID:        GPU-e3f822b9-8c5f-95a5-b379-8dfdeefd7758\n"
      "Video BIOS:      80.07.35.00.80\nBus Type:        PCIe\nDMA Size:        40 bits\n"
      "DMA Mask:        0xffffffffff\nBus Location:    0000:04:00.0\n",
      GD_OK, "GeForce GTX 650", "GPU-e3f822b9-8c5f-95a5-b379-8dfdeefd7758", "0000:04:00.0", -1,
      -1 },
    /* No UUID line (the module could not read it), an excluded GPU, CRLF, no final newline. */
    { "Model: \t\t Tesla T4\r\nIRQ:   \t\t 90\r\nBus Location: \t 0001:00:00.0\r\n"
      "Device Minor: \t 3\r\nGPU Excluded:\t Yes",
      GD_OK, "Tesla T4", NULL, "0001:00:00.0", 3, 1 },
    /* A 32-bit PCI domain prints longer; upper-case hex is still hex. */
    { "Bus Location: \t 10000:E1:00.0\n", GD_OK, NULL, NULL, "10000:E1:00.0", -1, -1 },
    /* The first line of a key counts, even when its value is unusable. */
    { "Model: NVIDIA A100-SXM4-80GB\nModel: NVIDIA A10\nDevice Minor: 1\nDevice Minor: 2\n"
      "Bus Location: nope\nBus Location: 0000:07:00.0\nGPU Excluded: maybe\nGPU Excluded: No\n",
      GD_OK, "NVIDIA A100-SXM4-80GB", NULL, NULL, 1, -1 },
    /* Keys ignore case and the white space around them. */
    { "  model :NVIDIA RTX A6000  \n  gpu uuid\t:\tGPU-x\n device minor: 12\ngpu excluded: yes\n",
      GD_OK, "NVIDIA RTX A6000", "GPU-x", NULL, 12, 1 },
    /* Unusable values: empty, not a number, too many digits, a bus id of the wrong shape. */
    { "Model:\nGPU UUID:   \nDevice Minor: -1\nBus Location: 0000:70:00\n", GD_OK, NULL, NULL, NULL,
      -1, -1 },
    { "Device Minor: 1234567890\nBus Location: 000:01:00.0\n", GD_OK, NULL, NULL, NULL, -1, -1 },
    { "Device Minor: 12a\nBus Location: 0000:01:00.0 \n", GD_OK, NULL, NULL, "0000:01:00.0", -1,
      -1 },
    { "Device Minor: 999999999\nBus Location: 000000000:01:00.0\n", GD_OK, NULL, NULL, NULL,
      999999999, -1 },
    /* Only unknown keys, or no key at all: not an information file. */
    { "", GD_EFORMAT, NULL, NULL, NULL, -1, -1 },
    { "\n\n\n", GD_EFORMAT, NULL, NULL, NULL, -1, -1 },
    { "IRQ: 16\nVideo BIOS: ??.??.??.??.??\nBus Type: PCIe\n", GD_EFORMAT, NULL, NULL, NULL, -1,
      -1 },
    { "Model NVIDIA L4\nModelx: NVIDIA L4\n", GD_EFORMAT, NULL, NULL, NULL, -1, -1 },
    { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05\n", GD_EFORMAT, NULL, NULL, NULL,
      -1, -1 },
};

static void check_str(size_t i, const char *what, const char *got, const char *want)
{
    if (!want && got)
        fail_msg("case %zu: %s \"%s\", want none", i, what, got);
    if (want && (!got || strcmp(got, want) != 0))
        fail_msg("case %zu: %s \"%s\", want \"%s\"", i, what, got ? got : "(none)", want);
}

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct info_case *c = &cases[i];
        /* An exact-size heap copy: a read past the end is a sanitizer report. */
        size_t n = strlen(c->data);
        char *data = malloc(n ? n : 1);
        memcpy(data, c->data, n);
        struct gd_nvidia_gpu_info info;
        memset(&info, 'x', sizeof info);
        enum gd_status st = gd_parse_nvidia_gpu_info(data, n, &info);
        free(data);
        if (st != c->status)
            fail_msg("case %zu: %s", i, gd_status_str(st));
        check_str(i, "model", info.model, c->model);
        check_str(i, "uuid", info.uuid, c->uuid);
        check_str(i, "bus", info.bus_location, c->bus);
        if (info.minor != c->minor || info.excluded != c->excluded)
            fail_msg("case %zu: minor %ld excluded %d", i, info.minor, info.excluded);
        gd_nvidia_gpu_info_free(&info);
        assert_null(info.model);
        gd_nvidia_gpu_info_free(&info); /* twice is fine */
    }
    gd_nvidia_gpu_info_free(NULL);
}

/* NUL bytes, values at and over the cap, and bytes past `len` that must not be read. */
static void test_hostile(void **state)
{
    (void)state;
    struct gd_nvidia_gpu_info info;
    /* A NUL inside a value: the field is left out, later lines still count. */
    static const char nul[] = "Model: NVIDIA\0L4\nDevice Minor: 7\n";
    assert_int_equal(gd_parse_nvidia_gpu_info(nul, sizeof nul - 1, &info), GD_OK);
    assert_null(info.model);
    assert_int_equal(info.minor, 7);
    gd_nvidia_gpu_info_free(&info);

    /* Values of GD_NVIDIA_GPU_VALUE_MAX - 1 bytes are kept; one more is left out. */
    size_t cap = GD_NVIDIA_GPU_VALUE_MAX;
    char *text = malloc(cap + 32);
    strcpy(text, "Model: ");
    memset(text + 7, 'M', cap - 1);
    text[7 + cap - 1] = '\0';
    assert_int_equal(gd_parse_nvidia_gpu_info(text, strlen(text), &info), GD_OK);
    assert_non_null(info.model);
    assert_int_equal(strlen(info.model), cap - 1);
    gd_nvidia_gpu_info_free(&info);
    strcpy(text + 7 + cap - 1, "M");
    assert_int_equal(gd_parse_nvidia_gpu_info(text, strlen(text), &info), GD_OK);
    assert_null(info.model);
    free(text);

    /* `len` ends the input: the rest of the buffer is never looked at. */
    assert_int_equal(gd_parse_nvidia_gpu_info(l4, 20, &info), GD_OK);
    assert_string_equal(info.model, "NVIDIA L4");
    assert_null(info.uuid);
    gd_nvidia_gpu_info_free(&info);
    assert_int_equal(gd_parse_nvidia_gpu_info(l4, 12, &info), GD_OK);
    assert_string_equal(info.model, "NV");
    gd_nvidia_gpu_info_free(&info);
    assert_int_equal(gd_parse_nvidia_gpu_info(l4, 0, &info), GD_EFORMAT);

    /* A big file of one long line and many short ones stays linear and bounded. */
    size_t big = 1 << 20;
    char *junk = malloc(big);
    for (size_t i = 0; i < big; i++)
        junk[i] = (i % 7 == 6) ? '\n' : ':';
    assert_int_equal(gd_parse_nvidia_gpu_info(junk, big, &info), GD_EFORMAT);
    free(junk);
}

static void test_bus_id(void **state)
{
    (void)state;
    static const char *const good[] = { "0000:01:00.0", "0000:ff:1f.7", "ABCD:0a:00.1",
                                        "00010000:e1:00.0", "10000:00:00.0" };
    static const char *const bad[] = { "",
                                       "0000:01:00",
                                       "000:01:00.0",
                                       "000000000:01:00.0",
                                       "0000:1:00.0",
                                       "0000:01:0.0",
                                       "0000:01:00.00",
                                       "0000-01-00.0",
                                       "0000:0g:00.0",
                                       "0000:01:00.0 ",
                                       " 0000:01:00.0",
                                       "..",
                                       "0000:01:00:0" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        if (!gd_nvidia_bus_id_valid(good[i], strlen(good[i])))
            fail_msg("%s refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (gd_nvidia_bus_id_valid(bad[i], strlen(bad[i])))
            fail_msg("\"%s\" accepted", bad[i]);
    /* The length given is the end: a valid prefix of a longer string is judged alone. */
    assert_true(gd_nvidia_bus_id_valid("0000:01:00.0junk", 12));
    assert_false(gd_nvidia_bus_id_valid("0000:01:00.0", 11));
}

/* Fail each allocation in turn: GD_ENOMEM with nothing left allocated, or the full result. */
static void test_alloc_failures(void **state)
{
    (void)state;
    struct gd_nvidia_gpu_info info;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_parse_nvidia_gpu_info(l4, strlen(l4), &info), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    gd_nvidia_gpu_info_free(&info);
    assert_int_equal(total, 3); /* model, uuid, bus location */
    for (unsigned long n = 1; n <= total + 1; n++) {
        gd_alloc_fail_at(n);
        enum gd_status st = gd_parse_nvidia_gpu_info(l4, strlen(l4), &info);
        gd_alloc_fail_at(0);
        if (n <= total) {
            assert_int_equal(st, GD_ENOMEM);
            assert_null(info.model);
            assert_null(info.uuid);
            assert_null(info.bus_location);
            assert_int_equal(info.minor, -1);
            assert_int_equal(info.excluded, -1);
        } else {
            assert_int_equal(st, GD_OK);
            assert_string_equal(info.bus_location, "0000:70:00.0");
            gd_nvidia_gpu_info_free(&info);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_bus_id),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
