/* Load imbalance: the same rows of compute-bound work split between threads coarsely (a few strips, more strips
 * than threads but not a multiple of them) or finely (row by row, round robin). Each thread measures its own busy
 * time; the call's wall time is that of the slowest thread, and the rest wait at the barrier. */
#include "rl_parallel.h"
#include "rl_timer.h"

typedef struct {
    long reps, rows, work;
    int strips, fine;
    double busy[RL_MAX_THREADS];
    double sink[RL_MAX_THREADS];
} ictx;

/* One row: 8 independent multiply-add chains of `work` steps (compute-bound, no memory traffic). */
static double row(long work, double seed) {
    double a0 = seed, a1 = seed + 1, a2 = seed + 2, a3 = seed + 3, a4 = seed + 4, a5 = seed + 5, a6 = seed + 6,
           a7 = seed + 7;
    const double m = 0.999999, c = 1e-6;
    for (long k = 0; k < work; k++) {
        a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
        a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
    }
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

static void worker(int tid, int nt, void *p) {
    ictx *x = (ictx *)p;
    double s = 0;
    double t0 = rl_now();
    for (long r = 0; r < x->reps; r++) {
        if (x->fine) {
            for (long i = tid; i < x->rows; i += nt) s += row(x->work, (double)i);
        } else {
            for (int st = tid; st < x->strips; st += nt) {
                long lo = x->rows * st / x->strips, hi = x->rows * (st + 1) / x->strips;
                for (long i = lo; i < hi; i++) s += row(x->work, (double)i);
            }
        }
    }
    x->busy[tid] = rl_now() - t0;
    x->sink[tid] = s;
}

/* Returns the wall time; busy[t] receives thread t's busy seconds, *checksum the sum over all rows and reps. */
double rl_imbalance(long reps, int threads, long rows, long work, int strips, int fine, double *busy,
                    double *checksum) {
    if (threads < 1 || threads > RL_MAX_THREADS || strips < 1) return -1.0;
    ictx x = {reps, rows, work, strips, fine, {0}, {0}};
    double t0 = rl_now();
    if (threads == 1) worker(0, 1, &x);
    else if (rl_parallel(threads, worker, &x) != 0) return -1.0;
    double wall = rl_now() - t0;
    double s = 0;
    for (int t = 0; t < threads; t++) {
        busy[t] = x.busy[t];
        s += x.sink[t];
    }
    *checksum = s;
    return wall;
}
