#!/usr/bin/env bash
# The C library's tests (issue 13): builds libstridekit_c, installs it into a temporary prefix with
# crates/stridekit-capi/install.sh, and compiles against it through pkg-config, as the README shows:
#   - tests/c/capi_test.c as C11 and as C++17, tests/c/capi_threads.cpp as C++17, all with -Wall -Wextra -Werror
#     -pedantic, linked to the shared library, and tests/c/with_directml_h.c (stridekit.h after DirectML.h's
#     declarations and the Windows types: the guards switch the duplicates off);
#   - the same three again with AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer), linked to the static
#     library (the Rust code is not instrumented; the sanitizers check every access and allocation on the C side,
#     the boundary and the leaks; the Rust side is covered by its own tests).
# Needs cc/c++ (gcc or clang, with libasan/libubsan) and pkg-config.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p stridekit-capi
target=${CARGO_TARGET_DIR:-target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
SKIP_BUILD=1 CARGO_TARGET_DIR=$target crates/stridekit-capi/install.sh "$prefix" >/dev/null
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
read -r -a cflags <<<"$(pkg-config --cflags stridekit_c)"
read -r -a libs <<<"$(pkg-config --libs stridekit_c)"
# Static linking: the archive itself, then what the Rust standard library needs (the .pc file's Libs.private).
read -r -a private <<<"$(pkg-config --static --libs stridekit_c | sed -e 's/-L[^ ]*//g' -e 's/-lstridekit_c//g')"
warn=(-Wall -Wextra -Werror -pedantic)
san=(-g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
src=crates/stridekit-capi/tests/c
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

build_and_run() { # name, compiler, flags... -- then sources and libraries
    local name=$1
    shift
    echo "+ $name"
    "$@" -o "$work/$name"
    "$work/$name"
}

shared=("${libs[@]}" -Wl,-rpath,"$prefix/lib" -pthread)
static=("$prefix/lib/libstridekit_c.a" "${private[@]}" -pthread)
build_and_run c11 cc -std=c11 "${warn[@]}" "${cflags[@]}" "$src/capi_test.c" "${shared[@]}"
build_and_run cxx17 c++ -std=c++17 "${warn[@]}" "${cflags[@]}" -x c++ "$src/capi_test.c" -x none "${shared[@]}"
build_and_run threads c++ -std=c++17 "${warn[@]}" "${cflags[@]}" "$src/capi_threads.cpp" "${shared[@]}"
build_and_run c11-san cc -std=c11 "${warn[@]}" "${san[@]}" "${cflags[@]}" "$src/capi_test.c" "${static[@]}"
build_and_run cxx17-san c++ -std=c++17 "${warn[@]}" "${san[@]}" "${cflags[@]}" -x c++ "$src/capi_test.c" -x none \
    "${static[@]}"
build_and_run threads-san c++ -std=c++17 "${warn[@]}" "${san[@]}" "${cflags[@]}" "$src/capi_threads.cpp" "${static[@]}"
build_and_run with-directml-h cc -std=c11 "${warn[@]}" "${cflags[@]}" "$src/with_directml_h.c" "${shared[@]}"
echo "+ README example (examples/c/slice1_example.c)"
cc -std=c11 "${warn[@]}" "${cflags[@]}" crates/stridekit-capi/examples/c/slice1_example.c -o "$work/example" "${shared[@]}"
[ "$("$work/example")" = "14 16 6 8" ] || { echo "the README example did not print 14 16 6 8" >&2; exit 1; }
echo "C library tests passed"
