/*
 * PE images (.exe, .dll, .pyd): gd_pe_read_memory on the bytes.
 *
 * Invariants: a failure is a documented status and leaves no result. On success the machine is
 * whatever the file says, every import and delay-load name is non-empty, terminated within
 * GD_PE_MAX_NAME bytes and a piece of the input (a name is read from the file, never made up),
 * and there are at most GD_PE_MAX_IMPORTS of each; a table that could not be read has a status
 * that says why.
 */
#include "fuzz.h"

#include "pe/pe.h"

static int is_piece(const uint8_t *data, size_t size, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0 && (i + n == size || data[i + n] == 0))
            return 1;
    return 0;
}

static void check_list(const uint8_t *data, size_t size, char **list, size_t n)
{
    FUZZ_CHECK(n <= GD_PE_MAX_IMPORTS);
    FUZZ_CHECK(n == 0 || list != NULL);
    for (size_t i = 0; i < n; i++) {
        size_t len = fuzz_strnlen(list[i], GD_PE_MAX_NAME + 1);
        FUZZ_CHECK(len > 0 && len <= GD_PE_MAX_NAME);
        /* Bounded: a quadratic search over a large input would only slow the fuzzer. */
        if (i < 8 && size < (1u << 16))
            FUZZ_CHECK(is_piece(data, size, list[i]));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gd_pe *pe = (struct gd_pe *)1;
    enum gd_status st = gd_pe_read_memory(data, size, &pe);
    if (st != GD_OK) {
        FUZZ_CHECK(pe == NULL);
        FUZZ_CHECK(st == GD_EFORMAT || st == GD_ETRUNCATED || st == GD_ELIMIT || st == GD_ENOMEM);
        return 0;
    }
    FUZZ_CHECK(pe != NULL);
    FUZZ_CHECK(size >= 64);
    check_list(data, size, pe->imports, pe->n_imports);
    check_list(data, size, pe->delay_imports, pe->n_delay_imports);
    gd_pe_free(pe);
    return 0;
}
