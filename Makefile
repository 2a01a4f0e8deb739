# Loupe. `make run` installs what is missing, builds and opens the app;
# `make test` runs every test (unit, engine, GUI headless, smoke under Xvfb).

GO       ?= go
BUILD    := build
BIN      := $(BUILD)/loupe
BENCHDIR := $(BUILD)/qwen2.5-1.5b-random
APT_PKGS := gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev \
            libxinerama-dev libxi-dev libxxf86vm-dev libgtk-3-dev xvfb xauth libgl1-mesa-dri \
            x11-apps imagemagick xdotool

.PHONY: all deps build run test test-engine test-generic e2e bench bench-model membw package fuzz clean

all: build

# deps installs the Debian packages a cgo build of Fyne and the headless
# smoke test need, only those missing, then fetches the Go modules.
deps:
	@missing=$$(for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	fi
	$(GO) mod download

build: deps
	$(GO) build -o $(BIN) .

run: build
	./$(BIN)

# The engine and kernels build and test without cgo; the GUI packages need it.
test: deps
	CGO_ENABLED=0 $(GO) test -timeout 30m ./kernels/... ./engine/... ./trace/... ./cli/...
	LOUPE_KERNELS=generic CGO_ENABLED=0 $(GO) test -timeout 30m -count=1 ./kernels/... ./engine/...
	$(GO) test -timeout 30m ./viz/... ./views/... ./app/...
	$(MAKE) e2e

test-engine:
	CGO_ENABLED=0 $(GO) test ./kernels/... ./engine/... ./trace/... ./cli/...

# e2e starts the real binary under Xvfb on the demo model, generates, and
# saves the window's screenshot to $(BUILD)/e2e/.
e2e: build
	./scripts/e2e.sh $(BIN) $(BUILD)/e2e

# bench-model writes a random-weight model with the exact shape of
# Qwen2.5-1.5B (3.1 GB of bf16) once; speed does not depend on the values.
bench-model: $(BENCHDIR)/model.safetensors
$(BENCHDIR)/model.safetensors:
	$(GO) run . gen-model --shape qwen2.5-1.5b --seed 1 --dtype bf16 --out $(BENCHDIR)

# bench measures the machine (membw, cached), then the article's two
# cases: the purple-cat sentence (17 tokens) and a Gold-Bug passage (3,139
# tokens, one timed run: its prefill is long), 100 tokens written each.
# Every timed run also gets a short bandwidth probe beside it, and decode
# is set against that. Figures are medians; on a shared machine they vary.
bench: build bench-model
	./$(BIN) membw
	./$(BIN) bench --model $(BENCHDIR) --max-tokens 100
	./$(BIN) bench --model $(BENCHDIR) --prompt-file testdata/texts/gold-bug-passage.txt --max-tokens 100 --repeat 1

membw: build
	./$(BIN) membw

# package builds build/Loupe.tar.xz (binary, icon, .desktop entry) from
# FyneApp.toml. A release package bumps Build in FyneApp.toml: it is put
# back so the tree stays clean.
package: deps
	mkdir -p $(BUILD) && cp FyneApp.toml $(BUILD)/FyneApp.toml.orig
	$(GO) run fyne.io/tools/cmd/fyne@v1.7.4 package -os linux -release -name Loupe -icon assets/icon.png; \
	status=$$?; cp $(BUILD)/FyneApp.toml.orig FyneApp.toml; exit $$status
	mv -f Loupe.tar.xz $(BUILD)/

# fuzz runs every fuzz target of the parsers of outside data for FUZZTIME
# each (default 10 min), seeded from real files; a crash found is written
# under the package's testdata/fuzz/ and from then on replayed by go test.
# Not part of make test.
FUZZTIME ?= 10m
FUZZ_TARGETS := engine/safetensors:FuzzOpen engine/safetensors:FuzzIndex engine:FuzzParseConfig \
	engine:FuzzReadEOS engine/tokenizer:FuzzParse engine/tokenizer:FuzzEncode engine/chat:FuzzTokenizerConfig engine/gguf:FuzzOpen
fuzz:
	@set -e; for t in $(FUZZ_TARGETS) $(EXTRA_FUZZ); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "== $$pkg $$fn ($(FUZZTIME))"; \
		CGO_ENABLED=0 $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) ./$$pkg; \
	done

clean:
	rm -rf $(BUILD)
