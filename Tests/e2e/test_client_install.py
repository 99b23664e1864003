"""XizorKit installs as documented: every install snippet in README.md and docs/*.md (a ```swift block
that declares a package dependency, `.package(`) is marked `<!-- install: NAME … -->` and is a whole
Package.swift, which is built here into a throwaway app exactly as written. The one substitution is
the repository's documented URL, replaced by the file:// URL of a copy of this working tree (its
tracked and untracked files, committed in a fresh git repository and tagged `XizorKitVersion.current`,
as a release is tagged); the path form finds the same copy as `../xizor`. Each app uses XizorKit's
public API, must build, and must have compiled XizorKit and nothing of the server.

The snippet these replaced (`.package(path: "../xizor/clients/swift")` with `package: "XizorKit"`,
whose package is really named `swift`) is built the same way and must fail, so the method can fail.

About 25 s on the 2-core machine: two XizorKit debug builds (~10 s each) and a failed resolution."""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import ROOT
from test_container import BUILD_LOCK, ancestor_holds_build_lock

# Builds apps against a copy of the tree; touches no database.
pytestmark = pytest.mark.driver_independent

REPOSITORY = "https://github.com/xizor/xizor.git"
DOCS = [pathlib.Path(ROOT) / "README.md", *sorted((pathlib.Path(ROOT) / "docs").rglob("*.md"))]
MARKED = re.compile(r"<!-- install: (\w+)[^\n]*-->\n```swift\n(.*?)\n```", re.S)
FENCE = re.compile(r"```swift\n(.*?)\n```", re.S)

# docs/client-swift.md's "Add it" before the repository's root vended XizorKit, in the same manifest.
OLD_SNIPPET = """// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MyApp",
    platforms: [.iOS(.v15), .macOS(.v12)],
    dependencies: [
        .package(path: "../xizor/clients/swift"),
    ],
    targets: [
        .target(name: "MyApp", dependencies: [.product(name: "XizorKit", package: "XizorKit")]),
    ]
)"""

# What the app's target holds: XizorKit's public API in use, so a build that resolves but cannot import
# or type-check it fails.
USE = """import Foundation
import XizorKit

public func makeXizor() throws -> Xizor {
    var configuration = XizorConfiguration(publicKey: "pk_test", baseURL: URL(string: "https://api.xizor.dev")!)
    configuration.appVersion = XizorKitVersion.current
    return try Xizor(configuration: configuration)
}
"""


def snippets():
    """{name: manifest} of the marked blocks, after checking that every install block is marked."""
    found = {}
    for doc in DOCS:
        text = doc.read_text()
        marked = {match.start(2): (match.group(1), match.group(2)) for match in MARKED.finditer(text)}
        for block in FENCE.finditer(text):
            if ".package(" not in block.group(1):
                continue
            where = f"{doc.relative_to(ROOT)}:{text[:block.start()].count(chr(10)) + 1}"
            assert block.start(1) in marked, f"{where}: an install snippet without an `<!-- install: NAME -->` line"
            name, manifest = marked[block.start(1)]
            assert name not in found, f"{where}: a second install snippet named {name}"
            found[name] = manifest
    return found


def kit_version():
    source = (pathlib.Path(ROOT) / "clients/swift/Sources/XizorKit/Transport.swift").read_text()
    return re.search(r'public static let current = "([^"]+)"', source).group(1)


def run(command, cwd, timeout=120):
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(command)}: {proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    return proc


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A folder holding `xizor`: this working tree as a release would publish it, a git repository
    whose one commit is tagged with XizorKit's version. (A `git clone` of ROOT would miss what is not
    committed yet.) The apps are made beside it, so `../xizor` is it."""
    base = tmp_path_factory.mktemp("install")
    copy = base / "xizor"
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT).stdout
    for name in filter(None, listed.split("\0")):
        source = pathlib.Path(ROOT) / name
        if source.is_file() or source.is_symlink():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name, follow_symlinks=False)
    git = ["git", "-c", "user.name=Xizor test", "-c", "user.email=test@xizor.invalid", "-c", "commit.gpgsign=false",
           "-c", "tag.gpgsign=false"]
    run(git + ["init", "-q"], copy)
    run(git + ["add", "-A"], copy)
    run(git + ["commit", "-q", "-m", "release"], copy)
    version = kit_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"releases are MAJOR.MINOR.PATCH tags, not {version!r}"
    run(git + ["tag", version], copy)
    return base


def build(base, name, manifest):
    """Makes the app `base/name` from `manifest` as given and builds it; answers (process, app folder, target name)."""
    app = base / name
    target = re.search(r'\.(?:target|executableTarget)\(name: "([^"]+)"', manifest).group(1)
    (app / "Sources" / target).mkdir(parents=True)
    (app / "Package.swift").write_text(manifest + "\n")
    (app / "Sources" / target / "Use.swift").write_text(USE)
    lock = [] if ancestor_holds_build_lock() else ["flock", BUILD_LOCK]
    # The dependency and manifest caches stay in the app's own .build, not the user's shared ones.
    command = [*lock, "swift", "build", "--disable-dependency-cache", "--manifest-cache", "local"]
    proc = subprocess.run(command, cwd=app, capture_output=True, text=True, timeout=900)
    return proc, app, target


def assert_only_xizorkit_compiled(proc, app, target):
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    compiled = set(re.findall(r"\] Compiling (\S+) ", output))
    assert "XizorKit" in compiled, output[-4000:]
    assert compiled <= {"XizorKit", target}, f"the app's build compiled parts of the server: {compiled}"
    # SwiftPM lays out a folder for every target of the package's products; only two may hold objects.
    debug = app / ".build" / "debug"
    with_objects = {path.parent.name for path in debug.rglob("*.o") if path.parent.name.endswith(".build")}
    assert with_objects == {"XizorKit.build", f"{target}.build"}, with_objects
    modules = {path.stem for path in (debug / "Modules").glob("*.swiftmodule")}
    assert modules == {"XizorKit", target}, modules


def test_every_install_snippet_is_marked_and_names_the_repository():
    found = snippets()
    assert set(found) == {"url", "path"}, set(found)
    assert found["url"].count(REPOSITORY) == 1, f"the URL form names {REPOSITORY}"
    xcode = re.search(r"\*\*Xcode:\*\*(.*?)\n\n", (pathlib.Path(ROOT) / "docs/client-swift.md").read_text(), re.S)
    assert xcode and f"`{REPOSITORY}`" in xcode.group(1), "Xcode is given the same URL"
    for manifest in found.values():
        assert '.product(name: "XizorKit", package: "xizor")' in manifest


def test_the_url_snippet_builds_xizorkit_alone_from_a_version_tag(base):
    manifest = snippets()["url"]
    assert manifest.count(REPOSITORY) == 1
    # The only substitution: the repository's URL for the copy's. Its last path component is still
    # `xizor`, so the package's identity is what the snippet names.
    proc, app, target = build(base, "url-app", manifest.replace(REPOSITORY, (base / "xizor").as_uri()))
    assert_only_xizorkit_compiled(proc, app, target)
    resolved = (app / "Package.resolved").read_text()
    assert '"identity" : "xizor"' in resolved and f'"version" : "{kit_version()}"' in resolved, resolved


def test_the_path_snippet_builds_xizorkit_alone(base):
    manifest = snippets()["path"]
    assert '.package(path: "../xizor")' in manifest
    proc, app, target = build(base, "path-app", manifest)
    assert_only_xizorkit_compiled(proc, app, target)


def test_the_snippet_these_replaced_does_not_resolve(base):
    proc, _, _ = build(base, "old-app", OLD_SNIPPET)
    assert proc.returncode != 0
    assert "unknown package 'XizorKit'" in proc.stderr + proc.stdout, proc.stderr[-2000:]
