#!/bin/sh
# Regenerates the seeds of fuzz_fatbin, so that their provenance is code:
#
#   fuzz/make_fatbin_seeds.sh [OUT_DIR]   (default: fuzz/corpus/fuzz_fatbin; needs objcopy,
#                                          readelf, python3; nvcc and /usr/local/cuda/lib optional)
#
# Real sections: the .nv_fatbin of tests/fixtures/fatbin/libfatbin-cuda13.so (nvcc 13) and the
# CUDA 11.8 section there; with nvcc, an object built with -G (entries that name their source
# file) and one with LTO-IR (-dlto: kind 8, in __nv_relfatbin); with CUDA's libraries, the
# first containers of libcublasLt (112-byte entry headers, sm_90a and sm_120f), cuDNN's
# runtime-compiled engines (144-byte PTX headers with ptxas options) and NCCL's __nv_relfatbin,
# every payload cut to its first 8 bytes (sizes rewritten to match) so each seed stays small.
# Hostile ones: written byte by byte below. The files are checked in; this script is how to
# make them again, not a build step.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/fuzz/corpus/fuzz_fatbin}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fix=$top/tests/fixtures/fatbin
cuda=${CUDA_HOME:-/usr/local/cuda}

objcopy -O binary --only-section=.nv_fatbin "$fix/libfatbin-cuda13.so" "$out/nvcc13_sm75_sm90a_sm100f_ptx120"
cp "$fix/cuda11.8.nv_fatbin" "$out/cuda11.8_two_containers"

# section FILE NAME OUT: the bytes of section NAME of FILE.
section() {
  objcopy -O binary --only-section="$2" "$1" "$3" 2>/dev/null
}

if [ -x "$cuda/bin/nvcc" ]; then
  cp "$fix/kernel.cu" "$tmp/k.cu"
  "$cuda/bin/nvcc" -c -G -Xcompiler -fPIC -o "$tmp/debug.o" "$tmp/k.cu" \
    -gencode arch=compute_80,code=[sm_80,compute_80]
  section "$tmp/debug.o" .nv_fatbin "$tmp/debug.fatbin"
  "$cuda/bin/nvcc" -dc -Xcompiler -fPIC -o "$tmp/lto.o" "$tmp/k.cu" \
    -gencode arch=compute_90,code=lto_90 -gencode arch=compute_75,code=sm_75
  section "$tmp/lto.o" __nv_relfatbin "$tmp/lto.fatbin"
fi
for lib in libcublasLt.so libcudnn_engines_runtime_compiled.so; do
  [ -f "$cuda/lib64/$lib" ] && section "$cuda/lib64/$lib" .nv_fatbin "$tmp/$lib.fatbin"
done
[ -f "$cuda/lib64/libnccl.so" ] && section "$cuda/lib64/libnccl.so" __nv_relfatbin "$tmp/nccl.relfatbin"

python3 - "$tmp" "$out" <<'EOF'
import os, struct, sys
tmp, out = sys.argv[1], sys.argv[2]

def trim(data, containers, keep=8):
    """The first `containers` containers, each payload cut to `keep` bytes."""
    res, at = b"", 0
    for _ in range(containers):
        if at + 16 > len(data):
            break
        magic, version, hsize, size = struct.unpack_from("<IHHQ", data, at)
        body, e, end = b"", at + hsize, at + hsize + size
        while e < end:
            ehs, psz = struct.unpack_from("<IQ", data, e + 4)
            n = min(keep, psz)
            head = bytearray(data[e:e + ehs])
            struct.pack_into("<Q", head, 8, n)
            body += bytes(head) + data[e + ehs:e + ehs + n]
            e += ehs + psz
        res += struct.pack("<IHHQ", magic, version, hsize, len(body)) + data[at + 16:at + hsize] + body
        at = end
    return res

def put(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)

for src, name, n in [("debug.fatbin", "nvcc13_debug_objname_sm80_ptx80", 4),
                     ("lto.fatbin", "nvcc13_relfatbin_lto90_sm75", 4),
                     ("libcublasLt.so.fatbin", "cublasLt13_first_24_containers_trimmed", 24),
                     ("libcudnn_engines_runtime_compiled.so.fatbin",
                      "cudnn9_rtc_first_12_containers_trimmed", 12),
                     ("nccl.relfatbin", "nccl2_relfatbin_first_6_containers_trimmed", 6)]:
    p = os.path.join(tmp, src)
    if os.path.exists(p):
        put(name, trim(open(p, "rb").read(), n))

def container(entries, version=1, hsize=16, size=None):
    body = b"".join(entries)
    return struct.pack("<IHHQ", 0xBA55ED50, version, hsize, len(body) if size is None else size) + body

def entry(kind, sm, payload=8, header=64, flags=0x11, major=1, minor=8, size=None):
    h = bytearray(header)
    struct.pack_into("<HHIQ", h, 0, kind, 0x0101, header, payload if size is None else size)
    struct.pack_into("<HHI", h, 24, minor, major, sm)
    struct.pack_into("<Q", h, 40, flags)
    return bytes(h) + b"\xa5" * payload

put("hostile_entry_header_size_zero", container([entry(2, 80)])[:20] + struct.pack("<I", 0) + container([entry(2, 80)])[24:])
put("hostile_entry_payload_overflow", container([entry(2, 80, size=2**64 - 32)]))
put("hostile_entry_past_container", container([entry(2, 80), entry(1, 80, size=4096)]))
put("hostile_container_size_overflow", container([entry(2, 80)], size=2**64 - 8))
put("hostile_container_header_8", container([entry(2, 80)], hsize=8))
put("hostile_version_2", container([entry(2, 80)], version=2))
put("hostile_wrapper_magic", struct.pack("<IIQQ", 0x466243B1, 1, 0x1000, 0))
put("hostile_second_container_garbage", container([entry(2, 75), entry(1, 75)]) + b"\x13\x37" * 16)
put("padding_16_then_container", container([entry(2, 75)]) + bytes(16) + container([entry(2, 86, flags=0x100011)]))
put("odd_payload_then_aligned", container([entry(2, 75, payload=13)]) + bytes(3) + container([entry(8, 90)]))
put("unknown_kinds_and_variants", container([entry(0x40, 90), entry(2, 100, header=112, flags=0x1200011),
                                             entry(2, 100, header=112, flags=0x1100011),
                                             entry(1, 120, header=80, flags=0x208011, major=9, minor=0)]))
put("empty_containers", container([]) * 4)
EOF
ls -l "$out"
