/*
 * The signature set of gpudoctor explain: the rows of the explain_signatures KB table compiled
 * into PCRE2 patterns, the causes of explain_causes, and the literal prefilter that finds the
 * few lines worth a regular expression (docs/explain.md, "How a log is scanned").
 *
 * Every signature names literals, one of which occurs in every line it matches. The scanner
 * finds the literals with the Wu-Manber multi-string search: each literal contributes a key of
 * m bytes (m: the shortest literal's length, at most GD_SIG_KEY_MAX; the key is the stretch of
 * the literal made of the rarest-looking bytes), and a table gives, for the hash of any 3 bytes,
 * how far the end of a key can be from them. The scanner looks at the last 3 bytes of an m-byte
 * window of the log and jumps by that distance, m - 2 bytes when they occur in no key: most of
 * the log is never looked at byte by byte. Where the distance is 0 and the window's first 3
 * bytes also hash like a key's first 3 bytes, it compares the literals whose key ends in those
 * 3 bytes, and only on a literal found does it run the patterns of the
 * literal's signatures on that line. A signature whose literal is wrong (absent from a line its
 * pattern matches) misses lines: the unit tests check every signature's example, and
 * fuzz_explain_match compares the scanner with running every pattern on every line.
 *
 * A set is built once and read-only afterwards: scanners of several threads may share it.
 * Strings (ids, causes, texts) are borrowed from the KB tables given to gd_sigset_build, which
 * must outlive the set.
 */
#ifndef GD_EXPLAIN_SIGS_H
#define GD_EXPLAIN_SIGS_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct gd_kb_table;
struct gd_kb_row;

/* The fixed list of causes (issue 7): their ids are the stable interface of the JSON output. */
enum gd_cause_id {
    GD_CAUSE_CUDA_RUNTIME_NOT_FOUND,
    GD_CAUSE_CUDNN_NOT_FOUND,
    GD_CAUSE_CUDNN_VERSION_MISMATCH,
    GD_CAUSE_CUDA_LIBRARY_NOT_FOUND,
    GD_CAUSE_DRIVER_TOO_OLD,
    GD_CAUSE_DRIVER_LIBRARY_MISMATCH,
    GD_CAUSE_DRIVER_NOT_LOADED,
    GD_CAUSE_NO_GPU_VISIBLE,
    GD_CAUSE_CPU_ONLY_BUILD,
    GD_CAUSE_INVALID_DEVICE_ORDINAL,
    GD_CAUSE_OUT_OF_MEMORY,
    GD_CAUSE_CUDNN_INTERNAL_OR_INIT_FAILURE,
    GD_CAUSE_NO_KERNEL_IMAGE,
    GD_CAUSE_ILLEGAL_MEMORY_ACCESS_OR_LAUNCH_FAILURE,
    GD_CAUSE_WINDOWS_NATIVE_GPU_UNSUPPORTED,
    GD_CAUSE_NCCL_ERROR,
    GD_CAUSE_HARDWARE_XID,
    GD_CAUSE_TENSOR_SHAPE_OR_API_MISUSE,
    GD_CAUSE_COUNT
};

/* "cudnn-not-found", ... for a valid id; NULL otherwise. */
const char *gd_cause_name(enum gd_cause_id id);
/* The id of a name, or GD_CAUSE_COUNT when it is not one of the list. */
enum gd_cause_id gd_cause_lookup(const char *name);

/* Caps on what a signature table may ask for (a --kb override is untrusted input). */
#define GD_SIG_MAX          1024 /* signatures */
#define GD_SIG_LITERALS_MAX 8    /* literals of one signature */
#define GD_SIG_LITERAL_MIN  4    /* bytes: longer than a Wu-Manber block (3) */
#define GD_SIG_KEY_MAX      32   /* bytes of a literal the search keys on */
#define GD_SIG_HASH_BITS    14   /* of the 3-byte block hash: a 16 KiB shift table */
#define GD_SIG_LITERAL_MAX  256
#define GD_SIG_PATTERN_MAX  4096 /* bytes of one pattern */
#define GD_SIG_PARAMS_MAX   8    /* named groups plus "set" constants of one signature */
#define GD_SIG_PROBLEMS_MAX 64   /* problems recorded; past it only counted */

struct gd_sig_param {
    const char *name;  /* a group name of the pattern (borrowed from it), or a constant's name */
    uint32_t group;    /* capture group number; 0 for a constant */
    const char *value; /* a constant's value (borrowed from the KB), NULL for a group */
    char *owned;       /* a constant's name, copied out of its "NAME=VALUE" item */
};

struct gd_sig {
    const char *id, *source, *source_url;
    enum gd_cause_id cause;
    int weight;       /* 1..3 */
    pcre2_code *code; /* owned */
    struct gd_sig_param params[GD_SIG_PARAMS_MAX];
    size_t nparams;
    const struct gd_kb_row *row;
};

struct gd_cause_def {
    const char *title, *meaning; /* from explain_causes; the id itself when the row is missing */
    const struct gd_kb_row *row; /* NULL when explain_causes has no row for it */
};

/* One literal and the signatures it stands for (several signatures may share a literal). */
struct gd_literal {
    const char *text;
    uint32_t len, key_off; /* its key: m bytes from key_off */
    uint32_t hash;         /* of the key's last 3 bytes */
    uint16_t *sigs;        /* owned */
    size_t nsigs;
};

struct gd_sigset {
    struct gd_sig *sigs;
    size_t nsigs;
    struct gd_cause_def causes[GD_CAUSE_COUNT];
    struct gd_literal *lits; /* sorted by hash */
    size_t nlits;
    uint32_t m;                                     /* key length (0: no literals) */
    uint8_t shift[1u << GD_SIG_HASH_BITS];          /* Wu-Manber: hash of 3 bytes -> safe jump */
    uint64_t prefix[(1u << GD_SIG_HASH_BITS) / 64]; /* hash of each key\'s first 3 bytes */
    uint32_t max_groups;         /* the largest capture count + 1, for match data */
    pcre2_general_context *gctx; /* routes PCRE2's allocations through gd_malloc */
    pcre2_match_context *mctx;   /* match and depth limits */
    char *problems[GD_SIG_PROBLEMS_MAX];
    size_t nproblems, problems_dropped;
    bool out_of_memory; /* the set is incomplete: an allocation failed while building it */
    /* While building: compile contexts come from compile_gctx, whose allocator raises
     * pcre2_alloc_failed, so that a JIT compile failing for our memory is told apart from one
     * failing for executable memory. Scanners share gctx and mctx, which write nothing. */
    pcre2_general_context *compile_gctx;
    bool pcre2_alloc_failed;
};

/* The hash of the 3 bytes at `p`, as the search computes it. */
static inline uint32_t gd_sig_hash3(const unsigned char *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    return (v * 0x9E3779B1u) >> (32 - GD_SIG_HASH_BITS);
}

/* The same hash of the 3 bytes at p[1..3], from one 4-byte load: the search's inner loop. */
static inline uint32_t gd_sig_hash3_after(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16;
#else
    v >>= 8;
#endif
    return (v * 0x9E3779B1u) >> (32 - GD_SIG_HASH_BITS);
}

/*
 * Build `set` from the explain_signatures table `sigs` and the explain_causes table `causes`
 * (either may be NULL: the set then lacks what it would give). Rows that are invalid (no
 * pattern, a pattern that does not compile, an unknown cause, no usable literal, a weight not
 * 1..3, too many parameters) are left out and described in set->problems. GD_OK, or GD_ENOMEM
 * (the set is then freed and empty). Free with gd_sigset_free.
 */
enum gd_status gd_sigset_build(const struct gd_kb_table *sigs, const struct gd_kb_table *causes,
                               struct gd_sigset *set);
void gd_sigset_free(struct gd_sigset *set);

/* The signature of an id, or NULL. */
const struct gd_sig *gd_sigset_find(const struct gd_sigset *set, const char *id);

/* PCRE2's general context with gd_malloc/gd_free (NULL on ENOMEM); a failed allocation sets
 * *alloc_failed when it is not NULL. */
pcre2_general_context *gd_pcre2_context_new(bool *alloc_failed);

#endif
