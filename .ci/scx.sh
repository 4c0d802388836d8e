#!/usr/bin/env bash
# Build the sched_ext scheduler the sched_ext tests attach (scx_bpfland,
# from crates.io), once: it is cached under /var/cache/kbench-test-scx and
# rebuilt only when absent.  Needs clang-19, libclang-19-dev, llvm-19,
# libelf-dev, zlib1g-dev and pkg-config (.ci/run installs them).
# Usage: .ci/scx.sh [CACHE_DIR]; prints the binary's path.
set -euo pipefail
cache="${1:-/var/cache/kbench-test-scx}"
version="${SCX_BPFLAND_VERSION:-1.1.4}"
bin="$cache/$version/bin/scx_bpfland"
if [ -x "$bin" ]; then
    echo "$bin"
    exit 0
fi
mkdir -p "$cache"
export PATH="/usr/lib/llvm-19/bin:$PATH" LIBCLANG_PATH=/usr/lib/llvm-19/lib
# A private target dir, removed after: only the binary is kept.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CARGO_TARGET_DIR="$tmp/target" cargo install --locked --quiet \
    --root "$tmp/root" --version "$version" scx_bpfland >&2
mkdir -p "$cache/$version/bin"
install -m 0755 "$tmp/root/bin/scx_bpfland" "$bin.new"
mv "$bin.new" "$bin"
echo "$bin"
