#!/usr/bin/env bash
# Builds the Debian package (xpuperf_<version>_<arch>.deb, plus its -dbgsym package) with CPack.
#   scripts/package.sh [BUILD_DIR]           build BUILD_DIR (default build/, configured as main.sh
#                                            does when absent) and package it into BUILD_DIR/packages
#   scripts/package.sh [BUILD_DIR] --check   then install it with apt-get as an operator does, run
#                                            `xpuperf devices` and the quick suite from /usr/bin in an
#                                            empty directory, and remove it again (CI does this)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
check=${2:-}
bash scripts/install-deps.sh
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  bash scripts/build.sh "$build_dir" -DXPUPERF_BUILD_TESTS=OFF -DXPUPERF_BUILD_BENCHMARKS=OFF \
    -DXPUPERF_WITH_PYTHON=OFF
fi
# What the package holds (the binaries, the C ABI's library): built here so that cpack's own
# "everything" build finds nothing left to do in a tree configured with tests.
cmake --build "$build_dir" --parallel "$(nproc)" --target xpuperf xpuperf_full xpuperf_c
rm -rf "$build_dir/packages"
(cd "$build_dir" && cpack -G DEB -B "$PWD/packages" >/dev/null)
deb=$(ls "$build_dir"/packages/xpuperf_*.deb)
echo "package.sh: $deb ($(du -h "$deb" | cut -f1))"
ls "$build_dir"/packages/*.*deb | sed 's/^/package.sh: /'
[ "$check" = "--check" ] || exit 0

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
if dpkg-query -W -f='${Status}' xpuperf 2>/dev/null | grep -q "install ok installed"; then
  echo "package.sh: xpuperf is already installed here; not touching it" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get install -y -qq "$(realpath "$deb")" >/dev/null
cleanup() { "${sudo_cmd[@]}" apt-get remove -y -qq xpuperf >/dev/null || true; }
trap cleanup EXIT
test "$(command -v xpuperf)" = /usr/bin/xpuperf
# Stripped: the debug information went to the -dbgsym package.
! readelf -S /usr/bin/xpuperf-full | grep -q '\.debug_info' 
scratch=$(mktemp -d)
(
  cd "$scratch"
  /usr/bin/xpuperf --version
  /usr/bin/xpuperf devices
  /usr/bin/xpuperf bench run --suite quick
  run=$(ls -d results/*/)
  test -s "$run/results.jsonl"
  /usr/bin/xpuperf roofline "$run" --html report.html >/dev/null
  test -s report.html
)
rm -rf "$scratch"
trap - EXIT
cleanup
! dpkg-query -W -f='${Status}' xpuperf 2>/dev/null | grep -q "install ok installed"
test ! -e /usr/bin/xpuperf
echo "package.sh: installed, ran devices and the quick suite from /usr/bin, removed"
