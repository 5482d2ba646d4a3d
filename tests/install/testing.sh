#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a build of tests/install/testing.c (BINARY): suite `positive` must pass;
# each test of suite `negative` must fail with the diagnosis in its message.
set -u
bin=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$bin" --filter='positive/*' >"$out" 2>&1 || { cat "$out"; echo "testing.sh: positive tests failed" >&2; exit 1; }
grep -q 'Tested: 5 | Passing: 5' "$out" || { cat "$out"; echo "testing.sh: not 5 positive tests" >&2; exit 1; }
if "$bin" --filter='negative/*' >"$out" 2>&1; then
	cat "$out"; echo "testing.sh: the negative tests passed" >&2; exit 1
fi
grep -q 'Tested: 5 | Passing: 0 | Failing: 5' "$out" || { cat "$out"; echo "testing.sh: not 5 failures" >&2; exit 1; }
for want in \
	'expected the chain to complete; break at stage 5 (fe-exec) \[earlier-fault\]: a write fault at 0x7d0000000' \
	'expected a break at stage 7 (qmd-read) \[no-schedule\]; chain complete' \
	'expected a break at stage 7 (qmd-read) \[qmd-rejected\]; break at stage 7 (qmd-read) \[no-schedule\]: the QMD at' \
	'memory differs at c+0xa (0x[0-9a-f]*, byte 10 of 16): 0x04, expected 0x08; chain complete' \
	'expected the chain to complete; the run did not finish: bad.chain:3:'; do
	grep -q "$want" "$out" || { cat "$out"; echo "testing.sh: no message '$want'" >&2; exit 1; }
done
echo "testing.sh: 5 positive tests passed, 5 negative tests failed with their diagnosis"
