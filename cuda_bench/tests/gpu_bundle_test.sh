#!/usr/bin/env bash
# The GPU bundle end to end, on any machine: scripts/gpu-bundle.sh --no-build packs this build's
# programs; they start from an empty root (chroot, when run as root) through the packed loader, so
# nothing comes from this machine's libraries; scripts/gpu-check.sh --prebuilt runs the whole check
# with the bundle and packs its folder. Without a GPU, the GPU steps say why they did not run.
#   gpu_bundle_test.sh REPO BUILD_DIR
set -euo pipefail
repo=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

XPUPERF_GPU_BUILD_DIR=$build bash "$repo/scripts/gpu-bundle.sh" --no-build "$tmp/bundle.tar.xz"
mkdir "$tmp/root"
tar -C "$tmp/root" -xJf "$tmp/bundle.tar.xz"
bundle=$tmp/root/xpuperf-gpu
grep -q '^programs: xpuperf cuda_bench_gpu_tests cuda_bench_tests cuda_baselines$' \
  "$bundle/MANIFEST.txt" || fail "MANIFEST.txt does not list the programs"
for lib in "$bundle"/lib/*; do
  case $(basename "$lib") in libcuda.* | libnvidia-* | libcublas* | libnccl*) fail "packed $lib" ;; esac
done
[[ $("$bundle/bin/xpuperf" --version) == "xpuperf "* ]] || fail "bin/xpuperf --version"

if [ "$(id -u)" -eq 0 ] && command -v chroot >/dev/null; then
  # An empty root (but /tmp): no /lib, no /usr. Only the bundle's loader and libraries can serve
  # the programs.
  mkdir -m 1777 "$tmp/root/tmp"
  in_root=(chroot "$tmp/root" /xpuperf-gpu/lib/ld-linux-x86-64.so.2 --library-path /xpuperf-gpu/lib)
  [[ $("${in_root[@]}" /xpuperf-gpu/libexec/xpuperf --version) == "xpuperf "* ]] ||
    fail "xpuperf does not start from an empty root"
  rc=0
  output=$("${in_root[@]}" /xpuperf-gpu/libexec/cuda_bench_gpu_tests 2>&1) || rc=$?
  [ "$rc" -eq 77 ] || fail "cuda_bench_gpu_tests in an empty root: exit $rc, expected 77: $output"
  grep -q 'no CUDA driver' <<<"$output" || fail "no reason given: $output"
else
  echo "not root: the empty-root start is not checked"
fi

# The whole check with the bundle. Steps that need a GPU fail or skip here; the others pass.
rc=0
bash "$repo/scripts/gpu-check.sh" --prebuilt "$tmp/bundle.tar.xz" --archive "$tmp/check.tar.gz" \
  "$tmp/check" >"$tmp/check.log" 2>&1 || rc=$?
summary=$tmp/check/summary.txt
for step in unpack host_tests devices health bench_quick roofline; do
  grep -q "^$step: ok" "$summary" || fail "gpu-check step $step: $(grep "^$step:" "$summary")"
done
if ! command -v nvidia-smi >/dev/null; then
  [ "$rc" -eq 1 ] || fail "gpu-check without a GPU: exit $rc, expected 1"
  grep -q '^gpu_tests: skipped .*no CUDA driver' "$summary" || fail "gpu_tests not skipped: $(cat "$summary")"
fi
[ -s "$tmp/check/results-quick/results.jsonl" ] || fail "no quick results"
# The diagnostic ran and wrote its results (pass or fail is the VM's: its performance gate is noisy).
[ -s "$tmp/check/diag/diag.json" ] || fail "no diag results: $(grep '^diag:' "$summary")"
tar -tzf "$tmp/check.tar.gz" >"$tmp/listing"
grep -q '^check/summary.txt$' "$tmp/listing" || fail "archive lacks summary.txt"

# Bad arguments: exit 2 with a reason.
rc=0
bash "$repo/scripts/gpu-check.sh" --prebuilt "$tmp/missing.tar.xz" "$tmp/x" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q 'no bundle at' "$tmp/err" || fail "missing bundle: exit $rc"
rc=0
bash "$repo/scripts/gpu-check.sh" --bogus 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q 'unknown option --bogus' "$tmp/err" || fail "unknown option: exit $rc"
echo "gpu bundle: ok"
