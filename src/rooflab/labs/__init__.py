"""Labs: each measures one effect and returns a document; none prints.

``LABS`` maps a lab's name to its module and a one-line description (what `rooflab lab` lists, an ``i18n.msg``).
"""

from rooflab.i18n import msg

LABS = {
    "fma": ("rooflab.labs.fma",
            msg("GFLOP/s vs independent FMA chains: latency, throughput and Little's law")),
    "ladder": ("rooflab.labs.ladder",
               msg("GEMM from naive loops to BLAS speed: loop order, blocking, register tile, packing, SIMD, threads")),
    "tiles": ("rooflab.labs.tiles",
              msg("microkernel register tile MR x NR vs the vector register file, spills read from the assembly")),
    "loops": ("rooflab.labs.loops",
              msg("the six loop orders of the naive GEMM, grouped by what the inner loop streams")),
    "blocking": ("rooflab.labs.blocking",
                 msg("block-size sweep of the blocked GEMM against the cache-predicted size")),
    "vectorize": ("rooflab.labs.vectorize",
                  msg("one kernel under a flags matrix with the compiler's vectorization report; layout, compiler "
                      "and threads")),
    "threads": ("rooflab.labs.threads",
                msg("scaling of a compute-bound and a bandwidth-bound kernel from 1 thread to all")),
    "imbalance": ("rooflab.labs.imbalance",
                  msg("coarse vs fine work split: busy time per thread and idle time at the barrier")),
    "numa": ("rooflab.labs.numa",
             msg("local vs remote memory latency and bandwidth (numactl); on one node, the topology and why there "
                 "is nothing to compare")),
}
