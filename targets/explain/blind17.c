/* A seventeenth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* C = A B^T: every element a dot product of two rows */
void abt(long n, const double *A, const double *B, double *C)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double s = 0.0;
            for (long k = 0; k < n; k++)
                s += A[i * n + k] * B[j * n + k];
            C[i * n + j] = s;
        }
}

/* particles kept as records, every field advanced */
struct particle { double x, y, z, vx, vy, vz; };

void aos_drift(long n, double dt, struct particle *p)
{
    for (long i = 0; i < n; i++) {
        p[i].x += dt * p[i].vx;
        p[i].y += dt * p[i].vy;
        p[i].z += dt * p[i].vz;
    }
}

/* each row divided by its own total */
void row_div(long m, long n, double *A, const double *tot)
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            A[i * n + j] = A[i * n + j] / tot[i];
}

/* the symmetric part of a matrix: B = A + A^T */
void sym_add(long n, const double *A, double *B)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            B[i * n + j] = A[i * n + j] + A[j * n + i];
}

/* softplus activation */
void softplus_f(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = logf(1.0f + expf(x[i]));
}

/* how many values pass a threshold, counted by all threads */
long count_omp(long n, const double *x, double t)
{
    long c = 0;
#pragma omp parallel for reduction(+ : c)
    for (long i = 0; i < n; i++)
        if (x[i] > t)
            c++;
    return c;
}

/* a vector update handed out one iteration at a time */
void axpy_dyn1(long n, double a, const double *x, double *y)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (long i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* single-precision data summed in double */
double sum_f2d(long n, const float *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* dot product of two sparse vectors, indices sorted */
double sparse_dot(long na, const int *ia, const double *va, long nb, const int *ib, const double *vb)
{
    long i = 0, j = 0;
    double s = 0.0;
    while (i < na && j < nb) {
        if (ia[i] == ib[j]) {
            s += va[i] * vb[j];
            i++;
            j++;
        } else if (ia[i] < ib[j]) {
            i++;
        } else {
            j++;
        }
    }
    return s;
}

/* absolute differences written with a branch */
void absdiff(long n, const int *a, const int *b, int *d)
{
    for (long i = 0; i < n; i++) {
        if (a[i] > b[i])
            d[i] = a[i] - b[i];
        else
            d[i] = b[i] - a[i];
    }
}

/* flat pixel numbers split into row and column */
void to_rowcol(long n, const long *k, long w, long *r, long *c)
{
    for (long i = 0; i < n; i++) {
        r[i] = k[i] / w;
        c[i] = k[i] % w;
    }
}

/* weights added into bins picked by an index */
void scatter_add(long n, const int *idx, const double *w, double *bins)
{
    for (long i = 0; i < n; i++)
        bins[idx[i]] += w[i];
}
