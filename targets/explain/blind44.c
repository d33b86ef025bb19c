/* Blind round 44: twelve kernels written before explain ran on any of them. */
#include <math.h>
#include <stdint.h>

/* an exponential moving average */
void ema_filter(long n, const double *x, double alpha, double *y)
{
    double m = x[0];
    for (long i = 0; i < n; i++) {
        m = alpha * x[i] + (1.0 - alpha) * m;
        y[i] = m;
    }
}

/* a polynomial string hash */
uint32_t string_hash(long n, const uint8_t *s)
{
    uint32_t h = 0;
    for (long i = 0; i < n; i++)
        h = h * 31u + s[i];
    return h;
}

/* the sum of logarithms */
double log_sum(long n, const double *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += log(x[i]);
    return s;
}

/* how many positions hold equal values */
long count_equal(long n, const int32_t *a, const int32_t *b)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        if (a[i] == b[i])
            c++;
    return c;
}

/* a byte copy written as a loop */
void byte_copy(long n, const uint8_t *src, uint8_t *dst)
{
    for (long i = 0; i < n; i++)
        dst[i] = src[i];
}

/* a multiplicative hash of 64-bit keys */
void lcg_hash(long n, const uint64_t *k, uint64_t *h)
{
    for (long i = 0; i < n; i++)
        h[i] = (k[i] * 6364136223846793005ull + 1442695040888963407ull) >> 33;
}

/* twice every element, one iteration at a time from a shared queue */
void omp_dynamic1(long n, const double *x, double *y)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (long i = 0; i < n; i++)
        y[i] = 2.0 * x[i];
}

/* complex products with real and imaginary parts in separate arrays */
void complex_mul_split(long n, const double *ar, const double *ai, const double *br, const double *bi,
                       double *cr, double *ci)
{
    for (long i = 0; i < n; i++) {
        cr[i] = ar[i] * br[i] - ai[i] * bi[i];
        ci[i] = ar[i] * bi[i] + ai[i] * br[i];
    }
}

/* forward substitution with a lower triangular matrix */
void forward_subst(long n, const double *L, const double *b, double *x)
{
    for (long i = 0; i < n; i++) {
        double s = b[i];
        for (long j = 0; j < i; j++)
            s -= L[i * n + j] * x[j];
        x[i] = s / L[i * n + i];
    }
}

/* a horizontal three-pixel box filter on 8-bit pixels */
void box3_u8(long n, const uint8_t *src, uint8_t *dst)
{
    for (long i = 1; i < n - 1; i++)
        dst[i] = (uint8_t)((src[i - 1] + src[i] + src[i + 1]) / 3);
}

/* points stored as x, y, z triples split into three arrays */
void soa_from_aos(long n, const double *p, double *x, double *y, double *z)
{
    for (long i = 0; i < n; i++) {
        x[i] = p[3 * i];
        y[i] = p[3 * i + 1];
        z[i] = p[3 * i + 2];
    }
}

/* a 3-D array summed over its first index for every (y, x) */
void sum_over_z(long nz, long ny, long nx, const double *A, double *out)
{
    for (long y = 0; y < ny; y++)
        for (long x = 0; x < nx; x++) {
            double s = 0.0;
            for (long z = 0; z < nz; z++)
                s += A[(z * ny + y) * nx + x];
            out[y * nx + x] = s;
        }
}
