#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the PTX files of the conformance cases ptx-*.chain from nvcc's own
# vadd.sm_90.ptx (fixtures/kernels), each with one construct added that is
# valid PTX (ptxas accepts both) but that the executor cannot run. Run from
# this folder; the outputs are committed.
set -eu
src=../../../fixtures/kernels/out/vadd.sm_90.ptx
# a discard.global.L2 (its line's data becomes undefined), which the executor does not implement, after the add
sed 's/^\tadd\.f32 \t%f3, %f2, %f1;$/&\n\tdiscard.global.L2 \t[%rd6], 128;/' "$src" >discard.sm_90.ptx
# a 2 GiB .local array: more than the executor holds
sed 's/^\t\.reg \.b64 \t%rd<11>;$/&\n\t.local .align 4 .b8 \tbig[2147483648];/' "$src" >local-2gib.sm_90.ptx
