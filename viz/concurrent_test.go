package viz

import (
	"sync"
	"testing"
)

// TestConcurrentRender draws figures from several goroutines at once, as
// the GUI does in the background; each image must equal the serial one.
// Run with -race (CGO_ENABLED=1) to check the shared font cache.
func TestConcurrentRender(t *testing.T) {
	figs := everyFigure(Light())
	want := map[string][]byte{}
	for name, f := range figs {
		b, err := PNG(f, 300, 200)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = b
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(figs))
	for range 4 {
		for name, f := range figs {
			wg.Go(func() {
				b, err := PNG(f, 300, 200)
				if err != nil || string(b) != string(want[name]) {
					errs <- name
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("%s: concurrent render differs from the serial one", name)
	}
}
