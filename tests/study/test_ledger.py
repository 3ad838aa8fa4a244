"""The verdict ledger: every target row gets exactly one, correctly stated status."""
from __future__ import annotations

from proxlearn.study._ledger import ledger_markdown, verdict_ledger
from proxlearn.study._report import PaperValue
from proxlearn.study._reproduce import Section


def _pv(source, table, protocol, ds, method, mean, std=None, metric="error_pct"):
    return PaperValue(source, table, protocol, ds, method, metric, mean, std, "")


def _row(ds, method, mean, R=20, std=1.0, paper=None, table=None, agrees=None, sigma=None,
         source=None):
    return dict(dataset=ds, method=method, metric="error", n_partitions=R, mean=mean, std=std,
                paper=paper, paper_table=table, agrees=agrees, sigma=sigma, sigma_source=source)


SPECS = [
    Section("a", "A", "p", ("d1", "d2", "d3"), ("m1", "m2", "m3"),
            aliases={("d2", "m1-variant"): "m1"}, not_run={"d9": "too costly"}),
    Section("b", "B", "p", ("d1",), ("m1",)),
]


def test_each_target_gets_one_status_and_shared_numbers_are_judged_once():
    # T1 is printed by two tables of the same protocol; the row was compared with T1a
    t1a = _pv("a", "1", "p", "d1", "m1", 10.0, 2.0)
    t1b = _pv("b", "5", "p", "d1", "m1", 10.0, 0.1)  # same number, much smaller spread
    t2 = _pv("a", "1", "p", "d2", "m1", 5.0, 1.0)  # run under an alias
    t3 = _pv("a", "1", "p", "d3", "m3", 1.0, 1.0)  # not run: not registered
    t4 = _pv("a", "1", "p", "d9", "m1", 1.0, 1.0)  # left out on purpose
    t5 = _pv("a", "1", "p", "d1", "m2", 1.0, 1.0)  # method listed, no result
    sections = {
        "a": {"protocol": "p", "not_registered": ["m3"], "missing_data": [],
              "rows": [_row("d1", "m1", 11.0, paper=10.0, table="a 1", agrees=True, sigma=2.0,
                            source="paper"),
                       _row("d2", "m1-variant", 5.1, paper=5.0, table="a 1 (m1)", agrees=True,
                            sigma=1.0, source="paper")]},
        "b": {"protocol": "p", "not_registered": [], "missing_data": [],
              "rows": [_row("d1", "m1", 11.0, paper=10.0, table="a 1", agrees=True, sigma=2.0,
                            source="paper")]},
    }
    entries = verdict_ledger(sections, SPECS, [t1a, t1b, t2, t3, t4, t5])
    assert len(entries) == 6
    status = {(e.target.source, e.target.table, e.target.dataset, e.target.method): e
              for e in entries}
    assert status[("a", "1", "d1", "m1")].status == "agrees"
    # judged against its own sigma 0.1: |11 - 10| > 2 sqrt(2/20) 0.1
    assert status[("b", "5", "d1", "m1")].status == "DIFFERS"
    assert status[("b", "5", "d1", "m1")].section == "b"
    assert status[("a", "1", "d2", "m1")].status == "agrees"
    assert status[("a", "1", "d3", "m3")].status == "not run"
    assert status[("a", "1", "d3", "m3")].reason == "method not implemented"
    assert status[("a", "1", "d9", "m1")].reason == "too costly"
    assert "no partition finished" in status[("a", "1", "d1", "m2")].reason

    md = "\n".join(ledger_markdown(entries))
    assert "2 agrees, 1 DIFFERS, 0 no verdict, 3 not run" in md
    assert "| b 5 | b | d1 | m1 |" in md  # the disagreement is listed once
    assert md.count("| a 1 | a | d1 | m1 |") == 0


def test_missing_data_and_not_run_rows_carry_their_reason():
    t = _pv("a", "1", "p", "d2", "m2", 3.0, 1.0)
    t_row = _pv("a", "1", "p", "d1", "m2", 3.0, 1.0)
    sections = {"a": {"protocol": "p", "not_registered": [],
                      "missing_data": ["d2 (file d2.mat not found)"],
                      "rows": [dict(_row("d1", "m2", None), not_run="n > 160")]}}
    e = {x.target.dataset: x for x in verdict_ledger(sections, SPECS, [t, t_row])}
    assert e["d2"].status == "not run" and "file d2.mat not found" in e["d2"].reason
    assert e["d1"].status == "not run" and e["d1"].reason == "n > 160"


def test_deterministic_rows_are_judged_to_the_printed_digits():
    specs = [Section("full", "F", "full-data", ("d",), ())]
    t_ok = _pv("c", "5.1", "full-data", "d", "socp", 0.283, metric="objective")
    t_bad = _pv("c", "5.1", "full-data", "d", "lp", 0.294, 0.002, metric="objective")
    rows = [dict(dataset="d", method="socp", metric="objective", mean=0.28299, std=0.0,
                 n_draws=1, paper=0.283, paper_std=None),
            dict(dataset="d", method="lp", metric="objective", mean=0.3027, std=0.0014,
                 n_draws=10, paper=0.294, paper_std=0.002)]
    e = verdict_ledger({"full": {"protocol": "full-data", "rows": rows}}, specs, [t_ok, t_bad])
    assert [x.status for x in e] == ["agrees", "DIFFERS"]


def test_an_aliased_row_is_the_papers_row():
    # protein-2's thesis "SimSVM raw test" row is our flip variant: the alias wins over
    # the plain row of the same name, whatever their order
    t = _pv("c", "5.4", "p", "d2", "raw", 44.31, 6.0)
    plain = _row("d2", "raw", 7.41, paper=44.31, table="c 5.4", agrees=False, sigma=6.0,
                 source="paper")
    flip = _row("d2", "m1-variant", 39.48, paper=44.31, table="c 5.4 (raw)", agrees=True,
                sigma=6.0, source="paper")
    specs = [Section("c", "C", "p", ("d2",), ("raw", "m1-variant"),
                     aliases={("d2", "m1-variant"): "raw"})]
    for rows in ([plain, flip], [flip, plain]):
        e = verdict_ledger({"c": {"protocol": "p", "rows": rows}}, specs, [t])
        assert e[0].status == "agrees" and e[0].ours == 39.48


def test_two_readings_get_two_ledgers_that_each_count_every_target_once():
    """Issue 40: a row computed under the estimator's default reading (a method named
    ``<paper method>@default`` or a row with ``reading``) is judged by the second
    ledger only; targets without one keep their text verdict there."""
    t1 = _pv("a", "1", "p", "d1", "m1", 10.0, 1.0)
    t2 = _pv("a", "1", "p", "d1", "m2", 20.0, 1.0)
    rows = [_row("d1", "m1", 10.1, paper=10.0, table="a 1", agrees=True, sigma=1.0,
                 source="paper"),
            _row("d1", "m1@default", 15.0, paper=10.0, table="a 1 (m1, default reading)",
                 agrees=False, sigma=1.0, source="paper"),
            _row("d1", "m2", 25.0, paper=20.0, table="a 1", agrees=False, sigma=1.0,
                 source="paper"),
            dict(_row("d1", "m2", 20.2, paper=20.0, table="a 1", agrees=True, sigma=1.0,
                      source="paper"), reading="default")]
    sections = {"a": {"protocol": "p", "not_registered": [], "missing_data": [], "rows": rows}}
    text = {e.target.method: e for e in verdict_ledger(sections, SPECS, [t1, t2])}
    default = {e.target.method: e
               for e in verdict_ledger(sections, SPECS, [t1, t2], reading="default")}
    assert (text["m1"].status, text["m1"].ours, text["m1"].reading) == ("agrees", 10.1, "text")
    assert (text["m2"].status, text["m2"].ours) == ("DIFFERS", 25.0)
    assert (default["m1"].status, default["m1"].ours, default["m1"].reading) == (
        "DIFFERS", 15.0, "default")
    assert (default["m2"].status, default["m2"].ours) == ("agrees", 20.2)
    # a target with no default-reading row keeps its text verdict in the second ledger
    t3 = _pv("a", "1", "p", "d2", "m1", 5.0, 1.0)
    sections["a"]["rows"].append(_row("d2", "m1", 5.0, paper=5.0, table="a 1", agrees=True,
                                      sigma=1.0, source="paper"))
    d3 = verdict_ledger(sections, SPECS, [t3], reading="default")[0]
    assert (d3.status, d3.reading) == ("agrees", "text")
    # the two ledgers are built from separately loaded targets (equal, not identical)
    import copy

    md = "\n".join(ledger_markdown(list(text.values()),
                                   copy.deepcopy(list(default.values()))))
    assert "rows computed under the papers' text: 1 agrees, 1 DIFFERS" in md
    assert "1 agrees, 1 DIFFERS, 0 no verdict, 0 not run (the papers' text, above" in md
    assert "| a 1 | a | d1 | m1 | 10 | 10.1, agrees | 15, DIFFERS |" in md
    assert "| a 1 | a | d1 | m2 | 20 | 25, DIFFERS | 20.2, agrees |" in md
