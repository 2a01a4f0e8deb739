package hub

import (
	"fmt"
	"time"
)

// FormatBytes writes a size the way the Hub's pages do: decimal units,
// three significant digits ("988 MB", "3.09 GB").
func FormatBytes(n int64) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	v, units := float64(n), []string{"kB", "MB", "GB", "TB"}
	for i := range units {
		v /= 1000
		if v < 1000 || i == len(units)-1 {
			switch {
			case v < 10:
				return fmt.Sprintf("%.2f %s", v, units[i])
			case v < 100:
				return fmt.Sprintf("%.1f %s", v, units[i])
			}
			return fmt.Sprintf("%.0f %s", v, units[i])
		}
	}
	return ""
}

// FormatDuration is a time left: "45 s", "3 min 20 s", "1 h 05 min".
func FormatDuration(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %02d min", s/3600, s/60%60)
}
