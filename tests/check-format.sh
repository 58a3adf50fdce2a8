#!/bin/sh
# Fails when a C source or header differs from what clang-format makes of it.
top=$1
command -v clang-format >/dev/null 2>&1 || { echo "clang-format not installed: skipped"; exit 77; }
cd "$top" || exit 1
bad=0
# The sources, not the fixtures (vendors' headers as they write them), as `make format`.
for f in $(git ls-files -- '*.c' '*.h' ':!:tests/fixtures/' 2>/dev/null ||
  find include src tests fuzz bench -path tests/fixtures -prune -o -name '*.[ch]' -print); do
  [ -f "$f" ] || continue
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (run: make format)"
    bad=1
  fi
done
exit $bad
