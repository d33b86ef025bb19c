/* The six loop orders of C = A * B (fp32, row-major, C zeroed first), and ikj on several threads.
 * Same arithmetic in each; only the order of the loops, and so what the innermost loop walks through, changes:
 *   inner j (ikj, kij): a row of B and a row of C, unit stride
 *   inner k (ijk, jik): a row of A (unit stride) and a column of B (stride N)
 *   inner i (jki, kji): a column of A and a column of C (stride K and N) */
#include <string.h>

#include "rl_parallel.h"
#include "rl_timer.h"

#define LOOP_ORDER(name, o1, n1, o2, n2, o3, n3)                                                            \
    __attribute__((noinline)) void gemm_##name(long M, long N, long K, const float *A, const float *B,     \
                                               float *C) {                                                 \
        memset(C, 0, sizeof(float) * M * N);                                                               \
        for (long o1 = 0; o1 < n1; o1++)                                                                   \
            for (long o2 = 0; o2 < n2; o2++)                                                               \
                for (long o3 = 0; o3 < n3; o3++) C[i * N + j] += A[i * K + k] * B[k * N + j];              \
    }                                                                                                      \
    double rl_loop_##name(long reps, long M, long N, long K, const float *A, const float *B, float *C) {   \
        double t0 = rl_now();                                                                              \
        for (long r = 0; r < reps; r++) {                                                                  \
            gemm_##name(M, N, K, A, B, C);                                                                 \
            RL_BARRIER();                                                                                  \
        }                                                                                                  \
        return rl_now() - t0;                                                                              \
    }

LOOP_ORDER(ijk, i, M, j, N, k, K)
LOOP_ORDER(ikj, i, M, k, K, j, N)
LOOP_ORDER(jik, j, N, i, M, k, K)
LOOP_ORDER(jki, j, N, k, K, i, M)
LOOP_ORDER(kij, k, K, i, M, j, N)
LOOP_ORDER(kji, k, K, j, N, i, M)

typedef struct { long M, N, K; const float *A, *B; float *C; } lctx;

static void ikj_rows(int tid, int nt, void *p) {
    lctx *x = (lctx *)p;
    long r0 = x->M * tid / nt, r1 = x->M * (tid + 1) / nt;
    gemm_ikj(r1 - r0, x->N, x->K, x->A + r0 * x->K, x->B, x->C + r0 * x->N);
}

/* ikj with the rows of C split between threads. */
double rl_loop_ikj_mt(long reps, long M, long N, long K, const float *A, const float *B, float *C, int threads) {
    lctx x = {M, N, K, A, B, C};
    double t0 = rl_now();
    for (long r = 0; r < reps; r++) {
        if (threads <= 1) ikj_rows(0, 1, &x);
        else if (rl_parallel(threads, ikj_rows, &x) != 0) return -1.0;
        RL_BARRIER();
    }
    return rl_now() - t0;
}
