# Loupe. `make run` installs what is missing, builds and opens the app;
# `make test` runs every test (unit, engine, GUI headless, the build without
# cgo, smoke under Xvfb).

GO       ?= go
BUILD    := build
BIN      := $(BUILD)/loupe
BENCHDIR := $(BUILD)/qwen2.5-1.5b-random
APT_PKGS := gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev \
            libxinerama-dev libxi-dev libxxf86vm-dev libgtk-3-dev xvfb xauth libgl1-mesa-dri \
            x11-apps imagemagick xdotool

.PHONY: all deps build run test test-engine test-generic generate e2e bench bench-model window-bench compare-llamacpp compare-llamacpp-quant crosscheck-llamacpp llamacpp-native membw package fuzz clean \
	build-headless test-headless app-macos package-linux-arm64 smoke-linux-arm64

all: build

# deps installs the Debian packages a cgo build of Fyne and the headless
# smoke test need, only those missing, then fetches the Go modules.
deps:
	@missing=$$(for p in $(APT_PKGS); do dpkg-query -W -f='$${db:Status-Abbrev}\n' $$p 2>/dev/null | grep -q '^ii' || echo $$p; done); \
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

# Every package but the window's builds and tests without cgo; the GUI
# packages need it. main is tested both ways: without cgo (the headless
# build: no window) and with it. A new package is tested without being
# listed here.
GUI_PKGS := ./viz/... ./views/... ./app/... .
HEADLESS_PKGS = $(shell CGO_ENABLED=0 $(GO) list -e ./... 2>/dev/null | grep -vE '^loupe/(app|views|viz)(/.*)?$$')

test: deps
	CGO_ENABLED=0 $(GO) test -timeout 30m $(HEADLESS_PKGS)
	LOUPE_KERNELS=generic CGO_ENABLED=0 $(GO) test -timeout 30m -count=1 ./kernels/... ./engine/...
	$(GO) test -timeout 30m $(GUI_PKGS)
	$(MAKE) test-headless
	$(MAKE) e2e

test-engine:
	CGO_ENABLED=0 $(GO) test $(HEADLESS_PKGS)

# generate runs every generator of kernels/generate.go and
# engine/perf/generate.go (python3): the assembly in tools/quantasm's
# emitters, each named for the file it writes.
generate:
	$(GO) generate ./kernels/... ./engine/perf/

# test-arm64 runs the kernel tests and the float64 references of every
# architecture as arm64 binaries under qemu-user, each kernel level once:
# QEMU_CPU=max (NEON, DotProd, I8MM, BF16) runs neondot, neonbf16 and
# neoni8mm, QEMU_CPU=cortex-a72 (NEON only) generic and neon. The engine's
# level-sweeping tests run the NEON levels only (generic is the same Go
# code as on x86-64); the others run at the emulated CPU's auto level
# (neoni8mm under max: its int8 decode is neondot's, its quantised
# prefill BFMMLA's, which the integer top-10 shift test checks, and its
# MoE experts' int8 prefill SMMLA's, which must equal decode's;
# TestLoadMatchesReference: bf16, f16 and f32 files, f16 kept in place).
.PHONY: test-arm64
ARM64_TEST   = GOARCH=arm64 CGO_ENABLED=0 $(GO) test -count=1 -timeout 20m -exec qemu-aarch64-static
ARM64_LEVELS = ^(TestPrefillMatchesReference|TestQwen3PrefillMatchesReference|TestQwen35MatchesReference|TestMoEMatchesReference)$$
ARM64_ONCE   = ^(TestDecodeMatchesPrefill|TestLlamaMatchesReference|TestGenerateGreedyMatchesReference|TestExpertsQ8MatchesDecode|TestLoadMatchesReference)$$
test-arm64:
	@command -v qemu-aarch64-static >/dev/null || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q qemu-user-static; }
	QEMU_CPU=max $(ARM64_TEST) -run '/(neondot|neonbf16|neoni8mm)$$' ./kernels
	QEMU_CPU=cortex-a72 $(ARM64_TEST) -run '/(generic|neon)$$' ./kernels
	QEMU_CPU=max $(ARM64_TEST) -run '$(ARM64_LEVELS)/(neondot|neonbf16|neoni8mm)$$' ./engine
	QEMU_CPU=max $(ARM64_TEST) -run '$(ARM64_ONCE)' ./engine
	QEMU_CPU=max $(ARM64_TEST) -run '^TestIntegerDecodeTop10Shift$$/^qwen2/' ./engine
	QEMU_CPU=cortex-a72 $(ARM64_TEST) -run '$(ARM64_LEVELS)/neon$$' ./engine
	QEMU_CPU=cortex-a72 $(ARM64_TEST) -run '$(ARM64_ONCE)' ./engine
	QEMU_CPU=cortex-a72 $(ARM64_TEST) -run '^TestIntegerDecodeTop10Shift$$/^qwen2/' ./engine

# e2e starts the real binary under Xvfb on the demo model, generates, and
# saves the window's screenshot to $(BUILD)/e2e/.
e2e: build
	./scripts/e2e.sh $(BIN) $(BUILD)/e2e

# bench-model writes a random-weight model with the exact shape of
# Qwen2.5-1.5B (3.1 GB of bf16) once; speed does not depend on the values.
bench-model: $(BENCHDIR)/model.safetensors
$(BENCHDIR)/model.safetensors:
	$(GO) run . gen-model --shape qwen2.5-1.5b --seed 1 --dtype bf16 --out $(BENCHDIR)

# bench measures the machine (membw, cached), then the two cases of the
# article “The two times of an answer”: the purple-cat sentence (17
# tokens) and a Gold-Bug passage (3,139 tokens, one timed run: its prefill
# is long), 100 tokens written each.
# Every timed run also gets a short bandwidth probe beside it, and decode
# is set against that. Figures are medians; on a shared machine they vary.
bench: build bench-model
	./$(BIN) membw
	./$(BIN) bench --model $(BENCHDIR) --max-tokens 100
	./$(BIN) bench --model $(BENCHDIR) --prompt-file assets/texts/gold-bug-passage.txt --max-tokens 100 --repeat 1

# window-bench sets the window's prefill and decode rates (under Xvfb) beside
# `loupe bench`'s on the bench model, same prompt and threads, three rounds
# interleaved, medians and their ratio. A benchmark: figures, no pass/fail.
window-bench: build bench-model
	./scripts/window-bench.sh $(BIN) $(BENCHDIR) $(BUILD)/window-bench 3

# compare-llamacpp times Loupe against llama.cpp on the same weights (the
# bench model, and its tensors written as a BF16 GGUF), runs interleaved:
# decode at 1 and 2 threads after a 17-token prompt, then a 512-token
# prefill. With LLAMACPP_SRC=DIR (a llama.cpp source tree) llama.cpp's
# llama-bench is built from it for this CPU (cmake, -DGGML_NATIVE=ON,
# cached under build/llamacpp-native; LLAMACPP_JOBS=2 compile jobs) and
# timed; without it, llama.cpp comes from npm (node-llama-cpp's prebuilt
# CPU libraries; needs Node.js 20 or later and the npm registry), which may
# not use this CPU's best instructions. A benchmark: figures, no pass/fail.
# ROUNDS=5 for more rounds.
LLAMACPP        := $(BUILD)/llamacpp
LLAMACPP_NATIVE := $(BUILD)/llamacpp-native
LLAMACPP_SRC    ?=
LLAMACPP_JOBS   ?= 2
ROUNDS          ?= 3
ifneq ($(LLAMACPP_SRC),)
LLAMACPP_DEP := llamacpp-native
LLAMACPP_RUN := --llama-bench $(LLAMACPP_NATIVE)/bin/llama-bench
else
LLAMACPP_DEP := $(LLAMACPP)/node_modules
LLAMACPP_RUN := --node-dir $(LLAMACPP)
endif
compare-llamacpp: build bench-model $(BENCHDIR)-BF16.gguf $(LLAMACPP_DEP)
	/usr/bin/python3 scripts/compare-llamacpp.py --loupe $(BIN) --model $(BENCHDIR) --gguf $(BENCHDIR)-BF16.gguf $(LLAMACPP_RUN) --rounds $(ROUNDS)
	/usr/bin/python3 scripts/compare-llamacpp.py --loupe $(BIN) --model $(BENCHDIR) --gguf $(BENCHDIR)-BF16.gguf $(LLAMACPP_RUN) --rounds $(ROUNDS) --threads 2 --prompt-tokens 512 --decode 4
# compare-llamacpp-quant does the same decode and prefill comparison on
# quantised files: the bench model's tensors written by Loupe's own
# quantiser as Q8_0 and Q4_K_M GGUF (or QUANT_FILES="A.gguf B.gguf", e.g.
# files from llama-quantize), one file read by both programs.
QUANT_FILES ?= $(BENCHDIR)-Q8_0.gguf $(BENCHDIR)-Q4_K_M.gguf
compare-llamacpp-quant: build $(QUANT_FILES) $(LLAMACPP_DEP)
	@for f in $(QUANT_FILES); do \
		echo "== $$f"; \
		/usr/bin/python3 scripts/compare-llamacpp.py --loupe $(BIN) --model $$f --gguf $$f $(LLAMACPP_RUN) --rounds $(ROUNDS) || exit 1; \
		/usr/bin/python3 scripts/compare-llamacpp.py --loupe $(BIN) --model $$f --gguf $$f $(LLAMACPP_RUN) --rounds $(ROUNDS) --threads 2 --prompt-tokens 512 --decode 4 || exit 1; \
	done
$(BENCHDIR)-Q8_0.gguf:
	$(GO) run . gen-model --format gguf --quant q8_0 --shape qwen2.5-1.5b --seed 1 --out $@
$(BENCHDIR)-Q4_K_M.gguf:
	$(GO) run . gen-model --format gguf --quant q4_k_m --shape qwen2.5-1.5b --seed 1 --out $@
# crosscheck-llamacpp checks Loupe against llama.cpp, an independent
# implementation: for each architecture a small random GGUF file (F32 and
# Q8_0), greedy text from `loupe run --json` and llama.cpp's
# llama-completion (built from LLAMACPP_SRC for this CPU); F32 files in
# exact arithmetic must agree token for token (scripts/crosscheck-llamacpp.py).
crosscheck-llamacpp: build
	@[ -n "$(LLAMACPP_SRC)" ] || { echo "crosscheck-llamacpp: give LLAMACPP_SRC=DIR, a llama.cpp source tree"; exit 2; }
	./scripts/build-llamacpp.sh $(LLAMACPP_SRC) $(LLAMACPP_NATIVE) $(LLAMACPP_JOBS) llama-completion
	/usr/bin/python3 scripts/crosscheck-llamacpp.py --loupe $(BIN) --llama-completion $(LLAMACPP_NATIVE)/bin/llama-completion --dir $(BUILD)/crosscheck
# llamacpp-native builds (or brings up to date) llama-bench from LLAMACPP_SRC.
llamacpp-native:
	@[ -n "$(LLAMACPP_SRC)" ] || { echo "llamacpp-native: give LLAMACPP_SRC=DIR, a llama.cpp source tree"; exit 2; }
	./scripts/build-llamacpp.sh $(LLAMACPP_SRC) $(LLAMACPP_NATIVE) $(LLAMACPP_JOBS)
$(BENCHDIR)-BF16.gguf:
	$(GO) run . gen-model --format gguf --quant bf16 --shape qwen2.5-1.5b --seed 1 --out $@
$(LLAMACPP)/node_modules: scripts/llamacpp/package.json scripts/llamacpp/bench.mjs
	mkdir -p $(LLAMACPP)
	cp scripts/llamacpp/package.json scripts/llamacpp/bench.mjs $(LLAMACPP)/
	cd $(LLAMACPP) && npm install --no-audit --no-fund
	touch $@

membw: build
	./$(BIN) membw

# package builds build/Loupe.tar.xz (binary, icon, .desktop entry) from
# FyneApp.toml. A release package bumps Build in FyneApp.toml: it is put
# back so the tree stays clean.
FYNE_TOOL := fyne.io/tools/cmd/fyne@v1.7.4
package: deps
	mkdir -p $(BUILD) && cp FyneApp.toml $(BUILD)/FyneApp.toml.orig
	$(GO) run $(FYNE_TOOL) package -os linux -release -name Loupe -icon assets/icon.png; \
	status=$$?; cp $(BUILD)/FyneApp.toml.orig FyneApp.toml; exit $$status
	mv -f Loupe.tar.xz $(BUILD)/

# fuzz runs every fuzz target of the parsers of outside data for FUZZTIME
# each (default 10 min), seeded from real files; a crash found is written
# under the package's testdata/fuzz/ and from then on replayed by go test.
# Not part of make test.
FUZZTIME ?= 10m
FUZZ_TARGETS := engine/safetensors:FuzzOpen engine/safetensors:FuzzIndex engine:FuzzParseConfig \
	engine:FuzzReadEOS engine/tokenizer:FuzzParse engine/tokenizer:FuzzEncode engine/tokenizer:FuzzFromVocab engine/chat:FuzzTokenizerConfig engine/gguf:FuzzOpen
fuzz:
	@set -e; for t in $(FUZZ_TARGETS) $(EXTRA_FUZZ); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "== $$pkg $$fn ($(FUZZTIME))"; \
		CGO_ENABLED=0 $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) ./$$pkg; \
	done

# package-windows cross-compiles loupe.exe for windows/amd64 with Debian's
# MinGW-w64 (cgo, for Fyne's OpenGL driver) and writes
# build/Loupe-windows-amd64.zip. The icon and the version information are
# a resource (.syso) made by windres from assets/windows/loupe.rc; it sits
# in the main package only during the build. loupe.exe is a console
# program (so `loupe.exe run …` prints in cmd.exe) that hides its console
# when started from Explorer (main_windows.go).
WIN_CC  ?= x86_64-w64-mingw32-gcc
WIN_DIR := $(BUILD)/windows
WIN_SYSO := zz_loupe_windows_amd64.syso
package-windows:
	@missing=$$(for p in gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 imagemagick zip; do dpkg-query -W -f='$${db:Status-Abbrev}\n' $$p 2>/dev/null | grep -q '^ii' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	fi
	rm -rf $(WIN_DIR) && mkdir -p $(WIN_DIR)/res $(WIN_DIR)/Loupe
	convert assets/icon.png -define icon:auto-resize=256,64,48,32,16 $(WIN_DIR)/res/loupe.ico
	cp assets/windows/loupe.rc $(WIN_DIR)/res/
	cd $(WIN_DIR)/res && x86_64-w64-mingw32-windres -O coff -i loupe.rc -o loupe.syso
	cp $(WIN_DIR)/res/loupe.syso $(WIN_SYSO)
	CGO_ENABLED=1 CC=$(WIN_CC) GOOS=windows GOARCH=amd64 $(GO) build -trimpath -ldflags "-s -w" \
		-o $(WIN_DIR)/Loupe/loupe.exe .; status=$$?; rm -f $(WIN_SYSO); exit $$status
	cp assets/icon.png $(WIN_DIR)/Loupe/
	printf 'Loupe for Windows (64-bit)\r\n\r\nDouble-click loupe.exe. File > Get a model... downloads a model.\r\nCommand line: loupe.exe help\r\n' > $(WIN_DIR)/Loupe/README.txt
	rm -f $(BUILD)/Loupe-windows-amd64.zip
	cd $(WIN_DIR) && zip -q -r ../Loupe-windows-amd64.zip Loupe
	@echo "wrote $(BUILD)/Loupe-windows-amd64.zip"

# wine-smoke runs the Windows build's headless CLI on the demo model under
# Wine (Debian's wine64), then opens the window under Xvfb and saves a
# screenshot to build/wine/wine-window.png (see scripts/wine-smoke.sh).
wine-smoke: package-windows
	./scripts/wine-smoke.sh $(WIN_DIR)/Loupe/loupe.exe $(BUILD)/wine

# build-headless builds loupe without cgo for linux, darwin and windows on
# amd64 and arm64 into build/headless/OS-ARCH/: every command but the window
# (main_nocgo.go), no C compiler needed. test-headless runs the host's
# headless binary on the demo model (scripts/headless-smoke.sh).
HEADLESS_DIR := $(BUILD)/headless
HEADLESS_TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
build-headless:
	@set -e; for t in $(HEADLESS_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		echo "go build $$os/$$arch -> $(HEADLESS_DIR)/$$os-$$arch/loupe$$ext"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -o $(HEADLESS_DIR)/$$os-$$arch/loupe$$ext .; \
	done
test-headless:
	CGO_ENABLED=0 $(GO) build -o $(HEADLESS_DIR)/host/loupe .
	./scripts/headless-smoke.sh $(HEADLESS_DIR)/host/loupe

# app-macos builds build/Loupe.app (name, bundle id and icon from
# FyneApp.toml) and build/Loupe-macos-ARCH.zip with fyne's packager, as
# make package does for Linux. It runs on a Mac with Go and the Xcode
# command-line tools (cgo: Fyne's OpenGL driver and Cocoa); it is built and
# tested there (.github/workflows/macos.yml), not on Linux.
app-macos:
	@[ "$$(uname -s)" = Darwin ] || { echo "app-macos: builds the macOS app on a Mac (Go and the Xcode command-line tools); this is $$(uname -s). CGO_ENABLED=0 GOOS=darwin go build . gives the headless loupe here."; exit 2; }
	@xcode-select -p >/dev/null 2>&1 || { echo "app-macos: the Xcode command-line tools are missing: xcode-select --install"; exit 2; }
	mkdir -p $(BUILD) && cp FyneApp.toml $(BUILD)/FyneApp.toml.orig
	rm -rf Loupe.app $(BUILD)/Loupe.app
	$(GO) run $(FYNE_TOOL) package -os darwin -release -name Loupe -icon assets/icon.png; \
	status=$$?; cp $(BUILD)/FyneApp.toml.orig FyneApp.toml; exit $$status
	mv Loupe.app $(BUILD)/
	cd $(BUILD) && zip=Loupe-macos-$$($(GO) env GOARCH).zip && rm -f $$zip && \
		ditto -c -k --keepParent Loupe.app $$zip && echo "wrote $(BUILD)/Loupe.app and $(BUILD)/$$zip"

# package-linux-arm64 cross-builds the window for Linux on arm64 (cgo) with
# Debian's aarch64 cross compiler against the arm64 builds of the -dev
# packages of APT_PKGS (dpkg --add-architecture arm64; installed when
# missing), packs it as make package does (fyne's packager, --executable)
# and writes build/Loupe-linux-arm64.tar.xz. smoke-linux-arm64 runs its
# headless commands under qemu-aarch64-static (scripts/linux-arm64-smoke.sh).
ARM64_CC   ?= aarch64-linux-gnu-gcc
ARM64_DIR  := $(BUILD)/linux-arm64
ARM64_PKGS := gcc-aarch64-linux-gnu libc6-dev-arm64-cross pkg-config xz-utils qemu-user-static \
              $(addsuffix :arm64,$(filter %-dev,$(APT_PKGS)))
package-linux-arm64:
	@SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	dpkg --print-foreign-architectures | grep -qx arm64 || { echo "adding the arm64 architecture to dpkg"; $$SUDO dpkg --add-architecture arm64; $$SUDO apt-get update -q; }; \
	missing=$$(for p in $(ARM64_PKGS); do dpkg-query -W -f='$${db:Status-Abbrev}\n' $$p 2>/dev/null | grep -q '^ii' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q -o DPkg::Lock::Timeout=600 $$missing; \
	fi
	rm -rf $(ARM64_DIR) && mkdir -p $(ARM64_DIR)
	CGO_ENABLED=1 CC=$(ARM64_CC) GOOS=linux GOARCH=arm64 \
		PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
		$(GO) build -trimpath -ldflags "-s -w" -o $(ARM64_DIR)/loupe .
	cp FyneApp.toml $(ARM64_DIR)/FyneApp.toml.orig
	$(GO) run $(FYNE_TOOL) package -os linux -release -name Loupe -icon assets/icon.png \
		-executable $(CURDIR)/$(ARM64_DIR)/loupe; \
	status=$$?; cp $(ARM64_DIR)/FyneApp.toml.orig FyneApp.toml; exit $$status
	mv -f Loupe.tar.xz $(BUILD)/Loupe-linux-arm64.tar.xz
	@echo "wrote $(BUILD)/Loupe-linux-arm64.tar.xz"
smoke-linux-arm64: package-linux-arm64
	./scripts/linux-arm64-smoke.sh $(BUILD)/Loupe-linux-arm64.tar.xz $(ARM64_DIR)/smoke

clean:
	rm -rf $(BUILD)
