/* readloop: a plain C read-bandwidth loop, the independent check of
 * `loupe membw`'s read probe (docs/performance.md, "The yardsticks").
 *
 * T threads (OpenMP), each reading its band of a buffer of MIB MiB as four
 * streams (its band's quarters side by side, as Loupe's probe and decode
 * kernels read). Each timed pass reads WINDOW MiB in all (each thread its
 * share), the next window of the buffer each pass, so every window comes
 * from DRAM when the buffer is larger than the last-level cache; WINDOW =
 * MIB times whole passes. Prints the best pass in GB/s (10^9 bytes/s), then
 * the 10th, 50th and 90th percentiles of the passes. A fourth argument
 * "huge" asks for the buffer on 2 MiB pages (MADV_HUGEPAGE), as Loupe's
 * probe buffer and its model mappings are; without it the pages are
 * whatever the system gives (4 KiB under THP's "madvise" default).
 *
 * Build (Debian's gcc):  gcc -O2 -fopenmp readloop.c -o readloop
 * Run:  OMP_NUM_THREADS=2 ./readloop 1024 6         (whole 1 GiB passes)
 *       OMP_NUM_THREADS=2 ./readloop 1024 400 32    (32 MiB windows)
 *       OMP_NUM_THREADS=2 ./readloop 1024 400 32 huge
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int ascending(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
	size_t mib = argc > 1 ? strtoul(argv[1], 0, 10) : 1024;
	int passes = argc > 2 ? atoi(argv[2]) : 6;
	size_t winmib = argc > 3 ? strtoul(argv[3], 0, 10) : mib;
	size_t n = mib << 17; /* 8-byte words */
	int huge = argc > 4 && strcmp(argv[4], "huge") == 0;
	uint64_t *buf = aligned_alloc(2 << 20, n * 8);
	double *rates = malloc(sizeof(double) * (passes > 0 ? passes : 1));
	if (!buf || !rates || passes < 1 || winmib < 1 || winmib > mib || (argc > 4 && !huge)) {
		fprintf(stderr, "usage: readloop [MiB] [passes] [window MiB <= MiB] [huge]\n");
		return 2;
	}
	if (huge && madvise(buf, n * 8, MADV_HUGEPAGE) != 0) perror("readloop: madvise");
	int T = omp_get_max_threads();
	size_t band = n / T, wn = (winmib << 17) / T / 4 * 4, q = wn / 4, nwin = band / wn;
#pragma omp parallel for schedule(static)
	for (int t = 0; t < T; t++) /* each thread faults in the band it reads */
		for (size_t i = t * band; i < (t + 1) * band; i++) buf[i] = i;
	double best = 0;
	uint64_t sink = 0;
	for (int p = 0; p < passes; p++) {
		uint64_t total = 0;
		double t0 = now();
#pragma omp parallel for schedule(static) reduction(+ : total)
		for (int t = 0; t < T; t++) {
			const uint64_t *a = buf + t * band + (p % nwin) * wn, *b = a + q, *c = b + q, *d = c + q;
			uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
			for (size_t i = 0; i < q; i++) {
				s0 += a[i];
				s1 += b[i];
				s2 += c[i];
				s3 += d[i];
			}
			total += s0 + s1 + s2 + s3;
		}
		double gbs = (double)(4 * q * T) * 8 / (now() - t0) / 1e9;
		sink += total;
		if (gbs > best) best = gbs;
		rates[p] = gbs;
	}
	qsort(rates, passes, sizeof(double), ascending);
	printf("best %.1f GB/s (%d threads x 4 streams, %zu MiB%s, %zu MiB timed at once, %d passes); p10 %.1f, p50 %.1f, p90 %.1f\n",
	       best, T, mib, huge ? " on 2 MiB pages" : "", winmib, passes,
	       rates[passes / 10], rates[passes / 2], rates[passes * 9 / 10]);
	return sink == 1; /* keeps the sums alive */
}
