/* A libcudnn.so.9 that cannot be loaded: it needs a symbol no library defines, as a wheel's copy
 * built against another version does ("undefined symbol" from dlopen with RTLD_NOW). */
#include <stddef.h>

extern void gd_fake_symbol_nobody_defines(void);

size_t cudnnGetVersion(void)
{
    gd_fake_symbol_nobody_defines();
    return 0;
}
