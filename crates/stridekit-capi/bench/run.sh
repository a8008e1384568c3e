#!/usr/bin/env bash
# Measures skExecuteOperator against the Rust prepared operator on DirectML's 4x4 Slice1 example, in one run:
# the Rust example (PreparedSlice1::execute and execute_bound) and the
# C program linked to libstridekit_c.so. Timings, not a test. Usage: crates/stridekit-capi/bench/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
cargo build --release -p stridekit-capi --lib --example execute_timing
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -std=c11 -O2 -Wall -Wextra -Werror -I"$here/../include" "$here/execute_timing.c" -o "$work/execute_timing" \
    -L"$target/release" -lstridekit_c -Wl,-rpath,"$target/release"
for round in 1 2 3 4; do
    echo "# round $round"
    "$target/release/examples/execute_timing"
    "$work/execute_timing"
done
