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

/* ---- CUDA driver API (libcuda.so.1), from cuda.h of CUDA 13.0 --------------------------------
 * The _v2 names are the ones cuda.h maps the plain names to (#define cuMemAlloc cuMemAlloc_v2):
 * libcuda also exports the plain names with their 32-bit-size ABI of CUDA 3.1 and earlier. */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr; /* CUdeviceptr_v2: an address of the device's space */
typedef struct {
    char bytes[16];
} CUuuid;
typedef int CUdevice_attribute;
typedef int CUjit_option;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
};
enum {
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};
enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

typedef CUresult (*cuInit_fn)(unsigned int flags);
typedef CUresult (*cuGetErrorName_fn)(CUresult error, const char **name);
typedef CUresult (*cuDriverGetVersion_fn)(int *version); /* 1000*major + 10*minor */
typedef CUresult (*cuDeviceGetCount_fn)(int *count);
typedef CUresult (*cuDeviceGet_fn)(CUdevice *device, int ordinal);
typedef CUresult (*cuDeviceGetName_fn)(char *name, int len, CUdevice dev);
/* cuDeviceGetUuid_v2 (CUDA 11.4) names a MIG device by its own UUID; cuDeviceGetUuid by its
 * GPU's. */
typedef CUresult (*cuDeviceGetUuid_fn)(CUuuid *uuid, CUdevice dev);
typedef CUresult (*cuDeviceGetPCIBusId_fn)(char *bus_id, int len, CUdevice dev);
typedef CUresult (*cuDeviceGetAttribute_fn)(int *value, CUdevice_attribute attrib, CUdevice dev);
typedef CUresult (*cuDeviceTotalMem_v2_fn)(size_t *bytes, CUdevice dev);
typedef CUresult (*cuDevicePrimaryCtxRetain_fn)(CUcontext *ctx, CUdevice dev);
typedef CUresult (*cuDevicePrimaryCtxRelease_v2_fn)(CUdevice dev);
typedef CUresult (*cuCtxSetCurrent_fn)(CUcontext ctx);
typedef CUresult (*cuCtxSynchronize_fn)(void);
typedef CUresult (*cuMemGetInfo_v2_fn)(size_t *free_bytes, size_t *total_bytes);
typedef CUresult (*cuMemAlloc_v2_fn)(CUdeviceptr *ptr, size_t bytes);
typedef CUresult (*cuMemFree_v2_fn)(CUdeviceptr ptr);
typedef CUresult (*cuMemcpyHtoD_v2_fn)(CUdeviceptr dst, const void *src, size_t bytes);
typedef CUresult (*cuMemcpyDtoH_v2_fn)(void *dst, CUdeviceptr src, size_t bytes);
typedef CUresult (*cuModuleLoadDataEx_fn)(CUmodule *module, const void *image,
                                          unsigned int num_options, CUjit_option *options,
                                          void **option_values);
typedef CUresult (*cuModuleGetFunction_fn)(CUfunction *f, CUmodule module, const char *name);
typedef CUresult (*cuModuleUnload_fn)(CUmodule module);
typedef CUresult (*cuLaunchKernel_fn)(CUfunction f, unsigned int grid_x, unsigned int grid_y,
                                      unsigned int grid_z, unsigned int block_x,
                                      unsigned int block_y, unsigned int block_z,
                                      unsigned int shared_bytes, CUstream stream, void **params,
                                      void **extra);
typedef CUresult (*cuStreamCreate_fn)(CUstream *stream, unsigned int flags);
typedef CUresult (*cuStreamSynchronize_fn)(CUstream stream);
typedef CUresult (*cuStreamDestroy_v2_fn)(CUstream stream);

/* ---- CUDA runtime (libcudart.so.N), from cuda_runtime_api.h and driver_types.h -------------- */
enum {
    cudaSuccess = 0,
    cudaErrorStubLibrary = 34,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
};
typedef cudaError_t (*cudaGetDeviceCount_fn)(int *count);
typedef cudaError_t (*cudaDriverGetVersion_fn)(int *version); /* 0 when no driver is installed */
typedef const char *(*cudaGetErrorName_fn)(cudaError_t error);

/* ---- NVML (libnvidia-ml.so.1), from nvml.h (NVML API version 12) and NVIDIA's nvidia-ml-py -- */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
};
/* NVML_VALUE_NOT_AVAILABLE (-1) in an unsigned long long field: not known (under WDDM, or for a
 * process in another container). */
#define GD_NVML_VALUE_NOT_AVAILABLE 0xffffffffffffffffULL

typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32]; /* "%08X:%02X:%02X.0" */
} nvmlPciInfo_t;
typedef struct {
    unsigned long long total, free, used; /* bytes; used counts what the driver reserves */
} nvmlMemory_t;
typedef struct {
    unsigned int gpu, memory; /* percent of the last sample period */
} nvmlUtilization_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId; /* 0xFFFFFFFF without MIG */
} nvmlProcessInfo_v2_t; /* _v2 and _v3 of nvmlDeviceGetComputeRunningProcesses */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t; /* the unversioned nvmlDeviceGetComputeRunningProcesses */

enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
enum {
    NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
    NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
};
enum {
    NVML_COMPUTEMODE_DEFAULT = 0,
    NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
    NVML_COMPUTEMODE_PROHIBITED = 2,
    NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
};
/* nvmlClocksEventReason* (nvmlClocksThrottleReason* before NVML 13): bits of
 * nvmlDeviceGetCurrentClocksEventReasons. */
#define GD_NVML_REASON_GPU_IDLE       0x1ULL
#define GD_NVML_REASON_APP_CLOCKS     0x2ULL
#define GD_NVML_REASON_SW_POWER_CAP   0x4ULL
#define GD_NVML_REASON_HW_SLOWDOWN    0x8ULL
#define GD_NVML_REASON_SYNC_BOOST     0x10ULL
#define GD_NVML_REASON_SW_THERMAL     0x20ULL
#define GD_NVML_REASON_HW_THERMAL     0x40ULL
#define GD_NVML_REASON_HW_POWER_BRAKE 0x80ULL
#define GD_NVML_REASON_DISPLAY_CLOCKS 0x100ULL

typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef const char *(*nvmlErrorString_fn)(nvmlReturn_t result);
typedef nvmlReturn_t (*nvmlSystemGetDriverVersion_fn)(char *version, unsigned int length);
typedef nvmlReturn_t (*nvmlSystemGetCudaDriverVersion_fn)(int *version);
typedef nvmlReturn_t (*nvmlSystemGetProcessName_fn)(unsigned int pid, char *name,
                                                    unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned int *count);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned int index, nvmlDevice_t *dev);
typedef nvmlReturn_t (*nvmlDeviceGetName_fn)(nvmlDevice_t dev, char *name, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetUUID_fn)(nvmlDevice_t dev, char *uuid, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetPciInfo_v3_fn)(nvmlDevice_t dev, nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t dev, nvmlMemory_t *memory);
typedef nvmlReturn_t (*nvmlDeviceGetUtilizationRates_fn)(nvmlDevice_t dev, nvmlUtilization_t *util);
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_fn)(nvmlDevice_t dev, int sensor,
                                                    unsigned int *celsius);
typedef nvmlReturn_t (*nvmlDeviceGetUint_fn)(nvmlDevice_t dev, unsigned int *value);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_fn)(nvmlDevice_t dev, int type, unsigned int *mhz);
typedef nvmlReturn_t (*nvmlDeviceGetReasons_fn)(nvmlDevice_t dev, unsigned long long *reasons);
typedef nvmlReturn_t (*nvmlDeviceGetEccMode_fn)(nvmlDevice_t dev, int *current, int *pending);
typedef nvmlReturn_t (*nvmlDeviceGetTotalEccErrors_fn)(nvmlDevice_t dev, int error_type,
                                                       int counter_type, unsigned long long *count);
typedef nvmlReturn_t (*nvmlDeviceGetRetiredPages_fn)(nvmlDevice_t dev, int cause,
                                                     unsigned int *count,
                                                     unsigned long long *addresses);
typedef nvmlReturn_t (*nvmlDeviceGetEnableState_fn)(nvmlDevice_t dev, int *state);
typedef nvmlReturn_t (*nvmlDeviceGetRemappedRows_fn)(nvmlDevice_t dev, unsigned int *corrected,
                                                     unsigned int *uncorrected,
                                                     unsigned int *pending, unsigned int *failure);
typedef nvmlReturn_t (*nvmlDeviceGetMigMode_fn)(nvmlDevice_t dev, unsigned int *current,
                                                unsigned int *pending);
typedef nvmlReturn_t (*nvmlDeviceGetProcesses_fn)(nvmlDevice_t dev, unsigned int *count,
                                                  void *infos);

/* ---- cuBLAS (libcublas.so.N), from cublas_api.h ---------------------------------------------- */
typedef struct cublasContext *cublasHandle_t;
enum { CUBLAS_OP_N = 0 };
typedef cublasStatus_t (*cublasCreate_v2_fn)(cublasHandle_t *handle);
typedef cublasStatus_t (*cublasDestroy_v2_fn)(cublasHandle_t handle);
/* Column-major C = alpha * op(A) op(B) + beta * C, alpha and beta on the host (the default
 * pointer mode). */
typedef cublasStatus_t (*cublasSgemm_v2_fn)(cublasHandle_t handle, int transa, int transb, int m,
                                            int n, int k, const float *alpha, const float *a,
                                            int lda, const float *b, int ldb, const float *beta,
                                            float *c, int ldc);
typedef const char *(*cublasGetStatusName_fn)(cublasStatus_t status); /* cuBLAS 11.4.2 */

/* ---- cuDNN (libcudnn.so.N), the legacy convolution API of cudnn_ops.h/cudnn_cnn.h (cuDNN 9)
 * and cudnn.h (cuDNN 8 and earlier), unchanged between them ----------------------------------- */
typedef int cudnnStatus_t;
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;
enum { CUDNN_STATUS_SUCCESS = 0 };
enum { CUDNN_DATA_FLOAT = 0 };
enum { CUDNN_TENSOR_NCHW = 0 };
enum { CUDNN_CROSS_CORRELATION = 1 };
enum { CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0 };
typedef cudnnStatus_t (*cudnnCreate_fn)(cudnnHandle_t *handle);
typedef cudnnStatus_t (*cudnnDestroy_fn)(cudnnHandle_t handle);
typedef const char *(*cudnnGetErrorString_fn)(cudnnStatus_t status);
typedef cudnnStatus_t (*cudnnCreateTensorDescriptor_fn)(cudnnTensorDescriptor_t *desc);
typedef cudnnStatus_t (*cudnnSetTensor4dDescriptor_fn)(cudnnTensorDescriptor_t desc, int format,
                                                       int data_type, int n, int c, int h, int w);
typedef cudnnStatus_t (*cudnnDestroyTensorDescriptor_fn)(cudnnTensorDescriptor_t desc);
typedef cudnnStatus_t (*cudnnCreateFilterDescriptor_fn)(cudnnFilterDescriptor_t *desc);
typedef cudnnStatus_t (*cudnnSetFilter4dDescriptor_fn)(cudnnFilterDescriptor_t desc, int data_type,
                                                       int format, int k, int c, int h, int w);
typedef cudnnStatus_t (*cudnnDestroyFilterDescriptor_fn)(cudnnFilterDescriptor_t desc);
typedef cudnnStatus_t (*cudnnCreateConvolutionDescriptor_fn)(cudnnConvolutionDescriptor_t *desc);
typedef cudnnStatus_t (*cudnnSetConvolution2dDescriptor_fn)(cudnnConvolutionDescriptor_t desc,
                                                            int pad_h, int pad_w, int stride_h,
                                                            int stride_w, int dilation_h,
                                                            int dilation_w, int mode,
                                                            int compute_type);
typedef cudnnStatus_t (*cudnnDestroyConvolutionDescriptor_fn)(cudnnConvolutionDescriptor_t desc);
typedef cudnnStatus_t (*cudnnGetConvolutionForwardWorkspaceSize_fn)(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, int algo, size_t *bytes);
typedef cudnnStatus_t (*cudnnConvolutionForward_fn)(cudnnHandle_t handle, const void *alpha,
                                                    cudnnTensorDescriptor_t x_desc, const void *x,
                                                    cudnnFilterDescriptor_t w_desc, const void *w,
                                                    cudnnConvolutionDescriptor_t conv, int algo,
                                                    void *workspace, size_t workspace_bytes,
                                                    const void *beta,
                                                    cudnnTensorDescriptor_t y_desc, void *y);

/* ---- NCCL (libnccl.so.2), from nccl.h ---------------------------------------------------------
 */
typedef struct ncclComm *ncclComm_t;
enum { ncclSuccess = 0 };
enum { ncclFloat32 = 7 };
enum { ncclSum = 0 };
typedef ncclResult_t (*ncclCommInitAll_fn)(ncclComm_t *comms, int ndev, const int *devices);
typedef ncclResult_t (*ncclCommDestroy_fn)(ncclComm_t comm);
typedef ncclResult_t (*ncclGroup_fn)(void); /* ncclGroupStart, ncclGroupEnd */
typedef ncclResult_t (*ncclAllReduce_fn)(const void *send, void *recv, size_t count, int type,
                                         int op, ncclComm_t comm, CUstream stream);
typedef const char *(*ncclGetErrorString_fn)(ncclResult_t result);

#endif
