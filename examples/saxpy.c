/* Two versions of y = a*x + y, to bench and compare with rooflab. */
#include <stddef.h>

void saxpy(long n, float a, const float *restrict x, float *restrict y) {
    for (long i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

/* The same work, walked with a stride: the same FLOPs, far worse use of each cache line. */
void saxpy_strided(long n, float a, const float *restrict x, float *restrict y) {
    const long s = 16;
    for (long j = 0; j < s; j++)
        for (long i = j; i < n; i += s) y[i] = a * x[i] + y[i];
}
