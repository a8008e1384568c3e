#!/usr/bin/env bash
# Runs the stridekit-cpu kernel tests (and the testkit's own tests) under Miri, in the reduced-size profile the tests
# select with cfg(miri): few proptest cases, small shapes.
#
# Two passes: the x86_64 baseline (the portable kernels; runtime detection finds no AVX2 under Miri), then with
# AVX2 enabled at compile time so that the SIMD kernels (shuffles, permutes, streaming stores) run under Miri too.
# The second pass also runs the portable kernels (its portable option set), so the targeted cases of
# tests/kernels.rs and tests/reuse.rs run in the second pass only.
# rayon needs -Zmiri-ignore-leaks (its global pool outlives main) and crossbeam-epoch casts integers to pointers
# (-Zmiri-permissive-provenance silences that, it is not our code); tree borrows is the aliasing model we target.
#
# Needs: rustup component add --toolchain nightly miri rust-src
set -euo pipefail
cd "$(dirname "$0")/.."
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-tree-borrows -Zmiri-ignore-leaks -Zmiri-permissive-provenance}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/miri"
# Miri pays for every instruction: keep proptest small even where a test does not read cfg(miri).
export PROPTEST_CASES="${PROPTEST_CASES:-3}"
echo "== miri: portable kernels" >&2
cargo +nightly miri test -p stridekit-cpu -p stridekit-testkit --lib --tests "$@"
if [ "$(uname -m)" = x86_64 ]; then
  echo "== miri: AVX2 kernels" >&2
  RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+avx2" CARGO_TARGET_DIR="$CARGO_TARGET_DIR-avx2" \
    cargo +nightly miri test -p stridekit-cpu --lib --tests "$@"
fi
