# SPDX-License-Identifier: MIT
"""tinygrad's mock NV GPU on chainsim.

Run from a tinygrad source tree, with DEV=MOCK+NV (CUDA renderer, NVRTC) or
DEV=MOCK+NV:PTX (tinygrad's own PTX renderer):

    python3 -m chainsim.tinygrad -m pytest test/test_tiny.py
    python3 -m chainsim.tinygrad some_script.py ARGS...

It puts chainsim where tinygrad's mock driver (test/mockgpu/nv/nvdriver.py)
creates its GPU objects, without editing tinygrad's files: each mock GPU is a
live chainsim device on the process's own memory, rings and USERDs, and
tinygrad's real NV runtime (ops_nv.py) drives it. The mock driver's loop is
replaced by one that rings the doorbell of every queue whose GP_PUT moved and
runs every device until none can make progress. A channel that stops raises
ChainBreak in tinygrad's process with the chain's verdict; a wait that times
out raises it too. docs/tinygrad.md says what the mock's conventions are and
what chainsim checks that the Python mock does not.

Settings (environment):
  CHAINSIM_SM=sm_89      the SM version the mock GPU reports (sm_89 by default;
                         sm_80 .. sm_90): what tinygrad compiles for
  CHAINSIM_TRACE_WINDOW  recent trace records each device keeps
  CHAINSIM_LAUNCH_SECONDS  each launch's wall-time budget (default 30)
"""

import ctypes
import os
import runpy
import sys
import time

import chainsim

_DEFAULT_SM = "sm_89"
_devices = []  # every chainsim GPU of this process, for the joint fixed point
_running = False


def _sm_version(name):
    """'sm_89' -> 0x809, the encoding tinygrad decodes from NV2080_CTRL_GR_INFO_SM_VERSION."""
    if not (name.startswith("sm_") and name[3:].isdigit() and len(name) == 5):
        raise SystemExit(f"chainsim.tinygrad: CHAINSIM_SM={name!r} is not sm_XY (sm_80 .. sm_90)")
    major, minor = int(name[3]), int(name[4])
    if not (8 <= major <= 9):
        raise SystemExit(f"chainsim.tinygrad: CHAINSIM_SM={name} is outside sm_80 .. sm_90, the SMs "
                         "whose classes the mock's class list (Ada) stands for")
    return (major << 8) | minor


class ChainsimQueue:
    """A GPFIFO of the mock (ring at base, USERD right after it, as the mock places it)."""

    def __init__(self, gpu, token, base, entries):
        from tinygrad.runtime.autogen import nv_570 as nv
        self.gpu, self.token, self.base, self.entries_cnt = gpu, token, base, entries
        self.ctrl = nv.AmpereAControlGPFifo.from_address(base + entries * 8)
        self.bound_engines = set()
        self.state = {}
        self.seen_put = self.ctrl.GPPut
        self.channel = None

    def ring_if_moved(self):
        """Ring the doorbell when the client moved GP_PUT since the device last read it."""
        put = self.ctrl.GPPut
        if put == self.seen_put:
            return False
        self.seen_put = put
        if self.channel is None:
            self.channel = self.gpu.device.channel(self.base, self.entries_cnt,
                                                   self.base + self.entries_cnt * 8, self.token)
        self.gpu.device.doorbell(self.token)
        return True

    def execute(self):
        """What the mock driver calls: every device to the fixed point."""
        return run_all()


class ChainsimGPU:
    """Stands in for test.mockgpu.nv.nvgpu.NVGPU: same attributes, chainsim behind them."""

    def __init__(self, gpuid):
        self.gpuid = gpuid
        self.regs = {}
        self.mapped_ranges = set()
        self.queues = []
        self._refs = {}
        self.grids_not_run = 0
        self.device = chainsim.Device(
            "ada", trace_window=int(os.environ.get("CHAINSIM_TRACE_WINDOW", "0")),
            launch_seconds=float(os.environ.get("CHAINSIM_LAUNCH_SECONDS", "30")))
        _devices.append(self)

    def map_range(self, vaddr, size):
        key = (vaddr, size)
        if key in self._refs:  # the same buffer mapped again on this GPU
            self._refs[key] += 1
            return
        self.device.map(vaddr, size, host=vaddr, name=f"tg@0x{vaddr:x}")
        self._refs[key] = 1
        self.mapped_ranges.add(key)

    def unmap_range(self, vaddr, size):
        key = (vaddr, size)
        if key not in self._refs:
            return
        self._refs[key] -= 1
        if self._refs[key] == 0:
            self._drop(key)

    def unmap_containing(self, base, length):
        """Every mapping inside [base, base + length), whatever its count (UVM_FREE)."""
        for key in [k for k in self._refs if k[0] >= base and k[0] + k[1] <= base + length]:
            self._drop(key)

    def _drop(self, key):
        del self._refs[key]
        self.mapped_ranges.discard(key)
        self.device.unmap(*key)

    def add_gpfifo(self, base, entries_count):
        q = ChainsimQueue(self, len(self.queues), base, entries_count)
        self.queues.append(q)
        return q.token

    def gpu_uuid(self, sz=16):
        return self.gpuid.to_bytes(sz, byteorder="big", signed=False)


def run_all():
    """Ring every queue whose GP_PUT moved, then run every device until none is busy.
    A channel that stopped raises ChainBreak with that device's verdict."""
    global _running
    if _running:
        return False
    _running = True
    progress = False
    try:
        for gpu in _devices:
            for q in gpu.queues:
                progress |= q.ring_if_moved()
        while any(g.device.busy() for g in _devices):
            for gpu in _devices:
                if gpu.device.busy():
                    r = gpu.device.run(raise_on_stop=False)
                    progress = True
                    if r["newly_stopped"]:
                        gpu.device.raise_break(f"chainsim: mock NV GPU {gpu.gpuid}: a channel stopped")
                    not_run = gpu.device.counters()["grids_not_run"]
                    if not_run != gpu.grids_not_run:
                        # its release never comes: say why now, not at tinygrad's timeout
                        gpu.grids_not_run = not_run
                        gpu.device.raise_break(f"chainsim: mock NV GPU {gpu.gpuid}: a launch was "
                                               "dispatched, not executed")
    finally:
        _running = False
    return progress


def _explain():
    """(gpu, text) for every queue that is blocked or stopped and every GPU with a launch
    that was dispatched, not executed: what can keep a signal from being written."""
    out = []
    for gpu in _devices:
        if gpu.grids_not_run:
            out.append((gpu, f"mock NV GPU {gpu.gpuid}: {gpu.grids_not_run} launches dispatched, "
                             "not executed"))
        for q in gpu.queues:
            if q.channel is not None and q.channel.state().state_name in ("blocked", "stopped"):
                out.append((gpu, f"mock NV GPU {gpu.gpuid} queue {q.token}: {q.channel.state()}"))
    return out


def install():
    """Put chainsim behind tinygrad's mock NV driver. Call before tinygrad creates a device."""
    try:
        from test.mockgpu.nv import nvdriver
    except ImportError as e:
        raise SystemExit("chainsim.tinygrad: run from a tinygrad source tree (test/mockgpu/nv/nvdriver.py "
                         f"is not importable: {e})")
    from tinygrad.runtime.autogen import nv_570 as nv
    sm = _sm_version(os.environ.get("CHAINSIM_SM", _DEFAULT_SM))

    # before anything imports test.mockgpu.mockgpu, which creates the driver and its GPUs
    nvdriver.NVGPU = ChainsimGPU
    nvdriver.NVDriver._gpu_mmio_write = lambda self, mv, off, gpu: run_all()

    original_rm_control = nvdriver.NVDriver.rm_control

    def rm_control(self, argp):
        ret = original_rm_control(self, argp)
        st = nv.NVOS54_PARAMETERS.from_address(argp)
        if st.cmd == nv.NV2080_CTRL_CMD_GR_GET_INFO:
            params = nv.NV2080_CTRL_GR_GET_INFO_PARAMS.from_address(st.params)
            req = (nv.NV2080_CTRL_GR_INFO * params.grInfoListSize).from_address(params.grInfoList)
            for i in range(params.grInfoListSize):
                if req[i].index == nv.NV2080_CTRL_GR_INFO_INDEX_SM_VERSION:
                    req[i].data = sm
        return ret
    nvdriver.NVDriver.rm_control = rm_control

    original_uvm = nvdriver.NVDriver.uvm_ioctl

    def uvm_ioctl(self, nr, argp):
        # the mock unmaps the memory at UVM_FREE: chainsim lets go of it first
        if nr == nv.UVM_FREE:
            st = nv.UVM_FREE_PARAMS.from_address(argp)
            for gpu in self.gpus.values():
                gpu.unmap_containing(st.base, st.length)
        return original_uvm(self, nr, argp)
    nvdriver.NVDriver.uvm_ioctl = uvm_ioctl

    from tinygrad.runtime.support import hcq  # under MOCK this creates the mock driver
    original_wait = hcq.HCQSignal.wait

    def wait(self, value, timeout=None):
        run_all()
        try:
            return original_wait(self, value, timeout)
        except RuntimeError as e:
            if "Wait timeout" not in str(e):
                raise
            found = _explain()
            if not found:
                raise chainsim.ChainBreak(chainsim.Verdict.none(
                    "no channel is blocked or stopped and every launch ran, so nothing "
                    "submitted will write that signal"), None, str(e)) from e
            gpu, _ = found[0]
            raise chainsim.ChainBreak(gpu.device.verdict(), gpu.device.report(),
                                      f"{e}; chainsim: " + "; ".join(w for _, w in found)) from e
    hcq.HCQSignal.wait = wait


def _usage():
    print(__doc__.strip().split("\n\n", 2)[1].replace("    ", "  "), file=sys.stderr)
    return 2


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        return _usage()
    dev = os.environ.get("DEV", "")
    if "MOCK+NV" not in dev:
        print(f"chainsim.tinygrad: DEV={dev!r}: set DEV=MOCK+NV or DEV=MOCK+NV:PTX, or tinygrad "
              "will not use its mock NV GPU (and so not chainsim)", file=sys.stderr)
        return 2
    sys.path.insert(0, os.getcwd())
    install()
    t0 = time.perf_counter()
    try:
        if argv[0] == "-m":
            if len(argv) < 2:
                return _usage()
            sys.argv = [argv[1]] + argv[2:]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = argv
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
    finally:
        _report_share(time.perf_counter() - t0)
    return 0


def _report_share(wall):
    """With CHAINSIM_TIMING=1: chainsim's share of the run's wall time, on stderr."""
    if os.environ.get("CHAINSIM_TIMING") != "1":
        return
    inside = sum(g.device.seconds_inside for g in _devices)
    counts = [g.device.counters() for g in _devices]
    launches = sum(c["launches"] for c in counts)
    executed = sum(c["grids_executed"] for c in counts)
    print(f"chainsim.tinygrad: {wall:.2f} s wall, {inside:.2f} s inside chainsim "
          f"({100 * inside / wall if wall else 0:.2f}%), {len(_devices)} devices, "
          f"{launches} launches, {executed} grids executed", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
