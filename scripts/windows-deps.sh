#!/bin/sh
# Builds the libraries gpudoctor needs for Windows (json-c, PCRE2, and cmocka for the tests)
# with Debian's mingw-w64, from Debian's own source packages: Debian ships no mingw build of them.
# Usage: scripts/windows-deps.sh PREFIX   (installs into PREFIX; does nothing when already there)
# Needs: gcc-mingw-w64-x86-64, cmake, and apt-get able to reach Debian's archive (deb-src is
# enabled for this download only, in a private apt state under PREFIX/../deps-src; the system's
# apt configuration is not touched).
set -eu
prefix=$1
root=$(cd "$(dirname "$0")/.." && pwd)
toolchain=$root/cmake/mingw-w64.cmake
if [ -f "$prefix/lib/libjson-c.a" ] && [ -f "$prefix/lib/libcmocka.a" ] &&
  [ -f "$prefix/lib/libpcre2-8.a" ]; then
  exit 0
fi
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
src=$prefix/../deps-src
mkdir -p "$src/apt/lists/partial"
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
echo "deb-src http://deb.debian.org/debian $suite main" >"$src/apt/sources.list"
apto="-o Dir::Etc::SourceList=$src/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists=$src/apt/lists -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache="
cd "$src"
if ! ls json-c_*.orig.tar.* >/dev/null 2>&1 || ! ls cmocka_*.orig.tar.* >/dev/null 2>&1 ||
  ! ls pcre2_*.orig.tar.* >/dev/null 2>&1; then
  echo "gpudoctor: fetching Debian's json-c, cmocka and pcre2 sources (apt-get source)"
  # shellcheck disable=SC2086
  apt-get -q $apto update >/dev/null
  # shellcheck disable=SC2086
  apt-get -q $apto source --download-only json-c cmocka pcre2 >/dev/null 2>&1 || {
    echo "gpudoctor: apt-get source json-c cmocka pcre2 failed (no access to Debian's archive?)" >&2
    exit 1
  }
fi
rm -rf json-c cmocka pcre2 jb cb pb
mkdir json-c cmocka pcre2
tar xf json-c_*.orig.tar.?z -C json-c --strip-components=1
tar xf cmocka_*.orig.tar.?z -C cmocka --strip-components=1
tar xf pcre2_*.orig.tar.*z* -C pcre2 --strip-components=1

common="-DCMAKE_TOOLCHAIN_FILE=$toolchain -DCMAKE_INSTALL_PREFIX=$prefix -DCMAKE_BUILD_TYPE=Release"
# shellcheck disable=SC2086
cmake -S json-c -B jb $common -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON \
  -DBUILD_TESTING=OFF -DDISABLE_WERROR=ON >/dev/null
cmake --build jb -j "${JOBS:-2}" >/dev/null
cmake --install jb >/dev/null
# PCRE2 for gpudoctor explain: the 8-bit library with its JIT, static. Its headers declare the
# functions dllimport unless PCRE2_STATIC is defined, and the .pc file it installs does not say
# so: the flag is added to it below.
# shellcheck disable=SC2086
cmake -S pcre2 -B pb $common -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON -DPCRE2_BUILD_PCRE2_8=ON \
  -DPCRE2_SUPPORT_JIT=ON -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF >/dev/null
cmake --build pb -j "${JOBS:-2}" >/dev/null
cmake --install pb >/dev/null
sed -i 's/^Cflags: \(.*\)$/Cflags: \1 -DPCRE2_STATIC/' "$prefix/lib/pkgconfig/libpcre2-8.pc"
# shellcheck disable=SC2086
cmake -S cmocka -B cb $common -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF >/dev/null
cmake --build cb -j "${JOBS:-2}" >/dev/null
cmake --install cb >/dev/null
# Tests link cmocka statically: no cmocka.dll to carry next to every test program under wine.
mv "$prefix/lib/libcmocka-static.a" "$prefix/lib/libcmocka.a"
rm -f "$prefix/lib/libcmocka.dll.a" "$prefix/bin/cmocka.dll"
echo "gpudoctor: json-c, PCRE2 and cmocka for Windows are in $prefix"
