/* Correctness driver for rooflab's kernels on another ISA (run under qemu-user; timings mean nothing there).
 * Built together with gemm.c; checks every GEMM rung on odd shapes with 1 and 2 threads against a double
 * reference, and prints one line per check. Exit status 1 if any check fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double rl_gemm_ijk(long, long, long, long, const float *, const float *, float *);
double rl_gemm_ikj(long, long, long, long, const float *, const float *, float *);
double rl_gemm_blocked(long, long, long, long, const float *, const float *, float *, long);
double rl_gemm_regtile(long, long, long, long, const float *, const float *, float *);
double rl_gemm_packed(long, long, long, long, const float *, const float *, float *, int);

static double check(const char *name, long M, long N, long K, const float *A, const float *B, const float *C) {
    double worst = 0, scale = 0;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double s = 0;
            for (long k = 0; k < K; k++) s += (double)A[i * K + k] * B[k * N + j];
            double e = fabs(s - C[i * N + j]);
            if (e > worst || e != e) worst = e != e ? INFINITY : e;
            if (fabs(s) > scale) scale = fabs(s);
        }
    double rel = worst / (scale > 0 ? scale : 1);
    printf("%-10s %4ld x %4ld x %4ld  rel.error %.2e\n", name, M, N, K, rel);
    return rel;
}

int main(void) {
    /* edges of every kind: one element, shapes under a register tile, a row block of RL_MC (120) and a remainder
     * with a depth block of RL_KC (256) and a remainder, a deep K, and tiles with remainders in M and N; small
     * enough to run under qemu in seconds */
    long shapes[][3] = {{1, 1, 1}, {7, 13, 5}, {131, 389, 263}, {9, 25, 257}, {97, 33, 513}};
    int bad = 0;
    for (unsigned s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        long M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N), *C = malloc(sizeof(float) * M * N);
        srand(7 + s);
        for (long i = 0; i < M * K; i++) A[i] = (float)rand() / RAND_MAX - 0.5f;
        for (long i = 0; i < K * N; i++) B[i] = (float)rand() / RAND_MAX - 0.5f;
#define RUN(label, call) \
        for (long i = 0; i < M * N; i++) C[i] = NAN; \
        if (call < 0 || check(label, M, N, K, A, B, C) > 1e-5) bad = 1;
        RUN("ijk", rl_gemm_ijk(1, M, N, K, A, B, C))
        RUN("ikj", rl_gemm_ikj(1, M, N, K, A, B, C))
        RUN("blocked", rl_gemm_blocked(1, M, N, K, A, B, C, 32))
        RUN("regtile", rl_gemm_regtile(1, M, N, K, A, B, C))
        RUN("packed x1", rl_gemm_packed(1, M, N, K, A, B, C, 1))
        RUN("packed x2", rl_gemm_packed(1, M, N, K, A, B, C, 2))
        free(A); free(B); free(C);
    }
    printf(bad ? "FAILED\n" : "all checks passed\n");
    return bad;
}
