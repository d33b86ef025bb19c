"""Chinese templates, keyed by the English template. Placeholders and their formats must match the English ones
exactly, and so must any number written in the text (the test suite checks both, and that no template used in the
code is missing here)."""

ZH: dict[str, str] = {
    '{frac:.0%} of the theoretical peak while other processes used {cores:.2f} core(s) on the other vCPUs: the host may run two vCPUs on one physical core':
        '在其他进程占用其余 vCPU {cores:.2f} 个核心的同时只达到理论峰值的 {frac:.0%}：宿主机可能把两个 vCPU 放在同一个物理核心上运行',
    "its thread on CPU {cpu} took {r:.2f}x as long as its sibling's for the same work: that CPU was not all its own":
        '它在 CPU {cpu} 上的线程完成同样的工作用了兄弟线程 {r:.2f}x 的时间：那个 CPU 并不完全归它使用',
    'its slowest thread took {r:.2f}x as long as the fastest for the same work: its CPU was not all its own':
        '它最慢的线程完成同样的工作用了最快线程 {r:.2f}x 的时间：它的 CPU 并不完全归它使用',
    "{level} taken at the OS's {rep}: the sweep put its edge at {first}, and a second sweep around it did not confirm that":
        '{level} 取操作系统报告的 {rep}：扫描把它的边界定在 {first}，但在其附近的第二次扫描没有证实这一点',
    '{level} until about {edge} (the OS reports {rep}; {ratio:.2g}x; a second sweep confirmed it)':
        '{level} 直到约 {edge}（操作系统报告 {rep}；{ratio:.2g}x；第二次扫描证实了这一点）',
    'no roofline written to {path}: {why}':
        '未写入屋顶线图 {path}：{why}',
    'The roofline drawn is the one-thread roofline: on {tall} threads no compute or no memory ceiling could be a roof (other processes kept a CPU busy), while the one-thread ceilings were measured on the CPU they left alone.':
        '所画的是单线程屋顶线：在 {tall} 个线程上，没有任何计算上限或内存上限能作为屋顶（其他进程占用了一个 CPU），而单线程上限是在它们没有占用的 CPU 上测得的。',
    'No roofline could be drawn: neither on {tall} threads nor on one did a compute and a memory ceiling both pass their checks.':
        '无法画出屋顶线：无论在 {tall} 个线程还是单线程上，都没有同时通过检查的计算上限和内存上限。',
    'report written to {path}':
        '报告已写入 {path}',
    '{n} table(s) written to {dir}':
        '已将 {n} 个表格写入 {dir}',
    'roofline written to {path}':
        '屋顶线图已写入 {path}',
    'Ceilings side by side (FLOP/s or bytes/s)':
        '各次运行的上限并列（FLOP/s 或 bytes/s）',
    'Your kernels on this machine':
        '你的内核在这台机器上的位置',
    "GFLOP/s vs independent FMA chains: latency, throughput and Little's law":
        'GFLOP/s 与独立 FMA 链数的关系：延迟、吞吐量与利特尔定律',
    'GEMM from naive loops to BLAS speed: loop order, blocking, register tile, packing, SIMD, threads':
        'GEMM 从朴素循环到 BLAS 的速度：循环顺序、分块、寄存器分块、打包、SIMD、多线程',
    'microkernel register tile MR x NR vs the vector register file, spills read from the assembly':
        '微内核寄存器分块 MR x NR 与向量寄存器堆的关系，溢出情况从汇编读出',
    'the six loop orders of the naive GEMM, grouped by what the inner loop streams':
        '朴素 GEMM 的六种循环顺序，按最内层循环流经的数据分组',
    'block-size sweep of the blocked GEMM against the cache-predicted size':
        '分块 GEMM 的块大小扫描，与按缓存预测的块大小对比',
    "one kernel under a flags matrix with the compiler's vectorization report; layout, compiler and threads":
        '同一内核在一组编译选项下的表现，附编译器的向量化报告；数据布局、编译器与线程各自的贡献',
    'scaling of a compute-bound and a bandwidth-bound kernel from 1 thread to all':
        '计算受限与带宽受限内核从 1 个线程到全部线程的扩展性',
    'coarse vs fine work split: busy time per thread and idle time at the barrier':
        '粗粒度与细粒度任务划分：每个线程的忙碌时间与在屏障处的空闲时间',
    'local vs remote memory latency and bandwidth (numactl); on one node, the topology and why there is nothing to compare':
        '本地与远端内存的延迟和带宽（numactl）；只有一个节点时，给出拓扑并说明为何无可比较',
    '{strips} strips on {t} threads: one thread gets two':
        '{strips} 个条带分给 {t} 个线程：有一个线程分到两个',
    'row by row, round robin':
        '逐行轮转分配',
    'no loop found in the compiled kernel':
        '编译后的内核中找不到循环',
    '{n} stack access(es) in the loop: accumulators spilled':
        '循环中有 {n} 次栈访问：累加器溢出到内存',
    '{n} stack access(es) in the loop':
        '循环中有 {n} 次栈访问',
    'vector width {n} bits, expected {m}':
        '向量宽度 {n} 位，应为 {m} 位',
    'no loop found in the compiled microkernel':
        '编译后的微内核中找不到循环',
    '{n} stack access(es) in the microkernel loop: the tile does not fit the registers':
        '微内核循环中有 {n} 次栈访问：该分块放不进寄存器',
    '{n} FMA instruction(s) per loop iteration, the tile needs {acc} per k step':
        '每次循环迭代有 {n} 条 FMA 指令，而该分块每个 k 步需要 {acc} 条',
    'FMA at {n} bits, the tile is built from {m}-bit vectors':
        'FMA 为 {n} 位，而该分块由 {m} 位向量构成',
    '{n} FMA instruction(s) per iteration, the model counts {m}':
        '每次迭代有 {n} 条 FMA 指令，模型按 {m} 条计',
    'FMA at {n} bits, the model counts {m}':
        'FMA 为 {n} 位，模型按 {m} 位计',
    'the scalar kernel was vectorized ({n} bits)':
        '标量内核被向量化了（{n} 位）',
    '{n} FMA instruction(s) in a kernel meant to have none':
        '本应没有 FMA 的内核中出现了 {n} 条 FMA 指令',
    '{mul} mul + {add} add per iteration, the model counts {m} + {m}':
        '每次迭代 {mul} 次乘法 + {add} 次加法，模型按 {m} + {m} 计',
    'vector width {n} bits, the model counts {m}':
        '向量宽度 {n} 位，模型按 {m} 位计',
    '{loads} load(s) and {stores} store(s) per iteration; a read kernel only loads':
        '每次迭代 {loads} 次加载、{stores} 次存储；读内核只应有加载',
    '{adds} adds per {loads} loads: passes were merged (each loaded value is used {r:g} times), which would inflate the bandwidth':
        '每 {loads} 次加载有 {adds} 次加法：多遍被合并成一遍（每个加载的值被使用 {r:g} 次），这会虚高带宽',
    'vector width {n} bits':
        '向量宽度 {n} 位',
    '{n} FMA instruction(s) per loop iteration, the tile needs {acc} per k step ({u} unrolled x{x})':
        '每次循环迭代有 {n} 条 FMA 指令，而该分块每个 k 步需要 {acc} 条（展开 x{x} 后为 {u} 条）',
    '{loads} load(s) for {stores} store(s); a copy moves one for one':
        '{loads} 次加载对应 {stores} 次存储；拷贝应一读一写',
    '{loads} load(s) for {stores} store(s); a triad loads two for each store':
        '{loads} 次加载对应 {stores} 次存储；triad 每次存储应加载两次',
    '{n} multiply(-add)s per {stores} stores: passes merged or work dropped':
        '每 {stores} 次存储有 {n} 次乘法（或乘加）：多遍被合并或有工作被省掉',
    'measured now (no stored measure run of this machine)':
        '现场测量（本机没有已保存的 measure 运行）',
    'stored measure run {id}':
        '已保存的 measure 运行 {id}',
    'inner j: a row of B and a row of C, unit stride (vectorizable)':
        '最内层 j：B 的一行和 C 的一行，单位步长（可向量化）',
    'inner k: a row of A (unit stride) and a column of B (stride N), a reduction':
        '最内层 k：A 的一行（单位步长）和 B 的一列（步长 N），是一个归约',
    'inner i: a column of A and a column of C (strides K and N)':
        '最内层 i：A 的一列和 C 的一列（步长 K 和 N）',
    'no fp32 FMA or DRAM ceiling to predict from':
        '没有 fp32 FMA 或 DRAM 上限可用于预测',
    'the assembly could not be read: {error}':
        '无法读取汇编：{error}',
    '{prec} peak':
        '{prec} 峰值',
    'roofline prediction':
        '屋顶线预测值',
    'disabled':
        '已关闭',
    'needs fp32':
        '需要 fp32',
    'theoretical peak at the clock measured beside it':
        '按旁边测得的时钟计算的理论峰值',
    'asked for cachegrind':
        '按要求使用 cachegrind',
    'perf hardware counters are not available: {reason}':
        'perf 硬件计数器不可用：{reason}',
    'measured':
        '实测',
    'nominal MHz from /proc/cpuinfo (not measured)':
        '/proc/cpuinfo 中的标称 MHz（未实测）',
    'unknown':
        '未知',
    'perf is not installed':
        '未安装 perf',
    'hardware counters are not exposed here (a VM or perf_event_paranoid); software events only':
        '此处不提供硬件计数器（虚拟机或 perf_event_paranoid 限制）；只有软件事件',
    'perf stat failed: {why}':
        'perf stat 失败：{why}',
    '{name}: {pipes} FMA pipe(s) x {bits}-bit per core ({source})':
        '{name}：每核 {pipes} 条 FMA 流水线 x {bits} 位（{source}）',
    'peak = FMA pipes x lanes x 2 FLOP x clock x {cores} physical core(s); an FMA-only instruction mix':
        '峰值 = FMA 流水线数 x 通道数 x 2 FLOP x 时钟 x {cores} 个物理核；假定指令全为 FMA',
    'clock {ghz:.3f} GHz ({source}); all cores assumed to hold it (turbo may drop under load)':
        '时钟 {ghz:.3f} GHz（{source}）；假定所有核都保持该频率（满载时睿频可能下降）',
    'Its threads were away {lost} of the time (interrupts, other tenants): timed in short chunks while it ran, the '
    '{prec} FMA kernel reached {run} of the peak; the rest of the gap is the host\'s, not the code\'s.':
        '其线程有 {lost} 的时间不在运行（中断、其他租户）：在运行期间以短段计时，{prec} FMA 内核达到峰值的 {run}；'
        '其余差距来自宿主机，而非代码。',
    'dependent chain of {adds} integer adds (1 cycle each), timed in C in short chunks (median chunk)':
        '{adds} 次整数加法组成的依赖链（每次 1 个周期），在 C 中分成短段计时（取各段中位数）',
    '{n} separate FP add pipe(s): an FMA+ADD mix can exceed the FMA-only peak':
        '{n} 条独立的浮点加法流水线：FMA 与 ADD 混合时可超过纯 FMA 峰值',
    'the ISA has {reg}-bit registers, executed on {pipe}-bit pipes':
        'ISA 的寄存器为 {reg} 位，在 {pipe} 位的流水线上执行',
    "this CPU is not in rooflab's table: the peak is a guess from its ISA":
        '此 CPU 不在 rooflab 的表中：峰值是根据其 ISA 推测的',
    '{what} x{t}: rank {rank} on {host} reached only {frac:.0%} of the fastest rank (threshold {th:.0%})':
        '{what} x{t}：{host} 上的 rank {rank} 只达到最快 rank 的 {frac:.0%}（阈值 {th:.0%}）',
    'check where that rank ran (cpus in the rank table): mis-pinned or sharing cores with another rank':
        '查看该 rank 在哪里运行（rank 表中的 cpus）：绑核错误，或与另一个 rank 共用核心',
    "no stored `mpirun ... rooflab measure --mpi` run of this machine: the points are placed on each rank's own roofline":
        '本机没有已保存的 `mpirun ... rooflab measure --mpi` 运行：各点画在每个 rank 自己的屋顶线上',
    'rank {rank} on {host} failed: {error}':
        '{host} 上的 rank {rank} 失败：{error}',
    "its traceback is in the job record (mpi.ranks); the other ranks' results are kept":
        '它的调用栈在作业记录中（mpi.ranks）；其他 rank 的结果已保留',
    '(no roofline: a compute and a memory ceiling are needed)':
        '（无法绘制屋顶线：需要一个计算上限和一个内存上限）',
    'arithmetic intensity (FLOP/byte) ->  vertical: FLOP/s':
        '算术强度（FLOP/byte）->  纵轴：FLOP/s',
    '{label}: {flops}, {bytes}, {i:.3g} FLOP/B, {frac} of roof':
        '{label}：{flops}，{bytes}，{i:.3g} FLOP/B，达到屋顶的 {frac}',
    'kernel':
        '内核',
    'precision':
        '精度',
    'threads':
        '线程',
    'of theor.':
        '占理论值',
    'status':
        '状态',
    'level':
        '层级',
    'bytes/s':
        '字节/秒',
    'working set':
        '工作集',
    'roofline':
        '屋顶线',
    'of roofline':
        '占屋顶线',
    'size':
        '规模',
    'of roof':
        '占屋顶',
    'error':
        '错误',
    'label':
        '标签',
    'chains':
        '链数',
    'order':
        '顺序',
    'wall':
        '墙钟时间',
    'rel. error':
        '相对误差',
    'vs BLAS':
        '相对 BLAS',
    'speed-up':
        '加速比',
    'verdict':
        '结论',
    'ceiling':
        '上限',
    'Compute ceilings':
        '计算上限',
    'Bandwidth ceilings':
        '带宽上限',
    'Batch sweep':
        '批量扫描',
    'rooflab report':
        'rooflab 报告',
    ', CI {lo}–{hi}':
        '，置信区间 {lo}–{hi}',
    ' — above its roof':
        ' — 高于其屋顶',
    'run {a} / run {b}':
        '运行 {a} / 运行 {b}',
    'run {id}':
        '运行 {id}',
    '(no roofline in this run)':
        '（此次运行没有屋顶线）',
    'arithmetic intensity (FLOP/byte)':
        '算术强度（FLOP/byte）',
    'Machine and environment record':
        '机器与环境记录',
    'Observations':
        '观察',
    'Overlay of {n} runs':
        '{n} 次运行叠加',
    'Warnings':
        '警告',
    'FMA chains on one core (median; FMAs per cycle at the clock measured beside each)':
        '单核上的 FMA 链（中位数；每周期 FMA 数按旁边测得的时钟计算）',
    'GEMM ladder (median; ratio to BLAS at the same thread count, paired rounds, 95% CI)':
        'GEMM 阶梯（中位数；与相同线程数的 BLAS 之比，成对轮次，95% 置信区间）',
    'six loop orders, n = {n}':
        '六种循环顺序，n = {n}',
    'Loop orders, grouped by the innermost loop':
        '循环顺序，按最内层循环分组',
    'blocked GEMM, predicted BS = {bs}':
        '分块 GEMM，预测块大小 BS = {bs}',
    'Flags matrix':
        '编译选项矩阵',
    'register tiles, {n} x {bits}-bit registers':
        '寄存器分块，{n} 个 {bits} 位寄存器',
    'Microkernel tiles MR x NR (packed GEMM, one thread)':
        '微内核分块 MR x NR（打包 GEMM，单线程）',
    'B against A (speed-up = time of A / time of B)':
        'B 对比 A（加速比 = A 的时间 / B 的时间）',
    'Hot functions (perf record)':
        '热点函数（perf record）',
    'Hot source lines (perf record)':
        '热点源代码行（perf record）',
    'scaling to {n} threads':
        '扩展到 {n} 个线程',
    'GEMM n = {n} (compute-bound) and triad in DRAM (bandwidth-bound)':
        'GEMM n = {n}（计算受限）与 DRAM 中的 triad（带宽受限）',
    '{rows} rows on {t} threads':
        '{rows} 行分给 {t} 个线程',
    'Work split':
        '任务划分',
    '{n} NUMA node(s)':
        '{n} 个 NUMA 节点',
    'FMA/cycle':
        'FMA/周期',
    'of peak':
        '占峰值',
    'loop audit':
        '循环审计',
    'rung':
        '阶梯',
    'time':
        '时间',
    'check':
        '检查',
    '{bits}-bit':
        '{bits} 位',
    'scalar':
        '标量',
    'inner loop streams':
        '最内层循环流经',
    'inner loop code':
        '最内层循环代码',
    'flags':
        '编译选项',
    'inner loop':
        '最内层循环',
    "compiler's report":
        '编译器报告',
    'Layout and threads':
        '数据布局与线程',
    'tile':
        '分块',
    'accumulators':
        '累加器',
    'registers':
        '寄存器',
    'loads/FMA':
        '加载/FMA',
    'spills':
        '溢出',
    '{name} (median time and 95% CI per call)':
        '{name}（每次调用时间的中位数与 95% 置信区间）',
    'faster':
        '更快',
    'slower':
        '更慢',
    'no difference':
        '无差异',
    '95% CI':
        '95% 置信区间',
    'not counted':
        '未计数',
    'Counters (per call, kernel function only)':
        '计数器（每次调用，仅内核函数）',
    'Counters (whole driver run)':
        '计数器（整个驱动程序运行）',
    'event':
        '事件',
    'value':
        '数值',
    'eff.':
        '效率',
    'split':
        '划分',
    'busy per thread':
        '每线程忙碌时间',
    'idle at barrier':
        '屏障处空闲',
    'Local and remote memory':
        '本地与远端内存',
    '{fma} FMA, {spills} spill':
        '{fma} 条 FMA，{spills} 次溢出',
    ' · quick':
        ' · 快速',
    'predicted':
        '预测值',
    'variant':
        '变体',
    'bound':
        '受限于',
    'correct':
        '正确性',
    'threshold {th:.0%}':
        '阈值 {th:.0%}',
    '{name} at {size} · {calls} call(s) · method: {method}':
        '{name}，规模 {size} · {calls} 次调用 · 方法：{method}',
    'local':
        '本地',
    'remote':
        '远端',
    'CPU node':
        'CPU 节点',
    'memory node':
        '内存节点',
    'latency':
        '延迟',
    '{bits}-bit vectors · {n} vector registers':
        '{bits} 位向量 · {n} 个向量寄存器',
    'microkernel {mr}x{nr} at {bits} bits · peaks: {source}':
        '微内核 {mr}x{nr}，{bits} 位 · 峰值来源：{source}',
    'ok':
        '正常',
    'reference':
        '参考',
    'roofline from {source}':
        '屋顶线来自 {source}',
    'wrong':
        '错误结果',
    'where':
        '位置',
    '% of samples':
        '样本占比 %',
    '(no message)':
        '（无消息）',
    'ok ({err:.1e})':
        '正常（{err:.1e}）',
    'not checked':
        '未检查',
    '(spills)':
        '（溢出）',
    'quick (a first look: fewer samples, smaller sizes)':
        '快速（初步查看：样本更少，规模更小）',
    'full':
        '完整',
    'Compute ceilings (median, 95% CI; % of theoretical at the clock measured beside each)':
        '计算上限（中位数，95% 置信区间；占理论值的百分比按旁边测得的时钟计算）',
    'Bandwidth ceilings (re-measured well inside each plateau; STREAM byte counts)':
        '带宽上限（在每个平台内部重新测量；按 STREAM 方式计字节）',
    'Plateaus found in the working-set sweeps (vs capacity the threads see)':
        '在工作集扫描中找到的平台（与线程可见的缓存容量对比）',
    'Roofline of this machine ({n} threads)':
        '本机的屋顶线（{n} 个线程）',
    'refused':
        '已拒绝',
    'failed':
        '失败',
    'memory':
        '内存',
    'compute':
        '计算',
    'working sets':
        '工作集范围',
    'cache capacity':
        '缓存容量',
    'median':
        '中位数',
    'points':
        '点数',
    'batch sweep skipped: {why}':
        '已跳过批量扫描：{why}',
    '  points: ':
        '  各点：',
    'all threads = {n}':
        '全部线程 = {n}',
    '{fma} FMA/{mul}M/{add}A, {spills} spill':
        '{fma} FMA/{mul}M/{add}A，{spills} 次溢出',
    'Batch sweep X[B,{d}]·W[{d},{d}] fp32 on {t} thread(s)':
        '批量扫描 X[B,{d}]·W[{d},{d}] fp32，{t} 个线程',
    'pt':
        '点',
    'achieved':
        '实测',
    'eff. bytes/s':
        '有效字节/秒',
    '{kernel} loop audit':
        '{kernel} 循环审计',
    ' — quick mode: smaller D than the full 8192':
        ' — 快速模式：D 小于完整模式的 8192',
    'above roof':
        '高于屋顶',
    ' (above roof)':
        '（高于屋顶）',
    'Ridge point of this machine: {peak} / {bw} = {rp:.1f} FLOP/byte (fp32 FMA roof over the DRAM roof): below it a kernel waits for memory, above it for arithmetic.':
        '本机的脊点：{peak} / {bw} = {rp:.1f} FLOP/byte（fp32 FMA 屋顶除以 DRAM 屋顶）：低于它，内核在等内存；高于它，内核在等运算。',
    ", {frac} of one core's theoretical peak":
        '，为单核理论峰值的 {frac}',
    'The best clean variant ({chains} chains) issues {thr:.2f} {bits}-bit FMAs per cycle, {rate}{peak}.':
        '最好的无溢出变体（{chains} 条链）每周期发射 {thr:.2f} 条 {bits} 位 FMA，{rate}{peak}。',
    'baseline':
        '基线',
    'loop order':
        '循环顺序',
    'cache blocking':
        '缓存分块',
    'register reuse':
        '寄存器复用',
    'packing':
        '打包',
    'SIMD microkernel for this ISA':
        '针对本 ISA 的 SIMD 微内核',
    'Same arithmetic, {f:.0f}x apart: {best} is the fastest, {worst} the slowest at n = {n} — the order decides whether each cache line brought in is used whole or for one element.':
        '运算相同，快慢相差 {f:.0f} 倍：n = {n} 时 {best} 最快，{worst} 最慢 —— 循环顺序决定了每条调入的缓存行是被整条用完，还是只用到一个元素。',
    'Predicted block size from the caches: BS = {bs} ({rule}, L2 = {l2}).':
        '根据缓存预测的块大小：BS = {bs}（{rule}，L2 = {l2}）。',
    'Compiler contribution: {f:.1f}x from {worst} to {best} on the same source.':
        '编译器的贡献：同一份源代码，从 {worst} 到 {best} 快了 {f:.1f} 倍。',
    'Best tile: {name} at {rate}, {acc} accumulators + {other} other registers of {regs} ({bits}-bit), {lpf:.2f} loads per FMA.':
        '最佳分块：{name}，{rate}，{acc} 个累加器 + {other} 个其他寄存器，共 {regs} 个（{bits} 位），每次 FMA {lpf:.2f} 次加载。',
    'paired per-round ratios of interleaved rounds':
        '交错轮次的逐轮成对比值',
    'ratio of medians of two separate runs (unpaired, bootstrap CI)':
        '两次独立运行的中位数之比（非成对，自助法置信区间）',
    'Topology: {topo}.':
        '拓扑：{topo}。',
    "DRAM triad: {one} on one thread, {all} on {tall} ({r:.2f}x). One core cannot keep enough cache misses in flight to fill the memory system (Little's law: bandwidth = misses in flight x line size / latency).":
        'DRAM triad：单线程 {one}，{tall} 个线程 {all}（{r:.2f} 倍）。单个核心无法维持足够多的在途缓存缺失来填满内存系统（利特尔定律：带宽 = 在途缺失数 x 缓存行大小 / 延迟）。',
    'One thread reads {r:.0f}x faster from L1 ({l1}) than from DRAM ({dram}): blocking for cache is worth that much to a memory-bound kernel.':
        '单线程从 L1 读（{l1}）比从 DRAM 读（{dram}）快 {r:.0f} 倍：对访存受限的内核，为缓存做分块就值这么多。',
    "BLAS GEMV streams {bw} on {tall} thread(s), {frac} of the C triad's DRAM ceiling.":
        'BLAS GEMV 在 {tall} 个线程上的流式带宽为 {bw}，是 C triad 的 DRAM 上限的 {frac}。',
    'The first B reaching half of the peak is B = {b} (intensity {i:.0f} FLOP/byte).':
        '第一个达到峰值一半的 B 是 B = {b}（强度 {i:.0f} FLOP/byte）。',
    'Above their roof (a measurement problem, not a discovery; drawn as x): {points}.':
        '高于其屋顶（这是测量问题，不是新发现；以 x 标出）：{points}。',
    'No FMA variant could be measured.':
        '没有任何 FMA 变体测量成功。',
    'One chain: {rate}, one {bits}-bit FMA every {lat:.1f} cycles — the FMA latency; the units sit idle waiting for the previous result.':
        '一条链：{rate}，每 {lat:.1f} 个周期一条 {bits} 位 FMA —— 这就是 FMA 延迟；运算单元空闲着等待上一个结果。',
    'The micro-architecture table expects {exp:g} such FMAs per cycle; measured {thr:.2f}.':
        '微架构表预期每周期 {exp:g} 条这样的 FMA；实测 {thr:.2f}。',
    "Little's law: chains in flight = latency x throughput = {lat:.1f} x {thr:.2f} = {need:.1f}; the measured curve reaches 95% of its best at {sat} chains.":
        '利特尔定律：在途链数 = 延迟 x 吞吐量 = {lat:.1f} x {thr:.2f} = {need:.1f}；实测曲线在 {sat} 条链时达到其最佳值的 95%。',
    ', and the rate drops to {rate:.2f} FMAs per cycle at {chains} chains. That fall is the compiler running out of registers, not the FMA units.':
        '，吞吐率在 {chains} 条链时降到每周期 {rate:.2f} 条 FMA。这一下降是编译器用完了寄存器，而不是 FMA 单元的问题。',
    '; the loads and stores still fit beside the FMAs here, so the rate holds.':
        '；这些加载和存储在这里仍能与 FMA 并行，所以吞吐率不变。',
    'From {sp} chains on the accumulators no longer fit in the {regs} vector registers: the assembly shows stack loads and stores in the loop (spills){tail}':
        '从 {sp} 条链起，累加器放不进 {regs} 个向量寄存器：汇编显示循环中有栈上的加载和存储（溢出）{tail}',
    'No variant spilled up to {chains} chains.':
        '直到 {chains} 条链都没有变体发生溢出。',
    'On {t} thread(s) the best own rung, {name}, runs at {r:.2f}x BLAS (median of per-round ratios, 95% CI {lo:.2f}–{hi:.2f}){extra}.':
        '在 {t} 个线程上，最好的自有阶梯 {name} 达到 BLAS 的 {r:.2f} 倍（逐轮比值的中位数，95% 置信区间 {lo:.2f}–{hi:.2f}）{extra}。',
    'From {first} to {last}: {f:.0f}x, with the same arithmetic — only the order of memory accesses, reuse and instructions changed.':
        '从 {first} 到 {last}：{f:.0f} 倍，运算完全相同 —— 改变的只是访存顺序、数据复用和指令。',
    'No loop order could be measured.':
        '没有任何循环顺序测量成功。',
    ' — compiled to {widths} code':
        ' —— 编译成 {widths} 代码',
    '{names} ({group}): {rates}{code}.':
        '{names}（{group}）：{rates}{code}。',
    'No flag combination could be measured.':
        '没有任何编译选项组合测量成功。',
    '{bits}-bit vectors':
        '{bits} 位向量',
    'scalar code':
        '标量代码',
    '; the compiler says: {said}':
        '；编译器报告：{said}',
    '{label}: {rate} with {width} in the inner loop{said}.':
        '{label}：{rate}，最内层循环使用{width}{said}。',
    'Layout contribution: ikj runs {f:.1f}x ijk with the same flags — the inner loop must walk memory contiguously before any vector unit can help.':
        '数据布局的贡献：相同编译选项下 ikj 比 ijk 快 {f:.1f} 倍 —— 最内层循环必须连续访问内存，向量单元才能发挥作用。',
    'Threads contribution: {f:.2f}x on {t} threads.':
        '线程的贡献：{t} 个线程上 {f:.2f} 倍。',
    'No tile could be measured.':
        '没有任何分块测量成功。',
    'No tile in this sweep spilled ({regs} registers).':
        '这次扫描中没有分块发生溢出（{regs} 个寄存器）。',
    'Smallest tile {name}: {lpf:.2f} loads per FMA, {frac} of the best — too few accumulators to hide the FMA latency and too many loads per FMA.':
        '最小的分块 {name}：每次 FMA {lpf:.2f} 次加载，为最佳值的 {frac} —— 累加器太少，掩盖不了 FMA 延迟，而且每次 FMA 的加载太多。',
    '{where}: {verdict} — {b} runs {s:.3f}x the speed of {a} (95% CI {lo:.3f}–{hi:.3f}; {how}; differences under {th:.0%} are not called).':
        '{where}：{verdict} —— {b} 的速度是 {a} 的 {s:.3f} 倍（95% 置信区间 {lo:.3f}–{hi:.3f}；{how}；小于 {th:.0%} 的差异不予判定）。',
    'The two records differ: {d}.':
        '两条记录不同：{d}。',
    "{reason}; the counts below are simulated by cachegrind with this machine's cache geometry ({geometry}).":
        '{reason}；以下计数由 cachegrind 按本机的缓存几何参数模拟（{geometry}）。',
    '{name} at {size}: {ins:.4g} instructions, {d1:.4g} D1 misses and {ll:.4g} last-level misses per call.':
        '{name}，规模 {size}：每次调用 {ins:.4g} 条指令，{d1:.4g} 次 D1 缺失，{ll:.4g} 次末级缓存缺失。',
    'each core brings its own FMA units':
        '每个核心都带来自己的 FMA 单元',
    'far from linear: the threads shared execution units or were disturbed (see the warnings)':
        '远非线性：线程共用了执行单元，或受到了干扰（见警告）',
    'Compute-bound GEMM (n = {n}): {s:.2f}x on {t} threads, {eff} efficiency — {why}.':
        '计算受限的 GEMM（n = {n}）：{t} 个线程上 {s:.2f} 倍，效率 {eff} —— {why}。',
    'Bandwidth-bound triad ({ws}): {s:.2f}x on {t} threads, {eff} efficiency — the cores share one memory system.':
        '带宽受限的 triad（{ws}）：{t} 个线程上 {s:.2f} 倍，效率 {eff} —— 各核心共享同一个内存系统。',
    'Coarse takes {r:.2f}x the time of fine, where the strip count predicts {p:.2f}x: the job lasts as long as its slowest thread. With {strips} strips on {t} threads one thread works twice while the others idle; at 49 strips on 48 threads that is almost 2x.':
        '粗粒度划分用时是细粒度的 {r:.2f} 倍，按条带数预测为 {p:.2f} 倍：作业的时长取决于最慢的线程。{strips} 个条带分给 {t} 个线程时，一个线程要干两份活，其他线程空等；49 个条带分给 48 个线程时，这几乎是 2 倍。',
    'node {k}: CPUs {cpus}':
        '节点 {k}：CPU {cpus}',
    'This machine has one NUMA node ({topo}; {mem} of memory): every core reaches all of memory through the same controller at the same distance, so there is no local and remote memory to compare. On a machine with several nodes (two-socket servers, some large single-socket parts) this lab binds the threads to one node with numactl and places the memory on each node in turn.':
        '本机只有一个 NUMA 节点（{topo}；内存 {mem}）：每个核心都经由同一个控制器、以相同的距离访问全部内存，因此没有本地与远端内存可比较。在有多个节点的机器上（双路服务器、一些大型单路处理器），本实验用 numactl 把线程绑定到一个节点，并依次把内存放在各个节点上。',
    'Other work was running during this measurement ({cores:.2f} core(s) on average): the figures below may be low, and the observations with them. Rerun on a quiet machine.':
        '测量期间有其他任务在运行（平均占用 {cores:.2f} 个核心）：下面的数字可能偏低，相关的观察也是如此。请在空闲的机器上重新运行。',
    '{prec} SIMD FMA on one thread: {rate}, {frac} of the theoretical peak at the clock measured beside it ({ghz:.2f} GHz, {pipes} FMA pipes x {bits} bits).':
        '{prec} SIMD FMA 单线程：{rate}，为按旁边测得的时钟计算的理论峰值的 {frac}（{ghz:.2f} GHz，{pipes} 条 FMA 流水线 x {bits} 位）。',
    '; the {pbits}-bit pipes run {plane} per cycle each':
        '；{pbits} 位流水线每条每周期处理 {plane} 个',
    '{prec}: SIMD FMA is {r:.1f}x scalar FMA ({bits}-bit registers hold {lanes} lanes{pipes}).':
        '{prec}：SIMD FMA 是标量 FMA 的 {r:.1f} 倍（{bits} 位寄存器容纳 {lanes} 个通道{pipes}）。',
    'this core has separate FP add pipes, so multiplies and adds issued apart keep up with FMA':
        '这个核心有独立的浮点加法流水线，所以分开发射的乘法和加法也能跟上 FMA',
    'without FMA, a multiply and an add take two issue slots':
        '没有 FMA 时，一次乘法和一次加法要占两个发射槽',
    '{prec}: FMA gives {r:.2f}x the FLOP rate of separate multiply and add ({why}).':
        '{prec}：FMA 的 FLOP 速率是分开的乘法加加法的 {r:.2f} 倍（{why}）。',
    '{prec} BLAS GEMM on {tall} thread(s) reaches {frac} of the FMA-chain ceiling: the achievable roof for real code.':
        '{prec} BLAS GEMM 在 {tall} 个线程上达到 FMA 链上限的 {frac}：这是实际代码可达到的屋顶。',
    'Not used as a roof: {name} x{threads} — {reason}.':
        '未用作屋顶：{name} x{threads} —— {reason}。',
    'One-thread read plateaus found from the curve: {parts}.':
        '从曲线中找到的单线程读平台：{parts}。',
    "No separate plateau for {levels} in the one-thread read sweep: its bandwidth is not distinguishable from its neighbour's here.":
        '单线程读扫描中 {levels} 没有单独的平台：在这里它的带宽与相邻层级区分不开。',
    'Memory-bound region (B = {b0}..{b1}): {lo}–{hi} of the roofline prediction; B grew {bgrow:.0f}x and the time {tgrow:.1f}x — FLOP/s rise almost linearly with B because the time goes into reading W once.':
        '访存受限区域（B = {b0}..{b1}）：为屋顶线预测值的 {lo}–{hi}；B 增长了 {bgrow:.0f} 倍，时间增长了 {tgrow:.1f} 倍 —— FLOP/s 几乎随 B 线性上升，因为时间主要花在把 W 读一遍上。',
    'Memory-bound region (B = {b0}..{b1}): {lo}–{hi} of the roofline prediction; B grew {bgrow:.0f}x and the time {tgrow:.1f}x — the BLAS does not turn the extra rows into nearly free work here, so this region falls short of the linear rise the roofline predicts.':
        '访存受限区域（B = {b0}..{b1}）：为屋顶线预测值的 {lo}–{hi}；B 增长了 {bgrow:.0f} 倍，时间增长了 {tgrow:.1f} 倍 —— 这里 BLAS 没有把多出来的行变成几乎免费的工作，所以这一区域达不到屋顶线预测的线性上升。',
    'Compute-bound region (B >= {b}): {lo}–{hi} of the FMA peak; the curve is flat and the time grows in proportion to B.':
        '计算受限区域（B >= {b}）：为 FMA 峰值的 {lo}–{hi}；曲线平坦，时间与 B 成正比增长。',
    'Past the ridge (B >= {b}) the curve keeps climbing, from {lo} of the FMA peak (B = {blo}) to {hi} (B = {bhi}): the BLAS needs far more rows than the ridge point to amortize its packing and blocking; the roofline gives the bound, not the shape.':
        '越过脊点后（B >= {b}）曲线仍在上升，从 FMA 峰值的 {lo}（B = {blo}）升到 {hi}（B = {bhi}）：BLAS 需要远多于脊点的行数才能摊销打包和分块的开销；屋顶线给出的是上界，而不是曲线的形状。',
    'GEMV vs skinny GEMM: B = 1 streams {g}, but B = 2..16 only {w} at worst (B = {b}): NumPy sends B = 1 to GEMV and B >= 2 to a GEMM that does not use the bandwidth for very thin inputs. The roofline is an upper bound; how close a kernel gets depends on how it is written.':
        'GEMV 与瘦长 GEMM 对比：B = 1 时流式带宽为 {g}，而 B = 2..16 最差只有 {w}（B = {b}）：NumPy 把 B = 1 交给 GEMV，把 B >= 2 交给一个在输入极瘦时用不满带宽的 GEMM。屋顶线只是上界；内核能离它多近，取决于它是怎么写的。',
    'No GEMV vs skinny-GEMM gap here: B = 2..16 stream at least {w}, against {g} for GEMV at B = 1.':
        '这里没有 GEMV 与瘦长 GEMM 的差距：B = 2..16 的流式带宽至少为 {w}，B = 1 时 GEMV 为 {g}。',
    '; at n = {n} the three matrices ({ws}) already fit the {l3} L3, so blocking has little to save and its loop overhead shows':
        '；n = {n} 时三个矩阵（{ws}）已经能放进 {l3} 的 L3，所以分块能省下的很少，反而显出了它的循环开销',
    '{name} vs {prev}: {f:.2f}x ({what}){note}.':
        '{name} 对比 {prev}：{f:.2f} 倍（{what}）{note}。',
    '{name}: not timed — {error}.':
        '{name}：未计时 —— {error}。',
    "{name}: the microkernel's loop does not match its tile — {problem}.":
        '{name}：微内核的循环与其分块不符 —— {problem}。',
    ', {frac} of the fp32 FMA peak':
        '，为 fp32 FMA 峰值的 {frac}',
    '; BLAS itself reaches {frac}':
        '；BLAS 自身达到 {frac}',
    '; the predicted BS = {bs} reaches {frac} of it':
        '；预测的 BS = {bs} 达到它的 {frac}',
    '; unblocked ikj: {rate} ({f:.2f}x)':
        '；不分块的 ikj：{rate}（{f:.2f} 倍）',
    'n = {n} (A and B: {ab}, they fit the {llc} last-level cache): best BS = {bs} at {rate}{extra}.':
        'n = {n}（A 和 B：{ab}，能放进 {llc} 的末级缓存）：最佳 BS = {bs}，{rate}{extra}。',
    'n = {n} (A and B: {ab}, they do not fit the {llc} last-level cache): best BS = {bs} at {rate}{extra}.':
        'n = {n}（A 和 B：{ab}，放不进 {llc} 的末级缓存）：最佳 BS = {bs}，{rate}{extra}。',
    'n = {n}: BS = {bs} runs at {frac} of the best — tiny blocks spend their time in loop overhead and short vector loops.':
        'n = {n}：BS = {bs} 只有最佳值的 {frac} —— 过小的块把时间花在循环开销和很短的向量循环上。',
    'Spills appear from {need} registers needed ({name}): more accumulators than the {regs} registers can hold; the best tile stays below that.':
        '从需要 {need} 个寄存器（{name}）开始出现溢出：累加器多于 {regs} 个寄存器能容纳的数量；最佳分块在此之下。',
    'Spills appear from {need} registers needed ({name}): more accumulators than the {regs} registers can hold; here a spilling tile still measured best, so the spills sit off the critical path.':
        '从需要 {need} 个寄存器（{name}）开始出现溢出：累加器多于 {regs} 个寄存器能容纳的数量；这里一个溢出的分块仍然测得最快，说明溢出不在关键路径上。',
    "{name}: did not compile — see the compiler's message above.":
        '{name}：编译失败 —— 见上面的编译器消息。',
    '{name}: no [check] in the spec, so its results were not verified.':
        '{name}：规格文件中没有 [check]，因此结果未经验证。',
    " — above its roof, which is impossible: the FLOP or byte count in the spec and the roofline's traffic model disagree (the ceilings count bytes as STREAM does, without write-allocate traffic), or the measurement was disturbed":
        ' —— 高于其屋顶，这是不可能的：规格中的 FLOP 或字节数与屋顶线的流量模型不一致（上限按 STREAM 方式计字节，不计写分配流量），或者测量受到了干扰',
    '{label}: {rate} at {i:.3g} FLOP/byte, {frac} of its roof ({bound}-bound by {by}; working set {ws} in {level}){above}.':
        '{label}：{rate}，强度 {i:.3g} FLOP/byte，为其屋顶的 {frac}（{bound}受限，受 {by} 限制；工作集 {ws} 位于 {level}）{above}。',
    '{where}: not compared — {error}.':
        '{where}：未比较 —— {error}。',
    '; the model undercounts the traffic (strided or conflicting access, write-allocate).':
        '；模型低估了流量（跨步或冲突访问、写分配）。',
    "Traffic past L1 (D1 misses x line) is {t} per call, {r:.2f}x the spec's byte model ({model}){verdict}":
        '越过 L1 的流量（D1 缺失 x 缓存行）为每次调用 {t}，是规格字节模型（{model}）的 {r:.2f} 倍{verdict}',
    'Traffic past the last level (LL misses x line) is {t} per call, {r:.2f}x the byte model.':
        '越过末级缓存的流量（LL 缺失 x 缓存行）为每次调用 {t}，是字节模型的 {r:.2f} 倍。',
    '{r:.2f} instructions per FLOP of the model.':
        '按模型每个 FLOP 执行 {r:.2f} 条指令。',
    "Cache miss rate {rate}; misses x line = {t} per call against the model's {model}.":
        '缓存缺失率 {rate}；缺失 x 缓存行 = 每次调用 {t}，模型为 {model}。',
    'Branch miss rate {rate}.':
        '分支预测失败率 {rate}。',
    'Hotspot: {sym} ({p:.1f}% of samples).':
        '热点：{sym}（样本的 {p:.1f}%）。',
    'Hot line: {sym} ({p:.1f}% of samples).':
        '热点行：{sym}（样本的 {p:.1f}%）。',
    'Bandwidth saturates by {t} threads: adding threads there gained under 10% ({bw}).':
        '带宽在 {t} 个线程时饱和：再加线程收益不到 10%（{bw}）。',
    'Bandwidth had not saturated at {t} threads ({bw}).':
        '带宽在 {t} 个线程时仍未饱和（{bw}）。',
    'Threads gave the compute-bound kernel {r:.2f}x the speed-up of the memory-bound one: bandwidth, not arithmetic, is what the cores share.':
        '线程给计算受限内核带来的加速比是访存受限内核的 {r:.2f} 倍：各核心共享的是带宽，而不是运算能力。',
    'Threads gave the compute-bound kernel {r:.2f}x the speed-up of the memory-bound one.':
        '线程给计算受限内核带来的加速比是访存受限内核的 {r:.2f} 倍。',
    'Memory on node {mem} seen from node {cpu}: latency {lat:.0f} ns, triad {bw} — {lr:.2f}x the local latency ({llat:.0f} ns) and {bfrac} of the local bandwidth ({lbw}).':
        '从节点 {cpu} 访问节点 {mem} 上的内存：延迟 {lat:.0f} ns，triad {bw} —— 是本地延迟（{llat:.0f} ns）的 {lr:.2f} 倍，本地带宽（{lbw}）的 {bfrac}。',
    'Memory on node {mem} seen from node {cpu}: latency {lat:.0f} ns, triad {bw}.':
        '从节点 {cpu} 访问节点 {mem} 上的内存：延迟 {lat:.0f} ns，triad {bw}。',
    '{prec} FMA scales {sp:.2f}x from 1 to {tall} threads: compute shares nothing between cores, so close to {cores}x is expected.':
        '{prec} FMA 从 1 个线程到 {tall} 个线程扩展了 {sp:.2f} 倍：计算在核心之间不共享任何资源，所以预期接近 {cores} 倍。',
    "{prec} FMA scales only {sp:.2f}x from 1 to {tall} threads, while each thread's clock held: these CPUs share FMA units (SMT siblings, or virtual CPUs placed on one host core).":
        '{prec} FMA 从 1 个线程到 {tall} 个线程只扩展了 {sp:.2f} 倍，而每个线程的时钟保持不变：这些 CPU 共用 FMA 单元（SMT 同核线程，或被宿主机放在同一个物理核上的虚拟 CPU）。',
    '{level} until about {edge} (the OS reports {rep}; {ratio:.2g}x)':
        '{level} 约到 {edge} 为止（操作系统报告 {rep}；{ratio:.2g} 倍）',
    '{level} until about {edge}':
        '{level} 约到 {edge} 为止',
    "; this rung's microkernel is built for the baseline ISA (128-bit), which the next rung lifts":
        '；这一级的微内核是为基线 ISA 编译的（128 位），下一级会去掉这个限制',
    "; this rung's microkernel is built for the baseline ISA (128-bit, no FMA), which the next rung lifts":
        '；这一级的微内核是为基线 ISA 编译的（128 位，无 FMA），下一级会去掉这个限制',
    '{label}: {kind} — {error}.':
        '{label}：{kind} —— {error}。',
    '{name}: closest to its roof at {best} ({bfrac}), farthest at {worst} ({wfrac}).':
        '{name}：在 {best} 时最接近其屋顶（{bfrac}），在 {worst} 时最远（{wfrac}）。',
    '; the model holds.':
        '；模型成立。',
    '; most accesses hit L1 (the data is reused or already cached).':
        '；大多数访问命中 L1（数据被复用或已在缓存中）。',
    'IPC {ipc:.2f} against a dispatch width of {w}.':
        'IPC {ipc:.2f}，发射宽度为 {w}。',
    'IPC {ipc:.2f}.':
        'IPC {ipc:.2f}。',
    'coarse ({what}): wall {wall}; busy per thread {busy}; {idle} of the thread time is spent waiting at the barrier.':
        '粗粒度（{what}）：墙钟时间 {wall}；每线程忙碌时间 {busy}；线程时间的 {idle} 花在屏障处等待。',
    'fine ({what}): wall {wall}; busy per thread {busy}; {idle} of the thread time is spent waiting at the barrier.':
        '细粒度（{what}）：墙钟时间 {wall}；每线程忙碌时间 {busy}；线程时间的 {idle} 花在屏障处等待。',
    '{b} is faster':
        '{b} 更快',
    '{b} is slower':
        '{b} 更慢',
    'no measurable difference':
        '没有可测量的差异',
    'B = {b} at {frac}':
        'B = {b} 时为 {frac}',
    '3·BS²·4 B <= L2 (three fp32 blocks stay in L2)':
        '3·BS²·4 B <= L2（三个 fp32 块都留在 L2 中）',
    '{level} bandwidth':
        '{level} 带宽',
    '{b}-bit':
        '{b} 位',
    'Rooflines of {runs}':
        '{runs} 的屋顶线',
    'this run has no compute and memory ceilings to draw':
        '此次运行没有可绘制的计算上限和内存上限',
    'Roofline: {model} ({n} threads)':
        '屋顶线：{model}（{n} 个线程）',
    'warning':
        '警告',
    'high spread (robust CV above {th:.0%}) in {n} measurements: {subjects}':
        '{n} 次测量离散度高（稳健变异系数超过 {th:.0%}）：{subjects}',
    'the clock beside the kernel dipped by more than {th:.0%} in {n} measurements: {subjects}':
        '{n} 次测量中内核旁测得的时钟下降超过 {th:.0%}：{subjects}',
    'CPU':
        'CPU',
    'micro-architecture':
        '微架构',
    'cores':
        '核心',
    '{p} physical, {l} logical, {s} socket(s)':
        '{p} 个物理核，{l} 个逻辑 CPU，{s} 个插槽',
    'ISA':
        'ISA',
    '{name} ({features}); {n} x {bits}-bit vector registers':
        '{name}（{features}）；{n} 个 {bits} 位向量寄存器',
    'FMA':
        'FMA',
    'caches':
        '缓存',
    'NUMA nodes':
        'NUMA 节点',
    'Machine':
        '机器',
    'OS':
        '操作系统',
    'governor':
        '调频策略',
    'ASLR':
        'ASLR',
    'load average':
        '平均负载',
    'Environment':
        '环境',
    'C compiler':
        'C 编译器',
    'perf counters':
        'perf 计数器',
    'valgrind (cachegrind)':
        'valgrind（cachegrind 缓存模拟）',
    'objdump (assembly audit)':
        'objdump（汇编审计）',
    'Capabilities':
        '功能',
    'Runs in {store}':
        '{store} 中的运行',
    '  (no runs yet: `rooflab measure` makes the first)':
        '  （还没有运行：先运行 `rooflab measure`）',
    'Measurements':
        '测量',
    'MPI job: {n} ranks on {h} host(s)':
        'MPI 作业：{n} 个 rank，分布在 {h} 台主机上',
    '{name} (assumed)':
        '{name}（推测）',
    '{pipes} pipe(s) x {bits}-bit, {add} FP add pipe(s)':
        '{pipes} 条流水线 x {bits} 位，{add} 条浮点加法流水线',
    '{pipes} pipe(s) x {bits}-bit':
        '{pipes} 条流水线 x {bits} 位',
    'clock (measured)':
        '时钟（实测）',
    '{ghz:.3f} GHz (95% CI {lo:.3f}–{hi:.3f}; {method})':
        '{ghz:.3f} GHz（95% 置信区间 {lo:.3f}–{hi:.3f}；{method}）',
    'clock':
        '时钟',
    'peak fp64 (all cores)':
        'fp64 峰值（全部核心）',
    'peak fp32 (all cores)':
        'fp32 峰值（全部核心）',
    '{api} {version} ({arch}), {n} thread(s)':
        '{api} {version}（{arch}），{n} 个线程',
    'thread settings':
        '线程设置',
    'CPU affinity':
        'CPU 亲和性',
    'not readable':
        '无法读取',
    'not a git work tree':
        '不是 git 工作树',
    'not available':
        '不可用',
    'hardware + software':
        '硬件 + 软件',
    'not installed':
        '未安装',
    'yes':
        '是',
    'id':
        '编号',
    'created (UTC)':
        '创建时间（UTC）',
    'kind':
        '类型',
    'host':
        '主机',
    'records':
        '记录数',
    'median/rep':
        '中位数/次',
    'rank':
        'rank 编号',
    'cpus':
        'CPU 列表',
    "Job aggregates (bench): all ranks' work over the slowest rank's time":
        '作业汇总（bench）：所有 rank 的工作量除以最慢 rank 的时间',
    "On the job's roofline ({flops}, {bw} over {n} ranks)":
        '作业的屋顶线（{flops}，{bw}，共 {n} 个 rank）',
    '{ghz:.3f} GHz (not measured)':
        '{ghz:.3f} GHz（未实测）',
    'none':
        '无',
    'this run did not complete ({status}); showing the {n} measurement(s) it finished':
        '此次运行未完成（{status}）；显示它已完成的 {n} 项测量',
    'kernel and size':
        '内核与规模',
    'job':
        '作业',
    'job roof':
        '作业屋顶',
    ' (dirty)':
        '（有未提交修改）',
    '{spread:.0%} (rank {rank})':
        '{spread:.0%}（第 {rank} 号 rank）',
    "Job aggregates (compute): all ranks' work over the slowest rank's time":
        '作业汇总（计算）：所有 rank 的工作量除以最慢 rank 的时间',
    "Job aggregates (bandwidth): all ranks' work over the slowest rank's time":
        '作业汇总（带宽）：所有 rank 的工作量除以最慢 rank 的时间',
    'per node':
        '每节点',
    'slowest / fastest':
        '最慢 / 最快',
    'no timing':
        '无计时',
    '{subject}: ':
        '{subject}：',
    '{who}high spread: robust CV {cv:.1%} over {n} samples (threshold {th:.0%})':
        '{who}离散度高：{n} 个样本的稳健变异系数为 {cv:.1%}（阈值 {th:.0%}）',
    'close other programs, pin the run (taskset -c N), or take more samples':
        '关闭其他程序，绑定 CPU 运行（taskset -c N），或采集更多样本',
    'competing load on this {ncpu}-CPU machine: {parts} on average during the run (threshold {th:.2f} core); figures may be low by up to {low:.1f}x':
        '这台 {ncpu} 个 CPU 的机器上有竞争负载：运行期间平均{parts}（阈值 {th:.2f} 个核心）；数字可能偏低，最多达 {low:.1f} 倍',
    'rerun when the machine is quiet (check `top`), or stop the other work':
        '等机器空闲时重新运行（用 `top` 查看），或停止其他工作',
    '{who}the timer resolution ({ns:.0f} ns) is {frac:.2%} of one sample ({ms:.3f} ms; threshold {th:.1%})':
        '{who}计时器分辨率（{ns:.0f} ns）占单个样本（{ms:.3f} ms）的 {frac:.2%}（阈值 {th:.1%}）',
    'raise the minimum sample time (--min-sample) so each sample lasts longer':
        '提高最短样本时间（--min-sample），让每个样本持续更久',
    '{subject}: measured {value:.4g} {unit}, {frac:.1%} of the {what} ({limit:.4g} {unit}); threshold {tol:.0%}':
        '{subject}：测得 {value:.4g} {unit}，为{what}（{limit:.4g} {unit}）的 {frac:.1%}；阈值 {tol:.0%}',
    '{subject}: measured {frac:.1%} of the {what}; threshold {tol:.0%}':
        '{subject}：测得值为{what}的 {frac:.1%}；阈值 {tol:.0%}',
    'the work model or the clock is wrong, or the compiler skipped work: check the audit and the clock; this figure is not used as a roof':
        '工作量模型或时钟有误，或者编译器省掉了工作：请检查审计结果和时钟；此数值不用作屋顶',
    '{subject}: the core clock measured beside it ranged {lo:.2f}–{hi:.2f} GHz ({drop:.0%} dips; threshold {th:.0%}): the core was not fully ours':
        '{subject}：在其旁测得的核心时钟在 {lo:.2f}–{hi:.2f} GHz 之间（下降 {drop:.0%}；阈值 {th:.0%}）：这个核心并非完全由我们使用',
    'the host is shared or throttling: rerun at a quieter time, or on a dedicated machine; rooflab pairs each round with its own clock to limit the damage':
        '宿主机是共享的或在降频：请在更空闲的时候重新运行，或换一台独占的机器；rooflab 让每一轮都配有自己的时钟测量，以减小影响',
    '{subject}: {t} threads ran {sp:.2f}x one thread ({eff:.0%} efficiency; threshold {th:.0%}) although the clock held: the CPUs share execution units (SMT siblings, or virtual CPUs on one host core)':
        '{subject}：{t} 个线程只跑出单线程的 {sp:.2f} 倍（效率 {eff:.0%}；阈值 {th:.0%}），而时钟保持不变：这些 CPU 共用执行单元（SMT 同核线程，或位于同一宿主物理核上的虚拟 CPU）',
    "the all-threads compute ceiling is what these CPUs can do together right now; pin to distinct physical cores, or rerun (a VM's placement can change)":
        '全线程计算上限反映的是这些 CPU 此刻能共同做到的；请绑定到不同的物理核，或重新运行（虚拟机的放置可能改变）',
    'other processes used {cores:.2f} core(s)':
        '其他进程占用了 {cores:.2f} 个核心',
    'the hypervisor took {cores:.2f} core(s) (steal time)':
        '虚拟机管理程序占用了 {cores:.2f} 个核心（steal 时间）',
    'others used {cores:.2f} core(s)':
        '其他任务占用了 {cores:.2f} 个核心',
    'load average {la:.2f} with {t} thread(s) of ours':
        '平均负载 {la:.2f}，我们自己有 {t} 个线程',
    'no bf16 (or fp16) GEMM or HBM ceiling to predict from':
        '没有 bf16（或 fp16）GEMM 上限或 HBM 上限可用于预测',
    'the GPU was not idle when the run began: {n} other process(es) on it, utilization {util}':
        '运行开始时 GPU 并不空闲：上面有 {n} 个其他进程，利用率 {util}',
    'run when nothing else uses the GPU (check nvidia-smi); a shared GPU measures low':
        '请在没有其他程序使用 GPU 时运行（用 nvidia-smi 查看）；共享的 GPU 测得的数值偏低',
    'the GPU slowed itself during the measurements: {reasons}':
        '测量期间 GPU 自行降速：{reasons}',
    'the ceilings are what this GPU sustains under its current power and cooling; check power limits and temperatures (nvidia-smi -q -d PERFORMANCE)':
        '这些上限是该 GPU 在当前供电和散热条件下能持续达到的；请检查功耗限制和温度（nvidia-smi -q -d PERFORMANCE）',
    "compute capability {cc} is not in rooflab's table: the compute ceilings cannot be checked against a theoretical peak":
        '计算能力 {cc} 不在 rooflab 的表中：计算上限无法与理论峰值核对',
    "the measured ceilings stand on their own; add the device's per-SM rates to rooflab.gpu.specs.PER_SM":
        '实测上限本身仍然有效；可以把该设备每个 SM 的吞吐率加入 rooflab.gpu.specs.PER_SM',
    'relative error {err:.2g} against a higher-precision reference':
        '与更高精度参考结果相比的相对误差为 {err:.2g}',
    'HBM bandwidth from the memory clock and bus width':
        '由显存时钟和总线宽度算出的 HBM 带宽',
    'GPU':
        'GPU',
    'compute capability':
        '计算能力',
    'architecture':
        '架构',
    'memory bus':
        '显存总线',
    '{bits} bits at {ghz} (memory clock)':
        '{bits} 位，{ghz}（显存时钟）',
    'SM clock':
        'SM 时钟',
    '{now} measured during the run; maximum {max}':
        '运行期间实测 {now}；最高 {max}',
    'driver / runtime':
        '驱动 / 运行时',
    'Compute ceilings (median, 95% CI; % of theoretical at the SM clock during each)':
        '计算上限（中位数，95% 置信区间；占理论值的百分比按各自运行期间的 SM 时钟计算）',
    'Bandwidth ceilings (STREAM byte counts; HBM against 2 x memory clock x bus width)':
        '带宽上限（按 STREAM 方式计字节；HBM 与 2 x 显存时钟 x 总线宽度对比）',
    'reference: cudaMemcpy device to device {bw} over {ws}; HBM copy / memcpy = {r}':
        '参考：设备到设备的 cudaMemcpy 在 {ws} 上为 {bw}；HBM 拷贝 / memcpy = {r}',
    'Plateaus found in the working-set sweeps':
        '在工作集扫描中找到的平台',
    'Roofline of this GPU':
        '这块 GPU 的屋顶线',
    "not in rooflab's table":
        '不在 rooflab 的表中',
    'Theoretical peaks at the measured SM clock ({ghz})':
        '按实测 SM 时钟（{ghz}）计算的理论峰值',
    'Batch sweep X[B,{d}]·W[{d},{d}] {dtype} on the GPU':
        'GPU 上的批量扫描 X[B,{d}]·W[{d},{d}] {dtype}',
    'peak':
        '峰值',
    '; from the datasheet-style theoretical peaks it would be {t:.0f}':
        '；若按数据手册式的理论峰值计算则为 {t:.0f}',
    'Ridge point of this GPU: {peak} / {bw} = {rp:.0f} FLOP/byte (the measured {prec} GEMM ceiling over the HBM ceiling){th}.':
        '这块 GPU 的脊点：{peak} / {bw} = {rp:.0f} FLOP/byte（实测 {prec} GEMM 上限除以 HBM 上限）{th}。',
    'The SM clock rose from {a:.2f} to {b:.2f} GHz while the GPU warmed up ({s:.1f} s): a roofline measured before the boost would be that much too low.':
        'GPU 预热期间 SM 时钟从 {a:.2f} GHz 升到 {b:.2f} GHz（{s:.1f} 秒）：在升频之前测得的屋顶线会相应偏低。',
    ', {frac} of the theoretical {th} (2 x memory clock x bus width)':
        '，为理论值 {th}（2 x 显存时钟 x 总线宽度）的 {frac}',
    "; cudaMemcpy device to device reaches {bw}, so rooflab's copy runs at {frac} of it":
        '；设备到设备的 cudaMemcpy 达到 {bw}，rooflab 的拷贝为它的 {frac}',
    'HBM copy: {bw}{th}{d2d}.':
        'HBM 拷贝：{bw}{th}{d2d}。',
    'Reading from L2 ({l2}) is {r:.1f}x reading from HBM ({hbm}): a kernel that reuses data while it is in L2 gets that much more bandwidth.':
        '从 L2 读（{l2}）是从 HBM 读（{hbm}）的 {r:.1f} 倍：趁数据还在 L2 中就复用它的内核，能多得这么多带宽。',
    'X[B,{d}]·W[{d},{d}] crosses the ridge at B = {b} (intensity {i:.0f} FLOP/byte): below it the time is the time to read W from HBM, above it the tensor cores are the limit.':
        'X[B,{d}]·W[{d},{d}] 在 B = {b} 时越过脊点（强度 {i:.0f} FLOP/byte）：在此之下，耗时就是从 HBM 读取 W 的时间；在此之上，张量核心成为瓶颈。',
    'Up to B = {b} X·W stays below the ridge (intensity {i:.0f} FLOP/byte): memory-bound throughout.':
        '直到 B = {b}，X·W 都在脊点之下（强度 {i:.0f} FLOP/byte）：全程访存受限。',
    'Memory-bound region (B = {b0}..{b1}): FLOP/s grew {fg:.1f}x while B grew {bg:.0f}x, at {lo}–{hi} of the roofline prediction.':
        '访存受限区域（B = {b0}..{b1}）：B 增长 {bg:.0f} 倍时 FLOP/s 增长了 {fg:.1f} 倍，为屋顶线预测值的 {lo}–{hi}。',
    'The first B reaching half of the GEMM ceiling is B = {b}.':
        '第一个达到 GEMM 上限一半的 B 是 B = {b}。',
    '{prec} FMA on the CUDA cores: {rate}, {frac} of the theoretical peak at the SM clock the kernel measured itself ({ghz:.2f} GHz x {sms} SMs).':
        'CUDA 核心上的 {prec} FMA：{rate}，为按内核自身测得的 SM 时钟计算的理论峰值的 {frac}（{ghz:.2f} GHz x {sms} 个 SM）。',
    'The read sweep holds an L2 plateau until about {edge} (the device reports {l2}; {r:.2g}x).':
        '读扫描中的 L2 平台约到 {edge} 为止（设备报告 {l2}；{r:.2g} 倍）。',
    'Not used as a roof: {name} — {reason}.':
        '未用作屋顶：{name} —— {reason}。',
    ', {frac} of its theoretical peak at {ghz:.2f} GHz':
        '，为 {ghz:.2f} GHz 时理论峰值的 {frac}',
    'Bursts: the first tens of milliseconds of a GEMM ran faster than the GPU then sustained ({items}). The ceilings '
    'are the sustained rates; a short kernel after an idle spell may see up to {r:.2f}x.':
        '突发：GEMM 最初几十毫秒的速度高于 GPU 随后能维持的速度（{items}）。上限取持续速度；空闲一段时间后的短内核最多'
        '可能看到 {r:.2f} 倍。',
    '{prec} peak at the highest SM clock ({ghz:.2f} GHz)': '最高 SM 时钟（{ghz:.2f} GHz）下的 {prec} 峰值',
    '{prec} tensor-core GEMM: {rate}, {r:.1f}x the fp32 CUDA-core ceiling{frac}.':
        '{prec} 张量核心 GEMM：{rate}，是 fp32 CUDA 核心上限的 {r:.1f} 倍{frac}。',
    'No separate L2 plateau in the read sweep: here the L2 is not measurably faster than HBM for a streaming read.':
        '读扫描中没有单独的 L2 平台：在这里，对流式读取来说 L2 并不比 HBM 明显更快。',
    'Roofline: {model}':
        '屋顶线：{model}',
    'rooflab has no GEMM for {prec}':
        'rooflab 没有 {prec} 的 GEMM',
    'fp8 GEMM goes through cuBLASLt, which rooflab reaches through PyTorch (torch._scaled_mm); PyTorch is not installed':
        'fp8 GEMM 需要 cuBLASLt，rooflab 通过 PyTorch（torch._scaled_mm）调用它；但未安装 PyTorch',
    'this PyTorch ({version}) has no float8 matmul':
        '这个 PyTorch（{version}）没有 float8 矩阵乘法',
    'the simulated device has no {prec} GEMM':
        '模拟设备没有 {prec} GEMM',
    'unsupported':
        '不支持',
    '{nt} of {n} load(s) per iteration are non-temporal; the kernel is meant to use only non-temporal loads':
        '每次迭代 {n} 个加载中只有 {nt} 个是非临时加载；该内核本应只使用非临时加载',
    '{nt} of {n} store(s) per iteration are streaming stores; the kernel is meant to use only streaming stores':
        '每次迭代 {n} 个存储中只有 {nt} 个是流式存储；该内核本应只使用流式存储',
    '{rate:.3g} B/s is {r:.3g}x the most {level} can deliver to this kernel ({bound:.3g} B/s: {basis})':
        '{rate:.3g} B/s 是 {level} 能向该内核提供的最大带宽的 {r:.3g} 倍（{bound:.3g} B/s：{basis}）',
    "all threads ran at {eff:.0%} of one thread's rate times the cores":
        '全部线程的速度只有单线程速度乘以核心数的 {eff:.0%}',
    'other processes used {cores:.2f} core(s) meanwhile':
        '在此期间其他进程占用了 {cores:.2f} 个核心',
    'measured while the CPUs were not all ours: {why}':
        '测量时 CPU 并非全部归我们使用：{why}',
    '{parts} per core, x {ghz:.2f} GHz (+{head:.0%}) x {n} core(s){generic}':
        '每核心 {parts}，x {ghz:.2f} GHz（+{head:.0%}）x {n} 个核心{generic}',
    'L1 ports {ld} B/cycle load, {st} B/cycle store':
        'L1 端口每周期加载 {ld} B、存储 {st} B',
    '{lv} {b} B/cycle':
        '{lv} 每周期 {b} B',
    " (a generic bound: this CPU's ports are not in rooflab's table)":
        '（通用上界：rooflab 的表中没有这款 CPU 的端口数据）',
    'impossible':
        '不可能',
    'disturbed':
        '受干扰',
    '{subject}: {level} measured faster than {upper} ({rate:.3g} against {urate:.3g} B/s; the 95% CIs do not overlap): a level farther from the core cannot feed it faster':
        '{subject}：测得 {level} 比 {upper} 更快（{rate:.3g} 对 {urate:.3g} B/s；95% 置信区间不重叠）：离核心更远的层级不可能更快地供给数据',
    'the plateaus were misread or one of the two ceilings was disturbed: check the sweep table and rerun on a quiet machine':
        '平台识别有误，或两个上限之一受到了干扰：请检查扫描表，并在安静的机器上重新运行',
    'by CPU: {cpus}':
        '按 CPU：{cpus}',
    'CPU {cpu} {frac:.0%} busy':
        'CPU {cpu} 忙 {frac:.0%}',
    'the host kept the core from it {lost:.0%} of the time':
        '宿主机在 {lost:.0%} 的时间里占用了该核心',
    'its threads waited for a CPU {wait:.0%} of the time':
        '其线程有 {wait:.0%} 的时间在等待 CPU',
    'no stored measure run of this machine holds a usable roof':
        '这台机器存储的 measure 运行中没有可用的屋顶',
    'not taken from newer runs: {why}':
        '未采用较新的运行：{why}',
    '{roof}: run {id} had it {status}':
        '{roof}：运行 {id} 中该项为{status}',
    'Not used as a roof: {level} {kernel} x{threads} — {reason}.':
        '未用作屋顶：{level} {kernel} x{threads} —— {reason}。',
    "{n} ceiling(s) were measured while the CPUs were not all ours ({names}): they are shown with the reason but are not roofs, and this run does not replace the roofs of this machine's earlier undisturbed runs; bench and the labs keep using those. Rerun on a quiet machine, or with --wait-quiet SECONDS.":
        '{n} 个上限是在 CPU 并非全部归我们使用时测得的（{names}）：它们连同原因一起显示，但不作为屋顶，这次运行也不会取代这台机器此前未受干扰的运行中的屋顶；bench 和各个实验继续使用那些屋顶。请在安静的机器上重新运行，或加上 --wait-quiet SECONDS。',
    '{n} figure(s) broke a physical bound ({names}): impossible, a measurement problem, never a roof.':
        '{n} 个数值超出了物理上界（{names}）：这是不可能的，属于测量问题，绝不作为屋顶。',
    'DRAM roof on {tall} thread(s): {roof} ({kernel}); the best regular-store kernel reaches {reg} ({rkernel}), {r:.2f}x less.':
        '{tall} 个线程的 DRAM 屋顶：{roof}（{kernel}）；最好的普通存储内核达到 {reg}（{rkernel}），低 {r:.2f} 倍。',
    'Write-allocate: an ordinary store first reads the line it writes, so the triad moves 32 bytes per element where STREAM counts 24; streaming stores skip that read. Triad in DRAM: {nt} with streaming stores, {reg} without ({r:.2f}x; up to 1.33x if the read of each written line were all that differs).':
        '写分配：普通存储会先读入它要写的缓存行，所以 triad 每个元素实际搬运 32 字节，而 STREAM 只计 24 字节；流式存储省去了这次读取。DRAM 中的 triad：使用流式存储为 {nt}，不使用为 {reg}（{r:.2f} 倍；如果差别只在于每个被写缓存行的那次读取，最多为 1.33 倍）。',
    'run {id} ({what})':
        '运行 {id}（{what}）',
    'the newest measure runs holding each roof: {runs}':
        '各屋顶取自持有它的最新 measure 运行：{runs}',
    'reason':
        '原因',
    '{label} printed {size} on {stream}; the last lines:':
        '{label} 在 {stream} 上输出了 {size}；最后几行：',
    '{label} changed the worker process:':
        '{label} 改变了工作进程：',
    '{n} of {total} points drawn, evenly spread': '画出了 {total} 个点中均匀分布的 {n} 个',
    '{n} more rows (all in --csv and --json)': '另有 {n} 行（全部见 --csv 和 --json）',
    '{n} more sizes (all in --json and --csv)': '另有 {n} 个规模（全部见 --json 和 --csv）',
    '{label} printed on {stream}:':
        '{label} 在 {stream} 上的输出：',
    'out of bounds':
        '越界写入',
    'crash':
        '崩溃',
    'timeout':
        '超时',
    ', {level:.0%} only: {n} samples':
        '，仅 {level:.0%}：{n} 个样本',
    '{line}   (x{n})':
        '{line}   (x{n})',
    '... {n} more line(s): the whole output is in --json':
        '…… 另有 {n} 行：完整输出见 --json',
    "your kernels from a spec file (TOML): checked, timed, and placed on this machine's roofline":
        '规格文件（TOML）中的你的核函数：检查、计时，并放到本机的 roofline 上',
    'did it really get faster? A and B: two kernels (spec.toml[:NAME]) or two stored bench runs (ids)':
        '真的变快了吗？A 和 B：两个核函数（spec.toml[:NAME]）或两次已存储的 bench 运行（编号）',
    'machine, environment and capabilities (compiler, OpenMP, perf counters, valgrind, numactl, BLAS)':
        '机器、环境与能力（编译器、OpenMP、perf 计数器、valgrind、numactl、BLAS）',
    "measure this machine's cache-aware roofline: compute and bandwidth ceilings, the batch sweep, the plot":
        '测量本机的缓存感知 roofline：计算与带宽上限、批量扫描、绘图',
    "measure an NVIDIA GPU's roofline (rooflab measure --device cuda); needs CuPy":
        '测量 NVIDIA GPU 的 roofline（rooflab measure --device cuda）；需要 CuPy',
    'why: hardware counters (perf) where the machine exposes them, simulated caches (cachegrind) otherwise':
        '原因：机器提供硬件计数器时用 perf，否则用模拟缓存（cachegrind）',
    'list stored runs, newest first':
        '列出已存储的运行，最新的在前',
    'draw stored runs again, without measuring anything (several: their ceilings side by side)':
        '重新绘制已存储的运行，不做任何测量（多次运行：上限并排对比）',
    'a report of stored runs: an interactive roofline, the tables, observations, warnings and the full record':
        '已存储运行的报告：交互式 roofline、表格、观察、警告和完整记录',
    'n = {n}: {where}':
        'n = {n}：{where}',
    'A and B fit the last-level cache':
        'A 和 B 装得进末级缓存',
    'A and B exceed the last-level cache':
        'A 和 B 超出末级缓存',
    'triad':
        'triad 带宽',
    '(no report for documents of kind {kind}: see --json)':
        '（类型为 {kind} 的文档没有报告：请用 --json 查看）',
    'why is this kernel slow? the evidence, the findings ranked by the time they could save, and the experiments that test them':
        '这个内核为什么慢？证据、按可节省时间排序的发现，以及检验它们的实验',
    'no experiments':
        '未运行实验',
    'a build with -ffast-math':
        '使用 -ffast-math 的构建',
    'a build with -funroll-loops':
        '使用 -funroll-loops 的构建',
    'a build with -fno-math-errno':
        '使用 -fno-math-errno 的构建',
    'a build for this CPU ({flag})':
        '针对本机 CPU 的构建（{flag}）',
    'a build with -O3 {flag} (vectorizing)':
        '使用 -O3 {flag} 的构建（开启向量化）',
    'its OpenMP pragmas on, on all {n} CPUs':
        '启用其 OpenMP 指令，在全部 {n} 个 CPU 上运行',
    'a size whose arrays fit {level} ({size})':
        '数组能放进 {level} 的规模（{size}）',
    'restrict on every pointer parameter (in a copy of the source)':
        '给每个指针参数加上 restrict（在源码副本中）',
    'the compute roof':
        '计算屋顶',
    '{what}: {head} (95% CI {lo:.2f}–{hi:.2f}x over {n} paired rounds; differences under {th:.0%} are not called){err}':
        '{what}：{head}（95% CI {lo:.2f}–{hi:.2f}x，共 {n} 轮配对测量；小于 {th:.0%} 的差异不作判定）{err}',
    'the {level} bandwidth roof':
        '{level} 带宽屋顶',
    'the hot loop keeps {n} accumulator(s); the longest takes {k} dependent {op} per iteration':
        '热循环有 {n} 个累加器；最长的一个每次迭代要做 {k} 次相互依赖的 {op}',
    'the data does not fit {faster}: every pass streams it from {level}':
        '数据放不进 {faster}：每一遍都要从 {level} 读取',
    "block the computation so that each block's data (under {cap}) is reused while it is in {faster}":
        '对计算分块，使每块数据（小于 {cap}）在 {faster} 中时被反复使用',
    'at its roof':
        '已达屋顶',
    'one thread on several CPUs':
        '多核上只用一个线程',
    'an in-order reduction':
        '按顺序的归约',
    'a dependency chain':
        '依赖链',
    'possible aliasing':
        '可能的指针别名',
    'a build that does not vectorize':
        '构建未向量化',
    'narrow vectors':
        '向量过窄',
    'strided access':
        '跨步访问',
    'a working set past a cache level':
        '工作集超出某级缓存',
    'calls in the loop':
        '循环中的函数调用',
    'register spills':
        '寄存器溢出',
    'divisions':
        '除法',
    'no finding':
        '无发现',
    '{what}: its result is wrong (relative error {err:.2g} above the tolerance): the change is not safe for this kernel as it stands':
        '{what}：结果错误（相对误差 {err:.2g} 超出容差）：对当前这个内核，这一改动并不安全',
    '{what}: not measured — {error}':
        '{what}：未测量 — {error}',
    '{s:.2f}x faster':
        '快 {s:.2f}x',
    'Measured, per kernel and size':
        '测量结果（按内核和规模）',
    'Findings at {where}, most time to save first':
        '{where} 的发现（可节省时间多的在前）',
    'Experiments at {where}':
        '{where} 的实验',
    'measured {c:.1f} cycles per iteration of the hot loop':
        '实测热循环每次迭代 {c:.1f} 个周期',
    '{tool} ({model}) predicts {c:.1f} cycles per iteration, {dep} of them waiting on register dependencies; the execution ports alone would allow {r:.1f}':
        '{tool}（{model}）预测每次迭代 {c:.1f} 个周期，其中 {dep} 在等待寄存器依赖；仅按执行端口计算可达 {r:.1f}',
    'for the same loop built without AVX-512 (which {tool} can read), it predicts {c:.1f} cycles per iteration and {m:.1f} were measured; the ports alone would allow {r:.1f}':
        '对不用 AVX-512 构建的同一循环（{tool} 能读懂），它预测每次迭代 {c:.1f} 个周期，实测 {m:.1f}；仅按端口计算可达 {r:.1f}',
    'no in-core prediction: {why}':
        '没有核内预测：{why}',
    'at {frac} of {roof}: nothing left to gain in this kernel; reduce its traffic instead (fewer passes over the data, narrower types, blocking that keeps data in a faster level)':
        '已达{roof}的 {frac}：这个内核本身已无可提升；应减少其访存量（减少遍历次数、用更窄的类型、分块使数据留在更快的一级）',
    'at {frac} of {roof}, as fast as the best real code gets there: nothing left to gain in this kernel; only fewer operations would make it faster':
        '已达{roof}的 {frac}，与最好的实际代码一样快：这个内核本身已无可提升；只有减少运算量才能更快',
    'it kept {busy:.1f} of the {cpus} CPUs busy while timed (its CPU time over the wall time)':
        '计时期间它只让 {cpus} 个 CPU 中的 {busy:.1f} 个忙碌（CPU 时间除以墙钟时间）',
    'on all {cpus} CPUs the roof is {roof}; it reaches {frac} of that':
        '全部 {cpus} 个 CPU 的屋顶是 {roof}；它只达到其 {frac}',
    'build it with OpenMP (openmp = true in the spec, and threads = {cpus} to place it on the roof of all CPUs)':
        '用 OpenMP 构建（在规格中写 openmp = true，并写 threads = {cpus} 以放到全部 CPU 的屋顶下）',
    'split the outer loop between threads ({pragma}, {flag} in the spec)':
        '把外层循环分给多个线程（{pragma}，并在规格中写 {flag}）',
    'the hot loop uses {width}; this ISA has {isa}-bit vectors':
        '热循环使用{width}；本指令集有 {isa} 位向量',
    "checked: the hot loop ({width}, {acc} accumulator(s)), the compiler's remarks, the CPUs in use, the working set against the caches{traffic}":
        '已检查：热循环（{width}，{acc} 个累加器）、编译器报告、所用 CPU、工作集与各级缓存{traffic}',
    'its working set ({ws}) lives in {level}; {faster} holds {cap}':
        '其工作集（{ws}）位于 {level}；{faster} 容量为 {cap}',
    "each call moves {r:.0f}x its working set (the model's bytes over the arrays' size): the same data is read again and again":
        '每次调用搬运 {r:.0f}x 工作集（模型字节数除以数组大小）：同样的数据被反复读取',
    'the {level} roof is {bw}, the {faster} roof {bw2} ({g:.1f}x)':
        '{level} 屋顶为 {bw}，{faster} 屋顶为 {bw2}（{g:.1f}x）',
    'the compiler says (line {line}): {said}':
        '编译器说（第 {line} 行）：{said}',
    '{s:.2f}x slower':
        '慢 {s:.2f}x',
    'its source has `{pragma}` but the spec builds it without OpenMP':
        '其源码有 `{pragma}`，但规格构建时未启用 OpenMP',
    'one thread does all the work while {idle} CPU(s) wait':
        '一个线程做全部工作，其余 {idle} 个 CPU 在等待',
    'the sum is kept in one register and added in order: each add waits for the previous one, so a loop-carried dependency chain bounds the loop, not the memory or the FP units':
        '和保存在一个寄存器中并按顺序相加：每次加法都要等上一次完成，因此限制循环的是跨迭代的依赖链，而不是内存或浮点单元',
    'keep several partial sums (4 to 8) and add them after the loop, or let the compiler reassociate this loop ({pragma}, or {flag})':
        '保留多个部分和（4 到 8 个），循环结束后再相加；或让编译器对该循环重新结合（{pragma}，或 {flag}）',
    'each iteration waits for the result of the previous one: the loop runs at the latency of its dependency chain':
        '每次迭代都要等上一次的结果：循环以依赖链的延迟运行',
    'work on several independent chains at once (interleave independent problems, or restructure the recurrence, e.g. by recursive doubling); unrolling alone does not shorten a chain':
        '同时处理几条独立的链（交错处理相互独立的问题，或改写递推，例如递归倍增）；仅靠展开不会缩短依赖链',
    'the compiler says: {said}':
        '编译器说：{said}',
    'the hot loop gathers: {n} gather instruction(s) per iteration':
        '热循环使用 gather：每次迭代 {n} 条 gather 指令',
    'strided or column-wise access: each cache line brought in is used for only part of its bytes':
        '跨步或按列访问：每条载入的缓存行只用到其中一部分字节',
    'make the inner loop walk memory contiguously (interchange the loops, or store the matrix transposed), or block the loops so that each line is reused before it is evicted':
        '让内层循环连续访问内存（交换循环次序，或转置存储矩阵），或对循环分块，使每条缓存行在被逐出前得到复用',
    'a function call in the loop: it blocks vectorization and costs a call per iteration':
        '循环中有函数调用：它阻止向量化，且每次迭代都要付出一次调用的开销',
    'the loop keeps more values live than there are registers':
        '循环中同时存活的值比寄存器还多',
    'use fewer accumulators or a smaller unroll, so that every value stays in a register':
        '减少累加器或减小展开，使每个值都留在寄存器中',
    'divisions and square roots take many cycles and issue rarely':
        '除法和平方根耗时多个周期，且发射频率低',
    "below its roof, and none of rooflab's rules found why: no advice without evidence":
        '低于屋顶，但 rooflab 的规则都没找到原因：没有证据就不给建议',
    ', relative error {err:.2g}':
        '，相对误差 {err:.2g}',
    '{name}: not explained — {error}':
        '{name}：未能解释 — {error}',
    ' (up to {t} of its {total} per call)':
        '（每次调用 {total} 中最多 {t}）',
    '{where}: {what}{saving} — {hypothesis}.':
        '{where}：{what}{saving} — {hypothesis}。',
    'the compiler cannot prove that the arrays do not overlap, so it keeps the loop scalar (or checks at run time)':
        '编译器无法证明这些数组互不重叠，因此循环保持标量（或在运行时检查）',
    'declare the pointer parameters restrict (double *restrict y) when the arrays never overlap':
        '数组从不重叠时，把指针参数声明为 restrict（double *restrict y）',
    'built with: {flags}':
        '构建参数：{flags}',
    'let the compiler use the instruction instead of the library call (-fno-math-errno for sqrt), or move the call out of the loop':
        '让编译器用指令代替库函数调用（sqrt 可用 -fno-math-errno），或把调用移出循环',
    'inline the called function or move the call out of the loop':
        '内联被调用的函数，或把调用移出循环',
    'the hot loop stores and reloads {n} value(s) from the stack per iteration':
        '热循环每次迭代把 {n} 个值存到栈上再读回',
    '{n} division(s) or square root(s) per iteration of the hot loop':
        '热循环每次迭代有 {n} 次除法或平方根',
    '{where}: not measured — {error}':
        '{where}：未测量 — {error}',
    '{where}: below its roof; the experiments refuted every finding rooflab had evidence for.':
        '{where}：低于屋顶；rooflab 有证据的每个发现都被实验否定了。',
    '{where}: {sentence}.':
        '{where}：{sentence}。',
    'of the all-CPU roof':
        '占全 CPU 屋顶',
    'working set in':
        '工作集位于',
    'CPUs busy':
        '忙碌 CPU',
    'cycles/iter.':
        '周期/迭代',
    'traffic / model':
        '访存量 / 模型',
    'finding':
        '发现',
    'could save':
        '可节省',
    'hypothesis':
        '假设',
    'what to change':
        '修改建议',
    'experiment':
        '实验',
    'result':
        '结果',
    '{rate} against a roof of {roof} at its working set ({ws} in {level})':
        '{rate}，其工作集（{ws}，位于 {level}）下的屋顶为 {roof}',
    'scalar code only':
        '只有标量代码',
    'the hot loop calls {names}':
        '热循环调用了 {names}',
    ', the traffic against the model':
        '、访存量与模型的对比',
    'the build does not let the compiler vectorize this loop':
        '构建参数不允许编译器向量化这个循环',
    'the loop runs on narrower vectors than the core has':
        '循环使用的向量比核心支持的更窄',
    "build with -O3 (which vectorizes) and -march=native, or profile = 'native' in the spec":
        "用 -O3（会向量化）和 -march=native 构建，或在规格中写 profile = 'native'",
    'at {frac} of its roof':
        '达到其屋顶的 {frac}',
    'Why: each kernel at the size furthest below its roof':
        '原因：每个内核在离屋顶最远的规模下',
    'hot loop: {why}':
        '热循环：{why}',
    'hot loop: {width} (the ISA has {isa} bits)':
        '热循环：{width}（指令集为 {isa} 位）',
    '{v} vector and {s} scalar FP instruction(s)':
        '{v} 条向量、{s} 条标量浮点指令',
    '{n} accumulator(s), longest chain {k}':
        '{n} 个累加器，最长链 {k}',
    'working set {ws} in {level}':
        '工作集 {ws} 位于 {level}',
    'gathers':
        'gather 指令',
    'masked':
        '掩码操作',
    'calls {names}':
        '调用 {names}',
    '{frac} of its roof':
        '其屋顶的 {frac}',
    '{frac} of the roof of {n} CPUs':
        '{n} 个 CPU 屋顶的 {frac}',
    '{n:.1f} CPU(s) busy':
        '{n:.1f} 个 CPU 忙碌',
    '{c:.1f} cycles per iteration':
        '每次迭代 {c:.1f} 个周期',
    ' — could save up to {t} of {total} per call':
        ' — 每次调用 {total} 中最多可省 {t}',
    'why: {text}':
        '原因：{text}',
    'compiler, line {line}: {text}':
        '编译器，第 {line} 行：{text}',
    '{tool} ({model}): {c:.1f} cycles per iteration predicted, bound by {bound}':
        '{tool}（{model}）：预测每次迭代 {c:.1f} 个周期，受{bound}限制',
    'refuted: its experiment made no difference':
        '已否定：其实验没有带来差异',
    'change: {text}':
        '修改：{text}',
    'experiment: {text}':
        '实验：{text}',
    'not found':
        '未找到',
    'its dependencies':
        '其依赖',
    'port pressure':
        '端口压力',
    "this machine's BLAS GEMM reaches {blas} on the same threads":
        '本机 BLAS GEMM 在相同线程数下达到 {blas}',
    "the bandwidth of rooflab's {kind} kernel measured alongside it":
        '与之同时测得的 rooflab {kind} 内核带宽',
    '; the build left the hot loop as it was (the same vector width, FMAs, adds, loads and stores), so it tests nothing':
        '；该构建没有改变热点循环（向量宽度、FMA、加法、加载和存储都相同），因此它什么也没有检验',
    'the compiler keeps a call to {names} in the loop, for the inputs where it must set errno':
        '编译器在循环中保留了对 {names} 的调用，用于必须设置 errno 的输入',
    '{names} may set errno: the compiler keeps a branch to the library call in the loop, and a call that may write memory keeps the loop from vectorizing':
        '{names} 可能设置 errno：编译器在循环中保留了一个通往库调用的分支，而可能写内存的调用使循环无法向量化',
    'build with -fno-math-errno (the C library\'s errno is not read after the loop), or test the input before the loop':
        '用 -fno-math-errno 构建（循环之后不读取 C 库的 errno），或在循环之前检查输入',
    'the running value is stored at every element: a scan (prefix sum)':
        '运行中的值在每个元素处都被存储：这是一个扫描（前缀和）',
    "each element's value is the previous one's plus this one: the loop runs at the latency of that chain, and a scan cannot be split into partial sums as a reduction can":
        '每个元素的值是前一个的值加上本元素：循环以这条链的延迟运行，而扫描不能像归约那样拆成部分和',
    "scan in blocks: the prefix of each block on its own (independent chains: in SIMD lanes or on threads), then a second pass adds each block's offset; unrolling alone does not shorten the chain":
        '分块扫描：每块各自求前缀（相互独立的链：在 SIMD 通道或线程上），再用第二遍加上每块的偏移；仅靠展开不会缩短这条链',
    'its experiment was inconclusive: the build left the hot loop as it was':
        '其实验没有结论：该构建没有改变热点循环',
    'its experiment was inconclusive':
        '其实验没有定论',
    "the rate of this machine's BLAS GEMM measured alongside it":
        '与之同时测得的本机 BLAS GEMM 速率',
    ' — above the {level} roof: its working set is within {k:g}x the {faster} ({cap}), so part of it is still served from there':
        '——高于 {level} 屋顶：其工作集不超过 {faster}（{cap}）的 {k:g} 倍，部分数据仍由它提供',
    ' (above it: part of its working set is still served from {faster})':
        '（高于屋顶：部分工作集仍由 {faster} 提供）',
    "; others (processes, the host's steal) used {cores:.2f} core(s) meanwhile, so it refutes nothing":
        '；期间其他进程与宿主机（steal）占用了 {cores:.2f} 个核心，因此它不能否定任何发现',
    "alternated with this machine's BLAS GEMM (n={size}) on {t} thread(s), as many as it kept busy: {r:.2f}x its FLOP rate (95% CI {lo:.2f}–{hi:.2f}x over {n} rounds, while it reached {ref})":
        '与本机 BLAS GEMM（n={size}）在 {t} 个线程上（与它占用的 CPU 数相同）交替运行：FLOP 速率为其 {r:.2f}x（95% CI {lo:.2f}–{hi:.2f}x，共 {n} 轮；同期 GEMM 达到 {ref}）',
    "alternated with rooflab's {kind} kernel over as many bytes of arrays on {t} thread(s), as many as it kept busy: {r:.2f}x its bandwidth (95% CI {lo:.2f}–{hi:.2f}x over {n} rounds, while it reached {ref})":
        '与 rooflab 的 {kind} 内核在同样字节数的数组、{t} 个线程上（与它占用的 CPU 数相同）交替运行：带宽为其 {r:.2f}x（95% CI {lo:.2f}–{hi:.2f}x，共 {n} 轮；同期该内核达到 {ref}）',
    " (above it: the stored roof was measured at another moment, or the spec's counts disagree with the roofline's byte model)":
        '（高于屋顶：存储的屋顶测于另一时刻，或规格中的计数与屋顶线的字节模型不一致）',
    "others (processes, the host's steal) used {cores:.2f} core(s) meanwhile: no reference":
        '期间其他进程与宿主机（steal）占用了 {cores:.2f} 个核心：不作为参照',
    "{kernel} x{threads}: {lo} and {hi}": "{kernel} x{threads}：{lo} 与 {hi}",
    "DRAM bandwidth moved during the run with nothing of ours to show for it (measured at two moments, each with clean signals: {which}): the host shares its memory with tenants this machine cannot see. Each DRAM ceiling is the faster moment.":
        "运行期间 DRAM 带宽发生变化，而本机的任何信号都未显示原因（在两个时刻测量，各自信号均干净：{which}）：宿主机的内存与本机看不到的其他租户共享。每个 DRAM 上限取较快的时刻。",
    'not counted: cachegrind would take about {t:.0f} s at this size, and no smaller size keeps the data in {level}':
        '未计数：在此规模下 cachegrind 约需 {t:.0f} 秒，且没有更小的规模能让数据仍留在 {level}',
    'counted at {size} (its arrays {ws}, still in {level}): at the size measured cachegrind would take about {t:.0f} s':
        '在 {size} 下计数（其数组 {ws}，仍在 {level}）：在所测规模下 cachegrind 约需 {t:.0f} 秒',
    'a build with -fsingle-precision-constant (float constants)':
        '使用 -fsingle-precision-constant 构建（单精度常量）',
    "the same product blocked in {bs} x {bs} tiles for L2 (rooflab's blocked GEMM, checked against NumPy)":
        '同一矩阵乘积按 {bs} x {bs} 分块以适配 L2（rooflab 的分块 GEMM，已与 NumPy 核对）',
    '{method}: the traffic out of {level}, where the working set lives, is {r:.1f}x the bytes the model counts ({got} per call against {model})':
        '{method}：来自工作集所在层级 {level} 的流量是模型所计字节的 {r:.1f} 倍（每次调用 {got}，模型为 {model}）',
    'the hot loop runs {n} integer division(s) per iteration (div/idiv: about {c} cycles each, one at a time)':
        '热循环每次迭代执行 {n} 次整数除法（div/idiv：每次约 {c} 个周期，逐个执行）',
    'the hot loop has {n} conditional branch(es) besides the one that closes it, and {width}':
        '热循环除闭合分支外还有 {n} 个条件分支，并且{width}',
    'bytes per FLOP: {model:.3g} in the model; {held:.3g} out of {level}{l1}':
        '每 FLOP 字节数：模型中 {model:.3g}；来自 {level} 的 {held:.3g}{l1}',
    'it does enough work per byte to be bound by compute, but each operand is fetched again from {level} for every use instead of being reused while it is in a faster cache':
        '它每字节的计算量足以受计算限制，但每个操作数每次使用都要从 {level} 重新取回，而不是在更快的缓存中被复用',
    'block (tile) the loops so that each tile of the operands is reused while it is in cache (see the tile sizes above), with the innermost loop walking memory contiguously; a tuned library (BLAS) does this for a matrix product':
        '对循环分块（tiling），使每块操作数在缓存中被复用（分块大小见上），最内层循环连续访问内存；对矩阵乘积，优化库（BLAS）已如此实现',
    'missing reuse (blocking)':
        '缺少数据复用（分块）',
    'integer division':
        '整数除法',
    'control flow in the loop':
        '循环中的控制流',
    'float/double conversions':
        'float/double 转换',
    'an integer division or modulo in the loop (an index wrapped with %, a division by a variable) takes many cycles, does not pipeline, and keeps the loop from vectorizing':
        '循环中的整数除法或取模（用 % 回绕的索引、除以变量）耗费很多周期、无法流水，并阻止循环向量化',
    'move it out of the loop: keep a counter that wraps instead of i % m, multiply by a reciprocal or shift for a power of two, or make the divisor a compile-time constant (the compiler then multiplies)':
        '把它移出循环：用回绕计数器代替 i % m，乘以倒数或对二的幂使用移位，或让除数成为编译期常量（编译器会改用乘法）',
    'control flow in the loop body: the compiler could not if-convert the branch, so the loop stays scalar, and a data-dependent branch costs a misprediction each time the data changes direction':
        '循环体中的控制流：编译器无法对该分支做 if 转换，循环因此保持标量；依赖数据的分支每当数据改变方向就付出一次预测失败',
    'compute both sides and select (x = c ? a : b, with no store or call inside the condition), move a test that does not change out of the loop, or sort the data so that the branch is predictable':
        '两边都计算再选择（x = c ? a : b，条件内不要有存储或调用），把不变的判断移出循环，或对数据排序使分支可预测',
    'a double constant (0.1 rather than 0.1f) or a double function (sqrt rather than sqrtf) in a float loop: each element is widened to double and narrowed back, and the vectors hold half as many elements':
        'float 循环中的 double 常量（0.1 而非 0.1f）或 double 函数（sqrt 而非 sqrtf）：每个元素都被扩展为 double 再缩回，向量只能容纳一半的元素',
    'write float constants with an f suffix (0.1f) and call the float functions (sqrtf, expf), or build with -fsingle-precision-constant':
        'float 常量加 f 后缀（0.1f）并调用 float 函数（sqrtf、expf），或用 -fsingle-precision-constant 构建',
    'tiles that would fit: {tiles} (three b x b blocks of {e}-byte elements in half the level)':
        '能放下的分块：{tiles}（三个 b x b 的 {e} 字节元素块占该层级的一半）',
    'the hot loop converts between float and double {n} time(s) per iteration':
        '热循环每次迭代在 float 与 double 之间转换 {n} 次',
    ' — {why}':
        ' — {why}',
    'runs on {bits}-bit vectors':
        '运行在 {bits} 位向量上',
    'is scalar':
        '是标量的',
    '; {b:.3g} into L1':
        '；进入 L1 的 {b:.3g}',
    'the hot loop loads {n} value(s) from one address, updates and stores them back there on every iteration: a running value kept in memory, each load waiting for the previous store':
        '热循环每次迭代从同一地址加载 {n} 个值、更新后再存回原处：运行中的值保存在内存中，每次加载都要等待上一次存储',
    'a sum or update is carried from one iteration to the next through memory, in order: the compiler keeps it in memory because the pointers may overlap, so the loop runs at the latency of a store, a load and an add, and stays scalar':
        '求和或更新通过内存按顺序从一次迭代传到下一次：由于指针可能重叠，编译器把它留在内存中，因此循环以一次存储、一次加载和一次加法的延迟运行，并保持标量',
    'accumulate in a local variable (double acc = q[i]; ... q[i] = acc;) with several partial sums, declare the pointers restrict, or split the loop so that the sum is a loop of its own':
        '在局部变量中累加（double acc = q[i]; ... q[i] = acc;）并使用多个部分和，把指针声明为 restrict，或拆分循环使求和成为单独的循环',
    'the same source built without OpenMP (one thread)':
        '同一源码不启用 OpenMP 构建（单线程）',
    'its parallel loops scheduled dynamically, {n} chunks per thread (in a copy of the source)':
        '其并行循环改为动态调度，每个线程 {n} 块（在源码副本中）',
    'rows one cache line longer ({size})':
        '每行加长一个缓存行（{size}）',
    'conflict misses (power-of-two rows)':
        '冲突缺失（行长为二的幂）',
    'array {name}: rows of {bytes} bytes, a power of two: a column walk maps its elements to the same few cache sets':
        '数组 {name}：每行 {bytes} 字节，为二的幂：按列遍历时其元素映射到同样的少数几个缓存组',
    'with rows a power of two of bytes apart, the lines of a column compete for a few sets of each cache and evict each other long before the cache is full':
        '行间距为二的幂字节时，一列的缓存行争用每级缓存中的少数几个组，远在缓存装满之前就相互驱逐',
    'pad the leading dimension by a cache line (allocate n + 8 doubles per row), or block the loops so that a column walk touches fewer rows at a time':
        '将主维度填充一个缓存行（每行分配 n + 8 个 double），或对循环分块，使按列遍历每次触及更少的行',
    'load imbalance':
        '负载不均衡',
    'the threads get unequal work (a static schedule over iterations that differ in cost): the call lasts as long as the slowest thread while the others wait at the barrier':
        '各线程分到的工作量不等（对代价不同的迭代使用静态调度）：调用持续到最慢的线程完成，其他线程在屏障处等待',
    'schedule the loop dynamically in small chunks (schedule(dynamic, chunk); guided hands its first large chunks out as a static schedule would), or split the iterations so that each thread gets the same work':
        '以小块动态调度循环（schedule(dynamic, chunk)；guided 开头分出的大块与静态调度无异），或拆分迭代使每个线程得到相同的工作量',
    "it kept {busy:.1f} of its {n} threads' CPUs busy while timed (its CPU time over the wall time): the threads wait for each other {idle} of the time":
        '计时期间它让其 {n} 个线程的 CPU 中 {busy:.1f} 个处于忙碌（CPU 时间除以墙钟时间）：线程有 {idle} 的时间在相互等待',
    'indirect access (gathers)':
        '间接访问（gather）',
    'elements are fetched through an index: where the indices scatter, each element brings in a cache line of its own, and a gather loads its lanes one by one':
        '元素通过索引取得：索引分散时，每个元素都带入自己的一个缓存行，而 gather 逐个加载各通道',
    'sort or block the indices so that neighbouring iterations touch neighbouring data, or gather the values into a contiguous array once when they are used more than once':
        '对索引排序或分块，使相邻迭代访问相邻数据；若值被多次使用，先一次性把它们收集到连续数组中',
    'OpenMP overhead at this size':
        '此规模下的 OpenMP 开销',
    'at this size the threads cost about as much as the work: starting, scheduling and joining the team takes microseconds per call':
        '在此规模下线程的开销与工作量相当：每次调用启动、调度和合并线程组需要数微秒',
    'one call lasts {t} on {n} threads: a few times what a fork-join of the team costs':
        '一次调用在 {n} 个线程上耗时 {t}：只是线程组一次 fork-join 开销的几倍',
    'integer divisions':
        '整数除法',
    'branches':
        '分支',
    'sums kept in memory':
        '保存在内存中的和',
    'chosen where {n} samples of its time fell':
        '按其时间的 {n} 个采样所在处选定',
    'where {n} samples of its time fell':
        '其时间的 {n} 个采样所在处',
    'chosen by its work per iteration (no samples: {why})':
        '按每次迭代的工作量选定（无采样：{why}）',
    'short trip counts':
        '循环次数过短',
    '{share} of its time (of {n} samples) falls inside an innermost loop; the rest goes to the loops around them':
        '其时间（共 {n} 个采样）只有 {share} 落在最内层循环中；其余花在外围的循环上',
    'the inner loops run few iterations per entry: their set-up, the remainder iterations a vector loop leaves and the outer loops cost more than the work':
        '内层循环每次进入只执行很少的迭代：其准备、向量循环留下的剩余迭代以及外层循环的开销超过了工作本身',
    'make the long dimension the innermost loop, let the compiler unroll a short loop of known count completely (a constant bound), or batch several small problems into one loop':
        '把长的维度放到最内层，让编译器完全展开次数已知的短循环（常量上界），或把多个小问题合并到一个循环中',
    'its parallel loop over {var} holds a loop whose bound depends on {var} (`{bound}`): the iterations differ in work, and a static schedule gives each thread a block of them':
        '其对 {var} 的并行循环内含一个上界依赖于 {var} 的循环（`{bound}`）：各迭代的工作量不同，而静态调度给每个线程分配一整块迭代',
    '{method}: L1 brought in {r:.1f}x the bytes the model counts, while {level}, where the working set lives, delivered them about once: each line brought into L1 was used only in part':
        '{method}：L1 调入的字节是模型所计的 {r:.1f} 倍，而工作集所在的 {level} 大约只提供了一次：调入 L1 的每个缓存行只被使用了一部分',
    'its only loop':
        '其唯一的循环',
    "rooflab's {kind} kernel with streaming stores against the same with ordinary stores, over as many bytes ({n} doubles per array) on {t} thread(s)":
        'rooflab 的 {kind} 内核用流式存储与用普通存储对比，字节数相同（每个数组 {n} 个 double），{t} 个线程',
    'its calls run with flush-to-zero and denormals-are-zero set':
        '其调用在开启 flush-to-zero 与 denormals-are-zero 的情况下运行',
    "each thread's element of {arrays} {pad} elements apart, on a cache line of its own (in a copy of the source)":
        '{arrays} 中每个线程的元素相隔 {pad} 个元素，各占一个缓存行（在源代码的副本中）',
    'subnormal numbers':
        '次正规数（非规格化数）',
    'after its calls, {share} of the values in its arrays are subnormal (non-zero and below the smallest normal number of their type)':
        '调用之后，其数组中 {share} 的值是次正规数（非零，且小于其类型最小的正规数）',
    'array {name}: {share} subnormal':
        '数组 {name}：{share} 为次正规数',
    'arithmetic on subnormal numbers may take a slow path in the core (a microcode assist on many x86 cores), many times the cost of an ordinary operation':
        '对次正规数的运算可能在核心中走慢速路径（许多 x86 核心上是微码辅助），代价是普通运算的许多倍',
    "set flush-to-zero and denormals-are-zero for this code (on x86 `_mm_setcsr(_mm_getcsr() | 0x8040)`; -ffast-math sets them in a program's start-up code), or keep values out of the subnormal range (rescale them, or set what decays below a threshold to zero)":
        '为这段代码开启 flush-to-zero 与 denormals-are-zero（x86 上用 `_mm_setcsr(_mm_getcsr() | 0x8040)`；-ffast-math 会在程序的启动代码中开启它们），或让数值远离次正规数范围（重新缩放，或把衰减到阈值以下的值置零）',
    'false sharing between threads':
        '线程之间的伪共享',
    'in its parallel region each thread updates element `{array}[{index}]` inside a loop: the elements of the threads lie side by side, on one cache line':
        '在其并行区域中，每个线程在循环里更新元素 `{array}[{index}]`：各线程的元素紧挨着，位于同一个缓存行',
    'it kept {busy:.1f} CPUs busy and reached {frac} of its roof':
        '它让 {busy:.1f} 个 CPU 保持忙碌，达到其屋顶的 {frac}',
    "each write by one thread takes the line from the other threads' caches: the threads wait for the line to move between cores at every iteration, though they never touch the same element":
        '一个线程的每次写入都把该缓存行从其他线程的缓存中夺走：尽管它们从不访问同一个元素，各线程每次迭代都要等待缓存行在核心之间移动',
    "accumulate in a variable local to each thread and write its element once at the end (or use a reduction clause), or give each thread's element a cache line of its own (pad it to 64 bytes)":
        '在每个线程的局部变量中累加，最后只写一次其元素（或使用 reduction 子句），或让每个线程的元素独占一个缓存行（填充到 64 字节）',
    'write-allocate traffic':
        '写分配流量',
    'each line it writes is first read from memory into the cache (write-allocate), then written back: the written arrays cross the memory bus twice':
        '它写入的每个缓存行都先从内存读入缓存（写分配），再写回：被写的数组两次经过内存总线',
    "write the arrays it only writes with streaming stores (`_mm512_stream_pd` / `_mm256_stream_pd` on aligned data, or a compiler's nontemporal pragma where it honours one), so that whole lines go to memory without being read first":
        '对只写不读的数组使用流式存储（对齐数据上的 `_mm512_stream_pd` / `_mm256_stream_pd`，或编译器支持时的 nontemporal pragma），让整行直接写入内存而不先读取',
    'it writes {arrays} without reading them, with ordinary stores: its working set is in DRAM':
        '它用普通存储写 {arrays} 而从不读取它们：其工作集在 DRAM 中',
    'on this machine the DRAM roof with streaming stores ({nt}, the {nk} kernel) is {g:.2f}x the roof with ordinary stores ({plain}, the {pk} kernel)':
        '在本机上，流式存储的 DRAM 屋顶（{nt}，{nk} 内核）是普通存储屋顶（{plain}，{pk} 内核）的 {g:.2f} 倍',
    'huge_pages = false in the spec':
        '规格中 huge_pages = false',
    'this machine gives no transparent huge pages':
        '本机不提供透明大页',
    'its arrays on transparent huge pages (2 MiB) instead of 4 KiB pages':
        '其数组放在透明大页（2 MiB）上，而非 4 KiB 页',
    'TLB misses (page strides)':
        'TLB 未命中（跨页步长）',
    'its arrays are on 4 KiB pages ({why}): its working set of {ws} spans {pages} pages':
        '其数组位于 4 KiB 页上（{why}）：{ws} 的工作集跨越 {pages} 个页',
    'array {name}: rows of {bytes} bytes, a page or more: a walk down a column or a panel steps to a new page at every access':
        '数组 {name}：每行 {bytes} 字节，至少一页：沿列或面板遍历时每次访问都跨到新的页',
    "the core's TLB holds {n} translations of 4 KiB pages (the OS says so): {reach}":
        '该核心的 TLB 可容纳 {n} 个 4 KiB 页的地址转换（操作系统给出）：{reach}',
    "the core's TLB size is not told by the OS; many hold about {n} translations of 4 KiB pages ({reach})":
        '操作系统未给出该核心的 TLB 大小；常见的约可容纳 {n} 个 4 KiB 页的地址转换（{reach}）',
    'each step to a page whose translation is not in the TLB waits for a walk of the page tables (tens of cycles) before its data can come':
        '每次跨到地址转换不在 TLB 中的页，都要先遍历页表（数十个周期），数据才能到来',
    'put the arrays on huge pages (allocate them 2 MiB-aligned and madvise(MADV_HUGEPAGE), or use a huge-page allocator), or reorder or block the loops so that consecutive accesses stay within a page':
        '把数组放到大页上（按 2 MiB 对齐分配并调用 madvise(MADV_HUGEPAGE)，或使用大页分配器），或重排、分块循环，使相邻访问留在同一页内',
    'measured {m:.1f} cycles per iteration of the hot loop against {p:.1f} predicted for its instructions alone: the rest is waiting for memory':
        '热循环每次迭代实测 {m:.1f} 个周期，而仅按其指令预测为 {p:.1f}：其余时间在等待内存',
    'in its innermost loop over {var}, `{array}{index}` steps by {stride} elements at each iteration: every access touches another cache line':
        '在其关于 {var} 的最内层循环中，`{array}{index}` 每次迭代跨 {stride} 个元素：每次访问都触及另一个缓存行',
    'in its innermost loop over {var}, `{array}{index}` steps by a row at each iteration: every access touches another cache line':
        '在其关于 {var} 的最内层循环中，`{array}{index}` 每次迭代跨一行：每次访问都触及另一个缓存行',
    'not counted: cachegrind did not finish within {t:.0f} s at {size}':
        '未计数：cachegrind 在 {size} 下 {t:.0f} 秒内未完成',
    'a matrix product by its shapes and FLOP count; its traffic was not counted ({why})':
        '按其形状与 FLOP 数是一个矩阵乘积；其流量未被计数（{why}）',
    'the hot loop calls {names} one element at a time':
        '热循环逐元素调用 {names}',
    '{names} is computed by a library call per element: no instruction computes it, and the scalar call keeps the loop from vectorizing':
        '{names} 每个元素都通过一次库调用计算：没有指令能直接算出它，而标量调用使循环无法向量化',
    "let the compiler call a vector math library, which computes {lanes} elements per call (glibc's libmvec: gcc uses it under -ffast-math, or -fno-math-errno with #pragma omp simd and -fopenmp-simd), or use one directly (SLEEF)":
        '让编译器调用向量数学库，每次调用计算 {lanes} 个元素（glibc 的 libmvec：gcc 在 -ffast-math 下使用，或用 -fno-math-errno 配合 #pragma omp simd 与 -fopenmp-simd），或直接使用这样的库（SLEEF）',
    'a chain of dependent loads':
        '相互依赖的加载链',
    'the hot loop loads the next index or pointer from the one it just loaded ({n} such load(s) per iteration): each load waits for the previous one to arrive':
        '热循环从刚加载的值中加载下一个索引或指针（每次迭代 {n} 个这样的加载）：每次加载都要等待上一次加载返回',
    'the loop walks a chain of addresses one load at a time: it runs at the latency of the memory level holding the data, and out-of-order execution cannot start a load whose address is not known yet':
        '循环一次一个加载地沿着地址链前进：它以数据所在存储层级的延迟运行，乱序执行无法启动地址尚未可知的加载',
    'walk several independent chains at once (interleave a few lists or start points), lay the data out in the order it is visited (an array instead of a linked structure), or prefetch ahead where later addresses are known earlier':
        '同时遍历几条相互独立的链（交错几个链表或起点），按访问顺序布置数据（用数组代替链式结构），或在能提前知道后续地址时预取',
    "{ratio:.2f}x this machine's quiet figure (run {run}) while other processes used {cores:.2f} core(s) on the other vCPUs: the host may run two vCPUs on one physical core":
        '为本机安静时数值（运行 {run}）的 {ratio:.2f} 倍，其间其他进程在其他 vCPU 上占用了 {cores:.2f} 个核：宿主机可能把两个 vCPU 放在同一个物理核上运行',
    'the hot loop reads {n} element(s) per iteration at an address made from a value it loaded in the same iteration (x[idx[i]])':
        '热循环每次迭代有 {n} 个元素的地址由同一次迭代中加载的值算出（x[idx[i]]）',
    'measured {m:.1f} cycles per iteration where {tool} predicts {p:.1f} from the instructions alone: {w:.1f}x, the loop waits for its loads':
        '实测每次迭代 {m:.1f} 个周期，而 {tool} 仅按指令预测 {p:.1f} 个：{w:.1f} 倍，循环在等待它的加载',
    "each iteration tests its complex {ops} for a NaN result and may call {names} (C99's recovery of infinite results)":
        '每次迭代都检查其复数{ops}的结果是否为 NaN，并可能调用 {names}（C99 对无穷结果的恢复）',
    'complex {ops} as C99 defines it checks every result and calls a library routine when it is NaN: the branch and the call keep the loop scalar':
        '按 C99 定义的复数{ops}会检查每个结果，结果为 NaN 时调用库例程：这个分支和调用使循环保持标量',
    'build with -fcx-limited-range (the textbook formulas; -ffast-math implies it) where no input is infinite or NaN, or write the real and imaginary parts out':
        '在输入不含无穷或 NaN 时用 -fcx-limited-range 编译（教科书公式；-ffast-math 已包含它），或把实部和虚部分开写出',
    'a build with -fcx-limited-range':
        '用 -fcx-limited-range 的构建',
    'multiplication and division':
        '乘法和除法',
    'multiplication':
        '乘法',
    'division':
        '除法',
    '{tool} predicts {c:.1f} cycles per iteration, and {p:.1f} with the divisions made multiplications: the divider sets the pace':
        '{tool} 预测每次迭代 {c:.1f} 个周期，把除法换成乘法后为 {p:.1f} 个：除法器决定了节奏',
    'multiply by a reciprocal computed once outside the loop where the divisor does not change (x * (1.0f / 3) for x / 3; -freciprocal-math lets the compiler do it)':
        '在除数不变时，于循环外算一次倒数再相乘（x / 3 写成 x * (1.0f / 3)；-freciprocal-math 让编译器这样做）',
    'a build with -freciprocal-math':
        '用 -freciprocal-math 的构建',
    'the hot loop runs at the pace of its dependency chain ({m:.1f} cycles per iteration measured, {p:.1f} predicted in-core): reuse pays once the chain no longer sets the pace':
        '热循环以其依赖链的节奏运行（实测每次迭代 {m:.1f} 个周期，核内预测 {p:.1f} 个）：等依赖链不再决定节奏后，数据重用才有收益',
    'a build with -freciprocal-math and -fsingle-precision-constant':
        '用 -freciprocal-math 和 -fsingle-precision-constant 的构建',
    '{method}: L1 brought in {r:.1f}x the bytes the model counts':
        '{method}：L1 调入的字节数是模型所计的 {r:.1f} 倍',
    "{share} of its threads' time, sampled, was spent in the OpenMP runtime and the operating system (starting, scheduling and joining parallel regions, waiting at their barriers, waking each other), not in its own code":
        '采样显示其线程 {share} 的时间花在 OpenMP 运行时和操作系统里（启动、调度和汇合并行区域，在其屏障处等待，互相唤醒），而不在它自己的代码中',
    'run small sizes on one thread (an if clause: #pragma omp parallel for if(n > N)), give each region more work, or open the parallel region once outside an outer loop (#pragma omp parallel around it, #pragma omp for inside)':
        '小规模时用单线程运行（if 子句：#pragma omp parallel for if(n > N)），给每个并行区域更多工作，或在外层循环之外只打开一次并行区域（外面用 #pragma omp parallel，里面用 #pragma omp for）',
    'one call enters its parallel region {k} times (it is inside a loop): {t} per region on {n} threads, a few times what a fork-join of the team costs':
        '一次调用进入其并行区域 {k} 次（它位于循环之内）：在 {n} 个线程上每个区域 {t}，只是线程组一次 fork-join 开销的几倍',
    "alternated with this machine's BLAS GEMM (n={size}) on {t} thread(s): {r:.2f}x its FLOP rate, but the GEMM itself reached only {ref}, {share} of the {stored} stored for it (slowed meanwhile): no yardstick":
        '与本机的 BLAS GEMM（n={size}）在 {t} 个线程上交替运行：为其 FLOP 速率的 {r:.2f} 倍，但 GEMM 本身只达到 {ref}，是为它保存的 {stored} 的 {share}（其间被拖慢）：不能作为标尺',
    'its innermost loop also carries an in-order sum: interchanging the loops makes the sums independent, one per element of the new inner loop, and the walk contiguous':
        '它的最内层循环还承载着一个按顺序的求和：交换循环使这些和相互独立（新内层循环的每个元素一个），访问也变得连续',
    "{ratio:.2f}x this machine's typical figure (the median of {n} stored run(s): {runs}) at the best of {moments} moment(s), with its own signals clean: the host's other tenants were using this memory":
        '本机典型值（{n} 次保存运行的中位数：{runs}）的 {ratio:.2f} 倍，取 {moments} 个时刻中最好的一个，其自身信号干净：主机上的其他租户正在使用这部分内存',
    '{kernel}: its library calls {symbol}, which nothing it was linked with defines: add the library that has it to the spec\'s flags (e.g. "-lNAME")':
        '{kernel}：它的库调用了 {symbol}，但链接的库中没有定义它：请把含有它的库加入规格的 flags（例如 "-lNAME"）',
    '{kernel}: its library cannot be loaded: {error}':
        '{kernel}：它的库无法加载：{error}',
    'only {share} of {n} samples of its time fell in an innermost loop':
        '其 {n} 个时间采样中只有 {share} 落在最内层循环里',
    'the hot loop can stop early: {n} exit(s) that depend on the data, and it {width}':
        '热循环可能提前结束：有 {n} 个依赖数据的出口，并且它{width}',
    'a loop that stops on its data: the compiler vectorizes a loop only when its trip count is known as it starts, so this search tests one element at a time':
        '循环依数据而停止：编译器只在循环开始时已知迭代次数的情况下才向量化它，所以这个查找每次只检验一个元素',
    'test a vector of elements at once and find the first that ends the search, count instead of stopping where the data allow it (in a sorted table, the number of elements below the key), or search by halves':
        '一次检验一个向量的元素并找出第一个结束查找的元素；在数据允许时用计数代替提前停止（有序表中：小于键的元素个数）；或用二分查找',
    'in its innermost loop over {var}, each `{array}[{var}]` is a {record} of {rb} bytes, of which it uses {fields} ({ub} bytes): the rest of each line it brings in goes unused':
        '在其关于 {var} 的最内层循环中，每个 `{array}[{var}]` 是 {rb} 字节的 {record}，它只用到其中的 {fields}（{ub} 字节）：读入的每条缓存行其余部分都未被使用',
    'an array of records read for a few of their fields: every cache line brought in carries fields the loop does not use':
        '记录（结构体）数组只读取其中少数字段：读入的每条缓存行都带着循环不用的字段',
    'keep the fields this loop reads in arrays of their own (a structure of arrays), or split the record into the fields used together and the rest':
        '把此循环读取的字段各自放进独立的数组（数组的结构体），或把记录拆成一起使用的字段和其余字段',
    'counting the {r:.1f}x of its bytes it really moves, it already uses {frac} of the bandwidth of all {cpus} CPUs':
        '按它实际搬运的 {r:.1f} 倍字节计算，它已用掉全部 {cpus} 个 CPU 带宽的 {frac}',
}
