#!/usr/bin/env bash
# Renders the roofline SVG of a fixture result directory and workload and checks it with xmllint.
# Exit 77 (skipped) when xmllint is not installed.
set -euo pipefail
xpuperf=$1
data=$2
if ! command -v xmllint >/dev/null 2>&1; then
  echo "xmllint not installed (Debian: apt-get install libxml2-utils); skipping"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$xpuperf" roofline "$data/results-cpu" --workload "$data/workload-mixed.yaml" \
  --svg "$out/roofline.svg" >/dev/null
xmllint --noout "$out/roofline.svg"
"$xpuperf" roofline "$data/results-accelerator" --workload "$data/workload-mixed.yaml" \
  --spec "$data/spec-accelerator.yaml" --svg "$out/roofline-accelerator.svg" >/dev/null
xmllint --noout "$out/roofline-accelerator.svg"
echo "roofline SVGs are well-formed"
