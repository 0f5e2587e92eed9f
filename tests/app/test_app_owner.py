"""The owner's page in a real headless Chromium: from an upload to a release zip."""

from __future__ import annotations

import math
import zipfile

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from ppdm.attacks import linkage_report
from ppdm.cli import app as cli
from ppdm.pipeline import estimate_release, load_release


def _privacy_row(page, name: str) -> dict[str, str]:
    table = page.locator("#attrs-o_privacy table")
    head = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    for row in table.locator("tbody tr").all():
        cells = [c.strip() for c in row.locator("td").all_inner_texts()]
        if cells and cells[0] == name:
            return dict(zip(head, cells))
    raise AssertionError(f"no row {name!r} in the privacy table")


def _settled_rows(page, *names: str) -> list[dict[str, str]]:
    """The privacy table's rows of ``names``, read again until two readings agree (the
    table may be re-rendered while it is read on a busy machine)."""
    import time

    last = None
    for _ in range(50):
        try:
            rows = [_privacy_row(page, n) for n in names]
        except Exception:  # the table was being replaced
            rows = None
        if rows is not None and rows == last:
            return rows
        last = rows
        time.sleep(0.2)
    raise AssertionError(f"the privacy table did not settle: {last}")


def _set_until(page, selector: str, value: str, done) -> list[dict[str, str]]:
    """Fill ``selector`` with ``value`` until ``done(age_row, salary_row)`` holds for the
    privacy table (read until it settles); the rows then. A control rendered a moment
    before its binding may miss a value on a busy machine: it is typed again."""
    import time

    rows = None
    for _ in range(4):
        page.fill(selector, value)
        page.locator(selector).blur()
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            rows = _settled_rows(page, "age", "salary")
            if done(*rows):
                return rows
            time.sleep(0.3)
    raise AssertionError(f"after {selector} = {value!r} the privacy table shows {rows}")


def test_owner_flow_matches_cli_release(page, tables, tmp_path, shot):
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    assert "600 records" in page.inner_text("#o_msg")
    assert page.input_value("#data-o_class") == "group"
    page.wait_for_selector("#attrs-perturb_4", state="detached")  # the class has no controls
    # live figures: default gamma 9, bounds from the data flagged
    row = _privacy_row(page, "age")
    assert row["epsilon"] == f"{math.log(9):.3f}" and "FROM DATA" in row["bounds"]
    # the owner's bounds and a gamma of 19 move the figures at once
    page.fill("#attrs-bounds_0", "20:80")
    page.fill("#attrs-o_gamma", "19")
    page.locator("#attrs-o_gamma").blur()
    page.wait_for_function("document.querySelector('#attrs-o_privacy').innerText.includes('2.944')")
    row = _privacy_row(page, "age")
    assert row["bounds"] == "yours" and row["N"] == "20"
    assert row["rho2 at rho1=0.1"] == f"{19 * 0.1 / (0.9 + 19 * 0.1):.3f}"
    # a rho1 -> rho2 target instead of gamma: 0.1 -> 0.5 is gamma 9
    page.check("input[name='attrs-o_gmode'][value='rho']")
    page.wait_for_function("document.querySelector('#attrs-o_privacy').innerText.includes('2.197')")
    page.check("input[name='attrs-o_gmode'][value='gamma']")
    page.wait_for_function("document.querySelector('#attrs-o_privacy').innerText.includes('2.944')")
    keys = ["age", "salary", "elevel"]
    for k in keys:
        page.check(f"#data-o_keys input[value='{k}']")
    page.check("#release-o_experiment")
    page.fill("#release-o_seed", "7")
    shot(page, "owner-data")
    shot(page, "owner-attributes", "#attrs-o_attrs")
    # nothing is written before the owner asks
    assert "Nothing is written" in page.inner_text("#release-o_release_info")
    page.click("#release-o_make")
    page.wait_for_selector("#o_report")
    kanon, linkage = page.inner_text("#o_kanon"), page.inner_text("#o_linkage")
    shot(page, "owner-release", "#release-o_release_info")
    with page.expect_download() as dl:
        page.click("#release-o_download")
    zpath = tmp_path / "release.zip"
    dl.value.save_as(zpath)
    with zipfile.ZipFile(zpath) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "app")
    assert {"release/data.csv", "release/spec.json", "release/privacy.txt"} <= names

    # the same release from the command line, same seed
    r = CliRunner().invoke(
        cli,
        [
            "perturb",
            str(tables["train"]),
            "--out",
            str(tmp_path / "cli"),
            "--class",
            "group",
            "--gamma",
            "19",
            "--bounds",
            "age=20:80",
            "--seed",
            "7",
        ],
    )
    assert r.exit_code == 0, r.output
    for by_class in (False, True):
        ours = estimate_release(tmp_path / "app" / "release", by_class=by_class)
        theirs = estimate_release(tmp_path / "cli", by_class=by_class)
        assert (
            [e.name for e in ours] == [e.name for e in theirs] == ["age", "salary", "elevel", "car"]
        )
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a.overall.counts, b.overall.counts)
            np.testing.assert_array_equal(a.overall.stderr, b.overall.stderr)
    # the key risk on the page is the library's, on this release
    rel = load_release(tmp_path / "app" / "release")
    risk = linkage_report(pd.read_csv(tables["train"]), rel.frame(), keys, rel.spec)
    assert f"k = {risk['released']['k']} ({risk['released']['sample_uniques']} records" in kanon
    link = risk["linkage"]
    assert f"re-identifies {link['reidentified']} of 600 records" in linkage
    assert 0 < link["reidentified"] < 600
    assert (tmp_path / "app/release/data.csv").read_bytes() == (
        tmp_path / "cli/data.csv"
    ).read_bytes()

    # the audit in the background, its verdict in words, then the zip carries it
    page.click("#audit-o_audit")
    page.wait_for_selector("#o_verdict", timeout=60_000)
    # gamma 19 is beyond the default policy (rho1 0.1 -> rho2 0.5, gamma 9): flagged
    verdict = page.inner_text("#o_verdict")
    assert verdict.startswith("FAILED") and "do not publish" in verdict
    assert "the policy allows" in page.inner_text("#audit-o_audit_verdict")
    assert "re-identified by exact matching" in page.inner_text("#audit-o_audit_verdict")
    page.wait_for_function(
        "document.querySelector('#o_audit_text')?.innerText === 'audit finished'"
    )
    shot(page, "owner-audit", "#audit-o_audit_status")
    with page.expect_download() as dl:
        page.click("#release-o_download")
    dl.value.save_as(tmp_path / "release2.zip")
    with zipfile.ZipFile(tmp_path / "release2.zip") as zf:
        assert "release/audit.txt" in zf.namelist()
    assert page.outside_requests == []


def test_advisor_cancel_then_recommend(page, tables, shot):
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    # a large grid, cancelled while it runs
    page.fill("#advisor-o_adv_gammas", "5,6,7,8,9,10,11,12")
    page.fill("#advisor-o_adv_ns", "5,10,15,20,30,40")
    page.fill("#advisor-o_adv_reps", "3")
    page.click("#advisor-o_advise")
    page.wait_for_function(
        "document.querySelector('#o_advise_text')?.innerText.includes('running')"
    )
    # the page answers while the grid runs in its child process
    page.fill("#attrs-o_gamma", "12")
    page.locator("#attrs-o_gamma").blur()
    page.wait_for_function("document.querySelector('#attrs-o_privacy').innerText.includes('2.485')")
    assert "running" in page.inner_text("#advisor-o_advise_status")
    page.click("#advisor-o_advise_cancel")
    page.wait_for_function(
        "document.querySelector('#o_advise_text')?.innerText.includes('cancelled')"
    )
    # a small grid finishes
    page.fill("#advisor-o_adv_gammas", "5,12")
    page.fill("#advisor-o_adv_ns", "5,10")
    page.fill("#advisor-o_adv_reps", "1")
    page.click("#advisor-o_advise")
    page.wait_for_selector("#o_advise_rec", timeout=60_000)
    text = page.inner_text("#o_advise_rec")
    assert "Recommended" in text and "gamma = " in text
    assert "4 of 4 steps" in page.inner_text(
        "#advisor-o_advise_status"
    ) or "finished" in page.inner_text("#advisor-o_advise_status")
    page.click("#advisor-o_advise_apply")
    gamma = text.split("gamma = ")[1].split(",")[0]
    n = text.split("N = ")[1].split(",")[0]
    page.wait_for_function(f"document.querySelector('#attrs-o_gamma').value == '{gamma}'")
    page.wait_for_function(f"document.querySelector('#attrs-n_0').value == '{n}'")
    assert page.input_value("#attrs-n_0") == n
    assert "commonest class" in page.inner_text("#o_advise_baselines")
    shot(page, "owner-advisor-common", "#advisor-o_adv_gammas")


BAD_CONTROLS = [
    # field, value, the message naming column and value, shown live in the table?
    ("#attrs-bounds_0", "abc", "bounds of column 'age' must look like low:high", True),
    ("#attrs-n_1", "1", "N of column 'salary' must be an integer >= 2 (got 1)", True),
    ("#attrs-o_gamma", "0.5", "gamma must be > 1 (got 0.5)", True),
    # the data is checked against the bounds when the release is drawn
    (
        "#attrs-bounds_0",
        "30:40",
        "column 'age' data row 1 has value 58.2 outside its bounds [30, 40]",
        False,
    ),
]


def test_bad_controls_name_column_and_value(page, tables):
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    page.wait_for_selector("#attrs-perturb_4", state="detached")
    # changing the class redraws the controls but keeps what the owner typed
    page.fill("#attrs-bounds_0", "20:80")
    page.wait_for_function("document.querySelector('#attrs-o_privacy').innerText.includes('yours')")
    page.select_option("#data-o_class", "")
    page.wait_for_selector("#attrs-perturb_4")
    assert page.input_value("#attrs-bounds_0") == "20:80"
    page.select_option("#data-o_class", "group")
    page.wait_for_selector("#attrs-perturb_4", state="detached")
    assert page.input_value("#attrs-bounds_0") == "20:80"
    page.fill("#attrs-bounds_0", "")
    for field, value, expected, live in BAD_CONTROLS:
        good = page.input_value(field)
        page.fill(field, value)
        page.locator(field).blur()
        if live:
            page.wait_for_function(
                "t => document.querySelector('#attrs-o_privacy').innerText.includes(t)",
                arg=expected,
            )
        page.click("#release-o_make")
        page.wait_for_function(
            "t => document.querySelector('#o_msg .alert-danger')?.innerText.includes(t)",
            arg=expected,
        )
        assert "Traceback" not in page.content()
        assert "Nothing is written" in page.inner_text("#release-o_release_info")
        page.fill(field, good)
        page.locator(field).blur()
        page.wait_for_function(
            "t => !document.querySelector('#attrs-o_privacy').innerText.includes(t)", arg=expected
        )


def test_bad_file_gives_a_message(page, tables, server, shot):
    page.set_input_files("#data-o_file", str(tables["bad"]))
    page.wait_for_selector("#o_msg .alert-danger")
    msg = page.inner_text("#o_msg")
    assert "cannot read 'bad.csv'" in msg
    assert "Traceback" not in page.content() and "Error" not in msg.split(":")[0]
    assert "upload-" not in msg and "/tmp" not in msg  # the owner's name, not the server's copy
    shot(page, "owner-bad-file")
    page.fill("#data-o_path", str(tables["train"]) + ".missing")
    page.click("#data-o_open_path")
    page.wait_for_function("document.querySelector('#o_msg').innerText.includes('does not exist')")
    # a good file afterwards works in the same session
    page.fill("#data-o_path", str(tables["train"]))
    page.click("#data-o_open_path")
    page.wait_for_function("document.querySelector('#o_msg').innerText.includes('600 records')")


def test_an_identifier_column_is_called_one_and_not_released(page, tmp_path):
    # a name column would have its every value listed in the public spec
    rng = np.random.default_rng(5)
    n = 300
    table = tmp_path / "people.csv"
    pd.DataFrame(
        {
            "name": [f"person {i}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "group": rng.choice(["A", "B"], n),
        }
    ).to_csv(table, index=False)
    page.set_input_files("#data-o_file", str(table))
    page.wait_for_selector("#attrs-o_privacy table")
    attrs = page.inner_text("#attrs-o_attrs")
    assert "categorical: 300 values: looks like an identifier, remove it" in attrs
    assert "looks like an identifier" in page.inner_text("#attrs-o_privacy")
    page.click("#release-o_make")
    page.wait_for_selector("#o_msg .alert-danger")
    assert "column 'name' has 300 distinct values in 300 rows" in page.inner_text("#o_msg")


def test_a_weakly_protected_release_says_so_on_the_page(page, tables):
    # the command line named weakly protected attributes; the page said "release made"
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    page.fill("#attrs-o_gamma", "5000")
    page.locator("#attrs-o_gamma").blur()
    page.wait_for_function("document.querySelector('#attrs-o_privacy').innerText.includes('8.517')")
    page.click("#release-o_make")
    page.wait_for_selector("#o_report")
    info = page.inner_text("#release-o_release_info")
    assert "weakly protected:" in info and "a property of prior 5 % can reach posterior" in info


def test_a_seed_that_is_no_whole_number_is_refused(page, tables):
    # 2.5 was cut to 2, an empty seed became 0, without a word
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    page.check("#release-o_experiment")
    page.fill("#release-o_seed", "2.5")
    page.locator("#release-o_seed").blur()
    page.click("#release-o_make")
    page.wait_for_function(
        "document.querySelector('#o_msg .alert-danger')?.innerText.includes('seed must be a whole')"
    )
    assert "Nothing is written" in page.inner_text("#release-o_release_info")


def test_a_row_with_an_error_leaves_the_other_rows_n_whole(page, tables):
    """The N column turned float (20.0) as soon as one attribute's row held an error."""
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    # reversed bounds: an error on age's row
    _, salary = _set_until(page, "#attrs-bounds_0", "80:20", lambda age, _: "error" in age["kind"])
    assert salary["N"] == "20"


def test_an_n_above_the_cap_is_an_error_of_its_row_only(page, tables):
    """N = 100000 replaced the whole privacy table by one error naming no column."""
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    age, salary = _set_until(page, "#attrs-n_0", "100000", lambda age, _: "cap" in age["kind"])
    assert "N of column 'age' is 100000, above the cap" in age["kind"] and salary["N"] == "20"


def test_the_histograms_show_every_attribute(page, tmp_path):
    """Only the first 9 attributes were drawn, without a word (wine has 13)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"a{i}": rng.uniform(0, 1, 200) for i in range(12)})
    frame["cls"] = rng.choice(["x", "y"], 200)
    src = tmp_path / "twelve.csv"
    frame.to_csv(src, index=False)
    page.set_input_files("#data-o_file", str(src))
    page.wait_for_selector("#attrs-o_privacy table")
    page.select_option("#data-o_class", "cls")
    page.click("#release-o_make")
    page.wait_for_selector("#release-o_hist img")
    height = page.eval_on_selector("#release-o_hist img", "img => img.naturalHeight")
    assert height == 4 * 3 * 90  # 12 panels on 3 columns: 4 rows of 3 inches at 90 dpi


def test_rho_fields_left_empty_are_named(page, tables):
    """Emptied rho fields showed Python's 'float() argument must be a string or a real
    number, not NoneType'."""
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    page.check("input[name='attrs-o_gmode'][value='rho']")
    for _ in range(4):  # typed again if the binding missed it on a busy machine
        page.fill("#attrs-o_rho1", "")
        page.locator("#attrs-o_rho1").blur()
        try:
            page.wait_for_function(
                "document.querySelector('#attrs-o_privacy').innerText.includes('rho1 and rho2')",
                timeout=8_000,
            )
            break
        except Exception:
            page.fill("#attrs-o_rho1", "0.1")
    text = page.inner_text("#attrs-o_privacy")
    assert "rho1 and rho2 must be numbers in (0, 1)" in text and "NoneType" not in text
