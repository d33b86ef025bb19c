/* A thirty-first set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <omp.h>

/* one stage of a Runge-Kutta step for a system held in several arrays */
void rk_stage(long n, double h, const double *y, const double *k1, const double *k2, const double *k3,
              double *y1, double *y2, double *y3, double *err)
{
    for (long i = 0; i < n; i++) {
        y1[i] = y[i] + h * k1[i];
        y2[i] = y[i] + 0.5 * h * (k1[i] + k2[i]);
        y3[i] = y[i] + h / 6.0 * (k1[i] + 4.0 * k2[i] + k3[i]);
        err[i] = y3[i] - y2[i];
    }
}

/* integer means of bucket sums */
void int_mean(long n, const int *sum, const int *cnt, int *avg)
{
    for (long i = 0; i < n; i++)
        avg[i] = sum[i] / cnt[i];
}

/* y = A x for a tall matrix of few columns */
void tall_gemv(long m, long ncols, const double *A, const double *x, double *y)
{
    for (long i = 0; i < m; i++) {
        double s = 0.0;
        for (long j = 0; j < ncols; j++)
            s += A[i * ncols + j] * x[j];
        y[i] = s;
    }
}

/* a signal scaled far below the smallest normal double */
void tiny_scale(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * 1e-300;
}

/* how many elements each thread finds above a threshold, counted in a shared array */
void omp_counts(long n, double t, const double *x, long *cnt)
{
#pragma omp parallel
    {
        int id = omp_get_thread_num();
        cnt[id] = 0;
#pragma omp for
        for (long i = 0; i < n; i++)
            if (x[i] > t)
                cnt[id]++;
    }
}

/* the squared norm of a float vector, summed in double */
double norm2_fd(long n, const float *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += (double)x[i] * x[i];
    return s;
}

/* products of complex numbers */
void cmul_c99(long n, const double complex *a, const double complex *b, double complex *c)
{
    for (long i = 0; i < n; i++)
        c[i] = a[i] * b[i];
}

/* the dot product of two sparse vectors, their indices sorted */
double sparse_dot(long na, const int *ia, const double *va, long nb, const int *ib, const double *vb)
{
    long p = 0, q = 0;
    double s = 0.0;
    while (p < na && q < nb) {
        if (ia[p] == ib[q]) {
            s += va[p] * vb[q];
            p++;
            q++;
        } else if (ia[p] < ib[q]) {
            p++;
        } else {
            q++;
        }
    }
    return s;
}

/* one pass of bubble sort */
void bubble_pass(long n, double *a)
{
    for (long i = 0; i + 1 < n; i++)
        if (a[i] > a[i + 1]) {
            double t = a[i];
            a[i] = a[i + 1];
            a[i + 1] = t;
        }
}

/* a three-point float filter over a long signal */
void filter3_big(long n, const float *x, float *y)
{
    for (long i = 1; i < n - 1; i++)
        y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}

/* the dot product of 16-bit samples */
long dot_i16(long n, const int16_t *a, const int16_t *b)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* positions where two byte strings agree */
long count_equal(long n, const uint8_t *a, const uint8_t *b)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        c += a[i] == b[i];
    return c;
}
