/* Compute ceilings: RL_CHAINS independent dependency chains of multiply-add on RL_T, at a vector width of
 * RL_VBYTES bytes (0: scalar). RL_NOFMA keeps the multiply and the add apart (compile with -ffp-contract=off).
 *
 * Each repetition advances every chain by one step: acc = acc * m + c (2 FLOP per lane). The chains start from
 * distinct values read from memory, so no compiler can prove two chains equal and merge them; m < 1 keeps the
 * values bounded and away from denormals. The FLOP model is checked against the compiled loop (build/asm.py). */
#include "rl_timer.h"
#include "rl_chains.h"
#include "rl_parallel.h"
#include "rl_chunks.h"

#ifndef RL_T
#define RL_T double
#endif
#ifndef RL_VBYTES
#define RL_VBYTES 32
#endif

#if RL_VBYTES > 0
typedef RL_T vec __attribute__((vector_size(RL_VBYTES)));
#define RL_LANES (RL_VBYTES / (int)sizeof(RL_T))
#else
typedef RL_T vec;
#define RL_LANES 1
#endif

int rl_peak_lanes(void) { return RL_LANES; }
int rl_peak_chains(void) { return RL_CHAINS; }
const char *rl_peak_backend(void) { return RL_PARALLEL_BACKEND; }

static inline vec splat(RL_T x) {
#if RL_VBYTES > 0
    vec v;
    for (int i = 0; i < RL_LANES; i++) v[i] = x;
    return v;
#else
    return x;
#endif
}

static inline RL_T hsum(vec v) {
#if RL_VBYTES > 0
    RL_T s = 0;
    for (int i = 0; i < RL_LANES; i++) s += v[i];
    return s;
#else
    return v;
#endif
}

#define DECL(i) vec a##i = splat(seed[i]);
#define STEP(i) a##i = a##i * m + c;
#define SUM(i) s += hsum(a##i);

/* The hot loop lives in its own function so the audit reads exactly it. */
__attribute__((noinline)) RL_T rl_peak_chain(long reps, const RL_T *seed) {
    RL_CHAIN_LIST(DECL)
    vec m = splat(seed[RL_CHAINS]);
    vec c = splat(seed[RL_CHAINS + 1]);
    for (long r = 0; r < reps; r++) {
        RL_CHAIN_LIST(STEP)
    }
    RL_T s = 0;
    RL_CHAIN_LIST(SUM)
    return s;
}

typedef struct { long reps; const RL_T *seed; RL_T *out; } ctx_t;

static void worker(int tid, int n, void *p) {
    (void)n;
    ctx_t *c = (ctx_t *)p;
    c->out[tid] = rl_peak_chain(c->reps, c->seed);
}

/* Elapsed seconds for reps steps of every chain on `threads` threads (each thread runs all chains).
 * out[t] receives thread t's checksum; seed holds RL_CHAINS + 2 values. */
double rl_peak(long reps, int threads, RL_T *out, const RL_T *seed) {
    if (threads < 1 || threads > RL_MAX_THREADS || reps < 0) return -1.0;
    ctx_t c = {reps, seed, out};
    double t0 = rl_now();
    if (rl_parallel(threads, worker, &c) != 0) return -1.0;
    return rl_now() - t0;
}

/* The same work timed in chunks of at least RL_PEAK_CHUNK_REPS repetitions (each chunk restarts the chains from
 * the seed, a few hundred cycles against ~10^5): writes each thread's median seconds per repetition while it ran to
 * run_s[0..threads-1] (rl_chunks.h) and returns the wall time of the call, as rl_peak does. */
#define RL_PEAK_CHUNK_REPS 16384

typedef struct { long reps; const RL_T *seed; RL_T *out; double *run_s; } chunked_t;

static void chunked_worker(int tid, int n, void *p) {
    (void)n;
    chunked_t *c = (chunked_t *)p;
    if (c->reps == 0) { c->out[tid] = 0; c->run_s[tid] = 0.0; return; }
    long chunk, nch;
    rl_chunking(c->reps, RL_PEAK_CHUNK_REPS, &chunk, &nch);
    double t[RL_MAX_CHUNKS + 1];
    double read_cost = rl_read_cost();
    RL_T acc = 0;
    for (long k = 0; k < nch; k++) {
        double a = rl_now();
        acc += rl_peak_chain(chunk, c->seed);
        t[k] = rl_now() - a - read_cost;
    }
    long rest = c->reps - chunk * nch;  /* so that the call does exactly reps repetitions (its wall time is used) */
    if (rest > 0) acc += rl_peak_chain(rest, c->seed);
    c->out[tid] = acc;
    c->run_s[tid] = rl_median(t, nch) / (double)chunk;
}

double rl_peak_chunked(long reps, int threads, RL_T *out, const RL_T *seed, double *run_s) {
    if (threads < 1 || threads > RL_MAX_THREADS || reps < 0) return -1.0;
    chunked_t c = {reps, seed, out, run_s};
    double t0 = rl_now();
    if (rl_parallel(threads, chunked_worker, &c) != 0) return -1.0;
    return rl_now() - t0;
}
