"""What the edge tests share (test_edge_cache.py, test_edge_replicas.py): `Edge`, a server and the
Varnish in front of it, with the path form's request as XizorKit sends it, the origin's own counts
from /metrics, and waiting for purges; helpers to make apps with published placements.
"""
import contextlib
import re
import time

import requests

from xizor_server import App, XizorServer, create_app

EDGE_PATH = "/v1/sdk/apps/{}/placements/{}/paywall"
OLD_PATH = "/v1/sdk/placements/{}/paywall"
JSON = {"Accept": "application/json"}
SHORT_S_MAXAGE, SHORT_SWR = 2, 1


class Edge:
    """A server and the Varnish in front of it (`purging`: the server's purges reach it)."""

    def __init__(self, server, varnish, purging=True):
        self.server = server
        self.varnish = varnish
        self.purging = purging
        self.session = requests.Session()

    def get(self, app, placement="onboarding", subscriber=None, headers=None, params=None):
        """The path form through Varnish, as XizorKit asks it (subscriber in a header, not the URL)."""
        h = dict(JSON)
        if subscriber:
            h["X-Xizor-Subscriber-Id"] = subscriber
        h.update(headers or {})
        return self.session.get(self.varnish.base + EDGE_PATH.format(app.public_key, placement), params=params,
                                headers=h, timeout=30)

    def old(self, app, placement="onboarding", headers=None, **params):
        """The authenticated endpoint (`Authorization: Bearer pk_…`), through Varnish (which passes it)."""
        return self.session.get(self.varnish.base + OLD_PATH.format(placement), params=params, timeout=30,
                                headers={"Authorization": f"Bearer {app.public_key}", **JSON, **(headers or {})})

    def origin_requests(self):
        """How many path-form requests reached the origin (its /metrics, asked directly)."""
        text = requests.get(self.server.base + "/metrics", timeout=10).text
        samples = re.findall(r'^xizor_http_requests_total\{route="/v1/sdk/apps/[^"]*"[^}]*\} ([0-9.e+]+)$', text, re.M)
        return sum(int(float(s)) for s in samples)

    def purges(self, outcome):
        """The origin's purge requests by outcome (`sent`: answered 2xx, `failed`: to be retried)."""
        text = requests.get(self.server.base + "/metrics", timeout=10).text
        match = re.search(rf'^xizor_cache_purges_total\{{outcome="{outcome}"\}} ([0-9.e+]+)$', text, re.M)
        assert match, f"xizor_cache_purges_total{{outcome={outcome!r}}} is not on /metrics"
        return int(float(match.group(1)))

    def mark(self):
        return self.purges("sent") if self.purging else None

    def settle(self, mark):
        """Waits until the purges of the writes made since `mark` have reached Varnish: more were sent,
        then none for 150 ms (the purger wakes on every commit). A ban added after an answer was
        stored evicts it, so a test that counts hits waits for its own setup's purges first."""
        if mark is None:
            return
        until(lambda: self.purges("sent") > mark, within=5)
        last, quiet_since = self.purges("sent"), time.monotonic()
        while time.monotonic() - quiet_since < 0.15:
            time.sleep(0.03)
            now = self.purges("sent")
            if now != last:
                last, quiet_since = now, time.monotonic()

    @contextlib.contextmanager
    def settled(self):
        mark = self.mark()
        yield
        self.settle(mark)


def hit(r):
    """Varnish answered from its store: X-Varnish names this request and the one that stored the answer."""
    return len(r.headers["X-Varnish"].split()) == 2


def vary(r):
    return {v.strip().lower() for v in r.headers.get("Vary", "").split(",") if v.strip()}


def published(app, template="clean", **extra):
    pw = app.create_paywall(template, **extra)
    app.publish(pw)
    return pw


def placed_app(edge, name="Edge app", placement="onboarding"):
    """A new app whose `placement` serves a published `clean` paywall (`app.paywall`), its purges done."""
    with edge.settled():
        app = App(edge.server, create_app(edge.server.base, name))
        app.paywall = published(app, name=name)
        app.assign(placement, app.paywall)
    return app


def set_rules(app, rules, placement="onboarding"):
    r = app.dashboard.put(f"/v1/placements/{placement}/rules", {"rules": rules})
    assert r.status_code == 200, r.text
    return r.json()


def until(condition, within, step=0.05):
    """Polls `condition()` until it is truthy; returns (value, seconds taken) or fails after `within` s."""
    start = time.monotonic()
    while True:
        value = condition()
        if value:
            return value, time.monotonic() - start
        assert time.monotonic() - start < within, f"not within {within} s"
        time.sleep(step)


def edge_server(directory, cache_port, env=None):
    """A server whose purges go to the cache that will listen on `cache_port` (the port is chosen
    first, so `cache.purgeURLs` can name it: XIZOR_CACHE_PURGE_URLS, comma-separated like every list
    setting in the environment)."""
    return XizorServer(directory / "data", extra_env={
        "XIZOR_CACHE_PURGE_URLS": f"http://127.0.0.1:{cache_port}/", **(env or {})})
