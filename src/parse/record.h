/*
 * A wheel's RECORD file (the installed files of a pip package, PEP 376 / PEP 627): one CSV line
 * per file, "path,hash,size", the path quoted when it holds a comma.
 */
#ifndef GD_PARSE_RECORD_H
#define GD_PARSE_RECORD_H

#include <stdbool.h>
#include <stddef.h>

/* Called with each entry's path (NUL-terminated, borrowed) and size (-1 when not given).
 * Return false to stop. */
typedef bool (*gd_record_fn)(void *user, const char *path, long long size);

/* Parse `len` bytes; malformed lines are skipped. Never reads outside the buffer. */
void gd_parse_record(const char *data, size_t len, gd_record_fn fn, void *user);

/* A dist-info directory name "nvidia_cudnn_cu13-9.19.0.56.dist-info": the distribution name
 * and version, copied into the buffers. False when the name is not of that form. */
bool gd_dist_info_name(const char *dir, char *name, size_t name_size, char *version,
                       size_t version_size);

/* The first header field named `field` (case-insensitive) of a METADATA file (core metadata,
 * RFC 822 style: "Name: nvidia-cudnn-cu12"), unfolded and trimmed into `buf`; only the headers
 * count (parse/pymeta.h says where they end). Leaves `buf` alone and returns false when the
 * field is absent, or its value empty, holds a NUL or does not fit. */
bool gd_metadata_field(const char *data, size_t len, const char *field, char *buf, size_t size);

#endif
