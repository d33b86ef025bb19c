/* Blind round 47: twelve kernels written before explain ran on any of them. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* y = a x + y reading x with a BLAS-style increment */
void axpy_incx(long n, double a, const double *x, long incx, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] += a * x[i * incx];
}

/* the softplus function */
void softplus(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = log1p(exp(x[i]));
}

/* one step of Floyd-Warshall for a fixed intermediate vertex */
void floyd_step(long n, long k, int32_t *d)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            int32_t via = d[i * n + k] + d[k * n + j];
            if (via < d[i * n + j])
                d[i * n + j] = via;
        }
}

/* floats gathered through a permutation */
void permute_gather(long n, const int32_t *perm, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[perm[i]];
}

/* bytes mapped through a 256-entry table */
void lut_map(long n, const uint8_t *x, const uint8_t *lut, uint8_t *y)
{
    for (long i = 0; i < n; i++)
        y[i] = lut[x[i]];
}

/* the sum of magnitudes of complex numbers */
double cabs_sum(long n, const double complex *z)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += cabs(z[i]);
    return s;
}

/* a moving average over k elements with a running sum */
void moving_avg(long n, long k, const double *x, double *y)
{
    double s = 0.0;
    for (long i = 0; i < k; i++)
        s += x[i];
    for (long i = 0; i < n; i++) {
        y[i] = s / (double)k;
        s += x[i + k] - x[i];
    }
}

/* y = A^T x, walking A by rows */
void gemv_t(long m, long n, const double *A, const double *x, double *y)
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            y[j] += A[i * n + j] * x[i];
}

/* saturating 16-bit addition */
void sat_add_i16(long n, const int16_t *a, const int16_t *b, int16_t *c)
{
    for (long i = 0; i < n; i++) {
        int32_t s = (int32_t)a[i] + b[i];
        c[i] = (int16_t)(s > 32767 ? 32767 : (s < -32768 ? -32768 : s));
    }
}

/* a rank-one update of a square matrix */
void rank1_update(long n, double *A, const double *u, const double *v)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            A[i * n + j] -= u[i] * v[j];
}

/* the maximum of every row */
void row_max(long nr, long nc, const double *A, double *m)
{
    for (long i = 0; i < nr; i++) {
        double best = A[i * nc];
        for (long j = 1; j < nc; j++)
            if (A[i * nc + j] > best)
                best = A[i * nc + j];
        m[i] = best;
    }
}

/* the sum of absolute values of integers */
int64_t sum_abs_i32(long n, const int32_t *a)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += abs(a[i]);
    return s;
}
