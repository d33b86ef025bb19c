/* Kernels for `rooflab bench` tests: one right, one wrong, one that crashes at a size, one that hangs. */
void scale(long n, float a, const float *x, float *y) {
    for (long i = 0; i < n; i++) y[i] = a * x[i];
}

void scale_wrong(long n, float a, const float *x, float *y) {
    for (long i = 0; i < n; i++) y[i] = a * x[i] + (i == n / 2);
}

void scale_crash(long n, float a, const float *x, float *y) {
    if (n > 100) { volatile float *p = 0; *p = a; }
    for (long i = 0; i < n; i++) y[i] = a * x[i];
}

void scale_hang(long n, float a, const float *x, float *y) {
    if (n > 100) for (;;) __asm__ volatile("");
    for (long i = 0; i < n; i++) y[i] = a * x[i];
}
