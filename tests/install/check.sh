#!/bin/sh
# Installs the build into a temporary root, then builds a C and a C++ program
# against the installed libchainsim through pkg-config (with a sysroot, as a
# packager would) and runs both on a conformance scenario; and a criterion
# suite on chainsim/testing.h, run by testing.sh.
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
scenario="$src/tests/conformance/complete-hopper-pcas.chain"
cc -std=c17 -Wall -Werror $(pkg-config --cflags chainsim) -o "$tmp/hello-c" \
	"$src/tests/install/hello.c" $(pkg-config --libs chainsim)
c++ -std=c++17 -Wall -Werror $(pkg-config --cflags chainsim) -o "$tmp/hello-cxx" \
	"$src/tests/install/hello.cpp" $(pkg-config --libs chainsim)
# testing.h: a user's criterion tests against the installed header and library
cc -std=c17 -Wall -Werror $(pkg-config --cflags chainsim criterion) -o "$tmp/testing" \
	"$src/tests/install/testing.c" $(pkg-config --libs chainsim criterion)
[ -f "$tmp/root/$(pkg-config --variable=includedir chainsim | sed "s|^$tmp/root||")/chainsim/testing.h" ] ||
	{ echo "check.sh: chainsim/testing.h was not installed" >&2; exit 1; }
LD_LIBRARY_PATH="$lib" CHAINSIM_SOURCE_ROOT="$src" sh "$src/tests/install/testing.sh" "$tmp/testing"
LD_LIBRARY_PATH="$lib" "$tmp/hello-c" "$scenario"
LD_LIBRARY_PATH="$lib" "$tmp/hello-cxx" "$scenario"
# Nothing but the public cs_ API leaves the shared library.
leaked=$(nm -D --defined-only "$lib/libchainsim.so" | awk '{print $3}' | grep -v '^cs_' || true)
[ -z "$leaked" ] || { echo "check.sh: libchainsim.so exports internals: $leaked" >&2; exit 1; }
echo "check.sh: C, C++ and a testing.h suite built and ran against the installed library"
