#!/bin/sh
# Regenerates the binary seeds of fuzz_elf and fuzz_ldcache, so that their provenance is code:
#
#   fuzz/make_seeds.sh [OUT_DIR]      (default: fuzz/corpus; needs gcc, ldconfig, python3, root)
#
# fuzz_elf: tiny shared objects and an executable compiled here with chosen SONAME, NEEDED,
# RPATH/RUNPATH and flags, stripped (-s) and laid out compactly (-z noseparate-code -z norelro)
# so that each is a few KiB; one keeps the default layout (several pages, for the page cache);
# i386 and x32 ones linked with -nostdlib (no 32-bit libc needed); big-endian ELF64 (PowerPC64)
# and ELF32 (PowerPC) objects written byte by byte, with extended section numbering in one.
# fuzz_ldcache: ld.so.cache files written by the real ldconfig in the old, new and compat
# formats over a small tree (-r ROOT keeps the host's libraries out of them, hence root),
# with a glibc-hwcaps subdirectory so that the new format carries the hwcaps extension.
# The generated files are checked in; this script is how to make them again, not a build step.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/fuzz/corpus}
elf=$out/fuzz_elf
cache=$out/fuzz_ldcache
mkdir -p "$elf" "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/seed.c" <<'EOF'
#include <math.h>
double gd_seed(double x) { return sqrt(x) + 1.0; }
EOF
cat >"$tmp/main.c" <<'EOF'
#include <stdio.h>
int main(void) { return puts("seed") < 0; }
EOF
cat >"$tmp/tiny.c" <<'EOF'
int gd_tiny(int x) { return x + 1; }
EOF
compact="-Wl,-z,noseparate-code -Wl,-z,norelro"

# DT_RPATH with $ORIGIN, NEEDED libm and libc, the default (multi-page) layout.
gcc -shared -fPIC -Os -s "$tmp/seed.c" -o "$elf/x86_64_rpath_origin_default_layout.so" \
  -Wl,-soname,libseed.so.1 -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/../lib' -lm
# DT_RUNPATH with two directories, DT_FLAGS BIND_NOW and DT_FLAGS_1 NOW|NODELETE.
gcc -shared -fPIC -Os -s "$tmp/seed.c" -o "$elf/x86_64_runpath_flags.so" $compact \
  -Wl,-soname,libcudnn.so.9 -Wl,--enable-new-dtags \
  -Wl,-rpath,/usr/local/cuda/lib64:/opt/nvidia/lib -Wl,-z,now -Wl,-z,nodelete -lm
# No SONAME, no path, no build id.
gcc -shared -fPIC -Os -s "$tmp/tiny.c" -o "$elf/x86_64_bare.so" $compact -nostdlib \
  -Wl,--build-id=none
# An executable: PT_INTERP, the GNU ABI tag note, a build id.
gcc -Os -s "$tmp/main.c" -o "$elf/x86_64_pie_exe" $compact -Wl,--build-id=sha1
# ELF32 little-endian: i386 and x32, each NEEDing a stub "libcudart.so.12" of its class.
for arch in i386:-m32 x32:-mx32; do
  name=${arch%%:*}
  flag=${arch#*:}
  gcc "$flag" -shared -fPIC -nostdlib -Os -s "$tmp/tiny.c" -o "$tmp/libcudart.so.12" \
    -Wl,-soname,libcudart.so.12
  gcc "$flag" -shared -fPIC -nostdlib -Os -s "$tmp/tiny.c" -o "$elf/${name}_needed.so" $compact \
    -Wl,-soname,libseed32.so.1 -Wl,-rpath,/usr/lib32 -Wl,--no-as-needed "$tmp/libcudart.so.12"
done

# Cut short after the program headers: the dynamic section lies past the end.
head -c 400 "$elf/x86_64_runpath_flags.so" >"$elf/x86_64_truncated_400_bytes"

# Big-endian objects: no big-endian toolchain here, so the bytes are written out.
python3 - "$elf" <<'EOF'
import struct, sys

def make(cls, be, machine, extended=False):
    e = '>' if be else '<'
    w = 'Q' if cls == 64 else 'I'
    ws = 8 if cls == 64 else 4
    dynstr = b'\0libcudart.so.12\0libc.so.6\0libseedbe.so.1\0$ORIGIN:/opt/lib\0'
    idx = lambda s: dynstr.index(s + b'\0')
    ehsize, phentsize = (64, 56) if cls == 64 else (52, 32)
    shentsize = 64 if cls == 64 else 40
    phnum = 3
    # Notes: a build id and an ABI tag (Linux 3.2.0).
    bid = bytes(range(1, 21))
    note = struct.pack(e + 'III', 4, len(bid), 3) + b'GNU\0' + bid
    note += struct.pack(e + 'III', 4, 16, 1) + b'GNU\0' + struct.pack(e + 'IIII', 0, 3, 2, 0)
    off_note = ehsize + phnum * phentsize
    off_dynstr = off_note + len(note)
    off_dyn = (off_dynstr + len(dynstr) + 7) & ~7
    dyn_tags = [(1, idx(b'libcudart.so.12')), (1, idx(b'libc.so.6')),
                (14, idx(b'libseedbe.so.1')), (29, idx(b'$ORIGIN:/opt/lib')),
                (5, off_dynstr), (10, len(dynstr)), (0x6ffffffb, 1), (0, 0)]
    dyn = b''.join(struct.pack(e + w + w, t, v) for t, v in dyn_tags)
    shstr = b'\0.note.gnu.build-id\0.dynstr\0.dynamic\0.shstrtab\0'
    off_shstr = off_dyn + len(dyn)
    off_sh = (off_shstr + len(shstr) + 7) & ~7
    shnum = 5
    end = off_sh + shnum * shentsize

    def phdr(t, flags, off, size, align):
        if cls == 64:
            return struct.pack(e + 'IIQQQQQQ', t, flags, off, off, off, size, size, align)
        return struct.pack(e + 'IIIIIIII', t, off, off, off, size, size, flags, align)

    def shdr(name, t, flags, off, size, link=0, info=0, align=1, entsize=0):
        n = shstr.index(name + b'\0') if name else 0
        return struct.pack(e + 'II' + w * 4 + 'II' + w * 2, n, t, flags, off, off, size,
                           link, info, align, entsize)

    ident = b'\x7fELF' + bytes([2 if cls == 64 else 1, 2 if be else 1, 1, 0]) + bytes(8)
    hdr = ident + struct.pack(e + 'HHI' + w * 3 + 'IHHHHHH', 3, machine, 1, 0, ehsize, off_sh,
                              0, ehsize, phentsize, phnum, shentsize,
                              0 if extended else shnum, 0xffff if extended else 4)
    phdrs = (phdr(1, 5, 0, end, 0x10000) + phdr(2, 6, off_dyn, len(dyn), ws) +
             phdr(4, 4, off_note, len(note), 4))
    # With extended numbering section 0 carries the count (sh_size) and the name table (sh_link).
    shdrs = (shdr(b'', 0, 0, 0, shnum if extended else 0, link=4 if extended else 0, align=0) +
             shdr(b'.note.gnu.build-id', 7, 2, off_note, len(note), align=4) +
             shdr(b'.dynstr', 3, 2, off_dynstr, len(dynstr)) +
             shdr(b'.dynamic', 6, 3, off_dyn, len(dyn), link=2, align=ws, entsize=2 * ws) +
             shdr(b'.shstrtab', 3, 0, off_shstr, len(shstr)))
    img = bytearray(end)
    for off, part in ((0, hdr + phdrs), (off_note, note), (off_dynstr, dynstr),
                      (off_dyn, dyn), (off_shstr, shstr), (off_sh, shdrs)):
        img[off:off + len(part)] = part
    return bytes(img)

out = sys.argv[1]
for name, img in (('ppc64_be_runpath.so', make(64, True, 21)),
                  ('ppc_be32_runpath.so', make(32, True, 20)),
                  ('ppc64_be_extended_numbering.so', make(64, True, 21, extended=True))):
    with open(out + '/' + name, 'wb') as f:
        f.write(img)
EOF

# ld.so.cache: a small root whose ld.so.conf names one CUDA-like directory (with a glibc-hwcaps
# subdirectory) and includes a conf.d; ldconfig scans the root's default directories too.
root=$tmp/root
lib=$root/usr/local/cuda/lib64
mkdir -p "$lib/glibc-hwcaps/x86-64-v3" "$root/etc/ld.so.conf.d" "$root/usr/lib/x86_64-linux-gnu" \
  "$root/usr/lib32"
for so in libcudart.so.13 libcudnn.so.9 libnccl.so.2 libcublas.so.13; do
  gcc -shared -fPIC -Os -s -nostdlib "$tmp/tiny.c" -o "$lib/$so.0.1" -Wl,-soname,$so $compact
done
gcc -shared -fPIC -Os -s -nostdlib "$tmp/tiny.c" -o "$lib/glibc-hwcaps/x86-64-v3/libcudart.so.13.0.1" \
  -Wl,-soname,libcudart.so.13 $compact
gcc -shared -fPIC -Os -s -nostdlib "$tmp/tiny.c" -o "$root/usr/lib/x86_64-linux-gnu/libcuda.so.580.1" \
  -Wl,-soname,libcuda.so.1 $compact
gcc -m32 -shared -fPIC -Os -s -nostdlib "$tmp/tiny.c" -o "$root/usr/lib32/libcuda.so.580.1" \
  -Wl,-soname,libcuda.so.1 $compact
printf 'include /etc/ld.so.conf.d/*.conf\n' >"$root/etc/ld.so.conf"
printf '/usr/local/cuda/lib64\n' >"$root/etc/ld.so.conf.d/cuda.conf"
printf '/usr/lib32\n' >"$root/etc/ld.so.conf.d/zz_i386-biarch-compat.conf"
for format in old new compat; do
  ldconfig -r "$root" -c "$format" -C /etc/ld.so.cache -f /etc/ld.so.conf
  cp "$root/etc/ld.so.cache" "$cache/ldconfig_$format"
done
# Without the hwcaps subdirectory, the new format carries only the generator extension.
rm -r "$lib/glibc-hwcaps"
ldconfig -r "$root" -c new -C /etc/ld.so.cache -f /etc/ld.so.conf
cp "$root/etc/ld.so.cache" "$cache/ldconfig_new_no_hwcaps"
ls -l "$elf" "$cache"
