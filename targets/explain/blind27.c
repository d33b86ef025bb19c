/* A twenty-seventh set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* y += A x with A stored column by column, walked column by column */
void gemv_cm_f(long m, long n, const float *A, const float *x, float *y)
{
    for (long j = 0; j < n; j++)
        for (long i = 0; i < m; i++)
            y[i] += A[j * m + i] * x[j];
}

/* a cubic applied to every element */
void cubic(long n, double a, double b, double c, double d, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = ((a * x[i] + b) * x[i] + c) * x[i] + d;
}

/* each point assigned to its nearest of eight centroids */
void kmeans_assign(long n, const float *px, const float *py, const float *cx, const float *cy, int *label)
{
    for (long i = 0; i < n; i++) {
        float best = INFINITY;
        int k = 0;
        for (int c = 0; c < 8; c++) {
            float dx = px[i] - cx[c], dy = py[i] - cy[c];
            float d = dx * dx + dy * dy;
            if (d < best) {
                best = d;
                k = c;
            }
        }
        label[i] = k;
    }
}

/* the denominator of a softmax */
double softmax_den(long n, const float *z)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += expf(z[i]);
    return s;
}

/* values written to the places a permutation gives */
void scatter_perm(long n, const long *perm, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        y[perm[i]] = x[i];
}

/* a three-point sum on a ring */
void ring3_f(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[(i + n - 1) % n] + x[i] + x[(i + 1) % n];
}

/* sums of absolute differences of 8-bit blocks of sixteen */
void sad16(long nblocks, const uint8_t *a, const uint8_t *b, int *sad)
{
    for (long k = 0; k < nblocks; k++) {
        int s = 0;
        for (int i = 0; i < 16; i++) {
            int d = a[16 * k + i] - b[16 * k + i];
            s += d < 0 ? -d : d;
        }
        sad[k] = s;
    }
}

/* a piecewise function */
void piecewise(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double v = x[i];
        if (v < 0.0)
            y[i] = 0.0;
        else if (v < 1.0)
            y[i] = v * v;
        else
            y[i] = 2.0 * v - 1.0;
    }
}

struct cell { double rho, u, v, w, e, p, t, c; };

/* every field of each cell updated */
void relax_cells(long n, double a, struct cell *c)
{
    for (long i = 0; i < n; i++) {
        c[i].rho *= a; c[i].u *= a; c[i].v *= a; c[i].w *= a;
        c[i].e *= a; c[i].p *= a; c[i].t *= a; c[i].c *= a;
    }
}

/* C = A B, B transposed first into a scratch buffer */
void matmul_bt(long n, const double *A, const double *B, double *Bt, double *C)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            Bt[j * n + i] = B[i * n + j];
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double s = 0.0;
            for (long k = 0; k < n; k++)
                s += A[i * n + k] * Bt[j * n + k];
            C[i * n + j] = s;
        }
}

/* the running maximum of a signal */
void prefix_max_f(long n, const float *x, float *m)
{
    float r = x[0];
    for (long i = 0; i < n; i++) {
        r = x[i] > r ? x[i] : r;
        m[i] = r;
    }
}

/* 8-bit colour planes packed into 32-bit pixels */
void pack_rgb(long n, const uint8_t *r, const uint8_t *g, const uint8_t *b, uint32_t *p)
{
    for (long i = 0; i < n; i++)
        p[i] = ((uint32_t)r[i] << 16) | ((uint32_t)g[i] << 8) | b[i];
}
