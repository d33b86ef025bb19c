/* A thirty-third set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* the sum of squares of 32-bit integers */
int64_t sumsq_i32(long n, const int32_t *x)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += (int64_t)x[i] * x[i];
    return s;
}

/* each column of a row-major matrix scaled by its own factor */
void scale_cols(long m, long n, const double *s, double *A)
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            A[i * n + j] *= s[j];
}

/* the Gram matrix of the rows of X */
void gram(long n, long d, const double *X, double *G)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double s = 0.0;
            for (long k = 0; k < d; k++)
                s += X[i * d + k] * X[j * d + k];
            G[i * n + j] = s;
        }
}

/* the digit counts of one radix-sort pass */
void radix_count(long n, int shift, const uint32_t *x, uint32_t *cnt)
{
    for (int b = 0; b < 256; b++)
        cnt[b] = 0;
    for (long i = 0; i < n; i++)
        cnt[(x[i] >> shift) & 255]++;
}

/* linear interpolation at sorted query points */
void interp_sorted(long n, const double *xs, const double *ys, long m, const double *q, double *out)
{
    long j = 0;
    for (long k = 0; k < m; k++) {
        while (j < n - 2 && xs[j + 1] < q[k])
            j++;
        double t = (q[k] - xs[j]) / (xs[j + 1] - xs[j]);
        out[k] = ys[j] + t * (ys[j + 1] - ys[j]);
    }
}

/* a polynomial of degree seven at every point */
void polyval7(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double v = x[i];
        y[i] = 1.0 + v * (0.5 + v * (0.25 + v * (0.125 + v * (0.0625 + v * (0.03125 + v * (0.015625 + v *
               0.0078125))))));
    }
}

/* the angles of points in the plane */
void angles(long n, const double *x, const double *y, double *a)
{
    for (long i = 0; i < n; i++)
        a[i] = atan2(y[i], x[i]);
}

/* doubles narrowed to floats */
void narrow(long n, const double *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = (float)x[i];
}

/* where the smallest element is */
long argmin(long n, const double *x)
{
    long k = 0;
    double best = x[0];
    for (long i = 1; i < n; i++)
        if (x[i] < best) {
            best = x[i];
            k = i;
        }
    return k;
}

/* a running product */
void cumprod(long n, const double *x, double *p)
{
    double acc = 1.0;
    for (long i = 0; i < n; i++) {
        acc *= x[i];
        p[i] = acc;
    }
}

/* how many of the positions asked for are set in a bitmap */
long bitmap_hits(long n, const uint32_t *pos, const uint64_t *bm)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        c += (bm[pos[i] >> 6] >> (pos[i] & 63)) & 1;
    return c;
}

/* the mean of each row */
void row_means(long m, long n, const double *A, double *mu)
{
    for (long i = 0; i < m; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[i * n + j];
        mu[i] = s / n;
    }
}
