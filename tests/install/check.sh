#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the build into a temporary root, then builds a C and a C++ program
# against the installed libchainsim through pkg-config (with a sysroot, as a
# packager would) and runs both on a conformance scenario; and a criterion
# suite on chainsim/testing.h, run by testing.sh. GSP (gsp or no-gsp, from
# -Dgsp): gsp.h is installed with libchainsim-gsp and its chainsim-gsp.pc, and
# a program built on them runs, or none of the three is installed.
set -eu
build=$1
src=$2
gsp=$3
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
# gsp.h only alongside the library that implements it; repl.h not at all (its
# library, the CLI's REPL engine, is not installed).
inc="$tmp/root/$(pkg-config --variable=includedir chainsim | sed "s|^$tmp/root||")/chainsim"
gsplib=$(find "$tmp/root" -name 'libchainsim-gsp.a' | head -n 1)
gsppc=$(find "$tmp/root" -name 'chainsim-gsp.pc' | head -n 1)
if [ "$gsp" = gsp ]; then
	[ -f "$inc/gsp.h" ] && [ -n "$gsplib" ] && [ -n "$gsppc" ] ||
		{ echo "check.sh: gsp.h, libchainsim-gsp.a or chainsim-gsp.pc was not installed" >&2; exit 1; }
	cc -std=c17 -Wall -Werror $(pkg-config --cflags chainsim-gsp) -o "$tmp/hello-gsp" \
		"$src/tests/install/hello_gsp.c" $(pkg-config --static --libs chainsim-gsp)
	"$tmp/hello-gsp"
else
	[ ! -e "$inc/gsp.h" ] && [ -z "$gsplib" ] && [ -z "$gsppc" ] ||
		{ echo "check.sh: -Dgsp=disabled installed gsp.h, libchainsim-gsp.a or chainsim-gsp.pc" >&2; exit 1; }
fi
[ ! -e "$inc/repl.h" ] || { echo "check.sh: repl.h was installed without its library" >&2; exit 1; }
# The .pc files name the install, never the build or the source tree.
for f in $(find "$tmp/root" -name '*.pc'); do
	! grep -F -e "$build" -e "$src" "$f" ||
		{ echo "check.sh: $f points into the build or source tree" >&2; exit 1; }
done
# Nothing but the public cs_ API leaves the shared library.
leaked=$(nm -D --defined-only "$lib/libchainsim.so" | awk '{print $3}' | grep -v '^cs_' || true)
[ -z "$leaked" ] || { echo "check.sh: libchainsim.so exports internals: $leaked" >&2; exit 1; }
echo "check.sh: C, C++ and a testing.h suite built and ran against the installed library ($gsp)"
