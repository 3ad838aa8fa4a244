"""Smoke test of investigations/lp_approximation.py (issue #18, item 3)."""

import numpy as np
import pytest

from proxlearn.kernel_learning._simsvm import SimSVMProblem
from proxlearn.kernel_learning._simsvm_socp import lp_basis_draws


@pytest.fixture(scope="module")
def lpx(import_script):
    return import_script("investigations/lp_approximation.py")


def positive_problem(n=24, seed=0):
    """A nonnegative, unit-diagonal, indefinite similarity like aural_sonar's."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    A = rng.uniform(0, 1, (n, n)) ** 2 + 0.4 * (y[:, None] == y[None, :])
    S = np.clip(0.5 * (A + A.T) / 1.4, 0, 1)
    np.fill_diagonal(S, 1.0)
    return SimSVMProblem(S, y, "l1-clip", 1e-6)


def test_text_reading_is_the_library_draw_and_unit_norm_is_invariant(lpx):
    prob = positive_problem()
    base = lpx.exact(prob)
    rng_a, rng_b = lpx.draw_rng(0, 7, 1), lpx.draw_rng(0, 7, 1)
    ours = lpx.reading_tau("text", prob, 7, rng_a)
    assert np.array_equal(ours, lp_basis_draws(prob.Uk, 7, rng_b))
    # every reading maps the same normals; they differ where they should
    t_rows = lpx.reading_tau("rows", prob, 7, lpx.draw_rng(0, 7, 1))
    t_text = lpx.reading_tau("text", prob, 7, lpx.draw_rng(0, 7, 1))
    assert t_rows.shape == t_text.shape and not np.allclose(t_rows, t_text)
    u = lpx.section_unit_norm(prob, base, p=5)
    assert u["naive_unit_norm"] == pytest.approx(u["naive"], rel=1e-7)
    assert u["compact"] == pytest.approx(u["naive"], rel=1e-7)
    # the LP optimum bounds the exact one from above in every reading
    for rd in ("text", "all-entries", "with-eigenvector"):
        m = lpx.lp_metrics(prob, base, lpx.reading_tau(rd, prob, 5, lpx.draw_rng(0, 5, 0)))
        assert m["objective"] >= base.objective - 1e-9
        assert m["objective_at_lp_point"] <= m["objective"] + 1e-9


def test_top_eigenvector_reach_drives_E_b_on_aural_sonar(lpx, load_uw):
    load_uw("aural_sonar")  # skips when ../shared/data is absent
    res = lpx.investigate(datasets=("aural_sonar",), p_values=(10,), n_draws=2,
                          readings=("text", "text-top-1/sqrt(n)"), extras=False,
                          check_report=False)
    d = res["datasets"]["aural_sonar"]
    top = d["coverage"]["rows"][0]
    assert top["z"] < -5 and top["p_reach_200"] < 1e-6  # text draws cannot reach c~*_top
    text = d["readings"]["text"]["10"]
    assert all(x["E_b"] > 150 for x in text["draws"])
    # b is unique at the LP optimum: E_b is not a vertex choice
    assert text["summary"]["E_b_hi"][0] - text["summary"]["E_b_lo"][0] < 5
    other = d["readings"]["text-top-1/sqrt(n)"]["10"]["summary"]
    assert other["E_b"][0] < 0.5 * text["summary"]["E_b"][0]
