#!/usr/bin/env python3
"""ImageDecoder end to end on images this script encodes itself.

    image_decoder.py --onnxc ONNXC --work DIR

Each case encodes a random image (numpy, zlib) as BMP, PNM, TIFF or PNG in
a layout ONNX's reference decoder (PIL) reads, runs a model of one
ImageDecoder node (RGB, BGR or Grayscale) through the C API and compares
with the pixels PIL would give: the image itself, its channels reversed,
or L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16; gray sources replicated;
alpha dropped; 16-bit samples' high byte (16-bit gray clipped at 255);
low bit depths and PNM maxvals scaled to 0..255 (rounded half to even, as
Pillow's round()). PNG cases cover every color type and bit
depth, the five row filters and stored, fixed and dynamic deflate blocks.
JPEG: the suite's three images check the decoder against libjpeg bit for
bit; here images this script encodes (jpeg_encoder.py: 4:4:4, 4:2:2,
4:4:0, 4:2:0, gray, restart markers, sizes that are not whole MCUs) must
decode to within the loss of quality-50 tables (mean absolute error under
5). Unsupported and corrupt streams must fail with a status naming the node.
"""

import argparse
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils", "gpu"))
from device_run import Model  # noqa: E402  (the ctypes binding of the C API)
sys.path.insert(0, HERE)
import jpeg_encoder  # noqa: E402

RNG = np.random.default_rng(17)
H, W = 7, 9


def luma(rgb):
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    return ((19595 * r + 38470 * g + 7471 * b + 0x8000) >> 16).astype(np.uint8)


# --- encoders ---------------------------------------------------------------

def bmp(rgb=None, palette=None, index=None, bpp=24, top_down=False):
    h, w = (rgb if rgb is not None else index).shape[:2]
    stride = ((w * bpp + 31) // 32) * 4
    rows = []
    for y in range(h):
        if bpp == 24:
            row = rgb[y][:, ::-1].tobytes()
        elif bpp == 32:
            row = np.concatenate([rgb[y][:, ::-1], np.full((w, 1), 7, np.uint8)], 1).tobytes()
        else:
            bits = "".join(format(int(v), "0%db" % bpp) for v in index[y])
            bits += "0" * (-len(bits) % 8)
            row = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
        rows.append(row + b"\0" * (stride - len(row)))
    if not top_down:
        rows = rows[::-1]
    pal = b"" if palette is None else b"".join(bytes([c[2], c[1], c[0], 0]) for c in palette)
    offset = 14 + 40 + len(pal)
    dib = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bpp, 0, stride * h, 2835, 2835,
                      0 if palette is None else len(palette), 0)
    return b"BM" + struct.pack("<IHHI", offset + stride * h, 0, 0, offset) + dib + pal + b"".join(rows)


def pnm(img, kind, maxval=255):
    h, w = img.shape[:2]
    head = ("P%d\n# a comment\n%d %d\n%d\n" % (kind, w, h, maxval)).encode()
    if kind in (5, 6):
        return head + img.astype(np.uint8).tobytes()
    return head + " ".join(str(int(v)) for v in img.reshape(-1)).encode() + b"\n"


def tiff(img, big=False, packbits=False, photometric=None):
    h, w = img.shape[:2]
    spp = 1 if img.ndim == 2 else img.shape[2]
    e = ">" if big else "<"
    rows = [img[y].tobytes() for y in range(h)]
    strips = [b"".join(rows[i:i + 3]) for i in range(0, h, 3)]
    if packbits:  # literal runs of at most 128 bytes
        strips = [b"".join(bytes([len(s[i:i + 100]) - 1]) + s[i:i + 100] for i in range(0, len(s), 100))
                  for s in strips]
    data, offsets = b"", []
    base = 8
    for s in strips:
        offsets.append(base + len(data))
        data += s
    extra_at = base + len(data)
    extra = struct.pack(e + "%dI" % len(strips), *offsets) + struct.pack(e + "%dI" % len(strips),
                                                                          *map(len, strips))
    bps_at = extra_at + len(extra)
    extra += struct.pack(e + "%dH" % spp, *([8] * spp)) if spp > 1 else b""
    ifd_at = extra_at + len(extra)
    photometric = (2 if spp > 1 else 1) if photometric is None else photometric
    tags = [(256, 4, 1, w), (257, 4, 1, h),
            (258, 3, spp, bps_at if spp > 1 else 8), (259, 3, 1, 32773 if packbits else 1),
            (262, 3, 1, photometric), (273, 4, len(strips), extra_at), (277, 3, 1, spp),
            (278, 4, 1, 3), (279, 4, len(strips), extra_at + 4 * len(strips))]
    ifd = struct.pack(e + "H", len(tags))
    for tag, typ, count, value in tags:
        v = struct.pack(e + "HH", value, 0) if typ == 3 and count == 1 else struct.pack(e + "I", value)
        ifd += struct.pack(e + "HHI", tag, typ, count) + v
    ifd += struct.pack(e + "I", 0)
    head = (b"MM\0*" if big else b"II*\0") + struct.pack(e + "I", ifd_at)
    return head + data + extra + ifd


def png(samples, color_type, depth, palette=None, level=6):
    """samples: H x W x S integers of `depth` bits."""
    h, w = samples.shape[:2]
    rows = []
    for y in range(h):
        flat = samples[y].reshape(-1)
        if depth == 16:
            raw = flat.astype(">u2").tobytes()
        elif depth == 8:
            raw = flat.astype(np.uint8).tobytes()
        else:
            bits = "".join(format(int(v), "0%db" % depth) for v in flat)
            bits += "0" * (-len(bits) % 8)
            raw = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
        rows.append(np.frombuffer(raw, np.uint8).astype(np.int32))
    bpp = max(1, (samples.shape[2] * depth) // 8)
    out, prev = b"", np.zeros_like(rows[0])
    for y, cur in enumerate(rows):
        f = y % 5
        left = np.concatenate([np.zeros(bpp, np.int32), cur[:-bpp]])
        upleft = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]])
        if f == 0:
            enc = cur
        elif f == 1:
            enc = cur - left
        elif f == 2:
            enc = cur - prev
        elif f == 3:
            enc = cur - (left + prev) // 2
        else:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
            enc = cur - pred
        out += bytes([f]) + (enc % 256).astype(np.uint8).tobytes()
        prev = cur

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    body = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 0))
    if palette is not None:
        body += chunk(b"PLTE", palette.astype(np.uint8).tobytes())
    z = zlib.compress(out, level)
    return b"\x89PNG\r\n\x1a\n" + body + chunk(b"IDAT", z[:len(z) // 2]) + chunk(b"IDAT", z[len(z) // 2:]) + \
        chunk(b"IEND", b"")


# --- cases --------------------------------------------------------------------

def rgb_image():
    return RNG.integers(0, 256, (H, W, 3)).astype(np.uint8)


def cases():
    c = []
    img = rgb_image()
    c.append(("bmp24", bmp(img), img))
    img = rgb_image()
    c.append(("bmp32_top_down", bmp(img, bpp=32, top_down=True), img))
    pal = RNG.integers(0, 256, (16, 3)).astype(np.uint8)
    idx = RNG.integers(0, 16, (H, W))
    c.append(("bmp4_palette", bmp(index=idx, palette=pal, bpp=4), pal[idx]))
    idx = RNG.integers(0, 2, (H, W))
    c.append(("bmp1_palette", bmp(index=idx, palette=pal[:2], bpp=1), pal[:2][idx]))
    img = rgb_image()
    c.append(("pnm_p6", pnm(img, 6), img))
    gray = RNG.integers(0, 256, (H, W)).astype(np.uint8)
    c.append(("pnm_p5", pnm(gray, 5), np.stack([gray] * 3, -1)))
    small = RNG.integers(0, 16, (H, W, 3))
    scaled = np.vectorize(lambda v: round(v / 6 * 255))(small % 7).astype(np.uint8)
    c.append(("pnm_p3_maxval6", pnm(small % 7, 3, 6), scaled))
    c.append(("pnm_p6_maxval6", pnm(small % 7, 6, 6), scaled))
    img = rgb_image()
    c.append(("tiff_rgb", tiff(img), img))
    img = rgb_image()
    c.append(("tiff_rgb_big_endian_packbits", tiff(img, big=True, packbits=True), img))
    rgba = RNG.integers(0, 256, (H, W, 4)).astype(np.uint8)
    c.append(("tiff_rgba", tiff(rgba), rgba[..., :3]))
    gray = RNG.integers(0, 256, (H, W)).astype(np.uint8)
    c.append(("tiff_white_is_zero", tiff(gray, photometric=0), np.stack([255 - gray] * 3, -1)))
    img = rgb_image()
    for level in (0, 1, 9):
        c.append(("png_rgb8_level%d" % level, png(img, 2, 8, level=level), img))
    s16 = RNG.integers(0, 65536, (H, W, 3))
    c.append(("png_rgb16", png(s16, 2, 16), (s16 >> 8).astype(np.uint8)))
    rgba = RNG.integers(0, 256, (H, W, 4))
    c.append(("png_rgba8", png(rgba, 6, 8), rgba[..., :3].astype(np.uint8)))
    for depth in (1, 2, 4, 8):
        g = RNG.integers(0, 1 << depth, (H, W, 1))
        v = (g[..., 0] * 255 // ((1 << depth) - 1)).astype(np.uint8)
        c.append(("png_gray%d" % depth, png(g, 0, depth), np.stack([v] * 3, -1)))
    g16 = RNG.integers(0, 600, (H, W, 1))
    v = np.minimum(g16[..., 0], 255).astype(np.uint8)
    c.append(("png_gray16_clipped", png(g16, 0, 16), np.stack([v] * 3, -1)))
    ga = RNG.integers(0, 256, (H, W, 2))
    c.append(("png_gray_alpha", png(ga, 4, 8), np.stack([ga[..., 0].astype(np.uint8)] * 3, -1)))
    pal = RNG.integers(0, 256, (5, 3))
    idx = RNG.integers(0, 5, (H, W, 1))
    c.append(("png_palette4", png(idx, 3, 4, palette=pal), pal[idx[..., 0]].astype(np.uint8)))
    return c


def jpeg_cases():
    yy, xx = np.mgrid[0:37, 0:45]
    img = np.stack([128 + 100 * np.sin(xx / 7), 128 + 100 * np.cos(yy / 5), 128 + 60 * np.sin((xx + yy) / 9)],
                   -1).clip(0, 255).astype(np.uint8)
    c = []
    for sampling in [(2, 2), (2, 1), (1, 2), (1, 1)]:
        for restart in (0, 3):
            c.append(("jpeg_%dx%d_restart%d" % (sampling + (restart,)),
                      jpeg_encoder.encode(img, sampling, restart), img))
    c.append(("jpeg_gray", jpeg_encoder.encode(img[..., 1]), np.stack([img[..., 1]] * 3, -1)))
    return c


def model(path, fmt):
    graph = helper.make_graph(
        [helper.make_node("ImageDecoder", ["data"], ["image"], name="decode", pixel_format=fmt)], "dec",
        [helper.make_tensor_value_info("data", TensorProto.UINT8, ["n"])],
        [helper.make_tensor_value_info("image", TensorProto.UINT8, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]), path + ".onnx")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    libs = {}
    for fmt in ("RGB", "BGR", "Grayscale"):
        path = os.path.join(args.work, fmt)
        model(path, fmt)
        subprocess.run([args.onnxc, path + ".onnx", "-o", path + ".so"], check=True)
        libs[fmt] = Model(path + ".so")
    failed = 0
    for name, data, rgb in cases():
        stream = np.frombuffer(data, np.uint8).copy()
        wants = {"RGB": rgb, "BGR": rgb[..., ::-1], "Grayscale": luma(rgb)[..., None]}
        problems = []
        for fmt, lib in libs.items():
            status, out = lib.run([stream])
            if status:
                problems.append("%s: %s" % (fmt, out))
            elif out[0].shape != wants[fmt].shape or not np.array_equal(out[0], wants[fmt]):
                problems.append("%s: %s, expected %s" % (fmt, out[0].shape, wants[fmt].shape))
        failed += bool(problems)
        print("%s %s%s" % ("FAIL" if problems else "PASS", name, ": " + "; ".join(problems) if problems else ""))
    for name, data, rgb in jpeg_cases():
        status, out = libs["RGB"].run([np.frombuffer(data, np.uint8).copy()])
        err = np.abs(out[0].astype(int) - rgb).mean() if not status and out[0].shape == rgb.shape else None
        ok = err is not None and err < 5
        failed += not ok
        print("%s %s: %s" % ("PASS" if ok else "FAIL", name,
                             out if status else "mean abs error %.2f" % err if err is not None else out[0].shape))
    progressive = b"\xff\xd8\xff\xc2\x00\x0b\x08\x00\x10\x00\x10\x01\x01\x11\x00"
    # Headers that claim far more pixels than their data can hold: refused
    # before anything is allocated for them.
    huge_bmp = bytearray(bmp(rgb_image()))
    huge_bmp[18:26] = struct.pack("<ii", 10000, 10000)
    huge_png = bytearray(png(rgb_image(), 2, 8))
    huge_png[16:24] = struct.pack(">II", 10000, 10000)
    huge_jpeg = bytearray(jpeg_cases()[0][1])
    at = huge_jpeg.index(b"\xff\xc0") + 5
    huge_jpeg[at:at + 4] = struct.pack(">HH", 12000, 12000)
    for name, data in [("progressive_jpeg", progressive), ("truncated_jpeg", jpeg_cases()[0][1][:300]),
                       ("webp", b"RIFF\0\0\0\0WEBPVP8 "), ("truncated_png", png(rgb_image(), 2, 8)[:60]),
                       ("huge_bmp", bytes(huge_bmp)), ("huge_png", bytes(huge_png)),
                       ("huge_jpeg", bytes(huge_jpeg)),
                       ("garbage", b"hello, world")]:
        status, out = libs["RGB"].run([np.frombuffer(data, np.uint8).copy()])
        print("error %s: status %d: %s" % (name, status, out if status else "decoded"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
