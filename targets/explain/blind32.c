/* A thirty-second set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* a softmax over each row of a float matrix */
void softmax_rows(long m, long n, const float *x, float *y)
{
    for (long i = 0; i < m; i++) {
        const float *r = x + i * n;
        float mx = r[0];
        for (long j = 1; j < n; j++)
            mx = r[j] > mx ? r[j] : mx;
        float s = 0.0f;
        for (long j = 0; j < n; j++) {
            y[i * n + j] = expf(r[j] - mx);
            s += y[i * n + j];
        }
        for (long j = 0; j < n; j++)
            y[i * n + j] /= s;
    }
}

/* one upwind step of linear advection */
void upwind(long n, double c, const double *u, double *v)
{
    v[0] = u[0];
    for (long i = 1; i < n; i++)
        v[i] = u[i] - c * (u[i] - u[i - 1]);
}

/* the sum of absolute differences of two float signals */
float sad_f(long n, const float *a, const float *b)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++)
        s += fabsf(a[i] - b[i]);
    return s;
}

/* keys counted into nb buckets by their remainder */
void hist_mod(long n, uint32_t nb, const uint32_t *key, uint32_t *h)
{
    for (uint32_t b = 0; b < nb; b++)
        h[b] = 0;
    for (long i = 0; i < n; i++)
        h[key[i] % nb]++;
}

/* a large array clamped by a team of threads */
void clamp_omp_big(long n, double lo, double hi, const double *x, double *y)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        double v = x[i];
        y[i] = v < lo ? lo : (v > hi ? hi : v);
    }
}

/* points rotated by one angle */
void rotate(long n, double c, double s, const double *x, const double *y, double *xr, double *yr)
{
    for (long i = 0; i < n; i++) {
        xr[i] = c * x[i] - s * y[i];
        yr[i] = s * x[i] + c * y[i];
    }
}

/* the log-likelihood of positive samples */
double log_sum(long n, const double *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += log(x[i]);
    return s;
}

/* escape times of points of the complex plane */
void escape(long n, const double *cr, const double *ci, int *it)
{
    for (long p = 0; p < n; p++) {
        double zr = 0.0, zi = 0.0;
        int k = 0;
        while (k < 256 && zr * zr + zi * zi < 4.0) {
            double t = zr * zr - zi * zi + cr[p];
            zi = 2.0 * zr * zi + ci[p];
            zr = t;
            k++;
        }
        it[p] = k;
    }
}

/* y += a x, scattered through an index */
void scatter_axpy(long n, double a, const int *idx, const double *x, double *y)
{
    for (long k = 0; k < n; k++)
        y[idx[k]] += a * x[k];
}

/* values divided by integer counts */
void div_counts(long n, const double *x, const int *k, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] / (double)k[i];
}

/* a running OR of bit masks */
void prefix_or(long n, const uint64_t *m, uint64_t *out)
{
    uint64_t acc = 0;
    for (long i = 0; i < n; i++) {
        acc |= m[i];
        out[i] = acc;
    }
}

/* 3-vectors scaled to unit length */
void normalize3(long n, double *v)
{
    for (long i = 0; i < n; i++) {
        double x = v[3 * i], y = v[3 * i + 1], z = v[3 * i + 2];
        double len = sqrt(x * x + y * y + z * z);
        v[3 * i] = x / len;
        v[3 * i + 1] = y / len;
        v[3 * i + 2] = z / len;
    }
}
