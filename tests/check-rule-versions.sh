#!/bin/sh
# Every version a rule names in its text (a string literal of src/rules/*.c, comments aside)
# exists as a value of the knowledge base (data/kb/*.json): rules take versions from the tables,
# and one written into a rule must at least be one the tables know. The scanner is first run on
# a sample that names a version no table has, which it must reject.
top=$1
cd "$top" || exit 1
scan() {
  # Version-like words inside string literals, comments removed; printf conversions skipped.
  perl -0777 -ne '
    s{/\*.*?\*/}{}gs; s{//[^\n]*}{}g;
    while (/"((?:[^"\\\n]|\\.)*)"/g) {
      my $lit = $1;
      while ($lit =~ /(?<![%\w.])(\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)/g) { print "$1\n"; }
    }' "$@"
}
known() {
  grep -qF "\"$1\"" data/kb/*.json || grep -qF "\"$1." data/kb/*.json
}
sample=$(mktemp) || exit 1
trap 'rm -f "$sample"' EXIT
printf '/* "1.2.3" in a comment */\nstatic const char *x = "needs driver 123.456.789";\n' >"$sample"
found=$(scan "$sample")
if [ "$found" != "123.456.789" ] || known 123.456.789; then
  echo "the scanner does not work: it found '$found' in the sample"
  exit 1
fi
bad=0
n=0
for v in $(scan src/rules/*.c | sort -u); do
  n=$((n + 1))
  known "$v" || { echo "src/rules names version $v, which no data/kb table holds"; bad=1; }
done
[ $bad = 0 ] && echo "$n versions named by rules, all in the knowledge base"
exit $bad
