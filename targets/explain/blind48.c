/* Blind round 48: twelve kernels written before explain ran on any of them. */
#include <math.h>
#include <stdint.h>

/* the running sum of floats */
void prefix_sum_f(long n, const float *x, float *s)
{
    float acc = 0.0f;
    for (long i = 0; i < n; i++) {
        acc += x[i];
        s[i] = acc;
    }
}

/* y = a x + b y */
void axpby(long n, double a, const double *x, double b, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = a * x[i] + b * y[i];
}

/* exp(x) - 1 of every element */
void expm1_map(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = expm1(x[i]);
}

/* the sum of squared differences of two float arrays */
float sum_sq_diff(long n, const float *a, const float *b)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++) {
        float d = a[i] - b[i];
        s += d * d;
    }
    return s;
}

/* an array reversed into another */
void reverse_copy(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[n - 1 - i];
}

/* y = L x for a lower triangular L stored in full */
void tri_lower_mv(long n, const double *L, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j <= i; j++)
            s += L[i * n + j] * x[j];
        y[i] = s;
    }
}

/* the first field of four-field records doubled */
struct rec4 { double a, b, c, d; };

void double_a(long n, struct rec4 *p)
{
    for (long i = 0; i < n; i++)
        p[i].a *= 2.0;
}

/* the fractional part by fmod */
void frac_fmod(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = fmod(x[i], 1.0);
}

/* how many elements are NaN */
long count_nan(long n, const double *x)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        c += isnan(x[i]);
    return c;
}

/* column sums walking each column top to bottom */
void col_sums_cols(long nr, long nc, const double *A, double *out)
{
    for (long j = 0; j < nc; j++) {
        double s = 0.0;
        for (long i = 0; i < nr; i++)
            s += A[i * nc + j];
        out[j] = s;
    }
}

/* a small array scaled on all threads */
void omp_scale_small(long n, const float *x, float *y, float a)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        y[i] = a * x[i];
}

/* ReLU on 8-bit signed values */
void relu_i8(long n, const int8_t *x, int8_t *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] > 0 ? x[i] : 0;
}
