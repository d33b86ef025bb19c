/* rooflab's GPU kernels, compiled at run time by NVRTC (through CuPy) and timed with CUDA events.
 *
 * fma_f32 / fma_f64: every thread keeps RL_CHAINS independent accumulators and issues one FMA per chain per
 *   iteration: 2 * RL_CHAINS * iters FLOP per thread. Thread 0 of each block writes the SM cycles (clock64) and the
 *   nanoseconds (%globaltimer) its block ran, so the SM clock during the kernel is measured by the kernel itself,
 *   block by block: cycles over nanoseconds of the same block. (Cycles over the launch's event time is not a
 *   clock: blocks do not all start when the launch does, nor run until it ends.)
 * bw_read / bw_copy / bw_triad: grid-stride loops over float4, STREAM's traffic model (4, 8 and 12 bytes per
 *   float; a GPU write does not read the line first), repeated `passes` times inside one launch so that a working
 *   set that fits the L2 moves far more bytes than a launch costs. bw_read keeps four loads in flight per thread
 *   and weights each pass differently, so no pass can be merged into another.
 */
__device__ __forceinline__ unsigned long long rl_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#ifndef RL_CHAINS
#define RL_CHAINS 8
#endif

extern "C" {

__global__ void fma_f32(float *out, long long *cycles, int iters, float a, float b) {
    float acc[RL_CHAINS];
    unsigned long long g0 = rl_ns();
    long long t0 = clock64();
#pragma unroll
    for (int c = 0; c < RL_CHAINS; c++) acc[c] = (float)(threadIdx.x + c) * 1e-3f;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int c = 0; c < RL_CHAINS; c++) acc[c] = fmaf(acc[c], a, b);
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < RL_CHAINS; c++) s += acc[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) {
        long long t1 = clock64();
        cycles[2 * blockIdx.x] = t1 - t0;
        cycles[2 * blockIdx.x + 1] = (long long)(rl_ns() - g0);
    }
}

__global__ void fma_f64(double *out, long long *cycles, int iters, double a, double b) {
    double acc[RL_CHAINS];
    unsigned long long g0 = rl_ns();
    long long t0 = clock64();
#pragma unroll
    for (int c = 0; c < RL_CHAINS; c++) acc[c] = (double)(threadIdx.x + c) * 1e-3;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int c = 0; c < RL_CHAINS; c++) acc[c] = fma(acc[c], a, b);
    }
    double s = 0.0;
#pragma unroll
    for (int c = 0; c < RL_CHAINS; c++) s += acc[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) {
        long long t1 = clock64();
        cycles[2 * blockIdx.x] = t1 - t0;
        cycles[2 * blockIdx.x + 1] = (long long)(rl_ns() - g0);
    }
}

__global__ void bw_read(const float4 *__restrict__ a, long long n4, int passes, float *out) {
    long long stride = (long long)gridDim.x * blockDim.x;
    float4 s0 = make_float4(0.f, 0.f, 0.f, 0.f), s1 = s0, s2 = s0, s3 = s0;
    for (int p = 0; p < passes; p++) {
        const float w = 1.0f + (float)p;
        long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
        for (; i + 3 * stride < n4; i += 4 * stride) {
            float4 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
            s0.x += w * v0.x; s0.y += w * v0.y; s0.z += w * v0.z; s0.w += w * v0.w;
            s1.x += w * v1.x; s1.y += w * v1.y; s1.z += w * v1.z; s1.w += w * v1.w;
            s2.x += w * v2.x; s2.y += w * v2.y; s2.z += w * v2.z; s2.w += w * v2.w;
            s3.x += w * v3.x; s3.y += w * v3.y; s3.z += w * v3.z; s3.w += w * v3.w;
        }
        for (; i < n4; i += stride) {
            float4 v = a[i];
            s0.x += w * v.x; s0.y += w * v.y; s0.z += w * v.z; s0.w += w * v.w;
        }
    }
    out[(long long)blockIdx.x * blockDim.x + threadIdx.x] =
        (s0.x + s0.y + s0.z + s0.w) + (s1.x + s1.y + s1.z + s1.w) + (s2.x + s2.y + s2.z + s2.w) +
        (s3.x + s3.y + s3.z + s3.w);
}

__global__ void bw_copy(const float4 *__restrict__ a, float4 *__restrict__ b, long long n4, int passes) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (int p = 0; p < passes; p++)
        for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) b[i] = a[i];
}

__global__ void bw_triad(float4 *__restrict__ a, const float4 *__restrict__ b, const float4 *__restrict__ c,
                         float s, long long n4, int passes) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (int p = 0; p < passes; p++)
        for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
            float4 x = b[i], y = c[i];
            a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
        }
}

}  /* extern "C" */
