# Xizor: the two commands that matter are `make run` and `make test` (see README.md).
SWIFT   ?= swift
VENV    := .venv
PY      := $(VENV)/bin/python
APT_PKGS := libsqlite3-dev zlib1g-dev libpq-dev libssl-dev libcurl4-openssl-dev libargon2-dev libqrencode-dev postgresql nginx varnish curl nodejs node-typescript node-react node-react-test-renderer node-csstype node-prop-types chromium chromium-driver fonts-noto-color-emoji
CONFIG  ?= Config/xizor.json
# A target importing a module it does not declare is an error, not a build-order accident: the layers'
# boundaries (docs/architecture.md) are kept by the compiler.
CHECKED := --explicit-target-dependency-import-check error
SWIFT_FILES = Package.swift $$(find Sources Tests clients -name '*.swift' -not -path '*/.build/*')

.PHONY: build release run test lint format test-swift test-client test-react-native test-e2e bench mutants fuzz embed deps venv docker clean

build:
	$(SWIFT) build $(CHECKED)

release:
	$(SWIFT) build -c release --product xizor --static-swift-stdlib $(CHECKED)

# Serves on 127.0.0.1:8080 with the default config; an empty data directory gets the demo app.
run: deps release
	.build/release/xizor serve --config $(CONFIG) --demo-if-empty

# Installs what the tests need, then runs every test: Swift Testing, then the live-server tests.
test: deps venv lint
	$(SWIFT) build $(CHECKED)
	$(MAKE) test-swift
	$(MAKE) test-client
	$(MAKE) test-react-native
	$(MAKE) test-e2e

# Every Swift file as `swift format` (the toolchain's) and .swift-format would write it; generated
# files opt out with `// swift-format-ignore-file`. `make format` rewrites them so.
lint:
	$(SWIFT) format lint --strict --parallel --configuration .swift-format $(SWIFT_FILES)

format:
	$(SWIFT) format format --in-place --parallel --configuration .swift-format $(SWIFT_FILES)

# Beside a throwaway PostgreSQL cluster (Tests/postgres/with-cluster.sh) for the PostgreSQL layer's tests.
test-swift:
	Tests/postgres/with-cluster.sh $(SWIFT) test $(CHECKED)

# XizorKit, the Swift client library (its own package), against live servers of the debug build.
test-client:
	$(SWIFT) build --package-path clients/swift --build-tests
	XIZOR_BIN=$(CURDIR)/.build/debug/xizor $(SWIFT) test --package-path clients/swift --skip-build

# @xizor/react-native (docs/client-react-native.md): compiled strict by Debian's tsc, then Node's test runner
# against live servers of the debug build; React and its test renderer are Debian's (NODE_PATH for their own
# requires), react-native and react-native-webview the stand-ins in its test/stand-ins.
test-react-native:
	cd clients/react-native && tsc -p . && node test/link-modules.mjs
	cd clients/react-native && NODE_PATH=/usr/share/nodejs XIZOR_BIN=$(CURDIR)/.build/debug/xizor node --test test/*.test.mjs

# Twice: every test on SQLite, then every database test on PostgreSQL (docs/testing.md, "Both databases").
test-e2e:
	XIZOR_E2E_DRIVER=sqlite XIZOR_BIN=$(CURDIR)/.build/debug/xizor XIZOR_ROOT=$(CURDIR) $(PY) -m pytest -q Tests/e2e
	XIZOR_E2E_DRIVER=postgres XIZOR_BIN=$(CURDIR)/.build/debug/xizor XIZOR_ROOT=$(CURDIR) Tests/postgres/with-cluster.sh $(PY) -m pytest -q Tests/e2e

bench: deps venv
	bash bench/run.sh

# Plants each mutant of Tests/mutants in a scratch copy and fails naming any its tests do not catch
# (docs/testing.md). MUTANTS="a b" runs only those.
mutants: deps venv
	$(PY) Tests/mutants/run.py $(MUTANTS)

# Regenerates what is generated: the migrations, media, console and page runtime embedded in the binary, and README's
# tree table from Package.swift (a test fails until you do).
embed:
	python3 Migrations/embed.py
	python3 Sources/XizorDomain/Assets/embed-media.py
	python3 Sources/XizorConsole/embed-console.py
	python3 Sources/PaywallRenderer/embed-runtime.py
	python3 Tests/readme_tree.py --write

# libFuzzer + AddressSanitizer over the parsers, validator, renderer and rules (docs/fuzzing.md):
# FUZZ_SECONDS per target (default 60), FUZZ_TARGETS to pick, FUZZ_PARALLEL=1 to run them at once.
fuzz: deps
	bash Tests/fuzz/fuzz.sh

# Debian packages (installed only when missing, so a warm machine is not slowed down).
deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi
	@# npm: part of some nodejs builds (which then conflict with Debian's npm package), a package of its own in Debian's.
	@command -v npm >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm)

# Python test tools live in a virtual environment made from Tests/e2e/requirements.txt.
venv: $(VENV)/.installed

$(VENV)/.installed: Tests/e2e/requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r Tests/e2e/requirements.txt
	touch $@

docker:
	docker build -f docker/Dockerfile -t xizor .

clean:
	rm -rf .build $(VENV)
