/* A thirtieth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* gravitational accelerations of n bodies (softened) */
void nbody_accel(long n, const double *x, const double *y, const double *z, const double *m, double *ax, double *ay,
                 double *az)
{
    for (long i = 0; i < n; i++) {
        double sx = 0.0, sy = 0.0, sz = 0.0;
        for (long j = 0; j < n; j++) {
            double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
            double r2 = dx * dx + dy * dy + dz * dz + 1e-3;
            double inv = 1.0 / sqrt(r2);
            double s = m[j] * inv * inv * inv;
            sx += s * dx;
            sy += s * dy;
            sz += s * dz;
        }
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
    }
}

/* lengths of strings stored in fixed slots of 32 bytes */
void fixed_strlen(long n, const char *s, int *len)
{
    for (long k = 0; k < n; k++) {
        const char *p = s + 32 * k;
        int l = 0;
        while (l < 32 && p[l] != 0)
            l++;
        len[k] = l;
    }
}

/* y = A^T x for a row-major A */
void gemv_t(long m, long n, const double *A, const double *x, double *y)
{
    for (long j = 0; j < n; j++)
        y[j] = 0.0;
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            y[j] += A[i * n + j] * x[i];
}

/* a CRC-32 of a buffer, a byte at a time through a table */
uint32_t crc32_table(long n, const uint8_t *buf, const uint32_t *table)
{
    uint32_t c = 0xffffffffu;
    for (long i = 0; i < n; i++)
        c = table[(c ^ buf[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

/* a horizontal [1 2 1] blur of an 8-bit row */
void blur3_u8(long n, const uint8_t *a, uint8_t *b)
{
    for (long i = 1; i < n - 1; i++)
        b[i] = (uint8_t)((a[i - 1] + 2 * a[i] + a[i + 1] + 2) >> 2);
}

/* magnitudes of complex numbers held as two arrays */
void cabs_hypot(long n, const double *re, const double *im, double *r)
{
    for (long i = 0; i < n; i++)
        r[i] = hypot(re[i], im[i]);
}

/* a square matrix transposed in place */
void transpose_inplace(long n, double *A)
{
    for (long i = 0; i < n; i++)
        for (long j = i + 1; j < n; j++) {
            double t = A[i * n + j];
            A[i * n + j] = A[j * n + i];
            A[j * n + i] = t;
        }
}

/* the mean and variance of a signal in one pass (Welford) */
void welford(long n, const double *x, double *out)
{
    double mean = 0.0, m2 = 0.0;
    for (long i = 0; i < n; i++) {
        double d = x[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (x[i] - mean);
    }
    out[0] = mean;
    out[1] = m2 / (double)n;
}

/* a linear blend with a weight per element */
void lerp(long n, const double *a, const double *b, const double *t, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = a[i] + t[i] * (b[i] - a[i]);
}

/* sums of neighbouring pairs read at random places */
void gather_pairs(long n, const int *idx, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[idx[i]] + x[idx[i] + 1];
}

/* a five-point stencil over a float image */
void stencil5_f(long h, long w, const float *u, float *v)
{
    for (long i = 1; i < h - 1; i++)
        for (long j = 1; j < w - 1; j++)
            v[i * w + j] = 0.5f * u[i * w + j] +
                           0.125f * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
}

/* each row of a matrix divided by its own scale */
void row_divide(long m, long n, const double *s, double *A)
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            A[i * n + j] /= s[i];
}
