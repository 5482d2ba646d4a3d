#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run every tests/outside/*.chain with a chainsim binary and print one line per
case: exit status, result, the first break (stage, cause key), each launch's
first break, and how many expectations held. chainsim's own code.
  python3 tests/outside/verdicts.py [build/tools/chainsim]"""
import glob, json, os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
exe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "build", "tools", "chainsim")
for f in sorted(glob.glob(os.path.join(here, "*.chain"))):
  p = subprocess.run([exe, "run", "--json", f], capture_output=True, text=True)
  name = os.path.basename(f)[:-6]
  try: d = json.loads(p.stdout)
  except ValueError:
    print(f"{name:14s} rc={p.returncode} (no JSON) {p.stderr.strip()[:200]}"); continue
  fb = d.get("first_break")
  brk = f"stage {fb['stage']} {fb['name']} [{fb.get('cause')}]" if fb else "none"
  ls = [f"{l['first_break']['stage']}[{l['first_break'].get('cause')}]" if l.get("first_break") else "ok" for l in d.get("launches", [])]
  ex = d.get("expectations", [])
  held = sum(1 for e in ex if e.get("held") or e.get("status") in ("held", "pass", "ok"))
  print(f"{name:14s} rc={p.returncode} {d['result']:8s} break: {brk:40s} launches: {' '.join(ls) or '-'}  expects held {held}/{len(ex)}")
  if "-v" in sys.argv and fb: print("    ", fb["diagnosis"][:400])
