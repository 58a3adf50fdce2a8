#!/bin/sh
# The Windows DLL search emulator against a real loader, wine's: arrangements of tiny DLLs built
# with mingw-w64 in the wine prefix's drive C:, loaded by winload-probe.exe (the DLLs it loads
# and where they are, or the error) and asked of `gpudoctor.exe which --root C:\ --ldd` (both
# under wine), in the standard order and in the extension order Python 3.8+ uses. The two must
# find the same files, and fail together. Each DLL imports one function of each DLL it needs and
# nothing else (no C runtime), so the DLLs load for real.
#
# Usage: compare-wine.sh WINEPREFIX GPUDOCTOR.EXE WINLOAD-PROBE.EXE   (exit 77: no wine or mingw)
set -u
prefix=$1 gd=$2 probe=$3
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../wine-run.sh"
cc=${MINGW_CC:-x86_64-w64-mingw32-gcc}
dlltool=${MINGW_DLLTOOL:-x86_64-w64-mingw32-dlltool}
command -v wine >/dev/null 2>&1 || command -v wine64 >/dev/null 2>&1 ||
    { echo "skipped: no wine"; exit 77; }
command -v "$cc" >/dev/null 2>&1 || { echo "skipped: no $cc"; exit 77; }
[ -d "$prefix/drive_c" ] || { echo "skipped: no wine prefix at $prefix"; exit 77; }
[ -f "$probe" ] && [ -f "$gd" ] || { echo "no $probe or $gd"; exit 2; }
tag=gd-winload-$$
base="$prefix/drive_c/$tag"
mkdir -p "$base"
trap 'rm -rf "$base"' EXIT
tmp="$base/.build"
mkdir -p "$tmp"
fails=0
ran=0

# dll PATH [IMPORT...]: a DLL at PATH (under $base) exporting f_<its name>, importing f_<name> of
# each IMPORT.
dll() {
    out="$base/$1"
    shift
    name=$(basename "$out")
    sym() { printf 'f_%s' "$(echo "$1" | tr 'A-Z' 'a-z' | sed 's/\.dll$//; s/[^a-z0-9]/_/g')"; }
    src="$tmp/src.c"
    : >"$src"
    body="0"
    libs=""
    for imp in "$@"; do
        s=$(sym "$imp")
        printf '__declspec(dllimport) int %s(void);\n' "$s" >>"$src"
        printf 'LIBRARY %s\nEXPORTS\n%s\n' "$imp" "$s" >"$tmp/$s.def"
        "$dlltool" -d "$tmp/$s.def" -l "$tmp/lib$s.a" -D "$imp" || exit 1
        libs="$libs $tmp/lib$s.a"
        body="$body + $s()"
    done
    printf '__declspec(dllexport) int %s(void) { return %s; }\n' "$(sym "$name")" "$body" >>"$src"
    printf 'int __stdcall entry(void *h, unsigned r, void *p) { (void)h; (void)r; (void)p; return 1; }\n' >>"$src"
    mkdir -p "$(dirname "$out")"
    # shellcheck disable=SC2086
    "$cc" -shared -nostdlib -s -o "$out" "$src" $libs -Wl,-e,entry || exit 1
}

winpath() { printf 'C:\\%s\\%s' "$tag" "$(printf '%s' "$1" | sed 's|/|\\|g')"; }
# The DLLs a run loaded (or "error"), as paths under $base, lower case, sorted.
normalize() { tr 'A-Z' 'a-z' | sed 's|\\|/|g; s|^c:||; s|^/'"$tag"'/||' | sort; }

# check NAME CASE MODE [OPTION VALUE...]: load CASE/lib/m.dll with the probe copied into CASE/app
# and compare with gpudoctor (--app CASE/app); the options (--path, --cwd, --dll-dir) go to both.
check() {
    name=$1 case=$2 mode=$3
    shift 3
    ran=$((ran + 1))
    mkdir -p "$base/$case/app"
    cp "$probe" "$base/$case/app/probe.exe"
    module=$(winpath "$case/lib/m.dll")
    real=$(sh "$run" "$prefix" "$base/$case/app/probe.exe" "$mode" "$module" "C:\\$tag\\$case\\" "$@" \
        2>/dev/null | tr -d '\r')
    case "$real" in
    error*) real=error ;;
    *) real=$(printf '%s\n' "$real" | normalize | grep -v '/m\.dll$' | grep -v '/probe\.exe$') ;;
    esac
    emu=$(sh "$run" "$prefix" "$gd" which --root 'C:\' --os windows --mode "$mode" \
        --app "$(winpath "$case/app")" "$@" --ldd "$module" 2>&1 | tr -d '\r')
    if printf '%s\n' "$emu" | grep -q 'not found\|error'; then
        emu=error
    else
        emu=$(printf '%s\n' "$emu" | sed -n 's/^\t[^ ]* => //p' | normalize | grep "^$case/")
    fi
    if [ "$real" = "$emu" ]; then
        echo "ok   $name ($mode): $(printf '%s ' $real)"
    else
        echo "FAIL $name ($mode): wine loads [$(printf '%s ' $real)], gpudoctor says [$(printf '%s ' $emu)]"
        fails=$((fails + 1))
    fi
}

# The module's own directory: searched in the extension order only.
dll own/lib/m.dll a.dll
dll own/lib/a.dll
check "the module's directory" own extension
check "the module's directory" own standard
# Only on PATH: the standard order finds it, Python 3.8+'s does not.
dll path/lib/m.dll b.dll
dll path/bin/b.dll
check "PATH" path extension --path "$(winpath path/bin)"
check "PATH" path standard --path "$(winpath path/bin)"
# os.add_dll_directory / AddDllDirectory: the extension order only.
dll user/lib/m.dll c.dll
dll user/added/c.dll
check "AddDllDirectory" user extension --dll-dir "$(winpath user/added)"
check "AddDllDirectory" user standard --dll-dir "$(winpath user/added)"
# The application's directory: both.
dll app/lib/m.dll d.dll
dll app/app/d.dll
check "the application's directory" app extension
check "the application's directory" app standard
# Names in another case than the file's.
dll case/lib/m.dll E.DLL
dll case/lib/e.dll
check "a name in upper case" case extension
# The module's directory before PATH; PATH's copy for the standard order.
dll order/lib/m.dll f.dll
dll order/lib/f.dll
dll order/bin/f.dll
check "two copies" order extension --path "$(winpath order/bin)"
check "two copies" order standard --path "$(winpath order/bin)"
# A dependency's dependency, in the module's directory (the request's, not the dependency's).
dll deep/lib/m.dll g.dll
dll deep/sub/g.dll h.dll
dll deep/lib/h.dll
check "the request's directories" deep extension --dll-dir "$(winpath deep/sub)"
# The current directory: the standard order only.
dll cwd/lib/m.dll k.dll
dll cwd/here/k.dll
check "the current directory" cwd extension --cwd "$(winpath cwd/here)"
check "the current directory" cwd standard --cwd "$(winpath cwd/here)"

echo "$ran arrangements, $fails differ"
[ "$fails" -eq 0 ]
