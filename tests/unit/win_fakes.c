/*
 * Fake CUDA libraries for the Windows build's version calls (test_children.c): one DLL per way a
 * vendor call can go wrong, built by tests/windows.cmake with FAKE_<NAME> defined (wine has no
 * compiler to build them at test time, as the POSIX build does). cudaRuntimeGetVersion and
 * friends as NVIDIA declares them; cudnnGetVersion returns size_t, 64 bits on Windows too.
 */
#include <stddef.h>
#include <stdlib.h>
#include <windows.h>

#define API __declspec(dllexport)

/* Each variant defines one or two of these. */
API int cudaRuntimeGetVersion(int *v);
API size_t cudnnGetVersion(void);
API int somethingElse(void);
API int ncclGetVersion(int *v);
API int cublasGetProperty(int t, int *v);
#if defined(FAKE_GONE)
API int gone(void);
#endif

#if defined(FAKE_CUDART)
API int cudaRuntimeGetVersion(int *v)
{
    *v = 12040;
    return 0;
}
#elif defined(FAKE_CUDART_ERR)
API int cudaRuntimeGetVersion(int *v)
{
    *v = 0;
    return 35;
}
#elif defined(FAKE_CUDNN)
API size_t cudnnGetVersion(void)
{
    return 90100;
}
#elif defined(FAKE_CUDNN_CRASH)
API size_t cudnnGetVersion(void)
{
    static int *volatile nowhere; /* NULL, unknown to the compiler */
    *nowhere = 1;
    return 1;
}
#elif defined(FAKE_CUDNN_HANG)
API size_t cudnnGetVersion(void)
{
    for (;;)
        Sleep(1000);
}
#elif defined(FAKE_CUDNN_NOSYM)
API int somethingElse(void)
{
    return 0;
}
#elif defined(FAKE_CUDNN_EXIT)
API size_t cudnnGetVersion(void)
{
    exit(3);
}
#elif defined(FAKE_CUDNN_ABORT)
API size_t cudnnGetVersion(void)
{
    abort();
}
#elif defined(FAKE_NCCL)
API int ncclGetVersion(int *v)
{
    *v = 22005;
    return 0;
}
#elif defined(FAKE_CUBLAS)
API int cublasGetProperty(int t, int *v)
{
    *v = t == 0 ? 12 : t == 1 ? 4 : 5;
    return 0;
}
#elif defined(FAKE_CUDNN_JUNK)
API size_t cudnnGetVersion(void)
{
    return 0;
}
#elif defined(FAKE_GONE)
API int gone(void)
{
    return 0;
}
#elif defined(FAKE_CUDART_DEP)
/* Needs gone.dll, which lives in another directory than this one: not found when loaded. */
__declspec(dllimport) int gone(void);
API int cudaRuntimeGetVersion(int *v)
{
    *v = gone();
    return 0;
}
#else
#error "FAKE_<NAME> names the fake to build"
#endif
