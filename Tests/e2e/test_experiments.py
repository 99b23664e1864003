"""Experiments on placements: sticky assignment, holdout, lifecycle, rules, results."""
import shutil
import uuid

import pytest

import drivers

from xizor_server import ADMIN_TOKEN, App, Client, XizorServer, create_app

PATH = "/v1/sdk/placements/{}/paywall"


def paywall(app, placement="onboarding", **params):
    return app.sdk.get(PATH.format(placement), params=params)


@pytest.fixture
def experiment(app):
    control, challenger = app.create_paywall("clean"), app.create_paywall("cinematic")
    app.publish(control)
    app.publish(challenger)
    r = app.dashboard.post("/v1/experiments", {"name": "Price test", "variants": [
        {"paywallId": control, "weight": 50}, {"paywallId": challenger, "weight": 50, "name": "cinematic"}]})
    assert r.status_code == 201, r.text
    exp = r.json()
    assert exp["status"] == "draft" and [v["name"] for v in exp["variants"]] == ["control", "cinematic"]
    app.exp, app.control, app.challenger = exp["id"], control, challenger
    return app


def test_lifecycle_is_instant_on_the_sdk_path(experiment):
    app = experiment
    assert app.dashboard.put("/v1/placements/onboarding", {"experimentId": app.exp}).status_code == 200
    # Draft: the placement serves its paywall (the control) and names no experiment.
    body = paywall(app, subscriberId="s-1").json()
    assert body["paywallId"] == app.control and "experiment" not in body
    assert app.dashboard.post(f"/v1/experiments/{app.exp}/start").json()["status"] == "running"
    seen = {}
    for i in range(60):
        r = paywall(app, subscriberId=f"s-{i}")
        assert r.status_code == 200
        body = r.json()
        assert body["experiment"]["id"] == app.exp and body["experiment"]["assignment"] == "bucket"
        assert r.headers["X-Xizor-Experiment"] == app.exp and r.headers["X-Xizor-Variant"] == body["experiment"]["variant"]
        seen[f"s-{i}"] = body["experiment"]["variant"]
        assert body["paywallId"] == (app.control if seen[f"s-{i}"] == "control" else app.challenger)
    assert set(seen.values()) == {"control", "cinematic"}
    # Sticky: the same subscriber gets the same variant again.
    assert all(paywall(app, subscriberId=s).json()["experiment"]["variant"] == v for s, v in list(seen.items())[:20])
    # Without a subscriberId: the control, and the answer says so.
    anonymous = paywall(app).json()["experiment"]
    assert anonymous == {"id": app.exp, "variant": "control", "holdout": False, "assignment": "no_subscriber"}
    # The dry run resolves the same way.
    dry = app.dashboard.get("/v1/placements/onboarding/resolve", params={"subscriberId": "s-3"}).json()
    assert dry["experiment"]["variant"] == seen["s-3"]
    # Stop: back to the placement's own paywall at once.
    assert app.dashboard.post(f"/v1/experiments/{app.exp}/stop").json()["status"] == "stopped"
    assert "experiment" not in paywall(app, subscriberId="s-1").json()
    assert app.dashboard.post(f"/v1/experiments/{app.exp}/start").status_code == 409


def test_promote_makes_the_winner_the_placements_paywall(experiment):
    app = experiment
    app.dashboard.put("/v1/placements/onboarding", {"experimentId": app.exp})
    assert app.dashboard.post(f"/v1/experiments/{app.exp}/promote", {"variant": "cinematic"}).status_code == 409  # still a draft
    app.dashboard.post(f"/v1/experiments/{app.exp}/start")
    assert app.dashboard.post(f"/v1/experiments/{app.exp}/promote", {"variant": "nope"}).status_code == 422
    promoted = app.dashboard.post(f"/v1/experiments/{app.exp}/promote", {"variant": "cinematic"}).json()
    assert promoted["status"] == "stopped" and promoted["winner"] == "cinematic" and promoted["placements"] == []
    placement = app.dashboard.get("/v1/placements/onboarding").json()
    assert placement["paywallId"] == app.challenger and placement["experimentId"] is None
    for i in range(10):
        body = paywall(app, subscriberId=f"p-{i}").json()
        assert body["paywallId"] == app.challenger and "experiment" not in body


def test_holdout_answers_204(app):
    a = app.create_paywall("clean")
    b = app.create_paywall("clean")
    app.publish(a)
    app.publish(b)
    exp = app.dashboard.post("/v1/experiments", {"variants": [{"paywallId": a, "weight": 1}, {"paywallId": b, "weight": 1}],
                                                 "holdoutWeight": 2}).json()
    app.dashboard.put("/v1/placements/onboarding", {"experimentId": exp["id"]})
    app.dashboard.post(f"/v1/experiments/{exp['id']}/start")
    statuses = {}
    for i in range(200):
        r = paywall(app, subscriberId=f"h-{i}")
        statuses.setdefault(r.status_code, 0)
        statuses[r.status_code] += 1
        if r.status_code == 204:
            assert r.headers["X-Xizor-Holdout"] == exp["id"] and r.content == b""
    assert set(statuses) == {200, 204}
    assert 60 <= statuses[204] <= 140  # half of 200, loosely
    dry = app.dashboard.get("/v1/placements/onboarding/resolve", params={"subscriberId": "h-1"}).json()
    assert (dry["experiment"]["holdout"] is True) == (paywall(app, subscriberId="h-1").status_code == 204)


def test_experiments_inside_context_rules(experiment):
    app = experiment
    app.assign("onboarding", app.control)
    rules = {"rules": [{"when": {"key": "wasReferred", "op": "eq", "value": True}, "experimentId": app.exp}]}
    r = app.dashboard.put("/v1/placements/onboarding/rules", rules)
    assert r.status_code == 200, r.text
    assert r.json()["rules"][0]["experimentId"] == app.exp
    app.dashboard.post(f"/v1/experiments/{app.exp}/start")
    assert "experiment" not in paywall(app, subscriberId="r-1").json()
    referred = [paywall(app, subscriberId=f"r-{i}", **{"context.wasReferred": "true"}).json() for i in range(30)]
    assert all(b["experiment"]["id"] == app.exp for b in referred)
    assert {b["experiment"]["variant"] for b in referred} == {"control", "cinematic"}
    bad = app.dashboard.put("/v1/placements/onboarding/rules", {"rules": [{"when": {"key": "x", "op": "exists"}, "experimentId": "exp_nope"}]})
    assert bad.status_code == 422 and bad.json()["errors"][0]["path"] == "$.rules[0].experimentId"


def test_validation_and_starting_needs_published_variants(app):
    a, b = app.create_paywall(), app.create_paywall()
    app.publish(a)
    bad = app.dashboard.post("/v1/experiments", {"variants": [{"paywallId": a, "weight": 0}]})
    assert bad.status_code == 422
    paths = {e["path"] for e in bad.json()["errors"]}
    assert "$.variants" in paths
    bad = app.dashboard.post("/v1/experiments", {"variants": [{"paywallId": a, "weight": -1}, {"paywallId": "pw_x", "weight": 1}] * 3})
    assert {e["path"] for e in bad.json()["errors"]} >= {"$.variants", "$.variants[0].weight", "$.variants[1].paywallId"}
    exp = app.dashboard.post("/v1/experiments", {"variants": [{"paywallId": a, "weight": 1}, {"paywallId": b, "weight": 1}]}).json()
    r = app.dashboard.post(f"/v1/experiments/{exp['id']}/start")
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "$.variants[1].paywallId"
    other = App(app.server, create_app(app.server.base, "Other"))
    assert other.dashboard.get(f"/v1/experiments/{exp['id']}").status_code == 404


def test_weight_changes_keep_most_subscribers(experiment):
    app = experiment
    app.dashboard.put("/v1/placements/onboarding", {"experimentId": app.exp})
    app.dashboard.post(f"/v1/experiments/{app.exp}/start")
    subscribers = [f"w-{i}" for i in range(300)]
    before = {s: paywall(app, subscriberId=s).json()["experiment"]["variant"] for s in subscribers}
    r = app.dashboard.put(f"/v1/experiments/{app.exp}/weights", {"weights": [70, 30]})
    assert r.status_code == 200 and [v["weight"] for v in r.json()["variants"]] == [70, 30]
    after = {s: paywall(app, subscriberId=s).json()["experiment"]["variant"] for s in subscribers}
    moved = [s for s in subscribers if before[s] != after[s]]
    # Only challenger → control moves, about 20 % of subscribers.
    assert all(before[s] == "cinematic" and after[s] == "control" for s in moved)
    assert 30 <= len(moved) <= 90


def test_two_experiments_split_subscribers_independently(experiment):
    # Guards the bucket hash including the experiment id (Allocation.bucket): without it every
    # experiment with the same weights would put each subscriber in the same variant (agreement 1.0).
    app = experiment
    second = app.dashboard.post("/v1/experiments", {"name": "Second test", "variants": [
        {"paywallId": app.control, "weight": 50}, {"paywallId": app.challenger, "weight": 50, "name": "cinematic"}]}).json()
    placements = {"onboarding": app.exp, "upsell": second["id"]}
    for key, exp in placements.items():
        assert app.dashboard.put(f"/v1/placements/{key}", {"experimentId": exp}).status_code == 200
        assert app.dashboard.post(f"/v1/experiments/{exp}/start").json()["status"] == "running"
    names = ["control", "cinematic"]
    subscribers = [f"ind-{i}" for i in range(400)]
    index = {}
    for key, exp in placements.items():
        for s in subscribers:
            assigned = app.dashboard.get(f"/v1/placements/{key}/resolve", params={"subscriberId": s}).json()["experiment"]
            assert assigned["id"] == exp and assigned["assignment"] == "bucket"
            index[key, s] = names.index(assigned["variant"])
    # Each experiment splits about half and half on its own...
    for key in placements:
        assert 0.35 <= sum(index[key, s] for s in subscribers) / len(subscribers) <= 0.65, key
    # ...and knowing a subscriber's variant in one says nothing about the other.
    agreeing = sum(index["onboarding", s] == index["upsell", s] for s in subscribers) / len(subscribers)
    assert 0.35 <= agreeing <= 0.65, agreeing


def test_results_against_a_known_event_set(experiment):
    app = experiment
    app.dashboard.put("/v1/placements/onboarding", {"experimentId": app.exp})
    app.dashboard.post(f"/v1/experiments/{app.exp}/start")

    def ev(name, variant, subscriber, pw):
        return {"id": str(uuid.uuid4()), "name": name, "timestamp": 1_796_000_000_000, "placement": "onboarding",
                "paywallId": pw, "version": 1, "subscriberId": subscriber, "experimentId": app.exp, "variant": variant}

    events = []
    # control: 100 subscribers see it (one of them twice), 10 convert.
    for i in range(100):
        events.append(ev("paywall_open", "control", f"c{i}", app.control))
    events.append(ev("paywall_open", "control", "c0", app.control))
    events += [ev("purchase_completed", "control", f"c{i}", app.control) for i in range(10)]
    # cinematic: 80 subscribers, 20 convert.
    events += [ev("paywall_open", "cinematic", f"k{i}", app.challenger) for i in range(80)]
    events += [ev("purchase_completed", "cinematic", f"k{i}", app.challenger) for i in range(20)]
    r = app.sdk.post("/v1/sdk/events", {"events": events})
    assert r.json()["accepted"] == len(events), r.text
    results = app.dashboard.get(f"/v1/experiments/{app.exp}/results").json()
    control, cinematic = results["variants"]
    assert control["impressions"] == 101 and control["uniqueSubscribers"] == 100 and control["conversions"] == 10
    assert control["conversionRate"] == pytest.approx(0.10)
    # Wilson 95 % interval for 10/100: [0.0552, 0.1744].
    assert control["confidenceInterval"] == pytest.approx([0.05522, 0.17436], abs=1e-4)
    assert cinematic["conversionRate"] == pytest.approx(0.25)
    diff = cinematic["differenceToControl"]
    assert diff["absolute"] == pytest.approx(0.15)
    # Wald interval: 0.15 ± 1.96·sqrt(.25·.75/80 + .1·.9/100) = 0.15 ± 0.1116.
    assert diff["confidenceInterval"] == pytest.approx([0.0384, 0.2616], abs=1e-4)
    assert diff["relative"] == pytest.approx(1.5)
    assert control["differenceToControl"] is None
    bad = app.sdk.post("/v1/sdk/events", {"events": [dict(ev("paywall_open", "control", "x", app.control), variant=None)]})
    assert bad.json()["rejected"][0]["errors"][0]["path"] == "$.events[0].variant"


def test_assignment_is_sticky_across_restarts_and_servers(tmp_path):
    first = XizorServer(tmp_path / "a")
    try:
        app = App(first, create_app(first.base))
        a, b = app.create_paywall("clean"), app.create_paywall("cinematic")
        app.publish(a)
        app.publish(b)
        exp = app.dashboard.post("/v1/experiments", {"variants": [{"paywallId": a, "weight": 1}, {"paywallId": b, "weight": 1}]}).json()
        app.dashboard.put("/v1/placements/onboarding", {"experimentId": exp["id"]})
        app.dashboard.post(f"/v1/experiments/{exp['id']}/start")
        subscribers = [f"sticky-{i}" for i in range(100)]
        expected = {s: paywall(app, subscriberId=s).json()["paywallId"] for s in subscribers}
    finally:
        assert first.stop() == 0
    if drivers.DRIVER == "sqlite":
        shutil.copytree(tmp_path / "a", tmp_path / "b")  # another server on a copy of the data
        copy_env = {}
    else:
        copy_env = drivers.storage_env(tmp_path / "a")  # another replica on the same database
    restarted, copy = XizorServer(tmp_path / "a"), XizorServer(tmp_path / "b", extra_env=copy_env)
    try:
        for server in (restarted, copy):
            client = Client(server.base, app.public_key)
            got = {s: client.get(PATH.format("onboarding"), params={"subscriberId": s}).json()["paywallId"] for s in subscribers}
            assert got == expected
    finally:
        assert restarted.stop() == 0 and copy.stop() == 0


def test_pages_name_the_experiment_and_variant_for_the_bridge(experiment):
    import json
    import re
    app = experiment
    app.dashboard.put("/v1/placements/onboarding", {"experimentId": app.exp})
    app.dashboard.post(f"/v1/experiments/{app.exp}/start")
    variant = paywall(app, subscriberId="page-1").json()["experiment"]["variant"]
    page = app.sdk.get(PATH.format("onboarding"), params={"subscriberId": "page-1"}, headers={"Accept": "text/html"})
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert page.headers["X-Xizor-Variant"] == variant
    config = json.loads(re.search(r'<script type="application/json" id="xz-config">(.*?)</script>', page.text, re.S).group(1))
    assert config["delivery"]["experimentId"] == app.exp and config["delivery"]["variant"] == variant


def test_conversions_count_only_subscribers_who_saw_the_variant(experiment):
    app = experiment
    app.dashboard.put("/v1/placements/onboarding", {"experimentId": app.exp})
    app.dashboard.post(f"/v1/experiments/{app.exp}/start")
    base = {"timestamp": 1_796_000_000_000, "placement": "onboarding", "paywallId": app.control, "version": 1,
            "experimentId": app.exp, "variant": "control"}
    events = [dict(base, id="o1", name="paywall_open", subscriberId="a"),
              dict(base, id="p1", name="purchase_completed", subscriberId="a"),
              dict(base, id="p2", name="purchase_completed", subscriberId="b"),   # its open was lost
              dict(base, id="p3", name="purchase_completed", subscriberId="c")]
    assert app.sdk.post("/v1/sdk/events", {"events": events}).json()["accepted"] == 4
    control = app.dashboard.get(f"/v1/experiments/{app.exp}/results").json()["variants"][0]
    assert control["uniqueSubscribers"] == 1 and control["conversions"] == 1 and control["conversionRate"] == 1.0
    low, high = control["confidenceInterval"]
    assert 0 <= low <= high <= 1


def test_results_have_a_holdout_row_counted_from_events_tagged_holdout(experiment):
    app = experiment
    held = app.dashboard.post("/v1/experiments", {"variants": [{"paywallId": app.control, "weight": 45},
                                                               {"paywallId": app.challenger, "weight": 45}],
                                                  "holdoutWeight": 10}).json()["id"]
    app.dashboard.put("/v1/placements/onboarding", {"experimentId": held})
    app.dashboard.post(f"/v1/experiments/{held}/start")

    def ev(name, variant, subscriber, pw=None):
        e = {"id": str(uuid.uuid4()), "name": name, "timestamp": 1_796_000_000_000, "placement": "onboarding",
             "subscriberId": subscriber, "experimentId": held, "variant": variant}
        if pw:
            e.update(paywallId=pw, version=1)
        return e
    events = [ev("paywall_open", "control", f"c{i}", app.control) for i in range(10)]
    events += [ev("purchase_completed", "control", f"c{i}", app.control) for i in range(2)]
    # Holdout subscribers see no paywall: the app tags what they do (an exposure, a purchase elsewhere).
    events += [ev("paywall_holdout", "holdout", f"h{i}") for i in range(8)]
    events += [ev("purchase_completed", "holdout", "h0")]
    r = app.sdk.post("/v1/sdk/events", {"events": events})
    assert r.json()["accepted"] == len(events), r.text
    results = app.dashboard.get(f"/v1/experiments/{held}/results").json()
    holdout = results["holdout"]
    assert holdout["uniqueSubscribers"] == 8 and holdout["conversions"] == 1
    assert holdout["conversionRate"] == pytest.approx(0.125)
    low, high = holdout["confidenceInterval"]
    assert low < 0.125 < high
    assert holdout["differenceToControl"]["absolute"] == pytest.approx(0.125 - 0.2)
    # Without a holdout weight there is no holdout row.
    assert app.dashboard.get(f"/v1/experiments/{app.exp}/results").json()["holdout"] is None
