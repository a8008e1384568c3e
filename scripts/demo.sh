#!/usr/bin/env bash
# Builds stridekit and runs it on the built-in examples: the DHW layout of the DirectML strides page, then the
# DirectML Slice1 doc example on a shipped .npy (4x4 input 1..16 -> 14, 16, 6, 8).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p stridekit-cli
SK=target/release/stridekit
echo '$ stridekit explain --dtype float32 --sizes 2,2,3 --layout DHW'
$SK explain --dtype float32 --sizes 2,2,3 --layout DHW
echo
echo '$ stridekit slice examples/doc_4x4.npy target/doc_slice1.npy --offsets 0,0,0,1 --sizes 1,1,4,3 --strides 1,1,-2,2 --explain --print'
$SK slice examples/doc_4x4.npy target/doc_slice1.npy --offsets 0,0,0,1 --sizes 1,1,4,3 --strides 1,1,-2,2 --explain --print
