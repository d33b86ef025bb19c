/* Correctness of the bandwidth kernels, regular and non-temporal, on odd lengths and unaligned starts, one and two
 * threads: built with a cross compiler and run under qemu-user by the test suite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double rl_read(long reps, int threads, const double *b, long n, double *sum_out);
double rl_copy(long reps, int threads, double *a, const double *b, long n);
double rl_triad(long reps, int threads, double *a, const double *b, const double *c, double s, long n);
double rl_read_nt(long reps, int threads, const double *b, long n, double *sum_out);
double rl_copy_nt(long reps, int threads, double *a, const double *b, long n);
double rl_triad_nt(long reps, int threads, double *a, const double *b, const double *c, double s, long n);
int rl_stream_has_nt(void);

int main(void) {
    if (!rl_stream_has_nt()) { printf("no non-temporal kernels\n"); return 1; }
    int bad = 0, checks = 0;
    long lens[] = {1, 7, 64, 1000, 4099};
    for (int li = 0; li < 5; li++)
        for (int off = 0; off < 3; off++)
            for (int t = 1; t <= 2; t++) {
                long n = lens[li];
                double *A = aligned_alloc(64, sizeof(double) * (n + 8)), *B = aligned_alloc(64, sizeof(double) * (n + 8)),
                       *C = aligned_alloc(64, sizeof(double) * (n + 8));
                double *a = A + off, *b = B + off, *c = C + off;
                double ref = 0;
                for (long i = 0; i < n; i++) { b[i] = 0.5 + 0.001 * (double)i; c[i] = 2.0 - 0.0005 * (double)i; ref += b[i]; }
                double s1 = 0, s2 = 0;
                if (rl_read(3, t, b, n, &s1) < 0 || rl_read_nt(3, t, b, n, &s2) < 0) bad++;
                if (fabs(s1 - 3 * ref) > 1e-9 * fabs(ref) || fabs(s2 - 3 * ref) > 1e-9 * fabs(ref)) bad++;
                for (long i = 0; i < n; i++) a[i] = -1;
                if (rl_copy_nt(2, t, a, b, n) < 0) bad++;
                for (long i = 0; i < n; i++) if (a[i] != b[i]) { bad++; break; }
                for (long i = 0; i < n; i++) a[i] = -1;
                if (rl_triad_nt(2, t, a, b, c, 3.0, n) < 0) bad++;
                for (long i = 0; i < n; i++) if (fabs(a[i] - (b[i] + 3.0 * c[i])) > 1e-12) { bad++; break; }
                checks++;
                free(A); free(B); free(C);
            }
    printf("%d cases, %d failures\n", checks, bad);
    if (!bad) printf("all checks passed\n");
    return bad != 0;
}
