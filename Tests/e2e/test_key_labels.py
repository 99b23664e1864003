"""Keys carry a label saying what they are for (issue 20, item 11)."""
from xizor_server import Client


def test_a_key_is_created_with_a_label_and_listed_with_it(app):
    r = app.dashboard.post("/v1/keys", {"kind": "public", "label": "iOS app"})
    assert r.status_code == 201 and r.json()["label"] == "iOS app" and r.json()["key"].startswith("pk_")
    unlabelled = app.dashboard.post("/v1/keys", {"kind": "secret"}).json()
    assert unlabelled["label"] is None
    listed = {k["id"]: k["label"] for k in app.dashboard.get("/v1/keys").json()["keys"]}
    assert listed[r.json()["id"]] == "iOS app" and listed[unlabelled["id"]] is None
    assert Client(app.server.base, r.json()["key"]).get("/v1/sdk/fallback-bundle").status_code == 200
    for label in ("", "x" * 101, 7):
        bad = app.dashboard.post("/v1/keys", {"kind": "public", "label": label})
        assert bad.status_code == 422 and bad.json()["errors"][0]["path"] == "$.label", label
