/* A twenty-fourth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* the product of two polynomials */
void poly_mul(long na, long nb, const double *a, const double *b, double *c)
{
    for (long k = 0; k < na + nb - 1; k++)
        c[k] = 0.0;
    for (long i = 0; i < na; i++)
        for (long j = 0; j < nb; j++)
            c[i + j] += a[i] * b[j];
}

/* many independent generators stepped once */
void lcg_states(long n, uint64_t *s)
{
    for (long i = 0; i < n; i++)
        s[i] = s[i] * 6364136223846793005ULL + 1442695040888963407ULL;
}

/* vowels counted in a text */
long count_vowels(long n, const char *t)
{
    long c = 0;
    for (long i = 0; i < n; i++) {
        char ch = t[i];
        if (ch == 'a' || ch == 'e' || ch == 'i' || ch == 'o' || ch == 'u')
            c++;
    }
    return c;
}

/* distances from one point to many, in three dimensions */
void dist3(long n, const double *p, const double *q, double *d)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = 0; k < 3; k++) {
            double t = p[3 * i + k] - q[k];
            s += t * t;
        }
        d[i] = sqrt(s);
    }
}

/* a square matrix transposed in place */
void transpose_inplace(long n, double *A)
{
    for (long i = 0; i < n; i++)
        for (long j = i + 1; j < n; j++) {
            double t = A[i * n + j];
            A[i * n + j] = A[j * n + i];
            A[j * n + i] = t;
        }
}

/* 8-bit pixels mapped through a lookup table */
void apply_lut(long n, const uint8_t *lut, const uint8_t *x, uint8_t *y)
{
    for (long i = 0; i < n; i++)
        y[i] = lut[x[i]];
}

/* magnitudes with hypot */
void hypot_mag(long n, const double *re, const double *im, double *m)
{
    for (long i = 0; i < n; i++)
        m[i] = hypot(re[i], im[i]);
}

/* explicit heat steps on a short rod, two buffers */
void heat_steps(long n, long steps, double c, double *u, double *v)
{
    for (long t = 0; t < steps; t++) {
        for (long i = 1; i < n - 1; i++)
            v[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        for (long i = 1; i < n - 1; i++)
            u[i] = v[i] + c * (v[i - 1] - 2.0 * v[i] + v[i + 1]);
    }
}

/* total kinetic energy of particles stored as arrays */
double kinetic_sum(long n, const double *m, const double *vx, const double *vy, const double *vz)
{
    double e = 0.0;
    for (long i = 0; i < n; i++)
        e += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
    return e;
}

/* the Sobel gradient magnitude squared of an image */
void sobel2(long h, long w, const float *in, float *out)
{
    for (long i = 1; i < h - 1; i++)
        for (long j = 1; j < w - 1; j++) {
            float gx = (in[(i - 1) * w + j + 1] + 2 * in[i * w + j + 1] + in[(i + 1) * w + j + 1]) -
                       (in[(i - 1) * w + j - 1] + 2 * in[i * w + j - 1] + in[(i + 1) * w + j - 1]);
            float gy = (in[(i + 1) * w + j - 1] + 2 * in[(i + 1) * w + j] + in[(i + 1) * w + j + 1]) -
                       (in[(i - 1) * w + j - 1] + 2 * in[(i - 1) * w + j] + in[(i - 1) * w + j + 1]);
            out[i * w + j] = gx * gx + gy * gy;
        }
}

/* integers divided by seven */
void div7(long n, const int *x, int *y)
{
    for (long i = 0; i < n; i++)
        y[i] = x[i] / 7;
}

/* floats to 8-bit integers, saturated */
void to_i8_sat(long n, const float *x, int8_t *y)
{
    for (long i = 0; i < n; i++) {
        float v = x[i] * 127.0f;
        v = v > 127.0f ? 127.0f : v;
        v = v < -128.0f ? -128.0f : v;
        y[i] = (int8_t)v;
    }
}
