/* The GEMM ladder: C = A * B, single precision, row-major, C overwritten. A is M x K, B is K x N, C is M x N.
 *
 * Each rung changes one thing: the loop order (ijk -> ikj: the inner loop streams rows of B and C instead of a
 * column of B), blocking (tiles that stay in cache), a register tile (accumulators held in registers across k),
 * packing (GotoBLAS/BLIS: copy panels of A and B into contiguous, tile-ordered buffers sized for L2 and L1), and
 * threads. The microkernel uses vector extensions with an explicit broadcast of A and vector loads of B, so no
 * compiler can scramble it into shuffles; its tile MR x NR (RL_MR, RL_NR) is chosen for the ISA's register file.
 *
 * Entries take a repetition count and return elapsed seconds, like every rooflab kernel. */
#include <stdlib.h>
#include <string.h>

#include "rl_parallel.h"
#include "rl_timer.h"

#ifndef RL_VBYTES
#define RL_VBYTES 32
#endif
#define VL (RL_VBYTES / 4) /* floats per vector */
#ifndef RL_MR
#define RL_MR 6
#endif
#ifndef RL_NR
#define RL_NR (2 * VL)
#endif
#define NV (RL_NR / VL)
#ifndef RL_KC
#define RL_KC 256
#endif
#ifndef RL_MC
#define RL_MC 120
#endif
#ifndef RL_NC
#define RL_NC 3072
#endif

/* An unroll hint for the k loop (gcc and clang both read "GCC unroll"); only speed depends on it: the assembly
 * audit checks the registers and FMAs of the loop either way. */
#define RL_PRAGMA(x) _Pragma(#x)
#define RL_UNROLL_K_(n) RL_PRAGMA(GCC unroll n)
#define RL_UNROLL_K(n) RL_UNROLL_K_(n)

typedef float vf __attribute__((vector_size(RL_VBYTES)));
typedef float vfu __attribute__((vector_size(RL_VBYTES), aligned(4)));

int rl_gemm_mr(void) { return RL_MR; }
int rl_gemm_nr(void) { return RL_NR; }

/* ---------------------------------------------------------------- rung 1 and 2: loop orders */

__attribute__((noinline)) void gemm_ijk(long M, long N, long K, const float *A, const float *B, float *C) {
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            float s = 0.0f;
            for (long k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
            C[i * N + j] = s;
        }
}

__attribute__((noinline)) void gemm_ikj(long M, long N, long K, const float *A, const float *B, float *C) {
    memset(C, 0, sizeof(float) * M * N);
    for (long i = 0; i < M; i++)
        for (long k = 0; k < K; k++) {
            float a = A[i * K + k];
            const float *b = B + k * N;
            float *c = C + i * N;
            for (long j = 0; j < N; j++) c[j] += a * b[j];
        }
}

/* ---------------------------------------------------------------- rung 3: cache blocking */

__attribute__((noinline)) void gemm_blocked(long M, long N, long K, const float *A, const float *B, float *C,
                                            long bs) {
    memset(C, 0, sizeof(float) * M * N);
    for (long ii = 0; ii < M; ii += bs)
        for (long kk = 0; kk < K; kk += bs)
            for (long jj = 0; jj < N; jj += bs) {
                long ie = ii + bs < M ? ii + bs : M, ke = kk + bs < K ? kk + bs : K, je = jj + bs < N ? jj + bs : N;
                for (long i = ii; i < ie; i++)
                    for (long k = kk; k < ke; k++) {
                        float a = A[i * K + k];
                        const float *b = B + k * N;
                        float *c = C + i * N;
                        for (long j = jj; j < je; j++) c[j] += a * b[j];
                    }
            }
}

/* ---------------------------------------------------------------- the microkernel */

/* C[MR x NR] (+)= Ap[MR x kc] * Bp[kc x NR]: Ap holds column k of the tile at Ap[k*MR], Bp row k at Bp[k*NR]
 * (packed), or the caller passes strides through the unpacked variant below. */
__attribute__((noinline)) void rl_micro_packed(long kc, const float *restrict Ap, const float *restrict Bp,
                                               float *restrict C, long ldc, int accumulate) {
    vf c[RL_MR][NV];
    for (int i = 0; i < RL_MR; i++) {
        __builtin_prefetch(C + i * ldc, 1);  /* the C tile is needed at the end: start fetching it now */
        for (int j = 0; j < NV; j++) c[i][j] = (vf){0};
    }
#ifdef RL_UNROLL
    RL_UNROLL_K(RL_UNROLL)
#endif
    for (long k = 0; k < kc; k++) {
        vf b[NV];
        for (int j = 0; j < NV; j++) b[j] = *(const vf *)(Bp + k * RL_NR + j * VL);
        for (int i = 0; i < RL_MR; i++) {
            vf a = Ap[k * RL_MR + i] - (vf){0}; /* explicit broadcast (x - 0 folds exactly; 0 + x does not) */
            for (int j = 0; j < NV; j++) c[i][j] += a * b[j];
        }
    }
    for (int i = 0; i < RL_MR; i++)
        for (int j = 0; j < NV; j++) {
            vfu *dst = (vfu *)(C + i * ldc + j * VL);
            *dst = accumulate ? *dst + c[i][j] : c[i][j];
        }
}

/* Narrow microkernels for the last column panel of C when it is at most NV - 1 vectors wide (e.g. 16 columns of a
 * 64-wide tile at N = 2000): the full tile would compute zeros for the rest and cost up to NV times the work. Each
 * writes its MR x W*VL result into a tile buffer of row stride RL_NR. */
#define RL_MICRO_NARROW(W)                                                                                       \
    static void micro_w##W(long kc, const float *restrict Ap, const float *restrict Bp, float *restrict T) {      \
        vf c[RL_MR][W];                                                                                          \
        for (int i = 0; i < RL_MR; i++)                                                                          \
            for (int j = 0; j < W; j++) c[i][j] = (vf){0};                                                       \
        for (long k = 0; k < kc; k++) {                                                                          \
            vf b[W];                                                                                             \
            for (int j = 0; j < W; j++) b[j] = *(const vf *)(Bp + k * RL_NR + j * VL);                           \
            for (int i = 0; i < RL_MR; i++) {                                                                    \
                vf a = Ap[k * RL_MR + i] - (vf){0};                                                              \
                for (int j = 0; j < W; j++) c[i][j] += a * b[j];                                                 \
            }                                                                                                    \
        }                                                                                                        \
        for (int i = 0; i < RL_MR; i++)                                                                          \
            for (int j = 0; j < W; j++) *(vf *)(T + i * RL_NR + j * VL) = c[i][j];                               \
    }
#if NV > 1
RL_MICRO_NARROW(1)
#endif
#if NV > 2
RL_MICRO_NARROW(2)
#endif
#if NV > 3
RL_MICRO_NARROW(3)
#endif

/* An edge tile into T (row stride RL_NR): the narrowest kernel that covers nr columns. */
static void micro_edge(long kc, const float *Ap, const float *Bp, float *T, long nr) {
    long w = (nr + VL - 1) / VL;
#if NV > 1
    if (w == 1) { micro_w1(kc, Ap, Bp, T); return; }
#endif
#if NV > 2
    if (w == 2) { micro_w2(kc, Ap, Bp, T); return; }
#endif
#if NV > 3
    if (w == 3) { micro_w3(kc, Ap, Bp, T); return; }
#endif
    (void)w;
    rl_micro_packed(kc, Ap, Bp, T, RL_NR, 0);
}

/* rung 4: the same register tile straight from A and B (no packing): B rows are strided by N. */
__attribute__((noinline)) static void micro_unpacked(long K, const float *restrict A, long lda, const float *restrict B,
                                                     long ldb, float *restrict C, long ldc) {
    vf c[RL_MR][NV];
    for (int i = 0; i < RL_MR; i++)
        for (int j = 0; j < NV; j++) c[i][j] = (vf){0};
    for (long k = 0; k < K; k++) {
        vf b[NV];
        for (int j = 0; j < NV; j++) b[j] = *(const vfu *)(B + k * ldb + j * VL);
        for (int i = 0; i < RL_MR; i++) {
            vf a = A[i * lda + k] - (vf){0};
            for (int j = 0; j < NV; j++) c[i][j] += a * b[j];
        }
    }
    for (int i = 0; i < RL_MR; i++)
        for (int j = 0; j < NV; j++) *(vfu *)(C + i * ldc + j * VL) = c[i][j];
}

/* Edges: a tile that does not fit is computed by the scalar loop (only the last rows/columns). */
static void edge(long i0, long i1, long j0, long j1, long K, const float *A, const float *B, float *C, long N) {
    for (long i = i0; i < i1; i++)
        for (long j = j0; j < j1; j++) {
            float s = 0.0f;
            for (long k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
            C[i * N + j] = s;
        }
}

__attribute__((noinline)) void gemm_regtile(long M, long N, long K, const float *A, const float *B, float *C) {
    long Mf = M - M % RL_MR, Nf = N - N % RL_NR;
    for (long i = 0; i < Mf; i += RL_MR)
        for (long j = 0; j < Nf; j += RL_NR) micro_unpacked(K, A + i * K, K, B + j, N, C + i * N + j, N);
    edge(0, Mf, Nf, N, K, A, B, C, N);
    edge(Mf, M, 0, N, K, A, B, C, N);
}

/* ---------------------------------------------------------------- rung 5: blocked + packed (BLIS loops) */

/* Pack rows [i0, i0+mc) x cols [p0, p0+kc) of A into MR-row slivers, zero-padded at the edge. */
static void pack_a(long mc, long kc, const float *A, long lda, float *Ap) {
    for (long i = 0; i < mc; i += RL_MR) {
        long mr = mc - i < RL_MR ? mc - i : RL_MR;
        for (long k = 0; k < kc; k++) {
            for (long r = 0; r < mr; r++) Ap[k * RL_MR + r] = A[(i + r) * lda + k];
            for (long r = mr; r < RL_MR; r++) Ap[k * RL_MR + r] = 0.0f;
        }
        Ap += RL_MR * kc;
    }
}

/* Pack rows [p0, p0+kc) x cols [j0, j0+nc) of B into NR-column slivers, zero-padded at the edge. */
static void pack_b(long kc, long nc, const float *B, long ldb, float *Bp) {
    for (long j = 0; j < nc; j += RL_NR) {
        long nr = nc - j < RL_NR ? nc - j : RL_NR;
        for (long k = 0; k < kc; k++) {
            const float *src = B + k * ldb + j;
            float *dst = Bp + k * RL_NR;
            if (nr == RL_NR) memcpy(dst, src, sizeof(float) * RL_NR);
            else {
                for (long c = 0; c < nr; c++) dst[c] = src[c];
                for (long c = nr; c < RL_NR; c++) dst[c] = 0.0f;
            }
        }
        Bp += RL_NR * kc;
    }
}

typedef struct {
    long M, N, K;
    const float *A, *B;
    float *C;
    float *bp;  /* shared packed B panel (kc x nc) */
    float **ap; /* per-thread packed A blocks */
    rl_barrier bar;
} gctx;

/* Thread tid of nt: in every (jc, pc) step, pack its share of the B panel, wait for the others, then update an
 * equal, MR-aligned share of the rows of C in MC blocks with its own packed A blocks; wait again before the
 * panel is overwritten. One parallel region per call: threads are started once, not once per step. */
static void gemm_thread(int tid, int nt, void *p) {
    gctx *g = (gctx *)p;
    float *Ap = g->ap[tid];
    float tile[RL_MR * RL_NR] __attribute__((aligned(64)));
    long slivers_m = (g->M + RL_MR - 1) / RL_MR;
    long r0 = (slivers_m * tid / nt) * RL_MR, r1 = (slivers_m * (tid + 1) / nt) * RL_MR;
    if (r1 > g->M) r1 = g->M;
    for (long jc = 0; jc < g->N; jc += RL_NC) {
        long nc = g->N - jc < RL_NC ? g->N - jc : RL_NC;
        long slivers_n = (nc + RL_NR - 1) / RL_NR;
        /* K in equal blocks of at most RL_KC (no short last block that pays the C update for little work) */
        long nkb = (g->K + RL_KC - 1) / RL_KC;
        long kcb = (g->K + nkb - 1) / nkb;
        for (long pc = 0; pc < g->K; pc += kcb) {
            long kc = g->K - pc < kcb ? g->K - pc : kcb;
            for (long s = tid; s < slivers_n; s += nt) {
                long j = s * RL_NR;
                long w = nc - j < RL_NR ? nc - j : RL_NR;
                pack_b(kc, w, g->B + pc * g->N + jc + j, g->N, g->bp + j * kc);
            }
            if (nt > 1) rl_barrier_wait(&g->bar);
            for (long ic = r0; ic < r1; ic += RL_MC) {
                long mc = r1 - ic < RL_MC ? r1 - ic : RL_MC;
                pack_a(mc, kc, g->A + ic * g->K + pc, g->K, Ap);
                for (long jr = 0; jr < nc; jr += RL_NR) {
                    long nr = nc - jr < RL_NR ? nc - jr : RL_NR;
                    const float *Bp = g->bp + jr * kc;
                    for (long ir = 0; ir < mc; ir += RL_MR) {
                        long mr = mc - ir < RL_MR ? mc - ir : RL_MR;
                        float *Cij = g->C + (ic + ir) * g->N + jc + jr;
                        const float *Api = Ap + ir * kc;
                        if (mr == RL_MR && nr == RL_NR) {
                            rl_micro_packed(kc, Api, Bp, Cij, g->N, pc > 0);
                        } else { /* edge tile: compute into a full tile, copy the valid part */
                            micro_edge(kc, Api, Bp, tile, nr);
                            for (long r = 0; r < mr; r++)
                                for (long c = 0; c < nr; c++)
                                    Cij[r * g->N + c] = (pc > 0 ? Cij[r * g->N + c] : 0.0f) + tile[r * RL_NR + c];
                        }
                    }
                }
            }
            if (nt > 1) rl_barrier_wait(&g->bar);
        }
    }
}

static int gemm_packed(long M, long N, long K, const float *A, const float *B, float *C, int threads,
                       float *bp, float **ap) {
    if (K == 0) { memset(C, 0, sizeof(float) * M * N); return 0; }
    gctx g = {M, N, K, A, B, C, bp, ap};
    if (threads <= 1) { gemm_thread(0, 1, &g); return 0; }
    rl_barrier_init(&g.bar, threads);
    int rc = rl_parallel(threads, gemm_thread, &g);
    rl_barrier_destroy(&g.bar);
    return rc;
}

/* The packed GEMM as a plain function of the user-kernel kind (its packing buffers kept between calls), so that
 * `rooflab explain lab:gemm_packed` looks at the ladder's best rung like at any kernel. */
__attribute__((noinline)) void gemm_packed_call(long M, long N, long K, const float *A, const float *B, float *C,
                                                int threads) {
    static float *bp, *ap[RL_MAX_THREADS];
    if (threads < 1 || threads > RL_MAX_THREADS) return;
    if (!bp) bp = aligned_alloc(64, sizeof(float) * (size_t)RL_KC * (RL_NC + RL_NR));
    for (int t = 0; t < threads; t++)
        if (!ap[t]) ap[t] = aligned_alloc(64, sizeof(float) * (size_t)RL_KC * (RL_MC + RL_MR));
    for (int t = 0; t < threads; t++)
        if (!ap[t] || !bp) return;
    gemm_packed(M, N, K, A, B, C, threads, bp, ap);
}

/* ---------------------------------------------------------------- timed entries */

#define TIMED(call)                                      \
    double t0 = rl_now();                                \
    for (long r = 0; r < reps; r++) { call; RL_BARRIER(); } \
    return rl_now() - t0;

double rl_gemm_ijk(long reps, long M, long N, long K, const float *A, const float *B, float *C) {
    TIMED(gemm_ijk(M, N, K, A, B, C))
}
double rl_gemm_ikj(long reps, long M, long N, long K, const float *A, const float *B, float *C) {
    TIMED(gemm_ikj(M, N, K, A, B, C))
}
double rl_gemm_blocked(long reps, long M, long N, long K, const float *A, const float *B, float *C, long bs) {
    if (bs < 1) return -1.0;
    TIMED(gemm_blocked(M, N, K, A, B, C, bs))
}
double rl_gemm_regtile(long reps, long M, long N, long K, const float *A, const float *B, float *C) {
    TIMED(gemm_regtile(M, N, K, A, B, C))
}
double rl_gemm_packed(long reps, long M, long N, long K, const float *A, const float *B, float *C, int threads) {
    if (threads < 1 || threads > RL_MAX_THREADS) return -1.0;
    float *bp = aligned_alloc(64, sizeof(float) * (size_t)RL_KC * (RL_NC + RL_NR));
    float *ap[RL_MAX_THREADS];
    int ok = bp != 0;
    for (int t = 0; t < threads; t++) {
        ap[t] = aligned_alloc(64, sizeof(float) * (size_t)RL_KC * (RL_MC + RL_MR));
        ok = ok && ap[t];
    }
    double t0 = rl_now();
    for (long r = 0; ok && r < reps; r++) {
        if (gemm_packed(M, N, K, A, B, C, threads, bp, ap)) ok = 0;
        RL_BARRIER();
    }
    double t = rl_now() - t0;
    for (int i = 0; i < threads; i++) free(ap[i]);
    free(bp);
    return ok ? t : -1.0;
}
