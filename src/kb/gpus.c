#include "kb/gpus.h"

#include "core/str.h"
#include "kb/kb.h"

#include <string.h>

/* A memory size ("80gb", "16gb"), memory kind or form factor: what the driver and nvidia-smi add
 * to a product name ("NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe") and
 * NVIDIA's compute-capability pages leave out. Nothing that tells products apart ("ti", "super",
 * "sff", "max-q", "ada") is in this list. */
static bool is_suffix_token(const char *t, size_t n)
{
    if (n > 2 && t[n - 2] == 'g' && t[n - 1] == 'b') {
        for (size_t i = 0; i < n - 2; i++)
            if (!gd_is_digit(t[i]))
                return false;
        return true;
    }
    static const char *const words[] = { "hbm2", "hbm2e", "hbm3", "hbm3e", "pcie", "sxm",
                                         "sxm2", "sxm3",  "sxm4", "sxm5",  "nvl" };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == n && memcmp(words[i], t, n) == 0)
            return true;
    return false;
}

static bool is_sep(char c)
{
    return c == ' ' || c == '-';
}

static size_t trim_seps(const char *s, size_t n)
{
    while (n > 0 && is_sep(s[n - 1]))
        n--;
    return n;
}

static void drop_prefix(char *buf, const char *prefix)
{
    size_t n = strlen(prefix), len = strlen(buf);
    /* Only a prefix followed by something: "nvidia" alone stays a (useless) key. */
    if (len > n && memcmp(buf, prefix, n) == 0)
        memmove(buf, buf + n, len - n + 1);
}

static void drop_suffixes(char *buf)
{
    size_t n = strlen(buf);
    /* One final remark in parentheses: "nvidia gb10 (dgx spark)", "titan x (pascal)". */
    if (n > 0 && buf[n - 1] == ')') {
        const char *open = strrchr(buf, '(');
        if (open && open > buf && is_sep(open[-1]))
            n = trim_seps(buf, (size_t)(open - buf));
    }
    for (;;) {
        size_t sep = n;
        while (sep > 0 && !is_sep(buf[sep - 1]))
            sep--;
        /* The first word always stays: a model named "PCIe" keys as itself. */
        if (sep == 0 || !is_suffix_token(buf + sep, n - sep))
            break;
        size_t rest = trim_seps(buf, sep);
        if (rest == 0)
            break;
        n = rest;
    }
    buf[n] = '\0';
}

bool gd_gpu_model_key(const char *model, bool drop_sfx, char *buf, size_t size)
{
    if (size)
        buf[0] = '\0';
    if (!model || !size)
        return false;
    size_t o = 0;
    bool space = false;
    for (const char *p = model; *p; p++) {
        if (gd_is_space(*p)) {
            space = o > 0;
            continue;
        }
        /* One byte for the separator, one for this character, one for the NUL. */
        if (o + (space ? 2 : 1) >= size) {
            buf[0] = '\0';
            return false;
        }
        if (space)
            buf[o++] = ' ';
        space = false;
        buf[o++] = gd_to_lower(*p);
    }
    buf[o] = '\0';
    /* The driver writes "NVIDIA " before most names and kept "Tesla " for data-center parts
     * ("Tesla T4", "Tesla V100-SXM2-16GB") after NVIDIA's pages dropped it ("NVIDIA T4"). */
    drop_prefix(buf, "nvidia ");
    drop_prefix(buf, "tesla ");
    if (drop_sfx)
        drop_suffixes(buf);
    return true;
}

/* Whether `candidate` (a row's name or alias) matches the model at `stage`; `key` is the
 * model's key for that stage (the trimmed model itself at the exact stage). */
static bool candidate_matches(const char *candidate, enum gd_gpu_match stage, const char *key)
{
    if (!candidate)
        return false;
    char ck[GD_GPU_MODEL_MAX];
    if (stage == GD_GPU_MATCH_EXACT) {
        struct gd_span c = gd_span_trim(gd_span_of(candidate));
        if (c.n >= sizeof ck)
            return false;
        gd_span_copy(c, ck, sizeof ck);
        return gd_str_ieq(ck, key);
    }
    return gd_gpu_model_key(candidate, stage == GD_GPU_MATCH_SUFFIX, ck, sizeof ck) &&
           strcmp(ck, key) == 0;
}

static bool row_matches(const struct gd_kb_row *row, enum gd_gpu_match stage, const char *key)
{
    if (candidate_matches(gd_kb_str(row, "name"), stage, key))
        return true;
    for (size_t i = 0; i < gd_kb_list_len(row, "aliases"); i++)
        if (candidate_matches(gd_kb_list_at(row, "aliases", i), stage, key))
            return true;
    return false;
}

static const char *cc_of(const struct gd_kb_row *row)
{
    const char *cc = gd_kb_str(row, "cc");
    return cc ? cc : "";
}

const struct gd_kb_row *gd_kb_gpu_find(const struct gd_kb_table *t, const char *model,
                                       enum gd_gpu_match *how)
{
    if (how)
        *how = GD_GPU_MATCH_NONE;
    if (!t || !model)
        return NULL;
    static const enum gd_gpu_match stages[] = { GD_GPU_MATCH_EXACT, GD_GPU_MATCH_PREFIX,
                                                GD_GPU_MATCH_SUFFIX };
    for (size_t s = 0; s < sizeof stages / sizeof *stages; s++) {
        char key[GD_GPU_MODEL_MAX];
        if (stages[s] == GD_GPU_MATCH_EXACT) {
            struct gd_span m = gd_span_trim(gd_span_of(model));
            if (m.n >= sizeof key)
                return NULL;
            gd_span_copy(m, key, sizeof key);
        } else if (!gd_gpu_model_key(model, stages[s] == GD_GPU_MATCH_SUFFIX, key, sizeof key)) {
            return NULL;
        }
        if (!key[0])
            return NULL;
        const struct gd_kb_row *found = NULL;
        for (size_t i = 0; i < gd_kb_row_count(t); i++) {
            const struct gd_kb_row *row = gd_kb_row_at(t, i);
            if (!row_matches(row, stages[s], key))
                continue;
            if (!found) {
                found = row;
            } else if (strcmp(cc_of(found), cc_of(row)) != 0) {
                if (how)
                    *how = GD_GPU_MATCH_AMBIGUOUS;
                return NULL;
            }
        }
        if (found) {
            if (how)
                *how = stages[s];
            return found;
        }
    }
    return NULL;
}
