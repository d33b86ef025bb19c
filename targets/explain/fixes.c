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

/* the sum of x[i] * y[i] in eight partial sums, added after the loop: what most fixes below do to an in-order sum */
static inline double dot8(const double *restrict x, const double *restrict y, long n)
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

/* an in-order reduction (cases.c dot): eight partial sums, added after the loop */
double dot_partial(const double *x, const double *y, long n)
{
    return dot8(x, y, n);
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
    for (long i = 0; i < n; i++)
        x[i] = (b[i] - dot8(L + i * n, x, i)) / L[i * n + i];
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


/* atax (nests.c pb_atax): the row sum in a local variable and partial sums, with restrict */
void pb_atax_fixed(long m, long n, const double *restrict A, const double *restrict x, double *restrict y,
                   double *restrict tmp)
{
    for (long i = 0; i < n; i++)
        y[i] = 0.0;
    for (long i = 0; i < m; i++) {
        double t = dot8(A + i * n, x, n);
        tmp[i] = t;
        for (long j2 = 0; j2 < n; j2++)
            y[j2] = y[j2] + A[i * n + j2] * t;
    }
}

/* mvt (nests.c pb_mvt): the transposed product with its loops interchanged, so that A is walked by rows */
void pb_mvt_fixed(long n, double *restrict x1, double *restrict x2, const double *restrict y1,
                  const double *restrict y2, const double *restrict A)
{
    for (long i = 0; i < n; i++)
        x1[i] += dot8(A + i * n, y1, n);
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++)
            x2[i] = x2[i] + A[j * n + i] * y2[j];
}

/* gesummv (nests.c pb_gesummv): both row sums in local partial sums, with restrict */
void pb_gesummv_fixed(long n, double alpha, double beta, const double *restrict A, const double *restrict B,
                      double *restrict tmp, const double *restrict x, double *restrict y)
{
    for (long i = 0; i < n; i++) {
        double a[8] = {0}, b[8] = {0};
        long j = 0;
        for (; j + 8 <= n; j += 8)
            for (int k = 0; k < 8; k++) {
                a[k] += A[i * n + j + k] * x[j + k];
                b[k] += B[i * n + j + k] * x[j + k];
            }
        double ta = 0.0, tb = 0.0;
        for (; j < n; j++) {
            ta += A[i * n + j] * x[j];
            tb += B[i * n + j] * x[j];
        }
        for (int k = 0; k < 8; k++) {
            ta += a[k];
            tb += b[k];
        }
        tmp[i] = ta;
        y[i] = alpha * ta + beta * tb;
    }
}

/* 2mm (nests.c pb_2mm): both products in i-k-j order, so that the innermost loop walks rows of B, C and D */
void pb_2mm_fixed(long n, double alpha, double beta, double *restrict tmp, const double *restrict A,
                  const double *restrict B, const double *restrict C, double *restrict D)
{
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++)
            tmp[i * n + j] = 0.0;
        for (long k = 0; k < n; k++) {
            double a = alpha * A[i * n + k];
            for (long j = 0; j < n; j++)
                tmp[i * n + j] += a * B[k * n + j];
        }
    }
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++)
            D[i * n + j] *= beta;
        for (long k = 0; k < n; k++) {
            double t = tmp[i * n + k];
            for (long j = 0; j < n; j++)
                D[i * n + j] += t * C[k * n + j];
        }
    }
}

/* doitgen (nests.c pb_doitgen): the s and p loops interchanged, so that the innermost loop walks rows of C4 */
void pb_doitgen_fixed(long nr, long nq, long np, double *restrict A, const double *restrict C4, double *restrict sum)
{
    for (long r = 0; r < nr; r++)
        for (long q = 0; q < nq; q++) {
            for (long p = 0; p < np; p++)
                sum[p] = 0.0;
            for (long s = 0; s < np; s++) {
                double a = A[(r * nq + q) * np + s];
                for (long p = 0; p < np; p++)
                    sum[p] += a * C4[s * np + p];
            }
            for (long p = 0; p < np; p++)
                A[(r * nq + q) * np + p] = sum[p];
        }
}

/* floyd-warshall (nests.c pb_floyd): path[i][k] read once a row, before the j loop: the loop no longer reads an
   element of the row it writes, and gcc's vector version runs */
void pb_floyd_hoisted(long n, double *path)
{
    for (long k = 0; k < n; k++)
        for (long i = 0; i < n; i++) {
            double pik = path[i * n + k];
            for (long j = 0; j < n; j++) {
                double via = pik + path[k * n + j];
                path[i * n + j] = path[i * n + j] < via ? path[i * n + j] : via;
            }
        }
}

/* jacobi-2d (nests.c pb_jacobi2d): each sweep's rows split between threads */
void pb_jacobi2d_omp(long tsteps, long n, double *A, double *B)
{
    for (long t = 0; t < tsteps; t++) {
#pragma omp parallel for
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] + A[(i + 1) * n + j] +
                                      A[(i - 1) * n + j]);
#pragma omp parallel for
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                A[i * n + j] = 0.2 * (B[i * n + j] + B[i * n + j - 1] + B[i * n + j + 1] + B[(i + 1) * n + j] +
                                      B[(i - 1) * n + j]);
    }
}

/* fdtd-2d (nests.c pb_fdtd2d): each field update's rows split between threads */
void pb_fdtd2d_omp(long tmax, long nx, long ny, double ex[nx][ny], double ey[nx][ny], double hz[nx][ny],
                   double fict[tmax])
{
    for (long t = 0; t < tmax; t++) {
        for (long j = 0; j < ny; j++)
            ey[0][j] = fict[t];
#pragma omp parallel for
        for (long i = 1; i < nx; i++)
            for (long j = 0; j < ny; j++)
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
#pragma omp parallel for
        for (long i = 0; i < nx; i++)
            for (long j = 1; j < ny; j++)
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
#pragma omp parallel for
        for (long i = 0; i < nx - 1; i++)
            for (long j = 0; j < ny - 1; j++)
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    }
}

/* syrk (nests.c pb_syrk): the k loop innermost, so that both rows of A are walked contiguously, in eight partial
   sums */
void pb_syrk_fixed(long n, long m, double alpha, double beta, double C[n][n], double A[n][m])
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++)
            C[i][j] = beta * C[i][j] + alpha * dot8(A[i], A[j], m);
}
