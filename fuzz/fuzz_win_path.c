/*
 * Windows path text (PATH entries, CUDA_PATH, --from) as a path inside the root:
 * gd_win_path_in_root, without a current directory and with one. Invariants: a result is an
 * absolute path with '/' separators and no empty, "." or ".." component (never above the root),
 * and taking it again gives itself; a path with a drive letter or a leading separator does not
 * depend on the current directory.
 */
#include "fuzz.h"

#include "core/alloc.h"
#include "loader/winload.h"

static void check_plain(const char *p)
{
    FUZZ_CHECK(p[0] == '/');
    FUZZ_CHECK(!strchr(p, '\\'));
    size_t n = strlen(p);
    FUZZ_CHECK(n == 1 || p[n - 1] != '/');
    FUZZ_CHECK(!strstr(p, "//") && !strstr(p, "/./") && !strstr(p, "/../"));
    FUZZ_CHECK(strcmp(p + n - (n >= 2 ? 2 : n), "/.") != 0);
    FUZZ_CHECK(n < 3 || strcmp(p + n - 3, "/..") != 0);
    char *again = NULL;
    FUZZ_CHECK(gd_win_path_in_root(p, NULL, &again) == GD_OK);
    FUZZ_CHECK(strcmp(again, p) == 0);
    gd_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A C string: the text up to the first NUL, as the environment would hand it over. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *bare = NULL, *in_cwd = NULL;
    enum gd_status a = gd_win_path_in_root(text, NULL, &bare);
    enum gd_status b = gd_win_path_in_root(text, "/Users/me/work", &in_cwd);
    FUZZ_CHECK(a == GD_OK || a == GD_EINVAL || a == GD_ENOMEM);
    FUZZ_CHECK(b == GD_OK || b == GD_EINVAL || b == GD_ENOMEM);
    if (a == GD_OK) {
        check_plain(bare);
        /* Absolute text does not depend on the current directory. */
        FUZZ_CHECK(b == GD_OK && strcmp(bare, in_cwd) == 0);
    } else {
        FUZZ_CHECK(!bare);
    }
    if (b == GD_OK)
        check_plain(in_cwd);
    gd_free(bare);
    gd_free(in_cwd);
    free(text);
    return 0;
}
