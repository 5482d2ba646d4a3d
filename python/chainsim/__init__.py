# SPDX-License-Identifier: MIT
"""chainsim as a live GPU from Python: ctypes over libchainsim's live API
(include/chainsim/live.h). A Device maps the caller's memory at GPU VAs,
runs channels on the caller's rings and USERDs, and raises ChainBreak with
the chain's verdict when a channel stops or a wait cannot resolve."""

import ctypes
import time

from chainsim import _lib

__all__ = ["Device", "Mapping", "Channel", "ChainBreak", "ChainsimError", "Verdict",
           "ChannelState", "library_path", "IDLE", "READY", "BLOCKED", "STOPPED"]

DIAG_MSG_MAX = 512
DIAG_FILE_MAX = 256
DIAGNOSIS_MAX = 1024
EVIDENCE_MAX = 256
CLIENT_ALIGN = 16
PAGE = 4096

IDLE, READY, BLOCKED, STOPPED = 0, 1, 2, 3
_STATE_NAMES = {IDLE: "idle", READY: "ready", BLOCKED: "blocked", STOPPED: "stopped"}


class _Diag(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("file", ctypes.c_char * DIAG_FILE_MAX),
                ("line", ctypes.c_uint32), ("col", ctypes.c_uint32),
                ("has_offset", ctypes.c_bool), ("offset", ctypes.c_uint64),
                ("msg", ctypes.c_char * DIAG_MSG_MAX)]


class _Config(ctypes.Structure):
    _fields_ = [("arch", ctypes.c_int), ("trace_window", ctypes.c_size_t),
                ("launch_instructions", ctypes.c_uint64), ("launch_wall_ns", ctypes.c_uint64),
                ("threads", ctypes.c_uint), ("no_executor", ctypes.c_bool),
                ("trace_methods", ctypes.c_bool)]


class _RunResult(ctypes.Structure):
    _fields_ = [("end", ctypes.c_int), ("entries", ctypes.c_uint64),
                ("idle", ctypes.c_uint32), ("ready", ctypes.c_uint32),
                ("blocked", ctypes.c_uint32), ("stopped", ctypes.c_uint32),
                ("newly_stopped", ctypes.c_uint32)]


class _BlockInfo(ctypes.Structure):
    _fields_ = [("addr", ctypes.c_uint64), ("wanted", ctypes.c_uint64),
                ("current", ctypes.c_uint64), ("op", ctypes.c_uint32), ("is64", ctypes.c_bool),
                ("gp_entry", ctypes.c_uint32), ("method_index", ctypes.c_uint32)]


class _ChannelState(ctypes.Structure):
    _fields_ = [("token", ctypes.c_uint32), ("state", ctypes.c_int),
                ("gp_get", ctypes.c_uint32), ("gp_put", ctypes.c_uint32),
                ("ring_entries", ctypes.c_uint32), ("ring_va", ctypes.c_uint64),
                ("userd_va", ctypes.c_uint64), ("block", _BlockInfo),
                ("stop", ctypes.c_char * DIAG_MSG_MAX)]


class _Verdict(ctypes.Structure):
    _fields_ = [("broken", ctypes.c_bool), ("unobservable", ctypes.c_bool),
                ("stage", ctypes.c_int), ("stage_name", ctypes.c_char_p),
                ("cause", ctypes.c_char_p), ("diagnosis", ctypes.c_char * DIAGNOSIS_MAX),
                ("evidence", ctypes.c_char * EVIDENCE_MAX)]


_COUNTER_NAMES = ("doorbells", "runs", "entries", "methods", "launches", "grids_executed",
                  "grids_not_run", "ctas_executed", "thread_instructions", "copies", "bytes_copied", "faults",
                  "records", "records_dropped", "maps", "unmaps")


class _Counters(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in _COUNTER_NAMES]


_C = None


def _bind():
    """Load libchainsim once, declare the signatures, check the mirrored layouts."""
    global _C
    if _C is not None:
        return _C
    lib = ctypes.CDLL(_lib.find())
    p, u32, u64, b, sz = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_bool, ctypes.c_size_t
    dp = ctypes.POINTER(_Diag)
    sigs = {
        "cs_live_new": (p, [ctypes.POINTER(_Config), dp]),
        "cs_live_free": (None, [p]),
        "cs_live_map": (b, [p, p, u64, u64, ctypes.c_char_p, dp]),
        "cs_live_unmap": (b, [p, u64, u64, dp]),
        "cs_live_module_load": (b, [p, p, sz, ctypes.c_char_p, dp]),
        "cs_live_channel_new": (b, [p, u64, u32, u64, u32, ctypes.POINTER(u32), dp]),
        "cs_live_channel_count": (u32, [p]),
        "cs_live_doorbell": (b, [p, u32, dp]),
        "cs_live_run": (_RunResult, [p, u64]),
        "cs_live_busy": (b, [p]),
        "cs_live_channel_get": (b, [p, u32, ctypes.POINTER(_ChannelState)]),
        "cs_live_verdict_get": (b, [p, ctypes.POINTER(_Verdict), dp]),
        "cs_live_report_text": (ctypes.c_void_p, [p, dp]),
        "cs_live_wait": (b, [p, u64, u64, b, ctypes.POINTER(_Verdict)]),
        "cs_live_counters_get": (None, [p, ctypes.POINTER(_Counters)]),
        "cs_live_struct_size": (sz, [ctypes.c_char_p]),
        "cs_arch_from_name": (b, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    for cname, mirror in (("cs_diag", _Diag), ("cs_live_config", _Config),
                          ("cs_live_run_result", _RunResult),
                          ("cs_live_channel_state", _ChannelState),
                          ("cs_live_verdict", _Verdict), ("cs_live_counters", _Counters)):
        want = lib.cs_live_struct_size(cname.encode())
        if want != ctypes.sizeof(mirror):
            raise ChainsimError(f"{_lib.find()}: {cname} is {want} bytes there, {ctypes.sizeof(mirror)} "
                                "in this binding: the library and python/chainsim are from different "
                                "versions")
    libc = ctypes.CDLL(None)
    libc.free.argtypes, libc.free.restype = [ctypes.c_void_p], None
    lib._free = libc.free
    _C = lib
    return lib


def library_path():
    """The libchainsim this package loads (CHAINSIM_LIB, build/, or the installed one)."""
    return _lib.find()


class ChainsimError(RuntimeError):
    """A call the live device refused: bad input, with the library's located message."""


class Verdict:
    """The chain judged over the device's recent trace window."""

    @classmethod
    def none(cls, why):
        """No verdict: nothing the device saw explains what went wrong (why says so)."""
        v = cls(_Verdict(stage=0))
        v.judged, v.diagnosis = False, why
        return v

    def __init__(self, v):
        self.judged = True
        self.broken = bool(v.broken)
        self.unobservable = bool(v.unobservable)
        self.stage = v.stage
        self.stage_name = (v.stage_name or b"").decode()
        self.cause = (v.cause or b"").decode()
        self.diagnosis = v.diagnosis.decode(errors="replace")
        self.evidence = v.evidence.decode(errors="replace")

    def __str__(self):
        if not self.judged:
            return f"no verdict: {self.diagnosis}"
        if not self.stage:
            return "chain complete: every stage fired"
        what = "break" if self.broken else "not observable"
        return f"{what} at stage {self.stage} ({self.stage_name}) [{self.cause}]: {self.diagnosis}"

    __repr__ = __str__


class ChainBreak(RuntimeError):
    """A channel stopped or a wait cannot resolve; .verdict says where the chain broke.
    A RuntimeError, as a runtime's own device faults and wait timeouts are."""

    def __init__(self, verdict, report=None, what=None):
        self.verdict, self.report = verdict, report
        super().__init__((what + ": " if what else "") + str(verdict))


class ChannelState:
    def __init__(self, s):
        self.token, self.state = s.token, s.state
        self.state_name = _STATE_NAMES.get(s.state, "?")
        self.gp_get, self.gp_put, self.ring_entries = s.gp_get, s.gp_put, s.ring_entries
        self.ring_va, self.userd_va = s.ring_va, s.userd_va
        self.blocked_on = (s.block.addr, s.block.wanted, s.block.current) if s.state == BLOCKED else None
        self.stop = s.stop.decode(errors="replace")

    def __repr__(self):
        return (f"<channel token {self.token} {self.state_name} GP_GET {self.gp_get} "
                f"GP_PUT {self.gp_put}{' ' + self.stop if self.stop else ''}>")


def _check(ok, diag):
    if not ok:
        raise ChainsimError(diag.msg.decode(errors="replace"))


class Mapping:
    """Memory the caller owns, seen by the device at .va. Keeps its buffer alive."""

    def __init__(self, device, va, size, host, keep):
        self.device, self.va, self.size, self.host, self._keep = device, va, size, host, keep

    def view(self):
        """A writable memoryview of the mapped bytes."""
        return memoryview((ctypes.c_char * self.size).from_address(self.host)).cast("B")

    def unmap(self):
        self.device.unmap(self.va, self.size)


class Channel:
    """A channel on the caller's ring and USERD; ring_doorbell() after writing GP_PUT."""

    def __init__(self, device, index, token):
        self.device, self.index, self.token = device, index, token

    def ring_doorbell(self):
        self.device.doorbell(self.token)

    def state(self):
        return self.device.channel_state(self.index)


class Device:
    """A live chainsim GPU of one arch ("ampere", "ada", "hopper", "blackwell")."""

    def __init__(self, arch="ada", trace_window=0, launch_instructions=0, launch_seconds=0.0,
                 threads=0, no_executor=False, trace_methods=False):
        C = _bind()
        a = ctypes.c_int()
        if not C.cs_arch_from_name(arch.encode(), ctypes.byref(a)):
            raise ChainsimError(f"unknown arch '{arch}' (ampere, ada, hopper, blackwell)")
        cfg = _Config(arch=a.value, trace_window=trace_window,
                      launch_instructions=launch_instructions,
                      launch_wall_ns=int(launch_seconds * 1e9), threads=threads,
                      no_executor=no_executor, trace_methods=trace_methods)
        d = _Diag()
        self._h = C.cs_live_new(ctypes.byref(cfg), ctypes.byref(d))
        _check(self._h, d)
        self._C, self.arch = C, arch
        self.seconds_inside = 0.0  # wall time in doorbell, run and wait calls
        self._maps = {}
        self._channels = []

    def close(self):
        if getattr(self, "_h", None):
            self._C.cs_live_free(self._h)
            self._h = None
            self._maps.clear()

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- memory
    def map(self, va, size=None, buffer=None, host=None, name=None):
        """Map the caller's bytes at va: a ctypes buffer or bytearray (kept alive), or a
        raw host address with size. Without either, a new zeroed buffer of size bytes."""
        keep = None
        if host is not None and size is None:
            raise ChainsimError("map(host=ADDR) needs size=")
        if host is None:
            if buffer is None:
                buffer = _aligned_buffer(size)
            keep = buffer
            host = ctypes.addressof(buffer) if isinstance(buffer, ctypes.Array) else \
                ctypes.addressof((ctypes.c_char * len(buffer)).from_buffer(buffer))
            size = ctypes.sizeof(buffer) if size is None and isinstance(buffer, ctypes.Array) else \
                (size if size is not None else len(buffer))
        d = _Diag()
        _check(self._C.cs_live_map(self._h, host, size, va, name.encode() if name else None,
                                   ctypes.byref(d)), d)
        m = Mapping(self, va, size, host, keep)
        self._maps[va] = m
        return m

    def unmap(self, va, size):
        d = _Diag()
        _check(self._C.cs_live_unmap(self._h, va, size, ctypes.byref(d)), d)
        self._maps.pop(va, None)

    def load_module(self, data, name="module"):
        """A cubin or fatbin (bytes) whose kernels' code the caller uploads."""
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        d = _Diag()
        _check(self._C.cs_live_module_load(self._h, buf, len(data), name.encode(), ctypes.byref(d)), d)

    # ---- channels
    def channel(self, ring_va, entries, userd_va, token=None):
        token = len(self._channels) if token is None else token
        idx, d = ctypes.c_uint32(), _Diag()
        _check(self._C.cs_live_channel_new(self._h, ring_va, entries, userd_va, token,
                                           ctypes.byref(idx), ctypes.byref(d)), d)
        ch = Channel(self, idx.value, token)
        self._channels.append(ch)
        return ch

    def doorbell(self, token):
        d = _Diag()
        t0 = time.perf_counter()
        ok = self._C.cs_live_doorbell(self._h, token, ctypes.byref(d))
        self.seconds_inside += time.perf_counter() - t0
        _check(ok, d)

    def run(self, max_entries=0, raise_on_stop=True):
        """Run until every channel is idle, blocked or stopped (or max_entries entries).
        A channel that stopped in this run raises ChainBreak with the verdict."""
        t0 = time.perf_counter()
        r = self._C.cs_live_run(self._h, max_entries)
        self.seconds_inside += time.perf_counter() - t0
        if r.newly_stopped and raise_on_stop:
            self.raise_break("a channel stopped")
        return {"budget": r.end == 1, "entries": r.entries, "idle": r.idle, "ready": r.ready,
                "blocked": r.blocked, "stopped": r.stopped, "newly_stopped": r.newly_stopped}

    def busy(self):
        t0 = time.perf_counter()
        b = bool(self._C.cs_live_busy(self._h))
        self.seconds_inside += time.perf_counter() - t0
        return b

    def channel_state(self, index):
        s = _ChannelState()
        if not self._C.cs_live_channel_get(self._h, index, ctypes.byref(s)):
            raise ChainsimError(f"no channel {index}")
        return ChannelState(s)

    def channels(self):
        return list(self._channels)

    # ---- the verdict
    def verdict(self):
        v, d = _Verdict(), _Diag()
        _check(self._C.cs_live_verdict_get(self._h, ctypes.byref(v), ctypes.byref(d)), d)
        return Verdict(v)

    def report(self):
        """The text report of the recent window, as `chainsim run` prints it."""
        d = _Diag()
        p = self._C.cs_live_report_text(self._h, ctypes.byref(d))
        if not p:
            raise ChainsimError(d.msg.decode(errors="replace"))
        try:
            return ctypes.string_at(p).decode(errors="replace")
        finally:
            self._C._free(p)

    def wait(self, addr, value, is64=True):
        """Run, then whether [addr] >= value. When not, raises ChainBreak with the verdict."""
        v = _Verdict()
        if self._C.cs_live_wait(self._h, addr, value, is64, ctypes.byref(v)):
            return True
        raise ChainBreak(Verdict(v), self._report_or_none(),
                         f"the wait for [0x{addr:x}] >= {value} cannot resolve")

    def raise_break(self, what):
        raise ChainBreak(self.verdict(), self._report_or_none(), what)

    def _report_or_none(self):
        try:
            return self.report()
        except ChainsimError:
            return None

    def counters(self):
        c = _Counters()
        self._C.cs_live_counters_get(self._h, ctypes.byref(c))
        return {n: getattr(c, n) for n in _COUNTER_NAMES}


def _aligned_buffer(size):
    """A zeroed ctypes buffer of size bytes whose address is 4 KiB aligned (the device
    needs CLIENT_ALIGN; a page keeps the mapping's bytes its own)."""
    if size is None or size <= 0 or size % PAGE:
        raise ChainsimError(f"a mapping's size must be a positive multiple of {PAGE}, not {size}")
    raw = (ctypes.c_char * (size + PAGE))()
    off = (-ctypes.addressof(raw)) % PAGE
    view = (ctypes.c_char * size).from_buffer(raw, off)
    view._raw = raw  # keeps the allocation alive with the view
    return view


_bind()
