/* A thirty-eighth set of kernels written as they are found in the wild, each answer written down before its first
 * run (targets/explain_cases.py). */
#include <math.h>
#include <stdint.h>

/* a 5 x 5 convolution of a float image (valid part only) */
void conv5x5(long h, long w, const float *in, const float *k, float *out)
{
    for (long i = 0; i + 4 < h; i++)
        for (long j = 0; j + 4 < w; j++) {
            float s = 0.0f;
            for (int a = 0; a < 5; a++)
                for (int b = 0; b < 5; b++)
                    s += k[a * 5 + b] * in[(i + a) * w + j + b];
            out[i * w + j] = s;
        }
}

/* the smallest and largest element in one pass */
void minmax(long n, const double *x, double *lo, double *hi)
{
    double mn = x[0], mx = x[0];
    for (long i = 1; i < n; i++) {
        if (x[i] < mn) mn = x[i];
        if (x[i] > mx) mx = x[i];
    }
    *lo = mn;
    *hi = mx;
}

/* the red half of a red-black Gauss-Seidel sweep */
void rb_red(long n, double *u, const double *f)
{
    for (long i = 1; i < n - 1; i++)
        for (long j = 1 + (i % 2); j < n - 1; j += 2)
            u[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1] -
                                   f[i * n + j]);
}

/* the median of each three neighbours */
void median3(long n, const float *x, float *y)
{
    for (long i = 1; i + 1 < n; i++) {
        float a = x[i - 1], b = x[i], c = x[i + 1];
        float lo = a < b ? a : b, hi = a < b ? b : a;
        float m = c < hi ? c : hi;
        y[i] = lo > m ? lo : m;
    }
}

/* the Adler-32 checksum of a buffer */
uint32_t adler32(long n, const uint8_t *d)
{
    uint32_t a = 1, b = 0;
    for (long i = 0; i < n; i++) {
        a = (a + d[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

/* one step of leaky integrate-and-fire neurons */
void lif_step(long n, float decay, float th, const float *in, float *v, int32_t *spikes)
{
    for (long i = 0; i < n; i++) {
        float u = v[i] * decay + in[i];
        if (u > th) {
            u = 0.0f;
            spikes[i]++;
        }
        v[i] = u;
    }
}

/* 64-bit integers as doubles */
void i64_to_f64(long n, const int64_t *k, double *x)
{
    for (long i = 0; i < n; i++)
        x[i] = (double)k[i];
}

/* a float image turned a quarter clockwise */
void rotate90(long h, long w, const float *in, float *out)
{
    for (long i = 0; i < h; i++)
        for (long j = 0; j < w; j++)
            out[j * h + (h - 1 - i)] = in[i * w + j];
}

/* products of quaternions stored (w, x, y, z) one after another */
void quat_mul(long n, const float *p, const float *q, float *r)
{
    for (long i = 0; i < n; i++) {
        const float *a = p + 4 * i, *b = q + 4 * i;
        float *c = r + 4 * i;
        c[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
        c[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
        c[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
        c[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    }
}

/* squared distances from a query to every point of a set, in d dimensions */
void knn_dists(long n, long d, const float *q, const float *pts, float *dist)
{
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < d; k++) {
            float t = pts[i * d + k] - q[k];
            s += t * t;
        }
        dist[i] = s;
    }
}

/* the mean of the elements whose mask is set */
double masked_mean(long n, const double *x, const uint8_t *m)
{
    double s = 0.0;
    long c = 0;
    for (long i = 0; i < n; i++)
        if (m[i]) {
            s += x[i];
            c++;
        }
    return c ? s / c : 0.0;
}

/* grey levels from planar 8-bit colour, in fixed point */
void gray_u8(long n, const uint8_t *r, const uint8_t *g, const uint8_t *b, uint8_t *y)
{
    for (long i = 0; i < n; i++)
        y[i] = (uint8_t)((77 * r[i] + 150 * g[i] + 29 * b[i]) >> 8);
}
