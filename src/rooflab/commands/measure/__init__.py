"""`rooflab measure`: the roofline of this machine's CPUs (:mod:`.cpu`) or of its NVIDIA GPU (:mod:`.gpu`,
``--device cuda``), sharing their tables (:mod:`.common`) and the model's plan, plateau and roof code."""

from rooflab.commands.measure.cpu import COMMAND as CPU
from rooflab.commands.measure.gpu import COMMAND as GPU

COMMANDS = (CPU, GPU)
