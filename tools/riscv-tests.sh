#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the official RISC-V tests' rv64 "p" suites (or, with RVT_ENV=v, the
# "v" suites: the same tests as user code under a small kernel with Sv39
# paging) from a checkout and runs each one under `chainsim gsp` in batch
# mode: one line per test, then a table.
#
#   tools/riscv-tests.sh SRC_DIR [SUITE...]
#
# SRC_DIR is a riscv-tests checkout with its env submodule (riscv-test-env) in
# SRC_DIR/env. Nothing of it enters this repository: the tests are built in
# ${RVT_BUILD:-a scratch folder} with Debian's riscv64-unknown-elf-gcc and
# linked for the default map (RAM at 0x80000000). SUITEs default to rv64ui
# rv64um rv64ua rv64uc rv64uf rv64ud rv64mi rv64si. CHAINSIM names the
# binary (default: build/tools/chainsim of this checkout).
#
# A test passes when its first write to `tohost` is 1; riscv-tests writes
# (failing test number << 1) | 1 otherwise. The run gets a budget of
# RVT_BUDGET instructions (default 2000000) and the default wall-clock guard.
# Exit status: 0 when every test passed, 1 when some failed, 2 on bad input.
set -uo pipefail

usage() {
	echo "usage: $0 SRC_DIR [SUITE...]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
src=$(cd "$1" 2>/dev/null && pwd) || { echo "$0: $1: no such directory" >&2; exit 2; }
shift
env=${RVT_ENV:-p}
case $env in p | v) ;; *) echo "$0: RVT_ENV=$env: p or v" >&2; exit 2 ;; esac
for need in isa/Makefile "env/$env/riscv_test.h" "env/$env/link.ld"; do
	if [ ! -f "$src/$need" ]; then
		echo "$0: $src/$need: missing (a riscv-tests checkout with its env submodule?)" >&2
		exit 2
	fi
done
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(rv64ui rv64um rv64ua rv64uc rv64uf rv64ud rv64mi rv64si)
root=$(cd "$(dirname "$0")/.." && pwd)
chainsim=${CHAINSIM:-$root/build/tools/chainsim}
[ -x "$chainsim" ] || { echo "$0: $chainsim: not built (meson setup build && ninja -C build)" >&2; exit 2; }
budget=${RVT_BUDGET:-2000000}
out=${RVT_BUILD:-$(mktemp -d "${TMPDIR:-/tmp}/riscv-tests.XXXXXX")}
mkdir -p "$out"

# The "v" kernel is C that includes <string.h> and <stdint.h>: picolibc's
# headers (Debian's picolibc-riscv64-unknown-elf); it links no library.
gcc_opts="-static -mcmodel=medany -fvisibility=hidden -nostdlib -nostartfiles"
[ "$env" = v ] && gcc_opts+=" -isystem /usr/lib/picolibc/riscv64-unknown-elf/include"
# The "v" kernel writes tohost through its own mapping of RAM, at the
# physical address - 0x80200000 (pa2kva in env/v/vm.c): the watchpoint
# watches that virtual address.
watch_at=tohost
[ "$env" = v ] && watch_at=tohost-0x80200000
mk() {
	make --no-print-directory -f "$src/isa/Makefile" src_dir="$src/isa" XLEN=64 \
		RISCV_PREFIX=riscv64-unknown-elf- RISCV_GCC_OPTS="$gcc_opts" "$@"
}

declare -A passed total
failed_any=0
for suite in "${suites[@]}"; do
	if [ ! -f "$src/isa/$suite/Makefrag" ]; then
		echo "$0: $src/isa/$suite/Makefrag: no such suite" >&2
		exit 2
	fi
	tests=$(cd "$out" && mk --eval 'print-%: ; @echo $($*)' "print-${suite}_${env}_tests")
	# shellcheck disable=SC2086
	if ! (cd "$out" && mk -j"$(nproc)" $tests >"$out/$suite.build.log" 2>&1); then
		echo "$0: building $suite failed; see $out/$suite.build.log" >&2
		exit 2
	fi
	passed[$suite]=0
	total[$suite]=0
	for t in $tests; do
		total[$suite]=$((total[$suite] + 1))
		log="$out/$t.log"
		"$chainsim" gsp "$out/$t" -ex "watch $watch_at 4" -ex "continue $budget" -ex "print *tohost" \
			>"$log" 2>&1
		code=$?
		value=$(sed -n 's/^\*tohost = 0x[0-9a-f]* (\([0-9]*\)).*/\1/p' "$log")
		if [ "$code" -eq 0 ] && [ "$value" = 1 ]; then
			passed[$suite]=$((passed[$suite] + 1))
			echo "PASS $t"
		elif [ "$code" -eq 0 ] && [ -n "$value" ]; then
			failed_any=1
			echo "FAIL $t: test $((value >> 1)) failed"
		else
			failed_any=1
			why=$(grep -m1 '^stopped:' "$log" || tail -n1 "$log")
			echo "FAIL $t: exit $code: $why"
		fi
	done
done

echo
printf '| %-8s | %6s | %5s |\n' suite passed total
printf '|----------|--------|-------|\n'
all_p=0
all_t=0
for suite in "${suites[@]}"; do
	printf '| %-8s | %6d | %5d |\n' "$suite" "${passed[$suite]}" "${total[$suite]}"
	all_p=$((all_p + passed[$suite]))
	all_t=$((all_t + total[$suite]))
done
printf '| %-8s | %6d | %5d |\n' all "$all_p" "$all_t"
echo "(tests and logs in $out)"
exit "$failed_any"
