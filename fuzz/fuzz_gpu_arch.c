/*
 * The compiled-architecture lists of a framework (a fat binary's sm_XY / compute_XY, TensorFlow's
 * cuda_compute_capabilities) against a compute capability: gd_arch_serves. Input: byte 0 the
 * capability's major (mod 16), byte 1 its minor (mod 10), byte 2 bit 0 the TensorFlow-list flag,
 * then the SASS list, a NUL, the PTX list. Invariants: the answer is one of the three; PTX alone
 * never gives machine code and no PTX list never gives PTX_ONLY; adding the capability's own
 * sm_XY to the SASS list serves it, adding its compute_XY to the PTX list at least as PTX; and
 * adding items to a list never makes the answer worse.
 */
#include "fuzz.h"

#include "core/gpu_arch.h"

static char *text(const uint8_t *p, size_t n, const char *extra)
{
    size_t m = extra ? strlen(extra) : 0;
    char *s = malloc(n + m + 2);
    if (!s)
        return NULL;
    memcpy(s, p, n);
    s[n] = '\0';
    if (extra) {
        strcat(s, ",");
        strcat(s, extra);
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    unsigned major = data[0] % 16, minor = data[1] % 10;
    bool tf = data[2] & 1;
    const uint8_t *rest = data + 3;
    size_t n = size - 3;
    const uint8_t *nul = memchr(rest, '\0', n);
    size_t ns = nul ? (size_t)(nul - rest) : n;
    size_t np = nul ? n - ns - 1 : 0;
    char own_sm[16], own_ptx[16];
    snprintf(own_sm, sizeof own_sm, "sm_%u%u", major, minor);
    snprintf(own_ptx, sizeof own_ptx, "compute_%u%u", major, minor);
    char *sass = text(rest, ns, NULL), *ptx = nul ? text(nul + 1, np, NULL) : NULL;
    char *sass_own = text(rest, ns, own_sm), *ptx_own = text(nul ? nul + 1 : rest, np, own_ptx);
    char *sass_more = text(rest, ns, ptx ? ptx : "");
    if (!sass || (nul && !ptx) || !sass_own || !ptx_own || !sass_more)
        goto out;
    enum gd_arch_serve got = gd_arch_serves(sass, ptx, tf, major, minor);
    FUZZ_CHECK(got == GD_ARCH_SERVED || got == GD_ARCH_PTX_ONLY || got == GD_ARCH_NOT_SERVED);
    FUZZ_CHECK(gd_arch_serves(NULL, ptx, false, major, minor) != GD_ARCH_SERVED);
    FUZZ_CHECK(gd_arch_serves(sass, NULL, tf, major, minor) != GD_ARCH_PTX_ONLY);
    if (major >= 1) {
        FUZZ_CHECK(gd_arch_serves(sass_own, ptx, tf, major, minor) == GD_ARCH_SERVED);
        FUZZ_CHECK(gd_arch_serves(sass, ptx_own, tf, major, minor) <= GD_ARCH_PTX_ONLY);
    }
    /* More items, never a worse answer (the enum runs from best to worst). */
    FUZZ_CHECK(gd_arch_serves(sass_more, ptx, tf, major, minor) <= got);
out:
    free(sass);
    free(ptx);
    free(sass_own);
    free(ptx_own);
    free(sass_more);
    return 0;
}
