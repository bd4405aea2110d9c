"""One row per engine interface the package relies on (:mod:`longcat_plugins.contracts`), against the engine here."""

from __future__ import annotations

from longcat_plugins.contracts import GROUPS, Contract

from .drift import check, engine_version, needed
from .model import Check, EngineSpec, Status

_CONSEQUENCE = {
    "required": (Status.FAIL, "'longcat' is registered to a stand-in that refuses to start"),
    "structural": (Status.FAIL, "tool_choice='required' and named tools fail"),
    "optional": (Status.WARN, "the adapter works without it"),
    "replay": (Status.WARN, "`longcat-plugins serve --replay` will not start"),
    "response templates": (Status.WARN, "the engine's own parsers cannot serve the shipped response templates"),
}


def contract_checks(engine: EngineSpec) -> list[Check]:
    """Whether each contract holds in the installed engine, and the releases it was checked on."""
    version = engine_version(engine)
    checks = []
    for group, contracts, kind in GROUPS[engine.key]:
        for contract in contracts:
            checks.append(_row(engine, version, group, kind, contract))
    return checks


def _row(engine: EngineSpec, version: str, group: str, kind: str, contract: Contract) -> Check:
    problem = check(contract)
    checked = ", ".join(contract.checked_on)
    if problem is not None and not needed(contract, version):
        return Check(
            engine.key,
            "contract",
            Status.OK,
            f"{_short(contract.target)} ({group}): not needed before {contract.since}",
        )
    if problem is not None:
        status, consequence = _CONSEQUENCE[kind]
        detail = f"{problem} ({group}); {consequence}. Checked on {engine.label} {checked}"
        return Check(engine.key, "contract", status, detail, engine.install_hint)
    detail = f"{_short(contract.target)} ({group}): checked on {checked}"
    if version not in contract.checked_on:
        detail += f", present in {version}"
    if contract.upstream:
        detail += f"; {engine.label}'s main branch moves it to {contract.upstream}"
    return Check(engine.key, "contract", Status.OK, detail)


def _short(target: str) -> str:
    """``module:Class.attribute`` -> ``Class.attribute``; ``module:function`` -> ``module.function``'s last two."""
    module, _, attribute = target.partition(":")
    if "." in attribute:
        return attribute
    return f"{module.rsplit('.', 1)[-1]}.{attribute}"
