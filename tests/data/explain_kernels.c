/* Kernels for the explain tests. */
double dot(const double *x, const double *y, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}
