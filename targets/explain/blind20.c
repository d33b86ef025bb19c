/* A twentieth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* the FNV-1a hash of a buffer */
uint64_t fnv1a(long n, const uint8_t *data)
{
    uint64_t h = 1469598103934665603ULL;
    for (long i = 0; i < n; i++) {
        h ^= data[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* leaky ReLU */
void leaky_relu(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] > 0.0f ? x[i] : 0.01f * x[i];
}

/* the sum of two matrices, written transposed */
void add_t(long n, const double *A, const double *B, double *C)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            C[j * n + i] = A[i * n + j] + B[i * n + j];
}

/* each row scaled to unit length */
void normalize_rows(long m, long n, float *A)
{
    for (long i = 0; i < m; i++) {
        float s = 0.0f;
        for (long j = 0; j < n; j++)
            s += A[i * n + j] * A[i * n + j];
        float r = 1.0f / sqrtf(s);
        for (long j = 0; j < n; j++)
            A[i * n + j] *= r;
    }
}

/* positions moved and wrapped into a periodic box */
void wrap_move(long n, double dt, double L, double *x, const double *v)
{
    for (long i = 0; i < n; i++)
        x[i] = fmod(x[i] + v[i] * dt, L);
}

/* a quantized dense layer: 8-bit weights and inputs, 32-bit sums */
void dense_i8(long m, long n, const int8_t *W, const int8_t *x, int32_t *y)
{
    for (long i = 0; i < m; i++) {
        int32_t s = 0;
        for (long j = 0; j < n; j++)
            s += W[i * n + j] * x[j];
        y[i] = s;
    }
}

/* 32-bit words byte-swapped */
void bswap_all(long n, const uint32_t *in, uint32_t *out)
{
    for (long i = 0; i < n; i++)
        out[i] = __builtin_bswap32(in[i]);
}

/* a 3-D array summed over its middle index */
void sum_middle(long a, long b, long c, const double *T, double *S)
{
    for (long i = 0; i < a; i++)
        for (long k = 0; k < c; k++) {
            double s = 0.0;
            for (long j = 0; j < b; j++)
                s += T[(i * b + j) * c + k];
            S[i * c + k] = s;
        }
}

/* rows updated one after another, each row's elements shared among the threads */
void rows_omp_inner(long m, long n, const double *A, double *B)
{
    for (long i = 1; i < m; i++) {
#pragma omp parallel for
        for (long j = 0; j < n; j++)
            B[i * n + j] = 0.5 * (B[(i - 1) * n + j] + A[i * n + j]);
    }
}

/* an XOR checksum of words */
uint32_t xor_sum(long n, const uint32_t *w)
{
    uint32_t s = 0;
    for (long i = 0; i < n; i++)
        s ^= w[i];
    return s;
}

/* powers of two of real exponents */
void exp2_pow(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = pow(2.0, x[i]);
}

/* 8-bit pixels added with saturation */
void sat_add_u8(long n, const uint8_t *a, const uint8_t *b, uint8_t *c)
{
    for (long i = 0; i < n; i++) {
        int s = a[i] + b[i];
        c[i] = (uint8_t)(s > 255 ? 255 : s);
    }
}
