#!/usr/bin/env python3
"""Hostile clients for bench/abuse.bench.sh (issue 14's socket figures), in one asyncio process.

  hostile_clients.py HOST PORT SECONDS [--slow N] [--preamble N] [--bodies N] [--key KEY]

--slow N      N connections sending a request head one byte a second (slowloris)
--preamble N  N connections sending a bare CRLF a second before any request line
--bodies N    N connections announcing a 1 MiB body to POST /v1/sdk/events and sending it as fast
              as the server takes it (without Authorization unless --key is given)

Every connection the server closes is opened again at once, so the pressure stays at N for the
whole run. At the end one JSON line: connections opened, closed by the server, body bytes the
server accepted, and the status lines seen.
"""
import asyncio, json, resource, sys, time
from collections import Counter

BODY = 1 << 20
CHUNK = b"x" * 65536
stats = {"opened": 0, "closedByServer": 0, "bodyBytesSent": 0, "connectErrors": 0}
statuses = Counter()


async def read_status(reader):
    try:
        line = await asyncio.wait_for(reader.readline(), timeout=0.5)
    except (asyncio.TimeoutError, ConnectionError):
        return
    if line.startswith(b"HTTP/"):
        statuses[line.split(b" ")[1].decode()] += 1


async def forever(kind, host, port, deadline, key):
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            stats["connectErrors"] += 1
            await asyncio.sleep(0.05)
            continue
        stats["opened"] += 1
        try:
            if kind == "slow":
                head = b"GET /v1/sdk/placements/onboarding/paywall HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4000
                for i in range(len(head)):
                    if time.monotonic() >= deadline:
                        break
                    writer.write(head[i:i + 1]); await writer.drain()
                    await asyncio.sleep(1)
            elif kind == "preamble":
                while time.monotonic() < deadline:
                    writer.write(b"\r\n"); await writer.drain()
                    await asyncio.sleep(1)
            else:
                auth = f"Authorization: Bearer {key}\r\n".encode() if key else b""
                writer.write(b"POST /v1/sdk/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + auth
                             + f"Content-Length: {BODY}\r\n\r\n".encode())
                sent = 0
                while sent < BODY and time.monotonic() < deadline:
                    writer.write(CHUNK); await writer.drain()
                    sent += len(CHUNK); stats["bodyBytesSent"] += len(CHUNK)
                await read_status(reader)
        except (ConnectionError, OSError):
            if kind == "bodies":
                await read_status(reader)  # the answer sent before the server stopped reading
        if time.monotonic() < deadline:
            stats["closedByServer"] += 1
            if kind != "bodies":
                await read_status(reader)
        writer.close()


async def main():
    host, port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    args = sys.argv[4:]
    counts = {"slow": 0, "preamble": 0, "bodies": 0}
    key = None
    while args:
        flag, value = args[0], args[1]; args = args[2:]
        if flag == "--key":
            key = value
        else:
            counts[flag.lstrip("-")] = int(value)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    deadline = time.monotonic() + seconds
    tasks = [forever(kind, host, port, deadline, key) for kind, n in counts.items() for _ in range(n)]
    await asyncio.gather(*tasks)
    print(json.dumps({**stats, "statuses": dict(statuses)}), flush=True)


asyncio.run(main())
