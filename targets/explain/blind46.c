/* Blind round 46: twelve kernels written before explain ran on any of them. */
#include <math.h>
#include <stdint.h>

/* a Jacobi sweep of a 2-D Laplace problem, into a second grid */
void jacobi2d(long n, const double *u, double *v)
{
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}

/* the maximum absolute difference of two arrays */
double max_abs_diff(long n, const double *a, const double *b)
{
    double m = 0.0;
    for (long i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (d > m)
            m = d;
    }
    return m;
}

/* a table of sines at given angles */
void sines(long n, const float *a, float *s)
{
    for (long i = 0; i < n; i++)
        s[i] = sinf(a[i]);
}

/* the inverse of a permutation */
void invert_perm(long n, const int32_t *p, int32_t *q)
{
    for (long i = 0; i < n; i++)
        q[p[i]] = (int32_t)i;
}

/* a matrix transposed into another */
void transpose(long n, const float *A, float *B)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            B[j * n + i] = A[i * n + j];
}

/* the number of elements below a threshold, branchy */
long count_below(long n, const float *x, float t)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        if (x[i] < t)
            c++;
    return c;
}

/* a sum of squares of differences from a mean computed in the same pass */
double running_var(long n, const double *x)
{
    double mean = 0.0, m2 = 0.0;
    for (long i = 0; i < n; i++) {
        double d = x[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (x[i] - mean);
    }
    return m2 / (double)n;
}

/* a scale of every row by its own factor */
void scale_rows(long nr, long nc, double *A, const double *f)
{
    for (long i = 0; i < nr; i++)
        for (long j = 0; j < nc; j++)
            A[i * nc + j] *= f[i];
}

/* integer modulo by a run-time modulus */
void mod_all(long n, const int64_t *a, int64_t m, int64_t *r)
{
    for (long i = 0; i < n; i++)
        r[i] = a[i] % m;
}

/* the dot product of two float vectors */
float sdot(long n, const float *x, const float *y)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* a weighted sum over a CSR sparse matrix's rows, each row's nonzeros */
void csr_spmv(long nrows, const int32_t *rowptr, const int32_t *col, const double *val, const double *x, double *y)
{
    for (long i = 0; i < nrows; i++) {
        double s = 0.0;
        for (int32_t k = rowptr[i]; k < rowptr[i + 1]; k++)
            s += val[k] * x[col[k]];
        y[i] = s;
    }
}

/* a clamp of every element into [lo, hi] */
void clamp(long n, double *x, double lo, double hi)
{
    for (long i = 0; i < n; i++)
        x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}
