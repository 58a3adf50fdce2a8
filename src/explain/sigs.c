#include "explain/sigs.h"

#include "core/alloc.h"
#include "core/attr.h"
#include "kb/kb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cause_names[GD_CAUSE_COUNT] = {
    "cuda-runtime-not-found",
    "cudnn-not-found",
    "cudnn-version-mismatch",
    "cuda-library-not-found",
    "driver-too-old",
    "driver-library-mismatch",
    "driver-not-loaded",
    "no-gpu-visible",
    "cpu-only-build",
    "invalid-device-ordinal",
    "out-of-memory",
    "cudnn-internal-or-init-failure",
    "no-kernel-image",
    "illegal-memory-access-or-launch-failure",
    "windows-native-gpu-unsupported",
    "nccl-error",
    "hardware-xid",
    "tensor-shape-or-api-misuse",
};

const char *gd_cause_name(enum gd_cause_id id)
{
    return (unsigned)id < GD_CAUSE_COUNT ? cause_names[id] : NULL;
}

enum gd_cause_id gd_cause_lookup(const char *name)
{
    for (unsigned i = 0; name && i < GD_CAUSE_COUNT; i++)
        if (strcmp(name, cause_names[i]) == 0)
            return (enum gd_cause_id)i;
    return GD_CAUSE_COUNT;
}

/* PCRE2 allocates through these, so that the allocation-failure tests reach its allocations
 * too (JIT code memory excepted: it is mapped by PCRE2 itself). `data` is the set's flag that an
 * allocation failed: PCRE2_ERROR_NOMEMORY also means "no executable memory" from the JIT
 * compiler, which only makes the interpreter run the pattern, and the flag tells the two apart. */
static void *pcre2_alloc(PCRE2_SIZE size, void *data)
{
    void *p = gd_malloc(size ? size : 1);
    if (!p && data)
        *(bool *)data = true;
    return p;
}

static void pcre2_dealloc(void *p, void *data)
{
    (void)data;
    gd_free(p);
}

pcre2_general_context *gd_pcre2_context_new(bool *alloc_failed)
{
    return pcre2_general_context_create(pcre2_alloc, pcre2_dealloc, alloc_failed);
}

static void problem(struct gd_sigset *set, const char *fmt, ...) GD_PRINTF(2, 3);

static void problem(struct gd_sigset *set, const char *fmt, ...)
{
    if (set->nproblems == GD_SIG_PROBLEMS_MAX) {
        set->problems_dropped++;
        return;
    }
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *copy = gd_strdup(text);
    if (!copy) {
        set->out_of_memory = true;
        return;
    }
    set->problems[set->nproblems++] = copy;
}

/*
 * How common a byte is in ordinary log text, 0 (rare) to 9 (everywhere): lower-case letters,
 * the space and digits of timestamps are common; capitals, quotes and punctuation are not. Each
 * literal keys the search on its stretch of m bytes with the smallest sum, so that the blocks of
 * ordinary text rarely occur in a key and the search jumps far. Only a heuristic: any choice is
 * correct, a poor one is only slower.
 */
static int commonness(unsigned char c)
{
    static const char common[] = " etaoinsrhldcumfpgwybvkxjqz";
    if (c >= '0' && c <= '9')
        return 6;
    const char *hit = c ? strchr(common, c) : NULL;
    if (hit) {
        int rank = (int)(hit - common);
        return rank < 9 ? 9 : rank < 18 ? 7 : 4;
    }
    if (c == '.' || c == '/' || c == ':' || c == '_' || c == '-')
        return 5;
    return 1;
}

static uint32_t best_key(const char *lit, size_t len, size_t m)
{
    uint32_t best = 0;
    int best_score = 1 << 30;
    for (size_t off = 0; off + m <= len; off++) {
        int score = 0;
        for (size_t k = 0; k < m; k++)
            score += commonness((unsigned char)lit[off + k]);
        if (score < best_score) {
            best_score = score;
            best = (uint32_t)off;
        }
    }
    return best;
}

static int lit_cmp(const void *a, const void *b)
{
    const struct gd_literal *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return strcmp(x->text, y->text);
}

/* Add signature index `sig` under literal `text`, sharing an existing literal of the same text. */
static bool add_literal(struct gd_sigset *set, size_t *cap, const char *text, size_t len,
                        uint16_t sig)
{
    struct gd_literal *l = NULL;
    for (size_t i = 0; i < set->nlits && !l; i++)
        if (set->lits[i].len == len && memcmp(set->lits[i].text, text, len) == 0)
            l = &set->lits[i];
    if (!l) {
        if (gd_grow((void **)&set->lits, cap, set->nlits + 1, sizeof *set->lits) != 0)
            return false;
        l = &set->lits[set->nlits++];
        memset(l, 0, sizeof *l);
        l->text = text;
        l->len = (uint32_t)len;
    }
    for (size_t i = 0; i < l->nsigs; i++)
        if (l->sigs[i] == sig)
            return true;
    uint16_t *grown = gd_realloc(l->sigs, (l->nsigs + 1) * sizeof *grown);
    if (!grown)
        return false;
    l->sigs = grown;
    l->sigs[l->nsigs++] = sig;
    return true;
}

/* The named groups of `code` and the "set" constants of `row` into `s`; false (with a problem)
 * when there are too many or a constant is not NAME=VALUE. */
static bool collect_params(struct gd_sigset *set, struct gd_sig *s, const struct gd_kb_row *row)
{
    uint32_t count = 0, entry_size = 0;
    PCRE2_SPTR table = NULL;
    pcre2_pattern_info(s->code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(s->code, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
    pcre2_pattern_info(s->code, PCRE2_INFO_NAMETABLE, &table);
    size_t nset = gd_kb_list_len(row, "set");
    if ((size_t)count + nset > GD_SIG_PARAMS_MAX) {
        problem(set, "explain_signatures %s: more than %d parameters", s->id, GD_SIG_PARAMS_MAX);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        PCRE2_SPTR entry = table + (size_t)i * entry_size;
        struct gd_sig_param *p = &s->params[s->nparams++];
        /* PCRE2's name table: a 2-byte big-endian group number, then the NUL-terminated name.
         * The table lives as long as the compiled pattern. */
        p->group = (uint32_t)entry[0] << 8 | entry[1];
        p->name = (const char *)(entry + 2);
        p->value = NULL;
    }
    for (size_t i = 0; i < nset; i++) {
        const char *item = gd_kb_list_at(row, "set", i);
        const char *eq = item ? strchr(item, '=') : NULL;
        if (!eq || eq == item) {
            problem(set, "explain_signatures %s: set[%zu] is not NAME=VALUE", s->id, i);
            return false;
        }
        char *name = gd_strndup(item, (size_t)(eq - item));
        if (!name) {
            set->out_of_memory = true;
            return false;
        }
        struct gd_sig_param *p = &s->params[s->nparams++];
        p->owned = name;
        p->name = name;
        p->group = 0;
        p->value = eq + 1;
    }
    return true;
}

static void free_sig(struct gd_sig *s)
{
    pcre2_code_free(s->code);
    s->code = NULL;
    for (size_t i = 0; i < s->nparams; i++)
        gd_free(s->params[i].owned);
    s->nparams = 0;
}

static bool compile_row(struct gd_sigset *set, const struct gd_kb_table *t,
                        const struct gd_kb_row *row, size_t index, size_t *lit_cap)
{
    struct gd_sig *s = &set->sigs[set->nsigs];
    memset(s, 0, sizeof *s);
    s->row = row;
    s->id = gd_kb_str(row, "id");
    const char *cause = gd_kb_str(row, "cause"), *pattern = gd_kb_str(row, "pattern");
    const char *weight = gd_kb_str(row, "weight");
    if (!s->id || !*s->id) {
        problem(set, "explain_signatures rows[%zu]: no id", index);
        return true;
    }
    if (gd_sigset_find(set, s->id)) {
        problem(set, "explain_signatures %s: a second row with this id", s->id);
        return true;
    }
    s->cause = gd_cause_lookup(cause);
    if (s->cause == GD_CAUSE_COUNT) {
        problem(set, "explain_signatures %s: cause %s is not one of the causes", s->id,
                cause ? cause : "(none)");
        return true;
    }
    if (!weight || strlen(weight) != 1 || weight[0] < '1' || weight[0] > '3') {
        problem(set, "explain_signatures %s: weight must be 1, 2 or 3", s->id);
        return true;
    }
    s->weight = weight[0] - '0';
    if (!pattern || !*pattern || strlen(pattern) > GD_SIG_PATTERN_MAX) {
        problem(set, "explain_signatures %s: no pattern, or one over %d bytes", s->id,
                GD_SIG_PATTERN_MAX);
        return true;
    }
    size_t nlits = gd_kb_list_len(row, "literals");
    if (nlits == 0 || nlits > GD_SIG_LITERALS_MAX) {
        problem(set, "explain_signatures %s: 1 to %d literals needed", s->id, GD_SIG_LITERALS_MAX);
        return true;
    }
    for (size_t i = 0; i < nlits; i++) {
        const char *lit = gd_kb_list_at(row, "literals", i);
        size_t n = lit ? strlen(lit) : 0;
        if (n < GD_SIG_LITERAL_MIN || n > GD_SIG_LITERAL_MAX || strpbrk(lit, "\r\n")) {
            problem(set, "explain_signatures %s: literals[%zu] must be %d to %d bytes of one line",
                    s->id, i, GD_SIG_LITERAL_MIN, GD_SIG_LITERAL_MAX);
            return true;
        }
    }
    /* Bytes, not UTF-8: logs hold invalid UTF-8 and a pattern must not be able to turn UTF mode
     * on with (*UTF), which would make PCRE2 refuse such lines. */
    int err = 0;
    PCRE2_SIZE at = 0;
    pcre2_compile_context *cctx = pcre2_compile_context_create(set->compile_gctx);
    if (!cctx)
        return false;
    s->code =
        pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                      PCRE2_NEVER_UTF | PCRE2_NEVER_UCP | PCRE2_NEVER_BACKSLASH_C, &err, &at, cctx);
    pcre2_compile_context_free(cctx);
    if (!s->code) {
        if (err == PCRE2_ERROR_NOMEMORY || err == PCRE2_ERROR_HEAP_FAILED)
            return false;
        PCRE2_UCHAR msg[160];
        if (pcre2_get_error_message(err, msg, sizeof msg) < 0)
            snprintf((char *)msg, sizeof msg, "error %d", err);
        problem(set, "explain_signatures %s: pattern does not compile at offset %zu: %s", s->id,
                (size_t)at, (const char *)msg);
        return true;
    }
    /* JIT where the platform has it; failing that (no JIT, no executable memory) the
     * interpreter runs the pattern, with the same results. A failed allocation of ours is a
     * failure, as everywhere. */
    set->pcre2_alloc_failed = false;
    if (pcre2_jit_compile(s->code, PCRE2_JIT_COMPLETE) == PCRE2_ERROR_NOMEMORY &&
        set->pcre2_alloc_failed) {
        free_sig(s);
        return false;
    }
    if (!collect_params(set, s, row)) {
        free_sig(s);
        return !set->out_of_memory;
    }
    uint32_t groups = 0;
    pcre2_pattern_info(s->code, PCRE2_INFO_CAPTURECOUNT, &groups);
    if (groups + 1 > set->max_groups)
        set->max_groups = groups + 1;
    s->source = gd_kb_row_source(row);
    s->source_url = gd_kb_source_url(t, s->source);
    for (size_t i = 0; i < nlits; i++) {
        const char *lit = gd_kb_list_at(row, "literals", i);
        if (!add_literal(set, lit_cap, lit, strlen(lit), (uint16_t)set->nsigs)) {
            free_sig(s);
            return false;
        }
    }
    set->nsigs++;
    return true;
}

static void load_causes(struct gd_sigset *set, const struct gd_kb_table *causes)
{
    for (unsigned c = 0; c < GD_CAUSE_COUNT; c++) {
        set->causes[c].title = cause_names[c];
        set->causes[c].meaning = NULL;
        set->causes[c].row = NULL;
    }
    size_t n = causes ? gd_kb_row_count(causes) : 0;
    for (size_t i = 0; i < n; i++) {
        const struct gd_kb_row *row = gd_kb_row_at(causes, i);
        const char *name = gd_kb_str(row, "cause");
        enum gd_cause_id id = gd_cause_lookup(name);
        if (id == GD_CAUSE_COUNT) {
            problem(set, "explain_causes rows[%zu]: %s is not one of the causes", i,
                    name ? name : "(no cause)");
            continue;
        }
        if (set->causes[id].row) {
            problem(set, "explain_causes: a second row for %s", name);
            continue;
        }
        set->causes[id].row = row;
        const char *title = gd_kb_str(row, "title");
        if (title && *title)
            set->causes[id].title = title;
        set->causes[id].meaning = gd_kb_str(row, "meaning");
    }
    for (unsigned c = 0; c < GD_CAUSE_COUNT; c++)
        if (causes && !set->causes[c].row)
            problem(set, "explain_causes: no row for %s", cause_names[c]);
}

enum gd_status gd_sigset_build(const struct gd_kb_table *sigs, const struct gd_kb_table *causes,
                               struct gd_sigset *set)
{
    memset(set, 0, sizeof *set);
    set->max_groups = 1;
    set->gctx = gd_pcre2_context_new(NULL);
    set->compile_gctx = gd_pcre2_context_new(&set->pcre2_alloc_failed);
    if (!set->gctx || !set->compile_gctx)
        goto nomem;
    set->mctx = pcre2_match_context_create(set->gctx);
    if (!set->mctx)
        goto nomem;
    /* A pattern that backtracks without end on some line (a --kb override, a careless
     * nested quantifier) fails that line with PCRE2_ERROR_MATCHLIMIT instead of stalling the
     * scan; ordinary patterns on an 8 KiB window stay far below these limits. */
    pcre2_set_match_limit(set->mctx, 200000);
    pcre2_set_depth_limit(set->mctx, 10000);
    pcre2_set_heap_limit(set->mctx, 4096); /* KiB */
    load_causes(set, causes);
    if (!sigs)
        problem(set, "no explain_signatures table");
    size_t rows = sigs ? gd_kb_row_count(sigs) : 0;
    if (rows > GD_SIG_MAX) {
        problem(set, "explain_signatures: %zu rows, only the first %d are used", rows, GD_SIG_MAX);
        rows = GD_SIG_MAX;
    }
    if (rows) {
        set->sigs = gd_calloc(rows, sizeof *set->sigs);
        if (!set->sigs)
            goto nomem;
    }
    size_t lit_cap = 0;
    for (size_t i = 0; i < rows; i++)
        if (!compile_row(set, sigs, gd_kb_row_at(sigs, i), i, &lit_cap))
            goto nomem;
    /* Wu-Manber: keys of the shortest literal's length; a block (3 bytes) found i bytes into a
     * key means that key may end m - 3 - i bytes further; a block in no key allows m - 2. */
    set->m = GD_SIG_KEY_MAX;
    for (size_t i = 0; i < set->nlits; i++)
        if (set->lits[i].len < set->m)
            set->m = set->lits[i].len;
    if (!set->nlits)
        set->m = 0;
    memset(set->shift, set->m ? (int)(set->m - 2) : 0, sizeof set->shift);
    for (size_t i = 0; i < set->nlits; i++) {
        struct gd_literal *l = &set->lits[i];
        l->key_off = best_key(l->text, l->len, set->m);
        const unsigned char *key = (const unsigned char *)l->text + l->key_off;
        l->hash = gd_sig_hash3(key + set->m - 3);
        uint32_t first = gd_sig_hash3(key);
        set->prefix[first >> 6] |= (uint64_t)1 << (first & 63);
        for (uint32_t k = 0; k + 3 <= set->m; k++) {
            uint32_t h = gd_sig_hash3(key + k);
            if (set->shift[h] > set->m - 3 - k)
                set->shift[h] = (uint8_t)(set->m - 3 - k);
        }
    }
    if (set->nlits)
        qsort(set->lits, set->nlits, sizeof *set->lits, lit_cmp);
    /* Compiled patterns keep a copy of the allocator, not of the context. */
    pcre2_general_context_free(set->compile_gctx);
    set->compile_gctx = NULL;
    if (set->out_of_memory)
        goto nomem;
    return GD_OK;
nomem:
    gd_sigset_free(set);
    return GD_ENOMEM;
}

void gd_sigset_free(struct gd_sigset *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->nsigs; i++)
        free_sig(&set->sigs[i]);
    gd_free(set->sigs);
    for (size_t i = 0; i < set->nlits; i++)
        gd_free(set->lits[i].sigs);
    gd_free(set->lits);
    for (size_t i = 0; i < set->nproblems; i++)
        gd_free(set->problems[i]);
    pcre2_match_context_free(set->mctx);
    pcre2_general_context_free(set->gctx);
    pcre2_general_context_free(set->compile_gctx);
    memset(set, 0, sizeof *set);
}

const struct gd_sig *gd_sigset_find(const struct gd_sigset *set, const char *id)
{
    for (size_t i = 0; id && i < set->nsigs; i++)
        if (strcmp(set->sigs[i].id, id) == 0)
            return &set->sigs[i];
    return NULL;
}
