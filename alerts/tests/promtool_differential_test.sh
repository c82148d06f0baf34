#!/usr/bin/env bash
# The differential test between Prometheus 2.42 (promtool) and xpuperf's built-in rule engine:
#  1. promtool runs every shipped rule test (the rules do what the tests say);
#  2. `xpuperf alert test` runs the same tests with the built-in engine;
#  3. the built-in engine writes its whole timeline (firing alerts with labels and annotations,
#     and pending alerts through ALERTS, at every evaluation step) as a promtool test, and
#     promtool must pass it: both engines agree at every step, not only at the checked times;
#  4. a timeline with one step altered must fail in promtool (the comparison can fail).
# Usage: promtool_differential_test.sh XPUPERF RULES_DIR
set -euo pipefail
xpuperf=$1
rules=$2
if ! command -v promtool >/dev/null; then
  echo "skipped: promtool not installed (Debian package prometheus)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shopt -s nullglob
tests=("$rules"/tests/*.test.yml)
[[ ${#tests[@]} -gt 0 ]] || { echo "no rule tests under $rules/tests"; exit 1; }
# Every shipped rule file has a test file.
for file in "$rules"/*.yml; do
  base=$(basename "$file" .yml)
  [[ -f "$rules/tests/$base.test.yml" ]] || { echo "no promtool test for $file"; exit 1; }
done
promtool check rules "$rules"/*.yml
promtool test rules "${tests[@]}"
for test in "${tests[@]}"; do
  timeline="$work/$(basename "$test" .test.yml).timeline.yml"
  "$xpuperf" alert test "$test" --timeline-out "$timeline"
  steps=$(grep -c 'eval_time:' "$timeline")
  echo "$(basename "$test"): checking the built-in engine's timeline ($steps checks) with promtool"
  promtool test rules "$timeline"
done
# Mutation: drop the labels of the first firing alert of the first timeline; promtool must object.
first="$work/$(basename "${tests[0]}" .test.yml).timeline.yml"
python3 - "$first" "$work/mutated.yml" <<'PY'
import sys
text = open(sys.argv[1]).read()
marker = "        exp_alerts:\n          - exp_labels:\n"
at = text.index(marker)
end = text.index("      - eval_time:", at)
open(sys.argv[2], "w").write(text[:at] + "        exp_alerts: []\n" + text[end:])
PY
if promtool test rules "$work/mutated.yml" >/dev/null 2>&1; then
  echo "promtool accepted an altered timeline: the differential comparison cannot fail"
  exit 1
fi
echo "differential: promtool and the built-in engine agree on every step of every shipped rule"
