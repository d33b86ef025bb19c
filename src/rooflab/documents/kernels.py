"""Documents about your kernels: bench (checked, timed and placed on the roofline), compare (two kernels or two runs
in paired rounds), explain (the evidence, the findings and the experiments) and profile (counters or simulated
caches)."""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import Field

from rooflab.documents.common import Document, Interval, Library, Message, Model, Number, Roofs


class KernelSpec(Model):
    """A kernel as its spec declared it (source, function, work model, sizes, build, check)."""

    name: str
    source: str = ""
    function: str = ""
    prototype: str = ""
    flops: Union[str, float] = 0.0
    bytes: Union[str, float] = 0.0
    sizes: list[dict[str, Any]] = []
    flags: list[str] = []
    threads: int = 1
    precision: str = ""


class Row(Model):
    """One kernel at one size: its median time with the 95% CI and samples, its rates, and where it lies on the
    roofline (the level holding its working set, the roof, the share of it reached, what bounds it)."""

    label: str
    size: dict[str, Any] = {}
    time_s: Number = None
    time_ci95: Interval = Field(None, min_length=2, max_length=2)
    samples: Optional[int] = Field(None, ge=0)
    seconds: Optional[list[float]] = None
    cv: Number = None
    flops: Number = None
    bytes: Number = None
    flops_per_s: Number = None
    bytes_per_s: Number = None
    intensity: Number = None
    working_set_bytes: Number = None
    level: Optional[str] = None
    roof_flops_per_s: Number = None
    of_roof: Number = None
    bound: Optional[str] = None
    rel_error: Number = None
    checked: Optional[bool] = None
    error: Union[str, dict, None] = None
    error_kind: Optional[str] = None
    status: Optional[Literal["ok", "disturbed"]] = None
    """ok, or disturbed: the CPUs were not its own even in the attempt kept (``reason`` says why)."""
    reason: Optional[Message] = None
    attempts: Optional[int] = Field(None, ge=1)
    """How many times it was measured: again while the CPUs were not its own."""
    others_cores: Number = None
    """Cores other processes and the host's steal used while it ran."""


class Kernel(Model):
    """A kernel of a spec: its spec, the roofs it is placed against, its library, or why it was not built."""

    name: str
    spec: Optional[KernelSpec] = None
    roofs: Optional[dict[str, Any]] = None
    library: Optional[Library] = None
    error: Union[str, dict, None] = None


class BenchKernel(Kernel):
    sizes: list[Row] = []
    git: Optional[dict[str, Any]] = None


class BenchResult(Model):
    """The kernels of a bench document, typed (a stored run's result read for comparing)."""

    kernels: list[BenchKernel] = []


class Point(Model):
    label: str
    intensity: Number = None
    flops_per_s: Number = None


class OnRoofline(Document):
    """A document whose kernels are placed on this machine's stored roofline."""

    roofs: Optional[Roofs] = None
    """The roofs the kernels are placed against."""
    roofline_source: Optional[Message] = None
    """Which stored measure runs the roofs come from."""


class Bench(OnRoofline):
    """``rooflab bench``: each kernel of a spec at each size."""

    kernels: list[BenchKernel]
    """Each kernel: its spec, its library, and a row per size."""
    points: list[Point] = []
    """The points drawn on the roofline, one per kernel and size."""


class Side(Model):
    """One side of a comparison: a kernel (its name) or a stored run (its id and when it ran)."""

    name: Optional[str] = None
    run_id: Union[int, str, None] = None
    created: Optional[str] = None

    @property
    def label(self) -> str:
        return self.name if self.name is not None else f"run {self.run_id}"


class CompareRow(Model):
    """One size: both medians, the paired per-round ratio B/A with its 95% CI, and the verdict."""

    size: dict[str, Any] = {}
    a_time_s: Number = None
    b_time_s: Number = None
    rounds: Optional[int] = None
    ratio: Number = None
    ci95: Interval = None
    speedup: Number = None
    speedup_ci95: Interval = None
    threshold: Number = None
    verdict: Optional[Literal["faster", "slower", "no difference"]] = None
    kernel: Optional[str] = None  # comparing two stored runs: the kernel of this row
    error: Union[str, dict, None] = None


class Compare(Document):
    """``rooflab compare``: A against B in interleaved rounds (two kernels), or two stored runs."""

    mode: str
    """"kernels" (two kernels timed now) or "runs" (two stored bench runs)."""
    threshold: Number = None
    """The smallest relative change called a difference."""
    a: Optional[Side] = None
    """A: its kernel spec, or its run."""
    b: Optional[Side] = None
    """B: its kernel spec, or its run."""
    rows: list[CompareRow] = []
    """One row per size: both times, the ratio with its CI, the verdict."""


class Verdict(Model):
    """What an experiment made of a finding: the experiment, its verdict and speed-up, and the particulars of a
    confirmation (``surrogate``: measured on rooflab's own kernel; ``bound``: the gain measured is only a floor), a
    refutation (``immaterial``: faster by too little to matter; ``beyond``: no gain beyond another build's) or an
    inconclusive test (``loop_unchanged``, ``in_order``, ``probe``: why it tests nothing)."""

    experiment: str
    verdict: Optional[str] = None
    speedup: Number = None
    speedup_ci95: Interval = None
    surrogate: bool = False
    bound: bool = False
    immaterial: bool = False
    beyond: Optional[str] = None
    loop_unchanged: bool = False
    in_order: bool = False
    probe: bool = False


class Finding(Model):
    """One reason a kernel falls short: its evidence, its hypothesis, what to change, the time it could save, and
    what its experiment made of it (confirmed, refuted or inconclusive)."""

    id: str
    factor: Number = None
    saving_s: Number = None
    evidence: list[Message] = []
    hypothesis: Optional[Message] = None
    advice: Optional[Message] = None
    experiments: list[str] = []
    confirmed: Optional[Verdict] = None
    refuted: Optional[Verdict] = None
    inconclusive: Optional[Verdict] = None


class Experiment(Model):
    """A variant timed against the original in paired rounds: its verdict, speed-up and 95% CI, or why it has
    none."""

    id: str
    what: Optional[Message] = None
    finding: Optional[str] = None
    verdict: Optional[str] = None
    speedup: Number = None
    speedup_ci95: Interval = None
    rounds: Optional[int] = None
    error: Union[str, dict, None] = None
    error_kind: Optional[str] = None


class AllThreads(Model):
    """A one-thread kernel against the roofs of all the CPUs: their count, the roof there and the share of it."""

    threads: int
    roof_flops_per_s: Number = None
    of_roof: Number = None
    level: Optional[str] = None


class TrialSize(Model):
    """The smaller size the reference and the experiments ran at (a call too long for paired rounds), and why."""

    size: dict[str, Any] = {}
    call_s: Number = None
    level: Optional[str] = None
    text: Optional[Message] = None


class SlowReference(Model):
    """A BLAS reference that ran below what the machine's stored roofline has for it: slowed meanwhile."""

    stored_flops_per_s: float
    share: float


class Reference(Model):
    """A same-moment reference alternated with the kernel: rooflab's bandwidth kernel (``read``, ``copy``, ``triad``)
    or the BLAS GEMM (``blas_gemm``), the kernel's rate over it with the 95% CI, or why it could not run."""

    kind: str
    threads: int = 1
    n: Optional[int] = None
    ratio: Number = None
    ci95: Interval = None
    rounds: Optional[int] = None
    reference_flops_per_s: Number = None
    reference_bytes_per_s: Number = None
    slow: Optional[SlowReference] = None
    error: Optional[str] = None


class ExplainRow(Row):
    findings: list[Finding] = []
    experiments: list[Experiment] = []
    reference: Optional[Reference] = None
    traffic: Optional[dict[str, Any]] = None
    trial_size: Optional[TrialSize] = None
    all_threads: Optional[AllThreads] = None
    cycles_per_iteration: Number = None
    cpus_busy: Number = None


class Pragmas(Model):
    """What the kernel's source says of its hot loop and the nest around it (read from the source, not from the
    compiler): OpenMP and its text, arrays only written, walks down columns, parallel regions inside loops, thread
    slots, selects and packed stores, loop heads; each a list of what was found (empty: none)."""

    omp: bool = False
    omp_simd: bool = False
    omp_text: str = ""
    uneven_loop: Optional[Any] = None
    thread_slots: list[Any] = []
    write_only: list[str] = []
    column_walks: list[Any] = []
    regions_in_loops: list[Any] = []
    partial_records: list[Any] = []
    partial_strides: list[Any] = []
    loaded_bounds: list[Any] = []
    select_reductions: list[Any] = []
    packed_stores: list[Any] = []
    nested_loops: Optional[bool] = None
    """Whether a loop of the function is nested in another (None: not read)."""
    loop_heads: list[Any] = []
    cold_loops: bool = False


class HotLoop(Model):
    """How the hot loop was chosen (``by``: the only loop, the most work, or where perf's samples fell), whether the
    samples moved it from the loop with the most work, and the share of samples in the OpenMP runtime."""

    by: str = ""
    why: Optional[Any] = None
    samples: Optional[int] = None
    moved: bool = False
    in_inner_loops: Number = None
    runtime_share: Number = None


class Prediction(Model):
    """An in-core analyzer's prediction for the hot loop (llvm-mca: cycles per iteration, what bounds it, the model
    it used), or why there is none."""

    tool: Optional[str] = None
    model: Optional[str] = None
    cycles_per_iteration: Number = None
    block_rthroughput: Number = None
    cycles_without_div: Number = None
    bound: Optional[str] = None
    error: Optional[str] = None


class Build(Model):
    """How the kernel was built: its flags, the flag profile, OpenMP."""

    flags: list[str] = []
    profile: str = ""
    openmp: bool = False


class Audit(Model):
    """The hot loop's instructions counted: FMAs, adds, multiplies, loads, stores (streaming ones apart), spills,
    the widest vector and the registers used."""

    instructions: int = 0
    fma: int = 0
    vector_bits: int = 0
    loads: int = 0
    stores: int = 0
    spills: int = 0
    nt_loads: int = 0
    nt_stores: int = 0


class Loop(Model):
    """The hot loop in detail (``toolchain.asm``): its chains, FLOPs and bytes per iteration, vector width..."""

    vector_bits: Optional[int] = None
    longest_chain: int = 0
    flops: Number = None
    bytes: Number = None


class Code(Model):
    """What the code shows: the hot loop's audit and details, how it was found and built, what the source and the
    compiler say of it, and an in-core prediction."""

    function: str = ""
    isa_vector_bits: Optional[int] = None
    build: Build = Field(default_factory=Build)
    pragmas: Pragmas = Field(default_factory=Pragmas)
    hot_loop: Optional[HotLoop] = None
    prediction: Optional[Prediction] = None
    audit: Optional[Audit] = None
    loop: Optional[Loop] = None
    loop_at: Optional[list[int]] = None
    loop_function: Optional[str] = None
    """The function the hot loop is in: the kernel's, one outlined from it, or one it calls where the time went."""


class ExplainKernel(Kernel):
    sizes: list[ExplainRow] = []
    code: Optional[Code] = None


class Explain(OnRoofline):
    """``rooflab explain``: per kernel and size, the evidence, the ranked findings and their experiments."""

    kernels: list[ExplainKernel]
    """Each kernel: its code evidence, and per size its placement, findings and experiments."""
    experiments_run: Optional[bool] = None
    """Whether the experiments ran (--no-experiments: the findings alone)."""


class Counters(Model):
    instructions: Number = None
    data_reads: Number = None
    data_writes: Number = None
    d1_misses: Number = None
    ll_misses: Number = None
    l1_traffic_bytes: Number = None
    dram_traffic_bytes: Number = None


class Derived(Model):
    """What perf's counts give per call: IPC against the dispatch width, miss rates, the bytes the misses move."""

    ipc: Number = None
    issue_width: Optional[int] = None
    cache_miss_rate: Number = None
    branch_miss_rate: Number = None
    miss_traffic_bytes_per_call: Number = None


class Cachegrind(Model):
    """How cachegrind simulated this machine's caches: their geometry, which ones, and the command it ran."""

    geometry: dict[str, Any] = {}
    simulated: Optional[Any] = None
    command: Optional[list[str]] = None


class Profile(Document):
    """``rooflab profile``: hardware counters (perf) where the machine exposes them, cachegrind's simulated caches
    otherwise, against the spec's work model."""

    kernel: KernelSpec
    """The kernel's spec."""
    size: dict[str, Any] = {}
    """The size it ran at."""
    calls: Optional[int] = None
    """Calls counted."""
    model: Optional[dict[str, Number]] = None
    """The spec's FLOP and byte counts per call."""
    method: Optional[str] = None
    """perf (hardware counters) or cachegrind (simulated caches)."""
    perf: Optional[dict[str, Any]] = None
    cachegrind: Optional[Cachegrind] = None
    counters: Optional[Counters] = None
    derived: Optional[Derived] = None
    fallback_reason: Optional[Message] = None


class Counts(Model):
    """cachegrind's counts of one revision at one size, per call of the kernel function: deterministic, unlike
    the time (or why there are none)."""

    instructions: Number = None
    d1_misses: Number = None
    ll_misses: Number = None
    note: Optional[str] = None
    skipped: Optional[Message] = None


class TrackRow(Row):
    """One revision at one size: measured in the same interleaved rounds as the others, its step's paired
    speed-up against the revision before it that was measured (``step_*``, ``step_from``) and since the first
    (``cumulative_*``), where the step moved the kernel (another bound or level), and its counts."""

    revision: int = Field(ge=0)
    short: str
    subject: str = ""
    commit: Optional[str] = None
    size_label: str = ""
    step_speedup: Number = None
    step_ci95: Interval = Field(None, min_length=2, max_length=2)
    step_verdict: Optional[Literal["faster", "slower", "no difference"]] = None
    step_from: Optional[int] = None
    cumulative_speedup: Number = None
    cumulative_ci95: Interval = Field(None, min_length=2, max_length=2)
    cumulative_verdict: Optional[Literal["faster", "slower", "no difference"]] = None
    cumulative_from: Optional[int] = None
    moved: Optional[Message] = None
    counts: Optional[Counts] = None


class TrackSize(Model):
    size: dict[str, Any]
    label: str
    rows: list[TrackRow]


class TrackRevision(Model):
    """A revision as named, its commit (none for the working tree) and subject; ``error`` where its spec could not
    be read or its kernel not built (``error_kind``: spec or build)."""

    ref: str
    commit: Optional[str] = None
    short: str
    subject: str = ""
    error: Optional[str] = None
    error_kind: Optional[str] = None
    detail: Optional[str] = None
    """The whole of what went wrong (the compiler's output and command), where ``error`` is its first lines."""
    library: Optional[Library] = None


class Track(Document):
    """A kernel across git revisions: each revision's time, counts and place on the roofline; each step paired."""

    repository: str
    spec: str
    kernel: Optional[str] = None
    revisions: list[TrackRevision]
    sizes: list[TrackSize]
    rounds: int
    threshold: float
    quick: bool = False
    roofs: Optional[Roofs] = None
    roofline_source: Optional[Message] = None


class HistoryPoint(Model):
    """One commit of the series: its stored measurements merged (median), its spread and the level it is on."""

    commit: str
    short: str
    subject: str = ""
    time_s: float = Field(gt=0)
    time_ci95: Interval = Field(None, min_length=2, max_length=2)
    log_spread: Number = None
    instructions: Number = None
    runs: list[int] = []
    time_segment: Optional[int] = None
    instructions_segment: Optional[int] = None


class ChangePoint(Model):
    """Where a new level of the series starts: by the time or by the instruction count, with the medians of the
    levels before and after it and their ratio."""

    index: int = Field(ge=0)
    commit: str
    short: str
    subject: str = ""
    by: Literal["time", "instructions"]
    before: Number = None
    after: Number = None
    ratio: Number = None


class UnconfirmedChange(Model):
    """A change point of the separate medians between two commits that a track run timed in the same rounds, not
    kept: that run's paired step between them found no difference."""

    index: int = Field(ge=1)
    commit: str
    short: str
    paired_verdicts: list[str]


class HistorySize(Model):
    label: str
    points: list[HistoryPoint]
    changes: list[ChangePoint]
    between_runs_spread: Number = None
    not_confirmed: list[UnconfirmedChange] = []


class TrackHistory(Document):
    """A kernel's stored series across the commits of a repository's first-parent line, and its change points."""

    repository: str
    spec: str
    kernel: Optional[str] = None
    sizes: list[HistorySize]
    penalty: float
    off_line: list[str] = []


class Probe(Model):
    """One build measured by bisect against the good revision, in the same rounds: its time ratio with the 95% CI
    and the verdict (good, bad, unclear: measured again; skip: it could not be measured)."""

    index: int = Field(ge=0)
    commit: Optional[str] = None
    short: str
    subject: str = ""
    rounds: int = Field(ge=1)
    verdict: Literal["good", "bad", "unclear", "skip"]
    decided_by: Optional[str] = None
    ratio: Number = None
    ratio_ci95: Interval = Field(None, min_length=2, max_length=2)
    good_time_s: Number = None
    time_s: Number = None
    error: Optional[str] = None
    status: Optional[Literal["ok", "disturbed"]] = None
    reason: Optional[Message] = None
    attempts: Optional[int] = None
    others_cores: Number = None


class Bisect(Document):
    """The first commit at which a kernel became slower than at a good revision, and every build measured."""

    repository: str
    spec: str
    kernel: Optional[str] = None
    good: TrackRevision
    bad: TrackRevision
    commits: int
    threshold: float
    size: Optional[dict[str, Any]] = None
    probes: list[Probe]
    verdict: Optional[Literal["found", "among skipped", "within noise"]] = None
    first_bad: Optional[TrackRevision] = None
    last_good: Optional[TrackRevision] = None
    skipped_between: list[TrackRevision] = []
    builds: Optional[int] = None
    quick: bool = False
