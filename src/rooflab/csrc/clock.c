/* Core clock from a dependent chain of integer adds: each add waits for the previous one, and an add of two
 * registers has a latency of one cycle on every mainstream x86-64 and AArch64 core, so adds per second = cycles per
 * second. The addend is a register, not an immediate: Intel's Golden Cove cores (Alder Lake, Sapphire Rapids) fold
 * dependent adds of small immediates at rename, several per cycle (a chain of `add $1` read 16.9 GHz on a Xeon
 * whose register adds and 3-cycle multiplies both read 2.9 GHz).
 * The MHz printed in /proc/cpuinfo is often the TSC or nominal clock, not the clock the core runs at. */
#include "rl_timer.h"
#include "rl_parallel.h"
#include "rl_chunks.h"

#define RL_CHAIN_ADDS 1024

long rl_clock_adds_per_rep(void) { return RL_CHAIN_ADDS; }

__attribute__((noinline)) static long chain(long reps) {
    long x = 0, one = 1;
    __asm__ volatile("" : "+r"(one));  /* a value the compiler cannot see: the adds stay register adds */
#if defined(__x86_64__) || defined(__aarch64__)
    for (long r = 0; r < reps; r++) {
#if defined(__x86_64__)
        __asm__ volatile(RL_R4(RL_R256("add %1, %0\n\t")) : "+r"(x) : "r"(one));
#else
        __asm__ volatile(RL_R4(RL_R256("add %0, %0, %1\n\t")) : "+r"(x) : "r"(one));
#endif
    }
#endif
    return x;
}

/* The clock each thread ran at while it ran: each thread times its chain in chunks of at least RL_CHUNK_REPS
 * repetitions (about 70 us at 4 GHz) and keeps the median chunk, minus the cost of one clock read (rl_chunks.h).
 * A wall-clock sample of the whole chain, by contrast, reads low whenever the core was taken away for part of it,
 * which would make a kernel timed beside it look faster than the core's peak. */
#define RL_CHUNK_REPS 256

typedef struct { long reps; long bad; double hz[RL_MAX_THREADS]; } rctx;

static void rworker(int tid, int n, void *p) {
    (void)n;
    rctx *c = (rctx *)p;
    if (c->reps == 0) { c->hz[tid] = 0.0; return; }
    long chunk, nch;
    rl_chunking(c->reps, RL_CHUNK_REPS, &chunk, &nch);
    double t[RL_MAX_CHUNKS + 1];
    double read_cost = rl_read_cost();
    for (long k = 0; k < nch; k++) {
        double a = rl_now();
        if (chain(chunk) != chunk * RL_CHAIN_ADDS) c->bad = 1;
        t[k] = rl_now() - a - read_cost;
    }
    long rest = c->reps - chunk * nch;  /* so that the call does exactly reps repetitions (its wall time is used) */
    if (rest > 0 && chain(rest) != rest * RL_CHAIN_ADDS) c->bad = 1;
    double med = rl_median(t, nch);
    c->hz[tid] = med > 0 ? (double)chunk * RL_CHAIN_ADDS / med : 0.0;
}

/* Runs `reps` repetitions of the chain on each of `threads` threads (none for reps = 0: the cost of the call
 * itself); writes each thread's clock (Hz, from its median chunk) to hz_out[0..threads-1] and returns the wall time
 * of the call (-1.0: no chain for the ISA, or bad arguments; -2.0: the chain miscounted). */
double rl_clock_chain_chunked(long reps, int threads, double *hz_out) {
#if defined(__x86_64__) || defined(__aarch64__)
    if (threads < 1 || threads > RL_MAX_THREADS || reps < 0) return -1.0;
    rctx c;
    c.reps = reps;
    c.bad = 0;
    double t0 = rl_now();
    if (rl_parallel(threads, rworker, &c) != 0) return -1.0;
    double t1 = rl_now();
    if (c.bad) return -2.0;
    for (int i = 0; i < threads; i++) hz_out[i] = c.hz[i];
    return t1 - t0;
#else
    (void)reps; (void)threads; (void)hz_out;
    return -1.0;
#endif
}

/* The empty kernel: the cost of the timing scaffolding itself (clock reads, loop), to measure and subtract. */
double rl_empty(long reps) {
    double t0 = rl_now();
    for (long r = 0; r < reps; r++) __asm__ volatile("");
    return rl_now() - t0;
}
