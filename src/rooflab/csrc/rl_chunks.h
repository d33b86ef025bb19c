/* Timing in short chunks: a thread times many short stretches of its work and keeps the median one. A stretch in
 * which the thread was preempted (an interrupt, another tenant of a shared host) is slow, and the median of many
 * ignores it as long as most ran undisturbed; a real change of speed moves every chunk and is kept. */
#ifndef RL_CHUNKS_H
#define RL_CHUNKS_H
#include <stdlib.h>
#include "rl_timer.h"

#define RL_MAX_CHUNKS 2048

static int rl_dcmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1] (sorts v). */
static inline double rl_median(double *v, long n) {
    qsort(v, (size_t)n, sizeof(double), rl_dcmp);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The cost of one clock read, to take off each chunk: the median of a few back-to-back reads. */
static inline double rl_read_cost(void) {
    double r[15];
    for (int k = 0; k < 15; k++) {
        double a = rl_now();
        r[k] = rl_now() - a;
    }
    return rl_median(r, 15);
}

/* How to cut `reps` repetitions into chunks of at least `min_chunk` (and at most RL_MAX_CHUNKS of them). */
static inline void rl_chunking(long reps, long min_chunk, long *chunk, long *nch) {
    *chunk = reps / RL_MAX_CHUNKS;
    if (*chunk < min_chunk) *chunk = min_chunk;
    *nch = reps / *chunk;
    if (*nch < 1) {
        *nch = 1;
        *chunk = reps;
    }
}

#endif
