/* Kernels for the bad-input probes: correct ones with awkward names, and broken ones. */
#include <stdio.h>
#include <string.h>

void scale(long n, float a, const float *x, float *y) { for (long i = 0; i < n; i++) y[i] = a * x[i]; }

/* parameter names the generated code once used for itself */
void scale_r(long n, float r, const float *x, float *y) { for (long i = 0; i < n; i++) y[i] = r * x[i]; }
void out_r(long n, const float *x, float *r) { for (long i = 0; i < n; i++) r[i] = 2.0f * x[i]; }
void names(long reps, float t0, const float *rl_sink, float *i) { for (long k = 0; k < reps; k++) i[k] = t0 * rl_sink[k]; }
void clash(long clash_n, float clash, const float *x, float *y) { for (long k = 0; k < clash_n; k++) y[k] = clash * x[k]; }
/* Python keywords are fine C names */
void kw(long n, const float *in, float *lambda) { for (long k = 0; k < n; k++) lambda[k] = in[k] + 1.0f; }
/* like the function itself */
void self(long n, float self, const float *x, float *y) { for (long k = 0; k < n; k++) y[k] = self * x[k]; }
/* named like functions the C library exports (glibc's regexp.h advance and step): the library's own are timed */
void advance(long n, float a, const float *x, float *y) { for (long i = 0; i < n; i++) y[i] = a * x[i]; }
void step(long n, float a, const float *x, float *y) { for (long i = 0; i < n; i++) y[i] = x[i] - a; }

void talks(long n, const float *x, float *y) {
    printf("hello from the kernel\n");
    fprintf(stderr, "a warning of the kernel\n");
    for (long k = 0; k < n; k++) y[k] = x[k];
}
void add_int(long n, int k, unsigned int u, const float *x, float *y) {
    for (long i = 0; i < n; i++) y[i] = x[i] + (float)(k % 7) + (float)(u % 5);
}
void talks_bytes(long n, const float *x, float *y) {
    printf("bytes that are not UTF-8: \xff\xfe\xe9\n");
    for (long k = 0; k < n; k++) y[k] = x[k];
}
void past_end(long n, const float *x, float *y) { for (long k = 0; k <= n; k++) y[k] = x[k < n ? k : 0]; }
void before_start(long n, const float *x, float *y) { for (long k = -1; k < n; k++) y[k] = 1.0f; (void)x; }
void crashes(long n, const float *x, float *y) { volatile float *p = 0; *p = x[0]; (void)n; (void)y; }
void hangs(long n, const float *x, float *y) { volatile long k = 0; while (n > 0) k++; (void)x; (void)y; }
void wrong(long n, const float *x, float *y) { for (long k = 0; k < n; k++) y[k] = x[k] + 1.0f; }
double dot(long n, const double *a, const double *b) { double s = 0; for (long k = 0; k < n; k++) s += a[k] * b[k]; return s; }
void touch(long n, float *y) { for (long k = 0; k < n; k++) y[k] = 0.0f; }
void rooflab_mine(long n, float *y) { (void)n; (void)y; }
void reserved(long rooflab_n, float *y) { (void)rooflab_n; (void)y; }
#ifdef PROBE_FLAG
void flagged(long n, float *y) { for (long k = 0; k < n; k++) y[k] = PROBE_FLAG; }
#endif
/* the same result as scale, with forty times the work */
void scale_slow(long n, float a, const float *x, float *y) {
    for (int rep = 0; rep < 40; rep++) {
        for (long i = 0; i < n; i++) y[i] = a * x[i];
        __asm__ volatile("" ::: "memory");
    }
}
