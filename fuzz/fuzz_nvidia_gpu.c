/*
 * /proc/driver/nvidia/gpus/<bus>/information: gd_parse_nvidia_gpu_info and gd_nvidia_bus_id_valid
 * on the bytes; then, as the GPU probe does with the model it read, gd_gpu_model_key into
 * exact-size buffers and gd_kb_gpu_find over the embedded `gpus` table. Invariants: every string
 * is a trimmed, non-empty piece of one line of the input below GD_NVIDIA_GPU_VALUE_MAX; a bus
 * location is a valid PCI address; the minor is -1 or 0..999999999; an empty result on failure;
 * a key is terminated inside its buffer, lower case, single-spaced and trimmed, and the key
 * without suffixes starts with the key with them; a row found by name has that name or alias.
 */
#include "fuzz.h"

#include "core/str.h"
#include "kb/gpus.h"
#include "kb/kb.h"
#include "parse/nvidia_gpu.h"

static bool contains(const uint8_t *data, size_t size, const char *s, size_t n)
{
    for (size_t i = 0; n <= size && i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0)
            return true;
    return false;
}

static void check_value(const uint8_t *data, size_t size, const char *v)
{
    if (!v)
        return;
    size_t n = fuzz_strnlen(v, GD_NVIDIA_GPU_VALUE_MAX);
    FUZZ_CHECK(n > 0 && n < GD_NVIDIA_GPU_VALUE_MAX);
    FUZZ_CHECK(!gd_is_space(v[0]) && !gd_is_space(v[n - 1]));
    FUZZ_CHECK(!memchr(v, '\n', n));
    FUZZ_CHECK(contains(data, size, v, n));
}

static void check_key(const char *model, bool suffixes, size_t size)
{
    char *buf = malloc(size);
    if (!buf)
        return;
    bool ok = gd_gpu_model_key(model, suffixes, buf, size);
    size_t n = fuzz_strnlen(buf, size);
    FUZZ_CHECK(n < size);
    if (!ok)
        FUZZ_CHECK(n == 0);
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(!(buf[i] >= 'A' && buf[i] <= 'Z'));
        FUZZ_CHECK(!gd_is_space(buf[i]) ||
                   (buf[i] == ' ' && i > 0 && i + 1 < n && buf[i + 1] != ' '));
    }
    free(buf);
}

static const struct gd_kb_table *gpus_table(void)
{
    /* Opened once and kept for the whole run (still reachable at exit, not a leak). */
    static struct gd_kb *kb;
    static bool tried;
    if (!tried) {
        tried = true;
        if (gd_kb_open(NULL, &kb) != GD_OK)
            kb = NULL;
    }
    return kb ? gd_kb_table(kb, "gpus") : NULL;
}

static bool named(const struct gd_kb_row *row, const char *model)
{
    struct gd_span m = gd_span_trim(gd_span_of(model));
    char trimmed[GD_GPU_MODEL_MAX];
    if (m.n >= sizeof trimmed)
        return false;
    gd_span_copy(m, trimmed, sizeof trimmed);
    if (gd_str_ieq(trimmed, gd_kb_str(row, "name")))
        return true;
    for (size_t i = 0; i < gd_kb_list_len(row, "aliases"); i++)
        if (gd_str_ieq(trimmed, gd_kb_list_at(row, "aliases", i)))
            return true;
    return false;
}

static void check_lookup(const char *model)
{
    static const size_t sizes[] = { 1, 2, 8, 33, GD_GPU_MODEL_MAX };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        check_key(model, false, sizes[i]);
        check_key(model, true, sizes[i]);
    }
    char full[GD_GPU_MODEL_MAX], cut[GD_GPU_MODEL_MAX];
    bool a = gd_gpu_model_key(model, false, full, sizeof full);
    bool b = gd_gpu_model_key(model, true, cut, sizeof cut);
    FUZZ_CHECK(a == b);
    if (a)
        FUZZ_CHECK(strncmp(full, cut, strlen(cut)) == 0);

    const struct gd_kb_table *t = gpus_table();
    enum gd_gpu_match how = (enum gd_gpu_match) - 1;
    const struct gd_kb_row *row = gd_kb_gpu_find(t, model, &how);
    if (!t)
        return;
    if (!row) {
        FUZZ_CHECK(how == GD_GPU_MATCH_NONE || how == GD_GPU_MATCH_AMBIGUOUS);
        return;
    }
    FUZZ_CHECK(how == GD_GPU_MATCH_EXACT || how == GD_GPU_MATCH_PREFIX ||
               how == GD_GPU_MATCH_SUFFIX);
    FUZZ_CHECK(gd_kb_str(row, "cc") != NULL);
    FUZZ_CHECK((how == GD_GPU_MATCH_EXACT) == named(row, model));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    (void)gd_nvidia_bus_id_valid(text, size);
    if (gd_nvidia_bus_id_valid(text, size))
        FUZZ_CHECK(size >= 12 && size <= 16);

    struct gd_nvidia_gpu_info info;
    enum gd_status st = gd_parse_nvidia_gpu_info(text, size, &info);
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT || st == GD_ENOMEM);
    if (st == GD_OK) {
        check_value(data, size, info.model);
        check_value(data, size, info.uuid);
        check_value(data, size, info.bus_location);
        if (info.bus_location)
            FUZZ_CHECK(gd_nvidia_bus_id_valid(info.bus_location, strlen(info.bus_location)));
        FUZZ_CHECK(info.minor >= -1 && info.minor <= 999999999);
        FUZZ_CHECK(info.excluded >= -1 && info.excluded <= 1);
        if (info.model)
            check_lookup(info.model);
        gd_nvidia_gpu_info_free(&info);
    } else {
        FUZZ_CHECK(!info.model && !info.uuid && !info.bus_location);
        FUZZ_CHECK(info.minor == -1 && info.excluded == -1);
    }
    /* The whole input as a model name too, when it is a C string. */
    char *model = fuzz_cstr(data, size);
    if (model)
        check_lookup(model);
    free(model);
    return 0;
}
