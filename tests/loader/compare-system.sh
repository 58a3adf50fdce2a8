#!/bin/sh
# Every shared object of real installs, resolved by the emulator and by glibc's loader: the CUDA
# toolkit under /usr/local/cuda/lib (when present) and Debian's python3-torch install (when
# installed). `gpudoctor which --ldd` must print exactly what `ldd` prints for each.
#
# Usage: compare-system.sh GPUDOCTOR   (exit 77 when neither install is here)
set -u
gd=$1
command -v ldd >/dev/null 2>&1 || { echo "skipped: no ldd"; exit 77; }
list=$(mktemp) || exit 1
trap 'rm -f "$list" "$list.want" "$list.got"' EXIT
if [ -d /usr/local/cuda/lib ]; then
  find -L /usr/local/cuda/lib -maxdepth 1 -name '*.so*' -type f 2>/dev/null >> "$list"
fi
if command -v dpkg >/dev/null 2>&1; then
  for pkg in python3-torch libtorch1.13 libtorch-test1.13; do
    dpkg -L "$pkg" 2>/dev/null | grep -E '\.so(\.[0-9.]+)?$' >> "$list"
  done
fi
sort -u -o "$list" "$list"
total=$(wc -l < "$list")
[ "$total" -gt 0 ] || { echo "skipped: no CUDA toolkit in /usr/local/cuda/lib and no python3-torch"; exit 77; }
fails=0
while IFS= read -r so; do
  [ -f "$so" ] || continue
  env -u LD_LIBRARY_PATH ldd "$so" 2>&1 | sed -e 's/ (0x[0-9a-f]*)$//' -e '/linux-vdso\.so/d' > "$list.want"
  "$gd" which --no-env --ldd "$so" > "$list.got" 2>&1
  if ! cmp -s "$list.want" "$list.got"; then
    echo "FAIL $so"
    diff -u "$list.want" "$list.got" | head -20 | sed 's/^/     /'
    fails=$((fails + 1))
  fi
done < "$list"
echo "$total shared objects compared with ldd, $fails differ"
[ "$fails" = 0 ]
