//go:build ignore

// Command gen draws assets/icon.png: a magnifying glass over a small
// attention heatmap. Run from the repository root: go run assets/icon/gen.go
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"

	"loupe/format"
)

const size = 512

// viridis is the palette of the heatmaps (loupe/format), as channels.
func viridis(v float64) [3]float64 {
	c := format.Viridis.At(v)
	return [3]float64{float64(c.R), float64(c.G), float64(c.B)}
}

// cell is a fixed pseudo-attention pattern: a bright diagonal band and a
// strong first column (the attention sink).
func cell(r, c int) float64 {
	switch {
	case c == 0:
		return 0.85
	case c == r:
		return 1
	case c == r-1:
		return 0.55
	}
	return 0.08 + 0.1*float64((r*7+c*3)%5)/4
}

// shade returns the colour and coverage of the point (x, y) in [0, 512)².
func shade(x, y float64) ([3]float64, float64) {
	// Rounded dark tile.
	bg := [3]float64{30, 31, 36}
	if !inRoundRect(x, y, 16, 16, 496, 496, 96) {
		return bg, 0
	}
	col := bg
	const n, x0, y0, w = 6, 64.0, 64.0, 300.0
	cx, cy, rad := 250.0, 230.0, 130.0 // lens
	d := math.Hypot(x-cx, y-cy)
	gx, gy := x, y
	if d < rad-14 { // inside the lens the grid is magnified 1.6×
		gx, gy = cx+(x-cx)/1.6, cy+(y-cy)/1.6
	}
	if gx >= x0 && gx < x0+w && gy >= y0 && gy < y0+w {
		cw := w / n
		r, c := int((gy-y0)/cw), int((gx-x0)/cw)
		fx, fy := math.Mod(gx-x0, cw), math.Mod(gy-y0, cw)
		if fx > 3 && fy > 3 && fx < cw-3 && fy < cw-3 {
			col = viridis(cell(r, c))
		}
	}
	glass := [3]float64{236, 236, 240}
	if d >= rad-14 && d <= rad+6 { // ring
		return glass, 1
	}
	// Handle: a thick segment from the ring towards the bottom right.
	hx0, hy0 := cx+rad*0.72, cy+rad*0.72
	hx1, hy1 := 440.0, 420.0
	if segDist(x, y, hx0, hy0, hx1, hy1) < 26 {
		return [3]float64{255, 176, 0}, 1
	}
	return col, 1
}

func inRoundRect(x, y, x0, y0, x1, y1, r float64) bool {
	qx := math.Max(math.Max(x0+r-x, x-(x1-r)), 0)
	qy := math.Max(math.Max(y0+r-y, y-(y1-r)), 0)
	return qx*qx+qy*qy <= r*r
}

func segDist(px, py, ax, ay, bx, by float64) float64 {
	vx, vy := bx-ax, by-ay
	t := math.Max(0, math.Min(1, ((px-ax)*vx+(py-ay)*vy)/(vx*vx+vy*vy)))
	return math.Hypot(px-(ax+t*vx), py-(ay+t*vy))
}

func main() {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const ss = 4 // 4×4 samples per pixel for smooth edges
	for y := range size {
		for x := range size {
			var acc [3]float64
			var cov float64
			for j := range ss {
				for i := range ss {
					c, a := shade(float64(x)+(float64(i)+0.5)/ss, float64(y)+(float64(j)+0.5)/ss)
					for k := range acc {
						acc[k] += c[k] * a
					}
					cov += a
				}
			}
			if cov == 0 {
				continue
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(acc[0] / cov), uint8(acc[1] / cov), uint8(acc[2] / cov), uint8(255 * cov / (ss * ss))})
		}
	}
	f, err := os.Create("assets/icon.png")
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
