"""The commands (measure, bench, compare, profile, info, history, show, report): each module declares ``COMMAND``
(or ``COMMANDS``), a :class:`rooflab.contract.Command`. The registry finds them here."""
