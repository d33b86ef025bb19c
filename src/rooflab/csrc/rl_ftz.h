/* Flush-to-zero and denormals-are-zero for every call of the library this header is included in (-include): set
 * once when the library is loaded. rooflab runs each call of a library under the floating-point environment the
 * library left at load (as it does for gcc's crtfastmath under -ffast-math), so only this library's calls run with
 * them. The experiment that tests whether subnormal numbers slow a kernel down. */
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
static void __attribute__((constructor, used)) rl_ftz_on(void) { _mm_setcsr(_mm_getcsr() | 0x8040); }
#elif defined(__aarch64__)
static void __attribute__((constructor, used)) rl_ftz_on(void) {
    unsigned long r;
    __asm__ volatile("mrs %0, fpcr" : "=r"(r));
    r |= 1ul << 24;
    __asm__ volatile("msr fpcr, %0" : : "r"(r));
}
#endif
