#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the committed PTX samples the ptxrun tests parse and run.
# Needs the CUDA toolkit (nvcc 13); the tests themselves do not.
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for sm in 80 90 100; do
	"$NVCC" -ptx -arch=sm_$sm -o samples_sm$sm.ptx samples.cu
done
