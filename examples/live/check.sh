#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the build into a temporary root, builds the example device model
# and its test against the installed libchainsim through pkg-config, runs the
# test, and checks that the installed Python package finds the installed library.
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
ex="$src/examples/live"
cc -std=c17 -Wall -Wextra -Werror $(pkg-config --cflags chainsim) -o "$tmp/test_gpu_model" \
	"$ex/gpu_model.c" "$ex/test_gpu_model.c" $(pkg-config --libs chainsim)
LD_LIBRARY_PATH="$lib" "$tmp/test_gpu_model"

# The installed package names the installed library by its final path; under
# the temporary root that is the same path below "$tmp/root".
pkg=$(find "$tmp/root" -path '*/chainsim/_installed.py' | head -n 1)
[ -n "$pkg" ] || { echo "check.sh: the Python package was not installed" >&2; exit 1; }
libpath=$(/usr/bin/python3 -c "import runpy; print(runpy.run_path('$pkg')['LIBRARY'])")
[ -f "$tmp/root$libpath" ] || { echo "check.sh: the package names $libpath, which was not installed" >&2; exit 1; }
CHAINSIM_LIB="$tmp/root$libpath" PYTHONPATH="$(dirname "$(dirname "$pkg")")" \
	/usr/bin/python3 -c 'import chainsim; d = chainsim.Device("hopper"); print("python: installed package loads", chainsim.library_path())'
