/* Loop nests written in the form of a public benchmark suite's kernels (PolyBench/C: gemm, atax, bicg, trisolv,
 * seidel-2d, jacobi-2d), row-major over flat arrays, plus kernels with one known problem each of the classes
 * explain names. Each comment says the problem; targets/explain_cases.py checks explain's verdict against it. */

/* gemm: C = alpha*A*B + beta*C, loops i-k-j, unblocked: at n=1000 B (8 MB) is streamed again for every row of C. */
void pb_gemm(long n, double alpha, double beta, double *C, const double *A, const double *B)
{
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++)
            C[i * n + j] *= beta;
        for (long k = 0; k < n; k++) {
            double a = alpha * A[i * n + k];
            for (long j = 0; j < n; j++)
                C[i * n + j] += a * B[k * n + j];
        }
    }
}

/* the same product, fixed: a 128 x 128 block of B is kept in L2 while every row of A and C passes over it */
void pb_gemm_tiled(long n, double alpha, double beta, double *restrict C, const double *restrict A,
                   const double *restrict B)
{
    const long T = 128;
    for (long i = 0; i < n * n; i++)
        C[i] *= beta;
    for (long kk = 0; kk < n; kk += T)
        for (long jj = 0; jj < n; jj += T) {
            long ke = kk + T < n ? kk + T : n, je = jj + T < n ? jj + T : n;
            for (long i = 0; i < n; i++)
                for (long k = kk; k < ke; k++) {
                    double a = alpha * A[i * n + k];
                    double *restrict c = C + i * n;
                    const double *restrict b = B + k * n;
                    for (long j = jj; j < je; j++)
                        c[j] += a * b[j];
                }
        }
}

/* bicg: s = A^T r and q = A p in one sweep; the q[i] sum is an in-order reduction fused into the loop */
void pb_bicg(long m, long n, const double *A, double *s, double *q, const double *p, const double *r)
{
    for (long j = 0; j < m; j++)
        s[j] = 0.0;
    for (long i = 0; i < n; i++) {
        q[i] = 0.0;
        for (long j = 0; j < m; j++) {
            s[j] = s[j] + r[i] * A[i * m + j];
            q[i] = q[i] + A[i * m + j] * p[j];
        }
    }
}

/* trisolv: forward substitution; each x[i] sums a row of L times x in order */
void pb_trisolv(long n, const double *L, double *x, const double *b)
{
    for (long i = 0; i < n; i++) {
        double v = b[i];
        for (long j = 0; j < i; j++)
            v -= L[i * n + j] * x[j];
        x[i] = v / L[i * n + i];
    }
}

/* seidel-2d: in-place Gauss-Seidel sweeps; each point needs its left neighbour just computed */
void pb_seidel(long tsteps, long n, double *A)
{
    for (long t = 0; t < tsteps; t++)
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                A[i * n + j] = (A[(i - 1) * n + j - 1] + A[(i - 1) * n + j] + A[(i - 1) * n + j + 1] +
                                A[i * n + j - 1] + A[i * n + j] + A[i * n + j + 1] +
                                A[(i + 1) * n + j - 1] + A[(i + 1) * n + j] + A[(i + 1) * n + j + 1]) / 9.0;
}

/* an index wrapped with % inside the loop: an integer division per element */
void wrap_scale(double *y, const double *x, long n, long m)
{
    for (long i = 0; i < n; i++)
        y[i] = 2.0 * x[i % m];
}

/* the same, fixed: a counter that wraps */
void wrap_scale_fixed(double *y, const double *x, long n, long m)
{
    long k = 0;
    for (long i = 0; i < n; i++) {
        y[i] = 2.0 * x[k];
        k = k + 1 == m ? 0 : k + 1;
    }
}

/* a float loop with double constants: every element widened to double and back */
void fscale(float *y, const float *x, long n)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * 0.7 + 0.2;
}

/* the same, fixed: float constants */
void fscale_fixed(float *y, const float *x, long n)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] * 0.7f + 0.2f;
}

/* stream compaction: a data-dependent branch and store index keep the loop scalar */
long compact(double *y, const double *x, long n)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        if (x[i] > 0.5) {
            y[c] = x[i];
            c++;
        }
    return c;
}

/* nothing wrong: a dot product with four partial sums each over a vector (the compiler may reassociate) */
double dot_fast(const double *x, const double *y, long n)
{
    double s = 0.0;
#pragma omp simd reduction(+:s)
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* nothing wrong: a scale of an array held in L2, vectorized */
void scale_l2(double *y, const double *x, long n)
{
    for (long i = 0; i < n; i++)
        y[i] = 3.0 * x[i];
}

/* indirect indexing: every element fetched through an index array (x[idx[i]]), gathered */
void gather(double *restrict y, const double *restrict x, const int *restrict idx, long n)
{
    for (long i = 0; i < n; i++)
        y[i] = 2.0 * x[idx[i]];
}

/* a parallel loop over a few thousand elements: the fork-join of the team costs about as much as the work */
void omp_small(double *y, const double *x, long n)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        y[i] = 3.0 * x[i] + 1.0;
}

static inline double poly8(double v)
{
    return ((((((((0.1 * v + 0.2) * v + 0.3) * v + 0.4) * v + 0.5) * v + 0.6) * v + 0.7) * v + 0.8) * v + 0.9);
}

/* work that grows with the square of the row (a row i sums i*i/n terms), split statically between threads: the
   last thread gets seven eighths of it */
double rows_squared(double *y, const double *x, long n)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        double s = 0.0;
#pragma omp simd reduction(+:s)
        for (long j = 0; j < i * i / n; j++)
            s += poly8(x[j]);
        y[i] = s;
    }
    return y[n - 1];
}

/* the same, fixed: a guided schedule */
double rows_squared_fixed(double *y, const double *x, long n)
{
#pragma omp parallel for schedule(guided)
    for (long i = 0; i < n; i++) {
        double s = 0.0;
#pragma omp simd reduction(+:s)
        for (long j = 0; j < i * i / n; j++)
            s += poly8(x[j]);
        y[i] = s;
    }
    return y[n - 1];
}

/* a column walk over a matrix whose rows are 8 KiB apart: the lines of a column land in the same cache sets */
void colscale(double *a, long n)
{
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++)
            a[i * n + j] *= 1.0001;
}

/* atax: y = A^T (A x); the tmp[i] row sum is an in-order reduction, and the y update beside it vectorizes */
void pb_atax(long m, long n, const double *A, const double *x, double *y, double *tmp)
{
    for (long i = 0; i < n; i++)
        y[i] = 0.0;
    for (long i = 0; i < m; i++) {
        tmp[i] = 0.0;
        for (long j = 0; j < n; j++)
            tmp[i] = tmp[i] + A[i * n + j] * x[j];
        for (long j = 0; j < n; j++)
            y[j] = y[j] + A[i * n + j] * tmp[i];
    }
}

/* mvt: x1 = x1 + A y1 (rows, an in-order sum) and x2 = x2 + A^T y2 (a column walk, an in-order sum too) */
void pb_mvt(long n, double *x1, double *x2, const double *y1, const double *y2, const double *A)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            x1[i] = x1[i] + A[i * n + j] * y1[j];
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            x2[i] = x2[i] + A[j * n + i] * y2[j];
}

/* nothing wrong: a 3-point Jacobi sweep over arrays held in L2 (PolyBench's jacobi-1d, one time step), vectorized */
void pb_jacobi1d(long n, const double *restrict A, double *restrict B)
{
    for (long i = 1; i < n - 1; i++)
        B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
}

/* nothing wrong: a sum over an array far past the caches on every CPU, vectorized with an OpenMP reduction */
double sum_omp(const double *x, long n)
{
    double s = 0.0;
#pragma omp parallel for simd reduction(+:s)
    for (long i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* gesummv: y = alpha A x + beta B x; two in-order row sums in one loop */
void pb_gesummv(long n, double alpha, double beta, const double *A, const double *B, double *tmp, const double *x,
                double *y)
{
    for (long i = 0; i < n; i++) {
        tmp[i] = 0.0;
        y[i] = 0.0;
        for (long j = 0; j < n; j++) {
            tmp[i] = A[i * n + j] * x[j] + tmp[i];
            y[i] = B[i * n + j] * x[j] + y[i];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}

/* 2mm: D = alpha A B C + beta D, both products in i-j-k order (k innermost: a column walk over B and C) */
void pb_2mm(long n, double alpha, double beta, double *tmp, const double *A, const double *B, const double *C,
            double *D)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            tmp[i * n + j] = 0.0;
            for (long k = 0; k < n; k++)
                tmp[i * n + j] += alpha * A[i * n + k] * B[k * n + j];
        }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            D[i * n + j] *= beta;
            for (long k = 0; k < n; k++)
                D[i * n + j] += tmp[i * n + k] * C[k * n + j];
        }
}

/* floyd-warshall: n sweeps over the whole distance matrix, one per intermediate node */
void pb_floyd(long n, double *path)
{
    for (long k = 0; k < n; k++)
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++) {
                double via = path[i * n + k] + path[k * n + j];
                path[i * n + j] = path[i * n + j] < via ? path[i * n + j] : via;
            }
}

/* durbin: Levinson-Durbin recursion; each step sums a reversed slice in order */
void pb_durbin(long n, const double *r, double *y, double *z)
{
    double alpha = -r[0], beta = 1.0;
    y[0] = -r[0];
    for (long k = 1; k < n; k++) {
        beta = (1 - alpha * alpha) * beta;
        double sum = 0.0;
        for (long i = 0; i < k; i++)
            sum += r[k - i - 1] * y[i];
        alpha = -(r[k] + sum) / beta;
        for (long i = 0; i < k; i++)
            z[i] = y[i] + alpha * y[k - i - 1];
        for (long i = 0; i < k; i++)
            y[i] = z[i];
        y[k] = alpha;
    }
}

/* doitgen: a 3-D tensor times a matrix, one slice at a time; each output sums over s in order */
void pb_doitgen(long nr, long nq, long np, double *A, const double *C4, double *sum)
{
    for (long r = 0; r < nr; r++)
        for (long q = 0; q < nq; q++) {
            for (long p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (long s = 0; s < np; s++)
                    sum[p] += A[(r * nq + q) * np + s] * C4[s * np + p];
            }
            for (long p = 0; p < np; p++)
                A[(r * nq + q) * np + p] = sum[p];
        }
}

/* jacobi-2d: tsteps of two 5-point sweeps (A to B, B to A) over arrays held in L3 */
void pb_jacobi2d(long tsteps, long n, double *A, double *B)
{
    for (long t = 0; t < tsteps; t++) {
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] + A[(i + 1) * n + j] +
                                      A[(i - 1) * n + j]);
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                A[i * n + j] = 0.2 * (B[i * n + j] + B[i * n + j - 1] + B[i * n + j + 1] + B[(i + 1) * n + j] +
                                      B[(i - 1) * n + j]);
    }
}

/* PolyBench/C 4.2 syrk (lower triangle of C = alpha A A^T + beta C), in its own loop order: the j loop, innermost,
   walks A[j][k] down a column. */
void pb_syrk(long n, long m, double alpha, double beta, double C[n][n], double A[n][m])
{
    for (long i = 0; i < n; i++) {
        for (long j = 0; j <= i; j++)
            C[i][j] *= beta;
        for (long k = 0; k < m; k++)
            for (long j = 0; j <= i; j++)
                C[i][j] += alpha * A[i][k] * A[j][k];
    }
}

/* PolyBench/C 4.2 fdtd-2d: the three field updates of each time step, each a sweep over its arrays. */
void pb_fdtd2d(long tmax, long nx, long ny, double ex[nx][ny], double ey[nx][ny], double hz[nx][ny],
               double fict[tmax])
{
    for (long t = 0; t < tmax; t++) {
        for (long j = 0; j < ny; j++)
            ey[0][j] = fict[t];
        for (long i = 1; i < nx; i++)
            for (long j = 0; j < ny; j++)
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
        for (long i = 0; i < nx; i++)
            for (long j = 1; j < ny; j++)
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
        for (long i = 0; i < nx - 1; i++)
            for (long j = 0; j < ny - 1; j++)
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    }
}
