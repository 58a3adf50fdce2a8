#include <gpudoctor/gpudoctor.h>

#ifndef GD_VERSION_STRING
#define GD_VERSION_STRING "0.0.0"
#endif

const char *gd_version(void)
{
    return GD_VERSION_STRING;
}

const char *gd_status_str(enum gd_status status)
{
    switch (status) {
    case GD_OK:
        return "success";
    case GD_ENOMEM:
        return "out of memory";
    case GD_EINVAL:
        return "invalid argument";
    case GD_ENOENT:
        return "no such file or directory";
    case GD_EACCES:
        return "permission denied";
    case GD_ELOOP:
        return "too many levels of symbolic links";
    case GD_ENOTDIR:
        return "not a directory";
    case GD_EIO:
        return "input/output error";
    case GD_EFORMAT:
        return "malformed input";
    case GD_ETRUNCATED:
        return "truncated input";
    case GD_ELIMIT:
        return "larger than gpudoctor accepts";
    case GD_ETIMEOUT:
        return "timed out";
    case GD_ECHILD:
        return "child process failed";
    case GD_EUNSUPPORTED:
        return "not supported";
    case GD_ENOTREG:
        return "not a regular file";
    }
    return "unknown status";
}
