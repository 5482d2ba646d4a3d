#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs tinygrad's own tests three ways - DEV=CPU, and tinygrad's mock NV GPU on
# chainsim with its PTX renderer (DEV=MOCK+NV:PTX) and its CUDA renderer
# (DEV=MOCK+NV, NVRTC) - and prints per file the passed, failed and skipped
# counts of each way, then every test that passes on CPU and not on chainsim.
#
#   tools/tinygrad-check.sh TINYGRAD_SRC [TEST FILE...]
#
# Default files: test/test_tiny.py, test/device/test_hcq.py and every file of
# test/backend. Needs a built libchainsim (build/, or CHAINSIM_LIB), Debian's
# python3 with python3-numpy, python3-torch and python3-pytest, and for the CUDA
# renderer the CUDA toolkit's NVRTC. tinygrad is not a Debian package: bring a
# checkout yourself; this script fetches nothing.
#   TINYGRAD_CHECK_OUT=DIR      keep logs and JUnit files there (default: a temp dir)
#   TINYGRAD_CHECK_TIMEOUT=S    the most one file may take one way (default 1800)
#   TINYGRAD_CHECK_WAYS="cpu ptx cuda"   the ways to run
#   HCQDEV_WAIT_TIMEOUT_MS     tinygrad's wait timeout; on chainsim 5000 unless set (a
#                               queue that cannot progress after a failed launch then
#                               costs each later wait 5 s, not tinygrad's 30)
#   TINYGRAD_CHECK_SUMMARY_ONLY=1   run nothing: print the table of what DIR holds
#                               (the ways run apart, e.g. at once, into one DIR)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
	echo "usage: tools/tinygrad-check.sh TINYGRAD_SRC [TEST FILE...]" >&2
	exit 2
fi
src=$(cd "$1" && pwd)
shift
if [ ! -f "$src/test/mockgpu/nv/nvdriver.py" ] || [ ! -f "$src/tinygrad/runtime/ops_nv.py" ]; then
	echo "tinygrad-check: $src is not a tinygrad source tree (no test/mockgpu/nv/nvdriver.py)" >&2
	exit 2
fi
missing=()
for mod in numpy torch pytest; do
	"$py" -c "import $mod" 2>/dev/null || missing+=("python3-$mod")
done
if [ "${#missing[@]}" -gt 0 ]; then
	echo "tinygrad-check: Debian's python3 lacks ${missing[*]} (apt-get install ${missing[*]})" >&2
	exit 2
fi
if ! PYTHONPATH="$here/python" "$py" -c 'import chainsim' >/dev/null; then
	echo "tinygrad-check: the chainsim package does not load (build it: meson setup build && ninja -C build)" >&2
	exit 2
fi

if [ $# -gt 0 ]; then
	files=("$@")
else
	files=(test/test_tiny.py test/device/test_hcq.py)
	for f in "$src"/test/backend/test_*.py; do files+=("test/backend/$(basename "$f")"); done
fi
out=${TINYGRAD_CHECK_OUT:-$(mktemp -d -t tinygrad-check.XXXXXX)}
ways=${TINYGRAD_CHECK_WAYS:-cpu ptx cuda}
limit=${TINYGRAD_CHECK_TIMEOUT:-1800}
mkdir -p "$out"
echo "tinygrad-check: tinygrad $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?') in $src; logs in $out"

for f in "${files[@]}"; do
	[ -n "${TINYGRAD_CHECK_SUMMARY_ONLY:-}" ] && break
	name=$(echo "$f" | tr '/' '_')
	for way in $ways; do
		case $way in
		cpu) dev=CPU; runner=() ;;
		ptx) dev=MOCK+NV:PTX; runner=(-m chainsim.tinygrad) ;;
		cuda) dev=MOCK+NV; runner=(-m chainsim.tinygrad) ;;
		*) echo "tinygrad-check: unknown way '$way' (cpu, ptx, cuda)" >&2; exit 2 ;;
		esac
		mkdir -p "$out/$way"
		start=$(date +%s.%N)
		rc=0
		wait_env=()
		if [ -n "${HCQDEV_WAIT_TIMEOUT_MS:-}" ]; then
			wait_env=(HCQDEV_WAIT_TIMEOUT_MS="$HCQDEV_WAIT_TIMEOUT_MS")
		elif [ "$way" != cpu ]; then
			wait_env=(HCQDEV_WAIT_TIMEOUT_MS=5000)
		fi
		(cd "$src" && env DEV=$dev CHAINSIM_TIMING=1 PYTHONPATH="$here/python:$src" "${wait_env[@]}" \
			timeout "$limit" "$py" "${runner[@]}" -m pytest -q --noconftest -p no:cacheprovider \
			--junitxml="$out/$way/$name.xml" "$f") >"$out/$way/$name.log" 2>&1 || rc=$?
		end=$(date +%s.%N)
		echo "$rc $start $end" >"$out/$way/$name.rc"
	done
done

"$py" - "$out" "$ways" "${files[@]}" <<'EOF'
import os, sys, xml.etree.ElementTree as ET
out, ways, files = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
label = {"cpu": "DEV=CPU", "ptx": "MOCK+NV:PTX", "cuda": "MOCK+NV"}

def outcomes(way, name):
    """{test id: (passed|failed|skipped, skip reason)}, or None when pytest left no result."""
    path = os.path.join(out, way, name + ".xml")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    res = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        tid = tc.get("classname", "") + "::" + tc.get("name", "")
        kinds = {c.tag: c for c in tc}
        if kinds.keys() & {"failure", "error"}:
            res[tid] = ("failed", "")
        elif "skipped" in kinds:
            res[tid] = ("skipped", kinds["skipped"].get("message", "").strip())
        else:
            res[tid] = ("passed", "")
    return res

def seconds(way, name):
    path = os.path.join(out, way, name + ".rc")
    if not os.path.exists(path):
        return -1, 0.0  # not run
    rc, start, end = open(path).read().split()
    return int(rc), float(end) - float(start)

head = f"{'file':44}" + "".join(f" {label[w]:>22}" for w in ways)
print(head)
print(f"{'':44}" + "".join(f" {'pass/fail/skip  secs':>22}" for w in ways))
regress, totals, no_result = [], {w: [0, 0, 0, 0.0] for w in ways}, []
for f in files:
    name = f.replace("/", "_")
    row, res = f"{f:44}", {}
    for w in ways:
        res[w] = outcomes(w, name)
        rc, secs = seconds(w, name)
        if res[w] is None:
            row += f" {'no result (rc ' + str(rc) + ')':>22}"
            no_result.append(f"{f} ({label[w]}): pytest left no result, exit {rc}; see {os.path.join(out, w, name + '.log')}")
            continue
        n = [sum(1 for v in res[w].values() if v[0] == k) for k in ("passed", "failed", "skipped")]
        for i in range(3):
            totals[w][i] += n[i]
        totals[w][3] += secs
        row += f" {'%d/%d/%d %6.1f' % (n[0], n[1], n[2], secs):>22}"
    print(row)
    cpu = res.get("cpu")
    for w in ways:
        if w == "cpu" or cpu is None:
            continue
        for tid, (v, _) in sorted(cpu.items()):
            if v != "passed":
                continue
            got = None if res[w] is None else res[w].get(tid)
            if got is None:
                regress.append((w, tid, "no result" if res[w] is None else "absent", ""))
            elif got[0] != "passed":
                regress.append((w, tid, got[0], got[1]))
print(f"{'total':44}" + "".join(f" {'%d/%d/%d %6.1f' % tuple(totals[w]):>22}" for w in ways))
for line in no_result:
    print("NO RESULT " + line)
if "cpu" in ways:
    failed = [r for r in regress if r[2] != "skipped"]
    skipped = [r for r in regress if r[2] == "skipped"]
    print(f"passes on DEV=CPU, fails on chainsim (or left no result): {len(failed)}")
    for w, tid, how, _ in failed:
        print(f"  {label[w]:12} {tid} ({how})")
    print(f"passes on DEV=CPU, skipped on chainsim by tinygrad's own tests: {len(skipped)}")
    reasons = {}
    for w, tid, _, why in skipped:
        reasons.setdefault((label[w], why[:120] or "(no reason given)"), []).append(tid)
    for (w, why), tids in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"  {w:12} {len(tids):4}  {why}")
    regress = failed
sys.exit(1 if regress or no_result else 0)
EOF
