/*===- onnxc_buffers.c - The buffers of a run and their cache -------------===*
 *
 * Every buffer that the generated code allocates (memref.alloc through
 * MLIR's _mlir_memref_to_llvm_* functions) and every buffer the runtime
 * allocates for a run comes from here: it is linked into the current run's
 * list (onnxc_rt_run_blocks), so that a failed run frees them all, and
 * freed blocks wait in a cache for the next run, which asks for the same
 * sizes. On the CUDA target the blocks are CUDA memory (onnxc_cuda.c's
 * hooks).
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The CUDA target's allocator (onnxc_cuda.c), linked only into models
 * compiled for CUDA; elsewhere malloc and free. */
extern void *onnxc_rt_device_malloc(size_t size) __attribute__((weak));
extern void onnxc_rt_device_free(void *p) __attribute__((weak));
extern void onnxc_rt_device_prefetch(void *p, size_t bytes)
    __attribute__((weak));
/* Device memory (cuMemAlloc), which the host cannot touch; NULL when the
 * driver gives none (ONNXC_CUDA_DEVICE_MEMORY=0, say): managed memory then. */
extern void *onnxc_rt_device_malloc_device(size_t size) __attribute__((weak));

__thread onnxc_rt_block *onnxc_rt_run_blocks;

/* Freed blocks of at least CACHE_MIN_BYTES (4 KiB) wait here for the next
 * request of their size class (the next run of the model asks for the same
 * buffers): a fresh block of that size would come from mmap and fault in
 * its pages again on every run. Block sizes are rounded up to classes of
 * four per power of two (at most 25% more), so that buffers of nearby sizes
 * can take each other's blocks; each class is a list of nodes apart from
 * the blocks. At most CACHE_MAX_BYTES in all; shared by the threads of the
 * process. Device memory (onnxc_rt_device_buffer) has lists of its own. */
#define CACHE_MIN_BYTES ((size_t)4 << 10)
/* On the CUDA target every block is cached: a block from the driver costs
 * far more than from malloc, and a CUDA graph replays a run only when its
 * buffers are the same as the run's it was captured from. */
#define CACHE_MIN (onnxc_rt_device_malloc ? (size_t)64 : CACHE_MIN_BYTES)
#define CACHE_MAX_BYTES ((size_t)1 << 30)
#define CACHE_CLASSES (4 * 64)
static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;
/* The list of a class: a node per block, kept apart from the block (on the
 * CUDA target a kernel may still read a block that its last host owner
 * freed; the cache must not write into it). */
typedef struct cache_node {
  void *raw;
  int host; /* the caller had it (an output): the host may have touched it */
  struct cache_node *next;
} cache_node;
enum { HOST_BLOCKS = 0, DEVICE_BLOCKS = 1 };
static cache_node *g_cache[2][CACHE_CLASSES];
static size_t g_cache_bytes;

/* The class of a block of `total` bytes (>= CACHE_MIN_BYTES), and its
 * size rounded up to the class's. */
static int cache_class(size_t total, size_t *rounded) {
  int lg = 63 - __builtin_clzll((unsigned long long)total);
  size_t step = (size_t)1 << (lg - 2);
  size_t r = (total + step - 1) & ~(step - 1);
  if (r < total) { /* wrapped around: no class */
    *rounded = total;
    return -1;
  }
  lg = 63 - __builtin_clzll((unsigned long long)r);
  *rounded = r;
  return lg * 4 + (int)(r >> (lg - 2)) - 4;
}

/* A cached block of `kind` and class `cls` (whose size is `total`), or
 * NULL; *host: whether the caller had it. */
static void *cache_take(int kind, int cls, size_t total, int *host) {
  pthread_mutex_lock(&g_cache_lock);
  cache_node *node = g_cache[kind][cls];
  if (node) {
    g_cache[kind][cls] = node->next;
    g_cache_bytes -= total;
  }
  pthread_mutex_unlock(&g_cache_lock);
  if (!node)
    return NULL;
  void *raw = node->raw;
  *host = node->host;
  free(node);
  return raw;
}

/* 1 when the cache kept the block. */
static int cache_give(int kind, void *raw, size_t total, int host) {
  size_t rounded;
  int cls = cache_class(total, &rounded);
  if (cls < 0 || rounded != total)
    return 0;
  cache_node *node = malloc(sizeof *node);
  if (!node)
    return 0;
  node->host = host;
  node->raw = raw;
  int kept = 0;
  pthread_mutex_lock(&g_cache_lock);
  if (g_cache_bytes + total <= CACHE_MAX_BYTES) {
    node->next = g_cache[kind][cls];
    g_cache[kind][cls] = node;
    g_cache_bytes += total;
    kept = 1;
  }
  pthread_mutex_unlock(&g_cache_lock);
  if (!kept)
    free(node);
  return kept;
}

static void *raw_alloc(size_t size) {
  return onnxc_rt_device_malloc ? onnxc_rt_device_malloc(size) : malloc(size);
}

static void raw_free(void *p) {
  if (onnxc_rt_device_free) {
    /* Not while a kernel may still use it (a failed run drained the
     * stream already). */
    if (onnxc_rt_device_sync)
      onnxc_rt_device_sync();
    onnxc_rt_device_free(p);
  } else {
    free(p);
  }
}

__attribute__((destructor)) static void free_cache(void) {
  for (int kind = 0; kind < 2; ++kind) {
    for (int i = 0; i < CACHE_CLASSES; ++i) {
      while (g_cache[kind][i]) {
        cache_node *next = g_cache[kind][i]->next;
        raw_free(g_cache[kind][i]->raw);
        free(g_cache[kind][i]);
        g_cache[kind][i] = next;
      }
    }
  }
  g_cache_bytes = 0;
}

/* Adds `h` to the current run's list (outside runs, to none). */
static void link_block(onnxc_rt_block *h) {
  onnxc_rt_block *s = onnxc_rt_run_blocks;
  if (!s) {
    h->prev = h->next = h;
    return;
  }
  h->next = s->next;
  h->prev = s;
  s->next->prev = h;
  s->next = h;
}

static void unlink_block(onnxc_rt_block *h) {
  h->prev->next = h->next;
  h->next->prev = h->prev;
  h->prev = h->next = h;
}

/* The record of a host block at its front: the buffer starts right after
 * it, `alignment`-aligned. */
static onnxc_rt_block *place_record(char *raw, size_t size, size_t total,
                                    size_t alignment) {
  uintptr_t user = ((uintptr_t)raw + sizeof(onnxc_rt_block) + alignment - 1) &
                   ~(uintptr_t)(alignment - 1);
  onnxc_rt_block *h = (onnxc_rt_block *)(user - sizeof(onnxc_rt_block));
  h->raw = raw;
  h->size = size;
  h->total = total;
  h->device = 0;
  return h;
}

/* A buffer of the run. `for_host`: the host writes it first (a staged
 * input), so a block reused from the cache is not moved to the device
 * ahead of that. */
void *onnxc_rt_allocate_block(size_t size, size_t alignment, int for_host) {
  if (alignment < 16)
    alignment = 16;
  size_t total;
  if (__builtin_add_overflow(size, sizeof(onnxc_rt_block) + alignment,
                             &total)) {
    onnxc_rt_abort(
        ONNXC_ERROR_OUT_OF_MEMORY,
        "out of memory: a buffer of %zu bytes does not fit the address space",
        size);
  }
  char *raw = NULL;
  if (total >= CACHE_MIN) {
    size_t rounded;
    int cls = cache_class(total, &rounded);
    if (cls >= 0) {
      total = rounded;
      int host = 0;
      raw = cache_take(HOST_BLOCKS, cls, total, &host);
      /* A block the caller had (an output it may have read) goes back to
       * the device before the kernels write it; the others are there
       * already, and a prefetch per block costs host time per kernel
       * (ResNet-50 and a BERT encoder ran 40% faster without them). */
      if (raw && host && !for_host && onnxc_rt_device_prefetch)
        onnxc_rt_device_prefetch(raw, total);
    }
  }
  if (!raw)
    raw = raw_alloc(total);
  if (!raw) {
    onnxc_rt_abort(ONNXC_ERROR_OUT_OF_MEMORY,
                   "out of memory: cannot allocate a buffer of %zu bytes",
                   size);
  }
  onnxc_rt_block *h = place_record(raw, size, total, alignment);
  link_block(h);
  return (char *)h + sizeof *h;
}

static void *allocate(size_t size, size_t alignment) {
  return onnxc_rt_allocate_block(size, alignment, 0);
}

void *onnxc_rt_alloc_detached(size_t size) {
  const size_t alignment = 64;
  size_t total;
  if (__builtin_add_overflow(size, sizeof(onnxc_rt_block) + alignment, &total))
    return NULL;
  char *raw = raw_alloc(total);
  if (!raw)
    return NULL;
  onnxc_rt_block *h = place_record(raw, size, total, alignment);
  h->prev = h->next = h;
  return (char *)h + sizeof *h;
}

/* `host`: the block comes back from the caller (an output). */
void onnxc_rt_release_block(void *p, int host) {
  if (!p)
    return;
  onnxc_rt_block *h = (onnxc_rt_block *)((char *)p - sizeof(onnxc_rt_block));
  unlink_block(h);
  if (h->device) { /* the record lives apart from the block */
    if (h->total < CACHE_MIN || !cache_give(DEVICE_BLOCKS, h->raw, h->total, 0))
      raw_free(h->raw);
    free(h);
    return;
  }
  if (h->total < CACHE_MIN || !cache_give(HOST_BLOCKS, h->raw, h->total, host))
    raw_free(h->raw);
}

/* A memref<?xi8> descriptor as MLIR passes it. */
typedef struct {
  void *allocated, *aligned;
  int64_t offset, size, stride;
} memref_bytes;

/* onnxc-device-memory's buffers: device memory that only kernels touch.
 * The descriptor's aligned pointer is the device block, its allocated
 * pointer points just past a host record of it (onnxc_rt_block, apart from
 * the block), which memref.dealloc hands back to
 * _mlir_memref_to_llvm_free like any buffer. */
void onnxc_rt_allocate_device_block(size_t size, void **allocated,
                                    void **aligned) {
  size = size ? size : 1;
  size_t total = size < 256 ? 256 : size; /* the driver's granularity */
  onnxc_rt_block *h = malloc(sizeof *h);
  if (!h)
    onnxc_rt_abort(ONNXC_ERROR_OUT_OF_MEMORY, "out of memory");
  void *raw = NULL;
  if (total >= CACHE_MIN) {
    size_t rounded;
    int cls = cache_class(total, &rounded), host;
    if (cls >= 0) {
      total = rounded;
      raw = cache_take(DEVICE_BLOCKS, cls, total, &host);
    }
  }
  if (!raw && onnxc_rt_device_malloc_device)
    raw = onnxc_rt_device_malloc_device(total);
  if (!raw)
    raw = raw_alloc(total);
  if (!raw) {
    free(h);
    onnxc_rt_abort(ONNXC_ERROR_OUT_OF_MEMORY,
                   "out of memory: cannot allocate %zu bytes of device memory",
                   size);
  }
  h->raw = raw;
  h->size = size;
  h->total = total;
  h->device = 1;
  link_block(h);
  *allocated = (char *)h + sizeof *h;
  *aligned = raw;
}

void _mlir_ciface_onnxc_rt_device_buffer(memref_bytes *result, int64_t bytes) {
  size_t size = bytes > 0 ? (size_t)bytes : 1;
  onnxc_rt_allocate_device_block(size, &result->allocated, &result->aligned);
  result->offset = 0;
  result->size = (int64_t)size;
  result->stride = 1;
}

void onnxc_rt_detach_block(void *p) {
  unlink_block((onnxc_rt_block *)((char *)p - sizeof(onnxc_rt_block)));
}

static void release(void *p) { onnxc_rt_release_block(p, 0); }

void onnxc_rt_release_all(onnxc_rt_block *sentinel) {
  while (sentinel->next != sentinel)
    release((char *)sentinel->next + sizeof(onnxc_rt_block));
}

/* The allocation functions of MLIR's memref-to-llvm conversion with
 * use-generic-functions (memref.alloc / memref.dealloc). */
void *_mlir_memref_to_llvm_alloc(size_t size) { return allocate(size, 16); }
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) || alignment > 4096)
    alignment = 64;
  return allocate(size, alignment);
}
void _mlir_memref_to_llvm_free(void *p) { release(p); }

void *onnxc_rt_alloc(size_t size) { return allocate(size, 64); }
void onnxc_rt_release(void *p) { onnxc_rt_release_block(p, 1); }

/* MLIR's memref.copy of strided (non-contiguous) memrefs lowers to a call
 * of this function (the signature of MLIR's CRunnerUtils memrefCopy); the
 * compiled model links it from here instead of from libmlir_c_runner_utils.
 * Descriptors: allocated, aligned, offset, sizes[rank], strides[rank]. */
void memrefCopy(int64_t elem_size, onnxc_unranked_memref *src,
                onnxc_unranked_memref *dst) {
  if (onnxc_rt_device_sync)
    onnxc_rt_device_sync();
  int64_t rank = src->rank;
  const int64_t *s = (const int64_t *)src->descriptor;
  const int64_t *d = (const int64_t *)dst->descriptor;
  char *src_base, *dst_base;
  memcpy(&src_base, &s[1], sizeof(char *));
  memcpy(&dst_base, &d[1], sizeof(char *));
  src_base += s[2] * elem_size;
  dst_base += d[2] * elem_size;
  if (rank == 0) {
    memcpy(dst_base, src_base, (size_t)elem_size);
    return;
  }
  const int64_t *sizes = &s[3], *src_strides = &s[3 + rank],
                *dst_strides = &d[3 + rank];
  if (rank > 64) {
    onnxc_rt_abort(ONNXC_ERROR_RUNTIME, "memref copy of rank %lld (at most 64)",
                   (long long)rank);
  }
  /* Merge each dim into the previous one where both sides are contiguous
   * across them, dropping unit dims: a pad's interior or a concat's part is
   * then a few long rows. */
  int64_t n[64], ss[64], ds[64];
  int r = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] == 0)
      return;
    if (sizes[i] == 1)
      continue;
    if (r > 0 && ss[r - 1] == src_strides[i] * sizes[i] &&
        ds[r - 1] == dst_strides[i] * sizes[i]) {
      n[r - 1] *= sizes[i];
      ss[r - 1] = src_strides[i];
      ds[r - 1] = dst_strides[i];
      continue;
    }
    n[r] = sizes[i];
    ss[r] = src_strides[i];
    ds[r] = dst_strides[i];
    ++r;
  }
  if (r == 0) {
    memcpy(dst_base, src_base, (size_t)elem_size);
    return;
  }
  /* The innermost run, copied by one memcpy when contiguous on both sides. */
  int64_t run = n[r - 1], run_src = ss[r - 1], run_dst = ds[r - 1];
  int contiguous = run_src == 1 && run_dst == 1;
  int64_t index[64] = {0};
  int64_t src_off = 0, dst_off = 0;
  for (;;) {
    char *to = dst_base + dst_off * elem_size;
    const char *from = src_base + src_off * elem_size;
    if (contiguous) {
      memcpy(to, from, (size_t)(run * elem_size));
    } else if (elem_size == 4) {
      for (int64_t k = 0; k < run; ++k)
        memcpy(to + k * run_dst * 4, from + k * run_src * 4, 4);
    } else {
      for (int64_t k = 0; k < run; ++k)
        memcpy(to + k * run_dst * elem_size, from + k * run_src * elem_size,
               (size_t)elem_size);
    }
    int axis = r - 2;
    for (; axis >= 0; --axis) {
      ++index[axis];
      src_off += ss[axis];
      dst_off += ds[axis];
      if (index[axis] < n[axis])
        break;
      src_off -= ss[axis] * n[axis];
      dst_off -= ds[axis] * n[axis];
      index[axis] = 0;
    }
    if (axis < 0)
      return;
  }
}
