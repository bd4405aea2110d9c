"""A fuzzing harness for the engine-free core: generated model outputs in every dialect, mutated and as markup soup,
checked against the invariants of the design (streaming equals whole, strict JSON arguments, nothing lost, order),
plus a scaling mode for adversarial patterns. Run it with ``python -m tests.fuzz --help`` or ``scripts/fuzz.sh``.
"""
