/* A fifth set of kernels written after the rules, each with the answer written down in targets/explain_cases.py
   before its first run. Kinds of problem with few cases so far, in the forms people write them. */
#include <omp.h>

/* a float polynomial written with double constants */
void poly_f32(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = 0.5 * x[i] * x[i] + 0.25 * x[i] + 1.0;
}

/* each thread sums its half into its own slot of a shared array */
void partial_sums(long n, const double *x, double *partial)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        long lo = n * t / nt, hi = n * (t + 1) / nt;
        partial[t] = 0.0;
        for (long i = lo; i < hi; i++)
            partial[t] += x[i] * x[i];
    }
}

/* escape-time counts over a region whose lower rows hold most of the set, rows split statically */
void mandel_rows(long h, long w, int *count)
{
#pragma omp parallel for schedule(static)
    for (long r = 0; r < h; r++)
        for (long c = 0; c < w; c++) {
            double cr = -2.0 + 2.5 * c / w, ci = 1.2 * r / h;
            double zr = 0.0, zi = 0.0;
            int k = 0;
            while (k < 256 && zr * zr + zi * zi < 4.0) {
                double t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                k++;
            }
            count[r * w + c] = k;
        }
}

/* a 1-D convolution with a filter of k taps, k given at run time */
void conv1d(long n, long k, const float *x, const float *w, float *y)
{
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long j = 0; j < k; j++)
            s += x[i + j] * w[j];
        y[i] = s;
    }
}

/* fills a large array with a ramp */
void ramp(long n, double step, double *out)
{
    for (long i = 0; i < n; i++)
        out[i] = step * (double)i;
}

/* C += A B, row-major, loops in j-k-i order */
void gemm_jki(long n, const double *A, const double *B, double *C)
{
    for (long j = 0; j < n; j++)
        for (long k = 0; k < n; k++)
            for (long i = 0; i < n; i++)
                C[i * n + j] += A[i * n + k] * B[k * n + j];
}

/* multiplicative hashing into m buckets, m given at run time */
void hash_mod(long n, const unsigned long *key, unsigned long m, unsigned long *h)
{
    for (long i = 0; i < n; i++)
        h[i] = (key[i] * 2654435761ul) % m;
}

/* y += a x in single precision, arrays far larger than the caches */
void axpy_big(long n, float a, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* the squared Euclidean norm of a float vector */
float norm2(long n, const float *x)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}

/* element-wise sum of two int arrays far larger than the caches */
void iadd_big(long n, const int *a, const int *b, int *c)
{
    for (long i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

/* 40 weighted sums of one signal at once, each with its own weight */
void bank_sums(long n, const double *x, const double *w, double *out)
{
    double s[40] = {0};
    for (long i = 0; i < n; i++) {
        double v = x[i];
#pragma GCC unroll 40
        for (int b = 0; b < 40; b++)
            s[b] += v * w[b];
    }
    for (int b = 0; b < 40; b++)
        out[b] = s[b];
}

/* for each query, the first position in a sorted array whose value is not below it */
void lower_bounds(long n, const double *table, long q, const double *query, long *pos)
{
    for (long k = 0; k < q; k++) {
        long lo = 0, hi = n;
        double key = query[k];
        while (lo < hi) {
            long mid = (lo + hi) / 2;
            if (table[mid] < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        pos[k] = lo;
    }
}
