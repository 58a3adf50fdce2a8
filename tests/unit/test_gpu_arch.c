/* NVIDIA's rules for which compiled GPU code runs on a compute capability (core/gpu_arch.h),
 * case by case from the CUDA C++ Programming Guide and the CUDA 12.9 notes' arch- and
 * family-specific targets. */
#include "core/gpu_arch.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

struct arch_case {
    const char *sass, *ptx;
    bool tf_list;
    unsigned major, minor;
    enum gd_arch_serve want;
};

static const struct arch_case cases[] = {
    /* SASS runs on later minors of its major only. */
    { "sm_80", NULL, false, 8, 6, GD_ARCH_SERVED },
    { "sm_86", NULL, false, 8, 0, GD_ARCH_NOT_SERVED },
    { "sm_80,sm_86", NULL, false, 9, 0, GD_ARCH_NOT_SERVED },
    /* PTX is compiled for its capability and every later one. */
    { "sm_80,sm_86", "compute_86", false, 9, 0, GD_ARCH_PTX_ONLY },
    { "sm_75", "compute_80", false, 7, 5, GD_ARCH_SERVED },
    { "sm_70", "compute_80", false, 7, 5, GD_ARCH_SERVED },
    { "sm_70", "compute_80", false, 8, 0, GD_ARCH_PTX_ONLY },
    { "sm_70", "compute_86", false, 8, 0, GD_ARCH_NOT_SERVED },
    /* Arch-specific targets serve their own capability alone, family ones later minors. */
    { "sm_90a", NULL, false, 9, 0, GD_ARCH_SERVED },
    { "sm_90a", "compute_90a", false, 10, 0, GD_ARCH_NOT_SERVED },
    { "sm_100f", NULL, false, 10, 3, GD_ARCH_SERVED },
    { "sm_75", "compute_100f", false, 12, 0, GD_ARCH_NOT_SERVED },
    { "sm_75", "compute_100f", false, 10, 3, GD_ARCH_PTX_ONLY },
    /* TensorFlow's build_info list: compute_80 is PTX and SASS of 8.0. */
    { "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80", "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80", true,
      8, 6, GD_ARCH_SERVED },
    { "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80", "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80", true,
      9, 0, GD_ARCH_PTX_ONLY },
    { "sm_35 sm_50", "sm_35 sm_50", true, 3, 0, GD_ARCH_NOT_SERVED },
    /* Nothing, junk and near misses serve nothing. */
    { NULL, NULL, false, 8, 6, GD_ARCH_NOT_SERVED },
    { "", "", false, 8, 6, GD_ARCH_NOT_SERVED },
    { "sm_,sm_x86,sm_8,sm_86junk,,", "compute_", false, 8, 6, GD_ARCH_NOT_SERVED },
};

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct arch_case *c = &cases[i];
        enum gd_arch_serve got = gd_arch_serves(c->sass, c->ptx, c->tf_list, c->major, c->minor);
        if (got != c->want)
            fail_msg("case %zu (%s / %s on %u.%u): %d, want %d", i, c->sass ? c->sass : "-",
                     c->ptx ? c->ptx : "-", c->major, c->minor, (int)got, (int)c->want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_cases) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
