"""README's tree table is generated from Package.swift (Tests/readme_tree.py, `make embed`): it
cannot drift from the targets, and a target cannot be added without saying what it is."""
import pathlib
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(pathlib.Path(ROOT) / "Tests"))
import readme_tree  # noqa: E402


@pytest.mark.driver_independent
def test_the_readme_tree_is_the_one_package_swift_gives():
    readme = (pathlib.Path(ROOT) / "README.md").read_text()
    assert readme_tree.table() in readme, "README's tree table is stale: run `make embed`"


@pytest.mark.driver_independent
def test_every_source_folder_is_a_target_with_a_row():
    paths = {path for path, _ in readme_tree.rows((pathlib.Path(ROOT) / "Package.swift").read_text())}
    folders = {f"Sources/{p.name}" for p in (pathlib.Path(ROOT) / "Sources").iterdir() if p.is_dir()}
    assert folders == {p for p in paths if p.startswith("Sources/")}


@pytest.mark.driver_independent
def test_a_target_without_a_readme_line_is_refused():
    package = '        // Layers.\n        .target(name: "Mystery", path: "Sources/Mystery"),\n'
    with pytest.raises(SystemExit, match="Mystery has no `/// README:` line"):
        readme_tree.rows(package)
    assert readme_tree.rows('        /// README: a thing\n        /// that continues\n        .target(name: "T", path: "Sources/T"),') == [
        ("Sources/T", "a thing that continues")]
