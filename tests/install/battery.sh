#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the build into a temporary root outside the source tree and runs the
# installed `chainsim battery` there, with no source tree to fall back on: the
# scenarios and kernels must come from the installed DATADIR/chainsim, found
# from the binary's own path. With gsp ($2 = gsp), the installed `chainsim gsp`
# must find chainsim-gsp beside it.
set -eu
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
exe=$(find "$tmp/root" -path '*/bin/chainsim' -type f | head -n 1)
[ -n "$exe" ] || { echo "battery.sh: no chainsim was installed" >&2; exit 1; }
cd "$tmp"
if ! env -u CHAINSIM_SOURCE_ROOT -u CHAINSIM_BUILD_ROOT "$exe" battery >out 2>&1; then
	cat out
	echo "battery.sh: the installed chainsim battery failed" >&2
	exit 1
fi
cat out
grep -q '^STATUS OK$' out || { echo "battery.sh: no STATUS OK" >&2; exit 1; }
echo "battery.sh: the installed battery ran from $tmp/root, outside the source tree"
if [ "${2:-}" = gsp ]; then
	"$exe" gsp --help >gsp.out 2>&1 || { cat gsp.out; echo "battery.sh: the installed chainsim gsp failed" >&2; exit 1; }
	grep -q '^usage: chainsim gsp FIRMWARE' gsp.out || { cat gsp.out; echo "battery.sh: chainsim gsp printed no usage" >&2; exit 1; }
	echo "battery.sh: the installed chainsim gsp ran chainsim-gsp"
fi
