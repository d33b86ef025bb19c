"""The rules of `rooflab explain`, one module per finding. Each holds what evidence it needs (``find``), its words
(``WORD``), its hypothesis and advice, and the experiment that tests it (``TEST``); :mod:`.facts` holds what the
rules share. Adding a finding is one module here, listed in RULES, plus its cases in targets/explain/.

``at_roof`` is asked first and, when it applies, speaks alone; ``unexplained`` speaks when no rule found anything.
The order of RULES only breaks ties between findings that could save the same time."""

from __future__ import annotations

from rooflab.diagnosis.rules import (aliasing, aliasing_4k, at_roof, calls, conflicts, control_flow, conversions,
                                     denormals, dependency, div_sqrt, false_sharing, imbalance, indirect, int_div,
                                     narrow_vectors, omp_overhead, pointer_chase, reduction, reuse, scalar_build,
                                     short_trips, spills, strided, threads, tlb, unexplained, working_set,
                                     write_allocate)

RULES = (threads, omp_overhead, false_sharing, imbalance, pointer_chase, reduction, dependency, aliasing, scalar_build,
         narrow_vectors, reuse, indirect, strided, conflicts, tlb, working_set, write_allocate, calls, int_div,
         control_flow, conversions, denormals, short_trips, spills, div_sqrt, aliasing_4k)
ALL = (at_roof, *RULES, unexplained)
WORDS = {r.ID: r.WORD for r in ALL}
TESTS = {r.ID: r.TEST for r in ALL if r.TEST}
