/* A fourteenth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <stdint.h>

/* position of the first zero byte (a terminator search) */
long first_zero(long n, const unsigned char *s)
{
    long i = 0;
    while (i < n && s[i] != 0)
        i++;
    return i;
}

/* one sweep of a 7-point Jacobi stencil on an n^3 grid */
void jacobi7(long n, const double *restrict a, double *restrict b)
{
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            for (long k = 1; k < n - 1; k++) {
                long c = (i * n + j) * n + k;
                b[c] = 0.4 * a[c] + 0.1 * (a[c - n * n] + a[c + n * n] + a[c - n] + a[c + n] + a[c - 1] + a[c + 1]);
            }
}

/* one pass of an LSD radix sort on the low byte: count, prefix, scatter */
void radix_pass(long n, const uint32_t *key, long *count, uint32_t *out)
{
    for (int d = 0; d < 256; d++)
        count[d] = 0;
    for (long i = 0; i < n; i++)
        count[key[i] & 255]++;
    long sum = 0;
    for (int d = 0; d < 256; d++) {
        long c = count[d];
        count[d] = sum;
        sum += c;
    }
    for (long i = 0; i < n; i++)
        out[count[key[i] & 255]++] = key[i];
}

/* signed remainder by a power of two */
void mod16(long n, const int *x, int *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] % 16;
}

/* quotients by a divisor known only at run time */
void div_by(long n, const int *x, int d, int *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] / d;
}

/* particles as structs; every field is read or written by the step */
struct particle { double x, y, z, vx, vy, vz; };

void drift_all(long n, double dt, struct particle *p)
{
    for (long i = 0; i < n; i++) {
        p[i].x += dt * p[i].vx;
        p[i].y += dt * p[i].vy;
        p[i].z += dt * p[i].vz;
    }
}

/* the same particles; only x moves */
void drift_only_x(long n, double dt, struct particle *p)
{
    for (long i = 0; i < n; i++)
        p[i].x += dt * p[i].vx;
}

/* back substitution U x = b, row by row (U upper triangular, row-major) */
void backsub(long n, const double *U, const double *b, double *x)
{
    for (long i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (long j = i + 1; j < n; j++)
            s -= U[i * n + j] * x[j];
        x[i] = s / U[i * n + i];
    }
}

/* the lower triangle scaled, rows shared out statically among the threads */
void tri_scale(long n, const double *A, double *B)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++)
            B[i * n + j] = 2.0 * A[i * n + j];
}

/* sum of the positive elements */
void positive_sum(long n, const double *x, double *out)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        if (x[i] > 0.0)
            s += x[i];
    out[0] = s;
}

/* linear interpolation between two single-precision signals */
void lerp_f(long n, float t, const float *restrict a, const float *restrict b, float *restrict out)
{
    for (long i = 0; i < n; i++)
        out[i] = a[i] + t * (b[i] - a[i]);
}

/* a plain element-by-element copy of a large buffer */
void copy_big(long n, const double *restrict src, double *restrict dst)
{
    for (long i = 0; i < n; i++)
        dst[i] = src[i];
}
