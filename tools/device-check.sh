#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The device check (issue 13, docs/capture.md): on a GPU machine, replay the
# battery's and the conformance corpus's complete-chain captures and the
# planted-break captures with chainsim-hw, and print one table: capture, sim
# verdict, hw verdict, agree. Run only with a GPU; without one it exits 3 and
# says so (it never prints a green table having run nothing).
#
#   tools/device-check.sh --prepare DIR   on a build machine: export the captures
#                                         and the simulator's verdicts into DIR, with
#                                         a copy of the static build/hw/chainsim-hw
#   tools/device-check.sh [DIR]           on the GPU machine: build chainsim-hw with
#                                         cc alone (libc, static; the prepared copy
#                                         where there is no cc), replay DIR's
#                                         captures (default: prepare them here,
#                                         which needs build/tools/chainsim)
#
# Budget: each replay is bounded inside (--wait-timeout 2, --timeout 8) and
# outside (timeout(1): TERM at 12 s, which chainsim-hw answers by releasing
# what it holds, KILL 3 s later); past 240 s the remaining captures are listed
# as not run. So the whole check stays under 5 minutes. CHAINSIM_HW_TRACE=1
# makes chainsim-hw print every RM request; CHAINSIM_HW_REHEARSAL=PATH (tests)
# replays through chainsim-hw-fake instead, and says so. Exit: 0 every capture agrees, 1 one
# does not (or one did not run), 3 no device, 2 usage.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
chainsim=${CHAINSIM:-$root/build/tools/chainsim}

# Planted breaks a GPU must show the way the simulator does: a channel error
# (an unmapped pushbuffer, a fault before the launch) or a release that never
# comes (release disabled, never scheduled, the wait's value never written).
planted=(pb-unmapped earlier-fault qmd-addr-unmapped release-disabled no-schedule wait-unmet)
# The battery's clients, with the output region each reads back whole.
battery=(vadd:c matmul:C attention:O ffn4:X4)

prepare() { # DIR
	local dir=$1
	[ -x "$chainsim" ] || { echo "device-check: $chainsim is not built (bash scripts/setup.sh)" >&2; exit 2; }
	mkdir -p "$dir"
	: >"$dir/list"
	for f in tests/conformance/*.chain; do
		b=$(basename "$f" .chain)
		# a host view or a rewrite has no capture: the hardware replays the guest's view
		grep -q '^# capture: refused' "$f" && continue
		# a cooperative launch: a GPU takes it only through the driver's cooperative launch
		grep -q '^# hw: refused' "$f" && continue
		kind=""
		json=$("$chainsim" run --json "$f" 2>/dev/null)
		if [[ $json == *'"result" : "complete"'* ]]; then
			kind=complete
		fi
		for p in "${planted[@]}"; do [ "$p" = "$b" ] && kind=planted; done
		[ -n "$kind" ] || continue
		"$chainsim" export "$f" -o "$dir/$b.cap" || exit 2
		echo "$b $kind" >>"$dir/list"
	done
	for e in "${battery[@]}"; do
		b=${e%%:*} out=${e#*:}
		"$chainsim" export "fixtures/battery/$b.chain" -o "$dir/battery-$b.cap" --read "$out" || exit 2
		echo "battery-$b complete" >>"$dir/list"
	done
	[ -x "$root/build/hw/chainsim-hw" ] && cp "$root/build/hw/chainsim-hw" "$dir/chainsim-hw.prebuilt"
	while read -r b kind; do
		"$chainsim" run "$dir/$b.cap" --results "$dir/$b.sim" >/dev/null 2>&1
		rc=$?
		case $rc in 0) v=complete ;; 1) v=broken ;; *) v="error($rc)" ;; esac
		echo "$b $kind $v" >>"$dir/verdicts"
	done <"$dir/list"
	echo "device-check: $(wc -l <"$dir/list") captures in $dir"
}

build_hw() { # OUT: chainsim-hw from hw/, the libc-only codec and base/ (the files
	# of base_lib, base/meson.build: not json.c, which needs jansson), with cc alone
	local out=$1
	${CC:-cc} -std=c17 -O2 -D_GNU_SOURCE -Wall -Iinclude -Ihw -static -o "$out" \
		hw/main.c hw/cli.c hw/replay.c hw/rm_nv.c hw/sys_linux.c \
		sim/capture/codec.c sim/capture/results.c \
		base/diag.c base/arch.c base/stage.c base/trace.c base/cause.c base/classdesc.c base/file.c
}

if [ "${1:-}" = "--prepare" ]; then
	[ -n "${2:-}" ] || { echo "usage: $0 --prepare DIR" >&2; exit 2; }
	prepare "$2"
	exit 0
fi

start=$(date +%s)
dir=${1:-}
if [ -z "$dir" ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	prepare "$dir" >/dev/null
fi
[ -f "$dir/verdicts" ] || { echo "device-check: $dir has no prepared captures" >&2; exit 2; }

hw=$dir/chainsim-hw
if [ -n "${CHAINSIM_HW_REHEARSAL:-}" ]; then
	# the tests' rehearsal: the same table through chainsim-hw-fake (no GPU)
	hw=$CHAINSIM_HW_REHEARSAL
	echo "device-check: REHEARSAL through $hw: the fake RM on the simulator, not a GPU" >&2
elif ! build_hw "$hw"; then
	[ -x "$dir/chainsim-hw.prebuilt" ] || { echo "device-check: chainsim-hw does not build here" >&2; exit 2; }
	echo "device-check: no cc build here; using the prepared static chainsim-hw" >&2
	cp "$dir/chainsim-hw.prebuilt" "$hw"
fi
ctl=${CHAINSIM_HW_NVIDIACTL:-/dev/nvidiactl}
if [ -z "${CHAINSIM_HW_REHEARSAL:-}" ] && [ ! -e "$ctl" ]; then
	echo "device-check: no $ctl: this is not a GPU machine; nothing ran, no table" >&2
	exit 3
fi

printf '%-40s %-10s %-16s %s\n' capture sim hw agree
disagree=0
while read -r b kind sim; do
	if [ $(( $(date +%s) - start )) -gt 240 ]; then
		printf '%-40s %-10s %-16s %s\n' "$b" "$sim" "not-run" "no (past the 240 s budget)"
		disagree=$((disagree + 1))
		continue
	fi
	timeout -k 3 12 "$hw" "$dir/$b.cap" -o "$dir/$b.hw" --wait-timeout 2 --timeout 8 2>"$dir/$b.err"
	rc=$?
	case $rc in
	0) hwv=complete ;;
	1) hwv=broken ;;
	3) echo "device-check: $(grep -m1 'no device' "$dir/$b.err")" >&2
	   echo "device-check: no device: nothing ran, no table" >&2
	   exit 3 ;;
	*) hwv="error($rc)" ;;
	esac
	agree=no
	[ "$sim" = "$hwv" ] && agree=yes
	# a planted break must break on hardware too: a channel error or an unmet wait
	if [ "$kind" = planted ] && [ "$hwv" != broken ]; then agree=no; fi
	detail=""
	case $hwv in error*) detail=$(grep -v '^fake-rm' "$dir/$b.err" | tail -n 1) ;; esac
	if [ -x "$chainsim" ] && [ -f "$dir/$b.hw" ]; then
		detail=$("$chainsim" diff --hw-results "$dir/$b.hw" "$dir/$b.cap" 2>&1 | grep -m1 '^first divergence' || true)
	fi
	[ "$agree" = yes ] || disagree=$((disagree + 1))
	printf '%-40s %-10s %-16s %s %s\n' "$b" "$sim" "$hwv" "$agree" "$detail"
done <"$dir/verdicts"
echo "device-check: $(wc -l <"$dir/verdicts") captures, $disagree disagree, $(( $(date +%s) - start )) s"
[ "$disagree" = 0 ]
