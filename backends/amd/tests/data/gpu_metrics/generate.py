#!/usr/bin/env python3
"""Writes the gpu_metrics test blobs of the AMD backend.

Each layout is a struct.pack format written from the kernel's gpu_metrics_v1_x declarations
(drivers/gpu/drm/amd/include/kgd_pp_interface.h): little-endian, with the padding the kernel's
natural alignment inserts spelled out as 'x' bytes, so these offsets are independent of the C++
declarations the decoder uses. Unfilled fields are all-ones, as the SMU leaves them.
Run from anywhere: python3 generate.py  (rewrites the *.bin files next to it).
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
U16 = 0xFFFF
U32 = 0xFFFFFFFF
U64 = 0xFFFFFFFFFFFFFFFF


def header(size, fmt_rev, content):
    return struct.pack("<HBB", size, fmt_rev, content)


def v1_0():
    # header(4) pad(4) clock(8) temps 6H, 3H activity, H power, I energy, 7H avg, 7H cur,
    # I throttle, H fan, B width, B speed, pad(4) -> 80
    body = struct.pack("<4xQ6H3HHI7H7HIHBB4x", 5_000_000_000,
                       40, 52, 48, 39, 38, 37,   # edge hotspot mem vrgfx vrsoc vrmem
                       25, 10, 0,                # gfx umc mm %
                       150,                      # average socket power W
                       4_294_000_000,            # 32-bit energy accumulator
                       1500, 900, 875, 0, 0, 0, 0,
                       1600, 1000, 875, 0, 0, U16, U16,
                       0x5, 1200, 16, 80)
    return header(80, 1, 0) + body


def v1_1_prefix(temps, activity, power, energy, clock, cur_clocks, throttle, fan, width, speed,
                hbm):
    # temps 6H, 3H, H power, Q energy, Q clock, 7H avg, 7H cur, I throttle, H fan, H width,
    # H speed, H pad, I gfx_acc, I mem_acc, 4H hbm -> 96 with the header
    return struct.pack("<6H3HHQQ7H7HIHHHHII4H", *temps, *activity, power, energy, clock,
                       *([U16] * 7), *cur_clocks, throttle, fan, width, speed, 0, 123456,
                       65432, *hbm)


def v1_3_navi31():
    # Radeon RX 7900 XTX (smu 13.0.0): 1.3, no HBM.
    prefix = v1_1_prefix(temps=(45, 58, 50, 44, 42, 40), activity=(35, 20, 0), power=212,
                         energy=3_276_800, clock=987_654_321_000,
                         cur_clocks=(2500, 1100, 1249, 0, 0, U16, U16), throttle=0x100,
                         fan=1500, width=16, speed=160, hbm=(U16, U16, U16, U16))
    # firmware timestamp Q, voltages 3H, pad H, indep throttle Q -> 120
    tail = struct.pack("<Q3HHQ", 55_555, 900, 1050, 1350, 0, (1 << 0) | (1 << 35))
    return header(120, 1, 3) + prefix + tail


def v1_3_mi250x():
    prefix = v1_1_prefix(temps=(38, 47, 52, U16, U16, U16), activity=(90, 60, U16), power=480,
                         energy=13_107_200_000, clock=1_000, cur_clocks=(1700, 1090, 1600, U16,
                         U16, U16, U16), throttle=0, fan=U16, width=16, speed=160,
                         hbm=(52, 53, 51, 50))
    tail = struct.pack("<Q3HHQ", 1, U16, U16, U16, 0, 0)
    return header(120, 1, 3) + prefix + tail


def v1_4_family(content, power, gfx, umc, energy, residency, bw_inst, replay, xgmi_read,
                xgmi_write, gfxclk, socclk, uclk):
    out = struct.pack("<3HH2H4H", 62, 55, 48, power, gfx, umc, 0, 0, U16, U16)
    if content >= 5:
        out += struct.pack("<32H", *([0] * 8 + [U16] * 24))
    out += struct.pack("<QQ", energy, 2_000_000_000)
    if content >= 6:
        out += struct.pack("<6I", *residency)
    out += struct.pack("<II", 0, 0)  # throttle_status, gfxclk_lock_status
    out += struct.pack("<4HIIQQQQQ", 16, 320, 16, 32, 111, 222, 0, bw_inst, 0, replay, 0)
    if content >= 5:
        out += struct.pack("<II", 0, 0)  # NAK sent / received
    out += struct.pack("<8Q8QQ", *xgmi_read, *xgmi_write, 42)
    out += struct.pack("<8H4H4H4HHH", *gfxclk, *socclk, 0, 0, 0, 0, 0, 0, 0, 0, uclk, 0)
    size = {4: 288, 5: 360, 6: 384}[content]
    out += b"\0" * (size - 4 - len(out))  # tail padding to 8-byte alignment
    assert len(out) == size - 4, (content, len(out))
    return header(size, 1, content) + out


def mi300x(content, residency, xgmi_scale):
    return v1_4_family(content, power=356, gfx=87, umc=41, energy=6_553_600_000,
                       residency=residency, bw_inst=64_000 if content >= 6 else 8,
                       replay=3, xgmi_read=[1000 * xgmi_scale * (i + 1) for i in range(8)],
                       xgmi_write=[500 * xgmi_scale * (i + 1) for i in range(8)],
                       gfxclk=[2100] * 8, socclk=[1200] * 4, uclk=1300)


def write(name, blob):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(blob)


write("v1_0.bin", v1_0())
write("v1_3-navi31.bin", v1_3_navi31())
write("v1_3-mi250x.bin", v1_3_mi250x())
write("v1_4.bin", mi300x(4, None, 1))
write("v1_5.bin", mi300x(5, None, 1))
write("v1_6-mi300x-a.bin", mi300x(6, (1000, 0, 250, 0, 0, 0), 1))
write("v1_6-mi300x-b.bin", mi300x(6, (1100, 0, 260, 0, 0, 0), 2))
write("v1_6-truncated.bin", mi300x(6, (1, 0, 0, 0, 0, 0), 1)[:100])
write("v1_9-unknown.bin", header(400, 1, 9) + b"\0" * 396)
write("v2_1-apu.bin", header(120, 2, 1) + b"\0" * 116)
