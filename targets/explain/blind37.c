/* A thirty-seventh set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* a compensated (Kahan) sum */
double kahan_sum(long n, const double *x)
{
    double s = 0.0, c = 0.0;
    for (long i = 0; i < n; i++) {
        double y = x[i] - c;
        double t = s + y;
        c = (t - s) - y;
        s = t;
    }
    return s;
}

/* one compare-exchange stage of a bitonic sorting network */
void bitonic_stage(long n, long j, long k, float *a)
{
    for (long i = 0; i < n; i++) {
        long l = i ^ j;
        if (l > i) {
            int up = (i & k) == 0;
            if ((up && a[i] > a[l]) || (!up && a[i] < a[l])) {
                float t = a[i];
                a[i] = a[l];
                a[l] = t;
            }
        }
    }
}

/* the cross-correlation of two signals at the first lags */
void xcorr(long n, long lags, const double *x, const double *y, double *r)
{
    for (long lag = 0; lag < lags; lag++) {
        double s = 0.0;
        for (long i = 0; i < n; i++)
            s += x[i] * y[i + lag];
        r[lag] = s;
    }
}

/* a 7-point Laplacian of a 3-D grid, shared between threads */
void lap3d_omp(long n, const double *u, double *v)
{
#pragma omp parallel for collapse(2)
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            for (long k = 1; k < n - 1; k++) {
                long c = (i * n + j) * n + k;
                v[c] = u[c - n * n] + u[c + n * n] + u[c - n] + u[c + n] + u[c - 1] + u[c + 1] - 6.0 * u[c];
            }
}

/* squared distances between two sets of 3-D points stored x, y, z */
void sqdist(long m, long n, const float *ax, const float *ay, const float *az, const float *bx, const float *by,
            const float *bz, float *d)
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++) {
            float dx = ax[i] - bx[j], dy = ay[i] - by[j], dz = az[i] - bz[j];
            d[i * n + j] = dx * dx + dy * dy + dz * dz;
        }
}

/* LU factorization in place, without pivoting */
void lu_nopivot(long n, double *A)
{
    for (long k = 0; k < n; k++)
        for (long i = k + 1; i < n; i++) {
            double l = A[i * n + k] / A[k * n + k];
            A[i * n + k] = l;
            for (long j = k + 1; j < n; j++)
                A[i * n + j] -= l * A[k * n + j];
        }
}

/* polar coordinates to Cartesian */
void polar_to_cart(long n, const double *r, const double *t, double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        x[i] = r[i] * cos(t[i]);
        y[i] = r[i] * sin(t[i]);
    }
}

/* y += A x for A in compressed sparse columns */
void spmv_csc(long n, const int *colptr, const int *row, const double *val, const double *x, double *y)
{
    for (long j = 0; j < n; j++)
        for (int k = colptr[j]; k < colptr[j + 1]; k++)
            y[row[k]] += val[k] * x[j];
}

/* the last stage of a radix-2 FFT on split real and imaginary arrays */
void fft_last_stage(long n, double *re, double *im, const double *wr, const double *wi)
{
    long h = n / 2;
    for (long k = 0; k < h; k++) {
        double tr = wr[k] * re[k + h] - wi[k] * im[k + h];
        double ti = wr[k] * im[k + h] + wi[k] * re[k + h];
        re[k + h] = re[k] - tr;
        im[k + h] = im[k] - ti;
        re[k] += tr;
        im[k] += ti;
    }
}

/* a float image enlarged twice by repeating pixels */
void upsample2(long h, long w, const float *in, float *out)
{
    for (long i = 0; i < 2 * h; i++)
        for (long j = 0; j < 2 * w; j++)
            out[i * 2 * w + j] = in[(i / 2) * w + j / 2];
}

/* the rank of each element: how many elements are smaller */
void rank_count(long n, const float *x, int *rank)
{
    for (long i = 0; i < n; i++) {
        int r = 0;
        for (long j = 0; j < n; j++)
            r += x[j] < x[i];
        rank[i] = r;
    }
}

/* particles reflected at the walls of [0, L] */
void reflect(long n, double L, double *x, double *v)
{
    for (long i = 0; i < n; i++) {
        if (x[i] < 0.0) {
            x[i] = -x[i];
            v[i] = -v[i];
        } else if (x[i] > L) {
            x[i] = 2.0 * L - x[i];
            v[i] = -v[i];
        }
    }
}
