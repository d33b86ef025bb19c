/* A fifteenth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* row sums of a matrix stored column by column (Fortran order, leading dimension m) */
void row_sums_cm(long m, long n, const double *A, double *r)
{
    for (long i = 0; i < m; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[j * m + i];
        r[i] = s;
    }
}

/* cubes through pow */
void cubes_pow(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = pow(x[i], 3.0);
}

/* how many a[i] < b[i] */
void count_less(long n, const int *a, const int *b, long *out)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        c += a[i] < b[i];
    out[0] = c;
}

/* sum of absolute differences of two byte images */
void sad_u8(long n, const uint8_t *a, const uint8_t *b, long *out)
{
    int s = 0;
    for (long i = 0; i < n; i++)
        s += abs(a[i] - b[i]);
    out[0] = s;
}

/* y = T x for a tridiagonal T given by its three diagonals */
void tridiag_mv(long n, const double *restrict lo, const double *restrict d, const double *restrict up,
                const double *restrict x, double *restrict y)
{
    y[0] = d[0] * x[0] + up[0] * x[1];
    for (long i = 1; i < n - 1; i++)
        y[i] = lo[i] * x[i - 1] + d[i] * x[i] + up[i] * x[i + 1];
    y[n - 1] = lo[n - 1] * x[n - 2] + d[n - 1] * x[n - 1];
}

/* all pairwise distances between points of the plane */
void distances(long n, const double *px, const double *py, double *D)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double dx = px[i] - px[j], dy = py[i] - py[j];
            D[i * n + j] = sqrt(dx * dx + dy * dy);
        }
}

/* a or b element by element, as a byte mask says */
void select_by_mask(long n, const unsigned char *restrict m, const float *restrict a, const float *restrict b,
                    float *restrict out)
{
    for (long i = 0; i < n; i++)
        out[i] = m[i] ? a[i] : b[i];
}

/* element-wise quotients */
void quotients(long n, const double *restrict x, const double *restrict d, double *restrict y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] / d[i];
}

/* every row scaled by its own factor, rows shared among the threads */
void scale_rows_omp(long m, long n, const double *restrict f, double *restrict A)
{
#pragma omp parallel for
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            A[i * n + j] *= f[i];
}

/* C = A B in single precision, i-j-k order */
void sgemm_ijk(long n, const float *A, const float *B, float *C)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            float s = 0.0f;
            for (long k = 0; k < n; k++)
                s += A[i * n + k] * B[k * n + j];
            C[i * n + j] = s;
        }
}

/* set bits of each word, counted by clearing the lowest one at a time */
void bit_counts(long n, const uint64_t *w, long *c)
{
    for (long i = 0; i < n; i++) {
        uint64_t x = w[i];
        long k = 0;
        while (x) {
            x &= x - 1;
            k++;
        }
        c[i] = k;
    }
}

/* integers clamped to a range */
void clamp_i32(long n, const int *x, int lo, int hi, int *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}
