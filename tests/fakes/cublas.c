/*
 * A fake libcublas.so.13: cublasCreate_v2, cublasDestroy_v2 and cublasSgemm_v2 (column-major,
 * no transposes, computed on the CPU over the fake driver's "device" memory, which is host
 * memory), cublasGetStatusName and cublasGetProperty. FAKE_WRONG=sgemm changes one element.
 */
#define _GNU_SOURCE
#include "fake.h"

struct cublasContext {
    int magic;
};

static const char *const names[] = { "CUBLAS_STATUS_SUCCESS", "CUBLAS_STATUS_NOT_INITIALIZED" };

const char *cublasGetStatusName(int st)
{
    if (st >= 0 && st < 2)
        return names[st];
    return st == 13 ? "CUBLAS_STATUS_EXECUTION_FAILED" : "CUBLAS_STATUS_INTERNAL_ERROR";
}

int cublasGetProperty(int type, int *value)
{
    *value = type == 0 ? 13 : type == 1 ? 1 : 0;
    return 0;
}

int cublasCreate_v2(struct cublasContext **h)
{
    fake_enter("cublasCreate_v2");
    int st = fake_fail("cublasCreate_v2");
    if (st)
        return st;
    *h = calloc(1, sizeof **h);
    return *h ? 0 : 3;
}

int cublasDestroy_v2(struct cublasContext *h)
{
    free(h);
    return 0;
}

int cublasSgemm_v2(struct cublasContext *h, int ta, int tb, int m, int n, int k, const float *alpha,
                   const float *a, int lda, const float *b, int ldb, const float *beta, float *c,
                   int ldc)
{
    fake_enter("cublasSgemm_v2");
    if (!h || ta != 0 || tb != 0)
        return 7;
    int st = fake_fail("cublasSgemm_v2");
    if (st)
        return st;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int p = 0; p < k; p++)
                s += a[i + p * lda] * b[p + j * ldb];
            c[i + j * ldc] = *alpha * s + (*beta != 0 ? *beta * c[i + j * ldc] : 0);
        }
    if (fake_wrong("sgemm"))
        c[5] += 1;
    return 0;
}
