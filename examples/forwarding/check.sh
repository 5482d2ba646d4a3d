#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the build into a temporary root and builds the example forwarder and
# its tests against the installed libchainsim through pkg-config (with a
# sysroot, as a packager would), then runs the tests.
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
pc=$(find "$tmp/root" -name chainsim.pc | head -n 1)
[ -n "$pc" ] || { echo "check.sh: no chainsim.pc was installed" >&2; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
lib=$(dirname "$(find "$tmp/root" -name 'libchainsim.so' | head -n 1)")
ex="$src/examples/forwarding"
cc -std=c17 -Wall -Wextra -Werror $(pkg-config --cflags chainsim) -o "$tmp/test_forwarder" \
	"$ex/forwarder.c" "$ex/test_forwarder.c" $(pkg-config --libs chainsim)
LD_LIBRARY_PATH="$lib" "$tmp/test_forwarder" "$ex/prelude.chain"
