/* Bandwidth kernels over double arrays, timed inside C: read (sum), copy and triad (a = b + s*c).
 *
 * Traffic model (as STREAM counts it; write-allocate is NOT counted):
 *   read  8 bytes per element (one load)
 *   copy  16 bytes per element (one load, one store)
 *   triad 24 bytes per element (two loads, one store)
 * With write-allocate caches a store of a line not in cache also reads it, so real DRAM traffic of copy and
 * triad is 24 and 32 bytes per element; rooflab reports the STREAM figure and says so.
 *
 * Every repetition is a full pass; RL_BARRIER between passes forbids the compiler to merge or drop passes (a
 * merged pair would double the apparent cache bandwidth; build/asm.py checks the loop too). With several threads
 * each thread streams over its own contiguous part, all passes without a barrier between them, and the wall time of
 * the whole call (the slowest thread) is returned. */
#include "rl_timer.h"
#include "rl_parallel.h"

#ifndef RL_VBYTES
#define RL_VBYTES 32
#endif
#define L (RL_VBYTES / 8)
/* aligned(8): loads and stores need not be vector-aligned */
typedef double vd __attribute__((vector_size(RL_VBYTES), aligned(8)));

int rl_stream_lanes(void) { return L; }

static inline void part(long n, int tid, int nt, long *lo, long *hi) {
    long blocks = n / (4 * L);
    *lo = (blocks * tid / nt) * 4 * L;
    *hi = (tid == nt - 1) ? n : (blocks * (tid + 1) / nt) * 4 * L;
}

__attribute__((noinline)) double rl_read_pass(const double *a, long lo, long hi) {
    vd s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0}, s6 = {0}, s7 = {0};
    long i = lo;
    for (; i + 8 * L <= hi; i += 8 * L) {
        s0 += *(const vd *)(a + i);
        s1 += *(const vd *)(a + i + L);
        s2 += *(const vd *)(a + i + 2 * L);
        s3 += *(const vd *)(a + i + 3 * L);
        s4 += *(const vd *)(a + i + 4 * L);
        s5 += *(const vd *)(a + i + 5 * L);
        s6 += *(const vd *)(a + i + 6 * L);
        s7 += *(const vd *)(a + i + 7 * L);
    }
    vd s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    double t = 0;
    for (int k = 0; k < L; k++) t += s[k];
    for (; i < hi; i++) t += a[i];
    return t;
}

__attribute__((noinline)) void rl_copy_pass(double *restrict b, const double *restrict a, long lo, long hi) {
    long i = lo;
    for (; i + 2 * L <= hi; i += 2 * L) {
        *(vd *)(b + i) = *(const vd *)(a + i);
        *(vd *)(b + i + L) = *(const vd *)(a + i + L);
    }
    for (; i < hi; i++) b[i] = a[i];
}

__attribute__((noinline)) void rl_triad_pass(double *restrict a, const double *restrict b,
                                             const double *restrict c, double s, long lo, long hi) {
    long i = lo;
    vd sv = (vd){0} + s;
    for (; i + 2 * L <= hi; i += 2 * L) {
        *(vd *)(a + i) = *(const vd *)(b + i) + sv * *(const vd *)(c + i);
        *(vd *)(a + i + L) = *(const vd *)(b + i + L) + sv * *(const vd *)(c + i + L);
    }
    for (; i < hi; i++) a[i] = b[i] + s * c[i];
}

typedef struct { int kind; long reps, n; double *a; const double *b, *c; double s; double sums[256]; } sctx;

static void sworker(int tid, int nt, void *p) {
    sctx *x = (sctx *)p;
    long lo, hi;
    part(x->n, tid, nt, &lo, &hi);
    double acc = 0;
    for (long r = 0; r < x->reps; r++) {
        if (x->kind == 0) acc += rl_read_pass(x->b, lo, hi);
        else if (x->kind == 1) rl_copy_pass(x->a, x->b, lo, hi);
        else rl_triad_pass(x->a, x->b, x->c, x->s, lo, hi);
        RL_BARRIER();
    }
    x->sums[tid] = acc;
}

static double run(int kind, long reps, int threads, double *a, const double *b, const double *c, double s,
                  long n, double *sum_out) {
    if (threads < 1 || threads > 256) return -1.0;
    sctx x = {kind, reps, n, a, b, c, s, {0}};
    double t0 = rl_now();
    if (threads == 1) sworker(0, 1, &x);
    else if (rl_parallel(threads, sworker, &x) != 0) return -1.0;
    double t = rl_now() - t0;
    if (sum_out) {
        double tot = 0;
        for (int i = 0; i < threads; i++) tot += x.sums[i];
        *sum_out = tot;
    }
    return t;
}

/* sum_out receives the sum over all passes (for the correctness check: reps * sum(b)). */
double rl_read(long reps, int threads, const double *b, long n, double *sum_out) {
    return run(0, reps, threads, 0, b, 0, 0.0, n, sum_out);
}
double rl_copy(long reps, int threads, double *a, const double *b, long n) {
    return run(1, reps, threads, a, b, 0, 0.0, n, 0);
}
double rl_triad(long reps, int threads, double *a, const double *b, const double *c, double s, long n) {
    return run(2, reps, threads, a, b, c, s, n, 0);
}
