#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Convert one recording of record_tinygrad.py into a chainsim .chain scenario.

chainsim's own code. Usage: convert.py CASE_DIR OUT.chain
CASE_DIR holds rec.json (the mock-GPU recording), expected.json (tinygrad's
CPU-device result) and the w*.bin / w*.ptx guest writes; the scenario names
those files relative to itself.

The scenario reproduces the guest's stream byte for byte:
  - every allocation the stream touches, at tinygrad's GPU VA (alloc at=VA);
  - every CPU write the guest made before a submission, in order (data for
    short spans, load for longer ones): pushbuffers, QMDs, constant buffers,
    staging buffers with input data and PTX text, signal initial values;
  - each submission as the guest made it: its raw GPFIFO entries (gpfifo-raw)
    on the channel tinygrad used (compute or copy), then submit; a comment
    decodes the pushbuffer (methods, QMD fields, copies, semaphores);
  - each guest wait on tinygrad's timeline signal (wait ADDR == VALUE u64,
    VALUE being what the signal held when tinygrad's >= wait resolved);
  - expect mem on the buffer tinygrad read back (and on the staging buffer the
    copy engine wrote it to) with tinygrad's CPU-device values.
"""
import json, os, struct, sys

HOST = {0x0: "SET_OBJECT", 0x20: "NON_STALL_INTERRUPT", 0x5c: "SEM_ADDR_LO", 0x60: "SEM_ADDR_HI", 0x64: "SEM_PAYLOAD_LO",
        0x68: "SEM_PAYLOAD_HI", 0x6c: "SEM_EXECUTE"}
COMPUTE = {0x0: "SET_OBJECT", 0x140: "PM_TRIGGER", 0x180: "LINE_LENGTH_IN", 0x188: "OFFSET_OUT_UPPER", 0x1b0: "LAUNCH_DMA",
           0x1b4: "LOAD_INLINE_DATA", 0x2a0: "SET_SHADER_SHARED_MEMORY_WINDOW_A", 0x2a4: "SET_SHADER_SHARED_MEMORY_WINDOW_B",
           0x2b4: "SEND_PCAS_A", 0x2c0: "SEND_SIGNALING_PCAS2_B", 0x2e4: "SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A",
           0x2e8: "SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B", 0x2ec: "SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C",
           0x790: "SET_SHADER_LOCAL_MEMORY_A", 0x794: "SET_SHADER_LOCAL_MEMORY_B", 0x7b0: "SET_SHADER_LOCAL_MEMORY_WINDOW_A",
           0x7b4: "SET_SHADER_LOCAL_MEMORY_WINDOW_B", 0x1698: "INVALIDATE_SHADER_CACHES_NO_WFI"}
COPY = {0x0: "SET_OBJECT", 0x240: "SET_SEMAPHORE_A", 0x244: "SET_SEMAPHORE_B", 0x248: "SET_SEMAPHORE_PAYLOAD", 0x300: "LAUNCH_DMA",
        0x400: "OFFSET_IN_UPPER", 0x404: "OFFSET_IN_LOWER", 0x408: "OFFSET_OUT_UPPER", 0x40c: "OFFSET_OUT_LOWER", 0x418: "LINE_LENGTH_IN"}
SEM_OPS = {1: "RELEASE", 2: "ACQUIRE", 3: "ACQ_CIRC_GEQ", 4: "ACQ_AND", 5: "ACQ_NOR"}
ARCH = {0xc6c0: "ampere", 0xc7c0: "ampere", 0xc9c0: "ada", 0xcbc0: "hopper", 0xcdc0: "blackwell", 0xcec0: "blackwell"}

def mname(subc, m):
  t = {0: HOST, 1: COMPUTE, 4: COPY}.get(subc, {})
  if subc != 0 and m < 0x100: t = HOST
  return t.get(m, f"{m:#x}")

def decode(dws):
  out, i = [], 0
  while i < len(dws):
    h = dws[i]; i += 1
    if h == 0:   # DMA_NOP runs (tinygrad's graph pushbuffer fills its page with them)
      j = i
      while j < len(dws) and dws[j] == 0: j += 1
      out.append(f"{j - i + 1} zero dword(s) (NOP)"); i = j; continue
    typ, size, subc, m = (h >> 29) & 7, (h >> 16) & 0xfff, (h >> 13) & 7, (h & 0x1fff) << 2
    if typ == 4:
      out.append(f"imm {subc} {mname(subc, m)} {size:#x}"); continue
    data = dws[i:i+size]; i += size
    kw = {1: "inc", 3: "ninc", 5: "once"}.get(typ, f"typ{typ}")
    names = [mname(subc, m + 4 * k if typ == 1 else m) for k in range(len(data))]
    out.append(f"{kw} {subc} " + " ".join(f"{n}={v:#x}" for n, v in zip(names, data)))
  return out

class Conv:
  def __init__(self, d, out):
    self.d, self.out = d, out
    self.rec = json.load(open(os.path.join(d, "rec.json")))
    self.exp = json.load(open(os.path.join(d, "expected.json")))
    self.rel = os.path.relpath(d, os.path.dirname(os.path.abspath(out)))
    self.allocs = self.rec["allocs"]
    self.lines = []

  def find(self, va):
    for a in reversed(self.allocs):
      if a["va"] <= va < a["va"] + a["size"] and not a.get("freed"): return a
    for a in reversed(self.allocs):
      if a["va"] <= va < a["va"] + a["size"]: return a
    raise KeyError(hex(va))

  def name_allocs(self):
    role, first = {}, []
    def give(va, r):
      a = self.find(va)
      if a["va"] not in role: role[a["va"]] = r; first.append(a["va"])
    for e in self.rec["events"]:
      if e["t"] == "copyout": give(e["src"], "out")
      if e["t"] == "submit":
        for L in e["launches"]: give(L["program"], "prog")
        dws, i = e["dwords"], 0
        while i < len(dws):   # SET_SHADER_LOCAL_MEMORY_A/B: the local-memory region
          h = dws[i]; n = (h >> 16) & 0xfff; m = (h & 0x1fff) << 2
          if (h >> 13) & 7 == 1 and m == 0x790 and n >= 2: give((dws[i+1] << 32) | dws[i+2], "local")
          i += 1 + (0 if (h >> 29) & 7 == 4 else n)
    for e in self.rec["events"]:
      if e["t"] == "submit":
        give(e["pb"], "cmdq")
        for s in e["sems"]: give(s["va"], "sig")
        for L in e["launches"]:
          give(L["qmd"], "kernargs"); give(L["program"], "prog"); give(L["cbuf0"], "kernargs")
          for r in L["release"]: give(r["va"], "sig")
          for x in L["args"]: give(x, "buf")
        for c in e["copies"]:
          give(c["src"], "stage" if self.find(c["src"])["host"] else "buf")
          give(c["dst"], "stage" if self.find(c["dst"])["host"] else "buf")
    for e in self.rec["events"]:
      if e["t"] == "submit":
        for t in e.get("touched", []): give(t, "dev")
      elif e["t"] == "mem": give(e["alloc"], "host" if self.find(e["alloc"])["host"] else "dev")
    self.names, count = {}, {}
    for va in first:
      r = role[va]
      self.names[va] = f"{r}{count.get(r, 0)}"; count[r] = count.get(r, 0) + 1
    self.order = sorted(first)

  def ref(self, va):
    a = self.find(va)
    off = va - a["va"]
    return self.names[a["va"]] + (f"+{off:#x}" if off else "")

  def emit(self, s=""): self.lines.append(s)

  def run(self):
    r, x = self.rec, self.exp
    self.name_allocs()
    arch = ARCH.get(r["compute_class"], "ada")
    E = self.emit
    E(f"# tinygrad NV stream, case '{r['case']}': {r['doc']}")
    E(f"# Recorded from tinygrad's mock NV GPU (DEV=MOCK+NV:PTX, tinygrad {r.get('tinygrad_commit', 'unknown')[:12]}) by")
    E("# tests/outside/record_tinygrad.py and converted by tests/outside/convert.py; regenerate with")
    E("# tests/outside/gen.sh. Expected values: the same program on tinygrad's CPU device.")
    E(f"# The mock reports {r['arch']}, compute class {r['compute_class']:#x}, copy class {r['dma_class']:#x},")
    E(f"# GPFIFO class {r['gpfifo_class']:#x}; program memory holds the PTX text tinygrad generated (the mock")
    E("# convention: tinygrad's NVProgram uploads PTX, not SASS, under the mock).")
    E(f"arch {arch}")
    E("")
    E("# tinygrad's two channels: compute (its compute_gpfifo) and copy (its dma_gpfifo)")
    E("channel compute")
    E("channel copy")
    E("")
    E("# every allocation the stream touches, at the GPU VA tinygrad's mock driver gave it")
    for va in self.order:
      a = self.find(va)
      kind = ("host" if a["host"] else "device") + (", uncached" if a["uncached"] else "") + (", cpu-mapped" if a["cpu_access"] else "")
      E(f"alloc {self.names[va]} {a['size']:#x} at={va:#x}   # {kind}")
    E("")
    nsub, last_wait = 0, None
    for e in r["events"]:
      t = e["t"]
      if t == "mem":
        if "hex" in e:
          b = bytes.fromhex(e["hex"])
          vals = struct.unpack(f"<{len(b)//4}I", b[:len(b)//4*4])
          # at most 16 values a line: longer data lines crash today's parser (parse.c parse_values' regrowth)
          for k in range(0, len(vals), 16):
            E(f"data {self.ref(e['va'] + 4 * k)} u32 " + " ".join(f"{v:#x}" for v in vals[k:k+16]))
        else:
          E(f"load {self.ref(e['va'])} {self.rel}/{e['file']}   # {e['len']} bytes")
        last_wait = None
      elif t == "submit":
        E(f"# submission {nsub}: channel {e['queue']}, GPFIFO entry {e['index']}: pushbuffer {self.ref(e['pb'])}, {e['ndw']} dwords")
        for ln in decode(e["dwords"]): E(f"#   {ln}")
        for L in e["launches"]:
          E(f"#   launch {L['kernel']} via {L['via']}: QMD {self.ref(L['qmd'])} V{L['qmd_version'][0]:02d}_{L['qmd_version'][1]:02d}, "
            f"program {self.ref(L['program'])} ({L['program_text_len']} bytes of PTX text), cbuf0 {self.ref(L['cbuf0'])}, "
            f"grid {L['grid']} block {L['block']}")
          E(f"#     args (cbuf0+0x160, mock layout: count at cbuf0[80]={L['nargs']}, [81]={L['nvals']}): "
            + ", ".join(self.ref(a) for a in L["args"]) + ("; vals " + ",".join(map(str, L["vals"])) if L["vals"] else ""))
          rel = ", ".join(f"release{q['i']} {self.ref(q['va'])} = {q['payload']}" for q in L["release"]) or "no release"
          dep = f"; dependent QMD0 {self.ref(L['dependent']['qmd'])} action {L['dependent']['action']}" if L["dependent"] else ""
          E(f"#     {rel}{dep}")
        for c in e["copies"]: E(f"#   copy {self.ref(c['src'])} -> {self.ref(c['dst'])}, {c['len']} bytes, LAUNCH_DMA {c['flags']:#x}")
        for s in e["sems"]:
          op = SEM_OPS.get(s["op"], str(s["op"])) if s["kind"] == "host" else "release (copy engine)"
          E(f"#   semaphore {s['kind']} {op} {self.ref(s['va'])} payload {s['payload']} (flags {s['flags']:#x})")
        E(f"channel {e['queue']}")
        E(f"gpfifo-raw {e['entry'][0]:#x} {e['entry'][1]:#x}")
        E("submit")
        E("")
        nsub += 1; last_wait = None
      elif t == "wait":
        key = (e["va"], e["value"])
        if key != last_wait:
          E(f"wait {self.ref(e['va'])} >= {e['value']} u64   # the timeline held {e['seen']} when tinygrad's wait resolved")
        last_wait = key
      elif t == "mock_kernel":
        E(f"# (the mock was asked to run this launch: grid {e['grid']} block {e['block']}, {e['nargs']} args; it cannot, chainsim does)")
      elif t == "copyout":
        E(f"# tinygrad reads back {e['len']} bytes of {self.ref(e['src'])} through staging {self.ref(e['staging'])}")
      elif t == "free":
        E(f"# tinygrad frees {self.ref(e['va'])} ({e['size']:#x} bytes)")
      elif t == "note":
        E(f"# recorder note: {e['msg']}")
    # expectations
    co = [e for e in r["events"] if e["t"] == "copyout"][-1]
    dt, vals = x["dtype"], x["values"]
    ty = {"float": "f32", "int": "u32", "uint": "u32", "unsigned int": "u32", "uchar": "u8", "unsigned char": "u8"}[dt]
    E("")
    E(f"# tinygrad's CPU device computed these {len(vals)} {dt} values ({x['doc']})")
    E("expect complete")
    tol = ""
    if ty == "f32":
      mx = max([1.0] + [abs(v) for v in vals])
      exact = r["case"].startswith("copy_")
      tol = "" if exact else f" tol={(1e-5 if r['case'] in ('add_f32', 'mul_f32', 'fma_f32') else 1e-4) * mx:.3g}"
    step = 8 if ty != "u8" else 16
    size = {"f32": 4, "u32": 4, "u8": 1}[ty]
    def fmt(v):
      if ty == "f32": return repr(float(v))
      return str(int(v))
    # both the device buffer and the staging copy when small; one of them when long
    bases = (co["src"], co["staging"]) if len(vals) <= 1024 else ((co["staging"],) if r["case"].startswith("copy_") else (co["src"],))
    for base in bases:
      E(f"# at {'the device buffer tinygrad read back' if base == co['src'] else 'the staging buffer the copy engine wrote it to'}")
      for i in range(0, len(vals), step):
        E(f"expect mem {self.ref(base + i * size)} {ty} " + " ".join(fmt(v) for v in vals[i:i+step]) + tol)
    with open(self.out, "w") as f: f.write("\n".join(self.lines) + "\n")

if __name__ == "__main__":
  Conv(sys.argv[1], sys.argv[2]).run()
