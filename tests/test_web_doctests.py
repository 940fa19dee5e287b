"""The web modules' doctests, so that `make test` (which collects tests/ only) runs them too."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["web.config", "web.camera", "web.events", "web.i18n", "web.pages", "web.stream"])
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
