/* Blind round 43: twelve kernels written before explain ran on any of them. */
#include <math.h>
#include <stdint.h>

/* normalise 3-D vectors stored as structures of three floats */
struct vec3 { float x, y, z; };

void normalize_vec3(long n, struct vec3 *v)
{
    for (long i = 0; i < n; i++) {
        float len = sqrtf(v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z);
        v[i].x /= len;
        v[i].y /= len;
        v[i].z /= len;
    }
}

/* the symmetric part of a square matrix: B = A + A^T */
void add_transpose(long n, const double *A, double *B)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            B[i * n + j] = A[i * n + j] + A[j * n + i];
}

/* a leaky ReLU */
void leaky_relu(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] > 0.0f ? x[i] : 0.01f * x[i];
}

/* y = a x + y with BLAS-style increments */
void axpy_inc(long n, double a, const double *x, long incx, double *y, long incy)
{
    for (long i = 0; i < n; i++)
        y[i * incy] += a * x[i * incx];
}

/* a dot product of 8-bit integers */
int32_t dot_i8(long n, const int8_t *a, const int8_t *b)
{
    int32_t s = 0;
    for (long i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* the matrix product in j-k-i order */
void matmul_jki(long n, const double *A, const double *B, double *C)
{
    for (long j = 0; j < n; j++)
        for (long k = 0; k < n; k++) {
            double b = B[k * n + j];
            for (long i = 0; i < n; i++)
                C[i * n + j] += A[i * n + k] * b;
        }
}

/* a sum on all threads with a reduction clause */
double omp_sum(long n, const double *x)
{
    double s = 0.0;
#pragma omp parallel for reduction(+:s)
    for (long i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* element-wise quotients */
void divide_arrays(long n, const double *x, const double *z, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] / z[i];
}

/* Gaussian weights of distances */
void gauss_weights(long n, const double *d, double *w)
{
    for (long i = 0; i < n; i++)
        w[i] = exp(-0.5 * d[i] * d[i]);
}

/* two arrays interleaved into one */
void interleave2(long n, const float *a, const float *b, float *out)
{
    for (long i = 0; i < n; i++) {
        out[2 * i] = a[i];
        out[2 * i + 1] = b[i];
    }
}

/* ASCII letters to upper case */
void to_upper(long n, uint8_t *s)
{
    for (long i = 0; i < n; i++)
        if (s[i] >= 'a' && s[i] <= 'z')
            s[i] -= 32;
}

/* column sums of a row-major matrix, walked row by row */
void col_sums_rows(long nr, long nc, const double *A, double *out)
{
    for (long i = 0; i < nr; i++)
        for (long j = 0; j < nc; j++)
            out[j] += A[i * nc + j];
}
