#!/usr/bin/env bash
# `analyze --html` of every shared trace, laid out in headless Chromium: no text of any chart
# overlaps another or leaves its chart (render/tests/check_svg_layout.sh). 77 when skipped.
#   analyze_html_layout.sh XPUPERF TRACE_DIR SOURCE_DIR
set -euo pipefail
xpuperf=$1 traces=$2 source=$3
[[ -d $traces ]] || { echo "skipped: no trace directory at $traces"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
reports=()
for trace in "$traces"/*.json "$traces"/*.json.gz; do
  [[ -f $trace ]] || continue
  name=$(basename "$trace"); name=${name%%.*}
  if "$xpuperf" analyze "$trace" --html "$work/$name.html" >/dev/null 2>"$work/$name.err"; then
    reports+=("$work/$name.html")
  fi
done
[[ ${#reports[@]} -gt 0 ]] || { echo "no trace gave an HTML report"; cat "$work"/*.err; exit 1; }
exec bash "$source/render/tests/check_svg_layout.sh" "${reports[@]}"
