/* A thirty-fourth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* y = A x for a float matrix in compressed sparse rows */
void spmv_csr_f(long m, const int *ptr, const int *col, const float *val, const float *x, float *y)
{
    for (long i = 0; i < m; i++) {
        float s = 0.0f;
        for (int k = ptr[i]; k < ptr[i + 1]; k++)
            s += val[k] * x[col[k]];
        y[i] = s;
    }
}

/* one Gauss-Seidel sweep over a 2-D grid, in place */
void gs2d(long n, double *u)
{
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            u[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}

/* a box filter of half-width r kept as a running sum */
void box_running(long n, long r, const double *x, double *y)
{
    double s = 0.0;
    for (long i = 0; i < 2 * r + 1; i++)
        s += x[i];
    y[r] = s / (2 * r + 1);
    for (long i = r + 1; i < n - r; i++) {
        s += x[i + r] - x[i - r - 1];
        y[i] = s / (2 * r + 1);
    }
}

/* exponential decay at each time */
void exp_decay_f(long n, float a, float k, const float *t, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = a * expf(-k * t[i]);
}

/* 8-bit codes turned back into floats */
void dequant(long n, float scale, const int8_t *q, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = scale * q[i];
}

/* the dot product of one column of a row-major matrix with a vector */
double col_dot(long m, long n, long c, const double *A, const double *x)
{
    double s = 0.0;
    for (long i = 0; i < m; i++)
        s += A[i * n + c] * x[i];
    return s;
}

/* the start of each bucket from the bucket counts (counting sort) */
void count_offsets(long nb, const int64_t *cnt, int64_t *start)
{
    int64_t s = 0;
    for (long b = 0; b < nb; b++) {
        start[b] = s;
        s += cnt[b];
    }
}

/* a float ReLU in place */
void relu_f(long n, float *x)
{
    for (long i = 0; i < n; i++)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/* several time steps of a small update, a parallel loop in each */
void omp_steps(long steps, long n, double a, double *x)
{
    for (long s = 0; s < steps; s++) {
#pragma omp parallel for
        for (long i = 0; i < n; i++)
            x[i] = a * x[i] + 1.0;
    }
}

/* a float signal scaled by a constant written as a double */
void scale_dlit(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * 2.5 + 0.1;
}

/* y = A x for a dense float matrix */
void gemv_f(long m, long n, const float *A, const float *x, float *y)
{
    for (long i = 0; i < m; i++) {
        float s = 0.0f;
        for (long j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

/* how many values fall in [lo, hi) */
long count_range(long n, double lo, double hi, const double *x)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        c += (x[i] >= lo) & (x[i] < hi);
    return c;
}
