#include "core/strmap.h"

#include "core/alloc.h"
#include "core/hash.h"

#include <string.h>

/* The slot holding `key`, or the empty one where it would go; the table is never full. */
static struct gd_strmap_slot *find(const struct gd_strmap *map, const char *key, uint64_t hash)
{
    for (size_t i = hash & (map->cap - 1);; i = (i + 1) & (map->cap - 1)) {
        struct gd_strmap_slot *s = &map->slots[i];
        if (!s->key || (s->hash == hash && strcmp(s->key, key) == 0))
            return s;
    }
}

void *gd_strmap_get(const struct gd_strmap *map, const char *key)
{
    if (!map->cap || !key)
        return NULL;
    return find(map, key, gd_hash_str(key))->value;
}

enum gd_status gd_strmap_put(struct gd_strmap *map, const char *key, void *value)
{
    if (!key)
        return GD_OK;
    uint64_t hash = gd_hash_str(key);
    if (map->cap && find(map, key, hash)->key)
        return GD_OK;
    if ((map->count + 1) * 2 > map->cap) {
        size_t cap = map->cap ? map->cap * 2 : 64;
        struct gd_strmap_slot *slots = gd_calloc(cap, sizeof *slots);
        if (!slots)
            return GD_ENOMEM;
        for (size_t k = 0; k < map->cap; k++) {
            if (!map->slots[k].key)
                continue;
            size_t i = map->slots[k].hash & (cap - 1);
            while (slots[i].key)
                i = (i + 1) & (cap - 1);
            slots[i] = map->slots[k];
        }
        gd_free(map->slots);
        map->slots = slots;
        map->cap = cap;
    }
    *find(map, key, hash) = (struct gd_strmap_slot){ key, value, hash };
    map->count++;
    return GD_OK;
}

void gd_strmap_clear(struct gd_strmap *map)
{
    gd_free(map->slots);
    map->slots = NULL;
    map->cap = map->count = 0;
}
