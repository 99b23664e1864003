"""The generated JSON Schemas (xizor schema) against Python's jsonschema, and `xizor validate`/`templates`.

The JSON Schema covers structure only; for structural cases both must agree on validity. Cross-checks
(tokens, slots, locales, templates, ids) are the validator's alone: jsonschema accepts those documents."""
import copy
import json
import re

import jsonschema
import pytest

from conftest import run_cli

# No database: the HTTP core, the renderer and the format run the same whatever stores the data.
pytestmark = pytest.mark.driver_independent

TEMPLATES = ["cinematic", "clean", "lottie_delight"]

BASE = {
    "schemaVersion": 1, "id": "pw_test", "name": "Test", "locales": ["en", "de"], "defaultLocale": "en",
    "theme": {"colors": {"bg": "#070707", "text": "#FFFFFF"}, "fonts": {"heading": {"family": "Inter"}}, "radii": {"card": 16}},
    "products": [{"slot": "monthly", "storeProductId": "com.app.pro.monthly"}],
    "settings": {"dismissable": True, "safeArea": "all", "background": {"kind": "color", "color": "$bg"}},
    "root": {"type": "stack", "direction": "vertical", "children": [
        {"type": "text", "text": {"en": "Go **Pro**", "de": "**Pro** holen"}, "style": {"color": "$text"}},
        {"type": "purchase_button", "productSlot": "monthly", "label": {"en": "{{product.price}}", "de": "{{product.price}}"}},
        {"type": "button", "label": {"en": "Close", "de": "Zu"}, "action": {"type": "close"}},
        {"type": "timer", "id": "t1", "kind": "duration", "durationSeconds": 60},
        {"type": "image", "src": "https://cdn.example.com/a.png"},
        {"type": "footer_links", "privacyUrl": "https://example.com/privacy", "termsUrl": "https://example.com/terms"},
    ]},
}


def edited(*edits):
    doc = copy.deepcopy(BASE)
    for path, value in edits:
        target = doc
        for key in path[:-1]:
            target = target[key]
        if value is DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value
    return doc


DELETE = object()
C = ("root", "children")

# (name, document) — structurally invalid: both must reject.
STRUCTURAL = [
    ("wrong type", edited((("name",), 5))),
    ("missing field", edited((("name",), DELETE))),
    ("empty name", edited((("name",), ""))),
    ("unknown node type", edited((C + (4, "type"), "hologram"))),
    ("unknown property", edited((C + (0, "colour"), "red"))),
    ("bad enum", edited((("root", "direction"), "diagonal"))),
    ("named theme colour", edited((("theme", "colors", "bg"), "red"))),
    ("token theme colour", edited((("theme", "colors", "bg"), "$text"))),
    ("pair in version 1", edited((("theme", "colors", "bg"), {"light": "#FFF", "dark": "#000"}))),
    ("bad locale tag", edited((("locales",), ["en", "de", "EN_us"]))),
    ("duplicate locale", edited((("locales",), ["en", "de", "en"]))),
    ("text locale key", edited((C + (0, "text", "de_DE"), "x"))),
    ("non-https image", edited((C + (4, "src"), "http://cdn.example.com/a.png"))),
    ("timer without id", edited((C + (3, "id"), DELETE))),
    ("deadline without endsAt", edited((C + (3, "kind"), "deadline"))),
    ("opacity out of range", edited((C + (0, "style"), {"opacity": 1.5}))),
    ("font weight not a multiple", edited((C + (0, "style"), {"font": {"weight": 450}}))),
    ("non-integer seconds", edited((C + (3, "durationSeconds"), 1.5))),
    ("spacer size and flex", edited((C + (4,), {"type": "spacer", "size": 1, "flex": 1}))),
    ("unknown action", edited((C + (2, "action"), {"type": "teleport"}))),
    ("unknown background", edited((("settings", "background", "kind"), "pattern"))),
    ("empty feature list", edited((C + (4,), {"type": "feature_list", "items": []}))),
    ("easing of three", edited((C + (0, "animation"), {"entrance": {"kind": "fade", "easing": [0, 0, 1]}}))),
    ("bad end date", edited((C + (3, "kind"), "deadline"), (C + (3, "endsAt"), "tomorrow"))),
    ("unsupported version", edited((("schemaVersion",), 3))),
    ("bad node id", edited((C + (2, "id"), "a b"))),
    ("radius token without $", edited((C + (0, "style"), {"borderRadius": "card"}))),
    ("gradient with one stop", edited((("settings", "background"), {"kind": "gradient", "gradient": {"kind": "linear", "stops": [{"color": "#000", "position": 0}]}}))),
]

# Cross-checks only the validator can make: jsonschema accepts, xizor rejects.
SEMANTIC = [
    ("unresolved colour token", edited((C + (0, "style", "color"), "$panel")), "unresolved_token"),
    ("broken slot", edited((C + (1, "productSlot"), "weekly")), "broken_slot_reference"),
    ("selected without selector", edited((C + (1, "productSlot"), "$selected")), "selected_without_product_selector"),
    ("duplicate slot", edited((("products",), [{"slot": "a", "storeProductId": "x"}, {"slot": "a", "storeProductId": "y"}])), "duplicate_slot"),
    ("missing default locale", edited((C + (0, "text"), {"de": "Hallo"})), "missing_default_locale"),
    ("undeclared locale", edited((C + (0, "text", "fr"), "Salut")), "locale_not_declared"),
    ("unknown variable", edited((C + (0, "text", "en"), "{{user.name}}")), "unknown_variable"),
    ("malformed template", edited((C + (0, "text", "en"), "{{oops")), "malformed_template"),
    ("duplicate node id", edited((C + (2, "id"), "t1")), "duplicate_node_id"),
]


@pytest.fixture(scope="module")
def schemas():
    out = {}
    for version in (1, 2):
        schema = json.loads(run_cli("schema", "--version", str(version)).stdout)
        jsonschema.Draft202012Validator.check_schema(schema)
        out[version] = jsonschema.Draft202012Validator(schema)
    return out


def xizor_validate(tmp_path, docs):
    """Runs `xizor validate --json` once over many documents; returns {name: result}."""
    files = []
    for i, (name, doc) in enumerate(docs):
        f = tmp_path / f"doc{i}.json"
        f.write_text(json.dumps(doc))
        files.append(str(f))
    proc = run_cli("validate", "--json", *files, check=False)
    results = json.loads(proc.stdout)
    return {name: r for (name, _), r in zip(docs, results)}, proc.returncode


def test_templates_are_valid_under_both(schemas, tmp_path):
    docs = [(t, json.loads(run_cli("templates", t).stdout)) for t in TEMPLATES]
    for name, doc in docs:
        errors = [e.message for e in schemas[2].iter_errors(doc)]
        assert errors == [], (name, errors)
    results, code = xizor_validate(tmp_path, docs)
    assert code == 0
    assert all(r["ok"] and r["warnings"] == [] for r in results.values())


def test_base_document_is_valid_under_both(schemas, tmp_path):
    assert list(schemas[1].iter_errors(BASE)) == []
    # The v2 schema differs from v1 only by the version constant (and colour pairs).
    assert [list(e.absolute_path) for e in schemas[2].iter_errors(BASE)] == [["schemaVersion"]]
    results, code = xizor_validate(tmp_path, [("base", BASE)])
    assert code == 0 and results["base"]["ok"]


def test_structural_cases_are_rejected_by_both(schemas, tmp_path):
    results, code = xizor_validate(tmp_path, [(n, d) for n, d in STRUCTURAL])
    assert code == 1
    for name, doc in STRUCTURAL:
        assert not schemas[1].is_valid(doc), f"jsonschema accepted: {name}"
        assert not results[name]["ok"], f"xizor accepted: {name}"


def test_semantic_cases_only_the_validator_rejects(schemas, tmp_path):
    results, _ = xizor_validate(tmp_path, [(n, d) for n, d, _ in SEMANTIC])
    for name, doc, code in SEMANTIC:
        assert schemas[1].is_valid(doc), f"jsonschema rejected: {name}"
        assert code in [e["code"] for e in results[name]["errors"]], (name, results[name])


# String formats: the Swift matchers and the schema's regular expressions must accept the same strings.
FORMAT_PROBES = {
    "locale": (["en", "de", "de-AT", "pt-BR", "zh-Hans", "zh-Hans-CN", "es-419", "fil", "EN", "de_AT", "de-at", "e", "english", "zh-hans", "de-", "de-AT-x"],
               lambda v: edited((("locales",), ["en", "de", v]))),
    "hex": (["#FFF", "#ffff", "#A1B2C3", "#A1B2C3D4", "#12345", "FFF", "#GGG", "#", "#1234567"],
            lambda v: edited((("theme", "colors", "extra"), v))),
    "color": (["$text", "#000", "$1x", "$", "text", "$te xt"],
              lambda v: edited((C + (0, "style", "color"), v))),
    "url": (["https://a.example/x.png", "https://", "http://a.example/x.png", "https://a b", "HTTPS://a.example", "ftp://x"],
            lambda v: edited((C + (4, "src"), v))),
    "id": (["a", "A-b_9", "x" * 64, "x" * 65, "", "a b", "é"],
           lambda v: edited((C + (4, "id"), v))),
    "datetime": (["2026-12-31T23:59:59Z", "2026-12-31T23:59:59.123+02:00", "2026-12-31 23:59:59Z", "2026-12-31T23:59:59", "2026-12-31", "2026-12-31T23:59:59+0200"],
                 lambda v: edited((C + (3, "kind"), "deadline"), (C + (3, "endsAt"), v))),
}


@pytest.mark.parametrize("fmt", sorted(FORMAT_PROBES))
def test_string_formats_agree(fmt, schemas, tmp_path):
    probes, make = FORMAT_PROBES[fmt]
    docs = [(p, make(p)) for p in probes]
    results, _ = xizor_validate(tmp_path, docs)
    for probe, doc in docs:
        assert schemas[1].is_valid(doc) == results[probe]["ok"], (fmt, probe, results[probe]["errors"])


def test_validate_reports_paths_and_exit_codes(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(edited((C + (1, "productSlot"), "weekly"))))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(BASE))
    proc = run_cli("validate", str(good), str(bad), check=False)
    assert proc.returncode == 1
    assert f"{good}: valid" in proc.stdout
    assert "$.root.children[1].productSlot" in proc.stdout and "broken_slot_reference" in proc.stdout
    assert run_cli("validate", str(good), check=False).returncode == 0


def test_validate_reports_json_syntax_with_line_and_column(tmp_path):
    f = tmp_path / "syntax.json"
    f.write_text('{\n  "a": 1,\n  "a": 2\n}')
    proc = run_cli("validate", str(f), check=False)
    assert proc.returncode == 1
    assert "line 3, column 3" in proc.stdout and "duplicate_key" in proc.stdout


def test_validate_prints_warnings_but_passes(tmp_path):
    doc = edited((C + (5,), {"type": "spacer"}))
    f = tmp_path / "warn.json"
    f.write_text(json.dumps(doc))
    proc = run_cli("validate", str(f), check=False)
    assert proc.returncode == 0
    assert "missing_privacy_link" in proc.stdout and "warning" in proc.stdout


def test_validate_usage_and_missing_file(tmp_path):
    assert run_cli("validate", check=False).returncode == 64
    proc = run_cli("validate", str(tmp_path / "nope.json"), check=False)
    assert proc.returncode == 1 and "unreadable_file" in proc.stdout


def test_templates_command():
    listing = run_cli("templates").stdout.split("\n")
    assert [line.split("\t")[0] for line in listing if line] == TEMPLATES
    doc = json.loads(run_cli("templates", "cinematic").stdout)
    assert doc["settings"]["background"]["kind"] == "video"
    proc = run_cli("templates", "nope", check=False)
    assert proc.returncode == 1 and "unknown template" in proc.stderr


def test_schema_command_versions():
    assert json.loads(run_cli("schema").stdout)["$id"].endswith("-v3.json")
    assert json.loads(run_cli("schema", "--version", "2").stdout)["$id"].endswith("-v2.json")
    proc = run_cli("schema", "--version", "7", check=False)
    assert proc.returncode == 1
    assert "### PaywallNode" in run_cli("schema", "--markdown").stdout


SEMANTIC_CODES = {
    "unresolved_token", "broken_slot_reference", "duplicate_node_id", "multiple_preselected",
    "default_locale_not_in_locales", "missing_default_locale", "locale_not_declared", "malformed_template",
    "unknown_variable", "selected_without_product_selector",
}


def is_structural(error):
    if error["code"] == "duplicate_slot":  # structural in product_selector.slots, semantic in products
        return ".slots[" in error["path"]
    return error["code"] not in SEMANTIC_CODES


POOL = [None, True, 0, -1, 1.5, 600, "", "x", "#FFF", "$text", "$nope", "https://cdn.example.com/a.png", "http://a",
        "en", "EN", "stack", "hologram", "duration", "fill", [], [1, 2], {}, {"en": "x"}, {"type": "spacer"},
        {"type": "close"}, {"kind": "linear", "stops": []}]


def mutate(value, rng, depth=0):
    """Replaces, deletes or adds at one random spot (deterministic for a given rng)."""
    if isinstance(value, dict) and value and (depth < 12 and rng.random() < 0.8):
        key = rng.choice(sorted(value))
        out = dict(value)
        r = rng.random()
        if r < 0.15:
            del out[key]
        elif r < 0.3:
            out[key] = copy.deepcopy(rng.choice(POOL))
        elif r < 0.35:
            out[rng.choice(["extra", "type", "kind", "id", "style"])] = copy.deepcopy(rng.choice(POOL))
        else:
            out[key] = mutate(value[key], rng, depth + 1)
        return out
    if isinstance(value, list) and value and (depth < 12 and rng.random() < 0.8):
        out = list(value)
        i = rng.randrange(len(out))
        r = rng.random()
        if r < 0.15:
            del out[i]
        elif r < 0.25:
            out.append(copy.deepcopy(out[i]))
        else:
            out[i] = mutate(out[i], rng, depth + 1)
        return out
    return copy.deepcopy(rng.choice(POOL))


def test_random_mutations_agree_on_structure(schemas, tmp_path):
    """Hundreds of mutated templates: jsonschema accepts exactly those the validator finds no structural error in."""
    import random
    rng = random.Random(20261130)
    seeds = [json.loads(run_cli("templates", t).stdout) for t in TEMPLATES]
    docs = []
    for i in range(400):
        doc = seeds[i % len(seeds)]
        for _ in range(rng.randint(1, 3)):
            doc = mutate(doc, rng)
        docs.append((f"m{i}", doc))
    results, _ = xizor_validate(tmp_path, docs)
    structurally_valid = 0
    for name, doc in docs:
        xizor_ok = not any(is_structural(e) for e in results[name]["errors"])
        version = doc.get("schemaVersion") if isinstance(doc, dict) else None
        schema = schemas[version] if type(version) is int and version in (1, 2) else schemas[2]
        assert schema.is_valid(doc) == xizor_ok, (name, results[name]["errors"], [e.message for e in schema.iter_errors(doc)][:3])
        structurally_valid += xizor_ok
    assert 10 <= structurally_valid <= 390  # both kinds of outcome are exercised
