"""Every standing mutant still plants its bug: a patch that no longer applies would make `make mutants`
report it, but only when someone runs it — so `make test` checks they apply (docs/testing.md)."""
import pathlib
import subprocess

import pytest

from conftest import ROOT

PATCHES = sorted((pathlib.Path(ROOT) / "Tests" / "mutants").glob("*.patch"))


@pytest.mark.driver_independent
@pytest.mark.parametrize("patch", PATCHES, ids=[p.stem for p in PATCHES])
def test_the_mutant_still_applies(patch):
    # --check changes nothing; outside a git work tree `git apply` works like patch(1).
    r = subprocess.run(["git", "apply", "--check", "--whitespace=nowarn", str(patch)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, f"{patch.name} no longer applies: re-cut it against the code it mutates\n{r.stderr}"
