"""`xizor render FILE [--locale L] [--color-scheme light|dark] [--preview]` as an operator runs it."""
import html.parser
import json
import subprocess

from conftest import BIN, ROOT, run_cli

import pytest
# No database: the HTTP core, the renderer and the format run the same whatever stores the data.
pytestmark = pytest.mark.driver_independent


def template_file(tmp_path, name="clean"):
    path = tmp_path / f"{name}.json"
    path.write_text(run_cli("templates", name).stdout)
    return path


def test_render_prints_a_complete_page(tmp_path):
    page = run_cli("render", str(template_file(tmp_path))).stdout
    assert page.startswith('<!DOCTYPE html><html lang="en" class="xz-light xz-production">')
    assert page.endswith("</body></html>")
    assert "--c-bg:#ffffff" in page


def test_render_options(tmp_path):
    source = str(template_file(tmp_path))
    dark_de = run_cli("render", source, "--locale", "de", "--color-scheme", "dark").stdout
    assert '<html lang="de" class="xz-dark xz-production">' in dark_de and "--c-bg:#0b0b0c" in dark_de
    assert "Klarer denken mit <strong>Notes Pro</strong>" in dark_de
    preview = run_cli("render", source, "--preview").stdout
    assert "then {{product.price}} per {{product.period}}</span>" in preview
    production = run_cli("render", source).stdout
    assert "then  per </span>" in production
    # Same input, same bytes (ETags can be derived from the page).
    assert run_cli("render", source).stdout == production


def test_render_context_and_stdin(tmp_path):
    doc = json.loads(run_cli("templates", "clean").stdout)
    doc["root"]["children"].insert(0, {"type": "text", "id": "hi", "text": {"en": "Hi {{context.name}}"}})
    proc = run_cli_input(["render", "-", "--context", "name=Ada"], json.dumps(doc))
    assert 'data-id="hi">Hi Ada</p>' in proc


def run_cli_input(args, text):
    proc = subprocess.run([BIN, *args], input=text, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_render_reports_unknown_nodes(tmp_path):
    doc = json.loads(run_cli("templates", "clean").stdout)
    doc["root"]["children"].append({"type": "hologram"})
    path = tmp_path / "unknown.json"
    path.write_text(json.dumps(doc))
    proc = run_cli("render", str(path), "--unknown-nodes")
    index = len(doc["root"]["children"]) - 1
    assert f"paywall_unknown_node $.root.children[{index}] type=hologram skipped" in proc.stderr
    assert proc.stdout.startswith("<!DOCTYPE html>")


def test_render_errors(tmp_path):
    missing = run_cli("render", str(tmp_path / "nope.json"), check=False)
    assert missing.returncode == 1 and "cannot read" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    invalid = run_cli("render", str(bad), check=False)
    assert invalid.returncode == 1 and "invalid JSON" in invalid.stderr
    future = tmp_path / "future.json"
    future.write_text(json.dumps({"schemaVersion": 99, "root": {"type": "text", "text": {"en": "x"}}}))
    unsupported = run_cli("render", str(future), check=False)
    assert unsupported.returncode == 1 and "unsupported schemaVersion 99" in unsupported.stderr
    scheme = run_cli("render", str(template_file(tmp_path)), "--color-scheme", "sepia", check=False)
    assert scheme.returncode == 64 and "light or dark" in scheme.stderr
    no_file = run_cli("render", check=False)
    assert no_file.returncode == 64
    assert "render" in run_cli("--help").stdout


# --- hostile text ----------------------------------------------------------------------------

SCRIPT = "</script><script>window.__pwned=1</script>"
IMG = '"><img src=x onerror="window.__pwned=2">'
STYLE = "</style><style>body{display:none}</style>"
COMMENT = "<!--"
JS_URL = "javascript:window.__pwned=3"
QUOTE = "' autofocus onfocus='window.__pwned=4"
SEPARATORS = "line\u2028para\u2029end"
NESTED = "{{context.script}}"         # context values are neither placeholders...
STARS = "**not bold** *nor italic*"   # ...nor markdown

HOSTILE_CONTEXT = {"script": SCRIPT, "img": IMG, "style": STYLE, "comment": COMMENT, "quote": QUOTE,
                   "separators": SEPARATORS, "nested": NESTED, "stars": STARS}


def hostile_document():
    """Hostile strings in every kind of text a document has, and in its URLs and ids."""
    both = lambda en, de: {"en": en, "de": de}
    return {
        "schemaVersion": 1, "id": "pw_hostile", "name": "Name " + SCRIPT + IMG, "locales": ["en", "de"], "defaultLocale": "en",
        "theme": {"colors": {"bg": "#FFFFFF"}, "fonts": {"body": {"family": "Inter" + STYLE}}},
        "products": [{"slot": "monthly", "storeProductId": "com.example." + SCRIPT + IMG}],
        "settings": {"dismissable": True, "safeArea": "all", "background": {"kind": "image", "src": JS_URL}},
        "root": {"type": "stack", "direction": "vertical", "accessibilityLabel": both(IMG, QUOTE), "children": [
            {"type": "text", "id": 'x"><img src=x onerror="window.__pwned=5">', "style": {"font": {"family": "$body"}},
             "text": both("Hi " + SCRIPT + " " + STYLE, "Hallo " + IMG + " " + COMMENT + " " + QUOTE + " " + SEPARATORS)},
            {"type": "text", "text": both("ctx {{context.script}} {{context.img}} {{context.style}} {{context.comment}} {{context.quote}}",
                                          "ctx {{context.separators}} [{{context.nested}}] {{context.stars}}")},
            {"type": "text", "style": {"font": {"family": STYLE}}, "accessibilityLabel": both(SCRIPT, IMG),
             "text": both("**" + IMG + "** *" + SCRIPT + "*", "**" + STYLE + "**")},
            {"type": "button", "label": both(STYLE + " close", IMG + " schließen"), "action": {"type": "close"}},
            {"type": "button", "label": both("Open " + IMG, "Öffnen " + SCRIPT), "action": {"type": "open_url", "url": JS_URL}},
            {"type": "button", "label": both("Custom", "Custom"),
             "action": {"type": "custom", "name": IMG, "payload": {"html": SCRIPT, "quote": QUOTE}}},
            {"type": "purchase_button", "productSlot": "monthly", "label": both("Buy {{product.price}} " + IMG, "Kaufen {{product.price}} " + SCRIPT),
             "sublabel": both("{{product.period}} " + COMMENT + " {{context.script}}", "{{product.period}} " + STYLE)},
            {"type": "image", "src": JS_URL, "alt": both(IMG, SCRIPT)},
            {"type": "feature_list", "items": [{"icon": IMG, "text": both(SCRIPT, STYLE)}]},
            {"type": "badge", "text": both(COMMENT + " badge", QUOTE)},
            {"type": "timer", "id": "t1", "kind": "duration", "durationSeconds": 60, "label": both("{{timer.remaining}} " + SCRIPT, IMG)},
            {"type": "footer_links", "privacyUrl": JS_URL, "termsUrl": 'https://example.com/t"onmouseover="window.__pwned=6',
             "labels": {"privacy": both(IMG, IMG), "terms": both(SCRIPT, SCRIPT), "restore": both(STYLE, STYLE)}},
        ]},
    }


class PageStructure(html.parser.HTMLParser):
    """The elements and attributes a browser would build from the page (script and style bodies are raw text)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.comments, self.title = [], [], None
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title = data

    def handle_comment(self, data):
        self.comments.append(data)


def test_render_escapes_hostile_text_everywhere(tmp_path):
    # Guards the escaping of every document and context string (HTML.text, HTML.attribute, HTML.scriptJSON),
    # the URL policy (URLPolicy), and that markdown and context values are never read again as markup or placeholders.
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile_document()))
    assert all("," not in v for v in HOSTILE_CONTEXT.values())
    context = ",".join(f"{k}={v}" for k, v in HOSTILE_CONTEXT.items())
    pages = {locale: run_cli("render", str(path), "--locale", locale, "--context", context).stdout for locale in ("en", "de")}
    pages["de-preview"] = run_cli("render", str(path), "--locale", "de", "--preview").stdout
    structures = {}
    for name, page in pages.items():
        # No payload reaches the page raw...
        for raw in ["<img src=x", "<script>window.__pwned", "</style><style>body", "<!--", "javascript:", 'onmouseover="']:
            assert raw not in page, (name, raw)
        # ...and a parser finds exactly the elements of a harmless page: no extra script, style or
        # comment, no event handler attribute, no URL but https.
        parsed = structures[name] = PageStructure()
        parsed.feed(page)
        tags = [tag for tag, _ in parsed.tags]
        # The config and the runtime, and in a preview the editor bridge (issue 36).
        scripts = 3 if name.endswith("preview") else 2
        assert (tags.count("script"), tags.count("style"), tags.count("title"), parsed.comments) == (scripts, 1, 1, []), name
        for tag, attributes in parsed.tags:
            assert not [a for a in attributes if a.startswith("on") or a == "autofocus"], (name, tag, attributes)
            for key in ("href", "src", "data-src", "poster", "data-poster", "data-video"):
                assert attributes.get(key) is None or attributes[key].startswith("https://"), (name, tag, attributes)
        assert parsed.title == "Name " + SCRIPT + IMG, name
        # The page config is JSON that reads back every string exactly ("<" written as \u003c).
        config = json.loads(page.split('<script type="application/json" id="xz-config">', 1)[1].split("</script>", 1)[0])
        assert config["products"] == [{"slot": "monthly", "storeProductId": "com.example." + SCRIPT + IMG}], name
        assert config["context"] == (HOSTILE_CONTEXT if name != "de-preview" else {}), name
    en, de = pages["en"], pages["de"]
    # Texts, labels and context values come out escaped in both locales, and are never resolved again.
    assert "Hi &lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt; &lt;/style&gt;&lt;style&gt;body{display:none}&lt;/style&gt;</p>" in en
    assert 'Hallo "&gt;&lt;img src=x onerror="window.__pwned=2"&gt; &lt;!-- \' autofocus onfocus=\'window.__pwned=4 ' + SEPARATORS + "</p>" in de
    assert ('ctx &lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt; "&gt;&lt;img src=x onerror="window.__pwned=2"&gt; '
            "&lt;/style&gt;&lt;style&gt;body{display:none}&lt;/style&gt; &lt;!-- ' autofocus onfocus='window.__pwned=4</p>") in en
    assert "ctx " + SEPARATORS + " [{{context.script}}] " + STARS + "</p>" in de
    assert "ctx {{context.separators}} [{{context.nested}}] {{context.stars}}</p>" in pages["de-preview"]
    assert '<strong>"&gt;&lt;img src=x onerror="window.__pwned=2"&gt;</strong> <em>&lt;/script&gt;' in en
    assert '<span class="xz-sr">&lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;</span>' in en
    assert 'aria-label="&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;"' in en
    assert 'aria-label="&#39; autofocus onfocus=&#39;window.__pwned=4"' in de
    assert 'data-t="Buy {{product.price}} &quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;"' in en
    assert 'data-t="{{product.period}} &lt;!-- {{context.script}}"' in en
    assert 'data-name="&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;"' in en
    assert "&lt;/style&gt;&lt;style&gt;body{display:none}&lt;/style&gt; close</span>" in en
    assert "\\u003c/script>\\u003cscript>window.__pwned=1\\u003c/script>" in en
    # Font families lose everything but letters, digits, spaces, - and _.
    assert 'font-family:&quot;Interstylestylebodydisplaynonestyle&quot;' in en
    # Hostile URLs are dropped: the open_url button is disabled, the image has no source, the footer no links.
    for name, parsed in structures.items():
        attributes = [a for _, a in parsed.tags]
        assert not [a for a in attributes if "href" in a], name
        assert [a for a in attributes if a.get("data-a") is None and "disabled" in a and a.get("type") == "button"], name
        assert [t for t, a in parsed.tags if t == "img" and ("src" in a or "data-src" in a)] == [], name
