/* Three kernels written, and their answers written down, after the rules of the cases above: a record of 64 bytes
   updated one field at a time (strided), an exponential per element (calls), a 3-D 7-point stencil on one thread
   (one thread on several CPUs). Their first runs: strided; one thread on several CPUs (the libm call was then
   named only for errno: exp now is a vector-math finding, tested with -ffast-math); write-allocate traffic.
   Then three more, the same way: a float saxpy in L2 (nothing wrong), a walk along a chain of indices (a chain of
   dependent loads), a 3 x 3 convolution of a float image on one thread (one thread on several CPUs). Their first
   runs: at its roof; an in-order reduction (the loads chained through their addresses were not read: now they are,
   and they set the pace before the sum); write-allocate traffic. */
#include <math.h>
typedef struct { double x, y, z, vx, vy, vz, m, q; } particle;
/* drift: one field updated from another of a 64-byte record */
void drift(particle *p, long n, double dt)
{
    for (long i = 0; i < n; i++)
        p[i].x += p[i].vx * dt;
}
/* exponentials of every element */
void expo(double *y, const double *x, long n)
{
    for (long i = 0; i < n; i++)
        y[i] = exp(-x[i]);
}
/* 7-point stencil in 3-D, one sweep */
void heat3d(long n, const double *a, double *b)
{
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            for (long k = 1; k < n - 1; k++)
                b[(i * n + j) * n + k] = 0.125 * (a[((i - 1) * n + j) * n + k] + a[((i + 1) * n + j) * n + k] +
                                                  a[(i * n + j - 1) * n + k] + a[(i * n + j + 1) * n + k] +
                                                  a[(i * n + j) * n + k - 1] + a[(i * n + j) * n + k + 1]) +
                                          0.25 * a[(i * n + j) * n + k];
}

/* y = a x + y in float, at a size held in L2 */
void saxpy(long n, float a, const float *restrict x, float *restrict y)
{
    for (long i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
/* follow a chain of indices, summing what each points to */
double chase(const long *next, const double *v, long steps)
{
    double s = 0.0;
    long i = 0;
    for (long k = 0; k < steps; k++) {
        s += v[i];
        i = next[i];
    }
    return s;
}
/* 3 x 3 convolution of a float image */
void conv3(long h, long w, const float *restrict in, const float *restrict k, float *restrict out)
{
    for (long i = 1; i < h - 1; i++)
        for (long j = 1; j < w - 1; j++) {
            float s = 0.0f;
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++)
                    s += k[(di + 1) * 3 + dj + 1] * in[(i + di) * w + j + dj];
            out[i * w + j] = s;
        }
}
