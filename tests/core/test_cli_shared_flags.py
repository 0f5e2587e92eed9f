"""Options and helpers several commands share (cli/_options, cli/_common): said alike."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def labelled(tmp_path):
    rng = np.random.default_rng(2)
    path = tmp_path / "in.csv"
    x = rng.normal(size=200)
    pd.DataFrame({"x": x, "z": rng.normal(size=200), "y": np.where(x > 0, "p", "n")}).to_csv(
        path, index=False
    )
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["tree", "train", "{data}", "--class", "nope", "--out", "{tmp}/m.json"],
        ["noise", "class", "{data}", "--class", "nope", "--out", "{tmp}/o.csv"],
        ["noise", "attributes", "{data}", "--class", "nope", "--out", "{tmp}/o.csv"],
    ],
)
def test_a_missing_class_column_is_named_alike(run_cli, tmp_path, labelled, command):
    args = [a.format(data=labelled, tmp=tmp_path) for a in command]
    code, _, err = run_cli(*args)
    assert code == 1
    assert (
        err == f"error: class column 'nope' is not in {str(labelled)!r}; columns: ['x', 'z', 'y']\n"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["in.csv"]


@pytest.mark.parametrize(
    "command",
    [
        ["tree", "predict", "{model}", "{data}", "--out", "{tmp}/o.txt"],
        ["noise", "class", "{data}", "--class", "y", "--out", "{tmp}/o.txt"],
        ["datasets", "export", "wisconsin", "--out", "{tmp}/o.txt"],
        ["bn", "sample", "{model}", "--n", "10", "--out", "{tmp}/o.txt"],
    ],
)
def test_a_bad_out_suffix_is_one_usage_line(run_cli, tmp_path, labelled, command):
    args = [a.format(data=labelled, tmp=tmp_path, model=labelled) for a in command]
    code, _, err = run_cli(*args)
    assert code == 2 and err.startswith("error: --out: ") and err.count("\n") == 1, err
    assert not (tmp_path / "o.txt").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sd-fraction", "inf"], "--sd-fraction must be a finite number > 0 (got inf)"),
        (["--sd-fraction", "-1"], "--sd-fraction must be > 0 (got -1.0)"),
        (["--max-targets", "0"], "--max-targets must be >= 1 (got 0)"),
    ],
)
def test_noise_numbers_are_checked_by_the_shared_validators(
    run_cli, tmp_path, labelled, args, message
):
    out = tmp_path / "o.csv"
    code, _, err = run_cli("noise", "attributes", labelled, "--class", "y", "--out", out, *args)
    assert code == 2 and err == f"error: {message}\n"
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gamma", "1"], "--gamma must be > 1 (got 1.0)"),
        (["--n", "50"], "--n must be >= 100 (got 50)"),
        (["--bins", "1"], "--bins (N) must be >= 2 (got 1)"),
    ],
)
def test_demo_flags(run_cli, args, message):
    code, _, err = run_cli("demo", *args)
    assert code == 2 and err.startswith(f"error: {message}")


def test_the_engine_exports_the_in_memory_api_once():
    import ppdm.engine
    from ppdm.engine import frames

    assert set(frames.__all__) <= set(ppdm.engine.__all__)
    assert len(set(ppdm.engine.__all__)) == len(ppdm.engine.__all__)
    for name in ppdm.engine.__all__:
        assert getattr(ppdm.engine, name) is not None


def _option_help(command: list[str], flag: str) -> str:
    import typer.main

    from ppdm.cli import app

    cmd = typer.main.get_command(app)
    for name in command:
        cmd = cmd.commands[name]
    param = next(p for p in cmd.params if flag in p.opts)
    return param.help


@pytest.mark.parametrize(
    ("commands", "flag"),
    [
        ([["perturb"], ["bn", "randomize"], ["noise", "class"], ["noise", "attributes"]], "--seed"),
        ([["reproduce"], ["bn", "reproduce"]], "--seed"),
        ([["reproduce"], ["bn", "reproduce"]], "--quick"),
        ([["reproduce"], ["bn", "reproduce"]], "--out"),
        ([["reproduce"], ["advise"]], "--jobs"),
        ([["reproduce"], ["advise"]], "--progress"),
        ([["perturb"], ["reconstruct"]], "--batch-size"),
        ([["estimate"], ["reconstruct"]], "--method"),
    ],
)
def test_a_flag_that_means_the_same_reads_the_same(commands, flag):
    texts = {_option_help(c, flag) for c in commands}
    assert len(texts) == 1, texts


@pytest.mark.parametrize(
    "command",
    [
        ["audit", "{tmp}", "--original", "{tmp}/o.csv", "--plot", ""],
        ["estimate", "{tmp}", "--plot", " "],
        ["reproduce", "fig3", "--out", ""],
        ["bn", "reproduce", "bn-table2", "--out", ""],
    ],
)
def test_an_empty_output_path_is_refused_before_any_work(run_cli, monkeypatch, tmp_path, command):
    monkeypatch.chdir(tmp_path)  # an empty path would mean "here"
    args = [a.format(tmp=tmp_path) for a in command]
    code, _, err = run_cli(*args)
    assert code == 2 and "is empty; name a file or directory to write" in err, err
    assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def _commands_with(flag: str) -> list[tuple[list[str], int]]:
    """Every command with ``flag``, and how many positional arguments it takes."""
    import typer.main

    from ppdm.cli import app

    found = []

    def walk(cmd, path, ctx):
        if hasattr(cmd, "list_commands"):  # a group (typer's own click)
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                walk(sub, [*path, name], sub.context_class(sub, parent=ctx, info_name=name))
        elif any(flag in p.opts for p in cmd.params):
            arguments = sum(p.param_type_name == "argument" for p in cmd.params)
            found.append((path, arguments))

    root = typer.main.get_command(app)
    walk(root, [], root.context_class(root, info_name="ppdm"))
    return found


def test_a_negative_seed_is_refused_before_any_work_by_every_command(
    run_cli, monkeypatch, tmp_path
):
    # checked when the flag is read: no warning, no file, one line naming --seed
    commands = _commands_with("--seed")
    names = [path for path, _ in commands]
    assert ["perturb"] in names and ["reconstruct"] in names and ["reproduce"] in names
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.csv").write_text("a,b\n1,2\n3,4\n")
    for command, arguments in commands:
        code, _, err = run_cli(*command, "--seed", "-1", *["t.csv"] * arguments)
        assert code == 2 and err == "error: --seed must be >= 0 (got -1)\n", (command, err)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"], command
