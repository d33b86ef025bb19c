/* A STREAM-style triad, compiled on its own (-O3 -march=native -fopenmp) as the reference for rooflab's DRAM
 * triad ceiling. Same traffic model: 24 bytes per element (two loads, one store; write-allocate not counted).
 * Usage: stream_ref N NTIMES -> prints the median bytes/s over NTIMES passes. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    int ntimes = argc > 2 ? atoi(argv[2]) : 20;
    double *a = aligned_alloc(64, n * sizeof(double) + 64);
    double *b = aligned_alloc(64, n * sizeof(double) + 64);
    double *c = aligned_alloc(64, n * sizeof(double) + 64);
    double *t = malloc(ntimes * sizeof(double));
    double s = 3.0;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) { a[i] = 0.0; b[i] = 1.0; c[i] = 2.0; }
    for (int k = 0; k < ntimes; k++) {
        double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        t[k] = omp_get_wtime() - t0;
    }
    for (long i = 0; i < n; i += n / 7 + 1)
        if (a[i] != 7.0) { fprintf(stderr, "wrong result at %ld\n", i); return 1; }
    qsort(t + 1, ntimes - 1, sizeof(double), cmp); /* the first pass is a warm-up */
    double med = t[1 + (ntimes - 1) / 2];
    printf("%.6e\n", 24.0 * n / med);
    return 0;
}
