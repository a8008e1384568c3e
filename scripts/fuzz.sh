#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/) for a bounded time, one after the other, and fails on any crash.
#
#   scripts/fuzz.sh                                   # 30 s per target
#   FUZZ_SECONDS=600 scripts/fuzz.sh                  # longer
#   FUZZ_TARGETS="npy_read" FUZZ_SECONDS=60 scripts/fuzz.sh
#
# Needs the nightly toolchain (libFuzzer instrumentation); installs cargo-fuzz when it is missing. The committed
# corpus (fuzz/corpus/<target>/) and regression inputs (fuzz/regressions/<target>/) are read, never written: new
# inputs go to a scratch directory that is deleted afterwards, so the work tree stays clean. A crash leaves its input
# in fuzz/artifacts/<target>/ (ignored by git) and the script exits non-zero. See docs/FUZZING.md.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-30}"
targets="${FUZZ_TARGETS:-slice1_validate_then_run frontends npy_read}"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "error: cargo-fuzz needs the nightly toolchain (rustup toolchain install nightly)" >&2
    exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

cd fuzz
echo "== cargo +nightly fuzz build"
cargo +nightly fuzz build

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=()
for target in $targets; do
    echo "== fuzz $target for ${seconds}s ($(date -u +%H:%M:%S))"
    mkdir -p "$scratch/$target"
    dirs=("$scratch/$target" "corpus/$target")
    if [[ -d "regressions/$target" ]]; then
        dirs+=("regressions/$target")
    fi
    log="$scratch/$target.log"
    # -timeout: one input taking longer is a finding too. nice: fuzzing shares the machine.
    if nice -n 19 cargo +nightly fuzz run "$target" "${dirs[@]}" -- \
        -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
        grep -E '^(#[0-9]+\s+DONE|stat::number_of_executed_units|Done [0-9]+ runs)' "$log" || tail -n 3 "$log"
    else
        echo "error: $target failed; the end of its log:" >&2
        tail -n 60 "$log" >&2
        failed+=("$target")
    fi
done

if ((${#failed[@]})); then
    echo "error: crashes in: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
    exit 1
fi
echo "== fuzz: no crash in ${targets}"
