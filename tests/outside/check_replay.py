#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a recording without the launch chain: replay its guest writes and copy-engine
copies in Python, run each launch's PTX text with ptxrun_kernel (chainsim's PTX
executor), and compare the buffer tinygrad read back with tinygrad's CPU values.
It shows that the recording is complete (the image, copies and launches suffice to
compute tinygrad's result) and what the executor refuses in tinygrad's PTX. Each
case runs twice: as recorded, and with `local0[0]` rewritten to `local0` (the one
PTX form today's parser refuses). chainsim's own code.
  HARNESS=/tmp/ptxrun_kernel python3 tests/outside/check_replay.py tests/outside/CASE...
"""
import json, os, struct, subprocess, sys
H = os.environ.get("HARNESS", "/tmp/ptxrun_kernel")
T = os.environ.get("TMPDIR", "/tmp")
def run_case(d, patch=False):
  r = json.load(open(os.path.join(d, 'rec.json'))); x = json.load(open(os.path.join(d, 'expected.json')))
  allocs = r['allocs']; mem = {}
  def find(va):
    for a in reversed(allocs):
      if a['va'] <= va < a['va'] + a['size']: return a
  def buf(a):
    if a['va'] not in mem: mem[a['va']] = bytearray(a['size'])
    return mem[a['va']]
  def rd(va, n): a = find(va); o = va - a['va']; return bytes(buf(a)[o:o+n])
  def wr(va, b): a = find(va); o = va - a['va']; buf(a)[o:o+len(b)] = b
  notes = []
  for e in r['events']:
    if e['t'] == 'mem':
      wr(e['va'], bytes.fromhex(e['hex']) if 'hex' in e else open(os.path.join(d, e['file']), 'rb').read())
    elif e['t'] == 'submit':
      for c in e['copies']: wr(c['dst'], rd(c['src'], c['len']))
      for L in e['launches']:
        a = find(L['program']); o = L['program'] - a['va']; bb = buf(a); end = bb.index(0, o)
        text = bytes(bb[o:end]).decode()
        if patch: text = text.replace('local0[0]', 'local0')
        open(os.path.join(T, 'k.ptx'), 'w').write(text)
        regs = sorted({find(p)['va'] for p in L['args']})
        with open(os.path.join(T, 'img'), 'wb') as f:
          for va in regs: f.write(struct.pack('<QQ', va, len(buf(find(va))))); f.write(bytes(buf(find(va))))
        params = b''.join(struct.pack('<Q', p) for p in L['args']) + b''.join(struct.pack('<q', v) for v in L['vals'])
        p = subprocess.run([H, os.path.join(T, 'k.ptx'), L['kernel'], *map(str, L['grid']), *map(str, L['block']), os.path.join(T, 'img'), os.path.join(T, 'img.out'), params.hex()], capture_output=True, text=True)
        notes.append(f"{L['kernel']}: {p.stdout.strip()}")
        if p.returncode == 0:
          raw = open(os.path.join(T, 'img.out'), 'rb').read(); i = 0
          while i < len(raw):
            va, sz = struct.unpack_from('<QQ', raw, i); i += 16; mem[va][:] = raw[i:i+sz]; i += sz
  co = [e for e in r['events'] if e['t'] == 'copyout'][-1]
  vals = x['values']; ty = x['dtype']
  fmt = {'float': 'f', 'uchar': 'B', 'unsigned char': 'B'}.get(ty, 'i')
  got = struct.unpack(f"<{len(vals)}{fmt}", rd(co['src'], len(vals) * struct.calcsize(fmt)))
  err = max(abs(a - b) for a, b in zip(got, vals))
  return notes, err, max(abs(v) for v in vals)
for d in sys.argv[1:]:
  for patch in (False, True):
    notes, err, mx = run_case(d, patch)
    print(f"{os.path.basename(d)}{' (patched local0[0]->local0)' if patch else ''}: max abs err {err:.3g} (max |v| {mx:.3g})")
    for n in notes: print('   ', n)
