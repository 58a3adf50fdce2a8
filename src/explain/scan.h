/*
 * The log scanner: feeds of bytes in, per signature the lines it matched out. Streaming, in
 * constant memory whatever the log's size: complete lines are scanned where they lie in the
 * caller's buffer, and only the unfinished last line of a feed is copied (at most
 * GD_SCAN_TAIL_MAX bytes of it; a longer line is scanned in pieces).
 *
 * A line ends at '\n'; '\r' also ends a segment, so CRLF files and progress bars redrawn with
 * a bare '\r' are matched piece by piece, but line numbers count '\n' only (as editors and
 * grep -n do). Bytes are bytes: NULs, invalid UTF-8 and control characters are matched like
 * any other byte, and left for the renderers to escape.
 *
 * A signature counts a line once, however often it matches in it. It is matched against the
 * line, or on a line longer than GD_SCAN_LINE_MAX against windows of GD_SCAN_WINDOW bytes around
 * the literals that made the line a candidate (at most GD_SCAN_WINDOWS of them). Of its matched
 * lines it keeps the first GD_SCAN_KEEP - 1 and the last one, each cut to GD_SCAN_TEXT_MAX bytes
 * around the match.
 *
 * Two channels (0 and 1) keep separate line numbers and partial lines: `explain --run` feeds a
 * command's standard output and standard error as they come, interleaved.
 */
#ifndef GD_EXPLAIN_SCAN_H
#define GD_EXPLAIN_SCAN_H

#include "explain/sigs.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GD_SCAN_LINE_MAX  8192  /* a line up to this many bytes is matched whole */
#define GD_SCAN_WINDOW    2048  /* a longer one in windows of this many bytes around a literal */
#define GD_SCAN_WINDOWS   16    /* at most this many windows per signature and line */
#define GD_SCAN_TAIL_MAX  65536 /* bytes of an unfinished line kept between feeds */
#define GD_SCAN_TEXT_MAX  512   /* bytes of a matched line kept for display */
#define GD_SCAN_PARAM_MAX 256   /* bytes of one extracted parameter */
#define GD_SCAN_KEEP      5     /* matched lines kept per signature */
#define GD_SCAN_CHANNELS  2

/* One kept matched line. Strings are new memory owned by the scanner (or its taker). */
struct gd_scan_line {
    uint64_t line; /* 1-based line number in its channel */
    unsigned channel;
    char *text; /* NUL-terminated copy of (part of) the line, which may itself hold NULs */
    size_t len;
    bool cut_before, cut_after;      /* bytes of the line left out on either side */
    char *values[GD_SIG_PARAMS_MAX]; /* per parameter of the signature: NULL when unset */
    size_t value_len[GD_SIG_PARAMS_MAX];
};

struct gd_scan_hits {
    uint64_t count; /* lines matched */
    struct gd_scan_line kept[GD_SCAN_KEEP];
    size_t nkept;
    uint64_t
        last_line[GD_SCAN_CHANNELS]; /* line numbers + 1 of the last match, for once per line */
};

struct gd_scan_channel {
    unsigned char *tail; /* GD_SCAN_TAIL_MAX bytes, allocated at first use */
    size_t tail_len;
    bool tail_scanned; /* part of this line was already scanned (an over-long line) */
    uint64_t line;     /* number of the line being read, 1-based */
    uint64_t bytes;
    bool any;         /* bytes were fed on this channel */
    bool last_was_nl; /* the last byte fed was '\n' */
};

struct gd_scanner {
    const struct gd_sigset *set;
    pcre2_match_data *md;
    struct gd_scan_hits *hits; /* one per signature */
    uint32_t *stamp;           /* per signature: the segment it was last tried on */
    uint32_t segment;          /* current segment's stamp */
    uint8_t *tries;            /* per signature: windows tried in the stamped segment */
    size_t *window_end;        /* per signature: where its last window ended, from the segment */
    struct gd_scan_channel ch[GD_SCAN_CHANNELS];
    uint64_t match_errors;                    /* pattern runs that hit a PCRE2 limit */
    uint64_t matched_lines[GD_SCAN_CHANNELS]; /* distinct lines any signature matched */
    uint64_t matched_last[GD_SCAN_CHANNELS];
    uint64_t cause_lines[GD_CAUSE_COUNT];                  /* distinct lines matched per cause */
    uint64_t cause_last[GD_CAUSE_COUNT][GD_SCAN_CHANNELS]; /* line + 1 of the last one */
    enum gd_status status; /* GD_OK, or the first failure (GD_ENOMEM); sticky */
    bool finished;
};

/* A new scanner over `set` (borrowed, must outlive it). GD_OK or GD_ENOMEM. */
enum gd_status gd_scanner_new(const struct gd_sigset *set, struct gd_scanner **out);
void gd_scanner_free(struct gd_scanner *s);
/* Scan `len` more bytes of channel `channel` (0 or 1). GD_EINVAL for another channel or after
 * finish; otherwise the scanner's status (GD_ENOMEM once a kept line could not be copied). */
enum gd_status gd_scanner_feed(struct gd_scanner *s, unsigned channel, const void *data,
                               size_t len);
/* End of input: the unfinished last line of each channel is scanned. Returns the status. */
enum gd_status gd_scanner_finish(struct gd_scanner *s);
/* Lines read on a channel (a last line without '\n' counts). */
uint64_t gd_scanner_lines(const struct gd_scanner *s, unsigned channel);

#endif
