package engine

import "testing"

func TestNameFromPath(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/home/a/.cache/huggingface/hub/models--Qwen--Qwen2.5-1.5B/snapshots/abc123", "Qwen/Qwen2.5-1.5B"},
		{"/home/a/.cache/huggingface/hub/models--Qwen--Qwen2.5-1.5B/snapshots/abc123/model.safetensors", "Qwen/Qwen2.5-1.5B"},
		{"/h/hub/models--bartowski--Qwen2.5-0.5B-Instruct-GGUF/snapshots/f00/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf", "bartowski/Qwen2.5-0.5B-Instruct-GGUF"},
		{"/models/my-qwen", "my-qwen"},
		{"/models/qwen2.5-0.5b-instruct-q8_0.gguf", "qwen2.5-0.5b-instruct-q8_0"},
		{"/models/models--x", "models--x"}, // not a cache snapshot
	} {
		if got := NameFromPath(c.path); got != c.want {
			t.Errorf("NameFromPath(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}
