#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/fuzz.sh TARGET SECONDS [LIBFUZZER-ARGS...]: builds the libFuzzer
# targets with clang-14 and ASan+UBSan in ${FUZZ_BUILD_DIR:-build-fuzz}
# (Debian 12: clang-14, libclang-rt-14-dev) and runs TARGET for SECONDS.
# TARGET: scenario, module, json, gsp, gdb-session, live (tests/fuzz/), ptx
# (tests/ptxrun/fuzz_ptx.c), elf, gdb (tests/gsp/fuzz_*.c: the packet parser).
# Seeds: the corpus and fixtures (read only), plus generated ones with long
# lines and many edits; new inputs go to $build/corpus/TARGET. A finding is
# written to $build/findings/TARGET/ and the script exits 1: copy it into the
# regression inputs (tests/scenario/malformed/ or the target's seed folder).
# The last line is libFuzzer's "Done N runs in S second(s)".
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
	echo "usage: tools/fuzz.sh scenario|module|json|gsp|gdb-session|live|ptx|elf|gdb SECONDS [LIBFUZZER-ARGS...]" >&2
	exit 2
fi
target=$1 seconds=$2
shift 2
build=${FUZZ_BUILD_DIR:-build-fuzz}
for p in clang-14 libclang-rt-14-dev; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		if [ "$(id -u)" -ne 0 ]; then
			echo "fuzz.sh: $p is missing (apt-get install $p, as root)" >&2
			exit 2
		fi
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$p"
	fi
done
if [ ! -f "$build/build.ninja" ]; then
	# fuzzer-no-link everywhere: the libraries carry the coverage that guides
	# the search, not only the entry points
	CC=clang-14 meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fsanitize=fuzzer-no-link -Dc_link_args=-fsanitize=fuzzer-no-link >/dev/null
fi

case $target in
scenario) exe=tests/fuzz/fuzz_scenario seeds=(tests/conformance tests/outside tests/scenario/cases) ;;
module) exe=tests/fuzz/fuzz_module seeds=(fixtures/kernels/out) ;;
json) exe=tests/fuzz/fuzz_json seeds=(tests/fuzz/json) ;;
gsp) exe=tests/fuzz/fuzz_gsp seeds=(tests/gsp) ;;
ptx) exe=tests/ptxrun/fuzz_ptx seeds=(tests/ptxrun/ptx) ;;
elf) exe=tests/gsp/fuzz_elf seeds=(fixtures/firmware) ;;
gdb) exe=tests/gsp/fuzz_gdb seeds=() ;;
gdb-session) exe=tests/fuzz/fuzz_gdb_session seeds=() ;;
live) exe=tests/fuzz/fuzz_live seeds=() ;;
*)
	echo "fuzz.sh: unknown target '$target'" >&2
	exit 2
	;;
esac
ninja -C "$build" "$exe" >/dev/null

corpus=$build/corpus/$target findings=$build/findings/$target
mkdir -p "$corpus" "$findings"
# generated seeds: a long line, and a case edited many times over
if [ "$target" = scenario ]; then
	{
		echo "arch hopper"
		printf 'alloc a %s\n' "$(printf '1+%.0s' $(seq 2000))1"
		echo "expect break none"
	} >"$corpus/long-line.chain"
	{
		echo "arch hopper"
		echo "alloc sem 16"
		echo "push pb"
		for i in $(seq 300); do echo "  release sem $i"; done
		echo "end"
		for i in $(seq 50); do echo "gpfifo pb"; echo "submit"; done
		echo "wait sem == 300"
		echo "expect complete"
	} >"$corpus/many-edits.chain"
elif [ "$target" = live ]; then
	# arch ada; a channel (ring at the arena's start, USERD at +0x200, 16
	# entries, token 0); GP_PUT 1 and the doorbell; a run; the verdict. The
	# arena (the input's second half): entry 0 names a host release at +0x1000.
	/usr/bin/python3 - "$corpus/release" <<'PY'
import struct, sys
prog = bytes([1, 0, 0, 0, 0, 0x80, 0, 4, 0, 1, 0, 1, 0, 2, 0, 5])
arena = struct.pack("<Q", (0x10001000 & 0xFFFFFFFFFC) | (6 << 42)).ljust(0x1000, b"\0")
arena += struct.pack("<6I", (1 << 29) | (5 << 16) | (0x5C >> 2), 0x10000F00, 0, 9, 0, 1 | (1 << 20))
half = max(len(prog), len(arena))
open(sys.argv[1], "wb").write(prog.ljust(half, b"\x05") + arena.ljust(half, b"\0"))
PY
elif [ "$target" = gsp ]; then
	printf 'break busy_loop\ncontinue 1000\nsnapshot save a\nstepi 50\nsnapshot restore a\ninfo registers\nnext 3\nbt\n' >"$corpus/runs.gsp"
	printf 'x/64xw %s\n' "$(printf '0x80000000+%.0s' $(seq 300))0" >"$corpus/long-line.gsp"
fi
if [ "$target" = gdb-session ]; then
	# framed packets: \$payload#checksum
	pkt() {
		local p=$1 sum=0 i
		for ((i = 0; i < ${#p}; i++)); do
			sum=$(((sum + $(printf '%d' "'${p:i:1}")) % 256))
		done
		printf '$%s#%02x' "$p" "$sum"
	}
	{ pkt qSupported; pkt '?'; pkt g; pkt s; pkt c; printf '\x03'; pkt k; } >"$corpus/run-stop-kill"
	{ pkt 'vCont?'; pkt 'vCont;s'; pkt 'vCont;c'; printf 'x\x03'; pkt 'p20'; pkt D; } >"$corpus/vcont-detach"
	{ pkt 'Z0,80000900,2'; pkt c; pkt 'm80000000,40'; pkt 'M80000000,4:00000000'; pkt k; } >"$corpus/break-mem"
fi
existing=()
for s in "${seeds[@]}"; do
	[ -d "$s" ] && existing+=("$s")
done
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
	"$build/$exe" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
	-artifact_prefix="$findings/" -print_final_stats=1 "$@" "$corpus" "${existing[@]}" 2>&1 |
	tee "$build/fuzz-$target.log" | grep -E '^(Done|INFO: seed|==[0-9]+==ERROR|SUMMARY|artifact_prefix|stat::number_of_executed_units)' || true
if ls "$findings"/* >/dev/null 2>&1; then
	echo "fuzz.sh: findings in $findings (log: $build/fuzz-$target.log)" >&2
	exit 1
fi
