#!/bin/sh
# The loader emulator against glibc's real loader: small ELF files are compiled with chosen
# SONAME, NEEDED, RPATH, RUNPATH, $ORIGIN, DF_1_NODEFLIB and LD_LIBRARY_PATH arrangements, and
# `gpudoctor which --ldd` must print exactly what `ldd` prints (load addresses and the vdso
# line removed), or the same loader error.
#
# Usage: compare-ldd.sh GPUDOCTOR [CASE...]   (exit 77: no C compiler or no ldd here)
set -u
gd=$1
shift
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "skipped: no C compiler ($cc)"; exit 77; }
command -v ldd >/dev/null 2>&1 || { echo "skipped: no ldd"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gd-ldd.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fails=0
ran=0

printf 'int f_%s(void){return 1;}\n' a b c d e > "$work/lib.c"
printf 'int main(void){return 0;}\n' > "$work/main.c"

# lib DIR NAME [LDFLAGS...]: a shared object DIR/NAME with SONAME NAME.
lib() {
  d=$1 n=$2
  shift 2
  mkdir -p "$d"
  "$cc" -shared -fPIC -o "$d/$n" "$work/lib.c" -Wl,-soname,"$n" "$@" || exit 1
}
# prog OUT [LDFLAGS...]: an executable.
prog() {
  o=$1
  shift
  "$cc" -o "$o" "$work/main.c" -Wl,--no-as-needed "$@" || exit 1
}
normalize() {
  sed -e 's/ (0x[0-9a-f]*)$//' -e '/linux-vdso\.so/d' -e '/linux-gate\.so/d'
}
# check NAME ELF [LD_LIBRARY_PATH]
check() {
  name=$1 elf=$2 llp=${3-}
  ran=$((ran + 1))
  if [ -n "${3+x}" ]; then
    LD_LIBRARY_PATH=$llp ldd "$elf" > "$work/want" 2> "$work/want.err"
    "$gd" which --no-env --env "LD_LIBRARY_PATH=$llp" --ldd "$elf" > "$work/got" 2> "$work/got.err"
  else
    env -u LD_LIBRARY_PATH ldd "$elf" > "$work/want" 2> "$work/want.err"
    "$gd" which --no-env --ldd "$elf" > "$work/got" 2> "$work/got.err"
  fi
  normalize < "$work/want" > "$work/want.n"
  # ldd prints the loader's error without a newline; compare the text.
  { cat "$work/want.err"; echo; } | sed '/^$/d' > "$work/want.e"
  sed '/^$/d' "$work/got.err" > "$work/got.e"
  if cmp -s "$work/want.n" "$work/got" && cmp -s "$work/want.e" "$work/got.e"; then
    echo "ok   $name"
  else
    echo "FAIL $name"
    diff -u "$work/want.n" "$work/got" | sed 's/^/     /'
    diff -u "$work/want.e" "$work/got.e" | sed 's/^/     /'
    fails=$((fails + 1))
  fi
}

w=$work

# 1. DT_RPATH is inherited: the program's RPATH finds its library's dependency.
lib "$w/c1/dep" libdep.so.1
lib "$w/c1/lib" libmid.so.1 -L"$w/c1/dep" -l:libdep.so.1
prog "$w/c1/prog" -L"$w/c1/lib" -l:libmid.so.1 -L"$w/c1/dep" -Wl,--disable-new-dtags \
  -Wl,-rpath,"$w/c1/lib:$w/c1/dep" -Wl,--allow-shlib-undefined
check rpath-inherited "$w/c1/prog"

# 2. DT_RUNPATH is not inherited: the library's own dependency is not found through it.
prog "$w/c2prog" -L"$w/c1/lib" -l:libmid.so.1 -Wl,--enable-new-dtags \
  -Wl,-rpath,"$w/c1/lib:$w/c1/dep" -Wl,--allow-shlib-undefined
check runpath-not-inherited "$w/c2prog"

# 3. With both, DT_RUNPATH turns DT_RPATH off (a copy in the RPATH dir is not taken).
lib "$w/c3/r" libx.so.1
lib "$w/c3/u" libx.so.1
"$cc" -o "$w/c3/prog" "$w/main.c" -L"$w/c3/u" -l:libx.so.1 \
  -Wl,--enable-new-dtags -Wl,-rpath,"$w/c3/u" || exit 1
# Add a DT_RPATH next to the RUNPATH by linking twice is not possible with ld; use the
# loader's rule another way: RUNPATH of the program, RPATH of nothing, LD_LIBRARY_PATH wins.
check ld-library-path-before-runpath "$w/c3/prog" "$w/c3/r"

# 4. DT_RPATH comes before LD_LIBRARY_PATH.
"$cc" -o "$w/c3/prog2" "$w/main.c" -L"$w/c3/u" -l:libx.so.1 \
  -Wl,--disable-new-dtags -Wl,-rpath,"$w/c3/u" || exit 1
check rpath-before-ld-library-path "$w/c3/prog2" "$w/c3/r"

# 5. $ORIGIN in RUNPATH, relative to the object that carries it.
lib "$w/c5/app/lib" libo.so.1
mkdir -p "$w/c5/app/bin"
prog "$w/c5/app/bin/prog" -L"$w/c5/app/lib" -l:libo.so.1 -Wl,--enable-new-dtags \
  -Wl,-rpath,'$ORIGIN/../lib'
check origin-runpath "$w/c5/app/bin/prog"

# 6. ${ORIGIN} braces and $LIB expansion (Debian: lib/<triplet>; elsewhere lib64).
libdir=$(ldd /bin/sh | sed -n 's|.*=> \(/.*\)/libc\.so\.6.*|\1|p' | head -n 1)
case "$libdir" in */x86_64-linux-gnu) L=lib/x86_64-linux-gnu ;; *) L=lib64 ;; esac
lib "$w/c6/$L" libl.so.1
prog "$w/c6/prog" -L"$w/c6/$L" -l:libl.so.1 -Wl,--enable-new-dtags \
  -Wl,-rpath,'${ORIGIN}/$LIB'
check origin-braces-and-lib "$w/c6/prog"

# 7. A candidate of the wrong ELF class earlier in the path is skipped.
lib "$w/c7/good" libk.so.1
mkdir -p "$w/c7/bad32"
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\003\000\003\000\001\000\000\000' > "$w/c7/bad32/libk.so.1"
head -c 200 /dev/zero >> "$w/c7/bad32/libk.so.1"
prog "$w/c7/prog" -L"$w/c7/good" -l:libk.so.1 -Wl,--disable-new-dtags \
  -Wl,-rpath,"$w/c7/bad32:$w/c7/good"
check wrong-class-skipped "$w/c7/prog"

# 8. A candidate of another machine is skipped (e_machine patched to AArch64, 183).
mkdir -p "$w/c8/arm"
lib "$w/c8/good" libm8.so.1
cp "$w/c8/good/libm8.so.1" "$w/c8/arm/libm8.so.1"
printf '\267\000' | dd of="$w/c8/arm/libm8.so.1" bs=1 seek=18 conv=notrunc 2>/dev/null
prog "$w/c8/prog" -L"$w/c8/good" -l:libm8.so.1 -Wl,--disable-new-dtags \
  -Wl,-rpath,"$w/c8/arm:$w/c8/good"
check wrong-machine-skipped "$w/c8/prog"

# 9. A file that is not an ELF stops the loader with its error.
mkdir -p "$w/c9/junk"
lib "$w/c9/good" libj.so.1
echo junk > "$w/c9/junk/libj.so.1"
prog "$w/c9/prog" -L"$w/c9/good" -l:libj.so.1 -Wl,--disable-new-dtags \
  -Wl,-rpath,"$w/c9/junk:$w/c9/good"
check not-elf-stops "$w/c9/prog"
head -c 100 /dev/zero | tr '\0' 'x' > "$w/c9/junk/libj.so.1"
check invalid-header-stops "$w/c9/prog"

# 10. A missing library, needed twice, is reported once.
lib "$w/c10/lib" libmiss.so.1
lib "$w/c10/lib" libuse.so.1 -L"$w/c10/lib" -l:libmiss.so.1
prog "$w/c10/prog" -L"$w/c10/lib" -l:libuse.so.1 -l:libmiss.so.1 -Wl,--enable-new-dtags \
  -Wl,-rpath,"$w/c10/lib"
rm "$w/c10/lib/libmiss.so.1"
check missing-once "$w/c10/prog"

# 11. The same file under two names (a symlink) is loaded once.
lib "$w/c11/lib" libreal.so.1
ln -s libreal.so.1 "$w/c11/lib/libalias.so.1"
lib "$w/c11/lib" libuser.so.1 -L"$w/c11/lib" -l:libalias.so.1
prog "$w/c11/prog" -L"$w/c11/lib" -l:libreal.so.1 -l:libuser.so.1 -Wl,--enable-new-dtags \
  -Wl,-rpath,"$w/c11/lib"
check same-file-twice "$w/c11/prog"

# 12. A NEEDED entry with a '/' is a path (a library linked without SONAME, by path).
mkdir -p "$w/c12"
"$cc" -shared -fPIC -o "$w/c12/libnosoname.so" "$w/lib.c" || exit 1
prog "$w/c12/prog" "$w/c12/libnosoname.so"
check needed-path "$w/c12/prog"

# 13. DF_1_NODEFLIB: no default directories for the program's own dependencies.
lib "$w/c13/lib" libnd.so.1
prog "$w/c13/prog" -L"$w/c13/lib" -l:libnd.so.1 -Wl,-z,nodefaultlib
check nodeflib "$w/c13/prog" "$w/c13/lib"

# 14. LD_LIBRARY_PATH with ';' and an empty entry, and a directory that does not exist.
lib "$w/c14/lib" libsemi.so.1
prog "$w/c14/prog" -L"$w/c14/lib" -l:libsemi.so.1
check ld-library-path-separators "$w/c14/prog" "$w/c14/none;$w/c14/lib:"

# 15. glibc-hwcaps and legacy hwcap subdirectories come before the directory itself.
lib "$w/c15/lib" libhw.so.1
for sub in glibc-hwcaps/x86-64-v2 tls x86_64; do
  lib "$w/c15/lib/$sub" libhw.so.1
done
prog "$w/c15/prog" -L"$w/c15/lib" -l:libhw.so.1 -Wl,--enable-new-dtags -Wl,-rpath,"$w/c15/lib"
check hwcaps-subdirectories "$w/c15/prog"
rm -rf "$w/c15/lib/glibc-hwcaps"
check legacy-hwcaps-subdirectories "$w/c15/prog"

# 16. A library's RPATH chain: the library's own RPATH finds its dependency.
lib "$w/c16/dep" libd16.so.1
lib "$w/c16/lib" libl16.so.1 -L"$w/c16/dep" -l:libd16.so.1 -Wl,--disable-new-dtags \
  -Wl,-rpath,"$w/c16/dep"
prog "$w/c16/prog" -L"$w/c16/lib" -l:libl16.so.1 -Wl,--enable-new-dtags -Wl,-rpath,"$w/c16/lib"
check library-rpath "$w/c16/prog"

echo "$ran cases, $fails failed"
[ "$fails" = 0 ]
