"""The reproduction report's plugins: one package per founding paper.

Each package defines ``SECTIONS`` (its :class:`~proxlearn.study._section.Section`
objects, in report order), ``PAPER`` (the name its claims are listed under, or
``None``) and ``claims(sections) -> [(claim, verdict)]``, and imports the modules that
register its methods. A new reproduction section goes into its paper's package (a
new paper: a new package, added to :data:`PAPERS`).
"""

from . import beyond, chen2009, chen2010, gu2012, kundu2010, multi, zhuang2011

#: Report order: the papers, then the comparisons on other data.
PAPERS = (chen2009, chen2010, gu2012, kundu2010, zhuang2011, multi, beyond)


def paper_claims(sections: dict) -> list[tuple[str, str, str]]:
    """(paper, claim as we read it, verdict) for every paper's conclusions, in
    :data:`PAPERS` order."""
    return [(paper.PAPER, text, verdict) for paper in PAPERS if paper.PAPER
            for text, verdict in paper.claims(sections)]
