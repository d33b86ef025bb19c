"""The labs: each module measures one effect and declares itself as ``LAB`` (a :class:`rooflab.contract.Command`
of the ``lab`` group). The registry finds them here; a new lab is one module (and its test). Labs import neither
other labs nor the renderers."""
