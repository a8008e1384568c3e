#!/usr/bin/env bash
# The whole test suite:
#   1. Rust: unit, integration, property, golden and doc tests of every crate, the CPU and GPU backends included
#      (each backend passes the shared conformance suite; the CLI's golden tests; the C API's Rust tests);
#   2. C: the C library from a C11 and a C++17 program, plain and under AddressSanitizer + UBSan (scripts/test-c.sh);
#   3. Python: `pip install ./python` into a virtual environment, then its pytest suite (scripts/test-python.sh).
# Tests that compare against real NumPy need python3 with numpy (STRIDEKIT_REQUIRE_NUMPY=1 makes its absence a
# failure); the GPU tests need a GPU driver or Mesa's lavapipe (STRIDEKIT_REQUIRE_GPU=1 makes a missing adapter a
# failure). CI sets both.
set -euo pipefail
cd "$(dirname "$0")/.."
# Mesa's device-select layer prints a harmless warning on headless machines.
export NODEVICE_SELECT="${NODEVICE_SELECT:-1}"
step() { echo "== $* ($(date -u +%H:%M:%S))"; }

step "Rust tests"
cargo test --workspace --all-targets
step "Rust doc tests"
cargo test --workspace --doc
step "C library tests (scripts/test-c.sh)"
scripts/test-c.sh
step "Python package tests (scripts/test-python.sh)"
scripts/test-python.sh
