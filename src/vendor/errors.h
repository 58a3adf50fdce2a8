/*
 * The names NVIDIA gives to the status codes of its libraries, and what the ones gpudoctor meets
 * mean, for when the library cannot name them itself: the toolkit's stub libcuda answers every
 * call, cuGetErrorName included, with CUDA_ERROR_STUB_LIBRARY; NVML's nvmlErrorString gives a
 * description, not the name; cuBLAS before 11.4.2 has no cublasGetStatusName. The values are
 * ABI, copied from the headers named in errors.c; the meanings are gpudoctor's own words.
 */
#ifndef GD_VENDOR_ERRORS_H
#define GD_VENDOR_ERRORS_H

enum gd_vendor_api {
    GD_VENDOR_DRIVER,  /* CUresult (libcuda) */
    GD_VENDOR_RUNTIME, /* cudaError_t (libcudart) */
    GD_VENDOR_NVML,    /* nvmlReturn_t */
    GD_VENDOR_CUBLAS,  /* cublasStatus_t */
};

/* NVIDIA's name for `code` ("CUDA_ERROR_NO_DEVICE"), or NULL when gpudoctor does not know it. */
const char *gd_vendor_error_name(enum gd_vendor_api api, long code);
/* What `code` means for someone running CUDA programs, one or two sentences; NULL when
 * gpudoctor has nothing to add to the name. */
const char *gd_vendor_error_meaning(enum gd_vendor_api api, long code);

#endif
