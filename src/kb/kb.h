/*
 * The knowledge base: versioned JSON tables in data/kb/, embedded into the binary at build time
 * and overridable table by table with --kb DIR. Every row names its public source. The format
 * is documented in docs/kb.md.
 *
 * Tables are parsed once, when the KB is opened; a table that fails to parse or lacks sources is
 * kept out and its problem listed (gd_kb_problem_at), so a bad override never crashes a check.
 */
#ifndef GD_KB_KB_H
#define GD_KB_KB_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

struct gd_kb;
struct gd_kb_table;
struct gd_kb_row;

/* The embedded tables, each replaced by `<override_dir>/<table>.json` when that file exists
 * (NULL: embedded only). On GD_OK `*out` is new. GD_ENOENT or GD_ENOTDIR when override_dir is
 * not a directory. Problems with individual tables do not fail the open. */
enum gd_status gd_kb_open(const char *override_dir, struct gd_kb **out);
void gd_kb_free(struct gd_kb *kb);

/* Problems met while loading: "env_values: rows[3] has no source" ... (borrowed). */
size_t gd_kb_problem_count(const struct gd_kb *kb);
const char *gd_kb_problem_at(const struct gd_kb *kb, size_t i);

size_t gd_kb_table_count(const struct gd_kb *kb);
const struct gd_kb_table *gd_kb_table_at(const struct gd_kb *kb, size_t i);
/* The table of that name, or NULL. */
const struct gd_kb_table *gd_kb_table(const struct gd_kb *kb, const char *name);
const char *gd_kb_table_name(const struct gd_kb_table *t);
/* "embedded" or the override file's path. */
const char *gd_kb_table_origin(const struct gd_kb_table *t);

size_t gd_kb_row_count(const struct gd_kb_table *t);
const struct gd_kb_row *gd_kb_row_at(const struct gd_kb_table *t, size_t i);

/* A string field of a row (numbers are returned in their JSON text), or NULL. */
const char *gd_kb_str(const struct gd_kb_row *row, const char *field);
/* The number of items of an array field (0 when absent or not an array). */
size_t gd_kb_list_len(const struct gd_kb_row *row, const char *field);
/* Item `i` of an array field, as a string, or NULL. */
const char *gd_kb_list_at(const struct gd_kb_row *row, const char *field, size_t i);
/* True when the array field holds `value` (exact match). */
bool gd_kb_list_has(const struct gd_kb_row *row, const char *field, const char *value);

/* The table that holds `row` (rows do not point back; the KB's tables are searched), or NULL. */
const struct gd_kb_table *gd_kb_row_table(const struct gd_kb *kb, const struct gd_kb_row *row);

/* The row's source id and that source's URL and title (borrowed; URL NULL when missing). */
const char *gd_kb_row_source(const struct gd_kb_row *row);
const char *gd_kb_source_url(const struct gd_kb_table *t, const char *source_id);
const char *gd_kb_source_title(const struct gd_kb_table *t, const char *source_id);
/* The source's "retrieved" date (YYYY-MM-DD), or NULL (borrowed). */
const char *gd_kb_source_retrieved(const struct gd_kb_table *t, const char *source_id);
/* The table's source ids in file order, for checks that every source is used (borrowed;
 * gd_kb_source_id_at is linear in i, NULL past the end). */
size_t gd_kb_source_count(const struct gd_kb_table *t);
const char *gd_kb_source_id_at(const struct gd_kb_table *t, size_t i);

/* Parse one table from JSON text (for the loader, tests and the fuzz target). On GD_OK `*out`
 * is new (gd_kb_table_free); on GD_EFORMAT `problem` (size `size`) says what is wrong. */
enum gd_status gd_kb_table_parse(const char *name, const char *data, size_t len,
                                 struct gd_kb_table **out, char *problem, size_t size);
void gd_kb_table_free(struct gd_kb_table *t);

#endif
