/* Kernels that leave the process they run in changed, and one correct kernel whose result depends on that state:
 * the isolation probes run each hostile kernel, then the correct one, in one worker. */
#define _GNU_SOURCE
#include <fenv.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

/* correct: the products are subnormal, so flush-to-zero or another rounding mode changes them */
void sensitive(long n, const double *x, double *y) {
    for (long i = 0; i < n; i++) y[i] = x[i] * 1e-300 * 1e-10;
}

void round_up(long n, double *y) {
    fesetround(FE_UPWARD);
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

void flush_to_zero(long n, double *y) {
#if defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() | 0x8040);
#elif defined(__aarch64__)
    unsigned long long r;
    __asm__ volatile("mrs %0, fpcr" : "=r"(r));
    r |= 1ull << 24;
    __asm__ volatile("msr fpcr, %0" : : "r"(r));
#endif
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

void leaves_alarm(long n, double *y) {
    alarm(1);
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

static void on_usr1(int sig) { (void)sig; _exit(3); }

void takes_sigusr1(long n, double *y) {
    signal(SIGUSR1, on_usr1);
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

void few_files(long n, double *y) {
    struct rlimit r;
    getrlimit(RLIMIT_NOFILE, &r);
    r.rlim_cur = 4;
    setrlimit(RLIMIT_NOFILE, &r);
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

static void *spin(void *arg) {
    volatile unsigned long *k = arg;
    for (;;) (*k)++;
    return 0;
}

void stray_thread(long n, double *y) {
    static int started;
    static unsigned long count;
    if (!started) {
        pthread_t t;
        started = 1;
        pthread_create(&t, 0, spin, &count);
        pthread_detach(t);
    }
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

void forks(long n, double *y) {
    static int done;
    if (!done) {
        done = 1;
        fork();
    }
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

void moves(long n, double *y) {
    if (chdir("/") != 0) return;
    umask(0777);
    setenv("ROOFLAB_PROBE_LEFT", "1", 1);
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

void closes_stdout(long n, double *y) {
    close(1);
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

#include <stdio.h>
#include <string.h>

/* prints 8 MiB on its first call */
void chatty(long n, double *y) {
    static int done;
    if (!done) {
        static char line[1024];
        done = 1;
        memset(line, 'z', sizeof line - 2);
        line[sizeof line - 2] = '\n';
        for (int i = 0; i < 8192; i++) fputs(line, stdout);
    }
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

#include <locale.h>
#include <sched.h>
#include <sys/resource.h>

void pins_itself(long n, double *y) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof one, &one);
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

void lowers_priority(long n, double *y) {
    setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + 1 > 19 ? 19 : getpriority(PRIO_PROCESS, 0) + 1);
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

void switches_locale(long n, double *y) {
    setlocale(LC_ALL, "C");
    setlocale(LC_NUMERIC, "POSIX");
    setlocale(LC_CTYPE, "C");
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

/* keeps 600 MiB, touched, on its first call */
void keeps_memory(long n, double *y) {
    static char *kept;
    if (!kept) {
        kept = malloc(600ul << 20);
        if (kept) memset(kept, 1, 600ul << 20);
    }
    for (long i = 0; i < n; i++) y[i] = 0.0;
}

/* a thread that sleeps past the call, then would spin for a second during whatever runs next */
static void *sleep_then_spin(void *arg) {
    (void)arg;
    sleep(2);
    volatile unsigned long k = 0;
    for (unsigned long i = 0; i < 2000000000ul; i++) k++;
    return 0;
}

void sleeper_thread(long n, double *y) {
    static int started;
    if (!started) {
        pthread_t t;
        started = 1;
        pthread_create(&t, 0, sleep_then_spin, 0);
        pthread_detach(t);
    }
    for (long i = 0; i < n; i++) y[i] = 0.0;
}
