/*
 * The structures behind the public gd_explain_* API (include/gpudoctor/gpudoctor.h) and the
 * steps that make a result: causes from a scanner's hits (result.c), joined with a machine's
 * report (join.c), rendered (render.c).
 *
 * A result keeps everything in a private report of its own: strings in its arena, each cause's
 * fix steps in a finding of that report, the machine's facts it cites copied into entities of
 * that report. So a result needs neither the signature set nor the machine report it was made
 * from once built.
 */
#ifndef GD_EXPLAIN_EXPLAIN_H
#define GD_EXPLAIN_EXPLAIN_H

#include "core/attr.h"
#include "explain/scan.h"
#include "explain/sigs.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gd_kb;
struct gd_finding;

struct gd_explain {
    struct gd_kb *kb; /* owned: the tables the set borrows from */
    struct gd_sigset set;
    char **problems; /* the set's problems and the KB's, copied for the public accessors */
    size_t nproblems;
};

struct gd_explain_stream {
    const struct gd_explain *ex;
    struct gd_scanner *scanner;
};

struct gd_explain_match {
    const char *signature, *source; /* source: URL (or source id when the table has no URL) */
    int weight;
    uint64_t line;
    unsigned channel;
    const char *text; /* len bytes and a NUL, in the result's arena */
    size_t len;
    bool cut_before, cut_after;
    const char *names[GD_SIG_PARAMS_MAX], *values[GD_SIG_PARAMS_MAX];
    size_t nparams;
};

/* A signature's part in a cause: how many lines it matched. */
struct gd_explain_sigcount {
    const char *signature, *source;
    int weight;
    uint64_t lines;
};

#define GD_EXPLAIN_NOTES_MAX 24

struct gd_explain_cause {
    enum gd_cause_id id;
    const char *name, *title, *meaning;
    enum gd_explain_verdict verdict;
    int score;
    uint64_t lines;      /* matched lines, all signatures */
    uint64_t first_line; /* of the earliest kept match (channel first_channel) */
    unsigned first_channel;
    struct gd_explain_match *matches; /* kept lines of all its signatures, log order */
    size_t nmatches;
    struct gd_explain_sigcount *sigs;
    size_t nsigs;
    const char *notes[GD_EXPLAIN_NOTES_MAX];
    size_t nnotes;
    struct gd_finding *finding; /* in the result's report: fix steps and evidence */
    bool exact_fix;             /* join added fix steps of its own, before the generic ones */
};

struct gd_explain_result {
    struct gd_report *rep; /* owned: arena, copied facts, the causes' findings */
    const char *name;
    uint64_t lines[GD_SCAN_CHANNELS], bytes[GD_SCAN_CHANNELS];
    uint64_t matched_lines[GD_SCAN_CHANNELS]; /* lines any signature matched */
    uint64_t match_errors;
    struct gd_explain_cause *causes;
    size_t ncauses;
    const char *machine; /* what the causes were checked against: NULL when nothing */
};

/* Causes from the scanner's hits, each with its signatures, kept lines and the generic text of
 * explain_causes; not yet joined nor sorted. GD_OK or GD_ENOMEM. */
enum gd_status gd_explain_result_build(const struct gd_explain *ex, const struct gd_scanner *sc,
                                       const char *name, struct gd_explain_result **out);

/* Confirm or rule out each cause with `machine` (NULL: every verdict stays unchecked), add the
 * notes, evidence and exact fix steps, the generic fix steps after them, then score and sort.
 * Out of memory is sticky in the result's report (gd_report_failed). */
void gd_explain_join(struct gd_explain_result *r, const struct gd_explain *ex,
                     const struct gd_report *machine);

/* Add a note (printf-style) to a cause; past GD_EXPLAIN_NOTES_MAX notes are dropped. */
void gd_explain_note(struct gd_explain_result *r, struct gd_explain_cause *c, const char *fmt, ...)
    GD_PRINTF(3, 4);

/* The value of parameter `name` of kept match `m`, or NULL. */
const char *gd_explain_param(const struct gd_explain_match *m, const char *name);

#endif
