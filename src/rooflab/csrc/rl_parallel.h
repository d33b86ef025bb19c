/* Run a function on N threads at once: OpenMP when the compiler has it, POSIX threads otherwise.
 * The caller times the whole call, so the reported time is that of the slowest thread. */
#ifndef RL_PARALLEL_H
#define RL_PARALLEL_H

typedef void (*rl_thread_fn)(int tid, int nthreads, void *ctx);

#if defined(_OPENMP)
#include <omp.h>
static inline int rl_parallel(int n, rl_thread_fn fn, void *ctx) {
    int ok = 1;
#pragma omp parallel num_threads(n)
    {
        if (omp_get_num_threads() != n) ok = 0;
        else fn(omp_get_thread_num(), n, ctx);
    }
    return ok ? 0 : -1;
}
#define RL_PARALLEL_BACKEND "openmp"
/* A barrier among the threads of the current rl_parallel call (an orphaned OpenMP barrier). */
typedef int rl_barrier;
static inline void rl_barrier_init(rl_barrier *b, int n) { (void)b; (void)n; }
static inline void rl_barrier_wait(rl_barrier *b) { (void)b;
#pragma omp barrier
}
static inline void rl_barrier_destroy(rl_barrier *b) { (void)b; }
#else
#include <pthread.h>
typedef struct { int tid, n; rl_thread_fn fn; void *ctx; } rl_targ;
static void *rl_tstart(void *p) { rl_targ *a = (rl_targ *)p; a->fn(a->tid, a->n, a->ctx); return 0; }
static inline int rl_parallel(int n, rl_thread_fn fn, void *ctx) {
    if (n <= 1) { fn(0, 1, ctx); return 0; }
    pthread_t th[256];
    rl_targ args[256];
    if (n > 256) return -1;
    for (int i = 1; i < n; i++) {
        args[i] = (rl_targ){i, n, fn, ctx};
        if (pthread_create(&th[i], 0, rl_tstart, &args[i]) != 0) return -1;
    }
    fn(0, n, ctx);
    for (int i = 1; i < n; i++) pthread_join(th[i], 0);
    return 0;
}
#define RL_PARALLEL_BACKEND "pthreads"
typedef pthread_barrier_t rl_barrier;
static inline void rl_barrier_init(rl_barrier *b, int n) { pthread_barrier_init(b, 0, (unsigned)n); }
static inline void rl_barrier_wait(rl_barrier *b) { pthread_barrier_wait(b); }
static inline void rl_barrier_destroy(rl_barrier *b) { pthread_barrier_destroy(b); }
#endif

#endif
