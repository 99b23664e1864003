"""The served OpenAPI 3.1 document: valid, true to what the server answers, and fuzzed by schemathesis.

schemathesis runs against a live server with a secret key and fails on any 5xx, any response that
breaks its documented schema, and any undocumented status code.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

import jsonschema
import pytest
from openapi_spec_validator import validate as validate_openapi
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

from xizor_server import App, Client, create_app

SCHEMATHESIS = pathlib.Path(sys.executable).parent / "schemathesis"


def fetch_document(base):
    r = Client(base).get("/openapi.json", headers={"Accept-Encoding": "identity"})
    assert r.status_code == 200, r.text
    assert "Content-Encoding" not in r.headers
    assert r.headers["Content-Type"] == "application/json"
    return r


def component_validator(document, name):
    """A draft 2020-12 validator for one component schema, resolving `#/components/...` refs."""
    return jsonschema.Draft202012Validator({"$ref": f"#/components/schemas/{name}", "components": document["components"]})


def test_served_document_is_valid_openapi_3_1_with_a_strong_etag(server):
    r = fetch_document(server.base)
    document = r.json()
    assert document["openapi"] == "3.1.0"
    validate_openapi(document, cls=OpenAPIV31SpecValidator)
    etag = r.headers["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    again = Client(server.base).get("/openapi.json", headers={"If-None-Match": etag, "Accept-Encoding": "identity"})
    assert again.status_code == 304
    compressed = Client(server.base).get("/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert compressed.headers["Content-Encoding"] == "gzip" and compressed.json() == document
    assert compressed.headers["ETag"] not in (etag, None)
    # The fixed surface is documented with the right keys.
    paths = document["paths"]
    assert paths["/v1/apps"]["post"]["security"] == [{"adminToken": []}, {"session": []}]
    assert paths["/v1/paywalls/{id}/draft"]["put"]["security"] == [{"secretKey": []}, {"session": []}]
    assert paths["/v1/session"]["get"]["security"] == [{"session": []}]
    assert paths["/healthz"]["get"]["security"] == []
    assert paths["/v1/sdk/events"]["post"]["security"] == [{"publicKey": []}]
    schemes = document["components"]["securitySchemes"]
    assert {name: s.get("scheme") for name, s in schemes.items()} == {"adminToken": "bearer", "secretKey": "bearer",
                                                                       "publicKey": "bearer", "session": None}
    assert schemes["session"] == {**schemes["session"], "type": "apiKey", "in": "cookie", "name": "__Host-xizor_session"}
    for path in ["/v1/templates", "/v1/templates/{name}", "/v1/validate", "/v1/paywalls", "/v1/paywalls/{id}",
                 "/v1/paywalls/{id}/draft", "/v1/paywalls/{id}/publish", "/v1/paywalls/{id}/versions",
                 "/v1/paywalls/{id}/versions/{n}", "/v1/paywalls/{id}/rollback", "/v1/placements",
                 "/v1/placements/{key}", "/v1/placements/{key}/rules", "/readyz", "/openapi.json",
                 "/v1/sdk/placements/{key}/paywall", "/v1/sdk/events", "/v1/sdk/timers", "/v1/paywalls/{id}/analytics",
                 "/v1/paywalls/{id}/preview", "/mcp"]:
        assert path in paths, path


def test_documented_schemas_match_real_answers(app):
    """Deterministic counterpart of the fuzzing: real answers checked against their component schemas."""
    document = fetch_document(app.server.base).json()
    for name in ["clean", "cinematic", "lottie_delight"]:
        r = app.dashboard.get(f"/v1/templates/{name}")
        component_validator(document, "Template").validate(r.json())
        component_validator(document, "PaywallDocumentV2").validate(r.json()["document"])
    pw = app.create_paywall("clean")
    app.publish(pw)
    app.assign("onboarding", pw)
    component_validator(document, "VersionWithDocument").validate(app.dashboard.get(f"/v1/paywalls/{pw}/versions/1").json())
    # A schemaVersion 1 document (the clean template with plain v1 colours) is served under the v1 schema.
    v1 = app.dashboard.get("/v1/templates/clean").json()["document"]
    v1["schemaVersion"] = 1
    v1["theme"]["colors"] = {k: (v["light"] if isinstance(v, dict) else v) for k, v in v1["theme"]["colors"].items()}
    old = app.dashboard.post("/v1/paywalls", {"document": v1}).json()["id"]
    assert app.publish(old)["schemaVersion"] == 1
    served = app.dashboard.get(f"/v1/paywalls/{old}/versions/1").json()
    component_validator(document, "VersionWithDocument").validate(served)
    component_validator(document, "PaywallDocumentV1").validate(served["document"])
    assert not component_validator(document, "PaywallDocumentV2").is_valid(served["document"])
    component_validator(document, "PaywallPage").validate(app.dashboard.get("/v1/paywalls").json())
    component_validator(document, "Draft").validate(app.draft(pw)[0])
    component_validator(document, "DraftTexts").validate(app.dashboard.get(f"/v1/paywalls/{pw}/draft/texts").json())
    rules = {"rules": [{"when": {"all": [{"key": "country", "op": "in", "value": ["DE", "AT"]},
                                         {"not": {"key": "trial", "op": "eq", "value": True}}]},
                        "paywallId": pw, "activeFrom": 0}]}
    r = app.dashboard.put("/v1/placements/onboarding/rules", rules)
    assert r.status_code == 200, r.text
    component_validator(document, "Placement").validate(r.json())
    r = app.dashboard.get("/v1/placements/onboarding/resolve", params={"context.country": "DE"})
    component_validator(document, "Resolution").validate(r.json())
    assert r.json()["matchedRule"] == 0
    # A validation problem carries `errors`; the schema accepts it and rejects a mangled one.
    r = app.dashboard.put("/v1/placements/onboarding/rules", {"rules": [{"when": {"key": "x", "op": "near"}}]})
    assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json"
    problem = component_validator(document, "Problem")
    problem.validate(r.json())
    assert not problem.is_valid({**r.json(), "status": "422"})
    invalid = app.dashboard.post("/v1/validate", {"schemaVersion": 2})
    component_validator(document, "ValidationResult").validate(invalid.json())
    assert invalid.json()["ok"] is False


CHECKS = "not_a_server_error,response_schema_conformance,status_code_conformance"

# Every method but QUERY: a method the server does not know at all (QUERY is still a draft) gets
# 501 Not Implemented, as RFC 9110 §9.1 prescribes; known methods on the wrong path get 405.
UNEXPECTED_METHODS = """
[phases.coverage]
unexpected-methods = ["get", "put", "post", "delete", "options", "patch", "trace"]
"""


def run_schemathesis(base, key, config_text, tmp_path, env_extra=(), args=()):
    """Runs the schemathesis CLI against the live server; returns (operations tested, stdout)."""
    config = tmp_path / "schemathesis.toml"
    config.write_text(config_text + UNEXPECTED_METHODS)
    env = dict(os.environ, NO_COLOR="1", **dict(env_extra))
    command = [str(SCHEMATHESIS), "--config-file", str(config), "run", f"{base}/openapi.json",
               "-H", f"Authorization: Bearer {key}", "--checks", CHECKS,
               "--max-examples", "25", "--seed", "1", "--generation-database", "none",
               "--request-timeout", "10", "--no-color", *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=170, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-5000:]
    summary = proc.stdout.split("SUMMARY")[-1]
    assert " passed" in summary and "failure" not in summary.lower(), proc.stdout[-5000:]
    tested = re.search(r"Tested: (\d+)", summary)
    assert tested, proc.stdout[-5000:]
    return int(tested.group(1)), proc.stdout


def test_schemathesis_with_a_secret_key_finds_no_server_errors_or_schema_violations(app, tmp_path):
    # Ids that exist, so the fuzzer reaches the success paths and not only 404s.
    pw = app.create_paywall("clean")
    spare = app.create_paywall("cinematic")
    app.publish(pw)
    app.assign("onboarding", pw)
    config = """
[parameters]
"path.id" = "${XIZOR_TEST_PAYWALL}"
"path.n" = 1
"path.key" = "onboarding"
# Draft writes then succeed (with whatever JSON object the fuzzer made), so their 200 answers get checked too.
"header.If-Match" = "*"

# Archiving gets its own paywall so the other operations keep a live one most of the time.
[[operations]]
include-operation-id = "archivePaywall"
parameters = { "path.id" = "${XIZOR_TEST_SPARE_PAYWALL}" }
"""
    tested, _ = run_schemathesis(app.server.base, app.secret_key, config, tmp_path,
                                 env_extra={"XIZOR_TEST_PAYWALL": pw, "XIZOR_TEST_SPARE_PAYWALL": spare})
    operations = sum(len(item) for item in fetch_document(app.server.base).json()["paths"].values())
    # Every operation but GET /openapi.json itself, which schemathesis leaves out as the schema's URL.
    assert tested == operations - 1


def test_schemathesis_on_the_sdk_api_with_a_public_key(app, tmp_path):
    pw = app.create_paywall("clean")
    app.publish(pw)
    app.assign("onboarding", pw)
    config = """
[parameters]
"path.key" = "onboarding"
"""
    tested, _ = run_schemathesis(app.server.base, app.public_key, config, tmp_path, args=["--include-tag", "sdk"])
    sdk = [p for p in fetch_document(app.server.base).json()["paths"] if p.startswith("/v1/sdk/")]
    assert tested >= len(sdk) >= 4


# --- regressions for server bugs found while checking the document against the server -----------

def test_an_experiment_with_hundreds_of_variants_is_a_422_not_a_crash(app):
    # The allocation (one UInt8 slot per variant) was computed before the variant count was checked,
    # so 256+ variants trapped and took the whole server down.
    variants = [{"name": f"v{i}", "paywallId": "pw_missing", "weight": 1} for i in range(300)]
    r = app.dashboard.post("/v1/experiments", {"variants": variants})
    assert r.status_code == 422, r.text
    assert any(e["code"] == "array_too_long" for e in r.json()["errors"])
    assert Client(app.server.base).get("/healthz").status_code == 200
