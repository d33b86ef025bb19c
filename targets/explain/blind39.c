/* A thirty-ninth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

struct particle { double x, y, z, vx, vy, vz, mass, charge; };

/* move every particle along x for one time step */
void drift_x(long n, struct particle *p, double dt)
{
    for (long i = 0; i < n; i++)
        p[i].x += dt * p[i].vx;
}

/* a degree-8 polynomial at every point, by Horner's rule */
void horner8(long n, const float *x, const float *c, float *y)
{
    for (long i = 0; i < n; i++) {
        float t = x[i], r = c[8];
        for (int k = 7; k >= 0; k--)
            r = r * t + c[k];
        y[i] = r;
    }
}

/* gamma correction of 8-bit pixels through a table */
void gamma_lut(long n, const uint8_t *in, const float *lut, float *out)
{
    for (long i = 0; i < n; i++)
        out[i] = lut[in[i]];
}

/* the largest value seen so far, at every position */
void running_max(long n, const double *x, double *out)
{
    double m = x[0];
    for (long i = 0; i < n; i++) {
        if (x[i] > m)
            m = x[i];
        out[i] = m;
    }
}

/* a dot product of 16-bit integers into a 32-bit sum */
int32_t dot_i16(long n, const int16_t *a, const int16_t *b)
{
    int32_t s = 0;
    for (long i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* scale a short vector on every thread */
void omp_scale(long n, double a, const double *x, double *y)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        y[i] = a * x[i];
}

/* the Euclidean norm of each row */
void row_norms(long m, long n, const double *A, double *norms)
{
    for (long i = 0; i < m; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[i * n + j] * A[i * n + j];
        norms[i] = sqrt(s);
    }
}

/* exponential decay sampled at given times */
void exp_decay(long n, float a, float k, const float *t, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = a * expf(-k * t[i]);
}

/* out-of-place transpose of a square matrix */
void transpose(long n, const double *A, double *B)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            B[j * n + i] = A[i * n + j];
}

/* a histogram of values in [lo, lo + nbins / scale) */
void hist_float(long n, const float *x, float lo, float scale, int *h)
{
    for (long i = 0; i < n; i++)
        h[(int)((x[i] - lo) * scale)]++;
}

/* read a window out of a ring buffer */
void ring_read(long n, long start, long cap, const float *buf, float *out)
{
    for (long i = 0; i < n; i++)
        out[i] = buf[(start + i) % cap];
}

/* the index of the first negative element, or n */
long first_negative(long n, const double *x)
{
    for (long i = 0; i < n; i++)
        if (x[i] < 0.0)
            return i;
    return n;
}
