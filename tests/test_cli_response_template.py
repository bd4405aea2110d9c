"""``longcat-plugins response-template`` as a user runs it, what it writes read back by transformers' own loader, and
the doctor's rows about a model's response template."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from longcat_plugins import response_templates as R
from longcat_plugins import templates
from longcat_plugins.cli import main
from longcat_plugins.doctor import Status, run_checks
from longcat_plugins.doctor import runner as doctor_runner
from longcat_plugins.doctor.env_checks import RUST_FRONTEND_GUIDE, VARIABLES, rust_frontend_check
from longcat_plugins.doctor.model import VLLM
from longcat_plugins.response_templates.install import BACKUP, MARKER
from tests.cli_support import Result, run_cli
from tests.support.model_dir import save_model_dir, save_qwen3_dir

transformers = pytest.importorskip("transformers")
from longcat_plugins.replay.tokenizer import train_bpe_tokenizer  # noqa: E402

QWEN_TAGS = ["<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>"]
LONGCAT_TAGS = ["</longcat_s>", "<longcat_tool_call>", "</longcat_tool_call>", "<longcat_think>", "</longcat_think>"]
KV_TAGS = [*LONGCAT_TAGS, "<longcat_arg_key>", "</longcat_arg_key>", "<longcat_arg_value>", "</longcat_arg_value>"]
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
WEIGHTS = "model.safetensors"
#: model directories, by what they are, and the template that fits each (None: none fits alone)
MODELS: dict[str, tuple[list[str], str | None, str, str | None]] = {
    "qwen3": (QWEN_TAGS, templates.load("qwen3-tools-first"), "qwen3", "qwen3-tools-first"),
    "qwen3-coder": (QWEN_TAGS, templates.load("xml-function-thinking"), "qwen3", "xml-function-thinking"),
    "longcat-flash-chat": (LONGCAT_TAGS, templates.load("longcat-flash-chat"), "longcat_flash", "longcat-json"),
    "longcat-flash-thinking": (KV_TAGS, templates.load("longcat-flash-chat"), "longcat_flash", "longcat-kv"),
    # no chat template: vLLM falls back to the one registered for the model type
    "longcat-no-template": (LONGCAT_TAGS, None, "longcat_flash", "longcat-json"),
    # a ChatML model with no tool-call tag anywhere
    "chatml-no-tools": (["<|im_start|>", "<|im_end|>"], CHATML, "qwen3", None),
    # LongCat's call block in a ChatML model: the json dialect, whose template anchors LongCat's turn
    "chatml-longcat-calls": (["<|im_start|>", "<|im_end|>", "<longcat_tool_call>"], CHATML, "qwen3", None),
}


def _save(root: Path, what: str) -> Path:
    tags, chat_template, model_type, _ = MODELS[what]
    corpus = ["[Round 0] USER:hello ASSISTANT:", "<|im_start|>user\nhello<|im_end|>\n"] * 5
    tokenizer = train_bpe_tokenizer(
        corpus,
        ["<s>", "</s>", *tags],
        vocab_size=300,
        eos_token="</s>",
        additional_special_tokens=tags,
        chat_template=chat_template,
    )
    if model_type == "qwen3":
        save_qwen3_dir(root, tokenizer)
    else:
        save_model_dir(root, tokenizer, model_type, "LongcatFlashForCausalLM", vocab_size=300, num_layers=1)
    (root / WEIGHTS).write_bytes(b"\0" * 64)  # never copied, never read
    return root


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {what: _save(tmp_path_factory.mktemp(what), what) for what in MODELS}


@pytest.fixture
def model(saved: dict[str, Path], tmp_path: Path) -> Path:
    """A copy of the Qwen3 model directory, for a test to change."""
    return Path(shutil.copytree(saved["qwen3"], tmp_path / "model"))


def _hashes(directory: Path) -> dict[str, str]:
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _config(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "tokenizer_config.json").read_text(encoding="utf-8"))
    return data


def _error(result: Result) -> str:
    assert result.status == 2 and result.out == "", result
    assert len(result.err_lines) == 1 and result.err.startswith("longcat-plugins response-template: error: "), result
    return result.err


# -- printing -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", R.names())
def test_a_name_prints_the_template_as_json_and_nothing_else(name: str) -> None:
    result = run_cli("response-template", name)
    assert (result.status, result.err) == (0, "")
    assert json.loads(result.out) == R.load(name)


def test_list_names_each_template_with_its_dialect_and_title() -> None:
    result = run_cli("response-template", "--list")
    assert result.status == 0
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert rows == [[n, R.spec(n).dialect, R.spec(n).title] for n in R.names()]


def test_a_wrong_name_is_an_error_naming_the_templates() -> None:
    err = _error(run_cli("response-template", "longcat-jsn"))
    assert "unknown response template 'longcat-jsn'" in err
    assert all(name in err for name in R.names())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give a template name"),
        (["--list", "longcat-json"], "--list takes no template name"),
        (["--write-tokenizer", "out"], "needs --model DIR"),
        (["longcat-json", "--model", "m"], "--model goes with --write-tokenizer"),
        (["--in-place", "a", "--for-model", "b"], "do not go together"),
        (["--for-model", "/nonexistent/model"], "/nonexistent/model: no such directory"),
    ],
)
def test_a_mistake_is_one_line(args: list[str], message: str) -> None:
    assert message in _error(run_cli("response-template", *args))


# -- the template that fits a model ---------------------------------------------------------------------------


@pytest.mark.parametrize("what", [w for w, m in MODELS.items() if m[3] is not None])
def test_for_model_prints_the_template_of_the_models_dialect(saved: dict[str, Path], what: str) -> None:
    result = run_cli("response-template", "--for-model", str(saved[what]))
    assert result.status == 0, result.err
    assert json.loads(result.out) == R.load(MODELS[what][3] or "")


def test_a_model_with_no_dialect_is_an_error_naming_the_templates_that_fit(saved: dict[str, Path]) -> None:
    err = _error(run_cli("response-template", "--for-model", str(saved["chatml-no-tools"])))
    assert "no sign of a tool-call dialect" in err
    assert "fit: qwen3-tools-first, xml-function-thinking; name one" in err


def test_a_dialect_whose_template_does_not_fit_the_turn_is_an_error(saved: dict[str, Path]) -> None:
    err = _error(run_cli("response-template", "--for-model", str(saved["chatml-longcat-calls"])))
    assert "writes the json dialect (LongCat JSON), but that dialect's template (longcat-json) does not fit" in err
    assert err.rstrip().endswith("templates that fit the model: qwen3-tools-first, xml-function-thinking")


# -- a tokenizer directory of its own -------------------------------------------------------------------------


def test_write_tokenizer_copies_the_tokenizer_with_the_template(saved: dict[str, Path], tmp_path: Path) -> None:
    source = saved["longcat-flash-thinking"]
    before = _hashes(source)
    out = tmp_path / "tokenizer"
    first = run_cli("response-template", "--write-tokenizer", str(out), "--model", str(source))
    assert first.status == 0, first.err
    assert f"wrote {out}: the tokenizer of {source} with the response template longcat-kv (kv dialect)" in first.out
    assert f"--tokenizer {out} --tool-call-parser hf --reasoning-parser hf" in first.out
    assert _hashes(source) == before  # the model directory is only read

    written = _hashes(out)
    assert sorted(written) == sorted([MARKER, *(set(before) - {WEIGHTS})])
    for name in set(written) - {MARKER, "tokenizer_config.json"}:
        assert written[name] == before[name], name
    config, original = _config(out), _config(source)
    assert config == {**original, "response_template": R.load("longcat-kv")}
    assert list(config) == [*original, "response_template"]

    again = run_cli("response-template", "--write-tokenizer", str(out), "--model", str(source))
    assert again.status == 0 and "is up to date" in again.out and "nothing changed" in again.out
    assert _hashes(out) == written and _hashes(source) == before


@pytest.mark.parametrize("what", [w for w, m in MODELS.items() if m[3] is not None])
def test_transformers_loads_the_written_tokenizer(saved: dict[str, Path], tmp_path: Path, what: str) -> None:
    out = tmp_path / "tokenizer"
    assert run_cli("response-template", "--write-tokenizer", str(out), "--model", str(saved[what])).status == 0
    loaded = transformers.AutoTokenizer.from_pretrained(out)
    original = transformers.AutoTokenizer.from_pretrained(saved[what])
    assert loaded.response_template == R.load(MODELS[what][3] or "")
    assert getattr(original, "response_template", None) is None
    assert type(loaded) is type(original)
    assert loaded.get_vocab() == original.get_vocab() and loaded.chat_template == original.chat_template


def test_a_named_template_wins_over_the_detected_one(model: Path, tmp_path: Path) -> None:
    out = tmp_path / "tokenizer"
    result = run_cli("response-template", "xml-function-thinking", "--write-tokenizer", str(out), "--model", str(model))
    assert result.status == 0, result.err
    assert _config(out)["response_template"] == R.load("xml-function-thinking")


def test_write_tokenizer_refuses_the_model_directory_and_a_directory_it_did_not_write(
    model: Path, tmp_path: Path
) -> None:
    before = _hashes(model)
    err = _error(run_cli("response-template", "--write-tokenizer", str(model), "--model", str(model)))
    assert "is the model directory" in err and "--in-place" in err
    foreign = tmp_path / "other"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")
    err = _error(run_cli("response-template", "--write-tokenizer", str(foreign), "--model", str(model)))
    assert "not empty, and not a tokenizer directory written by this command" in err
    assert _hashes(model) == before and _hashes(foreign) == {"notes.txt": _hashes(foreign)["notes.txt"]}


def test_a_directory_it_wrote_follows_the_model(model: Path, tmp_path: Path) -> None:
    """Run again after the model changed, OUT is what a first run would write: a file gone from the model is gone."""
    out = tmp_path / "tokenizer"
    assert run_cli("response-template", "--write-tokenizer", str(out), "--model", str(model)).status == 0
    (model / "chat_template.jinja").unlink()
    (model / "special_tokens_map.json").write_text('{"eos_token": "</s>"}', encoding="utf-8")
    assert run_cli("response-template", "--write-tokenizer", str(out), "--model", str(model)).status == 0
    fresh = tmp_path / "fresh"
    assert run_cli("response-template", "--write-tokenizer", str(fresh), "--model", str(model)).status == 0
    assert _hashes(out) == _hashes(fresh)
    assert "chat_template.jinja" not in _hashes(out)


# -- in place -------------------------------------------------------------------------------------------------


def test_in_place_sets_the_template_after_one_backup(model: Path) -> None:
    original = (model / "tokenizer_config.json").read_bytes()
    others = {k: v for k, v in _hashes(model).items() if k != "tokenizer_config.json"}
    keys = list(_config(model))

    first = run_cli("response-template", "--in-place", str(model))
    assert first.status == 0, first.err
    assert "set the response template qwen3-tools-first (hermes dialect)" in first.out and BACKUP in first.out
    assert (model / BACKUP).read_bytes() == original
    config = _config(model)
    assert list(config) == [*keys, "response_template"]
    assert config == {**json.loads(original), "response_template": R.load("qwen3-tools-first")}
    after_first = _hashes(model)

    again = run_cli("response-template", "--in-place", str(model))
    assert again.status == 0 and "already carries the response template qwen3-tools-first" in again.out
    assert "nothing changed" in again.out and _hashes(model) == after_first

    # another template replaces it in its place; the backup stays the original
    other = run_cli("response-template", "longcat-kv", "--in-place", str(model))
    assert other.status == 0 and f"{BACKUP} kept as it was" in other.out
    assert (model / BACKUP).read_bytes() == original
    assert list(_config(model)) == [*keys, "response_template"]
    assert {k: v for k, v in _hashes(model).items() if k not in ("tokenizer_config.json", BACKUP)} == others

    loaded = transformers.AutoTokenizer.from_pretrained(model)
    assert loaded.response_template == R.load("longcat-kv")


def test_in_place_keeps_the_place_of_an_existing_template(model: Path) -> None:
    config = {"response_template": {"old": True}, **_config(model)}
    (model / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    assert run_cli("response-template", "--in-place", str(model)).status == 0
    assert list(_config(model)) == list(config)
    assert transformers.AutoTokenizer.from_pretrained(model).response_template == R.load("qwen3-tools-first")


def test_in_place_needs_a_tokenizer_config(tmp_path: Path) -> None:
    err = _error(run_cli("response-template", "longcat-json", "--in-place", str(tmp_path)))
    assert "no tokenizer_config.json" in err
    assert list(tmp_path.iterdir()) == []


# -- the doctor -----------------------------------------------------------------------------------------------


def _model_row(capsys: pytest.CaptureFixture[str], directory: Path) -> tuple[int, dict[str, str]]:
    code = main(["doctor", "--quick", "--json", "--model", str(directory)])
    report = json.loads(capsys.readouterr().out)
    rows = [c for c in report["checks"] if c["section"] == "model"]
    assert [r["check"] for r in rows] == ["response template"]
    return code, rows[0]


def test_doctor_without_a_template_says_which_one_to_add(capsys: pytest.CaptureFixture[str], model: Path) -> None:
    code, row = _model_row(capsys, model)
    assert code == 0 and row["status"] == "note" and "has no response_template" in row["detail"]
    assert row["fix"] == f"longcat-plugins response-template --in-place {model}  (adds qwen3-tools-first)"


def test_doctor_names_the_template_a_model_carries(capsys: pytest.CaptureFixture[str], model: Path) -> None:
    assert run_cli("response-template", "--in-place", str(model)).status == 0
    code, row = _model_row(capsys, model)
    assert code == 0 and row["status"] == "ok"
    described = "qwen3-tools-first (hermes dialect: Hermes / Qwen JSON calls (Qwen3))"
    assert row["detail"] == f"{model / 'tokenizer_config.json'} carries {described}"


def test_doctor_warns_of_a_template_of_another_dialect(capsys: pytest.CaptureFixture[str], model: Path) -> None:
    assert run_cli("response-template", "longcat-json", "--in-place", str(model)).status == 0
    code, row = _model_row(capsys, model)
    assert code == 0 and row["status"] == "warn"
    assert "carries longcat-json (json dialect" in row["detail"] and "writes the hermes dialect" in row["detail"]
    assert row["fix"].endswith("(replaces it with qwen3-tools-first)")


@pytest.mark.parametrize("loads", [True, False])
def test_doctor_loads_another_template_with_transformers(
    capsys: pytest.CaptureFixture[str], model: Path, loads: bool
) -> None:
    other = {**R.load("qwen3-tools-first"), "start_anchor": "<|im_start|>assistant"}
    if not loads:
        other["fields"] = {"content": {"content": "no-such-content-type"}}
    (model / "tokenizer_config.json").write_text(
        json.dumps({**_config(model), "response_template": other}), encoding="utf-8"
    )
    code, row = _model_row(capsys, model)
    assert code == 0
    assert "carries a response template that is none of longcat-plugins'" in row["detail"]
    if loads:
        assert row["status"] == "ok" and "it loads under transformers' load_response_template" in row["detail"]
    else:
        assert row["status"] == "warn" and "load_response_template refuses it" in row["detail"]


def test_doctor_fails_a_model_directory_that_is_not_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, row = _model_row(capsys, tmp_path / "missing")
    assert code == 1 and row["status"] == "FAIL" and "no such directory" in row["detail"]
    code, row = _model_row(capsys, tmp_path)
    assert code == 1 and row["status"] == "FAIL" and "no tokenizer_config.json" in row["detail"]


def test_the_rust_frontend_row_points_to_response_templates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_USE_RUST_FRONTEND", "1")
    check = rust_frontend_check()
    assert check.status is Status.FAIL
    assert check.fix.startswith("export VLLM_USE_RUST_FRONTEND=0 (or unset it)")
    assert "longcat-plugins response-template --in-place MODEL_DIR" in check.fix
    assert "--tool-call-parser hf --reasoning-parser hf" in check.fix
    assert check.fix.endswith(RUST_FRONTEND_GUIDE)
    assert RUST_FRONTEND_GUIDE == "deployment_guide.md#serving-longcat-under-vllms-rust-frontend"


def test_the_rust_frontend_with_a_model_that_carries_a_template_is_a_warning(
    monkeypatch: pytest.MonkeyPatch, model: Path
) -> None:
    """With ``--model`` naming a model that carries one of the templates, the Rust frontend can serve it with the
    ``hf`` parsers: a warning (the template reads less than the longcat parsers), not a failure."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VLLM_USE_RUST_FRONTEND", "1")
    monkeypatch.setattr(doctor_runner, "installed_version", lambda e: "0.33.0")

    def frontend() -> Any:
        checks = run_checks([VLLM], probe=False, model=model)
        return next(c for c in checks if c.section == "vllm" and c.name == "frontend")

    assert frontend().status is Status.FAIL
    assert run_cli("response-template", "--in-place", str(model)).status == 0
    row = frontend()
    assert row.status is Status.WARN
    assert "carries the response template qwen3-tools-first" in row.detail
    assert RUST_FRONTEND_GUIDE in row.fix
