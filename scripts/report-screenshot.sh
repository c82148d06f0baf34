#!/usr/bin/env bash
# Renders the HTML report of a benchmark result directory to a PNG with headless Chromium, to look
# at the roofline as a browser draws it.
#   scripts/report-screenshot.sh RESULTS_DIR OUT.png [WORKLOAD.yaml]
# Uses RESULTS_DIR/report.html when it exists, else writes it with `xpuperf roofline` (the binary
# from $XPUPERF, or build/xpuperf). Chromium is not a build dependency; on Debian/Ubuntu install it
# with `apt-get install -y chromium`. Window size: $REPORT_WINDOW (default 1280,2400).
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 RESULTS_DIR OUT.png [WORKLOAD.yaml]" >&2
  exit 2
fi
results=$1
out=$2
workload=${3:-}
root="$(cd "$(dirname "$0")/.." && pwd)"
xpuperf=${XPUPERF:-$root/build/xpuperf}

browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then
    browser=$candidate
    break
  fi
done
if [[ -z $browser ]]; then
  echo "$0: no headless Chromium found; install it with: apt-get install -y chromium" >&2
  exit 1
fi

report="$results/report.html"
if [[ -n $workload || ! -f $report ]]; then
  report="$(mktemp -d)/report.html"
  args=(roofline "$results" --html "$report")
  [[ -n $workload ]] && args+=(--workload "$workload")
  "$xpuperf" "${args[@]}" >/dev/null
fi
report="$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
mkdir -p "$(dirname "$out")"
out_abs="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
# Chromium writes the PNG itself; its chatter about GPU and D-Bus on headless hosts is noise.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --window-size="${REPORT_WINDOW:-1280,2400}" --screenshot="$out_abs" "file://$report" \
  >/dev/null 2>&1
if [[ ! -s $out_abs ]]; then
  echo "$0: $browser wrote no screenshot" >&2
  exit 1
fi
echo "$out_abs"
