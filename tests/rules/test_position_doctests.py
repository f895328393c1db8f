"""The examples in the engine core's docstrings and in docs/rules-engine.md run and hold."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

MODULES = ["rules.position", "rules.dice", "rules.play", "rules.movegen", "rules.ids", "rules.diagram", "rules.perft"]
DOC = Path(__file__).resolve().parents[2] / "docs" / "rules-engine.md"


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_rules_engine_doc_examples():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0
