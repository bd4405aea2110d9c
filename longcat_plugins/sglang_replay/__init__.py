"""The replay server on SGLang: SGLang's own HTTP server with its scheduler replaced by a recording.

``longcat-plugins serve --replay FILE --engine sglang``. Imports SGLang only inside its modules' functions.
"""

from __future__ import annotations
