#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Rebuilds fixtures/thrust's PTX with nvcc and compares it byte for byte with the
# committed out/. Without nvcc it says it checked nothing and fails unless
# CHAINSIM_NO_CUDA_OK=1 says that is expected.
set -euo pipefail
root="${CHAINSIM_SOURCE_ROOT:?}"
if [ -n "${NVCC:-}" ]; then
	nvcc="$(command -v "$NVCC" || true)"
else
	nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
fi
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
	echo "thrust-vs-source: COULD NOT CHECK: no nvcc; fixtures/thrust/out was not compared with thrustdev.cu"
	[ "${CHAINSIM_NO_CUDA_OK:-}" = 1 ] && { echo "thrust-vs-source: passing only because CHAINSIM_NO_CUDA_OK=1"; exit 0; }
	exit 1
fi
echo "thrust-vs-source: rebuilding fixtures/thrust with $nvcc (sm_80 and sm_90: about a minute); meson test --no-suite fixtures leaves this out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
NVCC="$nvcc" bash "$root/fixtures/thrust/build.sh" "$tmp"
rc=0
for f in "$root"/fixtures/thrust/out/*; do
	name="$(basename "$f")"
	if cmp -s "$f" "$tmp/$name"; then
		echo "thrust-vs-source: $name identical"
	else
		echo "thrust-vs-source: $name DIFFERS from what $nvcc writes from thrustdev.cu"
		rc=1
	fi
done
exit $rc
