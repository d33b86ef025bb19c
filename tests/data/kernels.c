/* Test kernels for the worker: one that works, one that crashes, one that hangs, one that is wrong. */
#include "rl_timer.h"

double good_scale(long reps, double *y, const double *x, long n) {
    double t0 = rl_now();
    for (long r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++) y[i] = 2.0 * x[i];
        RL_BARRIER();
    }
    return rl_now() - t0;
}

double wrong_scale(long reps, double *y, const double *x, long n) {
    double t0 = rl_now();
    for (long r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++) y[i] = 2.0 * x[i] + (i == n / 2 ? 1.0 : 0.0);
        RL_BARRIER();
    }
    return rl_now() - t0;
}

double crash(long reps) {
    volatile int *p = (int *)0;
    *p = (int)reps;
    return 0.0;
}

double hang(long reps) {
    (void)reps;
    for (;;) __asm__ volatile("");
    return 0.0;
}

/* writes 1.0 to out[0] when the CPU flushes subnormal results to zero in this call (the FP environment it ran
 * under), else 0.0 */
double ftz_seen(long reps, double *out) {
    volatile double tiny = 1e-300;
    for (long r = 0; r < reps; r++) out[0] = (tiny * 1e-10 == 0.0) ? 1.0 : 0.0;
    return 1e-6;
}
