/* Blind round 45: twelve kernels written before explain ran on any of them. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* gravitational accelerations of n bodies, softened */
void nbody_acc(long n, const double *x, const double *y, const double *z, double *ax, double *ay, double *az)
{
    for (long i = 0; i < n; i++) {
        double sx = 0.0, sy = 0.0, sz = 0.0;
        for (long j = 0; j < n; j++) {
            double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
            double r2 = dx * dx + dy * dy + dz * dz + 1e-3;
            double inv = 1.0 / (r2 * sqrt(r2));
            sx += dx * inv;
            sy += dy * inv;
            sz += dz * inv;
        }
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
    }
}

/* element-wise complex quotients */
void complex_div(long n, const double complex *a, const double complex *b, double complex *c)
{
    for (long i = 0; i < n; i++)
        c[i] = a[i] / b[i];
}

/* the sum of the positive elements */
double sum_positive(long n, const double *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        if (x[i] > 0.0)
            s += x[i];
    return s;
}

/* 32-bit integers summed into 64 bits */
int64_t sum_i32(long n, const int32_t *a)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* pi estimated from random points */
double mc_pi(long n, unsigned int seed)
{
    long inside = 0;
    for (long i = 0; i < n; i++) {
        double px = (double)rand_r(&seed) / RAND_MAX;
        double py = (double)rand_r(&seed) / RAND_MAX;
        if (px * px + py * py <= 1.0)
            inside++;
    }
    return 4.0 * (double)inside / (double)n;
}

/* the upper triangle copied into the lower one */
void symmetrize(long n, double *A)
{
    for (long i = 0; i < n; i++)
        for (long j = i + 1; j < n; j++)
            A[j * n + i] = A[i * n + j];
}

/* a Euclidean norm by repeated hypot */
double hypot_norm(long n, const double *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s = hypot(s, x[i]);
    return s;
}

/* an integer matrix product, i-j-k */
void matmul_i32(long n, const int32_t *A, const int32_t *B, int32_t *C)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            int32_t s = 0;
            for (long k = 0; k < n; k++)
                s += A[i * n + k] * B[k * n + j];
            C[i * n + j] = s;
        }
}

/* the counting pass of a radix sort on the second byte */
void radix_count(long n, const uint32_t *keys, uint32_t *count)
{
    for (long i = 0; i < n; i++)
        count[(keys[i] >> 8) & 255]++;
}

/* floats rounded to the nearest integer the classic way */
void round_half_up(long n, const float *x, int32_t *r)
{
    for (long i = 0; i < n; i++)
        r[i] = (int32_t)(x[i] + 0.5f);
}

/* all pairwise distances on a line */
void dist_matrix(long n, const double *x, double *d)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            d[i * n + j] = fabs(x[i] - x[j]);
}

/* a gather with a bounds check */
void checked_gather(long n, long m, const int64_t *idx, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = (idx[i] >= 0 && idx[i] < m) ? x[idx[i]] : 0.0;
}
