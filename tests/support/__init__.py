"""What the test suites share: tool fixtures, a strict JSON reader, the fold of an event stream, server lifecycle,
and the test bodies the vLLM and SGLang suites both run."""
