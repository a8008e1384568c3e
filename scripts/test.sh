#!/usr/bin/env bash
# The whole test suite: unit, integration, property and doc tests of every crate, and the CLI's golden tests.
# Tests that compare against real NumPy need python3 with numpy; set STRIDEKIT_REQUIRE_NUMPY=1 to make its
# absence a failure (CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --all-targets
cargo test --workspace --doc
