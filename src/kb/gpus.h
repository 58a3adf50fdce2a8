/*
 * GPU model -> compute capability: lookups in the `gpus` knowledge-base table
 * (data/kb/gpus.json, docs/kb.md).
 *
 * The driver does not write the model the way NVIDIA's compute-capability pages do: the kernel
 * module's /proc information file and nvidia-smi say "NVIDIA A100-SXM4-80GB", "Tesla T4" or
 * "NVIDIA H100 80GB HBM3" where the pages list "NVIDIA A100", "NVIDIA T4" and "NVIDIA H100".
 * A lookup therefore tries, in order, and stops at the first stage that matches any row:
 *
 *   1. exact   the row's name or one of its aliases, ignoring case and surrounding white space;
 *   2. prefix  both sides keyed by gd_gpu_model_key without suffixes: lower case, white space
 *              runs as one space, a leading "nvidia " and then "tesla " dropped;
 *   3. suffix  both sides keyed with suffixes dropped too: from the end, memory sizes ("80gb"),
 *              memory kinds ("hbm2", "hbm2e", "hbm3", "hbm3e") and form factors ("pcie", "sxm",
 *              "sxm2" ... "sxm5", "nvl"), separated by spaces or '-', and one final
 *              parenthesised remark ("(dgx spark)"); the first word always stays.
 *
 * Within a stage, rows that match but disagree on "cc" make the lookup ambiguous: no row is
 * returned, because a wrong compute capability is worse than none.
 */
#ifndef GD_KB_GPUS_H
#define GD_KB_GPUS_H

#include <stdbool.h>
#include <stddef.h>

struct gd_kb_table;
struct gd_kb_row;

enum gd_gpu_match {
    GD_GPU_MATCH_NONE,      /* no row */
    GD_GPU_MATCH_EXACT,     /* stage 1 */
    GD_GPU_MATCH_PREFIX,    /* stage 2 */
    GD_GPU_MATCH_SUFFIX,    /* stage 3 */
    GD_GPU_MATCH_AMBIGUOUS, /* rows of different compute capability matched in one stage */
};

/* Longest model name keyed; longer names match nothing. */
#define GD_GPU_MODEL_MAX 256

/* The key of `model` (see above) into `buf` of `size` bytes; `drop_suffixes` selects stage 3.
 * False, with `buf` empty when size > 0, when the key does not fit or `model` is NULL. */
bool gd_gpu_model_key(const char *model, bool drop_suffixes, char *buf, size_t size);

/* The row of `t` (the `gpus` table, borrowed) for `model`; NULL when none or ambiguous. `how`
 * (may be NULL) says which stage matched. The row is borrowed from `t`. */
const struct gd_kb_row *gd_kb_gpu_find(const struct gd_kb_table *t, const char *model,
                                       enum gd_gpu_match *how);

#endif
