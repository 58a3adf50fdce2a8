/*
 * NVIDIA's C ABI as gpudoctor calls it, declared by hand in this one place (no CUDA headers at
 * build time; every library is opened with dlopen in a child process). Spellings follow
 * NVIDIA's headers so a reader can match them against the documentation.
 */
#ifndef GD_VENDOR_ABI_H
#define GD_VENDOR_ABI_H

#include <stddef.h>

/* CUDA runtime: cudaError_t cudaRuntimeGetVersion(int *runtimeVersion); 1000*major+10*minor. */
typedef int cudaError_t;
typedef cudaError_t (*cudaRuntimeGetVersion_fn)(int *version);

/* cuDNN: size_t cudnnGetVersion(void); CUDNN_VERSION of the loaded library. */
typedef size_t (*cudnnGetVersion_fn)(void);

/* NCCL: ncclResult_t ncclGetVersion(int *version); NCCL_VERSION_CODE. */
typedef int ncclResult_t;
typedef ncclResult_t (*ncclGetVersion_fn)(int *version);

/* cuBLAS: cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value), with
 * libraryPropertyType MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2. */
typedef int cublasStatus_t;
typedef int libraryPropertyType;
enum { MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2 };
typedef cublasStatus_t (*cublasGetProperty_fn)(libraryPropertyType type, int *value);

#endif
