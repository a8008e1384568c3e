#!/usr/bin/env bash
# Builds and installs libstridekit_c (.so and .a), include/stridekit.h and the pkg-config file stridekit_c.pc.
#
#   crates/stridekit-capi/install.sh [PREFIX]        PREFIX defaults to /usr/local
#
# Environment: DESTDIR (staged installs), LIBDIR (default PREFIX/lib), CARGO_TARGET_DIR (where cargo builds),
# SKIP_BUILD=1 (install what is already built). Then: cc prog.c $(pkg-config --cflags --libs stridekit_c)
# (add --static to link libstridekit_c.a; Libs.private lists what the Rust standard library needs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${1:-${PREFIX:-/usr/local}}
libdir=${LIBDIR:-$prefix/lib}
destdir=${DESTDIR:-}
target=${CARGO_TARGET_DIR:-$root/target}

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    cargo build --release -p stridekit-capi --manifest-path "$root/Cargo.toml"
fi
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)

install -d "$destdir$libdir/pkgconfig" "$destdir$prefix/include"
install -m 644 "$here/include/stridekit.h" "$destdir$prefix/include/stridekit.h"
install -m 755 "$target/release/libstridekit_c.so" "$destdir$libdir/libstridekit_c.so"
install -m 644 "$target/release/libstridekit_c.a" "$destdir$libdir/libstridekit_c.a"
sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$libdir|" -e "s|@VERSION@|$version|" \
    "$here/stridekit_c.pc.in" >"$destdir$libdir/pkgconfig/stridekit_c.pc"
echo "installed stridekit_c $version into $destdir$prefix (pkg-config: $libdir/pkgconfig/stridekit_c.pc)"
