/* rooflab's worker guard: what a kernel may change in the process that runs it, read and put back after each call.
 *
 * rl_guard_install: keeps the FP environment the worker started with (rounding, FTZ/DAZ, traps) and registers fork
 *   handlers: each fork() is counted, and while a call is armed the child ends at once (_exit(127)), so a kernel
 *   that forks never leaves a second copy of itself running beside the measurement, nor a second worker writing to
 *   rooflab's pipe. (posix_spawn and vfork, which system() and popen() use, run no fork handlers.)
 * rl_guard_fp_control: the FP control state now (x86: x87 control word and MXCSR without its sticky flags;
 *   AArch64: FPCR; elsewhere the rounding mode). rl_guard_fp_restore puts the kept environment back.
 * rl_guard_handler: the handler installed for a signal at the C level (what Python's signal module cannot see).
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

static fenv_t rl_clean_env;
static volatile int rl_armed;
static long rl_forks;

static void rl_prepare(void) { __atomic_add_fetch(&rl_forks, 1, __ATOMIC_SEQ_CST); }

static void rl_child(void) {
    if (rl_armed) _exit(127);
}

int rl_guard_install(void) {
    fegetenv(&rl_clean_env);
    return pthread_atfork(rl_prepare, 0, rl_child);
}

void rl_guard_arm(int on) { rl_armed = on; }

long rl_guard_forks(void) { return __atomic_exchange_n(&rl_forks, 0, __ATOMIC_SEQ_CST); }

unsigned long long rl_guard_fp_control(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned int m;
    unsigned short cw;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    return ((unsigned long long)cw << 32) | (m & ~0x3fu);
#elif defined(__aarch64__)
    unsigned long long r;
    __asm__ volatile("mrs %0, fpcr" : "=r"(r));
    return r;
#else
    return (unsigned long long)fegetround();
#endif
}

void rl_guard_fp_restore(void) { fesetenv(&rl_clean_env); }

uintptr_t rl_guard_handler(int sig) {
    struct sigaction sa;
    if (sigaction(sig, 0, &sa) != 0) return 0;
    return (uintptr_t)sa.sa_handler;
}
