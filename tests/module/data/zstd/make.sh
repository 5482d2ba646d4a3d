#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the zstd test vectors here with the reference `zstd` CLI (not a
# dependency of chainsim: only this script needs it). Inputs are the committed
# fixtures (so the test rebuilds them in C) plus random.bin, committed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../../../../fixtures/kernels/out"
cd "$here"
# A fixed list (test_zstd.c builds the same concatenation), so new fixtures do
# not change the vectors.
: > /tmp/cs_ptx_all
: > /tmp/cs_cubin_all
for k in attention ffn matmul reduce softmax vadd; do
	for sm in 100 80 90; do
		cat "$out/$k.sm_$sm.ptx" >> /tmp/cs_ptx_all
		cat "$out/$k.sm_$sm.cubin" >> /tmp/cs_cubin_all
	done
done
zstd -q -f -19 --check /tmp/cs_ptx_all -o ptx_all.l19.zst
zstd -q -f -1 --check /tmp/cs_ptx_all -o ptx_all.l1.zst
zstd -q -f -3 --check /tmp/cs_cubin_all -o cubin_all.l3.zst
zstd -q -f -3 --no-check /tmp/cs_cubin_all -o cubin_all.nocheck.zst
[ -f random.bin ] || python3 -c "import random; random.seed(7); import sys; sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(20000)))" > random.bin
zstd -q -f -3 --check random.bin -o random.zst
head -c 300000 /dev/zero > /tmp/cs_zeros
zstd -q -f -3 --check /tmp/cs_zeros -o zeros.zst
# two frames back to back: vadd then matmul sm_90 PTX
zstd -q -f -5 --check "$out/vadd.sm_90.ptx" -o /tmp/cs_a.zst
zstd -q -f -5 --check "$out/matmul.sm_90.ptx" -o /tmp/cs_b.zst
cat /tmp/cs_a.zst /tmp/cs_b.zst > two_frames.zst
rm -f /tmp/cs_ptx_all /tmp/cs_cubin_all /tmp/cs_zeros /tmp/cs_a.zst /tmp/cs_b.zst
