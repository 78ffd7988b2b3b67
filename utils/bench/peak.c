/* peak.c - Measured fp32 FMA peak of one core, for utils/bench.py.
 *
 * Runs 12 independent chains of 16-lane fused multiply-adds (AVX-512, or
 * 8-lane AVX2 when built without AVX-512) long enough to hide latency, and
 * prints the best GFLOP/s of several repetitions. The bench reports each
 * model's GFLOP/s as a share of this number.
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#define STORE _mm512_storeu_ps
#else
typedef __m256 vec;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#define STORE _mm256_storeu_ps
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  const long iterations = 20000000;
  double best = 0;
  float sink[LANES];
  for (int rep = 0; rep < 5; ++rep) {
    vec a = SET1(0.999999f), b = SET1(1e-7f);
    vec c0 = SET1(0), c1 = SET1(1), c2 = SET1(2), c3 = SET1(3), c4 = SET1(4),
        c5 = SET1(5), c6 = SET1(6), c7 = SET1(7), c8 = SET1(8), c9 = SET1(9),
        c10 = SET1(10), c11 = SET1(11);
    double t0 = now();
    for (long i = 0; i < iterations; ++i) {
      c0 = FMA(c0, a, b); c1 = FMA(c1, a, b); c2 = FMA(c2, a, b);
      c3 = FMA(c3, a, b); c4 = FMA(c4, a, b); c5 = FMA(c5, a, b);
      c6 = FMA(c6, a, b); c7 = FMA(c7, a, b); c8 = FMA(c8, a, b);
      c9 = FMA(c9, a, b); c10 = FMA(c10, a, b); c11 = FMA(c11, a, b);
      __asm__ volatile("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3));
    }
    double seconds = now() - t0;
    vec s = ADD(ADD(ADD(c0, c1), ADD(c2, c3)),
                ADD(ADD(ADD(c4, c5), ADD(c6, c7)),
                    ADD(ADD(c8, c9), ADD(c10, c11))));
    STORE(sink, s);
    double gflops = 2.0 * LANES * 12 * iterations / seconds / 1e9;
    if (gflops > best)
      best = gflops;
  }
  printf("%.1f %d %g\n", best, LANES, sink[0]);
  return 0;
}
