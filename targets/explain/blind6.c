/* A sixth set of kernels written after the rules, in the forms people write them. Each has the one problem named
 * in its comment (the label in targets/explain_cases.py, written before the first run), or none. */
#include <math.h>
#include <stdint.h>

/* a first-order IIR low-pass filter: each output needs the one before it (dependency_chain) */
void iir(long n, double a, const double *x, double *y)
{
    double prev = 0.0;
    for (long i = 0; i < n; i++) {
        prev = a * prev + (1.0 - a) * x[i];
        y[i] = prev;
    }
}

/* particles as an array of structs: the kinetic energy reads 4 of each particle's 8 fields (strided) */
typedef struct { double x, y, z, vx, vy, vz, m, q; } particle;

void kinetic(long n, const double *p_, double *e)
{
    const particle *p = (const particle *)p_;
    for (long i = 0; i < n; i++)
        e[i] = 0.5 * p[i].m * (p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].vz * p[i].vz);
}

/* a Gaussian of each element: one call to expf per element (calls) */
void gauss(long n, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = expf(-0.5f * x[i] * x[i]);
}

/* element-wise integer quotients (int_div) */
void idiv(long n, const int32_t *a, const int32_t *b, int32_t *q)
{
    for (long i = 0; i < n; i++)
        q[i] = a[i] / b[i];
}

/* the lower triangle of an outer product, rows split statically between threads (imbalance) */
void tri_fill(long n, const double *u, const double *v, double *t)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++)
            t[i * n + j] = u[i] * v[j];
}

/* saxpy on vectors that fit in L2 (nothing wrong) */
void saxpy_l2(long n, float a, const float *x, float *y)
{
    for (long i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* a double dot product over vectors in L3: one running sum (reduction_chain) */
void dot_l3(long n, const double *x, const double *y, double *out)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    out[0] = s;
}

/* C += A B in i-k-j order, unblocked, for matrices of 4 MiB (reuse) */
void mm_ikj(long n, const float *A, const float *B, float *C)
{
    for (long i = 0; i < n; i++)
        for (long k = 0; k < n; k++) {
            float a = A[i * n + k];
            for (long j = 0; j < n; j++)
                C[i * n + j] += a * B[k * n + j];
        }
}

/* complex magnitudes with sqrt, built without -fno-math-errno (calls) */
void cabs_arr(long n, const double *re, const double *im, double *r)
{
    for (long i = 0; i < n; i++)
        r[i] = sqrt(re[i] * re[i] + im[i] * im[i]);
}

/* bits set in each 64-bit word (nothing wrong: AVX-512 has a vector popcount) */
void popcounts(long n, const uint64_t *w, int64_t *c)
{
    for (long i = 0; i < n; i++)
        c[i] = __builtin_popcountll(w[i]);
}

/* for each query, the first index of a sorted table not below it, by a linear scan that stops early
 * (control_flow) */
void first_not_below(long n, long m, const double *table, const double *q, int64_t *pos)
{
    for (long i = 0; i < n; i++) {
        long j = 0;
        while (j < m && table[j] < q[i])
            j++;
        pos[i] = j;
    }
}

/* scaling a short vector with an OpenMP team (omp_overhead) */
void scale_small_omp(long n, double a, const double *x, double *y)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        y[i] = a * x[i];
}

/* filling 64 MiB with one value, ordinary stores (write_allocate) */
void fill_big(long n, double c, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = c;
}
