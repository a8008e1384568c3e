#!/usr/bin/env bash
# Runs the stridekit-cpu tests under Miri, in the reduced-size profile the tests select with cfg(miri): few proptest
# cases, small shapes, no threaded option set on the targeted kernel cases (tests/common.rs), and none of the unit
# tests of safe code that runs no kernel (the planner's, the tables', the options': `cfg(not(miri))`, since Miri could
# find nothing there that the ordinary test run does not, and they cost it 3 minutes per lane). The model crate and the
# testkit forbid unsafe code; the testkit runs here only as the kernel tests' oracle.
#
# Two passes: the x86_64 baseline (the portable kernels; runtime detection finds no AVX2 under Miri), then with
# AVX2 enabled at compile time so that the SIMD kernels (shuffles, permutes, streaming stores) run under Miri too.
# The second pass also runs the portable kernels (its portable option set), so the targeted cases of
# tests/kernels.rs and tests/reuse.rs run in the second pass only.
#
# Miri runs one interpreter thread per test binary, so the passes run as two lanes on two cores (MIRI_LANES=1 runs
# them one after the other): lane 1 is the portable pass, then the AVX2 pass's tests whose names contain one of
# $AVX2_LANE1 (substring filters); lane 2 is the rest of the AVX2 pass (the same filters as --skip). Filters and
# skips partition every test binary exactly, so a new test runs in lane 2 unless it is named into lane 1. The lanes'
# output is prefixed with their name; the script fails when either lane fails.
#
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
# The AVX2 tests of lane 1 (tests/kernels.rs cases; "interleaves_" also takes "deinterleaves_"): with the portable
# pass, about half of the work. Wall times on a 2-core machine, 2026-11-27 (tests only, builds cached): the portable
# pass 6.3 minutes, the AVX2 pass 30, of which these 11.5 (lanes of 18 and 19 minutes). The lanes took 41 minutes
# before the reference's loop was made cheap to interpret and the changes listed at the top. Later tests went to
# lane 2 by default: later that day the lanes took 19.5 and 26 minutes (builds included), so table_partners_ (about
# 3 minutes) moved to lane 1. On 2026-12-07 the lanes' tests took 20 and 26 minutes; the planner then placed its
# table windows several times faster (most of what Miri spent on the table tests), which shortened lane 1 the most,
# so the tables under rows and the NCHW transposes (about 3 minutes before) moved to lane 1.
AVX2_LANE1=(interleaves_ gathers_stride_ narrow_transposes_ gather_tiles_ small_runs_ short_rows_under_strided
  short_row_shuffles_ table_partners_ under_rows_take_the_table transposes_nchw_to_nhwc)
# Tests the portable pass skips: the replicate tests exercise the outer loops' replication, not a kernel, and the
# AVX2 pass runs them with its portable option set too (they were 100 of the portable pass's 300 seconds).
PORTABLE_SKIP=(replicated_)

portable() {
  echo "== miri: portable kernels $*"
  cargo +nightly miri test -p stridekit-cpu --lib --tests -- "$@"
}
avx2() {
  echo "== miri: AVX2 kernels $*"
  RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+avx2" CARGO_TARGET_DIR="$CARGO_TARGET_DIR-avx2" \
    cargo +nightly miri test -p stridekit-cpu --lib --tests -- "$@"
}

if [ "$(uname -m)" != x86_64 ]; then
  portable
  exit 0
fi
skips=()
for f in "${AVX2_LANE1[@]}"; do skips+=(--skip "$f"); done
portable_skips=()
for f in "${PORTABLE_SKIP[@]}"; do portable_skips+=(--skip "$f"); done
lane1() { portable "${portable_skips[@]}" && avx2 "${AVX2_LANE1[@]}"; }
lane2() { avx2 "${skips[@]}"; }
if [ "${MIRI_LANES:-2}" = 1 ]; then
  lane1
  lane2
  exit 0
fi
# Each lane in the background, in its own process group (job control on), its lines prefixed; pipefail makes a
# lane's status cargo's.
set -m
(lane1 2>&1 | sed -u 's/^/[miri 1] /') &
pid1=$!
(lane2 2>&1 | sed -u 's/^/[miri 2] /') &
pid2=$!
# A signal stops both lanes (and their cargo and Miri processes) rather than leaving one running.
trap 'kill -- -"$pid1" -"$pid2" 2>/dev/null; exit 130' INT TERM
status=0
wait "$pid1" || status=1
wait "$pid2" || status=1
[ "$status" = 0 ] && echo "== miri: both lanes passed" || echo "== miri: a lane failed (see its [miri N] lines)"
exit "$status"
