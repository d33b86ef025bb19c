/* A twenty-first set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* a single-precision dot product unrolled by hand into four sums */
float dot4_f(long n, const float *x, const float *y)
{
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    long i = 0;
    for (; i + 3 < n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++)
        s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

/* each element weighted by its position */
void scale_by_index(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * i;
}

/* elimination below the diagonal, the multiplier divided out at every element */
void gauss_elim(long n, double *A)
{
    for (long k = 0; k < n - 1; k++)
        for (long i = k + 1; i < n; i++)
            for (long j = k + 1; j < n; j++)
                A[i * n + j] -= A[i * n + k] * A[k * n + j] / A[k * n + k];
}

/* the logistic map iterated from each starting point */
void logistic(long n, long steps, double r, const double *x0, double *x)
{
    for (long i = 0; i < n; i++) {
        double v = x0[i];
        for (long t = 0; t < steps; t++)
            v = r * v * (1.0 - v);
        x[i] = v;
    }
}

/* linear interpolation in a table */
void lerp_table(long n, const double *tab, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        long k = (long)x[i];
        double f = x[i] - (double)k;
        y[i] = tab[k] * (1.0 - f) + tab[k + 1] * f;
    }
}

/* every element moved one place to the left */
void shift_left(long n, double *x)
{
    for (long i = 0; i < n - 1; i++)
        x[i] = x[i + 1];
}

/* a geometric sequence written out */
void geometric(long n, double a, double *x)
{
    for (long i = 0; i + 1 < n; i++)
        x[i + 1] = x[i] * a;
}

/* how many values fall in [lo, hi) */
long count_in_range(long n, const int *x, int lo, int hi)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        if (x[i] >= lo && x[i] < hi)
            c++;
    return c;
}

/* a 16-bit image transposed */
void transpose_i16(long h, long w, const int16_t *in, int16_t *out)
{
    for (long i = 0; i < h; i++)
        for (long j = 0; j < w; j++)
            out[j * h + i] = in[i * w + j];
}

/* gradient magnitudes */
void magnitude_f(long n, const float *gx, const float *gy, float *m)
{
    for (long i = 0; i < n; i++)
        m[i] = sqrtf(gx[i] * gx[i] + gy[i] * gy[i]);
}

/* complex products with the parts in separate arrays */
void cmul_soa(long n, const double *ar, const double *ai, const double *br, const double *bi, double *cr, double *ci)
{
    for (long i = 0; i < n; i++) {
        cr[i] = ar[i] * br[i] - ai[i] * bi[i];
        ci[i] = ar[i] * bi[i] + ai[i] * br[i];
    }
}

/* an 8-tap filter */
void fir8(long n, const float *h, const float *x, float *y)
{
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < 8; k++)
            s += h[k] * x[i + k];
        y[i] = s;
    }
}
