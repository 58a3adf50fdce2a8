#!/bin/sh
# Runs a Windows program of the mingw build under wine: CTest's CMAKE_CROSSCOMPILING_EMULATOR
# (cmake/mingw-w64.cmake). Usage: wine-run.sh WINEPREFIX PROGRAM.exe [ARGS...]
#                                 wine-run.sh WINEPREFIX --init   (create the prefix once)
# Exits 77 (skipped) without wine. The prefix is the build's own, never the user's ~/.wine.
set -eu
prefix=$1
shift
wine=$(command -v wine || command -v wine64 || true)
if [ -z "$wine" ]; then
  echo "wine is not installed: Windows tests skipped (apt-get install wine wine64)" >&2
  exit 77
fi
export WINEPREFIX="$prefix" WINEDEBUG=-all WINEARCH=win64
# No Mono or Gecko: nothing here is .NET or HTML, and their installers would ask for a network.
# No winedbg on a crash: tests crash children on purpose (a vendor call that dies), and the
# debugger wine starts for each takes a second or more to print its backtrace, past the
# deadlines under test; without it the process ends with its exception code at once, as on a
# Windows without a JIT debugger.
export WINEDLLOVERRIDES="mscoree,mshtml=;winedbg.exe=d${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"
if [ "${1:-}" = --init ]; then
  mkdir -p "$prefix"
  "$wine" wineboot -i >/dev/null 2>&1 || true
  # wineboot returns before the server is done writing the registry.
  wineserver_bin=$(command -v wineserver || echo /usr/lib/wine/wineserver64)
  [ -x "$wineserver_bin" ] && WINEPREFIX="$prefix" "$wineserver_bin" -w || true
  [ -f "$prefix/system.reg" ] || { echo "wine could not create $prefix" >&2; exit 1; }
  exit 0
fi
exec "$wine" "$@"
