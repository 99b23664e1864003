"""The edge in front of several replicas, and the purge of everything (issue 40; docs/scaling.md,
"An edge cache: Varnish").

- Two `xizor serve` on one database behind one Varnish running the shipped VCL with a second backend
  added to its round-robin director, as the file tells operators to: misses reach both replicas,
  what one stored is a hit for the request the other would have answered, a publish made on either
  is visible through the cache within a second, one replica stopped costs no request, and both
  stopped leaves the stored answers served (stale-if-error).
- The purger's `*`: changes pruned from the change feed before any purger sent them (every purge
  lost meanwhile) purge every app, including one that did not change, and the cursor moves past
  them; nothing else would tell the cache what those changes touched.
"""
from drivers import query_value
from edge_cache import Edge, edge_server, hit, placed_app, published, set_rules, until
from varnish import free_port, running_varnish
from xizor_server import Client, XizorServer

LOW_MAX_ROWS = 100  # changes.maxRows' floor: the feed keeps at most this many


def served_by(server):
    """Path-form requests `server` itself answered (its /metrics)."""
    return Edge(server, None).origin_requests()


def test_two_replicas_behind_one_varnish_share_the_cache_and_survive_each_other(tmp_path):
    directory, port = tmp_path, free_port()
    first = edge_server(directory, port)
    second = XizorServer(first.data_dir, extra_env={"XIZOR_CACHE_PURGE_URLS": f"http://127.0.0.1:{port}/"})
    try:
        with running_varnish(directory / "varnish", [first.port, second.port], port=port) as varnish:
            edge = Edge(first, varnish)
            app = placed_app(edge)
            # Eight distinct answers (a locale each): eight misses, spread over both replicas.
            locales = [{"locale": f"x{i}"} for i in range(8)]
            for params in locales:
                r = edge.get(app, params=params)
                assert r.status_code == 200 and not hit(r), r.headers
            counts = served_by(first), served_by(second)
            assert sum(counts) == 8 and min(counts) >= 3, f"round robin: {counts}"
            # Each is then a hit, whichever replica stored it.
            for params in locales:
                assert hit(edge.get(app, params=params))
            assert (served_by(first), served_by(second)) == counts
            # A publish made on the second replica: every stored answer is purged within a second (both
            # replicas' purgers send it; a BAN is idempotent) and the fresh ones agree.
            on_second = Client(second.base, app.secret_key)
            r = on_second.post(f"/v1/paywalls/{app.paywall}/publish", {"force": True})
            assert r.status_code == 201, r.text
            version = r.json()["version"]
            until(lambda: all(edge.get(app, params=p).json()["version"] == version for p in locales[:2]), within=1)
            # The first replica stops: the probe marks it sick, and every request is still answered.
            assert first.stop() == 0
            varnish.wait_backend(healthy=False, name="xizor")
            assert varnish.backend_healthy("xizor_2")
            before = served_by(second)
            fresh = [edge.get(app, params={"locale": f"y{i}"}) for i in range(6)]
            assert [r.status_code for r in fresh] == [200] * 6
            assert {r.json()["version"] for r in fresh} == {version}
            assert served_by(second) == before + 6, "the stopped replica's share went to the other"
            # Both stopped: what is stored is still served.
            stored = edge.get(app, params=locales[0])
            assert second.stop() == 0
            again = edge.get(app, params=locales[0])
            assert again.status_code == 200 and again.content == stored.content, again.headers
    finally:
        first.stop()
        second.stop()


def test_changes_pruned_before_they_were_purged_purge_every_app(tmp_path):
    """The first server's purges all fail (a closed port) while its change feed keeps only the newest
    100 changes; a second server on the same database whose purges reach the cache finds the cursor
    behind the oldest change kept, and bans every app."""
    directory, port, closed = tmp_path, free_port(), free_port()
    assert closed != port
    first = edge_server(directory, port, {"XIZOR_CACHE_PURGE_URLS": f"http://127.0.0.1:{closed}/",
                                           "XIZOR_CHANGES_MAX_ROWS": str(LOW_MAX_ROWS)})
    second = None
    try:
        with running_varnish(directory / "varnish", first.port, port=port) as varnish:
            edge = Edge(first, varnish, purging=False)
            changed, untouched = placed_app(edge, "Changed"), placed_app(edge, "Untouched")
            for app in (changed, untouched):
                edge.get(app)
                assert hit(edge.get(app))
            # More changes than the feed keeps, all of one app, none reaching the cache.
            other = published(changed, "cinematic", name="Other")
            for i in range(LOW_MAX_ROWS + 5):
                set_rules(changed, [{"when": {"key": "context.n", "op": "eq", "value": str(i)}, "paywallId": other}])
            cursor = int(query_value(first.data_dir, "SELECT value FROM settings WHERE key = 'cache_purge_cursor'"))
            # The feed is pruned every 10 s.
            until(lambda: int(query_value(first.data_dir, "SELECT min(seq) FROM changes")) > cursor + 1, within=15)
            assert edge.purges("sent") == 0 and edge.purges("failed") > 0
            assert hit(edge.get(untouched)), "nothing has purged the app that did not change"
            second = XizorServer(first.data_dir, extra_env={"XIZOR_CACHE_PURGE_URLS": f"http://127.0.0.1:{port}/"})
            until(lambda: Edge(second, varnish).purges("sent") >= 1, within=5)
            # A `*` ban: both apps' stored answers are gone, the untouched one's too.
            for app in (changed, untouched):
                r = edge.get(app)
                assert r.status_code == 200 and not hit(r), r.headers
                assert hit(edge.get(app))
            latest = query_value(first.data_dir, "SELECT max(seq) FROM changes")
            until(lambda: query_value(first.data_dir, "SELECT value FROM settings WHERE key = 'cache_purge_cursor'")
                  == latest, within=5)
            # Only the one purge: the cursor is past every change it covered.
            assert Edge(second, varnish).purges("sent") == 1
    finally:
        first.stop()
        if second:
            second.stop()
