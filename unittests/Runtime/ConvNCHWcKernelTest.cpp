//===- ConvNCHWcKernelTest.cpp - The runtime's NCHWc conv kernel ----------===//
//
// onnxc_uk_conv2d_nchwc_f32 (lib/Runtime/onnxc_ukernels.c) against a plain
// reference in double, over shapes that reach every register-tile width and
// filter-block remainder, strides 1, 2 and 3 (3: the position-by-position
// tiles), dilations, padded (strided) input and output views, each way of
// starting the accumulators, with and without a Relu or Clip; the AVX-512 and the
// portable kernels alike.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../../lib/Runtime/onnxc_ukernels.h"

using memref2 = onnxc_memref2;
using memref4 = onnxc_memref4;
using memref5 = onnxc_memref5;
using memref6 = onnxc_memref6;

namespace {

struct Problem {
  int64_t n, cb, fb, ih, iw, kh, kw, sh, sw, dh, dw;
  int64_t init; // 0: accumulate, 1: bias, 2: zero
  int64_t act;  // 0: none, 1: Relu, 2: Clip to [-0.5, 0.7]
  int64_t border; // extra rows/columns around the output inside its buffer
};

/// Runs `p` through the kernel and returns the largest error against the
/// reference, relative to the largest magnitude of the result.
double maxError(const Problem &p, unsigned seed) {
  int64_t oh = (p.ih - (p.kh - 1) * p.dh - 1) / p.sh + 1;
  int64_t ow = (p.iw - (p.kw - 1) * p.dw - 1) / p.sw + 1;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](std::vector<float> &v) {
    for (float &x : v)
      x = dist(rng);
  };
  std::vector<float> in(p.n * p.cb * p.ih * p.iw * 16);
  std::vector<float> w(p.fb * p.cb * p.kh * p.kw * 256), bias(p.fb * 16);
  fill(in);
  fill(w);
  fill(bias);
  // The output is the interior of a buffer `border` larger on each side.
  int64_t bh = oh + 2 * p.border, bw = ow + 2 * p.border;
  std::vector<float> out(p.n * p.fb * bh * bw * 16);
  fill(out);
  std::vector<float> start = out;

  memref5 inRef{in.data(), in.data(), 0,
                {p.n, p.cb, p.ih, p.iw, 16},
                {p.cb * p.ih * p.iw * 16, p.ih * p.iw * 16, p.iw * 16, 16, 1}};
  memref6 wRef{w.data(), w.data(), 0,
               {p.fb, p.cb, p.kh, p.kw, 16, 16},
               {p.cb * p.kh * p.kw * 256, p.kh * p.kw * 256, p.kw * 256, 256,
                16, 1}};
  memref2 biasRef{bias.data(), bias.data(), 0, {p.fb, 16}, {16, 1}};
  int64_t offset = (p.border * bw + p.border) * 16;
  memref5 outRef{out.data(), out.data(), offset,
                 {p.n, p.fb, oh, ow, 16},
                 {p.fb * bh * bw * 16, bh * bw * 16, bw * 16, 16, 1}};
  float lo = p.act == 2 ? -0.5f : 0.0f,
        hi = p.act == 2 ? 0.7f : INFINITY;
  _mlir_ciface_onnxc_uk_conv2d_nchwc_f32(&inRef, &wRef, &biasRef, &outRef,
                                         p.sh, p.sw, p.dh, p.dw, p.init,
                                         p.act != 0, lo, hi);

  double worst = 0, scale = 1e-6;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t f = 0; f < p.fb * 16; ++f)
      for (int64_t y = -p.border; y < oh + p.border; ++y)
        for (int64_t x = -p.border; x < ow + p.border; ++x) {
          int64_t at = (((n * p.fb + f / 16) * bh + y + p.border) * bw + x +
                        p.border) *
                           16 +
                       f % 16;
          bool inside = y >= 0 && y < oh && x >= 0 && x < ow;
          if (!inside) { // the border is not written
            worst = std::max(worst, double(std::fabs(out[at] - start[at])));
            continue;
          }
          double acc = p.init == 0   ? start[at]
                       : p.init == 1 ? bias[f]
                                     : 0.0;
          for (int64_t c = 0; c < p.cb * 16; ++c)
            for (int64_t i = 0; i < p.kh; ++i)
              for (int64_t j = 0; j < p.kw; ++j) {
                int64_t iy = y * p.sh + i * p.dh, ix = x * p.sw + j * p.dw;
                acc += double(in[(((n * p.cb + c / 16) * p.ih + iy) * p.iw +
                                  ix) *
                                     16 +
                                 c % 16]) *
                       w[((((f / 16) * p.cb + c / 16) * p.kh + i) * p.kw + j) *
                             256 +
                         (c % 16) * 16 + f % 16];
              }
          // (Errors relative to the sum's magnitude before any clamp.)
          scale = std::max(scale, std::fabs(acc));
          if (p.act)
            acc = std::min(std::max(acc, double(lo)), double(hi));
          worst = std::max(worst, std::fabs(acc - out[at]));
        }
  return worst / scale;
}

std::vector<Problem> problems() {
  std::vector<Problem> list;
  // Output widths 1..30 (every tile width and split), filter blocks 1..5
  // (4 + 1 remainders), strides 1-3, 3 x 3 and 1 x 1.
  for (int64_t ow : {1, 5, 7, 13, 14, 30})
    for (int64_t fb : {1, 2, 3, 5})
      for (int64_t s : {1, 2, 3}) {
        int64_t k = s == 3 ? 1 : 3;
        list.push_back({1, 2, fb, 3 * s + k, (ow - 1) * s + k, k, k, s, s, 1,
                        1, (ow + fb) % 3, (ow + s) % 3, 0});
      }
  // Dilation, batch 2, several input-channel chunks (1 x 1: 8 blocks per
  // pass over a row), an output inside a padded buffer.
  list.push_back({2, 3, 4, 9, 11, 3, 3, 1, 1, 2, 2, 1, 1, 1});
  list.push_back({1, 20, 6, 5, 9, 1, 1, 1, 1, 1, 1, 0, 0, 2});
  list.push_back({1, 2, 2, 8, 8, 3, 3, 2, 1, 1, 2, 2, 2, 1});
  // 1 x 1, stride 1, unpadded: positions as one long row in tasks of whole
  // tiles (7 x 13 = 91 positions; batch 2 with 9 filter blocks).
  list.push_back({1, 3, 5, 7, 13, 1, 1, 1, 1, 1, 1, 1, 1, 0});
  list.push_back({2, 2, 9, 14, 14, 1, 1, 1, 1, 1, 1, 0, 2, 0});
  return list;
}

TEST(ConvNCHWcKernel, MatchesReference) {
  unsigned seed = 0;
  for (const Problem &p : problems()) {
    double err = maxError(p, ++seed);
    EXPECT_LT(err, 1e-5) << "n " << p.n << " cb " << p.cb << " fb " << p.fb
                         << " in " << p.ih << "x" << p.iw << " k " << p.kh
                         << " s " << p.sh << "," << p.sw << " d " << p.dh
                         << " init " << p.init << " act " << p.act;
  }
}

TEST(ConvNCHWcKernel, PortableMatchesReference) {
  onnxc_uk_force_portable = 1;
  unsigned seed = 100;
  for (const Problem &p : problems()) {
    double err = maxError(p, ++seed);
    EXPECT_LT(err, 1e-5) << "n " << p.n << " cb " << p.cb << " fb " << p.fb
                         << " s " << p.sh << " init " << p.init;
  }
  onnxc_uk_force_portable = 0;
}

// An NCHW input (a first conv's few channels) with NCHWc filters and output.
double planarMaxError(int64_t n, int64_t c, int64_t fb, int64_t ih, int64_t iw,
                      int64_t k, int64_t s, int64_t d, int64_t init,
                      int64_t act, unsigned seed) {
  int64_t oh = (ih - (k - 1) * d - 1) / s + 1, ow = (iw - (k - 1) * d - 1) / s + 1;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> in(n * c * ih * iw), w(fb * c * k * k * 16),
      bias(fb * 16), out(n * fb * oh * ow * 16);
  for (auto *v : {&in, &w, &bias, &out})
    for (float &x : *v)
      x = dist(rng);
  std::vector<float> start = out;
  memref4 inRef{in.data(), in.data(), 0, {n, c, ih, iw},
                {c * ih * iw, ih * iw, iw, 1}};
  memref5 wRef{w.data(), w.data(), 0, {fb, c, k, k, 16},
               {c * k * k * 16, k * k * 16, k * 16, 16, 1}};
  memref2 biasRef{bias.data(), bias.data(), 0, {fb, 16}, {16, 1}};
  memref5 outRef{out.data(), out.data(), 0, {n, fb, oh, ow, 16},
                 {fb * oh * ow * 16, oh * ow * 16, ow * 16, 16, 1}};
  float lo = act ? 0.0f : 0.0f, hi = act ? 0.5f : 0.0f;
  _mlir_ciface_onnxc_uk_conv2d_nchw_nchwc_f32(&inRef, &wRef, &biasRef, &outRef,
                                              s, s, d, d, init, act, lo, hi);
  double worst = 0, scale = 1e-6;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t f = 0; f < fb * 16; ++f)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          int64_t at = (((b * fb + f / 16) * oh + y) * ow + x) * 16 + f % 16;
          double acc = init == 0 ? start[at] : init == 1 ? bias[f] : 0.0;
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t i = 0; i < k; ++i)
              for (int64_t j = 0; j < k; ++j)
                acc += double(in[((b * c + ch) * ih + y * s + i * d) * iw +
                                 x * s + j * d]) *
                       w[((((f / 16) * c + ch) * k + i) * k + j) * 16 + f % 16];
          scale = std::max(scale, std::fabs(acc));
          if (act)
            acc = std::min(std::max(acc, double(lo)), double(hi));
          worst = std::max(worst, std::fabs(acc - out[at]));
        }
  return worst / scale;
}

TEST(ConvNCHWcKernel, PlanarInputMatchesReference) {
  for (int portable = 0; portable < 2; ++portable) {
    onnxc_uk_force_portable = portable;
    // RGB 7 x 7 stride 2 (a stem), one channel 3 x 3, five channels with
    // stride 3 (position by position), dilation, batch 2, 3 filter blocks.
    EXPECT_LT(planarMaxError(1, 3, 4, 29, 31, 7, 2, 1, 1, 1, 1), 1e-5);
    EXPECT_LT(planarMaxError(1, 1, 2, 9, 14, 3, 1, 1, 2, 0, 2), 1e-5);
    EXPECT_LT(planarMaxError(2, 5, 3, 13, 17, 3, 3, 1, 0, 1, 3), 1e-5);
    EXPECT_LT(planarMaxError(1, 3, 1, 12, 12, 3, 1, 2, 1, 0, 4), 1e-5);
  }
  onnxc_uk_force_portable = 0;
}

// NCHW -> NCHWc into the interior of a padded buffer, and back: every
// element lands where the layouts say, the border is left alone.
TEST(TransposeNCHWcKernel, RoundTrip) {
  const int64_t n = 2, cb = 3, h = 5, w = 37, pad = 1;
  const int64_t hp = h + 2 * pad, wp = w + 2 * pad;
  std::vector<float> x(n * cb * 16 * h * w), blocked(n * cb * hp * wp * 16, -7.0f),
      back(x.size(), 0.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i);
  memref5 xRef{x.data(), x.data(), 0,
               {n, cb, 16, h, w},
               {cb * 16 * h * w, 16 * h * w, h * w, w, 1}};
  memref5 inner{blocked.data(), blocked.data(), (pad * wp + pad) * 16,
                {n, cb, h, w, 16},
                {cb * hp * wp * 16, hp * wp * 16, wp * 16, 16, 1}};
  _mlir_ciface_onnxc_uk_transpose_nchwc_f32(&xRef, &inner, 1);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t b = 0; b < cb; ++b)
      for (int64_t y = 0; y < hp; ++y)
        for (int64_t z = 0; z < wp; ++z)
          for (int64_t c = 0; c < 16; ++c) {
            float got = blocked[(((i * cb + b) * hp + y) * wp + z) * 16 + c];
            bool interior = y >= pad && y < h + pad && z >= pad && z < w + pad;
            float want = interior ? x[(((i * cb + b) * 16 + c) * h + y - pad) *
                                          w +
                                      z - pad]
                                  : -7.0f;
            ASSERT_EQ(got, want) << i << " " << b << " " << y << " " << z
                                 << " " << c;
          }
  memref5 backRef{back.data(), back.data(), 0,
                  {n, cb, 16, h, w},
                  {cb * 16 * h * w, 16 * h * w, h * w, w, 1}};
  _mlir_ciface_onnxc_uk_transpose_nchwc_f32(&inner, &backRef, 0);
  EXPECT_EQ(back, x);
}

} // namespace
