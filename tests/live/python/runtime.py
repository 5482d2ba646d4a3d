# SPDX-License-Identifier: MIT
"""A small runtime of our own on the live API, built the way a driver builds its
work: memory it owns, a GPFIFO ring and USERD, pushbuffers of methods, QMDs
written field by field, copies and semaphores, GP_PUT and the doorbell. Field
offsets come from the public class headers (clc56f.h, clc6b5.h, clc9c0qmd.h /
clc6c0qmd.h QMD V03_00), written out here independently of chainsim's tables
so the two readings are checked against each other."""

import ctypes
import struct

import chainsim

PAGE = 4096

# host class C56F (clc56f.h)
SEM_ADDR_LO, SEM_ADDR_HI, SEM_PAYLOAD_LO, SEM_PAYLOAD_HI, SEM_EXECUTE = 0x5C, 0x60, 0x64, 0x68, 0x6C
NON_STALL_INTERRUPT = 0x20
SET_OBJECT = 0x0
SEM_RELEASE, SEM_ACQ_CIRC_GEQ = 1, 3
SEM_PAYLOAD_64 = 1 << 24
SEM_RELEASE_WFI = 1 << 20
USERD_GP_GET, USERD_GP_PUT = 0x88, 0x8C

# compute class C9C0 (ADA_COMPUTE_A) and C6C0 methods (clc6c0.h, clc9c0.h)
ADA_COMPUTE_A, AMPERE_DMA_COPY_B = 0xC9C0, 0xC7B5
SEND_PCAS_A, SEND_SIGNALING_PCAS2_B = 0x2B4, 0x2C0
SET_SHADER_LOCAL_MEMORY_A = 0x790
INVALIDATE_SHADER_CACHES_NO_WFI = 0x1698

# copy class C7B5 (clc7b5.h, same as clc6b5.h for these)
CE_OFFSET_IN_UPPER, CE_OFFSET_OUT_UPPER, CE_LINE_LENGTH_IN, CE_LAUNCH_DMA = 0x400, 0x408, 0x418, 0x300
CE_SET_SEMAPHORE_A, CE_SET_SEMAPHORE_PAYLOAD = 0x240, 0x248
CE_DMA_COPY = 0x182  # non-pipelined transfer, pitch in and out (tinygrad's flags)
CE_DMA_RELEASE_SEM = (1 << 3) | (1 << 2)  # semaphore release one word, flush

# QMD V03_00 fields (clc6c0qmd.h, the layout C9C0 reads): (hi bit, lo bit) of 2048
QMD_V03 = {
    "qmd_group_id": (133, 128),
    "sm_global_caching_enable": (134, 134),
    "cta_raster_width": (415, 384),
    "cta_raster_height": (431, 416),
    "cta_raster_depth": (463, 448),
    "dependent_qmd0_pointer": (511, 480),
    "dependent_qmd0_enable": (512, 512),
    "dependent_qmd0_action": (515, 513),
    "shared_memory_size": (561, 544),
    "qmd_version": (579, 576),
    "qmd_major_version": (583, 580),
    "cta_thread_dimension0": (607, 592),
    "cta_thread_dimension1": (623, 608),
    "cta_thread_dimension2": (639, 624),
    "constant_buffer_valid_0": (640, 640),
    "release0_address_lower": (799, 768),
    "release0_address_upper": (807, 800),
    "release0_enable": (823, 823),
    "release0_payload64b": (829, 829),
    "release0_structure_size": (831, 830),
    "release0_payload_lower": (863, 832),
    "release0_payload_upper": (895, 864),
    "constant_buffer_addr_lower_0": (1055, 1024),
    "constant_buffer_addr_upper_0": (1072, 1056),
    "constant_buffer_size_shifted4_0": (1087, 1075),
    "program_address_lower": (1567, 1536),
    "program_address_upper": (1584, 1568),
}
QMD_BYTES = 0x100
STRUCTURE_ONE_WORD = 1


def qmd_v03(**fields):
    """The 256 bytes of a QMD V03_00 with the fields given (the rest zero)."""
    words = [0] * (QMD_BYTES // 4)
    for name, value in fields.items():
        hi, lo = QMD_V03[name]
        width = hi - lo + 1
        if value >> width:
            raise ValueError(f"{name}={value:#x} does not fit {width} bits")
        w, sh = lo // 32, lo % 32
        words[w] |= (value << sh) & 0xFFFFFFFF
        if sh + width > 32:
            words[w + 1] |= value >> (32 - sh)
    return struct.pack(f"<{len(words)}I", *words)


def launch_qmd(program, grid, block, cbank0, cbank0_size, release=None, release_payload=0):
    g = tuple(grid) + (1,) * (3 - len(grid))
    b = tuple(block) + (1,) * (3 - len(block))
    f = dict(qmd_major_version=3, qmd_group_id=0x3F, sm_global_caching_enable=1,
             cta_raster_width=g[0], cta_raster_height=g[1], cta_raster_depth=g[2],
             cta_thread_dimension0=b[0], cta_thread_dimension1=b[1], cta_thread_dimension2=b[2],
             program_address_lower=program & 0xFFFFFFFF, program_address_upper=program >> 32,
             constant_buffer_valid_0=1, constant_buffer_addr_lower_0=cbank0 & 0xFFFFFFFF,
             constant_buffer_addr_upper_0=cbank0 >> 32, constant_buffer_size_shifted4_0=cbank0_size >> 4)
    if release is not None:
        f.update(release0_enable=1, release0_address_lower=release & 0xFFFFFFFF,
                 release0_address_upper=release >> 32, release0_payload_lower=release_payload & 0xFFFFFFFF,
                 release0_payload_upper=release_payload >> 32, release0_structure_size=STRUCTURE_ONE_WORD)
    return qmd_v03(**f)


def header_inc(subch, method, count):
    return (1 << 29) | (count << 16) | (subch << 13) | (method >> 2)


class Pushbuffer:
    """Methods written as dwords, the way tinygrad's nvm() writes them."""

    def __init__(self):
        self.dw = []

    def inc(self, subch, method, *data):
        self.dw.append(header_inc(subch, method, len(data)))
        self.dw.extend(d & 0xFFFFFFFF for d in data)
        return self

    def raw(self, *dwords):
        self.dw.extend(dwords)
        return self

    def release(self, addr, value, is64=True):
        return self.inc(0, SEM_ADDR_LO, addr & 0xFFFFFFFF, addr >> 32, value & 0xFFFFFFFF, value >> 32,
                        SEM_RELEASE | (SEM_PAYLOAD_64 if is64 else 0) | SEM_RELEASE_WFI)

    def acquire_geq(self, addr, value):
        return self.inc(0, SEM_ADDR_LO, addr & 0xFFFFFFFF, addr >> 32, value & 0xFFFFFFFF, value >> 32,
                        SEM_ACQ_CIRC_GEQ | SEM_PAYLOAD_64)

    def bind(self, subch, cls):
        return self.inc(subch, SET_OBJECT, cls)

    def copy(self, dst, src, n, subch=4):
        self.inc(subch, CE_OFFSET_IN_UPPER, src >> 32, src & 0xFFFFFFFF, dst >> 32, dst & 0xFFFFFFFF)
        self.inc(subch, CE_LINE_LENGTH_IN, n)
        return self.inc(subch, CE_LAUNCH_DMA, CE_DMA_COPY)

    def copy_release(self, addr, value, subch=4):
        self.inc(subch, CE_SET_SEMAPHORE_A, addr >> 32, addr & 0xFFFFFFFF, value)
        return self.inc(subch, CE_LAUNCH_DMA, CE_DMA_RELEASE_SEM)

    def launch_pcas(self, qmd_va, subch=1):
        self.inc(subch, SEND_PCAS_A, qmd_va >> 8)
        return self.inc(subch, SEND_SIGNALING_PCAS2_B, 9)


class Arena:
    """Memory the runtime owns: one mapping, bump-allocated, VA == base + offset."""

    def __init__(self, dev, va, size, name="arena"):
        self.map = dev.map(va, size, name=name)
        self.va, self.size, self.next = va, size, 0
        self.mv = self.map.view()

    def alloc(self, n, align=256):
        self.next = (self.next + align - 1) // align * align
        if self.next + n > self.size:
            raise MemoryError("arena full")
        va = self.va + self.next
        self.next += n
        return va

    def write(self, va, data):
        off = va - self.va
        self.mv[off:off + len(data)] = data

    def read(self, va, n):
        off = va - self.va
        return bytes(self.mv[off:off + n])

    def u32(self, va):
        return struct.unpack_from("<I", self.mv, va - self.va)[0]

    def u64(self, va):
        return struct.unpack_from("<Q", self.mv, va - self.va)[0]

    def put_u32(self, va, v):
        struct.pack_into("<I", self.mv, va - self.va, v)

    def put_u64(self, va, v):
        struct.pack_into("<Q", self.mv, va - self.va, v)


class Queue:
    """A GPFIFO channel the runtime drives: ring and USERD in its own arena."""

    def __init__(self, dev, arena, entries=64, token=None):
        self.dev, self.arena, self.entries = dev, arena, entries
        self.ring = arena.alloc(entries * 8, PAGE)
        self.userd = arena.alloc(PAGE, PAGE)
        self.channel = dev.channel(self.ring, entries, self.userd, token)
        self.put = 0

    def submit(self, pb):
        body = struct.pack(f"<{len(pb.dw)}I", *pb.dw)
        va = self.arena.alloc(len(body), 4)
        self.arena.write(va, body)
        self.submit_entry(va, len(pb.dw))
        return va

    def submit_entry(self, va, ndwords):
        entry = (va & 0xFFFFFFFFFC) | (ndwords << 42) | (1 << 41)
        self.arena.put_u64(self.ring + 8 * (self.put % self.entries), entry)
        self.put = (self.put + 1) % self.entries
        self.arena.put_u32(self.userd + USERD_GP_PUT, self.put)
        self.channel.ring_doorbell()

    def gp_get(self):
        return self.arena.u32(self.userd + USERD_GP_GET)
