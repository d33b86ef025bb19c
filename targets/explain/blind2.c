/* A second set written after the rules, each kernel's answer written down in targets/explain_cases.py before its
   first run (the commit that added them holds the answers and no result): loops in the form people write them, a
   sparse product, two PolyBench factorizations, an escape-time fractal, complex numbers, and six kernels with
   nothing wrong. Their first run (explain_cases.py --quick): 8 of 14 right. Missed: spmv_csr (one thread on
   several CPUs: its loads through the column index were not read), pb_cholesky (missing reuse: the loop ran at its
   in-order sum's pace), mandel (control flow: the escape test, a loop exit, was read as a branch within the
   iteration), cmul (one thread: the branch to __muldc3 was not read), count_above (its check, np.sum(x > t), was
   refused) and smooth_f, whose answer was wrong: gcc divides in float (the double division it replaces gives the
   same result), so there is no conversion; the divider sets its pace, which no rule found then. */
#include <complex.h>
#include <math.h>

/* y = A x, A in compressed sparse rows */
void spmv_csr(long n, const long *rowptr, const int *col, const double *val, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = rowptr[i]; j < rowptr[i + 1]; j++)
            s += val[j] * x[col[j]];
        y[i] = s;
    }
}

/* PolyBench/C 4.2 lu, in its form */
void pb_lu(long n, double A[n][n])
{
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < i; j++) {
            for (long k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        for (long j = i; j < n; j++)
            for (long k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
    }
}

/* PolyBench/C 4.2 cholesky, in its form */
void pb_cholesky(long n, double A[n][n])
{
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < i; j++) {
            for (long k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        for (long k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = sqrt(A[i][i]);
    }
}

/* escape-time iterations of the Mandelbrot set over [-2, 1] x [-1.5, 1.5] */
void mandel(int w, int h, int maxit, int *out)
{
    for (int py = 0; py < h; py++)
        for (int px = 0; px < w; px++) {
            double cx = -2.0 + 3.0 * px / w, cy = -1.5 + 3.0 * py / h;
            double x = 0.0, y = 0.0;
            int k = 0;
            while (k < maxit && x * x + y * y <= 4.0) {
                double xt = x * x - y * y + cx;
                y = 2.0 * x * y + cy;
                x = xt;
                k++;
            }
            out[py * w + px] = k;
        }
}

/* element-wise product of complex vectors stored as (re, im) pairs */
void cmul(long n, const double *a, const double *b, double *c)
{
    const double complex *za = (const double complex *)a, *zb = (const double complex *)b;
    double complex *zc = (double complex *)c;
    for (long i = 0; i < n; i++)
        zc[i] = za[i] * zb[i];
}

/* how many elements exceed a threshold */
long count_above(long n, const double *x, double t)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        if (x[i] > t)
            c++;
    return c;
}

/* y += A^T x, A row-major, walked by rows */
void gemv_t(long n, const double *A, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            y[j] += A[i * n + j] * x[i];
}

/* a degree-6 polynomial at every element */
void horner(long n, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double v = x[i];
        y[i] = (((((0.1 * v + 0.2) * v + 0.3) * v + 0.4) * v + 0.5) * v + 0.6) * v + 0.7;
    }
}

/* clamp every element into [lo, hi] */
void clamp(long n, const float *x, float *y, float lo, float hi)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}

/* vertical 3-tap box blur of an image, column by column */
void blur_v(long h, long w, const float *in, float *out)
{
    for (long j = 0; j < w; j++)
        for (long i = 1; i < h - 1; i++)
            out[i * w + j] = (in[(i - 1) * w + j] + in[i * w + j] + in[(i + 1) * w + j]) * (1.0f / 3.0f);
}

/* the sum of a float array, accumulated in double */
double sum_f(long n, const float *x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* C += A B in j-k-i order */
void mm_jki(long n, const double *A, const double *B, double *C)
{
    for (long j = 0; j < n; j++)
        for (long k = 0; k < n; k++) {
            double b = B[k * n + j];
            for (long i = 0; i < n; i++)
                C[i * n + j] += A[i * n + k] * b;
        }
}

/* 3-point moving average of a float signal */
void smooth_f(long n, const float *in, float *out)
{
    for (long i = 1; i < n - 1; i++)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
}

/* a multiplicative hash of every key, reduced modulo a prime */
void hash_mod(long n, const unsigned *x, unsigned *h)
{
    for (long i = 0; i < n; i++)
        h[i] = (x[i] * 2654435761u) % 1000003u;
}
