#!/usr/bin/env bash
# Packs xpuperf, built here with the CUDA benchmarks, into one self-contained archive for a GPU
# machine that has the NVIDIA driver and the CUDA libraries but not the Debian packages xpuperf
# builds with (and no way to fetch them): scripts/gpu-check.sh --prebuilt ARCHIVE runs it there.
#
#   scripts/gpu-bundle.sh [--no-build] [ARCHIVE]     (default: .gpu-bundle/xpuperf-gpu.tar.xz)
#
#   --no-build   pack what the build folder holds, without installing, configuring or building
#
# The archive holds the programs gpu-check runs (xpuperf, cuda_bench_gpu_tests, cuda_bench_tests,
# cuda_baselines), stripped of debug info, every shared library they need from this machine, the
# dynamic loader and C library among them, and the spec sheets. Each program is started through
# a wrapper that runs the packed loader on the packed libraries, so the bundle does not depend on
# the other machine's distribution. Left out on purpose, to be taken from the GPU machine: the
# driver's libraries (libcuda, libnvidia-ml) and the CUDA libraries xpuperf loads at run time
# (cuBLAS/cuBLASLt, NCCL, NVRTC), which must match its driver.
#
# Environment: XPUPERF_GPU_BUILD_DIR (default build-gpu, shared with gpu-check.sh),
# XPUPERF_CUDA_ARCHITECTURES (default 80;90).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build_first=1
archive=""
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) build_first=0; shift ;;
    -*) echo "gpu-bundle: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$archive" ] || { echo "gpu-bundle: one ARCHIVE only" >&2; exit 2; }; archive=$1; shift ;;
  esac
done
archive=${archive:-.gpu-bundle/xpuperf-gpu.tar.xz}
build=${XPUPERF_GPU_BUILD_DIR:-build-gpu}
programs=(xpuperf cuda_bench_gpu_tests cuda_bench/cuda_bench_tests cuda_baselines)

nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if [ "$build_first" -eq 1 ]; then
  bash scripts/install-deps.sh
  [ -x "$nvcc" ] || { echo "gpu-bundle: no nvcc at $nvcc (set CUDACXX)" >&2; exit 1; }
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXPUPERF_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="${XPUPERF_CUDA_ARCHITECTURES:-80;90}" \
    -DXPUPERF_BUILD_TESTS=ON -DXPUPERF_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build "$build" --parallel "$(nproc)" --target xpuperf cuda_bench_gpu_tests \
    cuda_bench_tests cuda_baselines
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/xpuperf-gpu
mkdir -p "$root/bin" "$root/libexec" "$root/lib" "$root/share/xpuperf"

# Libraries the GPU machine provides itself (driver and CUDA libraries), never packed.
from_gpu_machine='^(libcuda|libnvidia-|libcublas|libcublasLt|libnccl|libnvrtc|libcudart)\.'

declare -A packed=()
pack_libraries() {  # the shared libraries an ELF file needs, as ldd resolves them here
  local name path
  while read -r name path; do
    [[ "$name" =~ $from_gpu_machine ]] && continue
    [ -f "$path" ] || continue
    [ -n "${packed[$name]:-}" ] && continue
    packed[$name]=1
    cp -L "$path" "$root/lib/$name"
  done < <(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
}

for program in "${programs[@]}"; do
  name=$(basename "$program")
  # build/xpuperf runs analyze itself and execs xpuperf-full for the rest (cli/main.cpp); that
  # execv would bypass the packed loader, so the bundle's xpuperf is the full binary.
  [ "$program" = xpuperf ] && [ -x "$build/xpuperf-full" ] && program=xpuperf-full
  [ -x "$build/$program" ] || { echo "gpu-bundle: $build/$program was not built" >&2; exit 1; }
  strip --strip-debug -o "$root/libexec/$name" "$build/$program"
  pack_libraries "$build/$program"
  ln -s run "$root/bin/$name"
done
loader=$(readelf -l "$build/xpuperf" | sed -n 's/.*program interpreter: \(.*\)]/\1/p')
cp -L "$loader" "$root/lib/$(basename "$loader")"
chmod -R u+w "$root/lib"
strip --strip-unneeded "$root"/lib/*.so* 2>/dev/null || true
cp -r spec/sheets "$root/share/xpuperf/spec"

cat >"$root/bin/run" <<EOF
#!/bin/sh
# Starts libexec/\$(basename "\$0") through the packed loader on the packed libraries; after them
# come LD_LIBRARY_PATH's folders and the system's, where the driver and CUDA libraries are found.
here=\$(cd "\$(dirname "\$0")/.." && pwd)
name=\$(basename "\$0")
export XPUPERF_SPEC_DIR="\${XPUPERF_SPEC_DIR:-\$here/share/xpuperf/spec}"
export XPUPERF_EXECUTABLE="\$here/bin/\$name"
exec "\$here/lib/$(basename "$loader")" --library-path "\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" \\
  "\$here/libexec/\$name" "\$@"
EOF
chmod +x "$root/bin/run"

{
  echo "xpuperf GPU bundle"
  echo "commit: $(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "nvcc: $("$nvcc" --version 2>/dev/null | tail -1)"
  echo "GPU code (nvcc -gencode): $(grep -o 'arch=compute_[0-9a]*,code=[^ ]*' "$build/build.ninja" |
    sort -u | tr '\n' ' ')"
  echo "programs: ${programs[*]##*/}"
  echo "libraries: $(ls "$root/lib" | tr '\n' ' ')"
} >"$root/MANIFEST.txt"

mkdir -p "$(dirname "$archive")"
tmp="$archive.tmp.$$"
tar -C "$stage" -cf - xpuperf-gpu | xz -T0 -6 >"$tmp"
mv "$tmp" "$archive"
echo "gpu-bundle: $archive ($(du -h "$archive" | cut -f1)); run it with scripts/gpu-check.sh --prebuilt $archive"
