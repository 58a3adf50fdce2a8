/*
 * A string hash for the in-memory indexes (loader names, ld.so.cache names, sysroot paths).
 * Not for anything stored or compared across processes: the value may change between versions.
 */
#ifndef GD_CORE_HASH_H
#define GD_CORE_HASH_H

#include <stdint.h>

/* Hash of the NUL-terminated `s`; never 0, so callers may use 0 as "empty". */
uint64_t gd_hash_str(const char *s);

#endif
