"""The miner's page in a real headless Chromium: from a release to a model chosen and
scored from the release alone, and measured on a test table when one is given."""

from __future__ import annotations

import shutil
import time
import warnings

import pandas as pd

from ppdm.pipeline import make_release, reconstruct_release
from ppdm.selection import mine


def _release(tables, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(
            pd.read_csv(tables["train"]),
            tmp_path / "rel",
            class_attribute="group",
            gamma=9.0,
            n_bins=10,
            random_state=3,
        )
    shutil.make_archive(str(tmp_path / "rel"), "zip", tmp_path, "rel")
    return tmp_path / "rel", tmp_path / "rel.zip"


def test_miner_flow_to_a_tree(page, tables, tmp_path, shot):
    rel, zpath = _release(tables, tmp_path)
    page.click("a[data-value='miner']")
    page.set_input_files("#miner-m_zip", str(zpath))
    page.wait_for_selector("#m_report")
    assert "records: 600" in page.inner_text("#m_report")
    shot(page, "miner-release")
    page.click("#miner-m_estimate")
    page.wait_for_selector("#miner-m_est_plot img")
    assert "estimated 4 attributes" in page.inner_text("#m_msg")
    # the card says the error bars its figures draw (their legends: "± 2 s.e.")
    assert "(bars: ± 2 s.e.)" in page.inner_text("body")
    shot(page, "miner-estimates", "#miner-m_estimate")
    # the reconstructed table, by class as the checkbox says (seeded the same way: not,
    # so compare what does not depend on the draw)
    page.select_option("#miner-m_fmt", "parquet")
    with page.expect_download() as dl:
        page.click("#miner-m_download")
    assert dl.value.suggested_filename == "reconstructed.parquet"
    dl.value.save_as(tmp_path / "rec.parquet")
    rec = pd.read_parquet(tmp_path / "rec.parquet")
    ref = reconstruct_release(rel, None, by_class=True, random_state=0)
    assert list(rec.columns) == list(ref.columns) and len(rec) == len(ref) == 600
    # Algorithm 2 by class keeps each class's reconstructed counts: same histograms
    for col in ("elevel", "car"):
        a = rec.groupby("group")[col].value_counts().sort_index()
        b = ref.groupby("group")[col].value_counts().sort_index()
        pd.testing.assert_series_equal(a, b)
    # no test table: a learner chosen from the release, its estimate ± s.e. beside the
    # majority-class rate, the candidates
    page.click("#miner-m_mine")
    page.wait_for_selector("#m_estimated", timeout=120_000)
    chosen = mine(rel, random_state=0)  # as the page calls it
    text = page.inner_text("#m_estimated")
    assert (
        f"{100 * chosen.estimate:.1f}% ± {100 * chosen.stderr:.1f} points (one standard error; "
        f"{chosen.n_holdout} held-out released records). Learner: {chosen.candidate.label}."
    ) in text, text
    majority = page.inner_text("#m_majority")
    assert f"{100 * chosen.majority_rate:.1f}%" in majority
    assert f"always predicting {chosen.majority_class!r}" in majority
    assert page.locator("#m_accuracy").count() == 0  # nothing measured without a test table
    rows = page.locator("#m_candidates tbody tr").all_inner_texts()
    assert len(rows) == len(chosen.candidates)
    picked = [r for r in rows if "(chosen)" in r]
    assert len(picked) == 1 and picked[0].startswith(f"{chosen.candidate.label} (chosen)")
    # each row shows its leaves, the rule's measure of simplicity
    for row, score in zip(rows, chosen.candidates, strict=True):
        if score.leaves is not None:
            assert row.split("\t")[-1].strip() == f"{score.leaves:.1f}", row
    page.wait_for_function(
        "document.querySelector('#m_mine_text')?.innerText === 'mining finished'"
    )
    shot(page, "miner-mined-alone", "#m_estimated")
    # with a test table: the accuracy measured on it beside its majority-class rate
    page.set_input_files("#miner-m_test", str(tables["test"]))
    page.wait_for_function("document.querySelector('#m_msg').innerText.includes('300 records')")
    page.click("#miner-m_mine")
    page.wait_for_selector("#m_accuracy", timeout=120_000)
    test = pd.read_csv(tables["test"])
    measured = mine(rel, test=test, random_state=0).measured
    text = page.inner_text("#m_accuracy")
    assert f"Measured on the test table (300 records): {100 * measured:.1f}%" in text
    test_majority = test["group"].value_counts(normalize=True).max()
    assert f"most frequent class: {100 * test_majority:.1f}%" in text
    assert text in page.inner_text("#miner-m_mine_result")
    assert "Estimated accuracy" in page.inner_text("#m_estimated")  # the estimate stays
    shot(page, "miner-mined", "#m_estimated")
    # one learner forced: its held-out estimate, no candidates to choose among
    page.select_option("#miner-m_learner", "release-tree")
    page.click("#miner-m_mine")
    page.wait_for_function(
        "document.querySelector('#m_estimated')?.innerText.includes('Learner: release-tree.')",
        timeout=120_000,
    )
    assert page.locator("#m_candidates").count() == 0


def test_miner_bad_release_and_folder(page, tables, tmp_path):
    rel, _ = _release(tables, tmp_path)
    page.click("a[data-value='miner']")
    page.set_input_files("#miner-m_zip", str(tables["bad"]))
    page.wait_for_selector("#m_msg .alert-danger")
    assert "'bad.csv' is not a zip file" in page.inner_text("#m_msg")
    page.click("#miner-m_mine")
    page.wait_for_function(
        "document.querySelector('#miner-m_mine_note')?.innerText.includes('open a release first')"
    )
    page.fill("#miner-m_path", str(rel))
    page.click("#miner-m_open")
    page.wait_for_function("document.querySelector('#m_msg').innerText.includes('opened')")
    assert "Traceback" not in page.content()


def test_session_workspace_removed_when_page_closes(browser, server, tables):
    context = browser.new_context()
    pg = context.new_page()
    pg.goto(server["url"])
    pg.wait_for_selector("#data-o_file")
    pg.set_input_files("#data-o_file", str(tables["train"]))
    pg.wait_for_selector("#attrs-o_privacy table")
    mine = set(server["tmp"].glob("ppdm-app-*"))
    assert mine and any(p.rglob("train.csv") for p in mine)
    context.close()
    for _ in range(50):
        if not any(p.exists() for p in mine):
            break
        time.sleep(0.2)
    assert not any(p.exists() for p in mine)
    # nor is any copy of the upload left in the web server's upload folders
    assert not list(server["tmp"].rglob("train.csv"))


def test_a_release_without_a_class_unticks_by_class(page, tables, tmp_path):
    """'by class' stayed ticked, and Estimate then failed: 'the release has no class
    attribute; by-class work needs one'."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(
            pd.read_csv(tables["train"]).drop(columns=["group"]),
            tmp_path / "rel",
            bounds={"age": (20, 80)},
            allow_unprotected=True,
            random_state=3,
        )
    shutil.make_archive(str(tmp_path / "rel"), "zip", tmp_path, "rel")
    page.click("a[data-value='miner']")
    assert page.is_checked("#miner-m_byclass")
    page.set_input_files("#miner-m_zip", str(tmp_path / "rel.zip"))
    page.wait_for_function("document.querySelector('#m_msg').innerText.includes('unticked')")
    assert not page.is_checked("#miner-m_byclass") and not page.is_checked("#miner-m_recon_byclass")
    page.click("#miner-m_estimate")
    page.wait_for_selector("#miner-m_est_plot img")
    assert "estimated" in page.inner_text("#m_msg")


def test_a_broken_spec_in_an_uploaded_zip_is_named_by_the_zip(page, tmp_path):
    """The message named the server's unpacked copy under its temporary directory."""
    import zipfile

    zpath = tmp_path / "mine.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("r/spec.json", "{not json")
    page.click("a[data-value='miner']")
    page.set_input_files("#miner-m_zip", str(zpath))
    page.wait_for_selector("#m_msg .alert-danger")
    text = page.inner_text("#m_msg")
    assert "mine.zip:r/spec.json" in text and "ppdm-app-" not in text and "not valid JSON" in text


def test_the_mining_results_fit_their_card_at_1280_px(page, tables, tmp_path, fits):
    page.set_viewport_size({"width": 1280, "height": 900})
    _, zpath = _release(tables, tmp_path)
    page.click("a[data-value='miner']")
    page.set_input_files("#miner-m_zip", str(zpath))
    page.wait_for_selector("#m_report")
    page.click("#miner-m_mine")
    page.wait_for_selector("#m_candidates table", timeout=120_000)
    for selector in ("#m_candidates table", "#m_estimated", "#m_majority"):
        fits(page, selector)


def test_a_release_of_a_perturbed_class_is_measured_on_a_test_table(page, tables, tmp_path):
    """No learner can be scored from a release whose class was perturbed: the page says
    to upload a test table, then measures C4.5 on the global reconstruction on it."""
    from ppdm.mining import mine_release

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(pd.read_csv(tables["train"]), tmp_path / "rel", class_attribute="group",
                     perturb_class=True, gamma=9.0, n_bins=10, random_state=3)  # fmt: skip
    page.click("a[data-value='miner']")
    page.fill("#miner-m_path", str(tmp_path / "rel"))
    page.click("#miner-m_open")
    page.wait_for_selector("#m_report")
    page.click("#miner-m_mine")
    page.wait_for_function(
        "document.querySelector('#miner-m_mine_note')?.innerText.includes('upload a test table')",
        timeout=60_000,
    )
    page.set_input_files("#miner-m_test", str(tables["test"]))
    page.wait_for_function("document.querySelector('#m_msg').innerText.includes('300 records')")
    page.click("#miner-m_mine")
    page.wait_for_selector("#m_accuracy", timeout=120_000)
    test = pd.read_csv(tables["test"])
    expected = mine_release(tmp_path / "rel", test, learner="c45", reconstruction="global")
    assert f"{100 * expected.accuracy:.1f}%" in page.inner_text("#m_accuracy")
    assert page.locator("#m_majority").count() == 0  # no estimate from the release alone


def test_miner_notes_a_one_leaf_model_and_copies(page, tmp_path, shot):
    """A release whose attribute says nothing of the class: the forced release tree is one
    leaf, and the page says what it predicts and its exact accuracy; released in two
    copies, the page says the held-out records' copies."""
    import numpy as np

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=600), "y": rng.choice(["a", "b"], 600, p=[0.7, 0.3])})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / "flat", gamma=5, class_attribute="y", random_state=1)
    note = mine(tmp_path / "flat", learner="release-tree", random_state=0).note
    assert note.startswith("the chosen model has one leaf: it predicts 'a'")
    page.click("a[data-value='miner']")
    page.fill("#miner-m_path", str(tmp_path / "flat"))
    page.click("#miner-m_open")
    page.wait_for_function("document.querySelector('#m_msg').innerText.includes('opened')")
    page.select_option("#miner-m_learner", "release-tree")
    page.click("#miner-m_mine")
    page.wait_for_selector("#m_estimated", timeout=120_000)
    assert f"Note: {note}." in page.inner_text("#m_estimated")
    shot(page, "miner-one-leaf", "#m_estimated")
    # two copies per record: held out by record, and the page says so
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / "two", gamma=5, class_attribute="y", copies=2, random_state=1)
    r = mine(tmp_path / "two", learner="release-tree", random_state=0)
    page.fill("#miner-m_path", str(tmp_path / "two"))
    page.click("#miner-m_open")
    page.wait_for_function("document.querySelector('#m_msg').innerText.includes('two')")
    page.click("#miner-m_mine")
    page.wait_for_function(
        "document.querySelector('#m_estimated')?.innerText.includes('copies each')",
        timeout=120_000,
    )
    assert (f"(one standard error; {r.n_holdout} held-out released records, 2 copies each)"
            in page.inner_text("#m_estimated"))  # fmt: skip
