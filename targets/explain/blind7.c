/* A seventh set of kernels written after the rules, in the forms people write them. Each has the one problem named
 * in its comment (the label in targets/explain_cases.py, written before the first run), or none. */
#include <math.h>
#include <stdint.h>

/* an inclusive prefix sum of floats (dependency_chain) */
void prefix_sum(long n, const float *x, float *y)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++) {
        s += x[i];
        y[i] = s;
    }
}

/* bodies as an array of structs: one step moves each position by its velocity (strided) */
typedef struct { double x, y, z, vx, vy, vz, m, charge; } body;

void drift(long n, double dt, double *b_)
{
    body *b = (body *)b_;
    for (long i = 0; i < n; i++)
        b[i].x += dt * b[i].vx;
}

/* y = A^T x for a row-major A, one output at a time (strided) */
void matvec_t(long n, const double *A, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[j * n + i] * x[j];
        y[i] = s;
    }
}

/* the log-likelihood of positive samples: a logf per element (calls) */
void log_sum(long n, const float *x, float *out)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++)
        s += logf(x[i]);
    out[0] = s;
}

/* element-wise quotients of doubles held in L2 (div_sqrt) */
void quotients(long n, const double *x, const double *z, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] / z[i];
}

/* every other element of an array, far past the caches (strided) */
void evens(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[2 * i];
}

/* gravitational accelerations, all pairs, with sqrt built without -fno-math-errno (calls) */
void accel(long n, const double *px, const double *py, double *ax, double *ay)
{
    for (long i = 0; i < n; i++) {
        double fx = 0.0, fy = 0.0;
        for (long j = 0; j < n; j++) {
            double dx = px[j] - px[i], dy = py[j] - py[i];
            double r2 = dx * dx + dy * dy + 1e-3;
            double inv = 1.0 / (r2 * sqrt(r2));
            fx += dx * inv;
            fy += dy * inv;
        }
        ax[i] = fx;
        ay[i] = fy;
    }
}

/* a float dot product split between threads with an OpenMP reduction (reduction_chain) */
void dot_omp(long n, const float *x, const float *y, float *out)
{
    float s = 0.0f;
#pragma omp parallel for reduction(+:s)
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    out[0] = s;
}

/* how many elements exceed a threshold (nothing wrong: the compare vectorizes) */
void count_above(long n, const float *x, float t, int64_t *count)
{
    int64_t c = 0;
    for (long i = 0; i < n; i++)
        if (x[i] > t)
            c++;
    count[0] = c;
}

/* a scaled copy of 64 MiB, ordinary stores (write_allocate) */
void scale_big(long n, double a, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = a * x[i];
}

/* saxpy on both CPUs over vectors in L3 (nothing wrong) */
void saxpy_omp(long n, float a, const float *x, float *y)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
