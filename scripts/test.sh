#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sets up (scripts/setup.sh) and runs the whole test suite; arguments go to
# `meson test` (e.g. --suite fe).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# The CUDA toolkit is not a dependency: only the test that rebuilds the committed
# fixtures needs nvcc. Where there is none, that test says it checked nothing.
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${NVCC:-}" ]; then
	echo "test.sh: no nvcc here: module-fixtures-vs-sources will check nothing (CHAINSIM_NO_CUDA_OK=1)"
	export CHAINSIM_NO_CUDA_OK=1
else
	echo "test.sh: nvcc found: suite fixtures (module-fixtures-vs-sources, module-thrust-vs-source) rebuilds every CUDA" \
		"fixture and compares it byte for byte, which takes minutes; --no-suite fixtures" \
		"leaves it out"
fi

meson test -C "${BUILD_DIR:-build}" --print-errorlogs "$@"
