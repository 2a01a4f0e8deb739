package perf

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"loupe/engine/pool"
)

// The bandwidth cache is one small JSON file, os.UserCacheDir()/loupe/
// membw.json: {"<cpu>|<threads>|<probe>": [Bandwidth, ...], ...}, the
// probes of each CPU and thread count, newest first. On a shared machine a
// probe can only come out low (other programs read memory too, or hold a
// core), so the machine's figure is the best recent probe, and every probe
// is kept with its date and the load beside it to say how much it is worth.
const cacheFile = "membw.json"

// cachePath returns the cache file's path.
func cachePath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("perf: bandwidth cache: %w", err)
	}
	return filepath.Join(dir, "loupe", cacheFile), nil
}

// cacheKey identifies a figure: the CPU model, the thread count and the
// probe's version, so a figure from an older probe is measured again.
// Version 2: 512-bit read loop where the CPU has AVX-512F, buffer on
// 2 MiB pages (the first probe read 7 % less on this box's 4 KiB pages).
// Version 3: each worker reads its band as four streams, as the decode
// kernels do (one stream read 20–40 % less on one core).
// Version 4: at most 208 MiB of its own (four times the last-level cache,
// 64 MiB at least) instead of 1 GiB, or a loaded model's weights; the best
// of 32 MiB windows, not of whole passes (under load, whole passes read a
// sixth of what the machine can).
// Version 5: every window at its fastest, not the single fastest window
// (which measured the best-placed 32 MiB, 15-25 % above any whole pass).
func cacheKey(cpu string, threads int) string {
	return cpu + "|" + strconv.Itoa(threads) + "|" + probeVersion
}

const probeVersion = "v5"

// cacheMaxAge is how long a probe counts towards the machine's figure.
const cacheMaxAge = 30 * 24 * time.Hour

// maxProbes bounds the probes kept per key: the best recent one and the
// newest others.
const maxProbes = 8

// Ceiling is what the cache knows of the read bandwidth of one CPU and
// thread count: the best recent probe and all kept probes.
type Ceiling struct {
	Best   Bandwidth   // the highest probe of the last cacheMaxAge
	Probes []Bandwidth // newest first
}

// Ceiling ages: a figure older than StaleAfter is worth measuring again
// (a new kernel, BIOS, memory or VM host changes it).
const StaleAfter = 7 * 24 * time.Hour

// Stale reports whether the best figure was taken more than StaleAfter ago.
func (c Ceiling) Stale(now time.Time) bool { return now.Sub(c.Best.When) > StaleAfter }

// UnderLoad reports whether the best figure was taken while other
// programs kept the CPUs busy: it is then likely below the machine's.
func (c Ceiling) UnderLoad() bool { return c.Best.Loaded() }

// BandwidthCeiling returns the cached probes for this CPU and threads
// workers (≤ 0: the default count, as pool.New counts them), if any.
func BandwidthCeiling(threads int) (Ceiling, bool) {
	all, err := readCache()
	if err != nil {
		return Ceiling{}, false
	}
	return ceilingOf(all[cacheKey(CPUName(), pool.Effective(threads))], time.Now())
}

// ceilingOf picks the best of probes (newest first) measured within
// cacheMaxAge of now; when all are older, the newest counts.
func ceilingOf(probes []Bandwidth, now time.Time) (Ceiling, bool) {
	if len(probes) == 0 {
		return Ceiling{}, false
	}
	c := Ceiling{Best: probes[0], Probes: probes}
	for _, p := range probes {
		if now.Sub(p.When) < cacheMaxAge && p.BestGBs > c.Best.BestGBs {
			c.Best = p
		}
	}
	return c, c.Best.BestGBs > 0
}

// CachedBandwidth returns the best recent cached figure for this CPU and
// threads workers (≤ 0: the default count), if any.
func CachedBandwidth(threads int) (Bandwidth, bool) {
	c, ok := BandwidthCeiling(threads)
	return c.Best, ok
}

// SaveBandwidth adds the probe b to the cache (see RememberBandwidth).
func SaveBandwidth(b Bandwidth) error {
	_, err := RememberBandwidth(b)
	return err
}

// RememberBandwidth adds the probe b to the cache under its CPU and thread
// count, keeping the other entries, and reports whether b is now the
// figure: no probe of the last cacheMaxAge was higher. A corrupt cache
// file is replaced.
func RememberBandwidth(b Bandwidth) (best bool, err error) {
	path, err := cachePath()
	if err != nil {
		return false, err
	}
	all, err := readCache()
	if err != nil {
		all = map[string][]Bandwidth{}
	}
	key := cacheKey(b.CPU, b.Threads)
	all[key] = keepProbes(append([]Bandwidth{b}, all[key]...), b.When)
	c, _ := ceilingOf(all[key], b.When)
	return b.BestGBs >= c.Best.BestGBs, writeCache(path, all)
}

// keepProbes orders probes newest first and bounds them: probes older than
// cacheMaxAge go (unless none would be left), and of the rest the best one
// and the maxProbes-1 newest stay.
func keepProbes(probes []Bandwidth, now time.Time) []Bandwidth {
	slices.SortStableFunc(probes, func(a, b Bandwidth) int { return b.When.Compare(a.When) })
	recent := slices.DeleteFunc(slices.Clone(probes), func(p Bandwidth) bool { return now.Sub(p.When) >= cacheMaxAge })
	if len(recent) == 0 {
		return probes[:1]
	}
	if len(recent) <= maxProbes {
		return recent
	}
	best := 0
	for i, p := range recent {
		if p.BestGBs > recent[best].BestGBs {
			best = i
		}
	}
	if best < maxProbes {
		return recent[:maxProbes]
	}
	return append(recent[:maxProbes-1], recent[best])
}

// writeCache replaces the cache file with all.
func writeCache(path string, all map[string][]Bandwidth) error {
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("perf: bandwidth cache %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("perf: bandwidth cache: %w", err)
	}
	// Write then rename, so a reader never sees half a file.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("perf: bandwidth cache: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("perf: bandwidth cache: %w", err)
	}
	return nil
}

// readCache loads every entry; a missing file is an empty cache. An entry
// of the first format (one Bandwidth object, not a list) reads as a list
// of that one probe.
func readCache() (map[string][]Bandwidth, error) {
	path, err := cachePath()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]Bandwidth{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("perf: bandwidth cache: %w", err)
	}
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("perf: bandwidth cache %s: %w", path, err)
	}
	all := map[string][]Bandwidth{}
	for k, v := range raw {
		var list []Bandwidth
		if err := json.Unmarshal(v, &list); err != nil {
			var one Bandwidth
			if err := json.Unmarshal(v, &one); err != nil {
				return nil, fmt.Errorf("perf: bandwidth cache %s: entry %q: %w", path, k, err)
			}
			list = []Bandwidth{one}
		}
		all[k] = list
	}
	return all, nil
}
