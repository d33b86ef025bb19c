/* A twenty-second set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* y = A^T x with A in compressed sparse rows */
void csr_t_mv(long m, const int *rowptr, const int *col, const double *val, const double *x, double *y)
{
    for (long i = 0; i < m; i++)
        for (int j = rowptr[i]; j < rowptr[i + 1]; j++)
            y[col[j]] += val[j] * x[i];
}

/* particles' charge spread onto the two nearest grid points */
void cic_deposit(long n, const double *pos, const double *q, double *grid)
{
    for (long i = 0; i < n; i++) {
        long k = (long)pos[i];
        double f = pos[i] - (double)k;
        grid[k] += q[i] * (1.0 - f);
        grid[k + 1] += q[i] * f;
    }
}

/* an image halved in each direction by averaging 2x2 blocks */
void downsample2(long h, long w, const float *in, float *out)
{
    for (long i = 0; i < h / 2; i++)
        for (long j = 0; j < w / 2; j++)
            out[i * (w / 2) + j] = 0.25f * (in[(2 * i) * w + 2 * j] + in[(2 * i) * w + 2 * j + 1] +
                                            in[(2 * i + 1) * w + 2 * j] + in[(2 * i + 1) * w + 2 * j + 1]);
}

/* a summed-area table */
void summed_area(long h, long w, const double *x, double *S)
{
    for (long i = 0; i < h; i++)
        for (long j = 0; j < w; j++) {
            double s = x[i * w + j];
            if (i > 0)
                s += S[(i - 1) * w + j];
            if (j > 0)
                s += S[i * w + j - 1];
            if (i > 0 && j > 0)
                s -= S[(i - 1) * w + j - 1];
            S[i * w + j] = s;
        }
}

/* an array reversed in place */
void reverse(long n, double *x)
{
    for (long i = 0; i < n / 2; i++) {
        double t = x[i];
        x[i] = x[n - 1 - i];
        x[n - 1 - i] = t;
    }
}

/* sine by its Taylor polynomial, for small angles */
void taylor_sin_f(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++) {
        float a = x[i], a2 = a * a;
        y[i] = a * (1.0f - a2 / 6.0f * (1.0f - a2 / 20.0f * (1.0f - a2 / 42.0f)));
    }
}

__attribute__((noinline)) static double smoothstep(double t)
{
    return t * t * (3.0 - 2.0 * t);
}

/* a helper applied to every element */
void apply_smoothstep(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = smoothstep(x[i]);
}

/* y = A x in single precision */
void sgemv(long m, long n, const float *A, const float *x, float *y)
{
    for (long i = 0; i < m; i++) {
        float s = 0.0f;
        for (long j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

/* row sums of 32-bit integers into 64 bits */
void row_sums_i64(long m, long n, const int32_t *A, int64_t *s)
{
    for (long i = 0; i < m; i++) {
        int64_t t = 0;
        for (long j = 0; j < n; j++)
            t += A[i * n + j];
        s[i] = t;
    }
}

/* where two buffers first differ */
long first_mismatch(long n, const uint8_t *a, const uint8_t *b)
{
    for (long i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return n;
}

/* y = U x with U upper triangular */
void upper_mv(long n, const double *U, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = i; j < n; j++)
            s += U[i * n + j] * x[j];
        y[i] = s;
    }
}

/* angles wrapped into [-pi, pi) */
void wrap_angle(long n, const double *a, double *w)
{
    const double two_pi = 6.283185307179586;
    for (long i = 0; i < n; i++)
        w[i] = a[i] - two_pi * floor((a[i] + 3.141592653589793) / two_pi);
}
