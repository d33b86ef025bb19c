/* A fortieth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <complex.h>
#include <math.h>
#include <stdint.h>

/* the modulus of each complex sample */
void complex_abs(long n, const double complex *z, double *m)
{
    for (long i = 0; i < n; i++)
        m[i] = cabs(z[i]);
}

/* one Jacobi sweep of a 1-D rod, shared between threads */
void rod_sweep_omp(long n, const double *u, double *v)
{
#pragma omp parallel for
    for (long i = 1; i < n - 1; i++)
        v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
}

/* the sum of every eighth element */
double sum_every8(long n, const double *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i += 8)
        s += x[i];
    return s;
}

/* a smoothstep of float samples, with its constants written as doubles */
void smoothstep(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * x[i] * (3.0 - 2.0 * x[i]);
}

/* the sum of square roots */
double sum_sqrt(long n, const double *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += sqrt(x[i]);
    return s;
}

/* scale a large vector in place */
void scale_inplace(long n, double a, double *x)
{
    for (long i = 0; i < n; i++)
        x[i] *= a;
}

/* the position of the largest magnitude */
long argmax_abs(long n, const double *x)
{
    long best = 0;
    double m = fabs(x[0]);
    for (long i = 1; i < n; i++)
        if (fabs(x[i]) > m) {
            m = fabs(x[i]);
            best = i;
        }
    return best;
}

/* walk a linked list stored as next indices, summing its values */
double list_sum(long n, const int32_t *next, const double *val)
{
    double s = 0.0;
    int32_t k = 0;
    for (long i = 0; i < n; i++) {
        s += val[k];
        k = next[k];
    }
    return s;
}

/* quantise floats to integers, rounding to nearest */
void quantise(long n, const float *x, int32_t *q)
{
    for (long i = 0; i < n; i++)
        q[i] = (int32_t)lrintf(x[i]);
}

/* integer division of every element by a run-time divisor */
void idiv_all(long n, const int32_t *x, int32_t d, int32_t *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] / d;
}

/* a running total of integer counts */
void prefix_counts(long n, const int32_t *c, int64_t *total)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++) {
        s += c[i];
        total[i] = s;
    }
}

/* a scattered update y[idx[i]] += a * x[i] */
void scatter_axpy(long n, double a, const int32_t *idx, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[idx[i]] += a * x[i];
}
