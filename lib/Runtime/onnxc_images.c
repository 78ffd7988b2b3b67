/*===- onnxc_images.c - ImageDecoder: BMP, PNM, TIFF, PNG, JPEG ---------===*
 *
 * onnxc_rt_image_decode decodes an encoded image (ImageDecoder-20's
 * encoded_stream) into an H x W x C uint8 tensor value: C = 3 for RGB or BGR,
 * 1 for Grayscale, what ONNX's reference (PIL's convert("RGB") / ("L"))
 * gives. Formats: BMP (1, 4, 8 bits with a palette, 24 and 32 bits,
 * uncompressed, bottom-up or top-down), PNM (P2, P3, P5, P6 with a maxval up
 * to 255), TIFF (8-bit gray, RGB or RGBA, uncompressed or PackBits, in
 * strips), PNG (every color type and bit depth, not interlaced; the
 * zlib stream inflated here) and baseline JPEG (libjpeg's default decode,
 * bit for bit: see decode_jpeg). Alpha is dropped, as convert("RGB") does;
 * 16-bit samples keep their high byte, but 16-bit gray is clipped at 255
 * (PIL opens it as I;16). Anything else (progressive JPEG, WebP, JPEG 2000,
 * a truncated or inconsistent file) ends the run with a status naming the
 * node and the reason. All buffers are the run's (freed when it ends).
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc_internal.h"

#include <stdint.h>
#include <string.h>

#include "onnxc_images.h"

void onnxc_img_bad(const source *s, const char *why) {
  onnxc_rt_abort(ONNXC_ERROR_RUNTIME, "%s: cannot decode the image: %s",
                 s->node, why);
}

void onnxc_img_check(const source *s, int64_t h, int64_t w, int64_t need) {
  if (h <= 0 || w <= 0 || h > (1 << 20) || w > (1 << 20))
    bad(s, "the dimensions are out of range");
  /* PIL's decompression-bomb limit (2 x Image.MAX_IMAGE_PIXELS). */
  if (h * w > 178956970)
    bad(s, "more pixels than PIL's decompression-bomb limit (178956970)");
  if (need > 0 && (size_t)need > s->n)
    bad(s, "the data is shorter than the dimensions need");
}

uint8_t *onnxc_img_pixels(const source *s, int64_t h, int64_t w, int c) {
  onnxc_img_check(s, h, w, 0);
  return onnxc_rt_alloc((size_t)(h * w * c));
}

static uint32_t le32(const uint8_t *p) {
  return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

/*===--- BMP ---------------------------------------------------------------===*/

static image decode_bmp(const source *s) {
  const uint8_t *p = s->p;
  if (s->n < 26)
    bad(s, "a truncated BMP header");
  uint32_t offset = le32(p + 10), dib = le32(p + 14);
  int64_t w, h;
  unsigned bpp, compression = 0, colors = 0;
  if (dib == 12) {
    w = p[18] | p[19] << 8;
    h = (int16_t)(p[20] | p[21] << 8);
    bpp = p[24] | p[25] << 8;
  } else {
    if (dib < 40 || s->n < 14 + (size_t)dib)
      bad(s, "a truncated BMP header");
    w = (int32_t)le32(p + 18);
    h = (int32_t)le32(p + 22);
    bpp = p[28] | p[29] << 8;
    compression = le32(p + 30);
    colors = le32(p + 46);
  }
  if (compression != 0)
    bad(s, "a compressed BMP (only uncompressed ones are decoded)");
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 24 && bpp != 32)
    bad(s, "a BMP bit depth other than 1, 4, 8, 24 or 32");
  int top_down = h < 0;
  if (top_down)
    h = -h;
  onnxc_img_check(s, h, w, 0);
  const uint8_t *palette = p + 14 + dib;
  unsigned entry = dib == 12 ? 3 : 4;
  if (bpp <= 8 && colors == 0)
    colors = 1u << bpp;
  if (bpp <= 8 && (colors > 256 || (size_t)(palette - p) + colors * entry >
                                        s->n))
    bad(s, "a truncated BMP palette");
  size_t stride = (((size_t)w * bpp + 31) / 32) * 4;
  if (offset > s->n || (size_t)h * stride > s->n - offset)
    bad(s, "truncated BMP pixels");
  image im = {h, w, 3, new_pixels(s, h, w, 3)};
  for (int64_t y = 0; y < h; ++y) {
    const uint8_t *row = p + offset + (size_t)(top_down ? y : h - 1 - y) * stride;
    uint8_t *out = im.px + y * w * 3;
    for (int64_t x = 0; x < w; ++x, out += 3) {
      if (bpp >= 24) {
        const uint8_t *q = row + x * (bpp / 8);
        out[0] = q[2], out[1] = q[1], out[2] = q[0];
        continue;
      }
      unsigned bit = (unsigned)(x * bpp), index =
          (row[bit / 8] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1);
      if (index >= colors)
        bad(s, "a BMP pixel outside the palette");
      const uint8_t *c = palette + index * entry;
      out[0] = c[2], out[1] = c[1], out[2] = c[0];
    }
  }
  return im;
}

/*===--- PNM ---------------------------------------------------------------===*/

/* The next unsigned decimal of a PNM header or ASCII body (# comments). */
static long pnm_number(const source *s, size_t *at) {
  for (;;) {
    while (*at < s->n && (s->p[*at] == ' ' || s->p[*at] == '\t' ||
                          s->p[*at] == '\n' || s->p[*at] == '\r'))
      ++*at;
    if (*at < s->n && s->p[*at] == '#') {
      while (*at < s->n && s->p[*at] != '\n')
        ++*at;
      continue;
    }
    break;
  }
  if (*at >= s->n || s->p[*at] < '0' || s->p[*at] > '9')
    bad(s, "a malformed PNM header or body");
  long v = 0;
  while (*at < s->n && s->p[*at] >= '0' && s->p[*at] <= '9' && v < 100000000)
    v = v * 10 + (s->p[(*at)++] - '0');
  return v;
}

/* v / maxval * 255 rounded half to even (Pillow's round()). */
static uint8_t pnm_scale(long v, long maxval) {
  long num = v * 255, k = num / maxval, r = num % maxval;
  return (uint8_t)(2 * r > maxval || (2 * r == maxval && (k & 1)) ? k + 1 : k);
}

static image decode_pnm(const source *s) {
  char kind = (char)s->p[1];
  int channels = kind == '3' || kind == '6' ? 3 : 1;
  size_t at = 2;
  long w = pnm_number(s, &at), h = pnm_number(s, &at),
       maxval = pnm_number(s, &at);
  if (maxval < 1 || maxval > 255)
    bad(s, "a PNM maxval outside 1..255");
  onnxc_img_check(s, h, w,
                  h * w * channels * (kind == '5' || kind == '6' ? 1 : 2) - 1);
  image im = {h, w, channels, new_pixels(s, h, w, channels)};
  size_t count = (size_t)h * (size_t)w * (size_t)channels;
  if (kind == '5' || kind == '6') {
    ++at; /* the single whitespace after maxval */
    if (at > s->n || count > s->n - at)
      bad(s, "truncated PNM pixels");
    for (size_t i = 0; i < count; ++i)
      im.px[i] = pnm_scale(s->p[at + i] > maxval ? maxval : s->p[at + i],
                           maxval);
  } else {
    for (size_t i = 0; i < count; ++i) {
      long v = pnm_number(s, &at);
      im.px[i] = pnm_scale(v > maxval ? maxval : v, maxval);
    }
  }
  return im;
}

/*===--- TIFF --------------------------------------------------------------===*/

static image decode_tiff(const source *s) {
  const uint8_t *p = s->p;
  int big = p[0] == 'M';
  size_t n = s->n;
#define U16(q) (big ? (unsigned)((q)[0] << 8 | (q)[1]) : (unsigned)((q)[0] | (q)[1] << 8))
#define U32(q) (big ? be32(q) : le32(q))
  uint32_t ifd = U32(p + 4);
  if (ifd > n - 2)
    bad(s, "a TIFF directory outside the file");
  unsigned entries = U16(p + ifd);
  if ((size_t)ifd + 2 + entries * 12u > n)
    bad(s, "a truncated TIFF directory");
  uint32_t w = 0, h = 0, compression = 1, photometric = 2, spp = 1, bps = 8,
           rows_per_strip = UINT32_MAX, planar = 1;
  uint32_t offsets_at = 0, counts_at = 0, strips = 0, counts_type = 4,
           offsets_type = 4;
  for (unsigned e = 0; e < entries; ++e) {
    const uint8_t *q = p + ifd + 2 + e * 12;
    unsigned tag = U16(q), type = U16(q + 2);
    uint32_t count = U32(q + 4);
    uint32_t value = type == 3 ? U16(q + 8) : U32(q + 8);
    switch (tag) {
    case 256: w = value; break;
    case 257: h = value; break;
    case 258:
      /* Bits per sample: one per sample; all must be 8. */
      if (count == 1)
        bps = value;
      else if (count > 2 && U32(q + 8) <= n && count <= (n - U32(q + 8)) / 2)
        for (uint32_t i = 0; i < count; ++i)
          if (U16(p + U32(q + 8) + 2 * i) != 8)
            bps = 0;
      break;
    case 259: compression = value; break;
    case 262: photometric = value; break;
    case 273: /* inline when the values fit in the entry's 4 bytes */
      offsets_at = count * (type == 3 ? 2 : 4) <= 4 ? ifd + 2 + e * 12 + 8
                                                    : U32(q + 8);
      strips = count, offsets_type = type; break;
    case 277: spp = value; break;
    case 278: rows_per_strip = value; break;
    case 279:
      counts_at = count * (type == 3 ? 2 : 4) <= 4 ? ifd + 2 + e * 12 + 8
                                                   : U32(q + 8);
      counts_type = type; break;
    case 284: planar = value; break;
    default: break;
    }
  }
  if (bps != 8)
    bad(s, "a TIFF with samples of other than 8 bits");
  if (compression != 1 && compression != 32773)
    bad(s, "a compressed TIFF other than PackBits");
  if (planar != 1 || (spp != 1 && spp != 3 && spp != 4) ||
      (photometric != 0 && photometric != 1 && photometric != 2) ||
      (spp >= 3) != (photometric == 2))
    bad(s, "a TIFF layout other than chunky gray, RGB or RGBA");
  if (!strips || offsets_at > n || counts_at > n ||
      (size_t)strips * 4 > n - offsets_at || (size_t)strips * 4 > n - counts_at)
    bad(s, "TIFF strips outside the file");
  int channels = spp == 1 ? 1 : 3;
  onnxc_img_check(s, h, w, 0);
  uint64_t stored = 0;
  for (uint32_t i = 0; i < strips; ++i)
    stored += counts_type == 3 ? U16(p + counts_at + 2 * i)
                               : U32(p + counts_at + 4 * i);
  if (stored * (compression == 1 ? 1 : 128) < (uint64_t)w * spp * h)
    bad(s, "TIFF strips shorter than the dimensions need");
  image im = {h, w, channels, new_pixels(s, h, w, channels)};
  size_t row = (size_t)w * spp, total = row * h, got = 0;
  uint8_t *raw = onnxc_rt_alloc(total ? total : 1);
  (void)rows_per_strip;
  for (uint32_t i = 0; i < strips && got < total; ++i) {
    uint32_t off = offsets_type == 3 ? U16(p + offsets_at + 2 * i)
                                     : U32(p + offsets_at + 4 * i);
    uint32_t len = counts_type == 3 ? U16(p + counts_at + 2 * i)
                                    : U32(p + counts_at + 4 * i);
    if (off > n || len > n - off)
      bad(s, "a TIFF strip outside the file");
    const uint8_t *q = p + off, *end = q + len;
    if (compression == 1) {
      size_t take = len < total - got ? len : total - got;
      memcpy(raw + got, q, take);
      got += take;
      continue;
    }
    while (q < end && got < total) { /* PackBits */
      int8_t c = (int8_t)*q++;
      if (c >= 0) {
        size_t k = (size_t)c + 1;
        if ((size_t)(end - q) < k || total - got < k)
          bad(s, "a corrupt PackBits strip");
        memcpy(raw + got, q, k), q += k, got += k;
      } else if (c != -128) {
        size_t k = (size_t)(1 - c);
        if (q >= end || total - got < k)
          bad(s, "a corrupt PackBits strip");
        memset(raw + got, *q++, k), got += k;
      }
    }
  }
  if (got < total)
    bad(s, "truncated TIFF pixels");
  for (size_t i = 0, j = 0; i < total; i += spp)
    for (int c = 0; c < channels; ++c)
      im.px[j++] = photometric == 0 ? (uint8_t)(255 - raw[i + c]) : raw[i + c];
#undef U16
#undef U32
  return im;
}

/*===--- PNG (with inflate) ------------------------------------------------===*/

typedef struct {
  const source *s;
  const uint8_t *in;
  size_t n, pos;
  uint32_t bits;
  int count;
  uint8_t *out;
  size_t cap, len;
} inflater;

static unsigned getbits(inflater *z, int need) {
  while (z->count < need) {
    if (z->pos >= z->n)
      bad(z->s, "a truncated PNG data stream");
    z->bits |= (uint32_t)z->in[z->pos++] << z->count;
    z->count += 8;
  }
  unsigned v = z->bits & ((1u << need) - 1);
  z->bits >>= need;
  z->count -= need;
  return v;
}

typedef struct {
  short count[16];  /* codes per length */
  short symbol[320]; /* symbols by code */
} huffman;

static void build(inflater *z, huffman *h, const short *lengths, int n) {
  short offs[16];
  memset(h->count, 0, sizeof h->count);
  for (int i = 0; i < n; ++i)
    h->count[lengths[i]]++;
  h->count[0] = 0;
  int left = 1;
  for (int len = 1; len < 16; ++len) {
    left = left * 2 - h->count[len];
    if (left < 0)
      bad(z->s, "an over-subscribed Huffman code in the PNG data");
  }
  offs[1] = 0;
  for (int len = 1; len < 15; ++len)
    offs[len + 1] = (short)(offs[len] + h->count[len]);
  for (int i = 0; i < n; ++i)
    if (lengths[i])
      h->symbol[offs[lengths[i]]++] = (short)i;
}

static int decode_symbol(inflater *z, const huffman *h) {
  int code = 0, first = 0, index = 0;
  for (int len = 1; len < 16; ++len) {
    code |= (int)getbits(z, 1);
    int count = h->count[len];
    if (code - count < first)
      return h->symbol[index + (code - first)];
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  bad(z->s, "an invalid Huffman code in the PNG data");
}

static void put(inflater *z, uint8_t b) {
  if (z->len == z->cap)
    bad(z->s, "more PNG data than the image holds");
  z->out[z->len++] = b;
}

static void codes(inflater *z, const huffman *lit, const huffman *dist) {
  static const short lbase[29] = {3,  4,  5,  6,  7,  8,  9,  10,  11,  13,
                                  15, 17, 19, 23, 27, 31, 35, 43,  51,  59,
                                  67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const short lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  static const short dbase[30] = {
      1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,
      97,  129, 193, 257, 385, 513,  769,  1025, 1537, 2049, 3073, 4097, 6145,
      8193, 12289, 16385, 24577};
  static const short dext[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
  for (;;) {
    int sym = decode_symbol(z, lit);
    if (sym < 256) {
      put(z, (uint8_t)sym);
      continue;
    }
    if (sym == 256)
      return;
    sym -= 257;
    if (sym >= 29)
      bad(z->s, "an invalid length code in the PNG data");
    size_t len = (size_t)lbase[sym] + getbits(z, lext[sym]);
    int d = decode_symbol(z, dist);
    if (d >= 30)
      bad(z->s, "an invalid distance code in the PNG data");
    size_t back = (size_t)dbase[d] + getbits(z, dext[d]);
    if (back > z->len)
      bad(z->s, "a distance too far back in the PNG data");
    for (size_t i = 0; i < len; ++i)
      put(z, z->out[z->len - back]);
  }
}

/* Inflates the zlib stream `in` into exactly `cap` bytes at `out`. */
static void inflate_zlib(const source *s, const uint8_t *in, size_t n,
                         uint8_t *out, size_t cap) {
  if (n < 2 || (in[0] & 15) != 8 || ((in[0] << 8) | in[1]) % 31 || in[1] & 32)
    bad(s, "a PNG data stream that is not zlib deflate");
  inflater z = {s, in, n, 2, 0, 0, out, cap, 0};
  int last;
  do {
    last = (int)getbits(&z, 1);
    unsigned type = getbits(&z, 2);
    if (type == 0) {
      z.bits = 0, z.count = 0;
      if (z.pos + 4 > z.n)
        bad(s, "a truncated PNG data stream");
      unsigned len = z.in[z.pos] | z.in[z.pos + 1] << 8;
      z.pos += 4;
      if (len > z.n - z.pos)
        bad(s, "a truncated PNG data stream");
      for (unsigned i = 0; i < len; ++i)
        put(&z, z.in[z.pos++]);
    } else if (type == 1 || type == 2) {
      huffman lit, dist;
      short lengths[320];
      int nlen = 288, ndist = 30;
      if (type == 1) {
        for (int i = 0; i < 288; ++i)
          lengths[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
        for (int i = 0; i < 30; ++i)
          lengths[288 + i] = 5;
      } else {
        static const short order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                        11, 4,  12, 3, 13, 2, 14, 1, 15};
        nlen = (int)getbits(&z, 5) + 257;
        ndist = (int)getbits(&z, 5) + 1;
        int ncode = (int)getbits(&z, 4) + 4;
        if (nlen > 286 || ndist > 30)
          bad(s, "an invalid dynamic block in the PNG data");
        short cl[19] = {0};
        for (int i = 0; i < ncode; ++i)
          cl[order[i]] = (short)getbits(&z, 3);
        huffman lencode;
        build(&z, &lencode, cl, 19);
        for (int i = 0; i < nlen + ndist;) {
          int sym = decode_symbol(&z, &lencode);
          if (sym < 16) {
            lengths[i++] = (short)sym;
            continue;
          }
          short value = 0;
          int rep;
          if (sym == 16) {
            if (i == 0)
              bad(s, "an invalid dynamic block in the PNG data");
            value = lengths[i - 1];
            rep = 3 + (int)getbits(&z, 2);
          } else if (sym == 17) {
            rep = 3 + (int)getbits(&z, 3);
          } else {
            rep = 11 + (int)getbits(&z, 7);
          }
          if (i + rep > nlen + ndist)
            bad(s, "an invalid dynamic block in the PNG data");
          while (rep--)
            lengths[i++] = value;
        }
      }
      build(&z, &lit, lengths, nlen);
      build(&z, &dist, lengths + nlen, ndist);
      codes(&z, &lit, &dist);
    } else {
      bad(s, "an invalid block type in the PNG data");
    }
  } while (!last);
  if (z.len != cap)
    bad(s, "less PNG data than the image holds");
}

static int paeth(int a, int b, int c) {
  int p = a + b - c, pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p,
      pc = p > c ? p - c : c - p;
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static image decode_png(const source *s) {
  const uint8_t *p = s->p;
  size_t at = 8;
  uint32_t w = 0, h = 0;
  unsigned depth = 0, type = 0, interlace = 0;
  const uint8_t *palette = NULL;
  size_t palette_len = 0, idat_len = 0;
  /* The IDAT chunks' total length, then their bytes gathered. */
  for (size_t q = 8; q + 8 <= s->n;) {
    uint32_t len = be32(p + q);
    if (len > s->n - q - 12)
      bad(s, "a truncated PNG chunk");
    if (!memcmp(p + q + 4, "IDAT", 4))
      idat_len += len;
    q += 12 + (size_t)len;
  }
  uint8_t *idat = onnxc_rt_alloc(idat_len ? idat_len : 1);
  size_t gathered = 0;
  while (at + 8 <= s->n) {
    uint32_t len = be32(p + at);
    const uint8_t *kind = p + at + 4, *data = p + at + 8;
    if (!memcmp(kind, "IHDR", 4) && len >= 13) {
      w = be32(data), h = be32(data + 4);
      depth = data[8], type = data[9], interlace = data[12];
    } else if (!memcmp(kind, "PLTE", 4)) {
      palette = data, palette_len = len / 3;
    } else if (!memcmp(kind, "IDAT", 4)) {
      memcpy(idat + gathered, data, len);
      gathered += len;
    } else if (!memcmp(kind, "IEND", 4)) {
      break;
    }
    at += 12 + (size_t)len;
  }
  if (interlace)
    bad(s, "an interlaced PNG (only non-interlaced ones are decoded)");
  static const int samples_of[7] = {1, 0, 3, 1, 2, 0, 4};
  if (type > 6 || !samples_of[type] ||
      (depth != 1 && depth != 2 && depth != 4 && depth != 8 && depth != 16) ||
      ((type == 2 || type == 4 || type == 6) && depth < 8) ||
      (type == 3 && depth > 8))
    bad(s, "an invalid PNG color type or bit depth");
  if (type == 3 && !palette)
    bad(s, "a palette PNG without a palette");
  int samples = samples_of[type];
  size_t bits = (size_t)samples * depth, pixel = (bits + 7) / 8;
  int channels = type == 0 || type == 4 ? 1 : 3;
  onnxc_img_check(s, h, w, 0);
  size_t stride = ((size_t)w * bits + 7) / 8;
  if ((uint64_t)(stride + 1) * h > (uint64_t)gathered * 1032 + 64)
    bad(s, "PNG data too short for the dimensions");
  image im = {h, w, channels, new_pixels(s, h, w, channels)};
  uint8_t *raw = onnxc_rt_alloc((stride + 1) * h);
  inflate_zlib(s, idat, gathered, raw, (stride + 1) * h);
  uint8_t *prev = NULL;
  for (uint32_t y = 0; y < h; ++y) {
    uint8_t *row = raw + (size_t)y * (stride + 1), filter = row[0];
    uint8_t *cur = row + 1;
    for (size_t i = 0; i < stride; ++i) {
      int a = i >= pixel ? cur[i - pixel] : 0, b = prev ? prev[i] : 0,
          c = prev && i >= pixel ? prev[i - pixel] : 0;
      switch (filter) {
      case 0: break;
      case 1: cur[i] = (uint8_t)(cur[i] + a); break;
      case 2: cur[i] = (uint8_t)(cur[i] + b); break;
      case 3: cur[i] = (uint8_t)(cur[i] + ((a + b) >> 1)); break;
      case 4: cur[i] = (uint8_t)(cur[i] + paeth(a, b, c)); break;
      default: bad(s, "an invalid PNG row filter");
      }
    }
    prev = cur;
    uint8_t *out = im.px + (size_t)y * w * channels;
    for (uint32_t x = 0; x < w; ++x) {
      /* Sample k of pixel x, scaled to 8 bits (16 bits: the high byte). */
      unsigned v[4];
      for (int k = 0; k < samples; ++k) {
        size_t bit = ((size_t)x * samples + k) * depth;
        if (depth == 16)
          v[k] = cur[bit / 8];
        else if (depth == 8)
          v[k] = cur[bit / 8];
        else
          v[k] = (cur[bit / 8] >> (8 - depth - bit % 8)) & ((1u << depth) - 1);
      }
      if (type == 3) {
        if (v[0] >= palette_len)
          bad(s, "a PNG pixel outside the palette");
        memcpy(out, palette + 3 * v[0], 3);
      } else if (channels == 1 && depth == 16 && type == 0) {
        /* PIL opens it as I;16 and converts by clipping at 255. */
        unsigned full = cur[((size_t)x * 2)] << 8 | cur[(size_t)x * 2 + 1];
        out[0] = (uint8_t)(full > 255 ? 255 : full);
      } else if (channels == 1) {
        out[0] = (uint8_t)(depth < 8 ? v[0] * 255 / ((1u << depth) - 1) : v[0]);
      } else {
        out[0] = (uint8_t)v[0], out[1] = (uint8_t)v[1], out[2] = (uint8_t)v[2];
      }
      out += channels;
    }
  }
  return im;
}

/*===--- Entry -------------------------------------------------------------===*/

/* format: 0 RGB, 1 BGR, 2 Grayscale. `data` is the encoded_stream (a 1-D
 * uint8 memref: its rank and descriptor), `node` describes the node for
 * messages. */
void *onnxc_rt_image_decode(int32_t format, const char *node, int64_t rank,
                            void *descriptor) {
  const int64_t *d = descriptor;
  const uint8_t *base;
  memcpy(&base, &d[1], sizeof base);
  source s = {base + d[2], rank == 1 ? (size_t)d[3] : 0, node};
  if (rank != 1 || (d[3] > 1 && d[4] != 1))
    bad(&s, "the encoded stream is not a contiguous 1-D tensor");
  const uint8_t *p = s.p;
  image im;
  if (s.n >= 2 && p[0] == 'B' && p[1] == 'M')
    im = decode_bmp(&s);
  else if (s.n >= 3 && p[0] == 'P' &&
           (p[1] == '2' || p[1] == '3' || p[1] == '5' || p[1] == '6'))
    im = decode_pnm(&s);
  else if (s.n >= 8 && ((p[0] == 'I' && p[1] == 'I' && p[2] == 42 && !p[3]) ||
                        (p[0] == 'M' && p[1] == 'M' && !p[2] && p[3] == 42)))
    im = decode_tiff(&s);
  else if (s.n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8))
    im = decode_png(&s);
  else if (s.n >= 3 && p[0] == 0xFF && p[1] == 0xD8)
    im = onnxc_img_decode_jpeg(&s);
  else if (s.n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4))
    bad(&s, "WebP is not supported (BMP, PNM, TIFF, PNG and baseline JPEG "
            "are)");
  else
    bad(&s, "an unknown or unsupported image format (BMP, PNM, TIFF, PNG and "
            "baseline JPEG are decoded)");
  int c = format == 2 ? 1 : 3;
  size_t count = (size_t)(im.h * im.w);
  uint8_t *out = onnxc_rt_alloc(count * (size_t)c);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t *q = im.px + i * (size_t)im.channels;
    if (c == 1) {
      /* PIL's convert("L"): L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16. */
      out[i] = im.channels == 1
                   ? q[0]
                   : (uint8_t)((q[0] * 19595u + q[1] * 38470u + q[2] * 7471u +
                                0x8000u) >> 16);
      continue;
    }
    uint8_t r = q[0], g = im.channels == 1 ? q[0] : q[1],
            b = im.channels == 1 ? q[0] : q[2];
    out[3 * i] = format == 1 ? b : r;
    out[3 * i + 1] = g;
    out[3 * i + 2] = format == 1 ? r : b;
  }
  int64_t shape[3] = {im.h, im.w, c};
  return onnxc_rt_box_contiguous(ONNXC_UINT8, 3, shape, out);
}
