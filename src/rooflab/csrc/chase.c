/* Memory latency by pointer chasing: each load's address is the previous load's value, so loads cannot overlap
 * and every step costs one full latency of the level the chain lives in (a random cyclic permutation defeats the
 * prefetchers). Returns elapsed seconds for reps * steps loads. */
#include "rl_timer.h"

double rl_chase(long reps, const long *next, long steps, long *sink) {
    long p = 0;
    double t0 = rl_now();
    for (long r = 0; r < reps; r++)
        for (long s = 0; s < steps; s++) p = next[p];
    double t = rl_now() - t0;
    *sink = p;
    return t;
}
