/* Kernels for the classes that live in the data and the threads rather than in the loop's instructions: subnormal
   numbers, false sharing, write-allocate traffic (and their fixed sources), for targets/explain_cases.py. */
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/* Subnormal numbers: an update whose increments underflow (tiny forces times a time step): every product is below
   the smallest normal double, and many cores take a slow path to make one. */
void nudge(double *restrict v, double *restrict dv, const double *restrict f, double dt, long n)
{
    for (long i = 0; i < n; i++) {
        dv[i] = f[i] * dt;
        v[i] += dv[i];
    }
}

/* The fix: flush-to-zero and denormals-are-zero while the loop runs, the caller's mode put back after. */
void nudge_ftz(double *restrict v, double *restrict dv, const double *restrict f, double dt, long n)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned int mode = _mm_getcsr();
    _mm_setcsr(mode | 0x8040);
#endif
    for (long i = 0; i < n; i++) {
        dv[i] = f[i] * dt;
        v[i] += dv[i];
    }
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(mode);
#endif
}

/* the threads' rows of counts added into one histogram */
static void add_rows(int rows[64][8], int used, long *counts)
{
    for (int b = 0; b < 8; b++) {
        counts[b] = 0;
        for (int t = 0; t < used; t++)
            counts[b] += rows[t][b];
    }
}

/* False sharing: a histogram split between threads, each counting into its own row of one small table. Rows of 8
   ints are 32 bytes: two threads' rows share a cache line, which moves between the cores at every count. */
void histogram_rows(const double *x, long n, long *counts)
{
    int rows[64][8] = {{0}};
    int used = 1;
#pragma omp parallel
    {
        int t = 0, nt = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        long lo = n * t / nt, hi = n * (t + 1) / nt;
        for (long i = lo; i < hi; i++)
            rows[t][(int)((x[i] - 0.5) * 8)]++;
#pragma omp single
        used = nt;
    }
    add_rows(rows, used, counts);
}

/* The fix: each thread counts into a table of its own (on its stack) and adds it to the shared one once. */
void histogram_local(const double *x, long n, long *counts)
{
    int rows[64][8] = {{0}};
    int used = 1;
#pragma omp parallel
    {
        int t = 0, nt = 1, mine[8] = {0};
#ifdef _OPENMP
        t = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        long lo = n * t / nt, hi = n * (t + 1) / nt;
        for (long i = lo; i < hi; i++)
            mine[(int)((x[i] - 0.5) * 8)]++;
        for (int b = 0; b < 8; b++)
            rows[t][b] = mine[b];
#pragma omp single
        used = nt;
    }
    add_rows(rows, used, counts);
}

/* The write-allocate fix: the same triad with streaming stores, which write whole lines without reading them. */
void triad_omp_nt(double *a, const double *b, const double *c, long n)
{
    long head = 0;
    while (head < n && ((uintptr_t)(a + head) & 63)) {
        a[head] = b[head] + 3.0 * c[head];
        head++;
    }
    long body = head + (n - head) / 8 * 8;
#pragma omp parallel for
    for (long i = head; i < body; i += 8) {
#if defined(__AVX512F__)
        __m512d s = _mm512_set1_pd(3.0);
        _mm512_stream_pd(a + i, _mm512_add_pd(_mm512_loadu_pd(b + i), _mm512_mul_pd(s, _mm512_loadu_pd(c + i))));
#elif defined(__AVX__)
        __m256d s = _mm256_set1_pd(3.0);
        _mm256_stream_pd(a + i, _mm256_add_pd(_mm256_loadu_pd(b + i), _mm256_mul_pd(s, _mm256_loadu_pd(c + i))));
        _mm256_stream_pd(a + i + 4, _mm256_add_pd(_mm256_loadu_pd(b + i + 4),
                                                  _mm256_mul_pd(s, _mm256_loadu_pd(c + i + 4))));
#elif defined(__SSE2__)
        __m128d s = _mm_set1_pd(3.0);
        for (int k = 0; k < 8; k += 2)
            _mm_stream_pd(a + i + k, _mm_add_pd(_mm_loadu_pd(b + i + k), _mm_mul_pd(s, _mm_loadu_pd(c + i + k))));
#else
        for (int k = 0; k < 8; k++)
            a[i + k] = b[i + k] + 3.0 * c[i + k];
#endif
    }
#if defined(__SSE2__)
    _mm_sfence();
#endif
    for (long i = body; i < n; i++)
        a[i] = b[i] + 3.0 * c[i];
}

/* No problem: an in-place update on every CPU at a working set far past the caches. It reads every line it writes,
   so no write is wasted on a line read only to be overwritten. */
void update_omp(double *a, const double *c, long n)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        a[i] += 3.0 * c[i];
}

/* TLB misses: B (k x n, row-major) packed into panels of 8 columns, as a GEMM packs its operand. Each row of a
   panel is one cache line of B, used whole; but rows are n doubles apart, so every step is to another page. */
void pack_panels(long k, long n, const double *restrict B, double *restrict P)
{
    for (long j0 = 0; j0 < n; j0 += 8)
        for (long p = 0; p < k; p++)
            for (long jj = 0; jj < 8; jj++)
                P[j0 * k + p * 8 + jj] = B[p * n + j0 + jj];
}
