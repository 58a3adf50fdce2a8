#!/bin/sh
# Every finding id that src/rules can emit has a section in docs/findings.md, and every id the
# document lists is still emitted somewhere (no stale entries).
top=$1
cd "$top" || exit 1
doc=docs/findings.md
[ -f "$doc" ] || { echo "missing $doc"; exit 1; }
# String literals passed as the id of gd_finding_add(report, "id", ...), even across lines.
ids=$(perl -0ne 'print "$1\n" while /gd_finding_add\(\s*\w+,\s*"([a-z0-9.-]+)"/g' src/rules/*.c)
# Ids built at run time are declared next to the code that builds them: "finding-id: ID".
ids="$ids $(grep -ho 'finding-id: [a-z0-9.-]*' src/rules/*.c | sed 's/finding-id: //')"
ids=$(echo $ids | tr ' ' '\n' | sort -u)
bad=0
for id in $ids; do
  grep -q "^### \`$id\`" "$doc" || { echo "finding $id is not documented in $doc"; bad=1; }
done
for id in $(grep -o '^### `[a-z0-9.-]*`' "$doc" | tr -d '#` '); do
  echo "$ids" | grep -qx "$id" || { echo "$doc documents $id, which no rule emits"; bad=1; }
done
[ $bad = 0 ] && echo "$(echo "$ids" | wc -l) finding ids documented"
exit $bad
