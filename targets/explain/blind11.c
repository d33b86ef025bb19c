/* An eleventh set of kernels written after the rules, in the forms people write them. Each has the one problem named
 * in its comment (the label in targets/explain_cases.py, written before the first run), or none. */
#include <stdint.h>
#include <math.h>

/* the running product of a series of growth factors (dependency_chain) */
void cumprod(long n, const double *x, double *y)
{
    double p = 1.0;
    for (long i = 0; i < n; i++) {
        p *= x[i];
        y[i] = p;
    }
}

/* the squared norm of a float vector (reduction_chain) */
void sumsq_f(long n, const float *x, float *out)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++)
        s += x[i] * x[i];
    *out = s;
}

/* an out-of-place transpose, written row by row (strided) */
void transpose(long n, const double *A, double *B)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            B[j * n + i] = A[i * n + j];
}

/* how many readings exceed a threshold (clean) */
void count_above(long n, const float *x, float t, long *count)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        if (x[i] > t)
            c++;
    *count = c;
}

/* a power law applied to each value (calls) */
void power_law(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = powf(x[i], 2.5f);
}

/* particles stored as structs; only the position moves (strided) */
struct particle { double x, y, z, vx, vy, vz, m, q; };

void drift_x(long n, double dt, struct particle *p)
{
    for (long i = 0; i < n; i++)
        p[i].x += p[i].vx * dt;
}

/* an affine map of float data with double constants (conversions) */
void affine_f(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * 0.5 + 1.0;
}

/* the sum of a large array of 64-bit integers (clean) */
void big_isum(long n, const int64_t *x, int64_t *out)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += x[i];
    *out = s;
}

/* one sweep of an in-place 1D smoother, each point from its already-updated left neighbour (dependency_chain) */
void smooth_inplace(long n, double c, double *u)
{
    for (long i = 1; i < n - 1; i++)
        u[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

/* y = A^T x accumulated row by row: contiguous, vectorizable (clean) */
void gemv_t(long n, const double *A, const double *x, double *y)
{
    for (long j = 0; j < n; j++)
        y[j] = 0.0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            y[j] += A[i * n + j] * x[i];
}

/* which bucket of a run-time width each value falls in (int_div) */
void bucket_of(long n, const int32_t *v, int32_t width, int32_t *b)
{
    for (long i = 0; i < n; i++)
        b[i] = v[i] / width;
}

/* a lookup through a small table by index (indirect) */
void lut_apply(long n, const uint8_t *idx, const float *table, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = table[idx[i]];
}
