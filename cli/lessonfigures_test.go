package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inkBox is the share of img's pixels that are not its background (the
// colour of its top-left pixel), the bounding box of those pixels, and
// whether any lies within margin pixels of an edge: a label cut by the
// image's border ("irst dimension").
func inkBox(img image.Image, margin int) (share float64, box image.Rectangle, atEdge bool) {
	b := img.Bounds()
	r0, g0, b0, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r == r0 && g == g0 && bl == b0 {
				continue
			}
			ink++
			box = box.Union(image.Rect(x, y, x+1, y+1))
			if x < b.Min.X+margin || y < b.Min.Y+margin || x >= b.Max.X-margin || y >= b.Max.Y-margin {
				atEdge = true
			}
		}
	}
	return float64(ink) / float64(b.Dx()*b.Dy()), box, atEdge
}

// With its timing runs made, every chapter of the handout has a figure of
// its own: no two alike, none mostly blank, its drawing filling the image
// it is given (a row of tokens is not a strip on a blank slide), and no
// text or axis label cut by the image's edge.
func TestLessonHTMLFigures(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "class.html")
	var o, e bytes.Buffer
	if code := Main([]string{"lesson", "--json", "--timing", "--max-tokens", "8", "--html", path}, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	var l lessonJSON
	if err := json.Unmarshal(o.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[32]byte]string{}
	for _, ch := range l.Chapters {
		name := "class-" + ch.ID + ".png"
		if !strings.Contains(string(doc), `src="`+name+`"`) {
			t.Errorf("%s: the page shows no figure", ch.ID)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if other, ok := seen[sha256.Sum256(data)]; ok {
			t.Errorf("%s: the same figure as %s", ch.ID, other)
		}
		seen[sha256.Sum256(data)] = ch.ID
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", ch.ID, err)
		}
		share, box, atEdge := inkBox(img, 3)
		h := img.Bounds().Dy()
		t.Logf("%-15s %4d × %4d px, ink %5.3f, drawing %d px high", ch.ID, img.Bounds().Dx(), h, share, box.Dy())
		if share < 0.02 {
			t.Errorf("%s: mostly blank (%.3f of the pixels drawn)", ch.ID, share)
		}
		if float64(box.Dy()) < 0.7*float64(h) {
			t.Errorf("%s: the drawing is %d px high in an image of %d: not sized to its content", ch.ID, box.Dy(), h)
		}
		if atEdge {
			t.Errorf("%s: something is drawn against the image's edge (a cut label?); drawing %v in %v", ch.ID, box, img.Bounds())
		}
	}
}
