/*
 * What the fake vendor libraries share (Linux shared objects, and the driver's two as Windows DLLs
 * of the mingw build: nvcuda.dll, nvml.dll): their behaviour comes from environment variables, read
 * at each call, so one build serves every test case (tests/fakes/README.md lists them).
 *
 *   FAKE_GPUS=N              physical GPUs, in PCI order (what NVML and nvidia-smi count)
 *   FAKE_GPU<i>="k=v;k=v"    GPU i: name, uuid, bus, cc, sms, speed, mem, free, largest (MiB),
 *                            NVML's used, util, ... (see README)
 *   FAKE_FAIL="call=code,.." a call returns this status instead of working
 *   FAKE_HANG="call,..."     a call never returns
 *   FAKE_CRASH="call,..."    a call dies of SIGSEGV (Windows: of an access violation)
 *   FAKE_WRONG="what,..."    a result is wrong: copy, kernel, sgemm, conv, allreduce
 */
#ifndef GD_FAKES_FAKE_H
#define GD_FAKES_FAKE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <unistd.h>
#endif

/* The item `name` of a comma-separated list in variable `var`: true, with what follows its '='
 * (or "") copied into `value`. */
static inline bool fake_list_item(const char *var, const char *name, char *value, size_t size)
{
    const char *list = getenv(var);
    size_t n = strlen(name);
    while (list && *list) {
        size_t len = strcspn(list, ",");
        if (len >= n && strncmp(list, name, n) == 0 && (len == n || list[n] == '=')) {
            if (value)
                snprintf(value, size, "%.*s", len > n ? (int)(len - n - 1) : 0,
                         len > n ? list + n + 1 : "");
            return true;
        }
        list += len;
        if (*list == ',')
            list++;
    }
    return false;
}

/* Every faked call starts here: a crash or a hang when asked for. */
static inline void fake_enter(const char *call)
{
    if (fake_list_item("FAKE_CRASH", call, NULL, 0)) {
#ifdef _WIN32
        /* A raised signal is only an exit (status 3) in Windows' C runtime: a real vendor
         * library's crash is an access violation (0xC0000005), so make one. */
        static int *volatile nowhere; /* NULL, unknown to the compiler */
        *nowhere = 1;
#endif
        signal(SIGSEGV, SIG_DFL); /* sanitizers catch SIGSEGV themselves */
        raise(SIGSEGV);
    }
    if (fake_list_item("FAKE_HANG", call, NULL, 0))
        for (;;) {
#ifdef _WIN32
            Sleep(1000); /* no pause() there */
#else
            pause();
#endif
        }
}

/* The status `call` must return, or 0. */
static inline int fake_fail(const char *call)
{
    char v[32];
    return fake_list_item("FAKE_FAIL", call, v, sizeof v) ? atoi(v) : 0;
}

static inline bool fake_wrong(const char *what)
{
    return fake_list_item("FAKE_WRONG", what, NULL, 0);
}

static inline int fake_gpu_count(void)
{
    const char *n = getenv("FAKE_GPUS");
    int v = n ? atoi(n) : 0;
    return v < 0 ? 0 : v > 16 ? 16 : v;
}

/* Field `key` of FAKE_GPU<i> ("name=A100;cc=8.0"): true with its value. */
static inline bool fake_gpu_field(int i, const char *key, char *buf, size_t size)
{
    char var[32];
    snprintf(var, sizeof var, "FAKE_GPU%d", i);
    const char *spec = getenv(var);
    size_t n = strlen(key);
    while (spec && *spec) {
        size_t len = strcspn(spec, ";");
        if (len > n && strncmp(spec, key, n) == 0 && spec[n] == '=') {
            snprintf(buf, size, "%.*s", (int)(len - n - 1), spec + n + 1);
            return true;
        }
        spec += len;
        if (*spec == ';')
            spec++;
    }
    return false;
}

static inline long long fake_gpu_int(int i, const char *key, long long dflt)
{
    char v[64];
    return fake_gpu_field(i, key, v, sizeof v) ? atoll(v) : dflt;
}

/* "NS" as a field's value: NVML does not support it on this GPU. */
static inline bool fake_gpu_unsupported(int i, const char *key)
{
    char v[8];
    return fake_gpu_field(i, key, v, sizeof v) && strcmp(v, "NS") == 0;
}

static inline void fake_gpu_name(int i, char *buf, size_t size)
{
    if (!fake_gpu_field(i, "name", buf, size))
        snprintf(buf, size, "Fake GPU %d", i);
}

static inline void fake_gpu_uuid(int i, char *buf, size_t size)
{
    if (!fake_gpu_field(i, "uuid", buf, size))
        snprintf(buf, size, "GPU-%08x-1111-2222-3333-%012x", 0xfa4e0000u + (unsigned)i,
                 (unsigned)i);
}

/* PCI address as NVML's busIdLegacy and the driver write it: upper-case hex. */
static inline void fake_gpu_bus(int i, char *buf, size_t size)
{
    if (!fake_gpu_field(i, "bus", buf, size))
        snprintf(buf, size, "0000:%02X:00.0", 0x10 * (i + 1));
}

#endif
