/*
 * Replays fuzz inputs without libFuzzer: `fuzz_<target>_replay PATH...` feeds every file named,
 * and every file of every directory named (in name order), to the target's
 * LLVMFuzzerTestOneInput. Built with the normal compiler, it turns each checked-in corpus into a
 * CTest case (fuzz.replay.<target>), under AddressSanitizer too in the GD_SANITIZE build; it also
 * reproduces a crash a fuzzer found: `fuzz_kv_replay build-fuzz/fuzz-work/kv/crash-...`.
 *
 * Each input is handed over in a heap buffer of exactly its size, as libFuzzer does, so that a
 * parser reading past the end is caught by the sanitizer build. Files are read through src/os,
 * like the rest of gpudoctor, so this runs wherever the library does.
 *
 * Exit status: 0 when every input ran; 1 when a path cannot be read or a directory is empty
 * (a corpus that went missing must not pass silently). A broken invariant aborts.
 */
#include "fuzz.h"

#include "core/alloc.h"
#include "os/os.h"

#include <gpudoctor/gpudoctor.h>

/* Corpus files are small; libFuzzer's own default cap on an input is 4096 bytes. */
#define INPUT_MAX (16u * 1024 * 1024)

static enum gd_status read_input(const char *path, uint8_t **data, size_t *size)
{
    struct gd_os_file *f = NULL;
    uint8_t *buf = NULL;
    size_t n = 0, have = 0, got = 0;
    struct gd_os_stat st;
    enum gd_status s = gd_os_open_read(path, false, &f);
    if (s != GD_OK)
        goto out;
    if ((s = gd_os_file_stat(f, &st)) != GD_OK)
        goto out;
    if (st.size > INPUT_MAX) {
        s = GD_ELIMIT;
        goto out;
    }
    n = (size_t)st.size;
    /* malloc(0) is a zero-byte block to AddressSanitizer: any read from it is reported. */
    buf = malloc(n);
    if (!buf && n) {
        s = GD_ENOMEM;
        goto out;
    }
    while (have < n && (s = gd_os_pread(f, buf + have, n - have, have, &got)) == GD_OK && got)
        have += got;
    if (s == GD_OK && have != n)
        s = GD_ETRUNCATED;
out:
    if (f)
        gd_os_close(f);
    if (s != GD_OK) {
        free(buf);
        buf = NULL;
    }
    *data = buf;
    *size = s == GD_OK ? n : 0;
    return s;
}

static int run_file(const char *path)
{
    uint8_t *data;
    size_t size;
    enum gd_status s = read_input(path, &data, &size);
    if (s != GD_OK) {
        fprintf(stderr, "%s: %s\n", path, gd_status_str(s));
        return 1;
    }
    printf("%s (%zu bytes)\n", path, size);
    fflush(stdout);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of the directory in name order (the order readdir gives is arbitrary). Returns
 * the number of failures; `*count` gets the number of inputs run. */
static int run_dir(struct gd_os_dir *d, const char *dir, size_t *count)
{
    char **names = NULL;
    size_t n = 0, cap = 0;
    int bad = 0;
    const char *name;
    while (gd_os_readdir(d, &name) == GD_OK) {
        char *path = malloc(strlen(dir) + strlen(name) + 2);
        if (!path || gd_grow((void **)&names, &cap, n + 1, sizeof *names) != 0) {
            free(path);
            bad++;
            break;
        }
        sprintf(path, "%s/%s", dir, name);
        names[n++] = path;
    }
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        bad += run_file(names[i]);
        free(names[i]);
    }
    gd_free(names);
    *count = n;
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR|FILE...\n", argv[0]);
        return 2;
    }
    int bad = 0;
    size_t total = 0;
    for (int i = 1; i < argc; i++) {
        struct gd_os_dir *d = NULL;
        if (gd_os_opendir(argv[i], &d) == GD_OK) {
            size_t count = 0;
            bad += run_dir(d, argv[i], &count);
            gd_os_closedir(d);
            if (count == 0) {
                fprintf(stderr, "%s: no inputs\n", argv[i]);
                bad++;
            }
            total += count;
        } else {
            bad += run_file(argv[i]);
            total++;
        }
    }
    printf("replayed %zu inputs, %d failed to read\n", total, bad);
    return bad ? 1 : 0;
}
