/*===- onnxc_images.h - What the image decoders share ----------------------===*
 *
 * The encoded stream, the decoded image and the error and allocation
 * helpers of onnxc_images.c (BMP, PNM, TIFF, PNG, the entry) and
 * onnxc_jpeg.c (baseline JPEG).
 *
 *===----------------------------------------------------------------------===*/
#ifndef ONNXC_RUNTIME_IMAGES_H
#define ONNXC_RUNTIME_IMAGES_H

#include "onnxc_internal.h"

#include <stdint.h>

typedef struct {
  const uint8_t *p;
  size_t n;
  const char *node; /* "node 'x' (ImageDecoder)" for messages */
} source;

/* Ends the run: "<node>: cannot decode the image: <why>". */
__attribute__((noreturn)) void onnxc_img_bad(const source *s, const char *why);
#define bad onnxc_img_bad

/* A decoded image: 1 (gray) or 3 (RGB) channels, row-major. */
typedef struct {
  int64_t h, w;
  int channels;
  uint8_t *px;
} image;

/* Checks the dimensions (1..2^20 each, at most PIL's decompression-bomb
 * limit of pixels) and that the stream has at least `need` bytes, before
 * anything is allocated for them. */
void onnxc_img_check(const source *s, int64_t h, int64_t w, int64_t need);

/* A new H x W x C pixel buffer of the run; the dimensions checked. */
uint8_t *onnxc_img_pixels(const source *s, int64_t h, int64_t w, int c);
#define new_pixels onnxc_img_pixels

/* Baseline JPEG (onnxc_jpeg.c). */
image onnxc_img_decode_jpeg(const source *s);

#endif /* ONNXC_RUNTIME_IMAGES_H */
