/* An eighteenth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

typedef struct { double x, y, z; } vec3;

/* y += a x, written with pointers that walk the arrays */
void saxpy_ptr(long n, float a, const float *x, float *y)
{
    while (n-- > 0)
        *y++ += a * *x++;
}

/* cross products of two arrays of vectors */
void cross3(long n, const vec3 *a, const vec3 *b, vec3 *c)
{
    for (long i = 0; i < n; i++) {
        c[i].x = a[i].y * b[i].z - a[i].z * b[i].y;
        c[i].y = a[i].z * b[i].x - a[i].x * b[i].z;
        c[i].z = a[i].x * b[i].y - a[i].y * b[i].x;
    }
}

/* y = A x with a variable-length array parameter */
void matvec_vla(int n, double A[n][n], const double x[n], double y[n])
{
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += A[i][j] * x[j];
        y[i] = s;
    }
}

/* floats quantized to bytes */
void quantize(long n, const float *x, float scale, int8_t *q)
{
    for (long i = 0; i < n; i++)
        q[i] = (int8_t)lrintf(x[i] * scale);
}

/* an exponential average down the rows, every column at once */
void row_ema(long m, long n, double a, const double *x, double *y)
{
    for (long j = 0; j < n; j++)
        y[j] = x[j];
    for (long i = 1; i < m; i++)
        for (long j = 0; j < n; j++)
            y[i * n + j] = a * y[(i - 1) * n + j] + (1 - a) * x[i * n + j];
}

/* the same average taken one column at a time */
void col_ema(long m, long n, double a, const double *x, double *y)
{
    for (long j = 0; j < n; j++) {
        y[j] = x[j];
        for (long i = 1; i < m; i++)
            y[i * n + j] = a * y[(i - 1) * n + j] + (1 - a) * x[i * n + j];
    }
}

/* points turned by one angle */
void rotate_pts(long n, double theta, const double *x, const double *y, double *u, double *v)
{
    for (long i = 0; i < n; i++) {
        u[i] = cos(theta) * x[i] - sin(theta) * y[i];
        v[i] = sin(theta) * x[i] + cos(theta) * y[i];
    }
}

/* a three-tap box filter on 8-bit pixels */
void box3_u8(long n, const uint8_t *src, uint8_t *dst)
{
    for (long i = 1; i < n - 1; i++)
        dst[i] = (uint8_t)((src[i - 1] + src[i] + src[i + 1]) / 3);
}

/* the sum of squares of integers */
int64_t isq_sum(long n, const int32_t *x)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += (int64_t)x[i] * x[i];
    return s;
}

/* a matrix cleared column by column */
void zero_cols(long m, long n, double *A)
{
    for (long j = 0; j < n; j++)
        for (long i = 0; i < m; i++)
            A[i * n + j] = 0.0;
}

/* a short sum shared among the threads */
double small_sum_omp(long n, const double *x)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* one step of leapfrog integration over separate coordinate arrays */
void leapfrog(long n, double dt, double *x, double *y, double *z, double *vx, double *vy, double *vz,
              const double *ax, const double *ay, const double *az)
{
    for (long i = 0; i < n; i++) {
        vx[i] += dt * ax[i];
        vy[i] += dt * ay[i];
        vz[i] += dt * az[i];
        x[i] += dt * vx[i];
        y[i] += dt * vy[i];
        z[i] += dt * vz[i];
    }
}
