/*===- onnxc_jpeg.c - ImageDecoder: baseline JPEG ---------------------------===*
 *
 * onnxc_img_decode_jpeg for onnxc_images.c.
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc_images.h"

#include <string.h>

/*===--- JPEG (baseline)
 * ---------------------------------------------------===*/

/* Baseline (SOF0/SOF1, Huffman, 8-bit) JPEG decoded as libjpeg(-turbo)
 * decodes it by default, which is what PIL (ONNX's reference) calls: the
 * ISLOW integer IDCT (LL&M, 13-bit constants), "fancy" triangle-filter
 * upsampling of subsampled chroma (h2v1, h2v2) with the edge rows
 * replicated, and the fixed-point YCbCr -> RGB tables of jdcolor.c. */

typedef struct {
  uint8_t bits[17];
  uint8_t vals[256];
  int mincode[17], maxcode[18], valptr[17];
} jhuff;

typedef struct {
  int id, h, v, tq, td, ta;
  int bw, bh;     /* blocks per line / column (whole MCUs) */
  uint8_t *plane; /* bw*8 x bh*8 samples */
  int64_t dc;     /* the DC predictor */
  int64_t dw, dh; /* the downsampled width and height (real samples) */
} jcomp;

typedef struct {
  const source *s;
  const uint8_t *p;
  size_t n, pos;
  uint32_t bits;
  int count, marker_hit;
} jbits;

static const uint8_t zigzag[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

static int jbit(jbits *b) {
  if (b->count == 0) {
    uint8_t byte = 0;
    if (!b->marker_hit && b->pos >= b->n)
      bad(b->s, "truncated JPEG data");
    if (!b->marker_hit) {
      byte = b->p[b->pos];
      if (byte == 0xFF) {
        uint8_t next = b->pos + 1 < b->n ? b->p[b->pos + 1] : 0;
        if (next == 0) {
          b->pos += 2;
        } else {
          b->marker_hit = 1; /* a marker: zeros from here, as libjpeg */
          byte = 0;
        }
      } else {
        ++b->pos;
      }
    }
    b->bits = byte;
    b->count = 8;
  }
  --b->count;
  return (b->bits >> b->count) & 1;
}

static int jreceive(jbits *b, int n) {
  int v = 0;
  while (n--)
    v = (v << 1) | jbit(b);
  return v;
}

static int jextend(int v, int n) {
  return n == 0 ? 0 : v < (1 << (n - 1)) ? v - (1 << n) + 1 : v;
}

static int jdecode(jbits *b, const jhuff *h) {
  int code = jbit(b);
  for (int len = 1; len <= 16; ++len) {
    if (code <= h->maxcode[len])
      return h->vals[h->valptr[len] + code - h->mincode[len]];
    code = (code << 1) | jbit(b);
  }
  bad(b->s, "an invalid Huffman code in the JPEG data");
}

static void jbuild(jhuff *h) {
  int code = 0, k = 0;
  for (int len = 1; len <= 16; ++len) {
    h->valptr[len] = k;
    h->mincode[len] = code;
    code += h->bits[len];
    k += h->bits[len];
    h->maxcode[len] = h->bits[len] ? code - 1 : -1;
    code <<= 1;
  }
  h->maxcode[17] = INT32_MAX;
}

static uint8_t jlimit(int64_t x) {
  /* libjpeg's post-IDCT range limit: x & 1023 as a signed 10-bit value,
   * plus 128, clamped to 0..255. */
  int v = (int)(x & 1023);
  if (v >= 512)
    v -= 1024;
  v += 128;
  return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* One 8-point ISLOW pass (jidctint.c's butterflies, 13-bit constants) on
 * x[0..7]: out[k] is output k scaled by 2^13, before descaling. */
static void islow_1d(const int64_t x[8], int64_t out[8]) {
  int64_t z2 = x[2], z3 = x[6];
  int64_t z1 = (z2 + z3) * 4433;
  int64_t tmp2 = z1 + z3 * -15137, tmp3 = z1 + z2 * 6270;
  int64_t tmp0 = (x[0] + x[4]) * 8192, tmp1 = (x[0] - x[4]) * 8192;
  int64_t tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2,
          tmp12 = tmp1 - tmp2;
  tmp0 = x[7], tmp1 = x[5], tmp2 = x[3], tmp3 = x[1];
  z1 = tmp0 + tmp3;
  z2 = tmp1 + tmp2;
  z3 = tmp0 + tmp2;
  int64_t z4 = tmp1 + tmp3, z5 = (z3 + z4) * 9633;
  tmp0 *= 2446;
  tmp1 *= 16819;
  tmp2 *= 25172;
  tmp3 *= 12299;
  z1 *= -7373;
  z2 *= -20995;
  z3 = z3 * -16069 + z5;
  z4 = z4 * -3196 + z5;
  tmp0 += z1 + z3;
  tmp1 += z2 + z4;
  tmp2 += z2 + z3;
  tmp3 += z1 + z4;
  out[0] = tmp10 + tmp3, out[7] = tmp10 - tmp3;
  out[1] = tmp11 + tmp2, out[6] = tmp11 - tmp2;
  out[2] = tmp12 + tmp1, out[5] = tmp12 - tmp1;
  out[3] = tmp13 + tmp0, out[4] = tmp13 - tmp0;
}

/* jpeg_idct_islow: columns (dequantized, kept with 2 extra bits, as ints),
 * then rows (descaled, range-limited); all-zero AC shortcuts as libjpeg. */
static void jidct_islow(const int64_t *coef, const uint16_t *q, uint8_t *out,
                        size_t stride) {
  enum { P1 = 2 };
  int64_t ws[64], x[8], y[8];
  for (int c = 0; c < 8; ++c) {
    for (int k = 0; k < 8; ++k)
      x[k] = coef[8 * k + c] * q[8 * k + c];
    if (!x[1] && !x[2] && !x[3] && !x[4] && !x[5] && !x[6] && !x[7]) {
      for (int r = 0; r < 8; ++r)
        ws[r * 8 + c] = x[0] * (1 << P1);
      continue;
    }
    islow_1d(x, y);
    /* libjpeg keeps these in ints; real data never exceeds them. */
    for (int r = 0; r < 8; ++r)
      ws[r * 8 + c] = (int32_t)((y[r] + (1 << 10)) >> 11);
  }
  for (int r = 0; r < 8; ++r) {
    const int64_t *w = ws + r * 8;
    uint8_t *o = out + (size_t)r * stride;
    if (!w[1] && !w[2] && !w[3] && !w[4] && !w[5] && !w[6] && !w[7]) {
      memset(o, jlimit((w[0] + (1 << (P1 + 2))) >> (P1 + 3)), 8);
      continue;
    }
    islow_1d(w, y);
    for (int k = 0; k < 8; ++k)
      o[k] = jlimit((y[k] + (1 << 17)) >> 18);
  }
}

/* Component `c` upsampled to the full size (fw x fh, real samples only). */
static uint8_t *jupsample(const source *s, const jcomp *c, int hmax, int vmax,
                          int64_t fw, int64_t fh) {
  size_t pw = (size_t)c->bw * 8;
  int64_t dw = c->dw, dh = c->dh;
  uint8_t *out = onnxc_rt_alloc((size_t)(fw * fh));
  int hf = hmax / c->h, vf = vmax / c->v;
  if (hf == 1 && vf == 1) {
    for (int64_t y = 0; y < fh; ++y)
      memcpy(out + y * fw, c->plane + y * pw, (size_t)fw);
    return out;
  }
  if (!((hf == 2 && vf == 1) || (hf == 2 && vf == 2) || (hf == 1 && vf == 2)))
    bad(s, "a JPEG chroma subsampling other than 4:4:4, 4:2:2, 4:4:0 or 4:2:0");
  /* The upsampled rows of each (padded) output row, as libjpeg's fancy
   * upsamplers compute them; edge rows replicated. */
  size_t ow = (size_t)dw * hf;
  uint8_t *row = onnxc_rt_alloc(ow + 2);
  for (int64_t oy = 0; oy < fh; ++oy) {
    int64_t iy = oy / vf;
    if (iy >= dh)
      iy = dh - 1;
    const uint8_t *in0 = c->plane + (size_t)iy * pw;
    if (vf == 1) {
      /* h2v1 */
      if (dw == 1) {
        row[0] = row[1] = in0[0];
      } else {
        row[0] = in0[0];
        row[1] = (uint8_t)((in0[0] * 3 + in0[1] + 2) >> 2);
        for (int64_t x = 1; x < dw - 1; ++x) {
          int v = in0[x] * 3;
          row[2 * x] = (uint8_t)((v + in0[x - 1] + 1) >> 2);
          row[2 * x + 1] = (uint8_t)((v + in0[x + 1] + 2) >> 2);
        }
        row[2 * dw - 2] = (uint8_t)((in0[dw - 1] * 3 + in0[dw - 2] + 1) >> 2);
        row[2 * dw - 1] = in0[dw - 1];
      }
    } else {
      /* v2: the nearer row 3/4, the other (above for even rows, below for
       * odd ones; replicated at the edges) 1/4. */
      int64_t other = oy % 2 == 0 ? iy - 1 : iy + 1;
      if (other < 0)
        other = 0;
      if (other >= dh)
        other = dh - 1;
      const uint8_t *in1 = c->plane + (size_t)other * pw;
      if (hf == 1) {
        for (int64_t x = 0; x < dw; ++x)
          row[x] =
              (uint8_t)((in0[x] * 3 + in1[x] + (oy % 2 == 0 ? 1 : 2)) >> 2);
      } else if (dw == 1) {
        int sum = in0[0] * 3 + in1[0];
        row[0] = (uint8_t)((sum * 4 + 8) >> 4);
        row[1] = (uint8_t)((sum * 4 + 7) >> 4);
      } else {
        int last = in0[0] * 3 + in1[0], cur = last, next;
        next = in0[1] * 3 + in1[1];
        row[0] = (uint8_t)((cur * 4 + 8) >> 4);
        row[1] = (uint8_t)((cur * 3 + next + 7) >> 4);
        last = cur, cur = next;
        for (int64_t x = 1; x < dw - 1; ++x) {
          next = in0[x + 1] * 3 + in1[x + 1];
          row[2 * x] = (uint8_t)((cur * 3 + last + 8) >> 4);
          row[2 * x + 1] = (uint8_t)((cur * 3 + next + 7) >> 4);
          last = cur, cur = next;
        }
        row[2 * dw - 2] = (uint8_t)((cur * 3 + last + 8) >> 4);
        row[2 * dw - 1] = (uint8_t)((cur * 4 + 7) >> 4);
      }
    }
    for (int64_t x = 0; x < fw; ++x)
      out[oy * fw + x] = row[x < (int64_t)ow ? x : (int64_t)ow - 1];
  }
  return out;
}

image onnxc_img_decode_jpeg(const source *s) {
  const uint8_t *p = s->p;
  size_t n = s->n, at = 2;
  uint16_t qt[4][64];
  int have_qt[4] = {0};
  jhuff dc[4], ac[4];
  int have_dc[4] = {0}, have_ac[4] = {0};
  jcomp comp[3];
  int ncomp = 0, restart = 0, hmax = 1, vmax = 1;
  int64_t w = 0, h = 0;
  int frame = 0;
  for (;;) {
    while (at < n && p[at] != 0xFF)
      ++at;
    while (at < n && p[at] == 0xFF)
      ++at;
    if (at >= n)
      bad(s, "a JPEG without image data");
    uint8_t m = p[at++];
    if (m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01)
      continue;
    if (m == 0xD9)
      bad(s, "a JPEG without image data");
    if (at + 2 > n)
      bad(s, "a truncated JPEG segment");
    size_t len = (size_t)(p[at] << 8 | p[at + 1]);
    if (len < 2 || len > n - at)
      bad(s, "a truncated JPEG segment");
    const uint8_t *seg = p + at + 2, *end = p + at + len;
    at += len;
    if (m == 0xDB) {
      while (seg < end) {
        int pq = seg[0] >> 4, tq = seg[0] & 15;
        if (tq > 3 || seg + 1 + 64 * (pq + 1) > end)
          bad(s, "an invalid JPEG quantization table");
        for (int k = 0; k < 64; ++k)
          qt[tq][zigzag[k]] =
              pq ? (uint16_t)(seg[1 + 2 * k] << 8 | seg[2 + 2 * k])
                 : seg[1 + k];
        have_qt[tq] = 1;
        seg += 1 + 64 * (pq + 1);
      }
    } else if (m == 0xC4) {
      while (seg < end) {
        int tc = seg[0] >> 4, th = seg[0] & 15, total = 0;
        if (tc > 1 || th > 3 || seg + 17 > end)
          bad(s, "an invalid JPEG Huffman table");
        jhuff *t = tc ? &ac[th] : &dc[th];
        for (int i = 1; i <= 16; ++i)
          total += t->bits[i] = seg[i];
        if (total > 256 || seg + 17 + total > end)
          bad(s, "an invalid JPEG Huffman table");
        memcpy(t->vals, seg + 17, (size_t)total);
        jbuild(t);
        (tc ? have_ac : have_dc)[th] = 1;
        seg += 17 + total;
      }
    } else if (m == 0xDD) {
      if (len < 4)
        bad(s, "an invalid JPEG restart interval");
      restart = seg[0] << 8 | seg[1];
    } else if (m == 0xC0 || m == 0xC1) {
      if (len < 8 || seg[0] != 8)
        bad(s, "a JPEG of other than 8-bit samples");
      h = seg[1] << 8 | seg[2];
      w = seg[3] << 8 | seg[4];
      ncomp = seg[5];
      if ((ncomp != 1 && ncomp != 3) || len < 8 + 3 * (size_t)ncomp || !h)
        bad(s, "a JPEG frame of other than 1 or 3 components");
      for (int i = 0; i < ncomp; ++i) {
        comp[i].id = seg[6 + 3 * i];
        comp[i].h = seg[7 + 3 * i] >> 4;
        comp[i].v = seg[7 + 3 * i] & 15;
        comp[i].tq = seg[8 + 3 * i] & 3;
        if (comp[i].h < 1 || comp[i].h > 2 || comp[i].v < 1 || comp[i].v > 2)
          bad(s, "a JPEG sampling factor other than 1 or 2");
        hmax = comp[i].h > hmax ? comp[i].h : hmax;
        vmax = comp[i].v > vmax ? comp[i].v : vmax;
      }
      frame = 1;
    } else if (m >= 0xC2 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
      bad(s, "a progressive, lossless or arithmetic-coded JPEG (only "
             "baseline ones are decoded)");
    } else if (m == 0xDA) {
      if (!frame)
        bad(s, "a JPEG scan before its frame");
      int ns = seg[0];
      if (ns != ncomp || len < 6 + 2 * (size_t)ns)
        bad(s, "a JPEG whose components are in separate scans (only "
               "single-scan baseline ones are decoded)");
      for (int i = 0; i < ns; ++i) {
        int k = 0;
        while (k < ncomp && comp[k].id != seg[1 + 2 * i])
          ++k;
        if (k == ncomp)
          bad(s, "a JPEG scan of an unknown component");
        comp[k].td = seg[2 + 2 * i] >> 4;
        comp[k].ta = seg[2 + 2 * i] & 15;
        if (comp[k].td > 3 || comp[k].ta > 3 || !have_dc[comp[k].td] ||
            !have_ac[comp[k].ta] || !have_qt[comp[k].tq])
          bad(s, "a JPEG scan without its tables");
      }
      break;
    }
  }
  if (w <= 0 || h <= 0)
    bad(s, "a JPEG of no pixels");
  int64_t mcux, mcuy;
  if (ncomp == 1) {
    comp[0].h = comp[0].v = hmax = vmax = 1;
    mcux = (w + 7) / 8, mcuy = (h + 7) / 8;
  } else {
    mcux = (w + 8 * hmax - 1) / (8 * hmax),
    mcuy = (h + 8 * vmax - 1) / (8 * vmax);
  }
  onnxc_img_check(s, h, w, 0);
  /* Each block takes at least 2 bits (a DC and an end-of-block code). */
  int64_t blocks = 0;
  for (int i = 0; i < ncomp; ++i)
    blocks += (int64_t)comp[i].h * comp[i].v;
  if (mcux * mcuy * blocks > ((int64_t)(n - at) + 16) * 4)
    bad(s, "JPEG data too short for the dimensions");
  for (int i = 0; i < ncomp; ++i) {
    jcomp *c = &comp[i];
    c->bw = (int)(mcux * c->h), c->bh = (int)(mcuy * c->v);
    c->dw = (w * c->h + hmax - 1) / hmax, c->dh = (h * c->v + vmax - 1) / vmax;
    c->plane = onnxc_rt_alloc((size_t)c->bw * 8 * (size_t)c->bh * 8);
    c->dc = 0;
  }
  jbits b = {s, p, n, at, 0, 0, 0};
  int64_t coef[64];
  for (int64_t my = 0, mcu = 0; my < mcuy; ++my)
    for (int64_t mx = 0; mx < mcux; ++mx, ++mcu) {
      if (restart && mcu > 0 && mcu % restart == 0) {
        /* Byte-align, skip the RSTn marker, reset the predictors. */
        b.count = 0, b.marker_hit = 0;
        while (b.pos + 1 < n && !(p[b.pos] == 0xFF && p[b.pos + 1] >= 0xD0 &&
                                  p[b.pos + 1] <= 0xD7))
          ++b.pos;
        b.pos += 2;
        for (int i = 0; i < ncomp; ++i)
          comp[i].dc = 0;
      }
      for (int i = 0; i < ncomp; ++i) {
        jcomp *c = &comp[i];
        for (int by = 0; by < c->v; ++by)
          for (int bx = 0; bx < c->h; ++bx) {
            memset(coef, 0, sizeof coef);
            int t = jdecode(&b, &dc[c->td]);
            if (t > 11)
              bad(s, "an invalid JPEG DC coefficient");
            c->dc = (int32_t)(c->dc + jextend(jreceive(&b, t), t));
            coef[0] = c->dc;
            for (int k = 1; k < 64;) {
              int rs = jdecode(&b, &ac[c->ta]), r = rs >> 4, sz = rs & 15;
              if (sz == 0) {
                if (r != 15)
                  break;
                k += 16;
                continue;
              }
              k += r;
              if (k > 63)
                bad(s, "an invalid JPEG AC coefficient run");
              coef[zigzag[k]] = jextend(jreceive(&b, sz), sz);
              ++k;
            }
            size_t pw = (size_t)c->bw * 8;
            size_t y0 = (size_t)(my * c->v + by) * 8,
                   x0 = (size_t)(mx * c->h + bx) * 8;
            jidct_islow(coef, qt[c->tq], c->plane + y0 * pw + x0, pw);
          }
      }
    }
  if (ncomp == 1) {
    image im = {h, w, 1, new_pixels(s, h, w, 1)};
    for (int64_t y = 0; y < h; ++y)
      memcpy(im.px + y * w, comp[0].plane + (size_t)y * comp[0].bw * 8,
             (size_t)w);
    return im;
  }
  image im = {h, w, 3, new_pixels(s, h, w, 3)};
  uint8_t *yy = jupsample(s, &comp[0], hmax, vmax, w, h),
          *cb = jupsample(s, &comp[1], hmax, vmax, w, h),
          *cr = jupsample(s, &comp[2], hmax, vmax, w, h);
  /* jdcolor.c's tables: 16-bit fixed point, ONE_HALF rounding. */
  for (int64_t i = 0; i < w * h; ++i) {
    int64_t Y = yy[i], Cb = cb[i] - 128, Cr = cr[i] - 128;
    int64_t r = Y + ((91881 * Cr + 32768) >> 16);
    int64_t g = Y + ((-22554 * Cb + 32768 - 46802 * Cr) >> 16);
    int64_t bl = Y + ((116130 * Cb + 32768) >> 16);
    im.px[3 * i] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
    im.px[3 * i + 1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
    im.px[3 * i + 2] = (uint8_t)(bl < 0 ? 0 : bl > 255 ? 255 : bl);
  }
  return im;
}

