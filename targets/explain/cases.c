/* Kernels with one known performance problem each (and two with none), for targets/explain_cases.py. */
#include <stddef.h>

/* Aliasing: five arrays updated together. Without restrict the compiler would need more run-time overlap checks
   than it allows itself, so the loop stays scalar. */
void blend(double *a, double *b, double *c, double *d, double *e, double *f, double *g, double *h, long n)
{
    for (long i = 0; i < n; i++) {
        a[i] = b[i] + c[i];
        d[i] = e[i] * f[i];
        g[i] = h[i] + a[i] * d[i];
        b[i] = g[i] - e[i];
        c[i] = a[i] + h[i];
    }
}

/* A reduction: one running sum, added in source order. */
double dot(const double *x, const double *y, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* Column access: the inner loop walks a row-major matrix down a column. */
void transpose_add(double *b, const double *a, long n)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            b[i * n + j] += a[j * n + i];
}

/* A working set past a cache level: a three-point smoothing swept `sweeps` times over two arrays. */
void smooth(double *x, double *y, long n, long sweeps)
{
    for (long s = 0; s < sweeps; s++) {
        for (long i = 1; i < n - 1; i++)
            y[i] = (x[i - 1] + x[i] + x[i + 1]) * (1.0 / 3.0);
        double *t = x; x = y; y = t;
    }
}

/* A serial dependency chain: a first-order linear recurrence, each element needing the one before. */
void recurrence(double *y, const double *a, const double *b, long n)
{
    for (long i = 1; i < n; i++)
        y[i] = a[i] * y[i - 1] + b[i];
}

/* A polynomial of degree 15 per element, by Horner's rule: compute-heavy. */
static inline double horner(double x)
{
    double p = 0.5;
    for (int k = 1; k <= 15; k++)
        p = p * x + 1.0 / (double)(1 << k);
    return p;
}

/* One thread on several cores: the pragma is there, the spec builds without OpenMP. */
void poly_omp(double *y, const double *x, long n)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        y[i] = horner(x[i]);
}

/* A scalar-only build: the same polynomial, built by a spec whose flags keep the compiler from vectorizing. */
void poly(double *y, const double *x, long n)
{
    for (long i = 0; i < n; i++)
        y[i] = horner(x[i]);
}

/* Write-allocate: a STREAM triad on every CPU at a working set far past the caches, with ordinary stores: each line
   of a is read from memory before it is written. */
void triad_omp(double *a, const double *b, const double *c, long n)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        a[i] = b[i] + 3.0 * c[i];
}

/* libm with errno: sqrt of every element. For a negative input sqrt must set errno, so gcc keeps a branch to the
   library call in the loop (a cold path), and a call that may write memory keeps the loop scalar. */
#include <math.h>
void roots(double *y, const double *x, long n)
{
    for (long i = 0; i < n; i++)
        y[i] = sqrt(x[i]);
}
