#!/bin/sh
# build-llamacpp.sh SRC OUT [JOBS [TARGET]] builds llama.cpp's llama-bench
# (or TARGET, e.g. llama-completion) from the
# source tree SRC for this CPU (-DGGML_NATIVE=ON: every instruction set the
# compiler finds here, AVX-512 and AVX512-BF16 included), in OUT, and prints
# the binary's path. The build is cached: a second call only rebuilds what
# changed; a different SRC starts OUT afresh. Needs cmake and a C++ compiler.
set -eu
src=${1:?usage: build-llamacpp.sh SRC OUT [JOBS]}
out=${2:?usage: build-llamacpp.sh SRC OUT [JOBS]}
jobs=${3:-2}
target=${4:-llama-bench}
if [ ! -f "$src/CMakeLists.txt" ] || [ ! -d "$src/ggml" ]; then
	echo "build-llamacpp: $src is not a llama.cpp source tree (no CMakeLists.txt and ggml/)" >&2
	exit 2
fi
command -v cmake >/dev/null || { echo "build-llamacpp: cmake is missing (apt-get install cmake)" >&2; exit 2; }
src=$(cd "$src" && pwd)
if [ -f "$out/CMakeCache.txt" ] && ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$out/CMakeCache.txt"; then
	echo "build-llamacpp: $out was configured for another source tree; starting afresh" >&2
	rm -rf "$out"
fi
if [ ! -f "$out/CMakeCache.txt" ]; then
	cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
		-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
		-DLLAMA_BUILD_SERVER=OFF -DGGML_OPENMP=ON >&2
fi
cmake --build "$out" --target "$target" -j "$jobs" >&2
echo "$out/bin/$target"
