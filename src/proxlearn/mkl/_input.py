"""The multi-similarity input checks, re-exported where the MKL code has always
imported them (they live in :mod:`proxlearn._multi_input`, the lowest layer, so
that ``datasets`` and ``transforms`` can use them too)."""

from .._multi_input import check_multi_similarity, check_multi_test, check_psd_stack, psd_violation

__all__ = ["check_multi_similarity", "check_multi_test", "check_psd_stack", "psd_violation"]
