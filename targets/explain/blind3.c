/* A third set written after the rules, each kernel's answer written down in targets/explain_cases.py before its
   first run (the commit that added them holds the answers and no result): loops in the form machine-learning and
   numerical code writes them. */
#include <math.h>
#include <stdint.h>

/* softmax of each row of a matrix */
void softmax_rows(long rows, long cols, const float *x, float *y)
{
    for (long r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float m = xr[0];
        for (long j = 1; j < cols; j++)
            m = xr[j] > m ? xr[j] : m;
        float s = 0.0f;
        for (long j = 0; j < cols; j++) {
            yr[j] = expf(xr[j] - m);
            s += yr[j];
        }
        for (long j = 0; j < cols; j++)
            yr[j] /= s;
    }
}

/* layer normalization of each row */
void layernorm(long rows, long cols, const float *x, float *y, float eps)
{
    for (long r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float mean = 0.0f, var = 0.0f;
        for (long j = 0; j < cols; j++)
            mean += xr[j];
        mean /= cols;
        for (long j = 0; j < cols; j++)
            var += (xr[j] - mean) * (xr[j] - mean);
        var /= cols;
        float inv = 1.0f / sqrtf(var + eps);
        for (long j = 0; j < cols; j++)
            yr[j] = (xr[j] - mean) * inv;
    }
}

/* y = scale * W x with int8 weights */
void gemv_i8(long m, long n, const int8_t *W, const float *x, float scale, float *y)
{
    for (long i = 0; i < m; i++) {
        float s = 0.0f;
        for (long j = 0; j < n; j++)
            s += W[i * n + j] * x[j];
        y[i] = s * scale;
    }
}

/* one Jacobi sweep of a 2-D grid, rows split between threads */
void jacobi_omp(long n, const double *a, double *b)
{
#pragma omp parallel for
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            b[i * n + j] = 0.2 * (a[i * n + j] + a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] +
                                  a[i * n + j + 1]);
}

/* divide every element by a norm */
void normalize(long n, double *x, double norm)
{
    for (long i = 0; i < n; i++)
        x[i] = x[i] / norm;
}

/* a histogram of bytes */
void histogram(long n, const unsigned char *data, int *counts)
{
    for (long i = 0; i < n; i++)
        counts[data[i]]++;
}

/* a cubic term per element */
void cubes(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = pow(x[i], 3.0) - 2.0 * x[i];
}

/* the running maximum of a signal */
void running_max(long n, const double *x, double *y)
{
    double m = -INFINITY;
    for (long i = 0; i < n; i++) {
        m = x[i] > m ? x[i] : m;
        y[i] = m;
    }
}

/* an integer dot product accumulated in 64 bits */
long idot(long n, const int *a, const int *b)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += (long)a[i] * b[i];
    return s;
}

/* explicit diffusion steps on a short 1-D rod, each step's loop split between threads */
void diffuse_steps(long steps, long n, double *u, double *v)
{
    for (long t = 0; t < steps; t++) {
#pragma omp parallel for
        for (long i = 1; i < n - 1; i++)
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        double *w = u;
        u = v;
        v = w;
    }
}

/* magnitudes of complex numbers stored as (re, im) pairs */
void magnitudes(long n, const double *z, double *m)
{
    for (long i = 0; i < n; i++)
        m[i] = sqrt(z[2 * i] * z[2 * i] + z[2 * i + 1] * z[2 * i + 1]);
}
