"""The storage benchmark's Python side: the same workloads as `xizor-storage-fixture bench`
through Python's sqlite3 module, same PRAGMAs (WAL, synchronous=FULL), same directory."""
import json
import os
import sqlite3
import sys
import time

INSERT_SQL = "INSERT INTO bench (id, name, amount) VALUES (?, ?, ?)"
READ_SQL = "SELECT name, amount FROM bench WHERE id = ?"


def report(name, ops, seconds, **extra):
    line = {"impl": "python", "workload": name, "ops": ops, "seconds": round(seconds, 4),
            "per_second": round(ops / seconds, 1), **extra}
    print(json.dumps(line), flush=True)


def main():
    directory = sys.argv[1]
    args = sys.argv[2:]
    quick = "--quick" in args
    durable_only = int(args[args.index("--durable-only") + 1]) if "--durable-only" in args else None
    single_rows = durable_only or (0 if "--no-durable" in args else (200 if quick else 3_000))
    batches = 20 if quick else 200
    batch_size = 1_000
    reads = 20_000 if quick else 300_000

    path = os.path.join(directory, "python-bench.sqlite")
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass
    # isolation_level=None: we issue BEGIN IMMEDIATE / COMMIT ourselves, exactly like the Swift side.
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute("CREATE TABLE bench (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount INTEGER NOT NULL)")

    row_id = 0
    start = time.perf_counter()
    for _ in range(single_rows):
        row_id += 1
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(INSERT_SQL, (row_id, f"name-{row_id}", row_id * 3))
        conn.execute("COMMIT")
    if single_rows:
        report("single_insert", single_rows, time.perf_counter() - start)
    if durable_only:
        return

    start = time.perf_counter()
    for _ in range(batches):
        first = row_id + 1
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(INSERT_SQL, ((i, f"name-{i}", i * 3) for i in range(first, first + batch_size)))
        conn.execute("COMMIT")
        row_id += batch_size
    report("batch_insert", batches * batch_size, time.perf_counter() - start)

    total = row_id
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    reader.execute("BEGIN")
    start = time.perf_counter()
    checksum = 0
    for i in range(reads):
        name, amount = reader.execute(READ_SQL, ((i * 7919) % total + 1,)).fetchone()
        checksum += amount + len(name.encode())
    report("point_read", reads, time.perf_counter() - start, checksum=checksum)
    reader.execute("COMMIT")

    single_inserts_without_fsync(os.path.join(directory, "python-bench-nosync.sqlite"), 2_000 if quick else 20_000)


def single_inserts_without_fsync(path, rows):
    """The same single-row transactions with synchronous=OFF: the cost of the layer itself."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("CREATE TABLE bench (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount INTEGER NOT NULL)")
    start = time.perf_counter()
    for row_id in range(1, rows + 1):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(INSERT_SQL, (row_id, f"name-{row_id}", row_id * 3))
        conn.execute("COMMIT")
    report("single_insert_nosync", rows, time.perf_counter() - start)
    conn.close()
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


if __name__ == "__main__":
    main()
