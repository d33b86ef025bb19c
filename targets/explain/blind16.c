/* A sixteenth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* Euclidean norm */
double norm2(long n, const double *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

/* running sums along each row of a matrix, in place */
void row_scan(long m, long n, double *A)
{
    for (long i = 0; i < m; i++)
        for (long j = 1; j < n; j++)
            A[i * n + j] += A[i * n + j - 1];
}

/* an image mirrored left to right */
void flip_h(long h, long w, const float *in, float *out)
{
    for (long i = 0; i < h; i++)
        for (long j = 0; j < w; j++)
            out[i * w + (w - 1 - j)] = in[i * w + j];
}

/* y = A x with the rows shared among the threads */
void gemv_omp(long m, long n, const double *A, const double *x, double *y)
{
#pragma omp parallel for
    for (long i = 0; i < m; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

/* integer counts scaled to floats */
void counts_to_float(long n, const int *k, float s, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = (float)k[i] * s;
}

/* every third element copied out */
void every_third(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[3 * i];
}

/* seconds split into hours, minutes and seconds */
void split_time(long n, const int *t, int *h, int *m, int *s)
{
    for (long i = 0; i < n; i++) {
        h[i] = t[i] / 3600;
        m[i] = (t[i] % 3600) / 60;
        s[i] = t[i] % 60;
    }
}

/* squares through powf */
void squares_powf(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = powf(x[i], 2.0f);
}

/* exponentials of a short vector */
void exps(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = exp(x[i]);
}

/* position of the largest element */
void argmax(long n, const double *x, long *at)
{
    double best = x[0];
    long k = 0;
    for (long i = 1; i < n; i++)
        if (x[i] > best) {
            best = x[i];
            k = i;
        }
    at[0] = k;
}

/* C = A + B for matrices stored by columns (leading dimension m), walked row by row */
void madd_cm(long m, long n, const double *A, const double *B, double *C)
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++)
            C[j * m + i] = A[j * m + i] + B[j * m + i];
}

/* a float signal scaled by a double gain */
void gain_f(long n, double g, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * g;
}
