"""Analytics over time (issue 20, item 9): `interval=hour|day` adds a dense UTC series per version beside
the totals, which stay exact (distinct subscribers are counted over the whole range, not summed)."""
import uuid

H = 3_600_000
H0 = 1_796_000_000_000 // H * H   # an hour boundary in late 2026


def event(name, pw, at, subscriber):
    return {"id": str(uuid.uuid4()), "name": name, "timestamp": at, "placement": "onboarding", "paywallId": pw,
            "version": 1, "subscriberId": subscriber}


def test_an_hourly_series_with_empty_hours_and_exact_totals(app):
    pw = app.create_paywall("clean")
    app.publish(pw)
    events = [event("paywall_open", pw, H0 + 1_000, "a"), event("paywall_open", pw, H0 + 2_000, "b"),
              event("paywall_open", pw, H0 + H - 1, "c"),
              event("paywall_open", pw, H0 + 2 * H + 5, "a"), event("purchase_completed", pw, H0 + 2 * H + 9, "a")]
    assert app.sdk.post("/v1/sdk/events", {"events": events}).json()["accepted"] == 5
    r = app.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"interval": "hour", "from": H0, "to": H0 + 3 * H})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["interval"] == "hour"
    version = body["versions"][0]
    assert version["impressions"] == 4 and version["uniqueSubscribers"] == 3 and version["purchaseCompleted"] == 1
    series = version["series"]
    assert [p["start"] for p in series] == [H0, H0 + H, H0 + 2 * H]
    assert [p["impressions"] for p in series] == [3, 0, 1]
    assert [p["uniqueSubscribers"] for p in series] == [3, 0, 1]
    assert [p["conversion"] for p in series] == [0.0, None, 1.0]
    assert version["conversions"] == 1 and version["conversion"] == 1 / 3 and version["purchasesPerImpression"] == 0.25
    # Without from/to the series spans the buckets that have events; days work the same way.
    daily = app.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"interval": "day"}).json()["versions"][0]["series"]
    assert len(daily) == 1 and daily[0]["impressions"] == 4 and daily[0]["start"] % 86_400_000 == 0
    # No interval, no series (the answer is as before).
    assert "series" not in app.dashboard.get(f"/v1/paywalls/{pw}/analytics").json()["versions"][0]


def test_a_bad_or_too_long_series_is_refused_with_where(app):
    pw = app.create_paywall("clean")
    app.publish(pw)
    bad = app.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"interval": "minute"})
    assert bad.status_code == 422 and bad.json()["errors"][0]["path"] == "$.query.interval"
    long = app.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"interval": "hour", "from": 0, "to": H0})
    assert long.status_code == 422 and long.json()["errors"][0]["code"] == "too_many_buckets"
    assert app.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"interval": "day", "from": 0, "to": H0}).status_code == 422
    ok = app.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"interval": "day", "from": H0, "to": H0 + 30 * 86_400_000})
    assert ok.status_code == 200 and len(ok.json()["versions"][0]["series"]) in (30, 31)


def test_revenue_per_currency_from_purchase_properties(app):
    pw = app.create_paywall("clean")
    app.publish(pw)

    def purchase(subscriber, **properties):
        e = event("purchase_completed", pw, H0 + 10, subscriber)
        if properties:
            e["properties"] = properties
        return e
    events = [purchase("a", price=49.99, currency="EUR"), purchase("b", price=49.99, currency="EUR"),
              purchase("c", price=9.99, currency="USD"), purchase("d", price=5, currency="USD"),
              purchase("e"), purchase("f", price="49.99", currency="EUR"), event("paywall_open", pw, H0, "a")]
    assert app.sdk.post("/v1/sdk/events", {"events": events}).json()["accepted"] == 7
    version = app.dashboard.get(f"/v1/paywalls/{pw}/analytics").json()["versions"][0]
    assert version["purchaseCompleted"] == 6
    revenue = {r["currency"]: (round(r["amount"], 2), r["purchases"]) for r in version["revenue"]}
    assert revenue == {"EUR": (99.98, 2), "USD": (14.99, 2)}, version["revenue"]
    # Filters cut revenue as they cut the funnel.
    later = app.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"from": H0 + H}).json()["versions"][0]
    assert later["revenue"] == [] and later["purchaseCompleted"] == 0


def test_a_range_is_counted_in_whole_hours_and_the_answer_says_which(app):
    """`from` moves back and `to` forward to UTC hour boundaries (docs/analytics.md, "How a range is
    read"), on the rollups' path and the context-filtered scan's alike; a range on whole hours is kept."""
    pw = app.create_paywall("clean")
    app.publish(pw)
    at = [H0 - 1, H0 + 10, H0 + H - 1, H0 + H, H0 + 2 * H - 1, H0 + 2 * H]
    events = [dict(event("paywall_open", pw, t, f"s{i}"), context={"tier": "free"}) for i, t in enumerate(at)]
    assert app.sdk.post("/v1/sdk/events", {"events": events}).json()["accepted"] == len(at)
    url = f"/v1/paywalls/{pw}/analytics"
    for extra in ({}, {"context.tier": "free"}):
        mid = app.dashboard.get(url, params={"from": H0 + 30 * 60_000, "to": H0 + H + 1, **extra}).json()
        assert (mid["from"], mid["to"]) == (H0, H0 + 2 * H), mid
        assert mid["versions"][0]["impressions"] == 4 and mid["versions"][0]["uniqueSubscribers"] == 4, (extra, mid)
        whole = app.dashboard.get(url, params={"from": H0, "to": H0 + H, **extra}).json()
        assert (whole["from"], whole["to"]) == (H0, H0 + H)
        assert whole["versions"][0]["impressions"] == 2, (extra, whole)
    # Within one hour: the hour (an hourly series of one bucket); no range, no range in the answer.
    inside = app.dashboard.get(url, params={"from": H0 + 5, "to": H0 + 6, "interval": "hour"}).json()
    assert (inside["from"], inside["to"]) == (H0, H0 + H)
    assert [p["impressions"] for p in inside["versions"][0]["series"]] == [2]
    everything = app.dashboard.get(url).json()
    assert "from" not in everything and "to" not in everything and everything["versions"][0]["impressions"] == 6
