/* A ninth set of kernels written after the rules, in the forms people write them. Each has the one problem named
 * in its comment (the label in targets/explain_cases.py, written before the first run), or none. */
#include <math.h>
#include <stdint.h>

/* Livermore loop 1, a hydro fragment, in L2 (clean) */
void hydro(long n, double q, double r, double t, const double *y, const double *z, double *x)
{
    for (long k = 0; k < n; k++)
        x[k] = q + y[k] * (r * z[k + 10] + t * z[k + 11]);
}

/* Livermore loop 11, a first sum (dependency_chain) */
void first_sum(long n, const double *y, double *x)
{
    x[0] = y[0];
    for (long k = 1; k < n; k++)
        x[k] = x[k - 1] + y[k];
}

/* the ReLU of a float activation in place, in L2 (clean) */
void relu(long n, float *x)
{
    for (long i = 0; i < n; i++)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/* a dense layer's forward pass for one input: y = W x + b, W row-major, the dot products in float (reduction_chain) */
void dense(long m, long k, const float *W, const float *x, const float *b, float *y)
{
    for (long i = 0; i < m; i++) {
        float s = b[i];
        for (long j = 0; j < k; j++)
            s += W[i * k + j] * x[j];
        y[i] = s;
    }
}

/* the angle of each complex sample of a signal stored as separate real and imaginary arrays (calls) */
void phase(long n, const double *re, const double *im, double *ph)
{
    for (long i = 0; i < n; i++)
        ph[i] = atan2(im[i], re[i]);
}

/* the columns of a matrix summed by walking down each column (strided) */
void col_sums(long rows, long cols, const double *a, double *s)
{
    for (long j = 0; j < cols; j++) {
        double acc = 0.0;
        for (long i = 0; i < rows; i++)
            acc += a[i * cols + j];
        s[j] = acc;
    }
}

/* cell indices of particles on a grid, by integer division of a flattened index (int_div) */
void cells(long n, const int32_t *flat, int32_t width, int32_t *cx, int32_t *cy)
{
    for (long i = 0; i < n; i++) {
        cx[i] = flat[i] % width;
        cy[i] = flat[i] / width;
    }
}

/* a CSR sparse matrix times a vector, one row at a time (indirect) */
void csr_mv(long nrows, const int32_t *rowptr, const int32_t *col, const double *val, const double *x, double *y)
{
    for (long r = 0; r < nrows; r++) {
        double s = 0.0;
        for (int32_t p = rowptr[r]; p < rowptr[r + 1]; p++)
            s += val[p] * x[col[p]];
        y[r] = s;
    }
}

/* a 2-D heat step on a grid far past the caches, one thread (single_thread) */
void heat2d(long n, const double *u, double *v)
{
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            v[i * n + j] = u[i * n + j] + 0.1 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1]
                                                + u[i * n + j + 1] - 4.0 * u[i * n + j]);
}

/* clamping of doubles to a range with fmin and fmax, in L2 (clean) */
void clamp_d(long n, const double *x, double lo, double hi, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = fmin(fmax(x[i], lo), hi);
}

/* the maximum of a double array with a branch on each element (reduction_chain) */
void max_of(long n, const double *x, double *out)
{
    double m = x[0];
    for (long i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    out[0] = m;
}

/* a matrix-vector product with the matrix column-major, one thread, columns added into y (clean) */
void gemv_cols(long n, const double *A, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = 0.0;
    for (long j = 0; j < n; j++) {
        double xj = x[j];
        for (long i = 0; i < n; i++)
            y[i] += A[j * n + i] * xj;
    }
}
