/* Blind round 42: twelve kernels written before explain ran on any of them. */
#include <complex.h>
#include <omp.h>
#include <stdint.h>

/* count the elements above a threshold, one counter per thread */
void count_above(long n, const long *x, long t, long *counts)
{
#pragma omp parallel
    {
        int id = omp_get_thread_num();
#pragma omp for
        for (long i = 0; i < n; i++)
            counts[id] += (x[i] > t);
    }
}

/* scale the lower triangle of a matrix, rows shared between threads */
void tri_scale_omp(long n, double *L, const double *d)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++)
            L[i * n + j] = L[i * n + j] * d[i] + d[j];
}

/* tiny values scaled further down */
void scale_tiny(long n, const float *x, float *y, float s)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * s;
}

/* many short dot products, each of len elements */
void batched_dots(long m, long len, const double *a, const double *b, double *out)
{
    for (long k = 0; k < m; k++) {
        double s = 0.0;
        for (long j = 0; j < len; j++)
            s += a[k * len + j] * b[k * len + j];
        out[k] = s;
    }
}

/* the matrix product in i-k-j order */
void matmul_ikj(long n, const double *A, const double *B, double *C)
{
    for (long i = 0; i < n; i++)
        for (long k = 0; k < n; k++) {
            double a = A[i * n + k];
            for (long j = 0; j < n; j++)
                C[i * n + j] += a * B[k * n + j];
        }
}

/* three outputs from four inputs */
void update3(long n, double *u, double *v, double *w, const double *a, const double *b, const double *c,
             const double *d)
{
    for (long i = 0; i < n; i++) {
        u[i] = a[i] + b[i];
        v[i] = b[i] * c[i];
        w[i] = c[i] - d[i] + u[i];
    }
}

/* the real parts of complex numbers */
void real_parts(long n, const double complex *z, double *re)
{
    for (long i = 0; i < n; i++)
        re[i] = creal(z[i]);
}

/* a three-point average repeated over time steps, each step on all threads */
void relax_steps(long steps, long n, double *a, double *b)
{
    for (long t = 0; t < steps; t++) {
#pragma omp parallel for
        for (long i = 1; i < n - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
#pragma omp parallel for
        for (long i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
}

/* one column of a row-major matrix scaled */
void scale_column(long n, long m, double *A, long j, double s)
{
    for (long i = 0; i < n; i++)
        A[i * m + j] *= s;
}

/* the position of the first zero byte */
long find_zero(long n, const uint8_t *s)
{
    for (long i = 0; i < n; i++)
        if (s[i] == 0)
            return i;
    return -1;
}

/* 16-bit samples halved into floats */
void halve_i16(long n, const int16_t *a, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = a[i] * 0.5;
}

/* a 64-tap FIR filter */
void fir64(long n, const float *x, const float *w, float *y)
{
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long j = 0; j < 64; j++)
            s += x[i + j] * w[j];
        y[i] = s;
    }
}
