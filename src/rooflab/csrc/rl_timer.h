/* Timing inside C: a monotonic clock read around the repetition loop, so a sample never includes the cost of
 * crossing from Python (about 1 us per ctypes call). */
#ifndef RL_TIMER_H
#define RL_TIMER_H
#include <time.h>

static inline double rl_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Keeps the compiler from merging, hoisting or deleting repeated passes over the same data: it must assume that
 * memory changed, so every pass really loads and stores. */
#define RL_BARRIER() __asm__ volatile("" ::: "memory")

/* Makes a value look used (and unknown) so the computation producing it cannot be dropped. */
#define RL_USE(x) __asm__ volatile("" : "+x"(x))

#define RL_R4(x) x x x x
#define RL_R16(x) RL_R4(RL_R4(x))
#define RL_R64(x) RL_R4(RL_R16(x))
#define RL_R256(x) RL_R4(RL_R64(x))

#endif
