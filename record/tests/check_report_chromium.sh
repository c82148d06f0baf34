#!/usr/bin/env bash
# Records a short job on the fake NVML GPU (power, duty cycle, memory, temperature all present),
# then renders report.html in headless Chromium: the DOM it builds must hold the four SVG plots,
# the screenshot must not be empty, and no chart's text may overlap (check_svg_layout.sh).
# Exit 77 (skipped) when Chromium is not installed.
#   check_report_chromium.sh XPUPERF FAKE_NVML SCENARIO
set -euo pipefail
xpuperf=$1
export XPUPERF_NVML_LIBRARY=$2 XPUPERF_FAKE_NVML_SCENARIO=$3
browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
if [[ -z $browser ]]; then
  echo "skipped: no headless Chromium (apt-get install -y chromium)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$xpuperf" record --backend nvidia --backend cpu --rate 20 --out "$work/rec" -- sleep 1 \
  >/dev/null 2>"$work/record.err" || { cat "$work/record.err"; exit 1; }
run() {
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$work/profile" "$@" "file://$work/rec/report.html" 2>/dev/null
}
run --dump-dom >"$work/dom.html"
plots=$(grep -o '<svg' "$work/dom.html" | wc -l)
for title in Power "Duty cycle" Memory Temperature; do
  grep -q "<h2>$title</h2>" "$work/dom.html" || { echo "no '$title' section"; exit 1; }
done
if [[ $plots -ne 4 ]]; then
  echo "expected 4 SVG plots in the rendered report, found $plots"
  exit 1
fi
grep -q 'nvidia0 gpu' "$work/dom.html" || { echo "no nvidia0 power line in the legend"; exit 1; }
run --window-size=1100,1800 --screenshot="$work/report.png" >/dev/null
size=$(stat -c %s "$work/report.png" 2>/dev/null || echo 0)
if [[ $size -lt 10000 ]]; then
  echo "the screenshot is empty or blank ($size bytes)"
  exit 1
fi
# No tick label, axis title or legend label overlaps another or leaves its chart.
bash "$(dirname "$0")/../../render/tests/check_svg_layout.sh" "$work/rec/report.html"
echo "report rendered: $plots plots, screenshot $size bytes"
