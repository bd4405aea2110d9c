"""Engine drift: what an adapter does when the engine it plugs into no longer has what it needs.

Each adapter lists the engine interfaces it relies on (:class:`Contract`) and checks them when it registers. When one
is missing, the adapter still registers the name ``longcat``, but to a stand-in whose construction raises
:class:`EngineDriftError` with a message naming both versions and what is missing. The engine then fails where it
builds the parser (vLLM: at start-up; SGLang: at start-up for the reasoning parser, per request for the tool-call
parser) instead of quietly serving ``longcat`` with its own built-in parser or a half-working one, and
``longcat-plugins doctor`` shows the same message. Outside the tested range with every contract in place, the
adapter's parsers are registered and a warning names the versions.

Engine-free: an adapter imports the engine classes and hands them in.
"""

from __future__ import annotations

import inspect
import logging
import pkgutil
from collections.abc import Callable, Iterable
from typing import Any, Final

import longcat_plugins
from longcat_plugins.contracts import Contract

from .model import EngineSpec
from .versions import InvalidVersion, satisfies

logger = logging.getLogger("longcat_plugins")

#: class attribute of a stand-in: the message its construction raises
STAND_IN_ATTRIBUTE: Final = "longcat_drift"

_logged: set[str] = set()


class EngineDriftError(RuntimeError):
    """The engine lacks an interface a longcat-plugins parser needs (raised when a stand-in is built)."""


def missing(contracts: Iterable[Contract]) -> list[str]:
    """What is wrong with each contract the engine does not fulfil (importing the modules they name)."""
    return [problem for contract in contracts if (problem := check(contract)) is not None]


def needed(contract: Contract, version: str) -> bool:
    """Whether the installed engine (``version``) must have ``contract``: an interface an older supported release does
    without (``since``) is not needed before that release."""
    if not contract.since:
        return True
    try:
        return not satisfies(version, f"<{contract.since}")
    except InvalidVersion:
        return True


def check(contract: Contract) -> str | None:
    """What is wrong with ``contract`` in the engine installed here (importing the modules it names), or ``None``.
    The first of its targets that resolves decides."""
    error: Exception | None = None
    for name in contract.targets:
        try:
            target = pkgutil.resolve_name(name)
        except Exception as exc:  # an engine module may raise anything while it imports
            error = error or exc
            continue
        absent = _absent_keywords(target, contract.keywords)
        if absent:
            return f"{contract.name} ({contract.purpose}) does not take {', '.join(absent)}"
        return None
    return f"{contract.name} ({contract.purpose}) is missing: {type(error).__name__}: {error}"


def _absent_keywords(target: Any, keywords: tuple[str, ...]) -> list[str]:
    if not keywords:
        return []
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return list(keywords)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return []
    return [k for k in keywords if k not in parameters]


def engine_version(engine: EngineSpec) -> str:
    return engine.installed_version() or "(version unknown)"


def tested(engine: EngineSpec, version: str) -> bool:
    try:
        return satisfies(version, engine.supported)
    except InvalidVersion:
        return False


def drift_message(engine: EngineSpec, flag: str, problems: Iterable[str]) -> str:
    version = engine_version(engine)
    return (
        f"{flag} longcat is unavailable: longcat-plugins {longcat_plugins.__version__} needs {engine.label} "
        f"interfaces that {engine.label} {version} lacks (tested with {engine.key}{engine.supported}): "
        + "; ".join(problems)
        + f". No other parser is used in its place. Fix: {engine.install_hint}, or a longcat-plugins release "
        f"that supports {engine.label} {version}; run `longcat-plugins doctor` to check."
    )


def untested_warning(engine: EngineSpec) -> str | None:
    """The warning for an engine outside the tested range whose contracts all hold; ``None`` inside the range."""
    version = engine_version(engine)
    if tested(engine, version):
        return None
    return (
        f"{engine.label} {version} is outside the range longcat-plugins {longcat_plugins.__version__} is tested "
        f"with ({engine.key}{engine.supported}); the {engine.label} interfaces it uses are present, so its "
        f"'longcat' parsers are registered. Run `longcat-plugins doctor` to check them against this {engine.label}."
    )


def stand_in(base: type, message: str, **attributes: Any) -> type:
    """A subclass of the engine's parser base class whose construction raises ``EngineDriftError(message)``."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise EngineDriftError(message)

    namespace: dict[str, Any] = {
        "__init__": __init__,
        "__module__": __name__,
        "__doc__": f"Stands in for longcat-plugins' parser: {message}",
        STAND_IN_ATTRIBUTE: message,
        **attributes,
    }
    cls = type(f"Unavailable{base.__name__}", (base,), namespace)
    cls.__abstractmethods__ = frozenset()  # type: ignore[attr-defined]  # constructible even if the base is abstract
    return cls


def stand_in_message(cls: Any) -> str | None:
    """The message of a stand-in class, ``None`` for any other class."""
    message = getattr(cls, STAND_IN_ATTRIBUTE, None)
    return message if isinstance(message, str) else None


def parser_or_stand_in(
    engine: EngineSpec,
    flag: str,
    contracts: Iterable[Contract],
    load: Callable[[], type],
    base: Callable[[], type],
    **stand_in_attributes: Any,
) -> type:
    """``load()`` (the adapter's parser class) when every contract holds and it imports, else a stand-in (logged)."""
    version = engine_version(engine)
    problems = missing(c for c in contracts if needed(c, version))
    if not problems:
        try:
            return load()
        except Exception as exc:  # an engine name the adapter imports has moved
            problems.append(f"the adapter does not import ({type(exc).__name__}: {exc})")
    return broken(engine, flag, problems, base, **stand_in_attributes)


def broken(
    engine: EngineSpec, flag: str, problems: Iterable[str], base: Callable[[], type], **stand_in_attributes: Any
) -> type:
    """The stand-in for ``flag``, its message logged as an error (once per process: engines register twice)."""
    message = drift_message(engine, flag, problems)
    log_once(logging.ERROR, message)
    try:
        base_cls = base()
    except Exception:  # the engine's base class itself moved: the stand-in still raises the message
        base_cls = object
    return stand_in(base_cls, message, **stand_in_attributes)


def log_once(level: int, message: str) -> None:
    if message not in _logged:
        _logged.add(message)
        logger.log(level, "%s", message)
