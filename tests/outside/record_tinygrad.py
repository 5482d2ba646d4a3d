#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Record tinygrad's NV method streams from tinygrad's own mock NV GPU.

chainsim's own code (not tinygrad's). It imports a tinygrad checkout given by
--tinygrad (never copied into this repository), runs one small tinygrad
program (a "case", see CASES) and writes what the guest gave the GPU:

  rec.json   allocations (GPU VA, size, host/device), then an ordered event
             list: guest memory writes (bytes the CPU changed since the device
             last saw them), GPFIFO submissions (channel, raw entries,
             pushbuffer dwords, decoded methods, QMDs, constant buffers, program
             text address, copy sources/destinations, semaphores), guest waits,
             the readbacks (copyout) and the kernels the mock was asked to run.
  w*.bin     the larger guest writes (PTX text staging, input data, ...).

Two modes:
  --cpu      run the case on tinygrad's CPU device and write expected.json
             (the flattened result and its dtype): the reference values.
  (default)  run the case on the mock NV GPU (DEV=MOCK+NV:PTX) with hooks:
               * NVDriver._gpu_mmio_write (the doorbell / tracked-memory write
                 that makes the mock process its GPFIFOs) is wrapped: before
                 the mock runs, every new GPFIFO entry is decoded and every
                 known or newly touched allocation is diffed against what the
                 device last saw, so CPU writes become 'mem' events; after it
                 runs, the device's view is refreshed.
               * nvgpu.ptx_run (gpuocelot, absent here) is replaced by a
                 recorder: the kernel does not run on the mock; chainsim runs it.
               * NVKIface.alloc records allocations; HCQSignal.wait the guest's
                 waits; HCQAllocator._copyout the readback source.

Run it through gen.sh (it sets PYTHONPATH and DEV for each mode).
"""
import argparse, ctypes, json, os, struct, sys

CASES = {}
def case(name, doc):
  def deco(fn):
    CASES[name] = (fn, doc)
    return fn
  return deco

def seq(n, mul=37, mod=101, scale=0.125, off=-6.0):
  return [((i * mul) % mod) * scale + off for i in range(n)]

# ---- the programs ----------------------------------------------------------------

@case("add_f32", "c = a + b, 16 float32 (one elementwise kernel)")
def _add(T):
  a, b = T(seq(16)), T(seq(16, 13, 29, 0.5, 1.0))
  return (a + b)

@case("mul_f32", "c = a * b, 64 float32 (one elementwise kernel)")
def _mul(T):
  a, b = T(seq(64)), T(seq(64, 7, 17, 0.25, -2.0))
  return (a * b)

@case("fma_f32", "d = a * b + c, 256 float32 (fused elementwise kernel)")
def _fma(T):
  a, b, c = T(seq(256)), T(seq(256, 7, 17, 0.25, -2.0)), T(seq(256, 3, 11, 1.0, 0.5))
  return (a * b + c)

@case("matmul16", "C = A @ B, 16x16 float32")
def _mm16(T):
  a = T(seq(256, 5, 23, 0.125, -1.0)).reshape(16, 16)
  b = T(seq(256, 11, 19, 0.0625, -0.5)).reshape(16, 16)
  return a @ b

@case("matmul64", "C = A @ B, 64x64 float32")
def _mm64(T):
  a = T(seq(4096, 5, 23, 0.125, -1.0)).reshape(64, 64)
  b = T(seq(4096, 11, 19, 0.0625, -0.5)).reshape(64, 64)
  return a @ b

@case("sum_256", "s = sum(a), 256 float32 (a full reduction)")
def _sum(T):
  return T(seq(256)).sum()

@case("sum_axis", "s = a.sum(axis=1), 32x32 float32 (a row reduction)")
def _sumaxis(T):
  return T(seq(1024, 3, 31, 0.25, -3.0)).reshape(32, 32).sum(axis=1)

@case("softmax", "softmax over the last axis of 4x32 float32")
def _softmax(T):
  return T(seq(128, 7, 13, 0.25, -1.5)).reshape(4, 32).softmax(axis=1)

@case("chain3", "three dependent kernels, no JIT: y = relu(a*b); z = y.sum(axis=1); w = z*2+1")
def _chain3(T):
  a = T(seq(256)).reshape(16, 16); b = T(seq(256, 7, 17, 0.25, -2.0)).reshape(16, 16)
  y = (a * b).relu().contiguous().realize()
  z = y.sum(axis=1).contiguous().realize()
  return z * 2 + 1

@case("jit_graph", "a TinyJit function of 3 kernels run 3 times (the third run replays tinygrad's HCQ graph); result of run 3")
def _jit(T):
  from tinygrad import TinyJit
  @TinyJit
  def f(x, y):
    h = (x * y).relu().contiguous()
    s = h.sum(axis=1).contiguous()
    return (s * 0.5 + 1).realize()
  out = None
  for k in range(3):
    x = T(seq(256, 5 + k, 23, 0.125, -1.0)).reshape(16, 16).realize()
    y = T(seq(256, 11, 19, 0.0625, -0.5 + k)).reshape(16, 16).realize()
    out = f(x, y)
  return out

@case("symbolic_val", "c = a * 2 + k with k a bound symbolic Variable (=7): the kernel takes a value argument, 64 float32")
def _sym(T):
  from tinygrad import Variable
  k = Variable("k", 0, 100).bind(7)
  return (T(seq(64)) * 2 + k).realize()

@case("timed_add", "c = a + b, 16 float32, run under DEBUG=2 so tinygrad times the kernel (wait=True: timestamp signals around the launch)")
def _timed(T):
  from tinygrad.helpers import Context
  a, b = T(seq(16)).realize(), T(seq(16, 13, 29, 0.5, 1.0)).realize()
  with Context(DEBUG=2): return (a + b).realize()

@case("copy_16B", "host-to-device-to-host round trip, 4 float32 (copy engine only)")
def _c16(T): return T(seq(4)).realize()

@case("copy_1KB", "host-to-device-to-host round trip, 256 float32 (copy engine only)")
def _c1k(T): return T(seq(256)).realize()

@case("copy_16KB", "host-to-device-to-host round trip, 4096 float32 (copy engine only)")
def _c16k(T): return T(seq(4096, 97, 1009, 0.01, -5.0)).realize()

@case("copy_u8_1000", "host-to-device-to-host round trip, 1000 uint8 (a length not a multiple of 4)")
def _cu8(T):
  from tinygrad import dtypes
  return T([(i * 7 + 3) % 256 for i in range(1000)], dtype=dtypes.uint8).realize()

# ---- CPU reference -----------------------------------------------------------------

def run_case(name):
  from tinygrad import Tensor
  fn, _ = CASES[name]
  out = fn(Tensor)
  return out, out.dtype, out.flatten().tolist()

def cpu_mode(name, outdir):
  out, dt, vals = run_case(name)
  with open(os.path.join(outdir, "expected.json"), "w") as f:
    json.dump({"case": name, "tinygrad_commit": os.environ.get("TINYGRAD_COMMIT", "unknown"), "doc": CASES[name][1], "dtype": dt.name, "shape": list(out.shape), "values": vals}, f)
  print(f"{name}: {len(vals)} {dt.name} values on CPU")

# ---- the mock recorder ---------------------------------------------------------------

class Recorder:
  def __init__(self, outdir):
    self.outdir = outdir
    self.allocs = []          # {va, size, host, uncached, cpu_access}
    self.known = {}           # alloc va -> bytes as the device last saw them
    self.events = []
    self.nblob = 0
    self.recorded_put = {}    # id(GPFIFO) -> entries already recorded
    self.queue_names = {}
    self.in_hook = False

  # -- memory --
  def find_alloc(self, va):
    for a in reversed(self.allocs):
      if a["va"] <= va < a["va"] + a["size"] and not a.get("freed"): return a
    for a in reversed(self.allocs):
      if a["va"] <= va < a["va"] + a["size"]: return a
    return None

  def read(self, va, size): return ctypes.string_at(va, size)

  def touch(self, touched, va, why):
    a = self.find_alloc(va)
    if a is None or a.get("freed"):
      self.events.append({"t": "note", "msg": f"touched VA {va:#x} ({why}) lies in no live recorded allocation"})
      return
    touched.add(a["va"])

  def diff_writes(self, vas):
    """Emit 'mem' events for bytes of the allocations vas that differ from what the device last saw."""
    for va in sorted(vas):
      a = self.find_alloc(va)
      if a.get("freed"): continue
      cur = self.read(va, a["size"])
      prev = self.known.get(va)
      if prev is None: prev = bytes(a["size"])
      if cur == prev: continue
      spans = []
      i, n = 0, len(cur)
      # 4-byte granules, spans merged across gaps shorter than 32 bytes
      while i < n:
        if cur[i:i+4] != prev[i:i+4]:
          s = i
          e = i + 4
          j = e
          while j < n:
            if cur[j:j+4] != prev[j:j+4]: e = j + 4; j = e; continue
            if j - e >= 32: break
            j += 4
          spans.append((s, min(e, n)))
          i = e
        else: i += 4
      for s, e in spans:
        data = cur[s:e]
        ev = {"t": "mem", "va": va + s, "alloc": va, "off": s, "len": e - s}
        if e - s <= 512 and b".entry" not in data: ev["hex"] = data.hex()
        else:
          fn = f"w{self.nblob:03d}." + ("ptx" if b".entry" in data and b".version" in data else "bin"); self.nblob += 1
          with open(os.path.join(self.outdir, fn), "wb") as f: f.write(data)
          ev["file"] = fn
        self.events.append(ev)

  def refresh(self, vas):
    for va in vas:
      a = self.find_alloc(va)
      if a.get("freed"): self.known.pop(va, None); continue
      self.known[va] = self.read(va, a["size"])

  # -- pushbuffer decode (the same reading as the mock's GPFIFO.execute_buf) --
  def decode_pb(self, addr, ndw, st, touched):
    dws = struct.unpack(f"<{ndw}I", self.read(addr, ndw * 4))
    self.touch(touched, addr, "pushbuffer")
    methods, launches, copies, sems = [], [], [], []
    i = 0
    while i < ndw:
      hdr = dws[i]; i += 1
      typ, size, subc, mthd = (hdr >> 29) & 7, (hdr >> 16) & 0xfff, (hdr >> 13) & 7, (hdr & 0x1fff) << 2
      if typ == 4:   # immediate: data in the header
        methods.append({"subc": subc, "mthd": mthd, "data": [size], "typ": typ}); st[(subc, mthd)] = size; continue
      data = list(dws[i:i+size]); i += size
      methods.append({"subc": subc, "mthd": mthd, "data": data, "typ": typ})
      for k, v in enumerate(data):
        # SEC_OP 1 INC, 3 NONINC, 5 ONEINC (tinygrad writes INC only)
        m = mthd if typ == 3 else ((mthd if k == 0 else mthd + 4) if typ == 5 else mthd + 4 * k)
        st[(subc, m)] = v
        self.on_method(subc, m, v, st, touched, launches, copies, sems)
    return dws, methods, launches, copies, sems

  def on_method(self, subc, m, v, st, touched, launches, copies, sems):
    g = self.nv
    if subc == 0 and m == g.NVC56F_SEM_EXECUTE:
      addr = st.get((0, g.NVC56F_SEM_ADDR_LO), 0) | (st.get((0, g.NVC56F_SEM_ADDR_HI), 0) << 32)
      pay = st.get((0, g.NVC56F_SEM_PAYLOAD_LO), 0) | (st.get((0, g.NVC56F_SEM_PAYLOAD_HI), 0) << 32)
      sems.append({"kind": "host", "va": addr, "payload": pay, "flags": v, "op": v & 7})
      self.touch(touched, addr, "host semaphore")
    elif subc == 1 and m == g.NVC6C0_SEND_SIGNALING_PCAS2_B:
      self.qmd_launch(st.get((1, g.NVC6C0_SEND_PCAS_A), 0) << 8, touched, launches, via="SEND_PCAS", action=v)
    elif subc == 1 and m == g.NVC6C0_SET_SHADER_LOCAL_MEMORY_A + 4:
      addr = (st.get((1, g.NVC6C0_SET_SHADER_LOCAL_MEMORY_A), 0) << 32) | v
      self.touch(touched, addr, "shader local memory")
    elif subc == 4 and m == g.NVC6B5_LAUNCH_DMA:
      if v & 3:
        src = (st.get((4, g.NVC6B5_OFFSET_IN_UPPER), 0) << 32) | st.get((4, g.NVC6B5_OFFSET_IN_UPPER + 4), 0)
        dst = (st.get((4, g.NVC6B5_OFFSET_OUT_UPPER), 0) << 32) | st.get((4, g.NVC6B5_OFFSET_OUT_UPPER + 4), 0)
        ln = st.get((4, g.NVC6B5_LINE_LENGTH_IN), 0)
        copies.append({"src": src, "dst": dst, "len": ln, "flags": v})
        self.touch(touched, src, "copy source"); self.touch(touched, dst, "copy destination")
      if (v >> 3) & 3:
        addr = (st.get((4, g.NVC6B5_SET_SEMAPHORE_A), 0) << 32) | st.get((4, g.NVC6B5_SET_SEMAPHORE_A + 4), 0)
        sems.append({"kind": "copy", "va": addr, "payload": st.get((4, g.NVC6B5_SET_SEMAPHORE_PAYLOAD), 0), "flags": v})
        self.touch(touched, addr, "copy semaphore")
    elif subc == 1 and m == g.NVC6C0_LAUNCH_DMA:
      addr = (st.get((1, g.NVC6C0_OFFSET_OUT_UPPER), 0) << 32) | st.get((1, g.NVC6C0_OFFSET_OUT_UPPER + 4), 0)
      self.touch(touched, addr, "inline-to-memory destination")

  def qmd_launch(self, qaddr, touched, launches, via, action=None, depth=0):
    from test.mockgpu.nv.nvgpu import qmd_struct_t
    self.touch(touched, qaddr, "QMD")
    q = qmd_struct_t.from_buffer_copy(self.read(qaddr, 0x100))
    prg = q.program_address_lower | (q.program_address_upper << 32)
    cb = q.constant_buffer_addr_lower_0 | (q.constant_buffer_addr_upper_0 << 32)
    cbsz = q.constant_buffer_size_shifted4_0
    c0 = struct.unpack("<88I", self.read(cb, 0x160))
    nargs, nvals = c0[80], c0[81]
    args = struct.unpack(f"<{nargs}Q", self.read(cb + 0x160, 8 * nargs)) if nargs else ()
    vals = struct.unpack(f"<{nvals}q", self.read(cb + 0x160 + 8 * nargs, 8 * nvals)) if nvals else ()
    self.touch(touched, prg, "program"); self.touch(touched, cb, "constant bank 0")
    for a in args: self.touch(touched, a, "kernel buffer")
    text = ctypes.string_at(prg)
    name = None
    for line in text.decode(errors="replace").splitlines():
      if ".entry" in line: name = line.split(".entry")[1].strip().split("(")[0].strip(); break
    L = {"via": via, "action": action, "qmd": qaddr, "program": prg, "program_text_len": len(text), "kernel": name,
         "cbuf0": cb, "cbuf0_size_field": cbsz, "nargs": nargs, "nvals": nvals, "args": list(args), "vals": list(vals),
         "grid": [q.cta_raster_width, q.cta_raster_height, q.cta_raster_depth],
         "block": [q.cta_thread_dimension0, q.cta_thread_dimension1, q.cta_thread_dimension2],
         "shared": q.shared_memory_size, "qmd_version": [q.qmd_major_version, q.qmd_version],
         "release": [], "dependent": None, "qmd_dwords": list(struct.unpack("<64I", self.read(qaddr, 0x100)))}
    for r in range(2):
      if getattr(q, f"release{r}_enable"):
        ra = getattr(q, f"release{r}_address_lower") | (getattr(q, f"release{r}_address_upper") << 32)
        rp = getattr(q, f"release{r}_payload_lower") | (getattr(q, f"release{r}_payload_upper") << 32)
        L["release"].append({"i": r, "va": ra, "payload": rp})
        self.touch(touched, ra, "QMD release")
    launches.append(L)
    if q.dependent_qmd0_enable and depth < 64:
      dq = q.dependent_qmd0_pointer << 8
      L["dependent"] = {"qmd": dq, "action": q.dependent_qmd0_action, "prefetch": q.dependent_qmd0_prefetch}
      self.qmd_launch(dq, touched, launches, via="DEPENDENT_QMD0", depth=depth + 1)

  # -- the hooks --
  def on_doorbell(self, orig, drv, mv, off, gpu):
    if self.in_hook or drv._executing: return orig(drv, mv, off, gpu)
    self.in_hook = True
    try:
      touched, subs = set(), []
      for g in drv.gpus.values():
        for q in g.queues:
          key = id(q)
          start = self.recorded_put.get(key, 0)
          put = q.ctrl.GPPut
          if key not in self.queue_names: self.queue_names[key] = "compute" if not self.queue_names else ("copy" if len(self.queue_names) == 1 else f"q{len(self.queue_names)}")
          while start != put:
            ent = q.gpfifo[start]
            addr = ((ent >> 2) & 0x3fffffffff) << 2
            ndw = (ent >> 42) & 0x1fffff
            st = getattr(q, "_rec_state", None)
            if st is None: st = q._rec_state = {}
            dws, methods, launches, copies, sems = self.decode_pb(addr, ndw, st, touched)
            subs.append({"t": "submit", "queue": self.queue_names[key], "index": start, "entry": [ent & 0xffffffff, ent >> 32],
                         "pb": addr, "ndw": ndw, "dwords": list(dws), "launches": launches, "copies": copies, "sems": sems})
            start = (start + 1) % q.entries_cnt
          self.recorded_put[key] = put
      if True:
        self.diff_writes(set(self.known) | touched)
      for sb in subs: sb["touched"] = sorted(touched)
      self.events.extend(subs)
      r = orig(drv, mv, off, gpu)
      self.refresh(set(self.known) | touched)
      return r
    finally:
      self.in_hook = False

def mock_mode(name, outdir):
  import tinygrad.runtime.ops_nv as ops_nv
  import tinygrad.runtime.support.hcq as hcq
  import test.mockgpu.mockgpu  # noqa: F401  installs the mock
  import test.mockgpu.nv.nvdriver as nvdriver
  import test.mockgpu.nv.nvgpu as nvgpu
  rec = Recorder(outdir)
  rec.nv = ops_nv.nv_570

  orig_db = nvdriver.NVDriver._gpu_mmio_write
  def db(drv, mv, off, gpu): return rec.on_doorbell(orig_db, drv, mv, off, gpu)
  nvdriver.NVDriver._gpu_mmio_write = db

  def ptx_run(src, nargs, args, lx, ly, lz, gx, gy, gz, shm):
    rec.events.append({"t": "mock_kernel", "grid": [gx, gy, gz], "block": [lx, ly, lz], "nargs": nargs,
                       "note": "not run by the mock (gpuocelot absent); chainsim runs it"})
  nvgpu.ptx_run = ptx_run

  orig_alloc = ops_nv.NVKIface.alloc
  def alloc(self, size, host=False, uncached=False, cpu_access=False, *a, **kw):
    buf = orig_alloc(self, size, host, uncached, cpu_access, *a, **kw)
    rec.allocs.append({"va": int(buf.va_addr), "size": int(buf.size), "host": bool(host), "uncached": bool(uncached),
                       "cpu_access": bool(cpu_access)})
    return buf
  ops_nv.NVKIface.alloc = alloc
  orig_free = ops_nv.NVKIface.free
  def free(self, mem):
    for a in rec.allocs:
      if a["va"] == int(mem.va_addr) and not a.get("freed"):
        a["freed"] = True; rec.known.pop(a["va"], None)
        rec.events.append({"t": "free", "va": a["va"], "size": a["size"]})
    return orig_free(self, mem)
  ops_nv.NVKIface.free = free

  orig_wait = hcq.HCQSignal.wait
  def wait(self, value, timeout=None):
    r = orig_wait(self, value, timeout)
    rec.events.append({"t": "wait", "va": int(self.value_addr), "value": int(value), "seen": int(self.value)})
    return r
  hcq.HCQSignal.wait = wait

  orig_copyout = hcq.HCQAllocator._copyout
  def copyout(self, dest, src):
    rec.events.append(ev := {"t": "copyout", "src": int(src.va_addr), "len": dest.nbytes, "staging": int(self.b[0].va_addr)})
    r = orig_copyout(self, dest, src)
    return r
  hcq.HCQAllocator._copyout = copyout

  rec.events.append({"t": "phase", "msg": "program start"})
  out, dt, vals = run_case(name)
  from tinygrad import Device
  dev = Device["NV"]
  with open(os.path.join(outdir, "rec.json"), "w") as f:
    json.dump({"case": name, "tinygrad_commit": os.environ.get("TINYGRAD_COMMIT", "unknown"), "doc": CASES[name][1], "arch": dev.arch, "compute_class": dev.iface.compute_class,
               "dma_class": dev.iface.dma_class, "gpfifo_class": dev.iface.gpfifo_class,
               "dtype": dt.name, "allocs": rec.allocs, "events": rec.events, "mock_result_head": vals[:8]}, f, indent=0)
  n = sum(1 for e in rec.events if e["t"] == "submit")
  print(f"{name}: {n} submissions, {len(rec.allocs)} allocations, {rec.nblob} blobs")

if __name__ == "__main__":
  ap = argparse.ArgumentParser()
  ap.add_argument("case", nargs="?")
  ap.add_argument("--cpu", action="store_true")
  ap.add_argument("--out", required=False)
  ap.add_argument("--list", action="store_true")
  o = ap.parse_args()
  if o.list:
    for k, (_, d) in CASES.items(): print(f"{k}\t{d}")
    sys.exit(0)
  os.makedirs(o.out, exist_ok=True)
  (cpu_mode if o.cpu else mock_mode)(o.case, o.out)
