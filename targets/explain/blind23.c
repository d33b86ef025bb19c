/* A twenty-third set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* the largest absolute value of integers */
int absmax_i32(long n, const int *x)
{
    int m = 0;
    for (long i = 0; i < n; i++) {
        int a = abs(x[i]);
        if (a > m)
            m = a;
    }
    return m;
}

/* one 4x4 matrix applied to many 4-vectors */
void mv4_batch(long n, const float *M, const float *v, float *out)
{
    for (long i = 0; i < n; i++)
        for (int r = 0; r < 4; r++) {
            float s = 0.0f;
            for (int c = 0; c < 4; c++)
                s += M[r * 4 + c] * v[i * 4 + c];
            out[i * 4 + r] = s;
        }
}

/* root-mean-square error of a prediction */
float rmse_f(long n, const float *pred, const float *obs)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++) {
        float d = pred[i] - obs[i];
        s += d * d;
    }
    return sqrtf(s / n);
}

/* the minimum over a window of three */
void min3(long n, const double *x, double *y)
{
    for (long i = 1; i < n - 1; i++) {
        double a = x[i - 1] < x[i] ? x[i - 1] : x[i];
        y[i] = a < x[i + 1] ? a : x[i + 1];
    }
}

/* square roots by five Newton steps */
void newton_sqrt(long n, const double *a, double *r)
{
    for (long i = 0; i < n; i++) {
        double x = a[i] > 1.0 ? a[i] : 1.0;
        for (int k = 0; k < 5; k++)
            x = 0.5 * (x + a[i] / x);
        r[i] = x;
    }
}

/* two 8-bit images blended by an alpha channel */
void blend_u8(long n, const uint8_t *x, const uint8_t *y, const uint8_t *alpha, uint8_t *out)
{
    for (long i = 0; i < n; i++)
        out[i] = (uint8_t)((alpha[i] * x[i] + (255 - alpha[i]) * y[i]) / 255);
}

struct body { double x, y, z, vx, vy, vz, m; };

/* bodies moved along x only */
void advance_x(long n, double dt, struct body *b)
{
    for (long i = 0; i < n; i++)
        b[i].x += dt * b[i].vx;
}

/* a small grid updated by all the threads */
void grid_omp_small(long h, long w, const double *u, double *v)
{
#pragma omp parallel for collapse(2)
    for (long i = 0; i < h; i++)
        for (long j = 0; j < w; j++)
            v[i * w + j] = 0.5 * u[i * w + j] + 1.0;
}

/* single-precision data through the double exp */
void exp_via_double(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = (float)exp(x[i]);
}

/* column sums taken row by row */
void col_sums(long m, long n, const float *A, float *s)
{
    for (long j = 0; j < n; j++)
        s[j] = 0.0f;
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            s[j] += A[i * n + j];
}

/* an array scaled from its end to its start */
void scale_backward(long n, double a, double *x)
{
    for (long i = n - 1; i >= 0; i--)
        x[i] *= a;
}

/* where the first NaN is */
long first_nan(long n, const double *x)
{
    for (long i = 0; i < n; i++)
        if (isnan(x[i]))
            return i;
    return -1;
}
