/* Just enough of CUDA for g++ -fsyntax-only to read rooflab's kernels (the syntax check of csrc/gpu.cu). */
#include <math.h>
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
struct rl_dim3 { unsigned x, y, z; };
extern rl_dim3 threadIdx, blockIdx, blockDim, gridDim;
struct float4 { float x, y, z, w; };
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
long long clock64();
