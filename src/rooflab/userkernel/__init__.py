"""User kernels: spec files, prototypes, safe expressions and the generated timing wrapper."""
