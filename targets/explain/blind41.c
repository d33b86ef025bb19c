/* Blind round 41: twelve kernels written before explain ran on any of them. */
#include <math.h>
#include <stdint.h>

/* a dense matrix-vector product, row by row */
void matvec_rows(long n, const double *A, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

/* how many of 2..dmax divide each value */
void divisor_counts(long n, const int32_t *a, int32_t dmax, int32_t *c)
{
    for (long i = 0; i < n; i++) {
        int32_t k = 0;
        for (int32_t d = 2; d <= dmax; d++)
            k += (a[i] % d == 0);
        c[i] = k;
    }
}

/* a histogram of 16 bins from the high nibble of each byte */
void hist16(long n, const uint8_t *b, uint32_t *h)
{
    for (long i = 0; i < n; i++)
        h[b[i] >> 4]++;
}

/* one Gauss-Seidel sweep of a 1-D Poisson problem, in place */
void gs_sweep(long n, double *u, const double *f)
{
    for (long i = 1; i < n - 1; i++)
        u[i] = 0.5 * (u[i - 1] + u[i + 1] + f[i]);
}

/* x to the power 1.5 */
void pow15(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = pow(x[i], 1.5);
}

/* a matrix-vector product walking a row-major matrix down its columns */
void matvec_cols(long n, const double *A, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[j * n + i] * x[j];
        y[i] = s;
    }
}

/* y = a x + y on all cores */
void saxpy_omp(long n, float a, const float *x, float *y)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* a float dot product accumulated in double */
double dot_f32_f64(long n, const float *x, const float *y)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += (double)x[i] * y[i];
    return s;
}

/* the number of set bits in an array of words */
long popcount_sum(long n, const uint64_t *w)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        c += __builtin_popcountll(w[i]);
    return c;
}

/* linear interpolation in a table at positions given in table units */
void interp_table(long n, const double *pos, const double *table, double *y)
{
    for (long i = 0; i < n; i++) {
        long k = (long)pos[i];
        double t = pos[i] - (double)k;
        y[i] = table[k] + t * (table[k + 1] - table[k]);
    }
}

/* every element divided by seven, as integers */
void div7(long n, const int32_t *a, int32_t *q)
{
    for (long i = 0; i < n; i++)
        q[i] = a[i] / 7;
}

/* the textbook matrix product, i-j-k */
void matmul_ijk(long n, const float *A, const float *B, float *C)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            float s = 0.0f;
            for (long k = 0; k < n; k++)
                s += A[i * n + k] * B[k * n + j];
            C[i * n + j] = s;
        }
}
