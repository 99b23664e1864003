"""Sandbox and production data (docs/integrations.md, "Sandbox and production").

Every event is `production` or `sandbox`: every event a sandbox public key sends is sandbox, whatever
it says; an event sent with a production key may say `"environment": "sandbox"` itself, and is
production when it says nothing. Analytics, experiment results and the event export count
production unless asked (`?environment=production|sandbox|all`), and say which they counted.
"""
import json
import uuid

import pytest
import requests

from conftest import run_cli
from test_scopes import create_key, listed_keys, new_app
from xizor_server import Client

T0 = 1_796_000_000_000
ENVIRONMENTS = ("production", "sandbox", "all")


def event(name, pw, subscriber, environment=None, **extra):
    e = {"id": f"ev-{uuid.uuid4()}", "name": name, "timestamp": T0, "placement": "onboarding", "paywallId": pw, "version": 1,
         "subscriberId": subscriber, **extra}
    if environment is not None:
        e["environment"] = environment
    return e


def send(client, events):
    r = client.post("/v1/sdk/events", {"events": events})
    assert r.status_code == 202, r.text
    assert r.json()["accepted"] == len(events) and r.json()["rejected"] == [], r.text
    return r.json()


def export(app, **params):
    r = requests.get(app.dashboard.base + "/v1/events/export", params=params, timeout=30,
                     headers={"Authorization": f"Bearer {app.secret_key}", "Accept-Encoding": "identity"})
    assert r.status_code == 200, r.text
    return [json.loads(line) for line in r.text.splitlines()]


@pytest.fixture
def world(module_server):
    """An app with a published paywall, a sandbox public key and events saying nothing of their environment:
    3 sent with the production key (production), 2 with the sandbox key (sandbox)."""
    app = new_app(module_server, "Sandbox")
    pw = app.create_paywall("clean")
    app.publish(pw)
    app.assign("onboarding", pw)
    sandbox_key = create_key(app, kind="public", environment="sandbox", label="TestFlight")
    sandbox = Client(module_server.base, sandbox_key["key"])
    production = [event("paywall_open", pw, f"p{i}") for i in range(3)]
    from_sandbox_key = [event("paywall_open", pw, f"x{i}") for i in range(2)]
    send(app.sdk, production)
    send(sandbox, from_sandbox_key)
    app.paywall, app.sandbox_key, app.sandbox = pw, sandbox_key, sandbox
    app.expected = {"production": {e["id"] for e in production}, "sandbox": {e["id"] for e in from_sandbox_key}}
    app.expected["all"] = app.expected["production"] | app.expected["sandbox"]
    return app


def impressions(app, **params):
    r = app.dashboard.get(f"/v1/paywalls/{app.paywall}/analytics", params=params)
    assert r.status_code == 200, r.text
    v1 = next(v for v in r.json()["versions"] if v["version"] == 1)
    assert v1["impressions"] == v1["uniqueSubscribers"], v1
    return r.json().get("environment"), v1["impressions"]


def test_a_sandbox_public_key_is_created_and_listed_with_its_environment(world):
    app = world
    assert world.sandbox_key["key"].startswith("pk_")
    listed = {k["id"]: k for k in listed_keys(app.dashboard)}
    assert listed[app.sandbox_key["id"]]["environment"] == "sandbox"
    assert listed[app.sandbox_key["id"]]["kind"] == "public"
    for key in listed.values():
        if key["id"] != app.sandbox_key["id"]:
            assert key.get("environment") in (("production", None) if key["kind"] == "secret" else ("production",)), key
    assert [k for k in listed.values() if k["kind"] == "public" and k["id"] != app.sandbox_key["id"]][0]["environment"] == "production"
    # It is an ordinary public key otherwise.
    assert app.sandbox.get("/v1/sdk/fallback-bundle").status_code == 200
    assert app.sandbox.get("/v1/sdk/placements/onboarding/paywall", headers={"Accept": "application/json"}).status_code == 200
    assert app.sandbox.get("/v1/paywalls").status_code == 403


def test_only_a_public_key_can_be_sandbox_and_the_environment_is_checked(module_server):
    app = new_app(module_server)
    secret = app.dashboard.post("/v1/keys", {"kind": "secret", "environment": "sandbox"})
    assert secret.status_code == 422 and secret.headers["Content-Type"] == "application/problem+json", secret.text
    bogus = app.dashboard.post("/v1/keys", {"kind": "public", "environment": "staging"})
    assert bogus.status_code == 422, bogus.text
    assert "$.environment" in {e["path"] for e in bogus.json()["errors"]}, bogus.text
    explicit = create_key(app, kind="public", environment="production")
    assert {k["id"]: k for k in listed_keys(app.dashboard)}[explicit["id"]]["environment"] == "production"
    assert len(listed_keys(app.dashboard)) == 3, "the refused keys were not created"


def test_an_events_environment_must_be_production_or_sandbox(world):
    r = world.sdk.post("/v1/sdk/events", {"events": [event("paywall_open", world.paywall, "q1", "staging"),
                                                      event("paywall_open", world.paywall, "q2", "sandbox")]})
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["accepted"] == 1
    assert [(x["index"], [e["path"] for e in x["errors"]]) for x in body["rejected"]] == [(0, ["$.events[0].environment"])]


def test_analytics_count_production_unless_asked(world):
    app = world
    assert impressions(app) == ("production", 3)
    assert impressions(app, environment="production") == ("production", 3)
    assert impressions(app, environment="sandbox") == ("sandbox", 2)
    assert impressions(app, environment="all") == ("all", 5)


def test_an_event_may_say_it_is_sandbox_but_a_sandbox_keys_events_always_are(world):
    """With the production key: "sandbox" is sandbox, "production" and nothing are production. With the sandbox key:
    sandbox whatever the event says."""
    app = world
    pw = app.paywall
    marked_sandbox = [event("paywall_open", pw, f"s{i}", "sandbox") for i in range(2)]
    marked_production = [event("paywall_open", pw, "p3", "production")]
    claims_production = [event("paywall_open", pw, f"x{i}", "production") for i in range(2, 4)]
    claims_sandbox = [event("paywall_open", pw, "x4", "sandbox")]
    send(app.sdk, marked_sandbox + marked_production)
    send(app.sandbox, claims_production + claims_sandbox)
    production = app.expected["production"] | {e["id"] for e in marked_production}
    sandbox = app.expected["sandbox"] | {e["id"] for e in marked_sandbox + claims_production + claims_sandbox}
    assert impressions(app) == ("production", len(production)) == ("production", 4)
    assert impressions(app, environment="sandbox") == ("sandbox", len(sandbox)) == ("sandbox", 7)
    assert impressions(app, environment="all") == ("all", 11)
    lines = {e["id"]: e["environment"] for e in export(app, environment="all")}
    assert lines == {**{i: "production" for i in production}, **{i: "sandbox" for i in sandbox}}


def test_experiment_results_count_production_unless_asked(world):
    app = world
    other = app.create_paywall("cinematic")
    app.publish(other)
    r = app.dashboard.post("/v1/experiments", {"name": "Env", "variants": [{"paywallId": app.paywall, "weight": 50},
                                                                           {"paywallId": other, "weight": 50, "name": "b"}]})
    assert r.status_code == 201, r.text
    exp = r.json()["id"]
    assert app.dashboard.put("/v1/placements/onboarding", {"experimentId": exp}).status_code == 200
    assert app.dashboard.post(f"/v1/experiments/{exp}/start").status_code == 200

    def ev(subscriber, variant, environment=None, name="paywall_open"):
        pw = app.paywall if variant == "control" else other
        return event(name, pw, subscriber, environment, experimentId=exp, variant=variant)

    # production key: control 3 subscribers (1 buys), b 2; sandbox key: control 1, b 2 of which 1 buys.
    send(app.sdk, [ev("c1", "control"), ev("c2", "control"), ev("c3", "control"),
                   ev("c1", "control", name="purchase_completed"), ev("b1", "b"), ev("b2", "b")])
    send(app.sandbox, [ev("sc1", "control"), ev("sb1", "b"), ev("sb2", "b"), ev("sb1", "b", name="purchase_completed")])
    expected = {"production": ((3, 1), (2, 0)), "sandbox": ((1, 0), (2, 1)), "all": ((4, 1), (4, 1))}
    default = app.dashboard.get(f"/v1/experiments/{exp}/results")
    assert default.status_code == 200, default.text
    assert default.json()["environment"] == "production"
    control, b = default.json()["variants"]
    assert (control["uniqueSubscribers"], control["conversions"]) == expected["production"][0]
    assert (b["uniqueSubscribers"], b["conversions"]) == expected["production"][1]
    for environment, (want_control, want_b) in expected.items():
        r = app.dashboard.get(f"/v1/experiments/{exp}/results", params={"environment": environment})
        assert r.status_code == 200, r.text
        assert r.json()["environment"] == environment
        control, b = r.json()["variants"]
        assert (control["uniqueSubscribers"], control["conversions"]) == want_control, (environment, control)
        assert (b["uniqueSubscribers"], b["conversions"]) == want_b, (environment, b)


def test_the_export_writes_each_events_environment_and_filters_alike(world):
    app = world
    default = export(app)
    assert {e["id"] for e in default} == app.expected["production"]
    assert all(e["environment"] == "production" for e in default)
    for environment in ENVIRONMENTS:
        lines = export(app, environment=environment)
        assert {e["id"] for e in lines} == app.expected[environment], environment
        for e in lines:
            want = "sandbox" if e["id"] in app.expected["sandbox"] else "production"
            assert e["environment"] == want, e
        assert [e["id"] for e in lines] == sorted(e["id"] for e in lines), "by id, as ever"
    # `xizor events export` writes the same lines, each with its environment.
    cli = run_cli("events", "export", app.id, "--data-dir", str(app.server.data_dir)).stdout
    written = [json.loads(line) for line in cli.splitlines()]
    assert app.expected["production"] <= {e["id"] for e in written} <= app.expected["all"]
    assert all(e["environment"] == ("sandbox" if e["id"] in app.expected["sandbox"] else "production") for e in written), written
    cut = export(app, environment="sandbox", **{"from": T0, "to": T0 + 1})
    assert {e["id"] for e in cut} == app.expected["sandbox"]
    assert export(app, environment="sandbox", **{"from": T0 + 1}) == []


@pytest.mark.parametrize("where", ["analytics", "results", "export"])
def test_an_unknown_environment_is_a_problem(world, where):
    app = world
    path = {"analytics": f"/v1/paywalls/{app.paywall}/analytics", "export": "/v1/events/export"}.get(where)
    if where == "results":
        other = app.create_paywall("cinematic")
        app.publish(other)
        exp = app.dashboard.post("/v1/experiments", {"variants": [{"paywallId": app.paywall, "weight": 50},
                                                                  {"paywallId": other, "weight": 50}]}).json()["id"]
        path = f"/v1/experiments/{exp}/results"
    for value in ("bogus", "staging"):
        r = app.dashboard.get(path, params={"environment": value})
        assert r.status_code in (400, 422), (value, r.status_code, r.text)
        assert r.headers["Content-Type"] == "application/problem+json", r.text
