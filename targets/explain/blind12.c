/* A twelfth set of kernels written as they are found in the wild, each answer written down before its first run
 * (targets/explain_cases.py). */
#include <math.h>
#include <omp.h>

/* covariance of m variables over n samples, PolyBench's form: data[k][i] walked down a column for each pair */
void covariance(long m, long n, double data[n][m], double cov[m][m])
{
    for (long i = 0; i < m; i++)
        for (long j = i; j < m; j++) {
            cov[i][j] = 0.0;
            for (long k = 0; k < n; k++)
                cov[i][j] += data[k][i] * data[k][j];
            cov[i][j] /= (double)(n - 1);
            cov[j][i] = cov[i][j];
        }
}

/* C = A B, the textbook i-j-k order with a running sum per element */
void mm_ijk(long n, double A[n][n], double B[n][n], double C[n][n])
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double sum = 0.0;
            for (long k = 0; k < n; k++)
                sum += A[i][k] * B[k][j];
            C[i][j] = sum;
        }
}

/* forward substitution L x = b by columns (L lower triangular, row-major): each column of L walked down */
void fwd_col(long n, const double *L, double *x)
{
    for (long j = 0; j < n; j++) {
        x[j] /= L[j * n + j];
        for (long i = j + 1; i < n; i++)
            x[i] -= L[i * n + j] * x[j];
    }
}

/* a circular shift of a buffer by an amount known only at run time */
void ring(long n, long shift, const double *src, double *out)
{
    for (long i = 0; i < n; i++)
        out[i] = src[(i + shift) % n];
}

/* a weighted gather from a large table at random positions */
void gather(long n, const long *idx, const double *x, const double *w, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = w[i] * x[idx[i]];
}

/* the log-likelihood of positive samples */
void logsum(long n, const double *x, double *out)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += log(x[i]);
    out[0] = s;
}

/* running maximum */
void max_scan(long n, const double *x, double *y)
{
    double m = x[0];
    for (long i = 0; i < n; i++) {
        if (x[i] > m)
            m = x[i];
        y[i] = m;
    }
}

/* an image rotated by 90 degrees */
void rotate(long n, const double *src, double *dst)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            dst[j * n + (n - 1 - i)] = src[i * n + j];
}

/* pairwise interactions of a lower triangle, rows split evenly between threads */
void tri_pairs(long n, const double *x, double *e)
{
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < i; j++) {
            double d = x[i] - x[j];
            s += d * d * d * d;
        }
        e[i] = s;
    }
}

/* exponential decay of a float signal (constants written as doubles) */
void decay_f(long n, float *v, const float *u)
{
    for (long i = 0; i < n; i++)
        v[i] = v[i] * 0.99 + u[i] * 0.01;
}

/* a 3-point float smoothing over a signal that stays in L2 */
void stencil_f(long n, const float *restrict src, float *restrict dst)
{
    for (long i = 1; i < n - 1; i++)
        dst[i] = 0.25f * src[i - 1] + 0.5f * src[i] + 0.25f * src[i + 1];
}

/* per-thread sums kept side by side in one shared array */
void thread_sums(long n, const double *x, double *partial, double *out)
{
    #pragma omp parallel
    {
        int t = omp_get_thread_num();
        partial[t] = 0.0;
        #pragma omp for
        for (long i = 0; i < n; i++)
            partial[t] += x[i] * x[i];
    }
    double s = 0.0;
    for (int t = 0; t < omp_get_max_threads(); t++)
        s += partial[t];
    out[0] = s;
}
