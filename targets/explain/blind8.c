/* An eighth set of kernels written after the rules, in the forms people write them. Each has the one problem named
 * in its comment (the label in targets/explain_cases.py, written before the first run), or none. */
#include <math.h>
#include <stdint.h>

/* a Fortran-style daxpy called from C: the length and the scalar passed by address (aliasing) */
void daxpy_f(const long *n, const double *a, const double *x, double *y)
{
    for (long i = 0; i < *n; i++)
        y[i] += *a * x[i];
}

/* Livermore loop 5, tridiagonal elimination below the diagonal (dependency_chain) */
void tridiag(long n, const double *y, const double *z, double *x)
{
    for (long i = 1; i < n; i++)
        x[i] = z[i] * (y[i] - x[i - 1]);
}

/* the tail of a decaying signal, scaled by a gain: inputs far below the smallest normal float (denormals) */
void gain(long n, float g, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = g * x[i];
}

/* many short dot products of 3-vectors stored one after another, the length a run-time argument (short_trips) */
void dots3(long nb, long len, const double *x, const double *y, double *out)
{
    for (long b = 0; b < nb; b++) {
        double s = 0.0;
        for (long k = 0; k < len; k++)
            s += x[b * len + k] * y[b * len + k];
        out[b] = s;
    }
}

/* the sum of squared deviations from a mean, in double (reduction_chain) */
void sq_dev(long n, const double *x, double mean, double *out)
{
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        double d = x[i] - mean;
        s += d * d;
    }
    out[0] = s;
}

/* an 8-bit image thresholded to black and white (clean) */
void threshold(long n, const uint8_t *src, uint8_t t, uint8_t *out)
{
    for (long i = 0; i < n; i++)
        out[i] = src[i] > t ? 255 : 0;
}

/* a 3-point smoothing of doubles held in L2 (clean) */
void smooth3(long n, const double *x, double *y)
{
    for (long i = 1; i < n - 1; i++)
        y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
}

/* values put into buckets by their share of a range known only at run time, in 64-bit integers (int_div) */
void bucketize(long n, const int64_t *v, int64_t lo, int64_t range, int64_t nb, int64_t *out)
{
    for (long i = 0; i < n; i++)
        out[i] = ((v[i] - lo) * nb) / range;
}

/* gamma correction of float pixels (calls) */
void gamma_f(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = powf(x[i], 2.2f);
}

/* interleaved RGB floats to gray with the usual weights written as double literals (conversions) */
void to_gray(long n, const float *rgb, float *g)
{
    for (long i = 0; i < n; i++)
        g[i] = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
}

/* a float lookup table applied through 8-bit codes (indirect) */
void apply_lut(long n, const uint8_t *code, const float *lut, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = lut[code[i]];
}

/* C = A * B by the k-i-j loop order at a size past L2, no blocking (reuse) */
void mm_kij(long n, const double *A, const double *B, double *C)
{
    for (long i = 0; i < n * n; i++)
        C[i] = 0.0;
    for (long k = 0; k < n; k++)
        for (long i = 0; i < n; i++) {
            double a = A[i * n + k];
            for (long j = 0; j < n; j++)
                C[i * n + j] += a * B[k * n + j];
        }
}
