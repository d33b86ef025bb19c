/* A thirty-fifth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* a weighted sum added into the caller's accumulator */
void accum_weighted(long n, const double *x, const double *w, double *sum)
{
    for (long i = 0; i < n; i++)
        *sum += x[i] * w[i];
}

/* each value wrapped into [0, p) by the C library's remainder */
void wrap_fmod(long n, double p, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = fmod(x[i], p);
}

/* a multiplicative hash of 64-bit keys, keeping the high half */
void hash_keys(long n, const uint64_t *k, uint32_t *h)
{
    for (long i = 0; i < n; i++)
        h[i] = (uint32_t)((k[i] * 0x9E3779B97F4A7C15ull) >> 32);
}

/* out = in transposed, in 32 x 32 tiles */
void transpose_tiled(long n, const double *in, double *out)
{
    for (long ii = 0; ii < n; ii += 32)
        for (long jj = 0; jj < n; jj += 32)
            for (long i = ii; i < ii + 32 && i < n; i++)
                for (long j = jj; j < jj + 32 && j < n; j++)
                    out[j * n + i] = in[i * n + j];
}

/* the complex inner product of two vectors kept as separate real and imaginary parts */
void cdot_split(long n, const double *ar, const double *ai, const double *br, const double *bi, double *out)
{
    double sr = 0.0, si = 0.0;
    for (long i = 0; i < n; i++) {
        sr += ar[i] * br[i] + ai[i] * bi[i];
        si += ar[i] * bi[i] - ai[i] * br[i];
    }
    out[0] = sr;
    out[1] = si;
}

/* y = A x in compressed sparse rows, rows shared between threads */
void spmv_rows_omp(long m, const int *ptr, const int *col, const double *val, const double *x, double *y)
{
#pragma omp parallel for
    for (long i = 0; i < m; i++) {
        double s = 0.0;
        for (int k = ptr[i]; k < ptr[i + 1]; k++)
            s += val[k] * x[col[k]];
        y[i] = s;
    }
}

/* 2 x 2 max pooling of a float image */
void maxpool2(long h, long w, const float *in, float *out)
{
    for (long i = 0; i < h / 2; i++)
        for (long j = 0; j < w / 2; j++) {
            float a = fmaxf(in[(2 * i) * w + 2 * j], in[(2 * i) * w + 2 * j + 1]);
            float b = fmaxf(in[(2 * i + 1) * w + 2 * j], in[(2 * i + 1) * w + 2 * j + 1]);
            out[i * (w / 2) + j] = fmaxf(a, b);
        }
}

/* the running minimum along each row */
void row_cummin(long m, long n, const double *a, double *out)
{
    for (long i = 0; i < m; i++) {
        double c = a[i * n];
        for (long j = 0; j < n; j++) {
            c = a[i * n + j] < c ? a[i * n + j] : c;
            out[i * n + j] = c;
        }
    }
}

/* Black-Scholes call prices in single precision */
void bs_call(long n, float r, float v, const float *s, const float *k, const float *t, float *c)
{
    for (long i = 0; i < n; i++) {
        float sq = v * sqrtf(t[i]);
        float d1 = (logf(s[i] / k[i]) + (r + 0.5f * v * v) * t[i]) / sq;
        float d2 = d1 - sq;
        float n1 = 0.5f * (1.0f + erff(d1 * 0.70710678f));
        float n2 = 0.5f * (1.0f + erff(d2 * 0.70710678f));
        c[i] = s[i] * n1 - k[i] * expf(-r * t[i]) * n2;
    }
}

/* the sum of a 3-D field stored [i][j][k], walked k, j, i */
double sum3d(long n, const double *a)
{
    double s = 0.0;
    for (long k = 0; k < n; k++)
        for (long j = 0; j < n; j++)
            for (long i = 0; i < n; i++)
                s += a[(i * n + j) * n + k];
    return s;
}

/* y += x times a factor the caller passes by address */
void axpy_ref(long n, const float *x, const float *a, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] += x[i] * *a;
}

/* 12-bit samples scaled down to 8 bits, saturating */
void u12_to_u8(long n, const uint16_t *in, uint8_t *out)
{
    for (long i = 0; i < n; i++) {
        unsigned v = in[i] >> 4;
        out[i] = v > 255 ? 255 : v;
    }
}
