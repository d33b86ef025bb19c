/* Run a function on N threads at once: OpenMP when the compiler has it, POSIX threads otherwise.
 * The caller times the whole call, so the reported time is that of the slowest thread.
 *
 * Every call also records how much of its wall time its threads spent waiting for a CPU: each thread notes when it
 * started and reads its own CPU clock around the function; the time it waited is its late start plus its time off
 * the CPU while it had work (its span minus its CPU time). rl_running_fraction() returns 1 minus the longest wait
 * over the call's wall time. A thread that shared its CPU with another process, or started late because its CPU was
 * busy, reads well below 1; a thread that merely finished its share early does not. That is how a measurement
 * learns, from inside, that the CPUs were not all its own. */
#ifndef RL_PARALLEL_H
#define RL_PARALLEL_H
#include <time.h>
#include "rl_timer.h"

/* The most threads any kernel accepts (per-thread arrays are sized by it). */
#define RL_MAX_THREADS 256

typedef void (*rl_thread_fn)(int tid, int nthreads, void *ctx);

static double rl_thread_cpu_s[RL_MAX_THREADS];   /* CPU seconds of each thread in the last call */
static double rl_thread_start[RL_MAX_THREADS];   /* when it started (rl_now) */
static double rl_thread_span[RL_MAX_THREADS];    /* wall seconds from its start to its end */
static int rl_thread_where[RL_MAX_THREADS];      /* the CPU it ended its work on (-1: unknown) */
static int rl_last_threads = 0;
static double rl_last_running = 1.0;

#if defined(__linux__)
#include <unistd.h>
#include <sys/syscall.h>
/* The CPU the calling thread runs on (the getcpu system call: no _GNU_SOURCE needed); -1 when unknown. */
static inline int rl_cpu_now(void) {
    unsigned cpu = 0;
    return syscall(SYS_getcpu, &cpu, (void *)0, (void *)0) == 0 ? (int)cpu : -1;
}
#else
static inline int rl_cpu_now(void) { return -1; }
#endif

static inline double rl_thread_cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void rl_run_counted(int tid, int n, rl_thread_fn fn, void *ctx) {
    double w0 = rl_now(), c0 = rl_thread_cpu();
    fn(tid, n, ctx);
    rl_thread_cpu_s[tid] = rl_thread_cpu() - c0;
    rl_thread_span[tid] = rl_now() - w0;
    rl_thread_start[tid] = w0;
    rl_thread_where[tid] = rl_cpu_now();
}

static inline void rl_note_running(int n, double w0, double wall) {
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double late = rl_thread_start[i] - w0, off = rl_thread_span[i] - rl_thread_cpu_s[i];
        double waited = (late > 0 ? late : 0.0) + (off > 0 ? off : 0.0);
        if (waited > worst) worst = waited;
    }
    rl_last_running = wall > 0 ? 1.0 - worst / wall : 1.0;
    rl_last_threads = n;
}

/* The running fraction of the last rl_parallel call of this library (see above). */
__attribute__((weak, visibility("default"))) double rl_running_fraction(void) { return rl_last_running; }

/* Each thread of the last rl_parallel call: its span (wall seconds from its start to its end), its CPU seconds and
 * the CPU it ended on, for up to n threads; returns how many threads the call had. On a kernel that splits its work
 * evenly, a thread whose span is markedly longer than its sibling's ran on a CPU that was not fully its own. */
__attribute__((weak, visibility("default"))) int rl_thread_report(double *span, double *cpu_s, int *cpu, int n) {
    int k = rl_last_threads < n ? rl_last_threads : n;
    for (int i = 0; i < k; i++) {
        span[i] = rl_thread_span[i];
        cpu_s[i] = rl_thread_cpu_s[i];
        cpu[i] = rl_thread_where[i];
    }
    return rl_last_threads;
}

#if defined(_OPENMP)
#include <omp.h>
static inline int rl_parallel(int n, rl_thread_fn fn, void *ctx) {
    if (n < 1 || n > RL_MAX_THREADS) return -1;
    int ok = 1;
    double w0 = rl_now();
    if (n == 1) {
        rl_run_counted(0, 1, fn, ctx);
    } else {
#pragma omp parallel num_threads(n)
        {
            if (omp_get_num_threads() != n) ok = 0;
            else rl_run_counted(omp_get_thread_num(), n, fn, ctx);
        }
    }
    if (ok) rl_note_running(n, w0, rl_now() - w0);
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
/* Threads are started behind a gate and run the function only once all of them exist: when one cannot be started
 * (ulimit -u, memory), the others are told to return at once and are joined, so none is left running on this
 * frame or waiting at a barrier for a thread that never came. */
typedef struct { pthread_mutex_t m; pthread_cond_t c; int state; } rl_gate; /* state 0 wait, 1 go, -1 abort */
typedef struct { int tid, n; rl_thread_fn fn; void *ctx; rl_gate *gate; } rl_targ;
static void *rl_tstart(void *p) {
    rl_targ *a = (rl_targ *)p;
    pthread_mutex_lock(&a->gate->m);
    while (a->gate->state == 0) pthread_cond_wait(&a->gate->c, &a->gate->m);
    int go = a->gate->state > 0;
    pthread_mutex_unlock(&a->gate->m);
    if (go) rl_run_counted(a->tid, a->n, a->fn, a->ctx);
    return 0;
}
static inline void rl_open_gate(rl_gate *g, int state) {
    pthread_mutex_lock(&g->m);
    g->state = state;
    pthread_cond_broadcast(&g->c);
    pthread_mutex_unlock(&g->m);
}
static inline int rl_parallel(int n, rl_thread_fn fn, void *ctx) {
    if (n < 1 || n > RL_MAX_THREADS) return -1;
    if (n == 1) {
        double w0 = rl_now();
        rl_run_counted(0, 1, fn, ctx);
        rl_note_running(1, w0, rl_now() - w0);
        return 0;
    }
    pthread_t th[RL_MAX_THREADS];
    rl_targ args[RL_MAX_THREADS];
    rl_gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int started = 1;
    for (; started < n; started++) {
        args[started] = (rl_targ){started, n, fn, ctx, &gate};
        if (pthread_create(&th[started], 0, rl_tstart, &args[started]) != 0) break;
    }
    if (started < n) {
        rl_open_gate(&gate, -1);
        for (int i = 1; i < started; i++) pthread_join(th[i], 0);
        return -1;
    }
    double w0 = rl_now();
    rl_open_gate(&gate, 1);
    rl_run_counted(0, n, fn, ctx);
    for (int i = 1; i < n; i++) pthread_join(th[i], 0);
    rl_note_running(n, w0, rl_now() - w0);
    return 0;
}
#define RL_PARALLEL_BACKEND "pthreads"
typedef pthread_barrier_t rl_barrier;
static inline void rl_barrier_init(rl_barrier *b, int n) { pthread_barrier_init(b, 0, (unsigned)n); }
static inline void rl_barrier_wait(rl_barrier *b) { pthread_barrier_wait(b); }
static inline void rl_barrier_destroy(rl_barrier *b) { pthread_barrier_destroy(b); }
#endif

#endif
