/* Core clock from a dependent chain of integer adds: each add waits for the previous one, and an add has a
 * latency of one cycle on every mainstream x86-64 and AArch64 core, so adds per second = cycles per second.
 * The MHz printed in /proc/cpuinfo is often the TSC or nominal clock, not the clock the core runs at. */
#include "rl_timer.h"

#define RL_CHAIN_ADDS 1024

long rl_clock_adds_per_rep(void) { return RL_CHAIN_ADDS; }

/* Returns elapsed seconds for reps * RL_CHAIN_ADDS dependent adds, or -1.0 where no chain is written for the ISA. */
double rl_clock_chain(long reps) {
#if defined(__x86_64__) || defined(__aarch64__)
    long x = 0;
    double t0 = rl_now();
    for (long r = 0; r < reps; r++) {
#if defined(__x86_64__)
        __asm__ volatile(RL_R4(RL_R256("add $1, %0\n\t")) : "+r"(x));
#else
        __asm__ volatile(RL_R4(RL_R256("add %0, %0, #1\n\t")) : "+r"(x));
#endif
    }
    double t1 = rl_now();
    if (x != (long)reps * RL_CHAIN_ADDS) return -2.0;
    return t1 - t0;
#else
    (void)reps;
    return -1.0;
#endif
}

/* The empty kernel: the cost of the timing scaffolding itself (clock reads, loop), to measure and subtract. */
double rl_empty(long reps) {
    double t0 = rl_now();
    for (long r = 0; r < reps; r++) __asm__ volatile("");
    return rl_now() - t0;
}
