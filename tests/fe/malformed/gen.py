#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the raw malformed pushbuffers of tests/fe/malformed/ and expected.txt.

Each .pb file is little-endian dwords, submitted by tests/fe/test_malformed.c as
one GPFIFO entry on a fresh channel. expected.txt lists, per file: the arch,
the byte offset the diagnosis must name (within the pushbuffer), and a phrase
the channel's stop diagnosis must contain. Run from anywhere:
    python3 tests/fe/malformed/gen.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def hdr(op, count, subch, method):
    return (op << 29) | ((count & 0x1FFF) << 16) | ((subch & 7) << 13) | ((method >> 2) & 0xFFF)


def inc(subch, method, *data):
    return [hdr(1, len(data), subch, method), *data]


SEM_RELEASE_64 = 1 | (1 << 24)

CASES = [
    # name, arch, byte offset, phrase, dwords
    ("secop0", "hopper", 8, "SEC_OP 0", inc(0, 0x8, 0) + [0x00010004, 1]),
    ("secop2", "hopper", 8, "SEC_OP 2", inc(0, 0x8, 0) + [0x40010004, 1]),
    ("secop6", "hopper", 0, "SEC_OP 6 is reserved", [0xC0010004, 1]),
    ("inc_past_end", "hopper", 0, "runs past the last method",
     [hdr(1, 8, 0, 0x3FF0)] + list(range(8))),
    ("oneinc_past_end", "ampere", 0, "has no next method", [hdr(5, 2, 0, 0x3FFC), 1, 2]),
    ("no_object", "hopper", 4, "which has no object bound", inc(3, 0x200, 5)),
    ("unknown_class", "hopper", 4, "is not a class chainsim knows", inc(1, 0x0, 0xB1C0)),
    ("host_class_bind", "blackwell", 4, "host channel class", inc(1, 0x0, 0xC96F)),
    ("other_generation", "ampere", 4, "belongs to another generation", inc(1, 0x0, 0xCBC0)),
    ("unmodelled_3d", "ada", 4, "does not model", inc(0, 0x0, 0xC997)),
    ("sem_op7", "hopper", 4, "operation 7 is not defined", inc(0, 0x6C, 7)),
    ("reduction_undefined", "hopper", 4, "reduction 9 is not defined",
     inc(0, 0x6C, 6 | (9 << 27))),
    ("unknown_host_method", "hopper", 4, "is not a method of C86F", inc(0, 0xF0, 0)),
    ("illegal_method", "ampere", 12, "ILLEGAL method", inc(0, 0x8, 0) + inc(0, 0x4, 0)),
    ("misaligned_sem64", "hopper", 20, "not 8-byte aligned",
     inc(0, 0x5C, 0x1004, 0x2, 0, 0, SEM_RELEASE_64)),
    ("secop0_after_imm", "blackwell", 4, "SEC_OP 0",
     [hdr(4, 3, 0, 0x50), 0x1FFF0000]),
]


def main():
    lines = ["# file\tarch\tbyte offset\tphrase (written by gen.py)"]
    for name, arch, off, phrase, dwords in CASES:
        with open(os.path.join(HERE, name + ".pb"), "wb") as f:
            f.write(b"".join(struct.pack("<I", d & 0xFFFFFFFF) for d in dwords))
        lines.append(f"{name}.pb\t{arch}\t{off}\t{phrase}")
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
