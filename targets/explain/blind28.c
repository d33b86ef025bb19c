/* A twenty-eighth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* the Euclidean norm of every row of a matrix */
void row_norms(long m, long n, const double *A, double *out)
{
    for (long i = 0; i < m; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[i * n + j] * A[i * n + j];
        out[i] = sqrt(s);
    }
}

/* RGB planes to luminance */
void gray_f(long n, const float *r, const float *g, const float *b, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = 0.299 * r[i] + 0.587 * g[i] + 0.114 * b[i];
}

/* a saturating add of 16-bit samples */
void sat_add_i16(long n, const int16_t *a, const int16_t *b, int16_t *y)
{
    for (long i = 0; i < n; i++) {
        int s = a[i] + b[i];
        y[i] = s > 32767 ? 32767 : (s < -32768 ? -32768 : s);
    }
}

/* how often each byte value occurs */
void byte_hist(long n, const uint8_t *x, uint32_t *h)
{
    for (int k = 0; k < 256; k++)
        h[k] = 0;
    for (long i = 0; i < n; i++)
        h[x[i]]++;
}

/* the Lennard-Jones energy of particle pairs (x, y, z held apart) */
double lj_energy(long n, const double *x, const double *y, const double *z)
{
    double e = 0.0;
    for (long i = 0; i < n; i++)
        for (long j = i + 1; j < n; j++) {
            double dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
            double r2 = dx * dx + dy * dy + dz * dz;
            double s6 = 1.0 / (r2 * r2 * r2);
            e += s6 * s6 - s6;
        }
    return 4.0 * e;
}

/* y = L x for L lower triangular, stored in full */
void trmv_lower(long n, const double *L, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j <= i; j++)
            s += L[i * n + j] * x[j];
        y[i] = s;
    }
}

/* one sweep of a 7-point stencil over a cube */
void stencil7(long n, const double *u, double *v)
{
    long s = n * n;
    for (long k = 1; k < n - 1; k++)
        for (long j = 1; j < n - 1; j++)
            for (long i = 1; i < n - 1; i++) {
                long c = k * s + j * n + i;
                v[c] = 0.4 * u[c] + 0.1 * (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + u[c - s] + u[c + s]);
            }
}

/* keys hashed into m buckets */
void hash_mod(long n, uint32_t m, const uint32_t *key, uint32_t *bucket)
{
    for (long i = 0; i < n; i++)
        bucket[i] = (key[i] * 2654435761u) % m;
}

/* a short vector scaled by a team of threads */
void omp_scale_small(long n, double a, double *x)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        x[i] *= a;
}

/* a power law applied to every element */
void pow_curve(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = pow(x[i], 2.5);
}

/* the elements above a threshold, packed to the front */
long compact(long n, double t, const double *x, double *out)
{
    long k = 0;
    for (long i = 0; i < n; i++)
        if (x[i] > t)
            out[k++] = x[i];
    return k;
}

/* an exponential moving average */
void ema(long n, double a, const double *x, double *y)
{
    y[0] = x[0];
    for (long i = 1; i < n; i++)
        y[i] = a * x[i] + (1.0 - a) * y[i - 1];
}
