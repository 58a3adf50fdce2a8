/* Status codes of NVIDIA's libraries. Values from the headers of CUDA 13.0 (cuda.h enum
 * cudaError_enum, driver_types.h enum cudaError, cublas_api.h cublasStatus_t) and from nvml.h
 * (nvmlReturn_t, as NVIDIA's nvidia-ml-py repeats it). */
#include "vendor/errors.h"

#include <stddef.h>

struct code {
    long value;
    const char *name, *meaning;
};

static const struct code driver_codes[] = {
    { 0, "CUDA_SUCCESS", NULL },
    { 1, "CUDA_ERROR_INVALID_VALUE", NULL },
    { 2, "CUDA_ERROR_OUT_OF_MEMORY",
      "The device has not enough free memory for the allocation (other processes may hold it)." },
    { 3, "CUDA_ERROR_NOT_INITIALIZED", "cuInit has not run, or did not succeed." },
    { 4, "CUDA_ERROR_DEINITIALIZED", NULL },
    { 34, "CUDA_ERROR_STUB_LIBRARY",
      "The libcuda.so.1 that was loaded is the CUDA toolkit's link-time stub "
      "(lib64/stubs/libcuda.so), not the driver: it answers every call with this error." },
    { 36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
      "The call needs a newer driver than the one installed." },
    { 46, "CUDA_ERROR_DEVICE_UNAVAILABLE",
      "The device is busy or unavailable: in exclusive-process compute mode another process "
      "already holds its context, or compute is prohibited on it." },
    { 100, "CUDA_ERROR_NO_DEVICE",
      "The driver finds no CUDA-capable device: none is installed, the container was started "
      "without one, or CUDA_VISIBLE_DEVICES hides them all." },
    { 101, "CUDA_ERROR_INVALID_DEVICE", "The device ordinal names no visible device." },
    { 102, "CUDA_ERROR_DEVICE_NOT_LICENSED", NULL },
    { 200, "CUDA_ERROR_INVALID_IMAGE", "The module image is not a valid CUDA binary." },
    { 201, "CUDA_ERROR_INVALID_CONTEXT", NULL },
    { 209, "CUDA_ERROR_NO_BINARY_FOR_GPU",
      "The module has no machine code for this GPU's architecture and no PTX the driver could "
      "compile for it (\"no kernel image is available for execution on the device\")." },
    { 214, "CUDA_ERROR_ECC_UNCORRECTABLE",
      "An uncorrectable ECC error was detected in the device's memory." },
    { 218, "CUDA_ERROR_INVALID_PTX", "The driver's PTX compiler rejected the PTX." },
    { 219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", NULL },
    { 220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", "An uncorrectable NVLink error was detected." },
    { 221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
      "The driver's PTX JIT compiler library (libnvidia-ptxjitcompiler.so.1) is missing: PTX "
      "cannot be compiled, so GPUs served only by PTX fail." },
    { 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
      "The PTX was written for a newer PTX ISA than the driver's JIT compiler knows: the driver "
      "is older than the toolkit that produced it." },
    { 223, "CUDA_ERROR_JIT_COMPILATION_DISABLED",
      "PTX JIT compilation is disabled (CUDA_DISABLE_PTX_JIT is set)." },
    { 224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY", NULL },
    { 225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", NULL },
    { 226, "CUDA_ERROR_CONTAINED", NULL },
    { 300, "CUDA_ERROR_INVALID_SOURCE", NULL },
    { 301, "CUDA_ERROR_FILE_NOT_FOUND", NULL },
    { 302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", NULL },
    { 303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", NULL },
    { 304, "CUDA_ERROR_OPERATING_SYSTEM",
      "A call of the operating system made by the driver failed (device files, memory "
      "mappings)." },
    { 400, "CUDA_ERROR_INVALID_HANDLE", NULL },
    { 401, "CUDA_ERROR_ILLEGAL_STATE", NULL },
    { 500, "CUDA_ERROR_NOT_FOUND", NULL },
    { 600, "CUDA_ERROR_NOT_READY", NULL },
    { 700, "CUDA_ERROR_ILLEGAL_ADDRESS",
      "A kernel accessed memory outside its allocations; the context is unusable afterwards." },
    { 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", NULL },
    { 702, "CUDA_ERROR_LAUNCH_TIMEOUT",
      "A kernel ran past the display watchdog's limit (a GPU that also drives a display)." },
    { 709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", NULL },
    { 710, "CUDA_ERROR_ASSERT", NULL },
    { 714, "CUDA_ERROR_HARDWARE_STACK_ERROR", NULL },
    { 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", NULL },
    { 716, "CUDA_ERROR_MISALIGNED_ADDRESS", NULL },
    { 719, "CUDA_ERROR_LAUNCH_FAILED",
      "A kernel failed while running; the context is unusable afterwards." },
    { 800, "CUDA_ERROR_NOT_PERMITTED", NULL },
    { 801, "CUDA_ERROR_NOT_SUPPORTED", NULL },
    { 802, "CUDA_ERROR_SYSTEM_NOT_READY",
      "The system is not ready for CUDA: on NVSwitch machines (HGX, DGX) the NVIDIA Fabric "
      "Manager service is not running." },
    { 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
      "The user-space driver (libcuda) and the kernel module are of different versions." },
    { 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
      "A CUDA forward-compatibility libcuda is in use, and this GPU does not support forward "
      "compatibility (only data-center GPUs do)." },
    { 805, "CUDA_ERROR_MPS_CONNECTION_FAILED", NULL },
    { 909, "CUDA_ERROR_TIMEOUT", NULL },
    { 999, "CUDA_ERROR_UNKNOWN",
      "An unknown error; at cuInit it most often means /dev/nvidia-uvm is missing (the "
      "nvidia-uvm module is not loaded) or the device files cannot be opened." },
};

static const struct code runtime_codes[] = {
    { 0, "cudaSuccess", NULL },
    { 2, "cudaErrorMemoryAllocation", NULL },
    { 3, "cudaErrorInitializationError", NULL },
    { 34, "cudaErrorStubLibrary",
      "The libcuda.so.1 that was loaded is the CUDA toolkit's link-time stub, not the driver." },
    { 35, "cudaErrorInsufficientDriver",
      "The runtime needs a newer driver than the one installed, or no driver is installed at "
      "all (\"CUDA driver version is insufficient for CUDA runtime version\")." },
    { 36, "cudaErrorCallRequiresNewerDriver", NULL },
    { 46, "cudaErrorDevicesUnavailable",
      "Every device is busy or unavailable (exclusive-process mode with another process on it, "
      "or compute prohibited)." },
    { 100, "cudaErrorNoDevice", "No CUDA-capable device is visible to the program." },
    { 101, "cudaErrorInvalidDevice", NULL },
    { 304, "cudaErrorOperatingSystem", NULL },
    { 800, "cudaErrorNotPermitted", NULL },
    { 802, "cudaErrorSystemNotReady", NULL },
    { 803, "cudaErrorSystemDriverMismatch",
      "The user-space driver (libcuda) and the kernel module are of different versions." },
    { 804, "cudaErrorCompatNotSupportedOnDevice", NULL },
    { 999, "cudaErrorUnknown", NULL },
};

static const struct code nvml_codes[] = {
    { 0, "NVML_SUCCESS", NULL },
    { 1, "NVML_ERROR_UNINITIALIZED", NULL },
    { 2, "NVML_ERROR_INVALID_ARGUMENT", NULL },
    { 3, "NVML_ERROR_NOT_SUPPORTED", "This GPU or driver does not report it." },
    { 4, "NVML_ERROR_NO_PERMISSION", "This user may not read it." },
    { 5, "NVML_ERROR_ALREADY_INITIALIZED", NULL },
    { 6, "NVML_ERROR_NOT_FOUND", NULL },
    { 7, "NVML_ERROR_INSUFFICIENT_SIZE", NULL },
    { 8, "NVML_ERROR_INSUFFICIENT_POWER",
      "The GPU's external power cables are not properly attached." },
    { 9, "NVML_ERROR_DRIVER_NOT_LOADED", "The NVIDIA kernel module is not loaded." },
    { 10, "NVML_ERROR_TIMEOUT", NULL },
    { 11, "NVML_ERROR_IRQ_ISSUE", "The kernel module detected an interrupt problem with a GPU." },
    { 12, "NVML_ERROR_LIBRARY_NOT_FOUND", NULL },
    { 13, "NVML_ERROR_FUNCTION_NOT_FOUND", NULL },
    { 14, "NVML_ERROR_CORRUPTED_INFOROM", "The GPU's infoROM is corrupted." },
    { 15, "NVML_ERROR_GPU_IS_LOST",
      "The GPU fell off the bus or stopped answering; it needs a reset or a reboot." },
    { 16, "NVML_ERROR_RESET_REQUIRED", "The GPU needs a reset before it can be used again." },
    { 17, "NVML_ERROR_OPERATING_SYSTEM", NULL },
    { 18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
      "libnvidia-ml and the kernel module are of different versions (\"Driver/library version "
      "mismatch\"): usually a driver upgrade without a reboot." },
    { 19, "NVML_ERROR_IN_USE", NULL },
    { 20, "NVML_ERROR_MEMORY", NULL },
    { 21, "NVML_ERROR_NO_DATA", NULL },
    { 22, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", NULL },
    { 23, "NVML_ERROR_INSUFFICIENT_RESOURCES", NULL },
    { 24, "NVML_ERROR_FREQ_NOT_SUPPORTED", NULL },
    { 25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", NULL },
    { 26, "NVML_ERROR_DEPRECATED", NULL },
    { 999, "NVML_ERROR_UNKNOWN", NULL },
};

static const struct code cublas_codes[] = {
    { 0, "CUBLAS_STATUS_SUCCESS", NULL },
    { 1, "CUBLAS_STATUS_NOT_INITIALIZED",
      "cuBLAS could not initialise: no usable driver or device, or the CUDA runtime it needs "
      "failed." },
    { 3, "CUBLAS_STATUS_ALLOC_FAILED", NULL },
    { 7, "CUBLAS_STATUS_INVALID_VALUE", NULL },
    { 8, "CUBLAS_STATUS_ARCH_MISMATCH", "This cuBLAS has no kernels for the GPU's architecture." },
    { 11, "CUBLAS_STATUS_MAPPING_ERROR", NULL },
    { 13, "CUBLAS_STATUS_EXECUTION_FAILED", "A cuBLAS kernel failed to launch or run." },
    { 14, "CUBLAS_STATUS_INTERNAL_ERROR", NULL },
    { 15, "CUBLAS_STATUS_NOT_SUPPORTED", NULL },
    { 16, "CUBLAS_STATUS_LICENSE_ERROR", NULL },
};

static const struct code *find(enum gd_vendor_api api, long value)
{
    const struct code *table = NULL;
    size_t n = 0;
    switch (api) {
    case GD_VENDOR_DRIVER:
        table = driver_codes;
        n = sizeof driver_codes / sizeof *driver_codes;
        break;
    case GD_VENDOR_RUNTIME:
        table = runtime_codes;
        n = sizeof runtime_codes / sizeof *runtime_codes;
        break;
    case GD_VENDOR_NVML:
        table = nvml_codes;
        n = sizeof nvml_codes / sizeof *nvml_codes;
        break;
    case GD_VENDOR_CUBLAS:
        table = cublas_codes;
        n = sizeof cublas_codes / sizeof *cublas_codes;
        break;
    }
    for (size_t i = 0; i < n; i++)
        if (table[i].value == value)
            return &table[i];
    return NULL;
}

const char *gd_vendor_error_name(enum gd_vendor_api api, long code)
{
    const struct code *c = find(api, code);
    return c ? c->name : NULL;
}

const char *gd_vendor_error_meaning(enum gd_vendor_api api, long code)
{
    const struct code *c = find(api, code);
    return c ? c->meaning : NULL;
}
