"""Which database the live tests run the server on (docs/testing.md, "Both databases").

`make test-e2e` runs the suite twice: with XIZOR_E2E_DRIVER=sqlite (every test), then with
XIZOR_E2E_DRIVER=postgres on the throwaway cluster Tests/postgres/with-cluster.sh starts (every test
that touches a database; modules marked `driver_independent` never do, tests marked `sqlite_only`
are about the SQLite file itself). On PostgreSQL each data directory a test uses stands for one
database, so two servers started on one data directory share one database, as on SQLite.
"""
import hashlib
import os
import pathlib
import sqlite3
import subprocess

DRIVER = os.environ.get("XIZOR_E2E_DRIVER", "sqlite")
assert DRIVER in ("sqlite", "postgres"), f"XIZOR_E2E_DRIVER is sqlite or postgres, not {DRIVER}"
_created = set()


def server_url():
    url = os.environ.get("XIZOR_TEST_POSTGRES_URL")
    if not url:
        raise AssertionError("XIZOR_E2E_DRIVER=postgres needs XIZOR_TEST_POSTGRES_URL: run Tests/postgres/with-cluster.sh")
    return url


def database_url(data_dir):
    """The PostgreSQL database standing for `data_dir` (created on first use)."""
    path = str(pathlib.Path(data_dir).resolve())
    name = "xizor_e2e_" + hashlib.sha1(path.encode()).hexdigest()[:20]
    server = server_url()
    if name not in _created:
        exists = subprocess.run(["psql", server, "-Atc", f"SELECT 1 FROM pg_database WHERE datname = '{name}'"],
                                capture_output=True, text=True, check=True).stdout.strip()
        if exists != "1":
            subprocess.run(["psql", server, "-qc", f"CREATE DATABASE {name}"], capture_output=True, text=True, check=True)
        _created.add(name)
    return f"{server} dbname={name}"


def storage_env(data_dir):
    """Environment variables that put a command for `data_dir` on the configured database."""
    if DRIVER == "sqlite":
        return {}
    return {"XIZOR_STORAGE_DRIVER": "postgres", "XIZOR_STORAGE_POSTGRES_URL": database_url(data_dir)}


def query_value(data_dir, sql):
    """The first column of the first row of `sql` on the database of `data_dir` (None when no row), as
    a string: for tests that look at what the server stored, on either database."""
    if DRIVER == "sqlite":
        db = sqlite3.connect(pathlib.Path(data_dir) / "xizor.sqlite", timeout=10)
        try:
            row = db.execute(sql).fetchone()
        finally:
            db.close()
        return None if row is None or row[0] is None else str(row[0])
    out = subprocess.run(["psql", database_url(data_dir), "-Atc", sql], capture_output=True, text=True,
                         check=True).stdout.strip()
    return out or None
