#include "core/hash.h"

#include <string.h>

/* Eight bytes per step, multiply and fold: the keys are library names and paths of 20 to 100
 * bytes, and a byte-at-a-time FNV-1a (a multiply in the dependency chain of every byte) was a
 * twentieth of a dependency tree's time. The mix is the 64-bit finaliser of MurmurHash3. */
static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

uint64_t gd_hash_str(const char *s)
{
    size_t n = strlen(s);
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (; n >= 8; n -= 8, s += 8) {
        uint64_t w;
        memcpy(&w, s, 8); /* byte order does not matter: the same on every call */
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    memcpy(&tail, s, n);
    h = mix(h ^ tail);
    return h ? h : 1;
}
