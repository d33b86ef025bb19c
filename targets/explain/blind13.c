/* A thirteenth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <complex.h>
#include <math.h>
#include <stdint.h>

/* softened gravitational acceleration of every body from all others (one body against a block of sources) */
void nbody_acc(long n, const double *px, const double *py, const double *pz, const double *m,
               double *ax, double *ay, double *az)
{
    const double eps2 = 1e-3;
    for (long i = 0; i < n; i++) {
        double fx = 0.0, fy = 0.0, fz = 0.0;
        for (long j = 0; j < n; j++) {
            double dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double inv = m[j] / (r2 * sqrt(r2));
            fx += dx * inv;
            fy += dy * inv;
            fz += dz * inv;
        }
        ax[i] = fx;
        ay[i] = fy;
        az[i] = fz;
    }
}

/* BLAS-style daxpy with increments, called with incx = incy = 8 */
void axpy_inc(long n, double a, const double *x, long incx, double *y, long incy)
{
    for (long i = 0; i < n; i++)
        y[i * incy] += a * x[i * incx];
}

/* single-precision dot product */
float dot_f32(long n, const float *x, const float *y)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* histogram of byte values */
void byte_hist(long n, const unsigned char *data, long *hist)
{
    for (long i = 0; i < 256; i++)
        hist[i] = 0;
    for (long i = 0; i < n; i++)
        hist[data[i]]++;
}

/* uniform numbers from a 64-bit linear congruential generator */
void lcg_fill(long n, uint64_t seed, double *out)
{
    uint64_t s = seed;
    for (long i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        out[i] = (double)(s >> 11) * (1.0 / 9007199254740992.0);
    }
}

/* PolyBench's trmm: B = alpha * A^T B with A unit lower triangular, in its loop order */
void trmm(long m, long n, double alpha, double A[m][m], double B[m][n])
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++) {
            for (long k = i + 1; k < m; k++)
                B[i][j] += A[k][i] * B[k][j];
            B[i][j] = alpha * B[i][j];
        }
}

/* PolyBench's gemver, its second loop: x = x + beta * A^T y, walked as written */
void gemver_x(long n, double beta, double A[n][n], const double *y, double *x)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            x[i] = x[i] + beta * A[j][i] * y[j];
}

/* a parallel sum of squares, called on short vectors */
void sumsq_omp(long n, const double *x, double *out)
{
    double s = 0.0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += x[i] * x[i];
    out[0] = s;
}

/* y += a x on complex vectors with C99 complex arithmetic */
void zaxpy(long n, double ar, double ai, const double complex *x, double complex *y)
{
    double complex a = ar + ai * I;
    for (long i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* sum of 64-bit integers */
void isum64(long n, const int64_t *v, int64_t *out)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += v[i];
    out[0] = s;
}

/* one leapfrog step of the 1-D wave equation */
void wave_step(long n, double c2, const double *restrict up, const double *restrict u, double *restrict un)
{
    for (long i = 1; i < n - 1; i++)
        un[i] = 2.0 * u[i] - up[i] + c2 * (u[i + 1] - 2.0 * u[i] + u[i - 1]);
}

/* largest value, NaN-aware through fmax */
void max_fmax(long n, const double *x, double *out)
{
    double m = -INFINITY;
    for (long i = 0; i < n; i++)
        m = fmax(m, x[i]);
    out[0] = m;
}
