"""A minimal baseline JPEG encoder for the tests (the standard Annex K
quantization and Huffman tables, quality 50): 4:4:4, 4:2:2, 4:4:0, 4:2:0
or gray, with or without restart markers; not a reference decoder."""
import numpy as np

ZIGZAG = np.array([0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
                   13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
                   52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63])
QL = np.array([16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17,
               22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78,
               87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]).reshape(8, 8)
QC = np.array([17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66,
               99, 99, 99, 99, 99, 99] + [99] * 32).reshape(8, 8)
DC_BITS = [[0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]]
DC_VALS = [list(range(12)), list(range(12))]
AC_BITS = [[0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d], [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77]]
AC_VALS = [bytes.fromhex(
    "01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738"
    "393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5"
    "a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa"),
    bytes.fromhex(
    "000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a3536"
    "3738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999a"
    "a2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9fa")]


def codes(bits, vals):
    table, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            table[vals[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return table


C = np.array([[np.sqrt((1 if u == 0 else 2) / 8) * np.cos((2 * x + 1) * u * np.pi / 16) for x in range(8)]
              for u in range(8)])


class Bits:
    def __init__(self):
        self.out, self.acc, self.n = bytearray(), 0, 0

    def put(self, value, length):
        for i in range(length - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> i) & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0)
                self.acc, self.n = 0, 0

    def flush(self):
        if self.n:
            self.put((1 << (8 - self.n)) - 1, 8 - self.n)


def magnitude(v):
    n = int(abs(v)).bit_length()
    return n, (v if v >= 0 else v + (1 << n) - 1)


def encode(img, sampling=(2, 2), restart=0):
    """img: H x W x 3 (YCbCr from RGB) or H x W (gray) uint8."""
    gray = img.ndim == 2
    h, w = img.shape[:2]
    if gray:
        planes, factors = [img.astype(np.float64)], [(1, 1)]
    else:
        r, g, b = (img[..., i].astype(np.float64) for i in range(3))
        y = 0.299 * r + 0.587 * g + 0.114 * b
        cb = -0.168736 * r - 0.331264 * g + 0.5 * b + 128
        cr = 0.5 * r - 0.418688 * g - 0.081312 * b + 128
        planes, factors = [y, cb, cr], [sampling, (1, 1), (1, 1)]
    hmax, vmax = max(f[0] for f in factors), max(f[1] for f in factors)
    mcux, mcuy = -(-w // (8 * hmax)), -(-h // (8 * vmax))
    tabs = [(QL, 0), (QC, 1), (QC, 1)]
    comps = []
    for i, (p, (fh, fv)) in enumerate(zip(planes, factors)):
        # downsample by averaging, pad by edge replication to whole MCUs
        dh, dw = -(-h * fv // vmax), -(-w * fh // hmax)
        ph, pw = mcuy * 8 * fv, mcux * 8 * fh
        sy, sx = vmax // fv, hmax // fh
        full = np.pad(p, ((0, dh * sy - h), (0, dw * sx - w)), mode="edge")
        down = full.reshape(dh, sy, dw, sx).mean((1, 3))
        comps.append(np.pad(down, ((0, ph - dh), (0, pw - dw)), mode="edge"))
    dc_t = [codes(DC_BITS[t], DC_VALS[t]) for t in range(2)]
    ac_t = [codes(AC_BITS[t], AC_VALS[t]) for t in range(2)]
    bits, pred, mcu = Bits(), [0, 0, 0], 0
    out = bytearray(b"\xff\xd8")

    def segment(marker, data):
        out.extend(bytes([0xFF, marker]) + (len(data) + 2).to_bytes(2, "big") + data)
    segment(0xDB, bytes([0]) + bytes(int(v) for v in QL.reshape(-1)[ZIGZAG]) +
            bytes([1]) + bytes(int(v) for v in QC.reshape(-1)[ZIGZAG]))
    nc = len(comps)
    sof = bytes([8]) + h.to_bytes(2, "big") + w.to_bytes(2, "big") + bytes([nc])
    for i, (fh, fv) in enumerate(factors):
        sof += bytes([i + 1, fh << 4 | fv, tabs[i][1]])
    segment(0xC0, sof)
    for t in range(2 if nc > 1 else 1):
        segment(0xC4, bytes([t]) + bytes(DC_BITS[t]) + bytes(DC_VALS[t]))
        segment(0xC4, bytes([0x10 | t]) + bytes(AC_BITS[t]) + AC_VALS[t])
    if restart:
        segment(0xDD, restart.to_bytes(2, "big"))
    sos = bytes([nc])
    for i in range(nc):
        sos += bytes([i + 1, (tabs[i][1] << 4) | tabs[i][1]])
    segment(0xDA, sos + bytes([0, 63, 0]))
    for my in range(mcuy):
        for mx in range(mcux):
            if restart and mcu and mcu % restart == 0:
                bits.flush()
                out.extend(bits.out)
                bits.out = bytearray()
                out.extend(bytes([0xFF, 0xD0 + ((mcu // restart - 1) % 8)]))
                pred = [0, 0, 0]
            mcu += 1
            for i, (fh, fv) in enumerate(factors):
                q, t = tabs[i]
                for by in range(fv):
                    for bx in range(fh):
                        y0, x0 = (my * fv + by) * 8, (mx * fh + bx) * 8
                        block = comps[i][y0:y0 + 8, x0:x0 + 8] - 128
                        coef = np.round(C @ block @ C.T / q).astype(int).reshape(-1)[ZIGZAG]
                        n, v = magnitude(coef[0] - pred[i])
                        pred[i] = coef[0]
                        code, length = dc_t[t][n]
                        bits.put(code, length)
                        bits.put(v, n)
                        run = 0
                        for k in range(1, 64):
                            if coef[k] == 0:
                                run += 1
                                continue
                            while run > 15:
                                bits.put(*ac_t[t][0xF0])
                                run -= 16
                            n, v = magnitude(coef[k])
                            bits.put(*ac_t[t][(run << 4) | n])
                            bits.put(v, n)
                            run = 0
                        if run:
                            bits.put(*ac_t[t][0])
    bits.flush()
    out.extend(bits.out)
    out.extend(b"\xff\xd9")
    return bytes(out)
