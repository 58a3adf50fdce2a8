/*
 * String keys to pointers, first insertion wins: an index for the lookups a check makes
 * thousands of times (the loader's names, the inventory's directories and copies), where a
 * linear scan was a measurable part of the work. Open addressing on gd_hash_str, power-of-two
 * size, never more than half full. Keys are borrowed: they must outlive the map.
 */
#ifndef GD_CORE_STRMAP_H
#define GD_CORE_STRMAP_H

#include <gpudoctor/gpudoctor.h>

#include <stddef.h>
#include <stdint.h>

struct gd_strmap_slot {
    const char *key; /* NULL: an empty slot */
    void *value;
    uint64_t hash; /* of key: compared before the strings, and kept for growing */
};

struct gd_strmap {
    struct gd_strmap_slot *slots;
    size_t cap, count; /* cap: 0 or a power of two */
};

/* The value stored under `key`, or NULL. */
void *gd_strmap_get(const struct gd_strmap *map, const char *key);
/* Store `value` under `key` unless the key is there already (then nothing changes). A NULL key
 * is ignored. GD_OK or GD_ENOMEM (nothing changed). */
enum gd_status gd_strmap_put(struct gd_strmap *map, const char *key, void *value);
/* Free the slots (not the keys or values); the map is empty and usable again. */
void gd_strmap_clear(struct gd_strmap *map);

#endif
