#include "cli/cli.h"

#include "os/os.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool gd_args_flag(struct gd_args *a, const char *short_name, const char *long_name)
{
    const char *arg = a->argv[a->i];
    if ((short_name && strcmp(arg, short_name) == 0) ||
        (long_name && strcmp(arg, long_name) == 0)) {
        a->i++;
        return true;
    }
    return false;
}

bool gd_args_value(struct gd_args *a, const char *short_name, const char *long_name,
                   const char **value, bool *bad)
{
    const char *arg = a->argv[a->i];
    size_t n = long_name ? strlen(long_name) : 0;
    if (long_name && strncmp(arg, long_name, n) == 0 && arg[n] == '=') {
        *value = arg + n + 1;
        a->i++;
        return true;
    }
    if (!((short_name && strcmp(arg, short_name) == 0) ||
          (long_name && strcmp(arg, long_name) == 0)))
        return false;
    if (a->i + 1 >= a->argc) {
        gd_usage_error(a->cmd, "%s needs a value", arg);
        *bad = true;
        a->i++;
        return true;
    }
    *value = a->argv[a->i + 1];
    a->i += 2;
    return true;
}

int gd_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpudoctor%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'gpudoctor%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    va_end(ap);
    return GD_EXIT_USAGE;
}

int gd_color_choice(const char *when)
{
    if (!when || strcmp(when, "auto") == 0) {
        /* https://no-color.org: a NO_COLOR that is set and not empty turns colour off. */
        const char *no = getenv("NO_COLOR");
        const char *term = getenv("TERM");
        if (no && *no)
            return 0;
        if (term && strcmp(term, "dumb") == 0)
            return 0;
        return gd_os_isatty(1) ? 1 : 0;
    }
    if (strcmp(when, "always") == 0)
        return 1;
    if (strcmp(when, "never") == 0)
        return 0;
    return -1;
}

int gd_write_output(const char *path, const char *data, size_t len)
{
    if (!path || strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
            fprintf(stderr, "gpudoctor: cannot write the report to standard output\n");
            return -1;
        }
        return 0;
    }
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return -1;
    snprintf(tmp, n + 16, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = false;
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok) {
        fprintf(stderr, "gpudoctor: cannot write %s\n", path);
        remove(tmp);
    }
    free(tmp);
    return ok ? 0 : -1;
}
