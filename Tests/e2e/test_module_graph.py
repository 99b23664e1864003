"""The layers' boundaries are the package's dependency graph (docs/architecture.md), and `make`
builds with `--explicit-target-dependency-import-check error`, so an import across a boundary does
not compile. This checks the graph itself: the domain cannot reach HTTP, the surfaces cannot reach a
store or a database driver, the stores cannot reach the surfaces, and the client library apps add
(XizorKit) reaches nothing of the server."""
import json
import pathlib
import subprocess

import pytest

from conftest import ROOT


def package():
    out = subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    ).stdout
    return json.loads(out)


def graph(manifest=None):
    edges = {}
    for target in (manifest or package())["targets"]:
        names = []
        for dependency in target["dependencies"]:
            (kind, value), = dependency.items()
            names.append(value[0])
        edges[target["name"]] = names
    return edges


def reachable(edges, start):
    seen, todo = set(), [start]
    while todo:
        for name in edges.get(todo.pop(), []):
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return seen


@pytest.mark.driver_independent
def test_the_layers_reach_only_what_they_may():
    edges = graph()
    assert "HTTP" not in reachable(edges, "XizorDomain")
    assert "Execution" in reachable(edges, "XizorDomain")
    surface = reachable(edges, "XizorAPI")
    assert "XizorDomain" in surface and "HTTP" in surface
    assert not {"XizorStores", "PostgresStorage", "CPostgreSQL"} & surface
    stores = reachable(edges, "XizorStores")
    assert "XizorDomain" in stores and not {"XizorAPI", "HTTP"} & stores
    # The composition root is the one place that sees them all.
    assert {"XizorAPI", "XizorStores"} <= reachable(edges, "XizorCLI")


@pytest.mark.driver_independent
def test_the_client_library_depends_on_no_server_target():
    # Apps add XizorKit by this repository's URL (docs/client-swift.md): its product must bring its one
    # target, which must depend on nothing here, so an app's build compiles none of the server.
    manifest = package()
    products = {product["name"]: product["targets"] for product in manifest["products"]}
    assert products["XizorKit"] == ["XizorKit"]
    # Its one dependency is libcrypto's module map, on Linux only (Apple platforms verify with CryptoKit).
    assert graph(manifest)["XizorKit"] == ["CXizorKitCrypto"]
    crypto = next(target for target in manifest["targets"] if target["name"] == "CXizorKitCrypto")
    assert crypto["type"] == "system" and crypto["path"] == "clients/swift/Sources/CXizorKitCrypto"
    kit = next(target for target in manifest["targets"] if target["name"] == "XizorKit")
    assert kit["path"] == "clients/swift/Sources/XizorKit", "the same sources as clients/swift's package"


@pytest.mark.driver_independent
def test_make_builds_with_the_import_check():
    makefile = (pathlib.Path(ROOT) / "Makefile").read_text()
    assert "CHECKED := --explicit-target-dependency-import-check error" in makefile
    assert "$(SWIFT) build $(CHECKED)" in makefile and "$(SWIFT) test $(CHECKED)" in makefile
