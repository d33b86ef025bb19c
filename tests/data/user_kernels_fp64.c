/* fp64 twin of user_kernels.c's scale, for the MPI job-roofline test (the MPI measure there is fp64 only). */
void dscale(long n, double a, const double *x, double *y) {
    for (long i = 0; i < n; i++) y[i] = a * x[i];
}
