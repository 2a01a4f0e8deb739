/* fmapeak: a plain C fp32 FMA loop, the independent check of `loupe
 * membw`'s compute probe (docs/performance.md, "The yardsticks").
 *
 * T threads (OpenMP), each running twelve independent chains of 512-bit
 * FMAs (256-bit with -DYMM): enough chains to keep two FMA units busy
 * whatever their latency. Each trial is about 1 ms, short enough to run
 * between two preemptions on a shared machine; the best of 400 trials is
 * printed in GFLOP/s (an FMA counts two operations per lane).
 *
 * Build (Debian's gcc):  gcc -O2 -fopenmp -mavx512f -mfma fmapeak.c -o fmapeak512
 *                        gcc -O2 -fopenmp -mavx2 -mfma -DYMM fmapeak.c -o fmapeak256
 * Run:  OMP_NUM_THREADS=1 ./fmapeak512
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef YMM
typedef __m256 V;
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define LANES 8
#else
typedef __m512 V;
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define LANES 16
#endif

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
	const long iters = 500000; /* x 12 FMAs a thread: about 1 ms */
	double best = 0;
	float sink = 0;
	int T = omp_get_max_threads();
	for (int trial = 0; trial < 400; trial++) {
		double t0 = now();
#pragma omp parallel reduction(+ : sink)
		{
			V a0 = SET1(1), a1 = SET1(2), a2 = SET1(3), a3 = SET1(4), a4 = SET1(5), a5 = SET1(6);
			V a6 = SET1(7), a7 = SET1(8), a8 = SET1(9), a9 = SET1(10), a10 = SET1(11), a11 = SET1(12);
			V m = SET1(0.999f), c = SET1(1e-3f);
			for (long i = 0; i < iters; i++) {
				a0 = FMA(a0, m, c), a1 = FMA(a1, m, c), a2 = FMA(a2, m, c), a3 = FMA(a3, m, c);
				a4 = FMA(a4, m, c), a5 = FMA(a5, m, c), a6 = FMA(a6, m, c), a7 = FMA(a7, m, c);
				a8 = FMA(a8, m, c), a9 = FMA(a9, m, c), a10 = FMA(a10, m, c), a11 = FMA(a11, m, c);
			}
			V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
			float out[LANES];
			memcpy(out, &s, sizeof out);
			sink += out[0];
		}
		double gf = (double)T * iters * 12 * LANES * 2 / (now() - t0) / 1e9;
		if (gf > best) best = gf;
	}
	printf("best %.1f GFLOP/s on %d threads (%.1f per core, %d-bit FMA)\n", best, T, best / T, LANES * 32);
	return sink == 12345; /* keeps the chains alive */
}
