#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs chainsim's Debian 12 dependencies (as root) and builds it into
# ${BUILD_DIR:-build}. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential meson ninja-build pkg-config
	libglib2.0-dev libjansson-dev libjson-glib-dev libelf-dev libdw-dev libunicorn-dev libzstd-dev
	libedit-dev libcriterion-dev locales
	gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf picolibc-riscv64-unknown-elf
	gdb-multiarch python3 python3-pytest firmware-nvidia-gsp)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing Debian packages (run as root to install): ${missing[*]}" >&2
		exit 2
	fi
	# firmware-nvidia-gsp (NVIDIA's GSP firmware, for the gsp tests) is in the
	# non-free-firmware component: add it next to main, same mirror and keyring
	nff=/etc/apt/sources.list.d/non-free-firmware.sources
	if [ -f /etc/apt/sources.list.d/debian.sources ] && [ ! -f "$nff" ] &&
		! grep -qs non-free-firmware /etc/apt/sources.list /etc/apt/sources.list.d/*; then
		sed -n '1,/^$/p' /etc/apt/sources.list.d/debian.sources |
			sed 's/^Components:.*/Components: non-free-firmware/' >"$nff"
	elif [ -f /etc/apt/sources.list ] &&
		! grep -qs non-free-firmware /etc/apt/sources.list /etc/apt/sources.list.d/*; then
		# the one-line format: the first main line again, for non-free-firmware
		grep -m1 -E '^deb [^ ]+ bookworm main' /etc/apt/sources.list |
			sed 's/ main.*/ non-free-firmware/' >/etc/apt/sources.list.d/non-free-firmware.list
	fi
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

build=${BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" ${MESON_ARGS:-}
elif [ -n "${MESON_ARGS:-}" ]; then
	# An existing build dir keeps its options unless told again: without this,
	# CI's --werror and sanitizer options would be dropped in silence. (meson
	# 1.0's `setup --reconfigure` does not apply new b_* options; configure does.)
	meson configure "$build" ${MESON_ARGS}
fi
ninja -C "$build"
