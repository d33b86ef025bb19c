/* A nineteenth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* the greatest common divisor of each pair */
void gcd_pairs(long n, const int *a, const int *b, int *g)
{
    for (long i = 0; i < n; i++) {
        int x = a[i], y = b[i];
        while (y != 0) {
            int t = x % y;
            x = y;
            y = t;
        }
        g[i] = x;
    }
}

/* sums over a sliding window, each from the last */
void window_sum(long n, long w, const double *x, double *y)
{
    double s = 0.0;
    for (long k = 0; k < w; k++)
        s += x[k];
    y[0] = s;
    for (long i = 1; i + w <= n; i++) {
        s += x[i + w - 1] - x[i - 1];
        y[i] = s;
    }
}

/* a total kept by the threads in turn */
double sum_critical(long n, const double *x)
{
    double s = 0.0;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
#pragma omp critical
        s += x[i];
    }
    return s;
}

/* ASCII letters made capitals */
void upper(long n, const char *src, char *dst)
{
    for (long i = 0; i < n; i++) {
        char c = src[i];
        if (c >= 'a' && c <= 'z')
            c = c - 'a' + 'A';
        dst[i] = c;
    }
}

/* the largest magnitude */
double absmax(long n, const double *x)
{
    double m = 0.0;
    for (long i = 0; i < n; i++)
        if (fabs(x[i]) > m)
            m = fabs(x[i]);
    return m;
}

/* squared magnitudes of complex numbers stored as (re, im) pairs */
void cabs2(long n, const double *z, double *p)
{
    for (long i = 0; i < n; i++)
        p[i] = z[2 * i] * z[2 * i] + z[2 * i + 1] * z[2 * i + 1];
}

/* set bits counted in each word */
void popcounts(long n, const uint64_t *w, uint8_t *c)
{
    for (long i = 0; i < n; i++)
        c[i] = (uint8_t)__builtin_popcountll(w[i]);
}

/* three colour planes interleaved into pixels */
void interleave_rgb(long n, const float *r, const float *g, const float *b, float *rgb)
{
    for (long i = 0; i < n; i++) {
        rgb[3 * i] = r[i];
        rgb[3 * i + 1] = g[i];
        rgb[3 * i + 2] = b[i];
    }
}

/* a histogram of values in [lo, hi) */
void float_hist(long n, const float *x, float lo, float hi, int nb, int *h)
{
    float scale = nb / (hi - lo);
    for (long i = 0; i < n; i++) {
        int k = (int)((x[i] - lo) * scale);
        if (k >= 0 && k < nb)
            h[k]++;
    }
}

/* angles of points */
void angles(long n, const double *x, const double *y, double *a)
{
    for (long i = 0; i < n; i++)
        a[i] = atan2(y[i], x[i]);
}

/* a dot product the source asks to vectorize */
double dot_simd(long n, const double *x, const double *y)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* each row less a multiple of the pivot row, as a step of elimination does */
void eliminate(long m, long n, long k, double *A)
{
    for (long i = k + 1; i < m; i++) {
        double l = A[i * n + k] / A[k * n + k];
        for (long j = k; j < n; j++)
            A[i * n + j] -= l * A[k * n + j];
    }
}
