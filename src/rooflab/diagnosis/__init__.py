"""Why a kernel runs as it does, for `rooflab explain` and `rooflab bench --explain`: the evidence (the compiled hot
loop, the compiler's remarks, an in-core prediction, the measured time against each roof, the memory traffic against
the byte model, the working set against the caches, the CPUs kept busy), the findings read from it
(:mod:`rooflab.interpret.explain`), and the experiments that test them by rebuilding or re-running the kernel
(:mod:`.experiments`)."""
