/* A twenty-sixth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <omp.h>

struct counter { long hits; };

/* positive values counted by each thread into its own slot */
long count_positive_omp(long n, const double *x, struct counter *c)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        c[t].hits = 0;
#pragma omp for
        for (long i = 0; i < n; i++)
            if (x[i] > 0.5)
                c[t].hits++;
    }
    long s = 0;
    for (int t = 0; t < omp_get_max_threads(); t++)
        s += c[t].hits;
    return s;
}

/* rows whose work grows with the square of their index, shared statically */
void growing_rows_omp(long n, const double *x, double *y)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        long len = i * i / n;
        for (long j = 0; j < len; j++)
            s += x[j] * 0.5;
        y[i] = s;
    }
}

/* a float affine map written with double literals */
void affine_lit(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * 1.5 - 0.25;
}

/* tiny signals scaled further down */
void attenuate_f(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * 1e-30f;
}

/* sums of short segments of varying length */
void segment_sums(long m, const int *start, const double *x, double *s)
{
    for (long i = 0; i < m; i++) {
        double t = 0.0;
        for (int j = start[i]; j < start[i + 1]; j++)
            t += x[j];
        s[i] = t;
    }
}

/* the same update swept over a large array ten times */
void repeat_sweeps(long n, double a, double b, double *x)
{
    for (int r = 0; r < 10; r++)
        for (long i = 0; i < n; i++)
            x[i] = a * x[i] + b;
}

/* rows copied one memcpy at a time */
void copy_rows(long m, long n, const double *A, double *B)
{
    for (long i = 0; i < m; i++)
        memcpy(B + i * n, A + i * n, n * sizeof(double));
}

/* 16-bit samples summed in single precision */
float sum_i16_f(long n, const int16_t *x)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++)
        s += (float)x[i];
    return s;
}

/* the last decimal digit of each number */
void last_digit(long n, const int *x, int *d)
{
    for (long i = 0; i < n; i++)
        d[i] = x[i] % 10;
}

/* every fourth sample taken */
void decimate4(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[4 * i];
}

/* values clamped with the library's fminf and fmaxf */
void clamp_lib(long n, const float *x, float lo, float hi, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = fminf(fmaxf(x[i], lo), hi);
}

/* powers of two of float exponents */
void exp2_f(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = exp2f(x[i]);
}
