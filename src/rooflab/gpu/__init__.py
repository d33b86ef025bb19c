"""The GPU roofline: `rooflab measure --device cuda`.

``specs`` holds the per-SM throughput of each NVIDIA compute capability and turns device attributes and a measured
clock into theoretical peaks (pure). ``backend`` is the one place that talks to the GPU (CuPy: NVRTC-compiled
kernels, cuBLAS, CUDA events); ``measure`` drives a backend and builds the document, so it runs the same against a
simulated device in the tests.
"""
