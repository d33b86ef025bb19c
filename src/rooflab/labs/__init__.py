"""Labs: each measures one effect and returns a document; none prints.

``LABS`` maps a lab's name to its module and a one-line description (what `rooflab lab` lists).
"""

LABS = {
    "fma": ("rooflab.labs.fma", "GFLOP/s vs independent FMA chains: latency, throughput and Little's law"),
    "ladder": ("rooflab.labs.ladder", "GEMM from naive loops to BLAS speed: loop order, blocking, register tile, "
                                      "packing, SIMD, threads"),
}
