/* A fourth set written after the rules, each kernel's answer written down in targets/explain_cases.py before its
   first run (the commit that added them holds the answers and no result): loops as a performance course's
   exercises and their first attempts write them. Their first run (explain_cases.py --quick): 8 of 11 right.
   Missed: matvec (a dependency chain: gcc's in-order reduction of the vectorized products moves from register to
   register, which the loop audit did not follow; it does now), row_sums_colmajor (an in-order reduction first,
   strided second: its column walk ran at 1.9x the in-core prediction, under the 2x that calls it waiting for
   memory; a walk whose loop carries an in-order sum is now strided first) and stencil_border (a dependency chain or short trip counts from run to run: gcc's code for the border
   test spreads over a vector loop, masked remainders and branches, and no rule reads it as the branch it is). */

/* y = A x, row by row */
void matvec(long n, const double *A, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

/* y += A x with A in coordinate format (row, column, value triples) */
void spmv_coo(long nnz, const int *row, const int *col, const double *val, const double *x, double *y)
{
    for (long k = 0; k < nnz; k++)
        y[row[k]] += val[k] * x[col[k]];
}

/* a 5-point stencil that copies the border inside its loop */
void stencil_border(long n, const float *in, float *out)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            if (i == 0 || j == 0 || i == n - 1 || j == n - 1)
                out[i * n + j] = in[i * n + j];
            else
                out[i * n + j] = 0.25f * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] +
                                          in[i * n + j + 1]);
        }
}

/* C += A B in i-k-j order, rows split between threads */
void gemm_omp(long n, const double *A, const double *B, double *C)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        for (long k = 0; k < n; k++) {
            double a = A[i * n + k];
            for (long j = 0; j < n; j++)
                C[i * n + j] += a * B[k * n + j];
        }
}

/* the sum of each row of a matrix stored by columns */
void row_sums_colmajor(long m, long n, const double *A, double *s)
{
    for (long i = 0; i < m; i++) {
        double t = 0.0;
        for (long j = 0; j < n; j++)
            t += A[j * m + i];
        s[i] = t;
    }
}

/* a polynomial of run-time degree at every element */
void poly_eval(long n, long deg, const double *c, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double v = c[0];
        for (long k = 1; k <= deg; k++)
            v = v * x[i] + c[k];
        y[i] = v;
    }
}

/* a histogram of keys into a run-time number of bins */
void hist_mod(long n, const unsigned *key, long nbins, int *h)
{
    for (long i = 0; i < n; i++)
        h[key[i] % nbins]++;
}

/* Gauss-Seidel sweeps of a 1-D Laplace problem, in place */
void gs_relax(long sweeps, long n, double *x)
{
    for (long s = 0; s < sweeps; s++)
        for (long i = 1; i < n - 1; i++)
            x[i] = 0.5 * (x[i - 1] + x[i + 1]);
}

/* y = L x with L lower triangular, rows split between threads */
void trimv_omp(long n, const double *L, const double *x, double *y)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j <= i; j++)
            s += L[i * n + j] * x[j];
        y[i] = s;
    }
}

/* z = x + y on 32-bit integers */
void vadd_i32(long n, const int *x, const int *y, int *z)
{
    for (long i = 0; i < n; i++)
        z[i] = x[i] + y[i];
}

/* y = a x + y split between threads */
void daxpy_omp(long n, double a, const double *x, double *y)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
