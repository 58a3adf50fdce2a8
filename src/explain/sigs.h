/*
 * The signature set of gpudoctor explain: the rows of the explain_signatures KB table compiled
 * into PCRE2 patterns, the causes of explain_causes, and the literal prefilter that finds the
 * few lines worth a regular expression (docs/explain.md, "How a log is scanned").
 *
 * Every signature names literals, one of which occurs in every line it matches. The prefilter
 * hashes one 4-byte window of each literal (the rarest-looking one) into a 64 Ki-bit table; the
 * scanner hashes every 4-byte window of the log, and only where a bit is set does it compare
 * the literal and then run the patterns of the literal's signatures on that line. A signature
 * whose literal is wrong (absent from a line its pattern matches) misses lines: the unit tests
 * check every signature's example, and fuzz_explain_match compares the scanner with running
 * every pattern on every line.
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
#define GD_SIG_LITERAL_MIN  4    /* bytes: the prefilter hashes a 4-byte window */
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
    uint32_t len, key_off; /* the hashed 4-byte window starts key_off bytes into the literal */
    uint32_t hash;         /* 16 bits */
    uint16_t *sigs;        /* owned */
    size_t nsigs;
};

struct gd_sigset {
    struct gd_sig *sigs;
    size_t nsigs;
    struct gd_cause_def causes[GD_CAUSE_COUNT];
    struct gd_literal *lits; /* sorted by hash */
    size_t nlits;
    uint64_t bitmap[1024];       /* bit h set when a literal's window hashes to h */
    uint32_t max_groups;         /* the largest capture count + 1, for match data */
    pcre2_general_context *gctx; /* routes PCRE2's allocations through gd_malloc */
    pcre2_match_context *mctx;   /* match and depth limits */
    char *problems[GD_SIG_PROBLEMS_MAX];
    size_t nproblems, problems_dropped;
    bool out_of_memory; /* the set is incomplete: an allocation failed while building it */
};

/* The hash of the 4 bytes at `p` (unaligned), as the prefilter computes it. */
static inline uint32_t gd_sig_hash4(const unsigned char *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (v * 0x9E3779B1u) >> 16;
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

/* PCRE2's general context with gd_malloc/gd_free, for match data of scanners (NULL on ENOMEM). */
pcre2_general_context *gd_pcre2_context_new(void);

#endif
