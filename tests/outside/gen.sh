#!/bin/bash
# SPDX-License-Identifier: MIT
# Regenerate the tinygrad corpus: record each case on tinygrad's mock NV GPU,
# take its reference values from tinygrad's CPU device, convert to .chain.
#   TINYGRAD=/tmp/tinygrad bash tests/outside/gen.sh [CASE...]
# TINYGRAD is an extracted tinygrad checkout (outside this repository), e.g.
#   git --git-dir=<mirror of github.com/tinygrad/tinygrad> archive HEAD | tar -x -C /tmp/tinygrad
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tg=${TINYGRAD:-/tmp/tinygrad}
py=${PYTHON:-python3}
commit=${TINYGRAD_COMMIT:-$(cat "$tg/.commit" 2>/dev/null || echo unknown)}
cases=("$@")
[ ${#cases[@]} -gt 0 ] || mapfile -t cases < <(cd "$tg" && PYTHONPATH="$tg" "$py" "$here/record_tinygrad.py" --list | cut -f1)
for c in "${cases[@]}"; do
	rm -rf "${here:?}/$c"; mkdir -p "$here/$c"
	(cd "$tg" && PYTHONPATH="$tg" DEV=CPU "$py" "$here/record_tinygrad.py" "$c" --cpu --out "$here/$c")
	(cd "$tg" && PYTHONPATH="$tg" DEV="MOCK+NV:PTX" TINYGRAD_COMMIT="$commit" "$py" "$here/record_tinygrad.py" "$c" --out "$here/$c")
	"$py" "$here/convert.py" "$here/$c" "$here/$c.chain"
done
