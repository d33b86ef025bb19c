/* A twenty-ninth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* RMS normalisation of a float vector, then a per-channel gain */
void rmsnorm_f(long n, const float *x, const float *w, float *y)
{
    float ss = 0.0f;
    for (long i = 0; i < n; i++)
        ss += x[i] * x[i];
    float inv = 1.0f / sqrtf(ss / n + 1e-5f);
    for (long i = 0; i < n; i++)
        y[i] = x[i] * inv * w[i];
}

/* the tanh form of GELU */
void gelu_f(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

/* y += A x for A in coordinate form */
void coo_spmv(long nnz, const int *row, const int *col, const double *val, const double *x, double *y)
{
    for (long k = 0; k < nnz; k++)
        y[row[k]] += val[k] * x[col[k]];
}

/* set bits counted over a bitmap */
long popcount_sum(long n, const uint64_t *w)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        c += __builtin_popcountll(w[i]);
    return c;
}

/* floats quantised to signed bytes */
void quantize_i8(long n, float scale, const float *x, int8_t *q)
{
    for (long i = 0; i < n; i++) {
        float v = roundf(x[i] * scale);
        v = v > 127.0f ? 127.0f : (v < -127.0f ? -127.0f : v);
        q[i] = (int8_t)v;
    }
}

/* one Gauss-Seidel sweep of a 1-D Poisson problem, in place */
void gs_sweep(long n, const double *b, double *x)
{
    for (long i = 1; i < n - 1; i++)
        x[i] = 0.5 * (b[i] + x[i - 1] + x[i + 1]);
}

/* C = A + B, walked column by column */
void add_cols(long n, const double *A, const double *B, double *C)
{
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++)
            C[i * n + j] = A[i * n + j] + B[i * n + j];
}

/* a dot product of long vectors shared by a team of threads */
double omp_dot_big(long n, const double *x, const double *y)
{
    double s = 0.0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* a leaky ReLU */
void leaky_relu(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] > 0.0 ? x[i] : 0.01 * x[i];
}

/* every element divided by a norm */
void normalize(long n, double norm, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] / norm;
}

struct particle { double x, y, z, vx, vy, vz, m, q; };

/* particles moved along x */
void advance_x(long n, double dt, struct particle *p)
{
    for (long i = 0; i < n; i++)
        p[i].x += p[i].vx * dt;
}

/* the lower triangle of a matrix scaled by a team of threads */
void tri_scale(long n, double a, double *L)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++)
            L[i * n + j] *= a;
}
