"""Command line interface: ``proxlearn datasets | info | demo``.

Errors in the user's input (unknown data set, missing or malformed file) exit
with status 2 and a one-line ``proxlearn: error: ...`` message on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import __version__

__all__ = ["main", "run_demo"]


class _UserError(Exception):
    """Bad input reported as one line, exit status 2."""


def _console():
    from rich.console import Console

    console = Console(file=sys.stdout)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = 160  # piped output: do not squeeze tables into 80 columns
    return console


def _fmt(x, digits=4):
    return "-" if x is None else f"{x:.{digits}g}"


def _load(name, data_home):
    from ._validation import LabelError, SimilarityMatrixError
    from .datasets import load_dataset

    try:
        return load_dataset(name, data_home=data_home)
    except (FileNotFoundError, SimilarityMatrixError, LabelError) as exc:
        raise _UserError(str(exc)) from None


def _cmd_datasets(args, console) -> int:
    from rich.table import Table

    from .datasets import list_datasets

    table = Table(title="proxlearn data sets")
    table.add_column("name", no_wrap=True)
    for col in ("available", "from", "n", "kind", "description"):
        table.add_column(col, overflow="fold")
    for r in list_datasets(args.data_home):
        table.add_row(r.name, "yes" if r.available else "no",
                      r.location if r.available else r.reason, str(r.n), r.kind,
                      r.description)
    console.print(table)
    return 0


def _info_table(info: dict):
    from rich.table import Table

    t = Table(title=f"{info['name']}", show_header=False)
    t.add_column("property", style="bold")
    t.add_column("value", overflow="fold")
    counts = ", ".join(f"{k}: {v}" for k, v in info["class_counts"].items())
    d = info["diagonal"]
    rows = [
        ("source", info["source"]),
        ("kind", info["kind"]),
        ("n", str(info["n"])),
        ("classes", f"{info['n_classes']} ({counts})"),
        ("symmetric", f"{'yes' if info['symmetric'] else 'no'} "
                      f"(asymmetry {_fmt(info['asymmetry'], 3)})"),
        ("diagonal min/mean/max",
         f"{_fmt(d['min'])} / {_fmt(d['mean'])} / {_fmt(d['max'])}"),
        ("sparsity (exact zeros)", _fmt(info["sparsity"], 3)),
        ("negative eigenvalues",
         f"{info['n_negative_eigenvalues']} "
         f"(|lambda| > {info['eigenvalue_rtol']:g} max|lambda|)"),
        ("lambda_min", _fmt(info["lambda_min"])),
        ("lambda_max", _fmt(info["lambda_max"])),
        ("|lambda_min / lambda_max|", _fmt(info["lambda_ratio"], 3)),
        ("|sum neg / sum pos|", _fmt(info["negative_mass_ratio"], 3)),
    ]
    for k, v in rows:
        t.add_row(k, v)
    return t


def _cmd_info(args, console) -> int:
    from .datasets import describe

    ds = _load(args.dataset, args.data_home)
    info = describe(ds)
    if args.plot:
        from .plotting import plot_dataset

        plot_dataset(ds, args.plot)
    if args.json:
        print(json.dumps(info))
    else:
        console.print(_info_table(info))
        if args.plot:
            console.print(f"plot written to {args.plot}")
    return 0


def run_demo(out_dir, console, *, data_home=None, names=None) -> list[dict]:
    """Describe and plot every embedded data set (and the UW sets if found).

    Prints one summary table to ``console`` and writes ``<name>.png`` per data
    set into ``out_dir``. Returns the :func:`proxlearn.datasets.describe`
    dictionaries, each with an extra ``plot`` key.
    """
    from rich.table import Table

    from .datasets import describe, list_datasets, load_dataset
    from .plotting import plot_dataset

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    records = [r for r in list_datasets(data_home) if r.available
               and (names is None or r.name in names)]
    results = []
    table = Table(title="proxlearn demo: data sets")
    table.add_column("name", no_wrap=True)
    for col in ("n", "classes", "neg. eig.", "lambda_min", "lambda_max",
                "|neg/pos| mass", "plot"):
        table.add_column(col, overflow="fold")
    for r in records:
        ds = load_dataset(r.name, data_home=data_home)
        info = describe(ds)
        plot = out_dir / f"{r.name}.png"
        plot_dataset(ds, plot)
        info["plot"] = str(plot)
        results.append(info)
        table.add_row(r.name, str(info["n"]), str(info["n_classes"]),
                      str(info["n_negative_eigenvalues"]), _fmt(info["lambda_min"]),
                      _fmt(info["lambda_max"]), _fmt(info["negative_mass_ratio"], 3),
                      plot.name)
    console.print(table)
    console.print(f"plots written to {out_dir}")
    return results


def _cmd_demo(args, console) -> int:
    run_demo(args.out, console, data_home=args.data_home)
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="proxlearn",
        description="Learning from similarity data: inspect the bundled and UW data sets.",
    )
    p.add_argument("--version", action="version", version=f"proxlearn {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    home = dict(metavar="DIR", default=None,
                help="extra folder searched first for data files (see PROXLEARN_DATA)")

    d = sub.add_parser("datasets", help="list registered data sets and where they are")
    d.add_argument("--data-home", **home)
    d.set_defaults(func=_cmd_datasets)

    i = sub.add_parser("info", help="size, symmetry and spectrum of a data set")
    i.add_argument("dataset", help="registered name or path to a .mat/.npz/.csv/.txt file")
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.add_argument("--plot", metavar="FILE.png", help="draw matrix and spectrum to FILE")
    i.add_argument("--data-home", **home)
    i.set_defaults(func=_cmd_info)

    m = sub.add_parser("demo", help="summarise and plot every available data set")
    m.add_argument("--out", metavar="DIR", default="proxlearn-demo",
                   help="folder for the plots (default: ./proxlearn-demo)")
    m.add_argument("--data-home", **home)
    m.set_defaults(func=_cmd_demo)
    return p


def main(argv=None) -> int:
    """Run the ``proxlearn`` command; returns the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return int(exc.code or 0)
    try:
        return args.func(args, _console())
    except (_UserError, OSError) as exc:  # OSError: e.g. --plot/--out not writable
        msg = " ".join(str(exc).split())
        print(f"proxlearn: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
