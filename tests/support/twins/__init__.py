"""Test bodies the vLLM and SGLang suites both run: each engine's test file imports them (pytest collects an
imported ``test_*`` function in the importing module, with that module's marks and fixtures) and provides the
fixtures they name for its engine."""
