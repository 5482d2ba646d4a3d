# SPDX-License-Identifier: MIT
"""The Python binding on the live device, driven by tests/python/runtime.py the
way a driver drives a GPU: streams that complete, streams that break, and a
hostile client."""

import math
import os
import struct
import threading
import time

import pytest

import chainsim
import runtime as rt

HERE = os.path.dirname(os.path.abspath(__file__))
VADD_PTX = os.path.join(HERE, "..", "..", "..", "fixtures", "kernels", "out", "vadd.sm_80.ptx")
ARENA_VA = 0x10000000


@pytest.fixture
def gpu():
    dev = chainsim.Device("ada")
    arena = rt.Arena(dev, ARENA_VA, 1 << 20)
    yield dev, arena, rt.Queue(dev, arena)
    dev.close()


def stage_of(report, n):
    return next(line for line in report.splitlines() if line.strip().startswith(f"{n} "))


def test_host_release_runs_in_the_clients_memory(gpu):
    dev, arena, q = gpu
    sem = arena.alloc(16)
    q.submit(rt.Pushbuffer().release(sem, 0x1234_0000_0005))
    assert dev.busy()
    r = dev.run()
    assert r["entries"] == 1 and not dev.busy()
    assert arena.u64(sem) == 0x1234_0000_0005
    assert q.gp_get() == 1, "the front end writes GP_GET to the client's USERD"
    assert dev.wait(sem, 0x1234_0000_0005)
    st = q.channel.state()
    assert (st.state_name, st.gp_get, st.gp_put) == ("idle", 1, 1)


def test_copy_engine_copies_and_releases(gpu):
    dev, arena, q = gpu
    src, dst, sem = arena.alloc(4096), arena.alloc(4096), arena.alloc(16)
    arena.write(src, bytes(range(256)) * 4)
    pb = rt.Pushbuffer().bind(4, rt.AMPERE_DMA_COPY_B).copy(dst, src, 1000).copy_release(sem, 7)
    q.submit(pb)
    dev.run()
    assert arena.read(dst, 1000) == (bytes(range(256)) * 4)[:1000]
    assert arena.read(dst + 1000, 24) == bytes(24), "nothing past the copy's length"
    assert arena.u32(sem) == 7


def ptx_kernel(arena, path=VADD_PTX):
    text = open(path, "rb").read() + b"\0"
    text += b"\0" * (-len(text) % 4)
    va = arena.alloc(len(text) + 4096, 256)
    arena.write(va, text)
    return va


def mock_cbank(arena, args, size=0x160):
    """tinygrad's mock convention: 0x160 bytes of bank, then one 64-bit slot per argument."""
    va = arena.alloc(size + 8 * len(args), 256)
    for i, a in enumerate(args):
        arena.put_u64(va + size + 8 * i, a)
    return va


def test_ptx_text_launch_under_the_mock_convention(gpu):
    dev, arena, q = gpu
    n = 300
    a, b, c, sem = arena.alloc(4 * n), arena.alloc(4 * n), arena.alloc(4 * n), arena.alloc(16)
    arena.write(a, struct.pack(f"<{n}f", *[float(i) for i in range(n)]))
    arena.write(b, struct.pack(f"<{n}f", *[0.5 * i for i in range(n)]))
    cb = mock_cbank(arena, [a, b, c, n])
    qmd = arena.alloc(rt.QMD_BYTES, 256)
    arena.write(qmd, rt.launch_qmd(ptx_kernel(arena), (3,), (128,), cb, 0x160, sem, 1))
    q.submit(rt.Pushbuffer().bind(1, rt.ADA_COMPUTE_A).launch_pcas(qmd))
    dev.run()
    assert dev.wait(sem, 1)
    got = struct.unpack(f"<{n}f", arena.read(c, 4 * n))
    assert got == tuple(1.5 * i for i in range(n))
    counters = dev.counters()
    assert counters["launches"] == 1 and counters["grids_executed"] == 1


def test_a_constant_bank_that_runs_past_its_mapping_launches(gpu):
    """tinygrad writes 0x160 into CONSTANT_BUFFER_SIZE_SHIFTED4 (0x1600 bytes); a bank
    near the end of a mapping must still launch (tinygrad's test_jit wedged on it)."""
    dev, arena, q = gpu
    n = 64
    a, b, c, sem = arena.alloc(4 * n), arena.alloc(4 * n), arena.alloc(4 * n), arena.alloc(16)
    prog = ptx_kernel(arena)
    qmd = arena.alloc(rt.QMD_BYTES, 256)
    tail = dev.map(0x20000000, 0x1000, name="kernargs")
    tv = tail.view()
    struct.pack_into("<4Q", tv, 0x160, a, b, c, n)
    arena.write(qmd, rt.launch_qmd(prog, (1,), (64,), 0x20000000, 0x1600, sem, 1))
    q.submit(rt.Pushbuffer().bind(1, rt.ADA_COMPUTE_A).launch_pcas(qmd))
    dev.run()
    assert dev.wait(sem, 1)
    assert "runs past mapped memory" in dev.report()


def test_acquire_blocks_until_the_client_writes(gpu):
    dev, arena, q = gpu
    gate, sem = arena.alloc(16), arena.alloc(16)
    q.submit(rt.Pushbuffer().acquire_geq(gate, 3).release(sem, 1))
    dev.run()
    st = q.channel.state()
    assert st.state_name == "blocked" and st.blocked_on[0] == gate and st.blocked_on[1] == 3
    assert not dev.busy(), "nothing can run until memory changes"
    arena.put_u64(gate, 2)
    assert not dev.busy()
    arena.put_u64(gate, 3)
    assert dev.busy(), "the busy query sees the acquire satisfied"
    dev.run()
    assert arena.u64(sem) == 1 and not dev.busy()


def test_two_devices_run_to_one_fixed_point():
    """Device B waits on a value device A releases into a page both map: the caller
    runs every device until none is busy, as tinygrad's multi-GPU mock needs."""
    a, b = chainsim.Device("ada"), chainsim.Device("ada")
    ar_a, ar_b = rt.Arena(a, ARENA_VA, 1 << 16), rt.Arena(b, ARENA_VA, 1 << 16)
    signal = a.map(0x30000000, 0x1000, name="signal")
    b.map(0x30000000, 0x1000, host=signal.host, name="signal")
    qa, qb = rt.Queue(a, ar_a), rt.Queue(b, ar_b)
    done = ar_b.alloc(16)
    qb.submit(rt.Pushbuffer().acquire_geq(0x30000000, 1).release(done, 9))
    qa.submit(rt.Pushbuffer().release(0x30000000, 1))
    rounds = 0
    while a.busy() or b.busy():
        b.run()
        a.run()
        rounds += 1
        assert rounds < 10
    assert ar_b.u64(done) == 9 and rounds == 2
    a.close()
    b.close()


def test_an_unmapped_pushbuffer_stops_the_channel_with_the_verdict(gpu):
    dev, arena, q = gpu
    q.submit_entry(0x7D0000000, 8)
    with pytest.raises(chainsim.ChainBreak) as e:
        dev.run()
    v = e.value.verdict
    assert (v.stage, v.stage_name, v.cause) == (4, "fe-fetch", "pb-unmapped")
    assert "0x7d0000000" in v.diagnosis
    assert q.channel.state().state_name == "stopped"
    assert "4  fe-fetch" in stage_of(e.value.report, 4) and "not-fired" in stage_of(e.value.report, 4)


def test_a_malformed_pushbuffer_breaks_at_fe_exec(gpu):
    dev, arena, q = gpu
    pb = rt.Pushbuffer().raw(0x00000000 | (2 << 29) | (1 << 16), 0)  # SEC_OP 2: reserved
    q.submit(pb)
    with pytest.raises(chainsim.ChainBreak) as e:
        dev.run()
    assert e.value.verdict.stage == 5 and e.value.verdict.cause == "pb-malformed"


def test_a_wait_that_cannot_resolve_raises_the_deadlock(gpu):
    dev, arena, q = gpu
    gate, sem = arena.alloc(16), arena.alloc(16)
    q.submit(rt.Pushbuffer().acquire_geq(gate, 1).release(sem, 1))
    with pytest.raises(chainsim.ChainBreak) as e:
        dev.wait(sem, 1)
    v = e.value.verdict
    assert v.broken and v.cause == "deadlock" and v.stage == 5
    assert hex(gate) in v.diagnosis or "arena+" in v.diagnosis


def test_a_kernel_fault_outside_every_mapping(gpu):
    dev, arena, q = gpu
    n = 32
    a, sem = arena.alloc(4 * n), arena.alloc(16)
    cb = mock_cbank(arena, [a, 0x7D0000000, a, n])
    qmd = arena.alloc(rt.QMD_BYTES, 256)
    arena.write(qmd, rt.launch_qmd(ptx_kernel(arena), (1,), (32,), cb, 0x160, sem, 1))
    q.submit(rt.Pushbuffer().bind(1, rt.ADA_COMPUTE_A).launch_pcas(qmd))
    with pytest.raises(chainsim.ChainBreak) as e:
        dev.run()
    assert e.value.verdict.stage == 9 and e.value.verdict.cause == "grid-fault"
    assert "0x7d0000000" in e.value.verdict.diagnosis


def test_the_trace_window_stays_bounded():
    dev = chainsim.Device("ada", trace_window=256)
    arena = rt.Arena(dev, ARENA_VA, 1 << 20)
    q = rt.Queue(dev, arena, entries=16)
    sem = arena.alloc(16)
    for i in range(2000):
        arena.next = 0x10000  # reuse the pushbuffer space: the entry is done
        q.submit(rt.Pushbuffer().release(sem, i))
        dev.run()
    c = dev.counters()
    assert arena.u64(sem) == 1999
    assert c["records"] <= 256 and c["records_dropped"] > 10000
    assert c["entries"] == 2000 and c["doorbells"] == 2000
    dev.close()


def test_each_launch_has_its_own_budget():
    """With a budget a little above one launch, every launch runs: the budget is per
    launch, not summed over the device's life."""
    dev = chainsim.Device("ada", launch_instructions=200_000)
    arena = rt.Arena(dev, ARENA_VA, 1 << 20)
    q = rt.Queue(dev, arena)
    n = 1024
    a, c, sem = arena.alloc(4 * n), arena.alloc(4 * n), arena.alloc(16)
    prog = ptx_kernel(arena)
    cb = mock_cbank(arena, [a, a, c, n])
    for i in range(1, 11):
        qmd = arena.alloc(rt.QMD_BYTES, 256)
        arena.write(qmd, rt.launch_qmd(prog, (8,), (128,), cb, 0x160, sem, i))
        q.submit(rt.Pushbuffer().bind(1, rt.ADA_COMPUTE_A).launch_pcas(qmd))
        dev.run()
        assert dev.wait(sem, i)
    assert dev.counters()["grids_executed"] == 10
    dev.close()


def test_a_launch_past_its_budget_is_not_complete():
    dev = chainsim.Device("ada", launch_instructions=1000)
    arena = rt.Arena(dev, ARENA_VA, 1 << 20)
    q = rt.Queue(dev, arena)
    n = 4096
    a, sem = arena.alloc(4 * n), arena.alloc(16)
    cb = mock_cbank(arena, [a, a, a, n])
    qmd = arena.alloc(rt.QMD_BYTES, 256)
    arena.write(qmd, rt.launch_qmd(ptx_kernel(arena), (32,), (128,), cb, 0x160, sem, 1))
    q.submit(rt.Pushbuffer().bind(1, rt.ADA_COMPUTE_A).launch_pcas(qmd))
    dev.run(raise_on_stop=False)
    v = dev.verdict()
    assert v.stage == 9 and v.cause == "grid-budget"
    assert v.unobservable and not v.broken, "a budget stop is never complete, nor the guest's fault"
    assert dev.counters()["grids_not_run"] == 1
    assert arena.u32(sem) == 0, "a grid stopped at its budget releases nothing"
    dev.close()


# ---- a hostile client -------------------------------------------------------------

def test_bad_maps_are_refused_with_a_reason():
    dev = chainsim.Device("ada")
    dev.map(0x10000000, 0x2000)
    buf = chainsim._aligned_buffer(0x4000)
    host = chainsim.ctypes.addressof(buf)
    bad = [
        (0x10001000, 0x1000, host, "overlap"),
        (0x20000800, 0x1000, host, "aligned"),
        (0x20000000, 0x1800, host, "multiple of 4 KiB"),
        ((1 << 49) - 0x1000, 0x2000, host, "address space"),
        (0x30000000, 0x1000, host + 1, "aligned"),
        (0x30000000, 0x1000, 0, "non-NULL"),
    ]
    for va, size, h, why in bad:
        with pytest.raises(chainsim.ChainsimError, match=why):
            dev.map(va, size, host=h)
    with pytest.raises(chainsim.ChainsimError, match="only a whole region unmaps"):
        dev.unmap(0x10000000, 0x1000)
    with pytest.raises(chainsim.ChainsimError, match="nothing is mapped"):
        dev.unmap(0x50000000, 0x1000)
    dev.close()


def test_bad_channels_and_doorbells_are_refused(gpu):
    dev, arena, q = gpu
    ring, userd = arena.alloc(0x1000, 4096), arena.alloc(0x1000, 4096)
    with pytest.raises(chainsim.ChainsimError, match="power of two"):
        dev.channel(ring, 48, userd, token=10)
    with pytest.raises(chainsim.ChainsimError, match="not mapped"):
        dev.channel(0x7D0000000, 16, userd, token=11)
    with pytest.raises(chainsim.ChainsimError, match="USERD"):
        dev.channel(ring, 16, 0x7D0000000, token=12)
    with pytest.raises(chainsim.ChainsimError, match="token"):
        dev.channel(ring, 16, userd, token=q.channel.token)
    with pytest.raises(chainsim.ChainsimError, match="no channel has that token"):
        dev.doorbell(999)


def test_gp_put_outside_the_ring_stops_the_channel(gpu):
    dev, arena, q = gpu
    arena.put_u32(q.userd + rt.USERD_GP_PUT, q.entries + 5)
    with pytest.raises(chainsim.ChainsimError, match="outside its ring"):
        q.channel.ring_doorbell()
    assert q.channel.state().state_name == "stopped"
    assert dev.verdict().broken


def test_an_unmap_under_a_channel_faults_there(gpu):
    dev, arena, q = gpu
    extra = dev.map(0x40000000, 0x1000, name="late")
    sem = arena.alloc(16)
    pb = rt.Pushbuffer().release(sem, 1)
    body = struct.pack(f"<{len(pb.dw)}I", *pb.dw)
    extra.view()[:len(body)] = body
    dev.unmap(0x40000000, 0x1000)
    q.submit_entry(0x40000000, len(pb.dw))
    with pytest.raises(chainsim.ChainBreak) as e:
        dev.run()
    assert e.value.verdict.cause == "pb-unmapped"
    assert arena.u64(sem) == 0


def test_a_second_thread_inside_the_same_device_is_refused(gpu):
    """The guard: while one thread is inside run (a kernel that takes a while; ctypes
    lets the other thread go meanwhile), a call from another thread fails, naming it.
    A run that the other thread's doorbell got in before is refused in turn and leaves
    its work for the next run, so the main thread runs until a refusal came back."""
    dev, arena, q = gpu
    n = 1 << 16
    a, sem = arena.alloc(4 * n), arena.alloc(16)
    cb = mock_cbank(arena, [a, a, a, n])
    qmd = arena.alloc(rt.QMD_BYTES, 256)
    arena.write(qmd, rt.launch_qmd(ptx_kernel(arena), (n // 128,), (128,), cb, 0x160, sem, 1))
    q.submit(rt.Pushbuffer().bind(1, rt.ADA_COMPUTE_A).launch_pcas(qmd))
    errors = []
    finished = threading.Event()

    def other():
        while not finished.is_set():
            try:
                dev.doorbell(q.channel.token)
            except chainsim.ChainsimError as e:
                errors.append(str(e))
                return

    t = threading.Thread(target=other)
    t.start()
    deadline = time.monotonic() + 20
    try:
        while not errors and time.monotonic() < deadline:
            dev.run()
    finally:
        finished.set()
        t.join()
    assert errors and "second thread" in errors[0]


FP8_PTX = b"""
.version 8.0
.target sm_89
.address_size 64
.visible .entry fp8(.param .u64 out, .param .u64 in, .param .u32 n)
{
	.reg .pred %p;
	.reg .b16 %h<4>;
	.reg .b32 %r<9>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<7>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.s32 %r2, %r3, %r4, %r2;
	setp.ge.u32 %p, %r2, %r1;
	@%p bra DONE;
	mul.wide.u32 %rd3, %r2, 8;
	add.u64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	ld.global.f32 %f2, [%rd4+4];
	cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;
	cvt.rn.satfinite.e5m2x2.f32 %h2, %f1, %f2;
	cvt.rn.f16x2.e4m3x2 %r5, %h1;
	cvt.rn.f16x2.e5m2x2 %r6, %h2;
	cvt.rn.f16.f32 %h3, %f1;
	cvt.rn.f16.f32 %h0, %f2;
	mov.b32 %r7, {%h0, %h3};
	cvt.rn.satfinite.relu.e4m3x2.f16x2 %h3, %r7;
	mul.wide.u32 %rd5, %r2, 16;
	add.u64 %rd6, %rd1, %rd5;
	st.global.u16 [%rd6], %h1;
	st.global.u16 [%rd6+2], %h2;
	st.global.u32 [%rd6+4], %r5;
	st.global.u32 [%rd6+8], %r6;
	st.global.u16 [%rd6+12], %h3;
DONE:
	ret;
}
"""

# e4m3: bias 7, 3 mantissa bits, no infinity, 0x7F NaN, largest 448;
# e5m2: bias 15, 2 mantissa bits, infinity 0x7C, largest 57344 (PTX ISA, cvt)
FP8 = {"e4m3": (3, 7, 0x7E), "e5m2": (2, 15, 0x7B)}


def fp8_value(code, fmt):
    mbits, bias, _ = FP8[fmt]
    e, m = (code & 0x7F) >> mbits, code & ((1 << mbits) - 1)
    v = m * 2.0 ** (1 - bias - mbits) if e == 0 else (1 + m / 2 ** mbits) * 2.0 ** (e - bias)
    return -v if code & 0x80 else v


def fp8_encode(x, fmt, relu=False):
    """The reference: the nearest finite code by search (ties to an even code),
    saturating; a NaN is 0x7F (what chainsim documents for canonical NaN)."""
    mbits, bias, maxc = FP8[fmt]
    if x != x:
        return 0x7F
    neg = math.copysign(1.0, x) < 0
    if relu and neg:
        return 0
    a = abs(x)
    if a == float("inf"):  # .satfinite: the largest finite value
        return maxc | (0x80 if neg else 0)
    best = min(range(maxc + 1), key=lambda c: (abs(fp8_value(c, fmt) - a), c & 1))
    return best | (0x80 if neg else 0)


def half_bits(v):
    return struct.unpack("<H", struct.pack("<e", v))[0]


def test_fp8_conversions_match_a_reference_by_search(gpu):
    """cvt to and from e4m3x2 / e5m2x2 (NVRTC emits them for tinygrad's fp8 casts)
    against a reference that searches every code, on edges and random values."""
    dev, arena, q = gpu
    import random
    rnd = random.Random(7)
    vals = [0.0, -0.0, 1.0, -1.5, 0.0009765625, 0.001953125, 2 ** -9 * 1.5, 2 ** -10, 2 ** -17,
            448.0, 449.0, 464.0, 480.0, 1e6, -1e6, 57344.0, 61440.0, 65504.0,
            float("inf"), float("-inf"), float("nan"), 240.0, 232.0, 0.3, 3.25, 17.0, 18.0]
    vals += [rnd.uniform(-600, 600) for _ in range(200)]
    vals += [rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-20, 17) for _ in range(300)]
    vals = [struct.unpack("<f", struct.pack("<f", v))[0] for v in vals]  # exactly f32
    if len(vals) % 2:
        vals.append(0.25)
    n = len(vals) // 2
    text = FP8_PTX + b"\0" * (4 - len(FP8_PTX) % 4)
    prog = arena.alloc(len(text) + 4096, 256)
    arena.write(prog, text)
    src, out, sem = arena.alloc(8 * n), arena.alloc(16 * n), arena.alloc(16)
    arena.write(src, struct.pack(f"<{2 * n}f", *vals))
    cb = mock_cbank(arena, [out, src, n])
    qmd = arena.alloc(rt.QMD_BYTES, 256)
    arena.write(qmd, rt.launch_qmd(prog, ((n + 63) // 64,), (64,), cb, 0x160, sem, 1))
    q.submit(rt.Pushbuffer().bind(1, rt.ADA_COMPUTE_A).launch_pcas(qmd))
    dev.run()
    assert dev.wait(sem, 1), str(dev.verdict())
    for i in range(n):
        a, b = vals[2 * i], vals[2 * i + 1]
        e4, e5, h4, h5, r4 = struct.unpack_from("<HHIIH", arena.read(out + 16 * i, 14))
        want4 = fp8_encode(a, "e4m3") << 8 | fp8_encode(b, "e4m3")
        want5 = fp8_encode(a, "e5m2") << 8 | fp8_encode(b, "e5m2")
        assert e4 == want4, f"e4m3x2 of {a!r}, {b!r}: {e4:#06x}, want {want4:#06x}"
        assert e5 == want5, f"e5m2x2 of {a!r}, {b!r}: {e5:#06x}, want {want5:#06x}"

        def back(code, fmt):
            if (fmt == "e4m3" and code & 0x7F == 0x7F) or (fmt == "e5m2" and code & 0x7C == 0x7C and code & 3):
                return 0x7FFF
            if fmt == "e5m2" and code & 0x7F == 0x7C:
                return 0xFC00 if code & 0x80 else 0x7C00
            return half_bits(fp8_value(code, fmt))
        assert h4 == back(want4 >> 8, "e4m3") << 16 | back(want4 & 0xFF, "e4m3")
        assert h5 == back(want5 >> 8, "e5m2") << 16 | back(want5 & 0xFF, "e5m2")
        ha, hb = (struct.unpack("<e", struct.pack("<e", v))[0] if abs(v) < 65520 or v != v else v
                  for v in (a, b))
        want_r4 = fp8_encode(ha, "e4m3", relu=True) << 8 | fp8_encode(hb, "e4m3", relu=True)
        assert r4 == want_r4, f"relu e4m3x2 of halves {ha!r}, {hb!r}: {r4:#06x}, want {want_r4:#06x}"


def test_the_window_starts_at_an_entry_so_no_launch_is_cut_in_half():
    """The window drops its oldest records at an entry's start: a verdict never sees
    half a launch (which would read as a launch with no QMD install). Windows of
    every size from 64 to 95 records put the cut everywhere in an entry of two
    launches."""
    for window in range(64, 96):
        dev = chainsim.Device("ada", trace_window=window)
        arena = rt.Arena(dev, ARENA_VA, 1 << 20)
        q = rt.Queue(dev, arena)
        n = 32
        a, c, sem = arena.alloc(4 * n), arena.alloc(4 * n), arena.alloc(16)
        prog = ptx_kernel(arena)
        cb = mock_cbank(arena, [a, a, c, n])
        qmds = []
        for k in range(2):
            qmds.append(arena.alloc(rt.QMD_BYTES, 256))
            arena.write(qmds[-1], rt.launch_qmd(prog, (1,), (32,), cb, 0x160, sem, k + 1))
        mark = arena.next
        for i in range(12):
            arena.next = mark
            pb = rt.Pushbuffer().bind(1, rt.ADA_COMPUTE_A)
            for qmd in qmds:
                pb.launch_pcas(qmd)
            q.submit(pb.release(sem + 8, i))
            dev.run()
            v = dev.verdict()
            assert not v.broken, f"window {window}, entry {i}: {v}"
        assert dev.counters()["records_dropped"] > 0
        dev.close()


BF16_PTX = b"""
.version 8.0
.target sm_89
.address_size 64
.visible .entry bf16_to_s16(.param .u64 out, .param .u64 in)
{
	.reg .b16 %rs<5>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.global.u16 %rs2, [%rd2];
	ld.global.u16 %rs4, [%rd2+2];
	{ .reg.f32 f;
	mov.b32 f, {0,%rs2};
	cvt.rzi.s16.f32 %rs1,f;
	}
	{ .reg.f32 f;
	mov.b32 f, {0,%rs4};
	cvt.rzi.s16.f32 %rs3,f;
	}
	st.global.u16 [%rd1], %rs1;
	st.global.u16 [%rd1+2], %rs3;
	ret;
}
"""


def test_a_register_declared_as_one_word_in_nested_scopes(gpu):
    """`{ .reg.f32 f; ... }` twice in one body, as cuda_bf16.hpp's inline asm writes
    its bf16-to-integer casts (NVRTC output for tinygrad's bf16 casts)."""
    dev, arena, q = gpu
    text = BF16_PTX + b"\0" * (4 - len(BF16_PTX) % 4)
    prog = arena.alloc(len(text) + 4096, 256)
    arena.write(prog, text)
    src, out, sem = arena.alloc(16), arena.alloc(16), arena.alloc(16)
    bf16 = [struct.unpack("<I", struct.pack("<f", v))[0] >> 16 for v in (-7.75, 300.5)]
    arena.write(src, struct.pack("<2H", *bf16))
    cb = mock_cbank(arena, [out, src])
    qmd = arena.alloc(rt.QMD_BYTES, 256)
    arena.write(qmd, rt.launch_qmd(prog, (1,), (1,), cb, 0x160, sem, 1))
    q.submit(rt.Pushbuffer().bind(1, rt.ADA_COMPUTE_A).launch_pcas(qmd))
    dev.run()
    assert dev.wait(sem, 1), str(dev.verdict())
    assert struct.unpack("<2h", arena.read(out, 4)) == (-7, 300)
