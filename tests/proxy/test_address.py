"""``--upstream`` read: the upstream's base URL, where each of the proxy's routes goes, and a URL shown without its
credentials."""

from __future__ import annotations

import pytest

from longcat_plugins.proxy.address import AddressError, UpstreamAddress, parse_upstream, redact


@pytest.mark.parametrize(
    ("url", "base", "root"),
    [
        ("http://h:8000", "http://h:8000/v1", "http://h:8000"),
        ("http://h:8000/", "http://h:8000/v1", "http://h:8000"),
        ("http://h:8000/v1/", "http://h:8000/v1", "http://h:8000"),
        ("https://gw/team/llm/v1", "https://gw/team/llm/v1", "https://gw/team/llm"),
        ("https://api.novita.ai/v3/openai", "https://api.novita.ai/v3/openai", None),
        ("https://api.deepinfra.com/v1/openai/", "https://api.deepinfra.com/v1/openai", None),
        ("http://[::1]:8000", "http://[::1]:8000/v1", "http://[::1]:8000"),
    ],
)
def test_base_and_root(url: str, base: str, root: str | None) -> None:
    assert parse_upstream(url) == UpstreamAddress(base, root)


@pytest.mark.parametrize(
    ("path_qs", "expected"),
    [
        ("/v1/chat/completions", "https://h/v3/openai/chat/completions"),
        ("/v1", "https://h/v3/openai"),
        ("/v1?x=1", "https://h/v3/openai?x=1"),
        ("/v1/models?after=a%20b", "https://h/v3/openai/models?after=a%20b"),
        ("/v10/models", None),
        ("/health", None),
    ],
)
def test_targets_of_a_base_without_v1(path_qs: str, expected: str | None) -> None:
    assert parse_upstream("https://h/v3/openai").target(path_qs) == expected


def test_targets_of_a_base_with_v1() -> None:
    address = parse_upstream("http://h:8000/v1")
    assert address.target("/v1/chat/completions") == "http://h:8000/v1/chat/completions"
    assert address.target("/health?x=1") == "http://h:8000/health?x=1"
    assert address.target("/v10/models") == "http://h:8000/v10/models"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("127.0.0.1:8000", "expected an http:// or https:// URL"),
        ("ftp://h/v1", "expected an http:// or https:// URL"),
        ("http:///v1", "expected an http:// or https:// URL"),
        ("http://h:port/v1", "not a valid URL"),
        ("http://h/v1?key=1", "without a query or fragment"),
        ("http://h/v1#x", "without a query or fragment"),
        ("http://user:pw@h/v1", "credentials in the URL are not accepted"),
        ("http://token@h/v1", "credentials in the URL are not accepted"),
    ],
)
def test_what_is_refused(url: str, message: str) -> None:
    with pytest.raises(AddressError, match=message) as refused:
        parse_upstream(url)
    assert "pw" not in str(refused.value) and "token" not in str(refused.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:pw@host/v1", "http://user:***@host/v1"),
        ("http://user:p@ss:w@host:8000/v1?x=@", "http://user:***@host:8000/v1?x=@"),
        ("https://tok3n@host", "https://***@host"),
        ("user:pw@host:8000", "user:***@host:8000"),
        ("http://host/v1/a@b", "http://host/v1/a@b"),
        ("http://host:8000/v1", "http://host:8000/v1"),
    ],
)
def test_redact(url: str, shown: str) -> None:
    assert redact(url) == shown
