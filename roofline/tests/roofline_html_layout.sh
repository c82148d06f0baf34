#!/usr/bin/env bash
# `roofline --html` of the recorded result directories, laid out in headless Chromium: no label of
# the roofline overlaps another or leaves the picture (render/tests/check_svg_layout.sh, which
# judges rotated labels by their real outline). 77 when Chromium is missing.
#   roofline_html_layout.sh XPUPERF SOURCE_DIR
set -euo pipefail
xpuperf=$1 source=$2
data=$source/roofline/tests/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$xpuperf" roofline "$data/results-cpu" --html "$work/cpu.html" >/dev/null
"$xpuperf" roofline "$data/results-accelerator" --spec "$data/spec-accelerator.yaml" \
  --workload "$data/workload-mixed.yaml" --html "$work/accelerator.html" >/dev/null
exec bash "$source/render/tests/check_svg_layout.sh" "$work/cpu.html" "$work/accelerator.html"
