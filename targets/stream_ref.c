/* A STREAM-style triad, compiled on its own (-O3 -march=native -fopenmp -shared) as the reference for rooflab's
 * DRAM triad ceiling. Same traffic model: 24 bytes per element (two loads, one store; write-allocate not counted).
 * Its arrays are its own, allocated and first touched here by the threads that will stream them, as STREAM does,
 * and advised for transparent huge pages as rooflab's are: the comparison is of the kernels and their timing, not
 * of the page size (against a reference on 4 KiB pages, rooflab's 2-thread triad ran 1.04-1.12x here).
 *   ref_setup(n, threads)  -> 0 on success
 *   ref_triad(passes)      -> seconds for `passes` passes of a[i] = b[i] + 3 * c[i]
 *   ref_check()            -> 0 when a[] holds the expected value */
#include <omp.h>
#include <stdlib.h>
#include <sys/mman.h>

static double *a, *b, *c;
static long n;
static int nt;

int ref_setup(long len, int threads) {
    n = len;
    nt = threads;
    size_t huge = 2u << 20, bytes = (n * sizeof(double) + huge - 1) / huge * huge;
    a = aligned_alloc(huge, bytes);
    b = aligned_alloc(huge, bytes);
    c = aligned_alloc(huge, bytes);
    if (!a || !b || !c) return -1;
#ifdef MADV_HUGEPAGE
    madvise(a, bytes, MADV_HUGEPAGE);
    madvise(b, bytes, MADV_HUGEPAGE);
    madvise(c, bytes, MADV_HUGEPAGE);
#endif
#pragma omp parallel for schedule(static) num_threads(nt)
    for (long i = 0; i < n; i++) { a[i] = 0.0; b[i] = 1.0; c[i] = 2.0; }
    return 0;
}

double ref_triad(int passes) {
    const double s = 3.0;
    double t0 = omp_get_wtime();
    for (int k = 0; k < passes; k++) {
#pragma omp parallel for schedule(static) num_threads(nt)
        for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    }
    return omp_get_wtime() - t0;
}

int ref_check(void) {
    for (long i = 0; i < n; i += n / 7 + 1)
        if (a[i] != 7.0) return 1;
    return 0;
}
