"""The parser reads the test-only dialects besides the registry's (``tests/extra_dialects.py``): set before the
package is imported, and inherited by the servers the tests start."""

from __future__ import annotations

from tests.extra_dialects import switch_on

switch_on()
