/* The source fixes of targets/explain's cases, each timed against its case by targets/explain_cases.py (rooflab
   compare) to size what the experiment that tests the finding recovers of it. */
#include <stddef.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* aliasing (cases.c blend): the same updates with restrict on every pointer */
void blend_restrict(double *restrict a, double *restrict b, double *restrict c, double *restrict d,
                    double *restrict e, double *restrict f, double *restrict g, double *restrict h, long n)
{
    for (long i = 0; i < n; i++) {
        a[i] = b[i] + c[i];
        d[i] = e[i] * f[i];
        g[i] = h[i] + a[i] * d[i];
        b[i] = g[i] - e[i];
        c[i] = a[i] + h[i];
    }
}

/* an in-order reduction (cases.c dot): eight partial sums, added after the loop */
double dot_partial(const double *x, const double *y, long n)
{
    double s[8] = {0};
    long i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            s[k] += x[i + k] * y[i + k];
    double t = 0.0;
    for (; i < n; i++)
        t += x[i] * y[i];
    for (int k = 0; k < 8; k++)
        t += s[k];
    return t;
}

/* column access (cases.c transpose_add): the same sum walked in 32 x 32 tiles, so each line of a is used whole */
void transpose_add_tiled(double *b, const double *a, long n)
{
    for (long ii = 0; ii < n; ii += 32)
        for (long jj = 0; jj < n; jj += 32)
            for (long i = ii; i < ii + 32 && i < n; i++)
                for (long j = jj; j < jj + 32 && j < n; j++)
                    b[i * n + j] += a[j * n + i];
}

/* OpenMP overhead (nests.c omp_small): the team only for sizes worth its fork-join; a small one runs a plain loop
   (an if clause alone still enters the OpenMP runtime at every call) */
void omp_small_if(double *y, const double *x, long n)
{
    if (n <= 200000) {
        for (long i = 0; i < n; i++)
            y[i] = 3.0 * x[i] + 1.0;
        return;
    }
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        y[i] = 3.0 * x[i] + 1.0;
}

/* conflict misses (nests.c colscale): the same column walk over rows padded by a line (ld = n + 8) */
void colscale_padded(double *a, long n, long ld)
{
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++)
            a[i * ld + j] *= 1.0001;
}

/* bicg (nests.c pb_bicg): q[i] summed in a local variable, with restrict, so it leaves memory */
void pb_bicg_fixed(long m, long n, const double *restrict A, double *restrict s, double *restrict q,
                   const double *restrict p, const double *restrict r)
{
    for (long j = 0; j < m; j++)
        s[j] = 0.0;
    for (long i = 0; i < n; i++) {
        double qi = 0.0;
        for (long j = 0; j < m; j++) {
            s[j] = s[j] + r[i] * A[i * m + j];
            qi = qi + A[i * m + j] * p[j];
        }
        q[i] = qi;
    }
}

/* trisolv (nests.c pb_trisolv): each row's sum in eight partial sums, added after the loop */
void pb_trisolv_fixed(long n, const double *restrict L, double *restrict x, const double *restrict b)
{
    for (long i = 0; i < n; i++) {
        double s[8] = {0};
        long j = 0;
        for (; j + 8 <= i; j += 8)
            for (int k = 0; k < 8; k++)
                s[k] += L[i * n + j + k] * x[j + k];
        double t = 0.0;
        for (; j < i; j++)
            t += L[i * n + j] * x[j];
        for (int k = 0; k < 8; k++)
            t += s[k];
        x[i] = (b[i] - t) / L[i * n + i];
    }
}

/* durbin (nests.c pb_durbin): the inner sum as a SIMD reduction (built with -fopenmp-simd) */
void pb_durbin_fixed(long n, const double *restrict r, double *restrict y, double *restrict z)
{
    double alpha = -r[0], beta = 1.0;
    y[0] = -r[0];
    for (long k = 1; k < n; k++) {
        beta = (1 - alpha * alpha) * beta;
        double sum = 0.0;
#pragma omp simd reduction(+ : sum)
        for (long i = 0; i < k; i++)
            sum += r[k - i - 1] * y[i];
        alpha = -(r[k] + sum) / beta;
        for (long i2 = 0; i2 < k; i2++)
            z[i2] = y[i2] + alpha * y[k - i2 - 1];
        for (long i2 = 0; i2 < k; i2++)
            y[i2] = z[i2];
        y[k] = alpha;
    }
}

/* control flow (nests.c compact): eight elements at a time, the kept ones packed together in a register
   (AVX-512 compress) and stored at once; where the ISA has no compress, the loop as it was */
long compact_simd(double *y, const double *x, long n)
{
    long c = 0, i = 0;
#if defined(__AVX512F__)
    const __m512d half = _mm512_set1_pd(0.5);
    for (; i + 8 <= n; i += 8) {
        __m512d v = _mm512_loadu_pd(x + i);
        __mmask8 keep = _mm512_cmp_pd_mask(v, half, _CMP_GT_OQ);
        _mm512_storeu_pd(y + c, _mm512_maskz_compress_pd(keep, v));  /* c + 8 <= i + 8 <= n */
        c += __builtin_popcount(keep);
    }
#endif
    for (; i < n; i++)
        if (x[i] > 0.5)
            y[c++] = x[i];
    return c;
}
