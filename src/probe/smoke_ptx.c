#include "probe/smoke.h"

/*
 * gpudoctor's test kernel, PTX written by hand (no nvcc at build time):
 *
 *     out[i] = in[i] * 3 + i    for every i < n (unsigned 32-bit, wrapping)
 *
 * one thread per element (i = blockIdx.x * blockDim.x + threadIdx.x). It is PTX ISA 4.0 for
 * target sm_50, the oldest combination that still compiles for the newest GPUs: the ISA of CUDA
 * 6.0, so that every driver since then can JIT-compile it (the driver's compiler accepts PTX of
 * its own ISA version and older, and any target at or below the GPU's architecture). A driver
 * that cannot turns it into CUDA_ERROR_UNSUPPORTED_PTX_VERSION, CUDA_ERROR_INVALID_PTX or
 * CUDA_ERROR_JIT_COMPILER_NOT_FOUND — the errors frameworks meet when a GPU has only PTX. The
 * test suite assembles it with the toolkit's ptxas for several architectures
 * (tests/unit/test_smoke.c).
 */
const char gd_smoke_ptx[] = ".version 4.0\n"
                            ".target sm_50\n"
                            ".address_size 64\n"
                            "\n"
                            ".visible .entry gd_smoke(\n"
                            "\t.param .u64 gd_smoke_out,\n"
                            "\t.param .u64 gd_smoke_in,\n"
                            "\t.param .u32 gd_smoke_n\n"
                            ")\n"
                            "{\n"
                            "\t.reg .pred %p<2>;\n"
                            "\t.reg .b32 %r<8>;\n"
                            "\t.reg .b64 %rd<8>;\n"
                            "\n"
                            "\tld.param.u64 %rd1, [gd_smoke_out];\n"
                            "\tld.param.u64 %rd2, [gd_smoke_in];\n"
                            "\tld.param.u32 %r1, [gd_smoke_n];\n"
                            "\tmov.u32 %r2, %ctaid.x;\n"
                            "\tmov.u32 %r3, %ntid.x;\n"
                            "\tmov.u32 %r4, %tid.x;\n"
                            "\tmad.lo.s32 %r5, %r2, %r3, %r4;\n"
                            "\tsetp.ge.u32 %p1, %r5, %r1;\n"
                            "\t@%p1 bra DONE;\n"
                            "\tcvta.to.global.u64 %rd3, %rd1;\n"
                            "\tcvta.to.global.u64 %rd4, %rd2;\n"
                            "\tmul.wide.u32 %rd5, %r5, 4;\n"
                            "\tadd.s64 %rd6, %rd4, %rd5;\n"
                            "\tld.global.u32 %r6, [%rd6];\n"
                            "\tmad.lo.s32 %r7, %r6, 3, %r5;\n"
                            "\tadd.s64 %rd7, %rd3, %rd5;\n"
                            "\tst.global.u32 [%rd7], %r7;\n"
                            "DONE:\n"
                            "\tret;\n"
                            "}\n";
