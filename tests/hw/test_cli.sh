#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command lines of item 13 end to end: chainsim export / run FILE.cap /
# diff --hw-results, chainsim-hw (exit 3 without a device, static libc only)
# and chainsim-hw-fake (signals, timeouts, failing allocations, hostile input).
# Usage: test_cli.sh BUILD_ROOT SOURCE_ROOT CHECK... (checks: pipeline exit3
# hostile signal diff devcheck ldd)
set -u
build=$1 src=$2
shift 2
cs=$build/tools/chainsim hw=$build/hw/chainsim-hw fake=$build/hwfake/chainsim-hw-fake
corpus=$src/tests/conformance
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_rc() { # WANT WHAT CMD...
	local want=$1 what=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" = "$want" ] || { fail "$what: exit $rc, expected $want"; sed 's/^/  | /' "$tmp/err" | head -5; }
}
expect_err() { grep -q -- "$1" "$tmp/err" || { fail "$2: stderr lacks '$1'"; sed 's/^/  | /' "$tmp/err" | head -5; }; }

check_pipeline() {
	# every complete-chain scenario: export, run the capture, replay on the
	# fake RM, and diff: no divergence, same observables line for line
	local n=0 hw_refused=0
	for f in "$corpus"/*.chain; do
		b=$(basename "$f" .chain)
		if grep -q '^# capture: refused' "$f"; then
			expect_rc 2 "$b: export refused" "$cs" export "$f" -o "$tmp/$b.cap"
			continue
		fi
		"$cs" run --json "$f" 2>/dev/null | grep -q '"result" : "complete"' || continue
		expect_rc 0 "$b: export" "$cs" export "$f" -o "$tmp/$b.cap"
		expect_rc 0 "$b: run .cap" "$cs" run "$tmp/$b.cap" --results "$tmp/$b.sim"
		if grep -q '^# hw: refused' "$f"; then
			expect_rc 2 "$b: chainsim-hw-fake refuses it" "$fake" "$tmp/$b.cap" -o "$tmp/$b.hw"
			expect_err "a cooperative launch (QMD 0x" "$b: the refusal names the launch"
			expect_err "nothing ran" "$b: the refusal says nothing ran"
			[ ! -e "$tmp/$b.hw" ] || fail "$b: a results file was written for a refused capture"
			hw_refused=$((hw_refused + 1))
			continue
		fi
		expect_rc 0 "$b: chainsim-hw-fake" "$fake" "$tmp/$b.cap" -o "$tmp/$b.hw"
		expect_err "0 objects still allocated" "$b: fake RM leak"
		expect_err "0 requests refused, 0 mappings and 0 files still open" "$b: fake driver"
		expect_rc 0 "$b: diff" "$cs" diff --hw-results "$tmp/$b.hw" "$tmp/$b.cap"
		grep -q "no divergence" "$tmp/out" || fail "$b: diff found a divergence"
		diff <(grep -v '^submit\|^backend' "$tmp/$b.sim") <(grep -v '^submit\|^backend' "$tmp/$b.hw") >/dev/null ||
			fail "$b: observables differ between chainsim run and the fake RM"
		n=$((n + 1))
	done
	[ "$n" -ge 16 ] || fail "only $n complete-chain scenarios round-tripped"
	[ "$hw_refused" -ge 1 ] || fail "no complete-chain scenario whose capture chainsim-hw refuses"
	# CHAINSIM_HW_TRACE: every RM request on stderr, with its status
	CHAINSIM_HW_TRACE=1 expect_rc 0 "traced replay" "$fake" "$tmp/complete-hopper-pcas.cap" -o "$tmp/t.hw"
	expect_err "RM_ALLOC class 0x0041 parent 0x0 new 0xc1d00001: rc 0 status 0x0" "trace: the client"
	expect_err "RM_CONTROL 0xa06c0101 on " "trace: the schedule"
	echo "pipeline: $n complete-chain scenarios round-tripped"
}

check_exit3() {
	"$cs" export "$corpus/complete-hopper-pcas.chain" -o "$tmp/a.cap"
	CHAINSIM_HW_NVIDIACTL=$tmp/no-nvidiactl expect_rc 3 "chainsim-hw without a device" \
		"$hw" "$tmp/a.cap" -o "$tmp/a.res"
	expect_err "$tmp/no-nvidiactl" "exit 3 names the device node"
	expect_err "nothing ran" "exit 3 says nothing ran"
	[ ! -e "$tmp/a.res" ] || fail "a results file was written without a device"
	expect_rc 3 "fake RM absent" "$fake" --fake-absent "$tmp/a.cap" -o "$tmp/a.res"
	expect_err "/dev/nvidiactl" "fake absent names the node"
	expect_rc 3 "a driver of unknown layouts" "$fake" --fake-driver-version 595.45.04 "$tmp/a.cap" -o "$tmp/a.res"
	expect_err "driver 595.45.04" "exit 3 names the driver version"
	[ ! -e "$tmp/a.res" ] || fail "a results file was written for an unknown driver"
}

check_hostile() {
	"$cs" export "$corpus/complete-hopper-pcas.chain" -o "$tmp/a.cap"
	head -c 700 "$tmp/a.cap" >"$tmp/trunc.cap"
	expect_rc 2 "run truncated" "$cs" run "$tmp/trunc.cap"
	expect_err "byte 0x" "truncated: located"
	expect_err "truncated" "truncated: says so"
	expect_rc 2 "run --json truncated" "$cs" run --json "$tmp/trunc.cap"
	grep -qE '"offset" : [0-9]+' "$tmp/out" || fail "run --json truncated: no offset in the JSON error"
	expect_rc 2 "chainsim-hw truncated" "$hw" "$tmp/trunc.cap" -o "$tmp/x"
	expect_err "byte 0x" "chainsim-hw truncated: located"
	cp "$tmp/a.cap" "$tmp/flip.cap"
	printf '\x55' | dd of="$tmp/flip.cap" bs=1 seek=300 conv=notrunc status=none
	expect_rc 2 "run bit-flipped" "$cs" run "$tmp/flip.cap"
	expect_err "checksum" "bit flip: checksum"
	expect_rc 2 "export without -o" "$cs" export "$corpus/host-only.chain"
}

check_signal() {
	"$cs" export "$corpus/complete-hopper-pcas.chain" -o "$tmp/a.cap"
	"$fake" --fake-hang "$tmp/a.cap" -o "$tmp/s.res" --wait-timeout 60 --timeout 120 2>"$tmp/err" &
	pid=$!
	# signal it once it is replaying (its stopping signals blocked), not before
	for _ in $(seq 100); do grep -q replaying "$tmp/err" && break; sleep 0.1; done
	sleep 0.3
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" = 143 ] || fail "SIGTERM: exit $rc, expected 143 (killed by TERM after cleanup)"
	expect_err "released every RM object" "SIGTERM: cleanup reported"
	expect_err "0 objects still allocated" "SIGTERM: nothing leaked"
	expect_rc 1 "hung GPU: wait timeout" "$fake" --fake-hang "$tmp/a.cap" -o "$tmp/t.res" --wait-timeout 0.2
	grep -q ' unmet ' "$tmp/t.res" || fail "hung GPU: the wait is not recorded unmet"
	expect_rc 4 "overall timeout" "$fake" --fake-hang "$tmp/a.cap" -o "$tmp/t.res" --wait-timeout 30 --timeout 0.3
	expect_err "overall timeout" "overall timeout named"
	expect_err "0 objects still allocated" "overall timeout: nothing leaked"
	expect_rc 4 "failing allocation" "$fake" --fake-fail-alloc 9 "$tmp/a.cap" -o "$tmp/t.res"
	expect_err "0 objects still allocated" "failing allocation: nothing leaked"
}

check_diff() {
	"$cs" export "$corpus/complete-hopper-pcas.chain" -o "$tmp/a.cap"
	"$fake" "$tmp/a.cap" -o "$tmp/a.res" 2>/dev/null
	# a >= wait (a timeline semaphore released past the value) is met on the GPU too
	"$cs" export "$corpus/wait-geq.chain" -o "$tmp/geq.cap"
	expect_rc 0 "chainsim-hw: a >= wait" "$fake" "$tmp/geq.cap" -o "$tmp/geq.res"
	grep -q '^wait .* met 0x3$' "$tmp/geq.res" || fail "chainsim-hw: the >= wait is not met at 3"
	# a results file that records no run is refused
	sed 's/^ran .*/ran 0/' "$tmp/a.res" >"$tmp/none.res"
	expect_rc 2 "diff: no run" "$cs" diff --hw-results "$tmp/none.res" "$tmp/a.cap"
	expect_err "records no run" "diff: no run named"
	# another capture's results are refused
	"$cs" export "$corpus/complete-ada-pcas.chain" -o "$tmp/b.cap"
	expect_rc 2 "diff: other capture" "$cs" diff --hw-results "$tmp/a.res" "$tmp/b.cap"
	# a changed output byte is stage 9; a changed wait stage 11
	awk '/^read / && $4 == 4 && !done { $5 = "ff" substr($5, 3); done = 1 } { print }' \
		"$tmp/a.res" >"$tmp/mem.res"
	expect_rc 1 "diff: memory" "$cs" diff --hw-results "$tmp/mem.res" "$tmp/a.cap"
	grep -q "first divergence at stage 9" "$tmp/out" || fail "diff: memory divergence not stage 9"
	grep -q "memory at c: byte 0x00 on the simulator, 0xff on the GPU" "$tmp/out" ||
		fail "diff: the memory divergence does not name the region (c)"
	sed 's/ met / unmet /' "$tmp/a.res" >"$tmp/w.res"
	expect_rc 1 "diff: wait" "$cs" diff --hw-results "$tmp/w.res" "$tmp/a.cap"
	grep -q "first divergence at stage 11" "$tmp/out" || fail "diff: wait divergence not stage 11"
	grep -q "wait 0 on L.sem " "$tmp/out" || fail "diff: the wait divergence does not name L.sem"
	awk '/^read / && $4 == 2 && !done { $5 = "00000000"; done = 1 } { print }' \
		"$tmp/a.res" >"$tmp/rel.res"
	expect_rc 1 "diff: release" "$cs" diff --hw-results "$tmp/rel.res" "$tmp/a.cap"
	grep -q "first divergence at stage 10" "$tmp/out" || fail "diff: release divergence not stage 10"
	# --read: a battery client's output, read back whole, agrees; changed, it is stage 9
	expect_rc 0 "export --read" "$cs" export "$src/fixtures/battery/vadd.chain" -o "$tmp/v.cap" --read c
	"$fake" "$tmp/v.cap" -o "$tmp/v.res" 2>/dev/null
	[ "$(awk '$1 == "read" && $3 == 131072' "$tmp/v.res" | wc -l)" = 1 ] ||
		fail "export --read c: no 131072-byte read-back of c"
	expect_rc 0 "diff --read" "$cs" diff --hw-results "$tmp/v.res" "$tmp/v.cap"
	awk '$1 == "read" && $3 == 131072 { $5 = "00" substr($5, 3) } { print }' "$tmp/v.res" >"$tmp/v2.res"
	expect_rc 1 "diff --read changed" "$cs" diff --hw-results "$tmp/v2.res" "$tmp/v.cap"
	grep -q "first divergence at stage 9" "$tmp/out" || fail "diff: output divergence not stage 9"
	expect_rc 2 "export --read unknown" "$cs" export "$src/fixtures/battery/vadd.chain" -o "$tmp/v.cap" --read nope
	expect_err "no region" "export --read unknown named"
	head -n 3 "$tmp/a.res" >"$tmp/cut.res"
	expect_rc 2 "diff: truncated results" "$cs" diff --hw-results "$tmp/cut.res" "$tmp/a.cap"
	expect_err ":3:" "diff: truncated results located"
	# results that cannot be written: exit 4 naming the file and why
	expect_rc 4 "run --results on a full disk" "$cs" run "$tmp/a.cap" --results /dev/full
	expect_err "--results /dev/full: cannot write the results" "run --results failure named"
	expect_err "No space left on device" "run --results failure says why"
	expect_rc 4 "chainsim-hw-fake -o on a full disk" "$fake" "$tmp/a.cap" -o /dev/full
	expect_err "-o /dev/full: cannot write the results" "chainsim-hw -o failure named"
	# a region read back whole past the read-backs' total cap: refused at export
	printf 'arch hopper\nalloc big 0x500000\nfill big 0x500000 7\n' >"$tmp/big.chain"
	expect_rc 2 "export --read past the read-back cap" "$cs" export "$tmp/big.chain" -o "$tmp/big.cap" --read big
	expect_err "read-back big+0x400000 of 1048576 bytes brings the read-backs to 5242880 bytes in 5, more than the 4194304" \
		"export --read past the read-back cap named"
}

check_devcheck() {
	# tools/device-check.sh: prepares its captures, builds chainsim-hw with cc
	# alone, and without a device exits 3 with no table (it never goes green)
	CHAINSIM=$cs expect_rc 0 "device-check --prepare" "$src/tools/device-check.sh" --prepare "$tmp/dc"
	n=$(wc -l <"$tmp/dc/verdicts")
	[ "$n" -ge 26 ] || fail "device-check prepared only $n captures"
	grep -q '^battery-matmul complete complete$' "$tmp/dc/verdicts" || fail "device-check: no battery capture"
	[ "$(grep -c ' planted broken$' "$tmp/dc/verdicts")" = 6 ] || fail "device-check: planted breaks"
	CHAINSIM=$cs CHAINSIM_HW_NVIDIACTL=$tmp/none expect_rc 3 "device-check without a device" \
		"$src/tools/device-check.sh" "$tmp/dc"
	expect_err "nothing ran" "device-check: says nothing ran"
	grep -q agree "$tmp/out" && fail "device-check printed a table without a device"
	[ -x "$tmp/dc/chainsim-hw" ] || fail "device-check did not build chainsim-hw with cc"
	grep -q "no cc build here" "$tmp/err" &&
		fail "device-check's cc build failed here (it took the prepared copy)"
	[ -x "$tmp/dc/chainsim-hw.prebuilt" ] || fail "device-check --prepare did not copy chainsim-hw"
	# the rehearsal: the same table through the fake RM, which says it is one
	CHAINSIM=$cs CHAINSIM_HW_REHEARSAL=$fake expect_rc 0 "device-check rehearsal" \
		"$src/tools/device-check.sh" "$tmp/dc"
	expect_err "REHEARSAL" "the rehearsal says it is no GPU"
	[ "$(grep -c ' yes *$' "$tmp/out")" = "$n" ] || fail "rehearsal: not every capture agrees"
	grep -q "^wait-unmet  *broken  *broken  *yes" "$tmp/out" || fail "rehearsal: planted break row"
}

check_ldd() {
	# chainsim-hw depends on nothing but libc: static, or dynamic on libc alone
	out=$(ldd "$hw" 2>&1)
	if echo "$out" | grep -q "not a dynamic executable"; then
		echo "ldd: chainsim-hw is static"
		return
	fi
	others=$(echo "$out" | grep -v -E 'linux-vdso|ld-linux|/libc\.so' || true)
	[ -z "$others" ] || fail "chainsim-hw depends on more than libc: $others"
}

for c in "$@"; do "check_$c"; done
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: $*"
