package hub

import (
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.00 kB", 988_097_824: "988 MB",
		3_087_467_144: "3.09 GB", 15_500_000: "15.5 MB", 2_000_000_000_000_000: "2000 TB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{4 * time.Second: "4 s", 200 * time.Second: "3 min 20 s",
		3900 * time.Second: "1 h 05 min"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
