/* A matrix product C = A B over row-major arrays, blocked in square tiles of bs x bs: explain's experiment for a
 * GEMM-like kernel that re-fetches its operands (what blocking alone gives at this size on this machine). The
 * element type is RL_T (double unless built with -DRL_T=float). */
#include <string.h>

#ifndef RL_T
#define RL_T double
#endif

void rl_blocked_gemm(long M, long N, long K, const RL_T *restrict A, const RL_T *restrict B, RL_T *restrict C,
                     long bs) {
    if (bs < 1) bs = 64;
    memset(C, 0, sizeof(RL_T) * (size_t)M * (size_t)N);
    for (long ii = 0; ii < M; ii += bs)
        for (long kk = 0; kk < K; kk += bs)
            for (long jj = 0; jj < N; jj += bs) {
                long ie = ii + bs < M ? ii + bs : M, ke = kk + bs < K ? kk + bs : K, je = jj + bs < N ? jj + bs : N;
                for (long i = ii; i < ie; i++)
                    for (long k = kk; k < ke; k++) {
                        RL_T a = A[i * K + k];
                        const RL_T *b = B + k * N;
                        RL_T *c = C + i * N;
                        for (long j = jj; j < je; j++) c[j] += a * b[j];
                    }
            }
}
