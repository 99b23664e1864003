"""Every standing mutant still plants its bug: a mutant that no longer finds its anchor would make
`make mutants` report it, but only when someone runs it — so `make test` checks each one finds the
code it changes, exactly once (docs/testing.md, "The mutation check")."""
import pathlib
import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(pathlib.Path(ROOT) / "Tests" / "mutants"))
from mutant import MutantError, parse  # noqa: E402

MUTANTS = sorted((pathlib.Path(ROOT) / "Tests" / "mutants").glob("*.mutant"))


@pytest.mark.driver_independent
def test_there_are_mutants_and_no_leftover_patches():
    assert len(MUTANTS) > 100
    assert not list((pathlib.Path(ROOT) / "Tests" / "mutants").glob("*.patch")), "mutants are .mutant files now"


@pytest.mark.driver_independent
@pytest.mark.parametrize("path", MUTANTS, ids=[p.stem for p in MUTANTS])
def test_the_mutant_still_finds_its_anchor(path):
    try:
        mutant = parse(path.read_text(), path.stem)
        planted = mutant.planted(ROOT)
    except MutantError as error:
        pytest.fail(f"{path.name}: {error}: update the mutant to plant the same bug in the code as it is now")
    header = mutant.header
    assert header["Breaks"] and (header["Swift"] or header["Live"] or header["Client"]), f"{path.name}: the header names no test"
    assert all(text != (pathlib.Path(ROOT) / name).read_text() for name, text in planted.items()), f"{path.name} changes nothing"


@pytest.mark.driver_independent
@pytest.mark.parametrize("text, error", [
    ("Breaks: x\nSwift: Y\n\n*** Tests/mutants/mutant.py\n@@\n-import nothing_here\n+import x\n", "occurs 0 times"),
    ("Breaks: x\nSwift: Y\n\n*** Tests/mutants/mutant.py\n@@\n-\n+x\n", "no anchor"),
    ("Breaks: x\nSwift: Y\n\n*** Tests/mutants/mutant.py\n@@\n import dataclasses\n", "changes nothing"),
    ("Breaks: x\nSwift: Y\n\n*** Tests/mutants/mutant.py\n-import dataclasses\n", "before its '@@'"),
    ("Breaks: x\nSwift: Y\n", "no '*** path' line"),
    ("Breaks: x\nSwift: Y\n\n*** Tests/mutants/mutant.py\n@@\n     return out\n+    pass\n", "occurs 2 times"),
])
def test_a_mutant_that_cannot_plant_says_why(text, error):
    with pytest.raises(MutantError, match=re.escape(error)):
        parse(text, "broken").planted(ROOT)


@pytest.mark.driver_independent
def test_an_anchor_matches_whole_lines_and_only_its_own_change():
    root = pathlib.Path(ROOT)
    source = (root / "Tests" / "mutants" / "mutant.py").read_text()
    # "dataclass" is the tail of "@dataclasses.dataclass" lines and of "import dataclasses": as a whole
    # line it is nowhere, so it is not an anchor.
    with pytest.raises(MutantError, match="occurs 0 times"):
        parse("Breaks: x\nSwift: Y\n\n*** Tests/mutants/mutant.py\n@@\n-dataclass\n+x\n", "partial").planted(ROOT)
    planted = parse("Breaks: x\nSwift: Y\n\n*** Tests/mutants/mutant.py\n@@\n-import pathlib\n+import pathlib as p\n", "ok").planted(ROOT)
    assert planted["Tests/mutants/mutant.py"] == source.replace("\nimport pathlib\n", "\nimport pathlib as p\n", 1)
