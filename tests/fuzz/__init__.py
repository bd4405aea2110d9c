"""A fuzzing harness for the engine-free core: generated model outputs in every dialect the parser reads (the
registered ones and, as in the tests, the test-only ones of ``tests/extra_dialects.py``, switched on here before the
package is imported unless ``LONGCAT_EXTRA_DIALECTS`` is set), mutated and as markup soup, checked against the
invariants of the design (streaming equals whole, strict JSON arguments, nothing lost, order), plus a scaling mode
for adversarial patterns. Run it with ``python -m tests.fuzz --help`` or ``scripts/fuzz.sh``.
"""

from tests.extra_dialects import switch_on

switch_on()
