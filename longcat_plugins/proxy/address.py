"""The upstream's address: what ``--upstream`` may be, and where each of the proxy's routes goes there.

The proxy serves the OpenAI API at its own ``/v1``; the upstream has it at its base URL, the one an OpenAI client
would be given: ``http://host:8000/v1``, ``https://api.deepinfra.com/v1/openai``, ``https://api.novita.ai/v3/openai``,
a gateway's prefix. ``/v1/PATH`` goes to ``BASE/PATH``. A URL without a path is a server's root, whose API is at
``/v1`` (vLLM, SGLang, llama.cpp, Ollama). A route outside ``/v1`` (``/health``, ``/metrics``) goes to the server's
root, known when the base ends in ``/v1`` (the base without it); a base that does not has no such routes.

Credentials in the URL are refused: clients send their own API key, which the proxy passes on as they sent it. A URL
is shown (messages, logs) with its credentials masked (:func:`redact`).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

#: the proxy's OpenAI API prefix
API_PREFIX = "/v1"


class AddressError(ValueError):
    """``--upstream`` is not an address the proxy can use (the message shows the URL redacted)."""


@dataclass(frozen=True)
class UpstreamAddress:
    #: the upstream's OpenAI base URL, without a trailing slash
    base: str
    #: the upstream server's root, when the base says where it is (it ends in ``/v1``)
    root: str | None

    def target(self, raw_path_qs: str) -> str | None:
        """The upstream URL of one of the proxy's routes (its raw path and query), or None: not served."""
        path = raw_path_qs.partition("?")[0]
        if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
            return self.base + raw_path_qs[len(API_PREFIX) :]
        return None if self.root is None else self.root + raw_path_qs


def parse_upstream(url: str) -> UpstreamAddress:
    """``--upstream URL`` read, or an :class:`AddressError`."""
    shown = redact(url)
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises for a port that is not a number
    except ValueError:
        raise AddressError(f"{shown}: not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressError(f"{shown}: expected an http:// or https:// URL")
    if parts.query or parts.fragment:
        raise AddressError(f"{shown}: expected a base URL, without a query or fragment")
    if "@" in parts.netloc:
        raise AddressError(
            f"{shown}: credentials in the URL are not accepted (every client of the proxy would reach the upstream "
            "with them, and a command line is readable by any user of the machine): clients send their own API key "
            "(Authorization), which the proxy passes on as sent; for a gateway behind basic auth, the clients send "
            "Authorization: Basic ... themselves"
        )
    base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") or API_PREFIX, "", ""))
    return UpstreamAddress(base, base.removesuffix(API_PREFIX) if base.endswith(API_PREFIX) else None)


def redact(url: str) -> str:
    """``url`` with the password of its user information masked (``http://user:***@host/v1``; a user name alone,
    often a token, is masked too: ``http://***@host``), whether or not it is otherwise valid."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        scheme, rest = "", url
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    userinfo, at, host = rest[:end].rpartition("@")
    if not at:
        return url
    user, colon, _ = userinfo.partition(":")
    return f"{scheme}{separator}{f'{user}:***' if colon else '***'}@{host}{rest[end:]}"
