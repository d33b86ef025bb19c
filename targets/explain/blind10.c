/* A tenth set of kernels written after the rules, in the forms people write them. Each has the one problem named
 * in its comment (the label in targets/explain_cases.py, written before the first run), or none. */
#include <math.h>
#include <stdint.h>

/* an exponential moving average of a signal, each output from the last (dependency_chain) */
void ema(long n, double alpha, const double *x, double *y)
{
    double s = x[0];
    for (long i = 0; i < n; i++) {
        s = alpha * x[i] + (1.0 - alpha) * s;
        y[i] = s;
    }
}

/* the L1 distance between two float vectors (reduction_chain) */
void l1_dist(long n, const float *a, const float *b, float *out)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++)
        s += fabsf(a[i] - b[i]);
    out[0] = s;
}

/* a sigmoid of each activation with expf (calls) */
void sigmoid(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = 1.0f / (1.0f + expf(-x[i]));
}

/* a gather of rows of an embedding table by token id, 64 floats a row (clean) */
void embed(long n, long dim, const int32_t *ids, const float *table, float *out)
{
    for (long t = 0; t < n; t++)
        for (long d = 0; d < dim; d++)
            out[t * dim + d] = table[(long)ids[t] * dim + d];
}

/* a 5-point stencil over a grid that fits L2, one sweep (clean) */
void lap5(long n, const double *u, double *v)
{
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            v[i * n + j] = 4.0 * u[i * n + j] - u[(i - 1) * n + j] - u[(i + 1) * n + j] - u[i * n + j - 1]
                           - u[i * n + j + 1];
}

/* a matrix-vector product over a matrix stored column by column, read row by row (strided) */
void gemv_rowwise_colmajor(long n, const double *A, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[j * n + i] * x[j];
        y[i] = s;
    }
}

/* modular exponent digits: each element reduced modulo a run-time prime (int_div) */
void mod_reduce(long n, const int64_t *v, int64_t p, int64_t *out)
{
    for (long i = 0; i < n; i++)
        out[i] = v[i] % p;
}

/* the sum of a double array far past the caches (reduction_chain) */
void big_sum(long n, const double *x, double *out)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i];
    out[0] = s;
}
