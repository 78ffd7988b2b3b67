/* onnxc_ukernels.c - Hand-written kernels the compiled code calls.
 *
 * onnxc_uk_conv2d_nchwc_f32: a direct 2-D convolution in the channel-blocked
 * NCHWc layout (16 channels innermost), as onnxc-conv-nchwc emits it:
 *
 *   out[n][fb][oh][ow][fi] (+)= sum over cb, kh, kw, ci of
 *       in[n][cb][oh*SH + kh*DH][ow*SW + kw*DW][ci] * w[fb][cb][kh][kw][ci][fi]
 *
 * The input is already padded; the filters are packed contiguously. A
 * register tile holds FB blocks of 16 filters x P output positions of one
 * row; per input channel it loads FB filter vectors and broadcasts P input
 * values (FB x P fused multiply-adds). The filters of a block of input
 * channels (about 32 KiB) stay in L1 across a row's positions and across
 * the rows of a task; a task is one group of filter blocks x a few output
 * rows, and the tasks run on the runtime's threads.
 *
 * The AVX-512 kernels are chosen at run time (cpuid); elsewhere a portable
 * loop computes the same sums.
 */
#include "onnxc_ukernels.h"

#include <cpuid.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

typedef void (*onnxc_task)(void *ctx, int64_t begin, int64_t end);
void onnxc_rt_parallel_for(onnxc_task fn, void *ctx, int64_t n);

enum {
  INIT_ACCUMULATE = ONNXC_CONV_ACCUMULATE,
  INIT_BIAS = ONNXC_CONV_BIAS,
  INIT_ZERO = ONNXC_CONV_ZERO
};

typedef struct {
  const float *in;
  int64_t in_sn, in_scb, in_sh; /* strides in floats; w: 16, c: 1 */
  const float *w;               /* [FB][CB][KH][KW][16 c][16 f] */
  const float *bias;            /* [FB * 16] (INIT_BIAS) */
  float *out;
  int64_t out_sn, out_sfb, out_sh;
  int64_t n, cb, fb, kh, kw, oh, ow, sh, sw, dh, dw;
  int64_t init, act; /* act: clamp the result to [lo, hi] */
  float lo, hi;
  int64_t rows;     /* output rows per task */
  int64_t cb_chunk; /* input-channel blocks per pass over a row */
  int64_t groups;   /* groups of up to 4 filter blocks */
  int64_t row_tasks;
  int64_t cols;     /* output columns per task */
  int64_t col_tasks;
  int64_t planar;   /* NCHW input (see tile) */
} conv_args;

/* ---- Portable kernel (one output vector of 16 at a time). ---- */

static void conv_rows_portable(const conv_args *a, int64_t n, int64_t fb0,
                               int64_t fbs, int64_t oh0, int64_t oh1,
                               int64_t ow0, int64_t ow1) {
  int64_t ps = a->planar ? 1 : 16, ci_n = a->planar ? 1 : 16,
          tap = a->planar ? 16 : 256;
  int64_t wfb = a->cb * a->kh * a->kw * tap;
  for (int64_t f = fb0; f < fb0 + fbs; ++f)
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        float *o = a->out + n * a->out_sn + f * a->out_sfb + oh * a->out_sh +
                   ow * 16;
        float acc[16];
        for (int i = 0; i < 16; ++i)
          acc[i] = a->init == INIT_BIAS   ? a->bias[f * 16 + i]
                   : a->init == INIT_ZERO ? 0.0f
                                          : o[i];
        for (int64_t c = 0; c < a->cb; ++c)
          for (int64_t y = 0; y < a->kh; ++y)
            for (int64_t x = 0; x < a->kw; ++x) {
              const float *ip = a->in + n * a->in_sn + c * a->in_scb +
                                (oh * a->sh + y * a->dh) * a->in_sh +
                                (ow * a->sw + x * a->dw) * ps;
              const float *wp =
                  a->w + f * wfb + ((c * a->kh + y) * a->kw + x) * tap;
              for (int64_t ci = 0; ci < ci_n; ++ci)
                for (int i = 0; i < 16; ++i)
                  acc[i] += ip[ci] * wp[ci * 16 + i];
            }
        for (int i = 0; i < 16; ++i)
          o[i] = !a->act         ? acc[i]
                 : acc[i] < a->lo ? a->lo
                 : acc[i] > a->hi ? a->hi
                                  : acc[i];
      }
}

/* ---- AVX-512 kernels. ---- */

#if defined(__x86_64__)
#define AVX512 __attribute__((target("avx512f,fma"), always_inline)) static inline
#define AVX512_FN __attribute__((target("avx512f,fma"))) static

/* One register tile: FB filter blocks x P positions of output row `oh`,
 * starting at column ow0, over input-channel blocks [c0, c1). SW is 1, 2
 * or 0 (0: the stride is a->sw, positions addressed one by one). PLANAR:
 * the input is NCHW (a first conv's few channels): one channel per "block",
 * positions 1 apart, filters F/16 x C x KH x KW x 16. */
AVX512 void tile(const conv_args *a, int64_t n, int64_t fb0, int64_t oh,
                 int64_t ow0, int64_t c0, int64_t c1, const int FB, const int P,
                 const int SW, const int PLANAR) {
  /* Floats between positions, channels per block, floats per filter tap. */
  const int PS = PLANAR ? 1 : 16, CI = PLANAR ? 1 : 16,
            TAP = PLANAR ? 16 : 256;
  __m512 acc[4][14];
  int64_t sw = SW ? SW : a->sw;
  float *o = a->out + n * a->out_sn + fb0 * a->out_sfb + oh * a->out_sh +
             ow0 * 16;
  _Pragma("clang loop unroll(full)")
  for (int f = 0; f < FB; ++f)
    _Pragma("clang loop unroll(full)")
    for (int p = 0; p < P; ++p) {
      if (c0 > 0 || a->init == INIT_ACCUMULATE)
        acc[f][p] = _mm512_loadu_ps(o + f * a->out_sfb + p * 16);
      else if (a->init == INIT_BIAS)
        acc[f][p] = _mm512_loadu_ps(a->bias + (fb0 + f) * 16);
      else
        acc[f][p] = _mm512_setzero_ps();
    }
  int64_t wfb = a->cb * a->kh * a->kw * TAP;
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t y = 0; y < a->kh; ++y) {
      const float *row = a->in + n * a->in_sn + c * a->in_scb +
                         (oh * a->sh + y * a->dh) * a->in_sh +
                         ow0 * sw * PS;
      const float *wrow = a->w + fb0 * wfb + (c * a->kh + y) * a->kw * TAP;
      for (int64_t x = 0; x < a->kw; ++x) {
        const float *ip = row + x * a->dw * PS;
        const float *wp = wrow + x * TAP;
        for (int ci = 0; ci < CI; ++ci) {
          __m512 wv[4];
          _Pragma("clang loop unroll(full)")
          for (int f = 0; f < FB; ++f)
            wv[f] = _mm512_loadu_ps(wp + f * wfb + ci * 16);
          _Pragma("clang loop unroll(full)")
          for (int p = 0; p < P; ++p) {
            __m512 v = _mm512_set1_ps(ip[p * sw * PS + ci]);
            _Pragma("clang loop unroll(full)")
            for (int f = 0; f < FB; ++f)
              acc[f][p] = _mm512_fmadd_ps(v, wv[f], acc[f][p]);
          }
        }
      }
    }
  int last = c1 == a->cb;
  _Pragma("clang loop unroll(full)")
  for (int f = 0; f < FB; ++f)
    _Pragma("clang loop unroll(full)")
    for (int p = 0; p < P; ++p) {
      __m512 v = acc[f][p];
      /* max(lo, v) and min(hi, v) return v where v is NaN, as
       * arith.maximumf and minimumf do. */
      if (last && a->act)
        v = _mm512_min_ps(_mm512_set1_ps(a->hi),
                          _mm512_max_ps(_mm512_set1_ps(a->lo), v));
      _mm512_storeu_ps(o + f * a->out_sfb + p * 16, v);
    }
}

typedef void (*tile_fn)(const conv_args *, int64_t, int64_t, int64_t, int64_t,
                        int64_t, int64_t);
#define TILE(FB, P, SW)                                                        \
  AVX512_FN void tile_##FB##_##P##_##SW(const conv_args *a, int64_t n,         \
                                        int64_t fb0, int64_t oh, int64_t ow0,  \
                                        int64_t c0, int64_t c1) {              \
    tile(a, n, fb0, oh, ow0, c0, c1, FB, P, SW, 0);                           \
  }
#define PLANAR_TILE(FB, P, SW)                                                 \
  AVX512_FN void planar_##FB##_##P##_##SW(const conv_args *a, int64_t n,       \
                                          int64_t fb0, int64_t oh,             \
                                          int64_t ow0, int64_t c0,             \
                                          int64_t c1) {                        \
    tile(a, n, fb0, oh, ow0, c0, c1, FB, P, SW, 1);                           \
  }
#define TILES_7(K, FB, SW)                                                     \
  K(FB, 1, SW) K(FB, 2, SW) K(FB, 3, SW) K(FB, 4, SW) K(FB, 5, SW)            \
  K(FB, 6, SW) K(FB, 7, SW)
#define TILES_12(K, FB, SW)                                                    \
  TILES_7(K, FB, SW) K(FB, 8, SW) K(FB, 9, SW) K(FB, 10, SW) K(FB, 11, SW)    \
  K(FB, 12, SW)
#define TABLE_7(N, FB, SW)                                                     \
  {N##_##FB##_1_##SW, N##_##FB##_2_##SW, N##_##FB##_3_##SW,                    \
   N##_##FB##_4_##SW, N##_##FB##_5_##SW, N##_##FB##_6_##SW,                    \
   N##_##FB##_7_##SW}
#define TABLE_12(N, FB, SW)                                                    \
  {N##_##FB##_1_##SW,  N##_##FB##_2_##SW,  N##_##FB##_3_##SW,                  \
   N##_##FB##_4_##SW,  N##_##FB##_5_##SW,  N##_##FB##_6_##SW,                  \
   N##_##FB##_7_##SW,  N##_##FB##_8_##SW,  N##_##FB##_9_##SW,                  \
   N##_##FB##_10_##SW, N##_##FB##_11_##SW, N##_##FB##_12_##SW}
#define ALL_TILES(K)                                                           \
  TILES_7(K, 4, 1) TILES_7(K, 3, 1) TILES_12(K, 2, 1) TILES_12(K, 1, 1)       \
  TILES_7(K, 4, 2) TILES_7(K, 3, 2) TILES_12(K, 2, 2) TILES_12(K, 1, 2)       \
  K(4, 1, 0) K(3, 1, 0) K(2, 1, 0) K(1, 1, 0)
#define TABLES(N, SW)                                                          \
  {{0}, TABLE_12(N, 1, SW), TABLE_12(N, 2, SW), TABLE_7(N, 3, SW),             \
   TABLE_7(N, 4, SW)}

ALL_TILES(TILE)
ALL_TILES(PLANAR_TILE)

/* Widest tile per filter-block count: 12, 24, 21 and 24 accumulators (with
 * the filter vectors and a broadcast, at most 29 of the 32 registers). */
static const int kMaxP[5] = {0, 12, 12, 7, 6};
/* [planar][filter blocks][width - 1] */
static const tile_fn kTiles1[2][5][12] = {TABLES(tile, 1), TABLES(planar, 1)};
static const tile_fn kTiles2[2][5][12] = {TABLES(tile, 2), TABLES(planar, 2)};
static const tile_fn kTilesAny[2][5] = {
    {0, tile_1_1_0, tile_2_1_0, tile_3_1_0, tile_4_1_0},
    {0, planar_1_1_0, planar_2_1_0, planar_3_1_0, planar_4_1_0}};

static void conv_rows_avx512(const conv_args *a, int64_t n, int64_t fb0,
                             int64_t fbs, int64_t oh0, int64_t oh1,
                             int64_t ow0, int64_t ow1) {
  const tile_fn *table = a->sw == 1   ? kTiles1[a->planar][fbs]
                         : a->sw == 2 ? kTiles2[a->planar][fbs]
                                      : 0;
  int pmax = table ? kMaxP[fbs] : 1;
  for (int64_t c0 = 0; c0 < a->cb; c0 += a->cb_chunk) {
    int64_t c1 = c0 + a->cb_chunk < a->cb ? c0 + a->cb_chunk : a->cb;
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1;) {
        /* Tiles of balanced widths (7 columns: 4 + 3, not 6 + 1). */
        int64_t left = ow1 - ow, tiles = (left + pmax - 1) / pmax;
        int64_t p = (left + tiles - 1) / tiles;
        tile_fn fn = table ? table[p - 1] : kTilesAny[a->planar][fbs];
        fn(a, n, fb0, oh, ow, c0, c1);
        ow += table ? p : 1;
      }
  }
}

int onnxc_uk_force_portable;

static int has_avx512(void) {
  static int known = -1;
  if (onnxc_uk_force_portable)
    return 0;
  int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (v >= 0)
    return v;
  unsigned eax, ebx, ecx, edx;
  v = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_OSXSAVE) &&
      (ecx & bit_FMA) && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) &&
      (ebx & bit_AVX512F)) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    v = (lo & 0xe6) == 0xe6; /* XMM, YMM and ZMM state enabled by the OS */
  }
  __atomic_store_n(&known, v, __ATOMIC_RELAXED);
  return v;
}
#endif

static void conv_task(void *ctx, int64_t begin, int64_t end) {
  const conv_args *a = (const conv_args *)ctx;
  for (int64_t t = begin; t < end; ++t) {
    /* Tasks in the order (n, filter group, row block, column block). */
    int64_t ct = t % a->col_tasks, rt = (t / a->col_tasks) % a->row_tasks,
            g = (t / (a->col_tasks * a->row_tasks)) % a->groups,
            n = t / (a->col_tasks * a->row_tasks * a->groups);
    int64_t fb0 = g * 4, fbs = a->fb - fb0 < 4 ? a->fb - fb0 : 4;
    int64_t oh0 = rt * a->rows,
            oh1 = oh0 + a->rows < a->oh ? oh0 + a->rows : a->oh;
    int64_t ow0 = ct * a->cols,
            ow1 = ow0 + a->cols < a->ow ? ow0 + a->cols : a->ow;
#if defined(__x86_64__)
    if (has_avx512()) {
      conv_rows_avx512(a, n, fb0, fbs, oh0, oh1, ow0, ow1);
      continue;
    }
#endif
    conv_rows_portable(a, n, fb0, fbs, oh0, oh1, ow0, ow1);
  }
}

/* Splits the conv `a` (sizes, strides and operands set) into tasks and runs
 * them on the threads. `in_w`: the input's width. */
static void run_conv(conv_args *a, int64_t in_w) {
  int64_t n = a->n, fb = a->fb, kh = a->kh, kw = a->kw, oh = a->oh,
          ow = a->ow;
  if (n <= 0 || fb <= 0 || oh <= 0 || ow <= 0 || a->cb <= 0)
    return;
  /* Filters of a pass over a row: about 32 KiB (4 blocks x KH x KW KiB per
   * input-channel block); a planar input's few channels in one pass. */
  int64_t per_cb = 4 * kh * kw;
  a->cb_chunk = a->planar ? a->cb : per_cb >= 32 ? 1 : 32 / per_cb;
  if (a->cb_chunk > a->cb)
    a->cb_chunk = a->cb;
  if (a->cb_chunk < 1)
    a->cb_chunk = 1;
  a->groups = (fb + 3) / 4;
  int64_t per_image = n * a->groups;
  /* A 1 x 1 conv of stride 1 whose input and output rows are contiguous
   * (no padding): its positions are one long row, cut into whole tiles of
   * 6 (a 14 x 14 image: 32 x 6 + 4, not 14 rows of 5 + 5 + 4). */
  int64_t ps = a->planar ? 1 : 16;
  if (kh == 1 && kw == 1 && a->sh == 1 && a->sw == 1 && in_w == ow &&
      a->in_sh == ow * ps && a->out_sh == ow * 16) {
    a->ow = oh * ow;
    a->oh = 1;
    a->rows = 1;
    a->row_tasks = 1;
    /* Tasks of 126 positions (21 tiles), at least 8 tasks where possible. */
    int64_t cols = 126;
    if (per_image < 8) {
      int64_t wanted = (8 + per_image - 1) / per_image;
      int64_t c = (a->ow + wanted - 1) / wanted;
      c = (c + 5) / 6 * 6;
      if (c < cols)
        cols = c;
    }
    a->cols = cols;
    a->col_tasks = (a->ow + cols - 1) / cols;
    onnxc_rt_parallel_for(conv_task, a, n * a->groups * a->col_tasks);
    return;
  }
  a->cols = ow;
  a->col_tasks = 1;
  /* Tasks of about 128 output positions (whole rows), but at least 8 of
   * them where there are rows enough (a 13 x 13 conv with 64 filters: 7
   * tasks of 2 rows, not 2 of 10 and 3, for the threads to share). */
  a->rows = (128 + ow - 1) / ow;
  if (per_image < 8) {
    int64_t wanted = (8 + per_image - 1) / per_image; /* row tasks */
    int64_t rows = (oh + wanted - 1) / wanted;
    if (rows < a->rows)
      a->rows = rows;
  }
  if (a->rows > oh)
    a->rows = oh;
  if (a->rows < 1)
    a->rows = 1;
  a->row_tasks = (oh + a->rows - 1) / a->rows;
  onnxc_rt_parallel_for(conv_task, a, n * a->groups * a->row_tasks);
}

/* The fields every conv shares: the output, the bias, the clamp. */
static void set_common(conv_args *a, const onnxc_memref2 *bias,
                       const onnxc_memref5 *out, int64_t sh, int64_t sw,
                       int64_t dh, int64_t dw, int64_t init, int64_t act,
                       float lo, float hi) {
  a->bias = bias->aligned + bias->offset;
  a->out = out->aligned + out->offset;
  a->out_sn = out->strides[0];
  a->out_sfb = out->strides[1];
  a->out_sh = out->strides[2];
  a->n = out->sizes[0];
  a->fb = out->sizes[1];
  a->oh = out->sizes[2];
  a->ow = out->sizes[3];
  a->sh = sh;
  a->sw = sw;
  a->dh = dh;
  a->dw = dw;
  a->init = init;
  a->act = act;
  a->lo = lo;
  a->hi = hi;
}

/* The input and filter fields from their descriptors (of any rank: dims
 * 0-2 of the input are N, channels or channel blocks, rows; dims 2-3 of the
 * filter KH, KW). */
#define SET_INPUT(a, in, w)                                                    \
  do {                                                                         \
    (a).in = (in)->aligned + (in)->offset;                                     \
    (a).in_sn = (in)->strides[0];                                              \
    (a).in_scb = (in)->strides[1];                                             \
    (a).in_sh = (in)->strides[2];                                              \
    (a).cb = (in)->sizes[1];                                                   \
    (a).w = (w)->aligned + (w)->offset;                                        \
    (a).kh = (w)->sizes[2];                                                    \
    (a).kw = (w)->sizes[3];                                                    \
  } while (0)

void _mlir_ciface_onnxc_uk_conv2d_nchwc_f32(const onnxc_memref5 *in,
                                             const onnxc_memref6 *w,
                                             const onnxc_memref2 *bias,
                                             const onnxc_memref5 *out,
                                             int64_t sh, int64_t sw,
                                             int64_t dh, int64_t dw,
                                             int64_t init, int64_t act,
                                             float lo, float hi) {
  conv_args a = {0};
  set_common(&a, bias, out, sh, sw, dh, dw, init, act, lo, hi);
  SET_INPUT(a, in, w);
  run_conv(&a, in->sizes[3]);
}

void _mlir_ciface_onnxc_uk_conv2d_nchw_nchwc_f32(
    const onnxc_memref4 *in, const onnxc_memref5 *w,
    const onnxc_memref2 *bias, const onnxc_memref5 *out, int64_t sh,
    int64_t sw, int64_t dh, int64_t dw, int64_t init, int64_t act, float lo,
    float hi) {
  conv_args a = {0};
  set_common(&a, bias, out, sh, sw, dh, dw, init, act, lo, hi);
  a.planar = 1;
  SET_INPUT(a, in, w);
  run_conv(&a, in->sizes[3]);
}

/* ---- Layout changes: NCHW <-> NCHWc. ---- */

typedef struct {
  const onnxc_memref5 *in, *out;
  int64_t blocked; /* 1: in N x CB x 16 x H x W -> out N x CB x H x W x 16 */
} transpose_args;

/* Rows (n, cb, h) [begin, end): 16 channels x W positions each, moved in
 * tiles of 16 x 16 (one L1-resident tile per step). */
static void transpose_task(void *ctx, int64_t begin, int64_t end) {
  const transpose_args *t = (const transpose_args *)ctx;
  const onnxc_memref5 *in = t->in, *out = t->out;
  int64_t cb = out->sizes[1], h = t->blocked ? out->sizes[2] : out->sizes[3],
          w = t->blocked ? out->sizes[3] : out->sizes[4];
  /* Strides of (n, cb, c, h, w) on either side. */
  const int64_t *is = in->strides, *os = out->strides;
  int64_t in_c = t->blocked ? is[2] : is[4], in_h = t->blocked ? is[3] : is[2],
          in_w = t->blocked ? is[4] : is[3];
  int64_t out_c = t->blocked ? os[4] : os[2],
          out_h = t->blocked ? os[2] : os[3],
          out_w = t->blocked ? os[3] : os[4];
  for (int64_t row = begin; row < end; ++row) {
    int64_t y = row % h, b = (row / h) % cb, n = row / (h * cb);
    const float *src = in->aligned + in->offset + n * is[0] + b * is[1] +
                       y * in_h;
    float *dst = out->aligned + out->offset + n * os[0] + b * os[1] +
                 y * out_h;
    for (int64_t x0 = 0; x0 < w; x0 += 16) {
      int64_t x1 = x0 + 16 < w ? x0 + 16 : w;
      if (t->blocked)
        for (int64_t x = x0; x < x1; ++x)
          for (int64_t c = 0; c < 16; ++c)
            dst[x * out_w + c * out_c] = src[c * in_c + x * in_w];
      else
        for (int64_t c = 0; c < 16; ++c)
          for (int64_t x = x0; x < x1; ++x)
            dst[c * out_c + x * out_w] = src[x * in_w + c * in_c];
    }
  }
}

void _mlir_ciface_onnxc_uk_transpose_nchwc_f32(const onnxc_memref5 *in,
                                                const onnxc_memref5 *out,
                                                int64_t blocked) {
  transpose_args t = {in, out, blocked};
  int64_t h = blocked ? out->sizes[2] : out->sizes[3];
  onnxc_rt_parallel_for(transpose_task, &t,
                        out->sizes[0] * out->sizes[1] * h);
}
