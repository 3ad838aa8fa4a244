"""The `proxlearn` command line."""

import json
import os
import subprocess
import sys

import pytest

import proxlearn
import proxlearn.datasets._registry as registry
from proxlearn.cli import main, run_demo

JSON_KEYS = {"name", "n", "n_classes", "class_counts", "symmetric", "asymmetry",
             "n_negative_eigenvalues", "lambda_min", "lambda_max",
             "negative_mass_ratio", "diagonal", "sparsity", "kind", "source"}


@pytest.fixture(autouse=True)
def _env(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("PROXLEARN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    monkeypatch.setenv("COLUMNS", "200")  # rich: wide tables, whole paths on one line
    yield


@pytest.fixture
def no_files(tmp_path, monkeypatch):
    monkeypatch.delenv("PROXLEARN_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(registry, "_checkout_data_dirs", lambda: [])
    monkeypatch.chdir(tmp_path)


def test_version(capsys):
    assert main(["--version"]) == 0
    assert proxlearn.__version__ in capsys.readouterr().out


def test_datasets_table(capsys, no_files):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in registry.REGISTRY:
        assert name in out
    assert "embedded" in out and "no" in out and "yes" in out


def test_datasets_with_data_home(capsys, no_files, tmp_path):
    import numpy as np
    import scipy.io

    (tmp_path / "dh").mkdir()
    scipy.io.savemat(tmp_path / "dh" / "voting.mat", {"A": np.eye(3), "C": [[1], [2], [1]]})
    assert main(["datasets", "--data-home", str(tmp_path / "dh")]) == 0
    out = capsys.readouterr().out
    assert f"voting: {tmp_path / 'dh' / 'voting.mat'}" in out.splitlines()


@pytest.mark.parametrize("columns", ["30", "80", "200"])
def test_paths_are_never_broken_whatever_the_width(capsys, no_files, tmp_path, monkeypatch,
                                                   columns):
    """A printed path is one line a user can copy, on any terminal width (issue #14)."""
    import numpy as np
    import scipy.io

    monkeypatch.setenv("COLUMNS", columns)
    home = tmp_path / ("a_long_folder_name_that_does_not_fit_" * 3) / "data[1]"
    home.mkdir(parents=True)
    scipy.io.savemat(home / "voting.mat", {"A": np.eye(3), "C": [[1], [2], [1]]})
    assert main(["datasets", "--data-home", str(home)]) == 0
    assert f"voting: {home / 'voting.mat'}" in capsys.readouterr().out.splitlines()
    assert main(["info", "voting", "--data-home", str(home)]) == 0
    assert f"source: {home / 'voting.mat'}" in capsys.readouterr().out.splitlines()


def test_info_json(capsys):
    assert main(["info", "synthetic-2", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert JSON_KEYS <= set(info)
    assert info["name"] == "synthetic-2" and info["n"] == 300
    assert info["class_counts"] == {"1": 100, "2": 100, "3": 100}
    assert info["symmetric"] is True and info["n_negative_eigenvalues"] > 100
    assert set(info["diagonal"]) == {"min", "mean", "max"}


def test_info_table_and_plot(capsys, tmp_path):
    png = tmp_path / "w.png"
    assert main(["info", "synthetic-3", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "synthetic-3" in out and "lambda_min" in out and "300" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_info_on_a_file_path(capsys, tmp_path):
    import numpy as np

    np.savez(tmp_path / "m.npz", S=np.array([[1.0, 0.2], [0.3, 1.0]]), y=[0, 1])
    assert main(["info", str(tmp_path / "m.npz"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["symmetric"] is False and info["asymmetry"] > 0


@pytest.mark.parametrize("arg, text", [
    ("no-such-set", "unknown data set"),
    ("missing.mat", "not found"),
    ("bad.csv", "not a numeric matrix"),
])
def test_bad_dataset_exits_2(capsys, tmp_path, monkeypatch, arg, text):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.csv").write_text("1,x\n2,3\n")
    (tmp_path / "bad_labels.csv").write_text("1\n2\n")
    assert main(["info", arg]) == 2
    err = capsys.readouterr().err
    assert err.startswith("proxlearn: error:") and text in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_registered_but_missing_file_exits_2(capsys, no_files):
    assert main(["info", "protein"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("proxlearn: error:") and "PROXLEARN_DATA" in err
    assert err.count("\n") == 1


def test_usage_error_exits_2(capsys):
    assert main(["info"]) == 2
    assert "error: the following arguments are required" in capsys.readouterr().err


def test_subprocess_bad_dataset(tmp_path):
    env = dict(os.environ, PROXLEARN_CACHE=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "proxlearn.cli", "info", "definitely-not-a-set"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("proxlearn: error:") and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_demo_writes_plots(capsys, no_files, tmp_path, monkeypatch):
    keep = ("synthetic-1", "wine-sigmoid", "protein")  # protein: not available here
    monkeypatch.setattr(registry, "REGISTRY", {k: registry.REGISTRY[k] for k in keep})
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--splits", "2", "--jobs", "1"]) == 0
    text = capsys.readouterr().out
    embedded = [r.name for r in registry.list_datasets() if r.location == "embedded"]
    assert sorted(embedded) == ["synthetic-1", "wine-sigmoid"]
    assert sorted(p.stem for p in out.glob("*.png")) == sorted(embedded)
    for name in embedded:
        assert name in text
    # left out with a word saying how to get it (it was dropped silently, issue #39)
    assert ("note: 1 of 3 data sets are not found here and are left out: protein (the UW "
            "benchmark files: proxlearn fetch --all).") in text
    assert text.count("protein") == 1
    # the quick study ran on the demo set that is available (wine-sigmoid)
    assert "quick study" in text and "test error %" in text
    results = json.loads((out / "study" / "results.json").read_text())
    assert list(results) == ["wine-sigmoid"]
    assert set(results["wine-sigmoid"]) == {"svm-clip", "svm-flip", "svm-shift",
                                            "svm-features-linear", "ikfd", "knn"}
    assert all(len(v["errors"]) == 2 for v in results["wine-sigmoid"].values())
    assert (out / "study" / "errors.png").is_file()


def test_run_demo_returns_summaries(tmp_path):
    from rich.console import Console

    console = Console(file=open(os.devnull, "w"))
    res = run_demo(tmp_path, console, names={"synthetic-1", "wine-sigmoid"})
    assert [r["name"] for r in res] == ["synthetic-1", "wine-sigmoid"]
    assert all(os.path.isfile(r["plot"]) and r["n_negative_eigenvalues"] > 0 for r in res)


def test_study_command_json_cache_and_errors(capsys, tmp_path):
    out = tmp_path / "st"
    js = tmp_path / "r.json"
    args = ["study", "synthetic-1", "--methods", "svm-clip,ikfd", "--protocol", "custom",
            "--splits", "2", "--cv", "3", "--out", str(out), "--json", str(js),
            "--markdown", str(tmp_path / "t.md"), "--latex", str(tmp_path / "t.tex")]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert "0 of 4 cells from cache" in first
    data = json.loads(js.read_text())
    assert set(data["synthetic-1"]) == {"svm-clip", "ikfd"}
    cell = data["synthetic-1"]["svm-clip"]
    assert len(cell["errors"]) == 2 and len(cell["params"]) == 2 and "C" in cell["params"][0]
    assert (out / "results.json").is_file() and (out / "errors.png").is_file()
    assert "svm-clip" in (tmp_path / "t.md").read_text()
    assert "tabular" in (tmp_path / "t.tex").read_text()
    # a rerun resumes from the cell cache and gives the same numbers
    assert main(args) == 0
    assert "4 of 4 cells from cache" in capsys.readouterr().out
    assert json.loads(js.read_text()) == data


def test_study_command_bad_input(capsys):
    assert main(["study", "synthetic-1", "--methods", "svm-clop"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("proxlearn: error: unknown method 'svm-clop'")
    assert "svm-clip" in err and err.count("\n") == 1
    assert main(["study", "no-such-set", "--methods", "svm-clip"]) == 2
    assert "unknown data set" in capsys.readouterr().err
    assert main(["study", "synthetic-1", "--protocol", "chen2099"]) == 2
    assert "unknown protocol" in capsys.readouterr().err
    assert main(["study", "--list-methods"]) == 0
    assert "knn-krr" in capsys.readouterr().out


def test_study_loo_protocol(capsys, tmp_path):
    out = tmp_path / "loo"
    assert main(["study", "wine-sigmoid", "--protocol", "loo", "--methods", "knn,knn-affinity",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "leave-one-out" in text and "knn-affinity" in text
    res = json.loads((out / "loo.json").read_text())["wine-sigmoid"]
    assert set(res) == {"knn", "knn-affinity"} and res["knn"]["perplexity"] >= 1.0
    assert (out / "perplexity_vs_k.png").is_file()
    assert main(["study", "wine-sigmoid", "--protocol", "loo", "--methods", "svm-clip"]) == 2
    assert "not a k-NN method" in capsys.readouterr().err


def test_lists_of_protocols_and_data_sets_agree(capsys):
    """--help, --list-protocols and the unknown-name errors named different lists
    (issue #39, section 4: loo, digits-multi, protein-multi and 'a+b' were missing)."""
    from proxlearn.datasets import MULTI_REGISTRY, REGISTRY

    assert main(["study", "--list-protocols"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert main(["study", "synthetic-1", "--protocol", "chen2099"]) == 2
    err = capsys.readouterr().err
    named = err.split("choose one of ", 1)[1].split(" (see", 1)[0].split(", ")
    assert sorted(named) == sorted(listed) and "loo" in named
    assert main(["study", "no-such-set", "--methods", "svm-clip"]) == 2
    err = capsys.readouterr().err
    assert all(name in err for name in [*REGISTRY, *MULTI_REGISTRY]) and "'a+b+...'" in err


def _fake_study(done_before_stop):
    """A run_study that reports progress, then is interrupted (Ctrl-C) or finishes."""
    import proxlearn.study as study

    real = study.run_study

    def run(datasets, methods, protocol, *, progress=None, **kw):
        if done_before_stop is None or kw.get("cached_only"):
            return real(datasets, methods, protocol, progress=progress, **kw)
        for done in range(done_before_stop + 1):
            progress(done, 10)
        raise KeyboardInterrupt

    return run


@pytest.mark.parametrize("out", [False, True])
def test_interrupted_study_is_one_line_saying_what_was_kept(out, tmp_path, capsys, monkeypatch):
    """Ctrl-C printed a 49-line traceback (issue #39, section 4)."""
    import proxlearn.study as study

    monkeypatch.setattr(study, "run_study", _fake_study(3))
    argv = ["study", "synthetic-1", "--methods", "knn", "--splits", "2"]
    argv += ["--out", str(tmp_path / "run")] if out else []
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted after 3 of 10 cells" in err
    assert ("the same command resumes" in err) if out else ("--out DIR" in err)


def test_study_off_a_terminal_prints_progress_lines(capsys, monkeypatch):
    """`proxlearn study ... > log` wrote nothing until the end (issue #39, section 4)."""
    import proxlearn.cli as cli

    monkeypatch.setattr(cli, "PROGRESS_SECONDS", 0.0)
    assert main(["study", "synthetic-1", "--methods", "knn", "--splits", "3"]) == 0
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if ln.startswith("study (chen2009): ")]
    assert lines and lines[-1] == "study (chen2009): 3/3 cells"
    assert "note: with 3 partitions the one-sided Wilcoxon test cannot reach 5 %" in out


def test_cell_progress_never_shows_a_total_of_none(monkeypatch):
    """`proxlearn reproduce`'s bar read '0/None cells' (issue #39, section 4)."""
    import io

    from rich.console import Console

    import proxlearn.cli as cli

    monkeypatch.setattr(cli, "PROGRESS_SECONDS", 0.0)
    for terminal in (True, False):
        buf = io.StringIO()
        console = Console(file=buf, force_terminal=terminal, width=100)
        with cli._CellProgress(console) as cells:
            step = cells.callback("kundu2010")
            step(0, None)
            step(2, None)
            cells.bar.refresh()  # draw the unknown-total state once
            step(3, 5)
        text = buf.getvalue()
        assert "None" not in text and "3/5 cells" in text
        assert ("2 cells" in text) if terminal else ("kundu2010: 2/? cells" in text)


def test_help_and_version_do_not_import_the_library():
    """`proxlearn --help` / `--version` took 2.5 s of CPU importing scikit-learn (issue #39);
    the light top-level help is the full parser's."""
    import subprocess
    import sys

    import proxlearn.cli as cli

    assert cli._parser(light=True).format_help() == cli._parser().format_help()
    code = ("import sys, contextlib, io\nfrom proxlearn.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert main(['--version']) == 0 and main(['--help']) == 0\n"
            "print(sorted(m for m in ('sklearn', 'numpy', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == "[]"


def test_every_command_has_the_same_jobs_default():
    """study defaulted to 1 worker, demo and reproduce to 2 (issue #39, section 4)."""
    import proxlearn.cli as cli

    parser = cli._parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    defaults = {name: next(a.default for a in sub._actions if a.dest == "jobs")
                for name, sub in commands.items() if any(a.dest == "jobs" for a in sub._actions)}
    assert set(defaults) >= {"study", "demo", "reproduce", "similarity"}
    assert set(defaults.values()) == {1}, defaults


def test_interrupted_study_prints_the_partial_table_from_its_cache(tmp_path, capsys,
                                                                   monkeypatch):
    """After Ctrl-C the cells finished so far are shown (issue #39, section 4)."""
    import proxlearn.study as study

    argv = ["study", "synthetic-1", "--methods", "knn", "--splits", "2",
            "--out", str(tmp_path / "run")]
    assert main(argv) == 0  # two cells cached
    capsys.readouterr()
    monkeypatch.setattr(study, "run_study", _fake_study(1))
    assert main([*argv[:-4], "--splits", "3", *argv[-2:]]) == 130
    out = capsys.readouterr().out
    assert "synthetic-1" in out and "knn" in out  # the table of the two cached cells
