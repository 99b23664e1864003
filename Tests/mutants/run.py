#!/usr/bin/env python3
"""The standing mutation check: `make mutants`.

Each `Tests/mutants/*.mutant` plants one small bug in a behaviour that must never break, anchored on
the code it changes (mutant.py says how). Its header names the tests that must catch it:

    Breaks: what a user would suffer if this shipped
    Swift: a `swift test --filter` regular expression      (optional)
    Live: a pytest node id under Tests/e2e                  (optional, repeatable)
    Client: a `swift test --filter` expression for the Swift client package (clients/swift, optional)
    Driver: postgres                                        (optional: the live tests' database pass;
                                                             sqlite unless said, or a test_postgres.py node)

The check copies the working tree to a scratch directory (`.build/mutants/tree`, kept between runs
so builds are incremental), builds it and runs every named test once unmutated (they must pass);
then, for each mutant in turn, plants it, rebuilds and runs its tests, which must FAIL: the
Swift filter (when given) and the live tests (when given) each have to catch it. The scratch file is
restored from the working tree after each mutant. Exit 0 when every mutant is caught; otherwise
exit 1, naming each survivor (or a mutant that no longer finds its anchor or builds).

    python3 Tests/mutants/run.py            # every mutant
    python3 Tests/mutants/run.py NAME ...   # some of them
    python3 Tests/mutants/run.py --list     # what each one breaks and who catches it
"""
import argparse
import dataclasses
import os
import pathlib
import shutil
import subprocess
import sys
import time

from mutant import MutantError, parse

ROOT = pathlib.Path(__file__).resolve().parents[2]
MUTANTS = ROOT / "Tests" / "mutants"
SCRATCH = pathlib.Path(os.environ.get("XIZOR_MUTANTS_DIR", ROOT / ".build" / "mutants"))
TREE = SCRATCH / "tree"
PYTHON = os.environ.get("XIZOR_MUTANTS_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
TIMEOUT = int(os.environ.get("XIZOR_MUTANTS_TIMEOUT", "900"))


# Sources embedded in the binary by a generator: a mutant of one is re-embedded (and the generated
# file restored with it afterwards), so the mutant holds only the source line it breaks.
EMBEDDED = {
    "Sources/XizorConsole/Site/": ("Sources/XizorConsole/embed-console.py", "Sources/XizorConsole/EmbeddedConsole.swift"),
    "Sources/PaywallRenderer/Runtime/": ("Sources/PaywallRenderer/embed-runtime.py", "Sources/PaywallRenderer/RuntimeScript.swift"),
    "Migrations/postgres/": ("Migrations/embed.py", "Sources/XizorDomain/Schema/EmbeddedPostgresMigrations.swift"),
    "Migrations/0": ("Migrations/embed.py", "Sources/XizorDomain/Schema/EmbeddedMigrations.swift"),
}


@dataclasses.dataclass
class Mutant:
    name: str
    path: pathlib.Path
    breaks: str
    swift: list
    live: list
    client: list
    driver: str = "sqlite"

    @property
    def changes(self):
        return parse(self.path.read_text(), self.name)

    @property
    def files(self):
        """The files the mutant changes (restored from the working tree afterwards)."""
        return self.changes.paths

    @property
    def generators(self):
        """(generator, generated file) for each embedded source the mutant changes."""
        return sorted({embed for prefix, embed in EMBEDDED.items() if any(n.startswith(prefix) for n in self.files)})

    @property
    def embedded(self):
        """Files regenerated from the mutated ones (restored with them afterwards)."""
        return [generated for _, generated in self.generators]


def load(path):
    try:
        fields = parse(path.read_text(), path.stem).header
    except MutantError as error:
        raise SystemExit(str(error))
    # test_postgres.py runs in the PostgreSQL pass only: its mutants' tests run there.
    postgres = fields["Driver"] == ["postgres"] or any(n.startswith("Tests/e2e/test_postgres.py") for n in fields["Live"])
    mutant = Mutant(path.stem, path, " ".join(fields["Breaks"]), fields["Swift"], fields["Live"], fields["Client"],
                    "postgres" if postgres else "sqlite")
    if not mutant.breaks or not (mutant.swift or mutant.live or mutant.client):
        raise SystemExit(f"{path.name}: a mutant needs 'Breaks:' and at least one 'Swift:', 'Live:' or 'Client:' line")
    return mutant


def plant(mutant, log):
    """Writes the mutated files into TREE; False (and why, in the log) when an anchor is not found."""
    try:
        planted = mutant.changes.planted(TREE)
    except MutantError as error:
        with open(log, "a") as out:
            out.write(f"{error}\n")
        return False
    for name, text in planted.items():
        (TREE / name).write_text(text)
        os.utime(TREE / name)
    return True


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, check=True, capture_output=True).stdout
    return [name for name in out.decode().split("\0") if name and (ROOT / name).is_file()]


def sync():
    """Makes TREE a copy of the working tree, touching only files that differ (incremental builds)."""
    wanted = set(tracked_files())
    TREE.mkdir(parents=True, exist_ok=True)
    for name in wanted:
        restore(name)
    for path in TREE.rglob("*"):
        relative = path.relative_to(TREE).as_posix()
        if relative.startswith((".build/", ".venv/")) or relative in (".build", ".venv"):
            continue
        if path.is_file() and relative not in wanted:
            path.unlink()


def restore(name):
    source, target = ROOT / name, TREE / name
    if target.is_file() and target.read_bytes() == source.read_bytes():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    os.utime(target)  # newer than anything built from the mutated copy


def run(command, log, env=None):
    """Runs `command` in TREE; its output goes to `log`. Returns the exit code (None on timeout)."""
    with open(log, "ab") as out:
        out.write(f"\n$ {' '.join(command)}\n".encode())
        out.flush()
        try:
            return subprocess.run(command, cwd=TREE, stdout=out, stderr=subprocess.STDOUT, timeout=TIMEOUT,
                                  env={**os.environ, **(env or {})}).returncode
        except subprocess.TimeoutExpired:
            return None


def build(mutant_or_none, log, with_client=False):
    wants_tests = mutant_or_none is None or mutant_or_none.swift
    # Every product either way: the live HTTP tests run the HTTP fixture binary as well as `xizor`.
    if run(["swift", "build", "--build-tests"] if wants_tests else ["swift", "build"], log) != 0:
        return False
    # The client's tests run against the server just built.
    wants_client = mutant_or_none.client if mutant_or_none else with_client
    return not wants_client or run(["swift", "build", "--package-path", "clients/swift", "--build-tests"], log) == 0


def swift_tests(patterns, log):
    return run(["swift", "test", "--skip-build", "--filter", "|".join(patterns)], log)


def client_tests(patterns, log):
    return run(["swift", "test", "--package-path", "clients/swift", "--skip-build", "--filter", "|".join(patterns)], log,
               {"XIZOR_BIN": str(TREE / ".build" / "debug" / "xizor")})


def live_tests(nodes, log, driver):
    env = {"XIZOR_BIN": str(TREE / ".build" / "debug" / "xizor"), "XIZOR_ROOT": str(TREE),
           "XIZOR_HTTP_FIXTURE": str(TREE / ".build" / "debug" / "xizor-http-fixture"),
           "XIZOR_E2E_DRIVER": driver}
    return run([PYTHON, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *nodes], log, env)


def caught(code, runner):
    """A failing test run catches the mutant; pytest's 'no tests collected' (5) or usage errors do not."""
    if code is None:
        return True  # a hang is a failure too (the log says so)
    return code == 1 if runner == "live" else code != 0


def main():
    parser = argparse.ArgumentParser(description="Plants each named mutant and checks its tests catch it.")
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args()
    mutants = [load(p) for p in sorted(MUTANTS.glob("*.mutant"))]
    if args.names:
        unknown = set(args.names) - {m.name for m in mutants}
        if unknown:
            raise SystemExit(f"unknown mutants: {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m.name in args.names]
    if args.list:
        for m in mutants:
            print(f"{m.name}\n    breaks: {m.breaks}\n    swift:  {', '.join(m.swift) or '-'}\n    live:   {', '.join(m.live) or '-'}"
                  f"\n    client: {', '.join(m.client) or '-'}")
        return 0

    SCRATCH.mkdir(parents=True, exist_ok=True)
    log = SCRATCH / "mutants.log"
    log.write_text("")
    started = time.monotonic()
    print(f"mutants: {len(mutants)}; scratch copy {TREE}; log {log}", flush=True)
    sync()
    client_all = sorted({p for m in mutants for p in m.client})
    if not build(None, log, with_client=bool(client_all)):
        raise SystemExit(f"the unmutated copy does not build; see {log}")
    swift_all = sorted({p for m in mutants for p in m.swift})
    live_all = {driver: sorted({n for m in mutants if m.driver == driver for n in m.live}) for driver in ("sqlite", "postgres")}
    if swift_all and swift_tests(swift_all, log) != 0:
        raise SystemExit(f"the mutants' Swift tests fail without any mutant; see {log}")
    if client_all and client_tests(client_all, log) != 0:
        raise SystemExit(f"the mutants' client tests fail without any mutant; see {log}")
    for driver, nodes in live_all.items():
        if nodes and live_tests(nodes, log, driver) != 0:
            raise SystemExit(f"the mutants' live tests fail without any mutant on {driver}; see {log}")
    print(f"baseline: built, {len(swift_all)} Swift filters, {len(client_all)} client filters and {sum(map(len, live_all.values()))} live tests pass "
          f"({time.monotonic() - started:.0f} s)", flush=True)

    failures = []
    for mutant in mutants:
        t0 = time.monotonic()
        with open(log, "a") as out:
            out.write(f"\n=== mutant {mutant.name}\n")
        try:
            if not plant(mutant, log):
                verdict = "does not find its anchor (update the mutant)"
            elif all((TREE / name).read_bytes() == (ROOT / name).read_bytes() for name in mutant.files):
                verdict = "changed nothing (check the mutant)"
            elif any(run(["python3", generator], log) != 0 for generator, _ in mutant.generators):
                verdict = "does not embed (check the mutant)"
            elif not build(mutant, log):
                verdict = "does not build (update the mutant)"
            else:
                missed = []
                if mutant.swift and not caught(swift_tests(mutant.swift, log), "swift"):
                    missed.append("Swift")
                if mutant.live and not caught(live_tests(mutant.live, log, mutant.driver), "live"):
                    missed.append("live")
                if mutant.client and not caught(client_tests(mutant.client, log), "swift"):
                    missed.append("client")
                verdict = "caught" if not missed else f"SURVIVED the {' and '.join(missed)} tests"
        finally:
            for name in mutant.files + mutant.embedded:
                restore(name)
        if verdict != "caught":
            failures.append(mutant.name)
        print(f"{verdict:<12} {mutant.name:<34} {time.monotonic() - t0:6.1f} s   {mutant.breaks}", flush=True)

    total = time.monotonic() - started
    print(f"\n{len(mutants)} mutants, {len(mutants) - len(failures)} caught, {len(failures)} not; {total:.0f} s in all")
    if failures:
        print("not caught: " + ", ".join(failures) + f" (details in {log})")
        return 1
    return 0


if __name__ == "__main__":
    # The PostgreSQL tests need the throwaway cluster, as in `make test`: run inside it.
    if "XIZOR_TEST_POSTGRES_URL" not in os.environ:
        os.execv(str(ROOT / "Tests" / "postgres" / "with-cluster.sh"),
                 [str(ROOT / "Tests" / "postgres" / "with-cluster.sh"), sys.executable, *sys.argv])
    sys.exit(main())
