/* A twenty-fifth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct { float re, im; } cfloat;

/* set pixels of a bitmap counted word by word */
long count_bits(size_t nwords, const uint64_t *restrict bits)
{
    long c = 0;
    for (size_t i = 0; i < nwords; i++)
        c += __builtin_popcountll(bits[i]);
    return c;
}

/* sums along the anti-diagonals of a square matrix */
void antidiag_sums(long n, const double *restrict A, double *restrict s)
{
    for (long d = 0; d < 2 * n - 1; d++) {
        double t = 0.0;
        long i0 = d < n ? 0 : d - n + 1;
        long i1 = d < n ? d : n - 1;
        for (long i = i0; i <= i1; i++)
            t += A[i * n + (d - i)];
        s[d] = t;
    }
}

/* a five-point Laplacian in single precision */
void laplace5_f(int h, int w, const float *restrict u, float *restrict out)
{
    for (int i = 1; i < h - 1; i++)
        for (int j = 1; j < w - 1; j++)
            out[i * w + j] = u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]
                             - 4.0f * u[i * w + j];
}

/* an array rotated left by k places */
void rotate_left(long n, long k, const double *restrict x, double *restrict y)
{
    for (long i = 0; i < n - k; i++)
        y[i] = x[i + k];
    for (long i = 0; i < k; i++)
        y[n - k + i] = x[i];
}

/* y = A x with A in ELLPACK: a fixed number of entries per row, padded */
void ell_spmv(long m, long k, const int *restrict col, const double *restrict val, const double *restrict x,
              double *restrict y)
{
    for (long i = 0; i < m; i++) {
        double s = 0.0;
        for (long j = 0; j < k; j++)
            s += val[i * k + j] * x[col[i * k + j]];
        y[i] = s;
    }
}

/* the quadratic form x^T A x */
double quad_form(long n, const double *restrict A, const double *restrict x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        double t = 0.0;
        for (long j = 0; j < n; j++)
            t += A[i * n + j] * x[j];
        s += x[i] * t;
    }
    return s;
}

/* records scattered to their places by key, as counting sort does */
void counting_scatter(long n, long nkeys, const int *restrict key, const double *restrict val,
                      const long *restrict start, long *restrict pos, double *restrict out)
{
    for (long b = 0; b < nkeys; b++)
        pos[b] = start[b];
    for (long i = 0; i < n; i++)
        out[pos[key[i]]++] = val[i];
}

/* how many elements equal the one before them */
long count_repeats(long n, const int *restrict x)
{
    long c = 0;
    for (long i = 1; i < n; i++)
        if (x[i] == x[i - 1])
            c++;
    return c;
}

/* amplitudes decayed over one time step */
void decay(long n, double k, double t, double *restrict a)
{
    for (long i = 0; i < n; i++)
        a[i] *= exp(-k * t);
}

/* the sum of complex numbers stored as pairs of floats */
void csum_f(long n, const cfloat *restrict z, cfloat *restrict total)
{
    cfloat s = {0.0f, 0.0f};
    for (long i = 0; i < n; i++) {
        s.re += z[i].re;
        s.im += z[i].im;
    }
    *total = s;
}

/* a rank-one update A += u v^T */
void rank1(long m, long n, double alpha, const double *restrict u, const double *restrict v, double *restrict A)
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            A[i * n + j] += alpha * u[i] * v[j];
}

/* y = A x with a single-precision matrix and double-precision vectors */
void mixed_gemv(long m, long n, const float *restrict A, const double *restrict x, double *restrict y)
{
    for (long i = 0; i < m; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}
