/* Bandwidth kernels over double arrays, timed inside C: read (sum), copy and triad (a = b + s*c), and the same
 * three with non-temporal accesses where the ISA has them: read_nt (non-temporal loads), copy_nt and triad_nt
 * (streaming stores that bypass the caches).
 *
 * Traffic model (as STREAM counts it; write-allocate is NOT counted):
 *   read  8 bytes per element (one load)
 *   copy  16 bytes per element (one load, one store)
 *   triad 24 bytes per element (two loads, one store)
 * With write-allocate caches an ordinary store of a line not in cache first reads that line, so the real DRAM
 * traffic of copy and triad is 24 and 32 bytes per element: rooflab reports the STREAM figure and says so. A
 * streaming store writes whole lines without reading them first, so copy_nt and triad_nt move exactly the bytes
 * counted; that is why they reach a higher DRAM figure (up to 32/24 = 1.33x for the triad), and why only the DRAM
 * level is measured with them (they evict their output from every cache on purpose).
 *
 * Every repetition is a full pass; RL_BARRIER between passes forbids the compiler to merge or drop passes (a
 * merged pair would double the apparent cache bandwidth; the assembly audit checks the loop too). With several
 * threads each thread streams over its own contiguous part, all passes without a barrier between them, and the wall
 * time of the whole call (the slowest thread) is returned. */
#include "rl_timer.h"
#include "rl_parallel.h"

#include <stdint.h>

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


/* ------------------------------------------------------------------------------------- non-temporal variants */

#if defined(__x86_64__) && defined(__SSE4_1__) && (RL_VBYTES == 16 || (RL_VBYTES == 32 && defined(__AVX2__)) || \
                                                   (RL_VBYTES == 64 && defined(__AVX512F__)))
#include <immintrin.h>
#define RL_HAS_NT 1
#if RL_VBYTES == 64
#define NT_STORE(p, v) _mm512_stream_pd((p), (__m512d)(v))
#define NT_LOAD(p) ((vd)_mm512_castsi512_pd(_mm512_stream_load_si512((void *)(p))))
#elif RL_VBYTES == 32
#define NT_STORE(p, v) _mm256_stream_pd((p), (__m256d)(v))
#define NT_LOAD(p) ((vd)_mm256_castsi256_pd(_mm256_stream_load_si256((const __m256i *)(p))))
#else
#define NT_STORE(p, v) _mm_stream_pd((p), (__m128d)(v))
#define NT_LOAD(p) ((vd)_mm_castsi128_pd(_mm_stream_load_si128((__m128i *)(p))))
#endif
#define NT_FENCE() _mm_sfence()
#elif defined(__aarch64__) && RL_VBYTES == 16
#define RL_HAS_NT 1
/* AArch64 has non-temporal pairs: LDNP / STNP of two q registers (32 bytes). NT_STORE and NT_LOAD handle one
 * vector; the passes below use the pair forms directly. */
#define NT_FENCE() __asm__ volatile("dmb ishst" ::: "memory")
#else
#define RL_HAS_NT 0
#endif

/* 1 when this build has the non-temporal kernels (x86-64 with SSE4.1 at the vector width built for, or AArch64). */
int rl_stream_has_nt(void) { return RL_HAS_NT; }

#if RL_HAS_NT
#define ALIGNED(p) (((uintptr_t)(p) & (RL_VBYTES - 1)) == 0)

#if defined(__aarch64__)
static inline void nt_load2(const double *p, vd *x, vd *y) {
    __asm__ volatile("ldnp %q0, %q1, [%2]" : "=w"(*x), "=w"(*y) : "r"(p));
}
static inline void nt_store2(double *p, vd x, vd y) {
    __asm__ volatile("stnp %q1, %q2, [%0]" : : "r"(p), "w"(x), "w"(y) : "memory");
}
#else
static inline void nt_load2(const double *p, vd *x, vd *y) {
    *x = NT_LOAD(p);
    *y = NT_LOAD(p + L);
}
static inline void nt_store2(double *p, vd x, vd y) {
    NT_STORE(p, x);
    NT_STORE(p + L, y);
}
#endif

/* The unaligned head and the tail of a part, element by element, in functions of their own: inlined, a compiler
 * unrolls them into long runs of scalar moves, and the loop audit of the pass would read those instead of the
 * streaming loop. */
static __attribute__((noinline)) double read_scalar(const double *a, long lo, long hi) {
    double t = 0;
    for (long i = lo; i < hi; i++) t += a[i];
    return t;
}
static __attribute__((noinline)) void copy_scalar(double *b, const double *a, long lo, long hi) {
    for (long i = lo; i < hi; i++) b[i] = a[i];
}
static __attribute__((noinline)) void triad_scalar(double *a, const double *b, const double *c, double s, long lo,
                                                   long hi) {
    for (long i = lo; i < hi; i++) a[i] = b[i] + s * c[i];
}
/* The first index from lo at which p + index is aligned for a vector access (at most hi). */
static inline long aligned_from(const double *p, long lo, long hi) {
    long i = lo;
    while (i < hi && !ALIGNED(p + i)) i++;
    return i;
}

__attribute__((noinline)) double rl_read_nt_pass(const double *a, long lo, long hi) {
    vd s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0}, s6 = {0}, s7 = {0};
    long i = aligned_from(a, lo, hi);
    double t = read_scalar(a, lo, i);
    for (; i + 8 * L <= hi; i += 8 * L) {
        vd x0, x1, x2, x3, x4, x5, x6, x7;
        nt_load2(a + i, &x0, &x1);
        nt_load2(a + i + 2 * L, &x2, &x3);
        nt_load2(a + i + 4 * L, &x4, &x5);
        nt_load2(a + i + 6 * L, &x6, &x7);
        s0 += x0; s1 += x1; s2 += x2; s3 += x3; s4 += x4; s5 += x5; s6 += x6; s7 += x7;
    }
    vd s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    for (int k = 0; k < L; k++) t += s[k];
    return t + read_scalar(a, i, hi);
}

__attribute__((noinline)) void rl_copy_nt_pass(double *restrict b, const double *restrict a, long lo, long hi) {
    long i = aligned_from(b, lo, hi);
    copy_scalar(b, a, lo, i);
    for (; i + 2 * L <= hi; i += 2 * L) nt_store2(b + i, *(const vd *)(a + i), *(const vd *)(a + i + L));
    copy_scalar(b, a, i, hi);
    NT_FENCE();
}

__attribute__((noinline)) void rl_triad_nt_pass(double *restrict a, const double *restrict b,
                                                const double *restrict c, double s, long lo, long hi) {
    vd sv = (vd){0} + s;
    long i = aligned_from(a, lo, hi);
    triad_scalar(a, b, c, s, lo, i);
    for (; i + 2 * L <= hi; i += 2 * L)
        nt_store2(a + i, *(const vd *)(b + i) + sv * *(const vd *)(c + i),
                  *(const vd *)(b + i + L) + sv * *(const vd *)(c + i + L));
    triad_scalar(a, b, c, s, i, hi);
    NT_FENCE();
}
#endif

typedef struct { int kind; long reps, n; double *a; const double *b, *c; double s; double sums[RL_MAX_THREADS]; } sctx;

static void sworker(int tid, int nt, void *p) {
    sctx *x = (sctx *)p;
    long lo, hi;
    part(x->n, tid, nt, &lo, &hi);
    double acc = 0;
    for (long r = 0; r < x->reps; r++) {
        switch (x->kind) {
        case 0: acc += rl_read_pass(x->b, lo, hi); break;
        case 1: rl_copy_pass(x->a, x->b, lo, hi); break;
        case 2: rl_triad_pass(x->a, x->b, x->c, x->s, lo, hi); break;
#if RL_HAS_NT
        case 3: acc += rl_read_nt_pass(x->b, lo, hi); break;
        case 4: rl_copy_nt_pass(x->a, x->b, lo, hi); break;
        case 5: rl_triad_nt_pass(x->a, x->b, x->c, x->s, lo, hi); break;
#endif
        default: break;
        }
        RL_BARRIER();
    }
    x->sums[tid] = acc;
}

static double run(int kind, long reps, int threads, double *a, const double *b, const double *c, double s,
                  long n, double *sum_out) {
    if (threads < 1 || threads > RL_MAX_THREADS || reps < 0 || n < 0) return -1.0;
    if (kind >= 3 && !RL_HAS_NT) return -1.0;
    sctx x = {kind, reps, n, a, b, c, s, {0}};
    double t0 = rl_now();
    if (rl_parallel(threads, sworker, &x) != 0) return -1.0;
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
/* The non-temporal variants (-1.0 where rl_stream_has_nt() is 0). */
double rl_read_nt(long reps, int threads, const double *b, long n, double *sum_out) {
    return run(3, reps, threads, 0, b, 0, 0.0, n, sum_out);
}
double rl_copy_nt(long reps, int threads, double *a, const double *b, long n) {
    return run(4, reps, threads, a, b, 0, 0.0, n, 0);
}
double rl_triad_nt(long reps, int threads, double *a, const double *b, const double *c, double s, long n) {
    return run(5, reps, threads, a, b, c, s, n, 0);
}

/* One pass of the read, copy or triad kernel on `threads` threads, as a function of the user-kernel kind (timed by
 * the generated loop like any spec's kernel): the bandwidth `explain` measures a memory-bound kernel against, in
 * alternation with it, when the roof it was placed under is the DRAM's and the host's bandwidth moves. */
void rl_read_call(const double *b, long n, int threads) {
    static volatile double sink;
    double s = 0;
    run(0, 1, threads, 0, b, 0, 0.0, n, &s);
    sink = s;
}
void rl_copy_call(double *a, const double *b, long n, int threads) { run(1, 1, threads, a, b, 0, 0.0, n, 0); }
void rl_triad_call(double *a, const double *b, const double *c, double s, long n, int threads) {
    run(2, 1, threads, a, b, c, s, n, 0);
}
/* The same with streaming stores (where rl_stream_has_nt()): what avoiding the write-allocate gains at a size. */
void rl_copy_nt_call(double *a, const double *b, long n, int threads) { run(4, 1, threads, a, b, 0, 0.0, n, 0); }
void rl_triad_nt_call(double *a, const double *b, const double *c, double s, long n, int threads) {
    run(5, 1, threads, a, b, c, s, n, 0);
}
