/* A thirty-sixth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* a histogram of 16 bins filled by all threads at once */
void hist_atomic(long n, const int32_t *x, int64_t *h)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        int b = x[i] & 15;
#pragma omp atomic
        h[b]++;
    }
}

/* the hue of each pixel of a float RGB image, in degrees */
void rgb_hue(long n, const float *r, const float *g, const float *b, float *hue)
{
    for (long i = 0; i < n; i++) {
        float mx = r[i], mn = r[i];
        if (g[i] > mx) mx = g[i];
        if (b[i] > mx) mx = b[i];
        if (g[i] < mn) mn = g[i];
        if (b[i] < mn) mn = b[i];
        float d = mx - mn, h;
        if (d == 0.0f)
            h = 0.0f;
        else if (mx == r[i])
            h = 60.0f * (g[i] - b[i]) / d;
        else if (mx == g[i])
            h = 60.0f * (b[i] - r[i]) / d + 120.0f;
        else
            h = 60.0f * (r[i] - g[i]) / d + 240.0f;
        hue[i] = h < 0.0f ? h + 360.0f : h;
    }
}

/* many explicit time steps of the heat equation on a short rod */
void heat_rod(long steps, long n, double c, double *u, double *v)
{
    for (long t = 0; t < steps; t++) {
        for (long i = 1; i < n - 1; i++)
            v[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        for (long i = 1; i < n - 1; i++)
            u[i] = v[i];
    }
}

/* the total variation of a signal */
double total_variation(long n, const double *x)
{
    double s = 0.0;
    for (long i = 0; i + 1 < n; i++)
        s += fabs(x[i + 1] - x[i]);
    return s;
}

/* the product of all elements */
double prod_all(long n, const double *x)
{
    double p = 1.0;
    for (long i = 0; i < n; i++)
        p *= x[i];
    return p;
}

/* floats stored as half precision */
void to_half(long n, const float *x, _Float16 *y)
{
    for (long i = 0; i < n; i++)
        y[i] = (_Float16)x[i];
}

/* the larger root of a x^2 + b x - c for each triple */
void quad_roots(long n, const double *a, const double *b, const double *c, double *r)
{
    for (long i = 0; i < n; i++)
        r[i] = (-b[i] + sqrt(b[i] * b[i] + 4.0 * a[i] * c[i])) / (2.0 * a[i]);
}

/* one step of the game of life on a byte grid, borders left as they are */
void life_step(long n, const uint8_t *g, uint8_t *out)
{
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++) {
            int s = g[(i - 1) * n + j - 1] + g[(i - 1) * n + j] + g[(i - 1) * n + j + 1] + g[i * n + j - 1] +
                    g[i * n + j + 1] + g[(i + 1) * n + j - 1] + g[(i + 1) * n + j] + g[(i + 1) * n + j + 1];
            out[i * n + j] = (s == 3) | (g[i * n + j] & (s == 2));
        }
}

/* Q15 fixed-point products, saturated */
void q15_mul(long n, const int16_t *a, const int16_t *b, int16_t *y)
{
    for (long i = 0; i < n; i++) {
        int32_t p = ((int32_t)a[i] * b[i]) >> 15;
        y[i] = p > 32767 ? 32767 : p < -32768 ? -32768 : p;
    }
}

/* packed 4-bit values spread into one byte each */
void unpack_nibbles(long n, const uint8_t *in, uint8_t *out)
{
    for (long i = 0; i < n; i++) {
        out[2 * i] = in[i] & 15;
        out[2 * i + 1] = in[i] >> 4;
    }
}

/* pi by the midpoint rule */
double pi_midpoint(long n)
{
    double h = 1.0 / n, s = 0.0;
    for (long i = 0; i < n; i++) {
        double x = (i + 0.5) * h;
        s += 4.0 / (1.0 + x * x);
    }
    return s * h;
}

/* 2-D Morton codes of 16-bit coordinates */
void morton2d(long n, const uint16_t *x, const uint16_t *y, uint32_t *code)
{
    for (long i = 0; i < n; i++) {
        uint32_t a = x[i], b = y[i];
        a = (a | (a << 8)) & 0x00FF00FFu; a = (a | (a << 4)) & 0x0F0F0F0Fu;
        a = (a | (a << 2)) & 0x33333333u; a = (a | (a << 1)) & 0x55555555u;
        b = (b | (b << 8)) & 0x00FF00FFu; b = (b | (b << 4)) & 0x0F0F0F0Fu;
        b = (b | (b << 2)) & 0x33333333u; b = (b | (b << 1)) & 0x55555555u;
        code[i] = a | (b << 1);
    }
}
