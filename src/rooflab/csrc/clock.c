/* Core clock from a dependent chain of integer adds: each add waits for the previous one, and an add has a
 * latency of one cycle on every mainstream x86-64 and AArch64 core, so adds per second = cycles per second.
 * The MHz printed in /proc/cpuinfo is often the TSC or nominal clock, not the clock the core runs at. */
#include "rl_timer.h"
#include "rl_parallel.h"

#define RL_CHAIN_ADDS 1024

long rl_clock_adds_per_rep(void) { return RL_CHAIN_ADDS; }

__attribute__((noinline)) static long chain(long reps) {
    long x = 0;
#if defined(__x86_64__) || defined(__aarch64__)
    for (long r = 0; r < reps; r++) {
#if defined(__x86_64__)
        __asm__ volatile(RL_R4(RL_R256("add $1, %0\n\t")) : "+r"(x));
#else
        __asm__ volatile(RL_R4(RL_R256("add %0, %0, #1\n\t")) : "+r"(x));
#endif
    }
#endif
    return x;
}

typedef struct { long reps; long bad; } cctx;

static void cworker(int tid, int n, void *p) {
    (void)tid; (void)n;
    cctx *c = (cctx *)p;
    if (chain(c->reps) != c->reps * RL_CHAIN_ADDS) c->bad = 1;
}

/* Elapsed seconds for reps * RL_CHAIN_ADDS dependent adds on each of `threads` threads (the slowest thread
 * sets the time); -1.0 where no chain is written for the ISA, -2.0 if the chain miscounted. */
double rl_clock_chain_mt(long reps, int threads) {
#if defined(__x86_64__) || defined(__aarch64__)
    cctx c = {reps, 0};
    double t0 = rl_now();
    if (threads <= 1) cworker(0, 1, &c);
    else if (rl_parallel(threads, cworker, &c) != 0) return -1.0;
    double t1 = rl_now();
    return c.bad ? -2.0 : t1 - t0;
#else
    (void)reps; (void)threads;
    return -1.0;
#endif
}

double rl_clock_chain(long reps) { return rl_clock_chain_mt(reps, 1); }

/* The empty kernel: the cost of the timing scaffolding itself (clock reads, loop), to measure and subtract. */
double rl_empty(long reps) {
    double t0 = rl_now();
    for (long r = 0; r < reps; r++) __asm__ volatile("");
    return rl_now() - t0;
}
