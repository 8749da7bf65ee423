// Command memplot draws bench/memtable.sh's points as a PNG: peak RSS
// against --mem-limit, both on log2 axes in MiB, with the line RSS = limit
// (grey) and RSS = limit + 5% (red); measured points in blue. Input on
// stdin: one "limit_kib rss_kib" pair per line. Standard library only.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"strconv"
)

const w, h, margin = 640, 480, 50

// font3x5 draws axis labels: digits and 'M', 3x5 pixels, scaled.
var font3x5 = map[rune][5]string{
	'0': {"###", "#.#", "#.#", "#.#", "###"}, '1': {".#.", "##.", ".#.", ".#.", "###"},
	'2': {"###", "..#", "###", "#..", "###"}, '3': {"###", "..#", "###", "..#", "###"},
	'4': {"#.#", "#.#", "###", "..#", "..#"}, '5': {"###", "#..", "###", "..#", "###"},
	'6': {"###", "#..", "###", "#.#", "###"}, '7': {"###", "..#", "..#", "..#", "..#"},
	'8': {"###", "#.#", "###", "#.#", "###"}, '9': {"###", "#.#", "###", "..#", "###"},
	'M': {"#.#", "###", "###", "#.#", "#.#"},
}

func main() {
	outPath := flag.String("o", "memtable.png", "output PNG")
	flag.Parse()
	var pts [][2]float64 // MiB
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var l, r float64
		if _, err := fmt.Sscan(sc.Text(), &l, &r); err == nil && l > 0 && r > 0 {
			pts = append(pts, [2]float64{l / 1024, r / 1024})
		}
	}
	lo, hi := 32.0, 1024.0
	for _, p := range pts {
		hi = max(hi, p[0]*1.1, p[1]*1.1)
		lo = min(lo, p[0]/1.1, p[1]/1.1)
	}
	lx, hx := math.Log2(lo), math.Log2(hi)
	px := func(v float64) int { return margin + int((math.Log2(v)-lx)/(hx-lx)*float64(w-2*margin)) }
	py := func(v float64) int { return h - margin - int((math.Log2(v)-lx)/(hx-lx)*float64(h-2*margin)) }
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	grid, black := color.RGBA{225, 225, 225, 255}, color.RGBA{0, 0, 0, 255}
	for v := 16.0; v <= hi*2; v *= 2 {
		if v < lo {
			continue
		}
		line(img, px(v), margin, px(v), h-margin, grid)
		line(img, margin, py(v), w-margin, py(v), grid)
		label(img, px(v)-8, h-margin+8, strconv.Itoa(int(v))+"M", black)
		label(img, 4, py(v)-5, strconv.Itoa(int(v))+"M", black)
	}
	line(img, margin, h-margin, w-margin, h-margin, black)
	line(img, margin, margin, margin, h-margin, black)
	line(img, px(lo), py(lo), px(hi), py(hi), color.RGBA{150, 150, 150, 255})
	line(img, px(lo), py(lo*1.05), px(hi/1.05), py(hi), color.RGBA{220, 60, 60, 255})
	blue := color.RGBA{30, 80, 220, 255}
	for i, p := range pts {
		if i > 0 {
			line(img, px(pts[i-1][0]), py(pts[i-1][1]), px(p[0]), py(p[1]), blue)
		}
		for dx := -3; dx <= 3; dx++ {
			for dy := -3; dy <= 3; dy++ {
				img.Set(px(p[0])+dx, py(p[1])+dy, blue)
			}
		}
	}
	f, err := os.Create(*outPath)
	if err == nil {
		err = png.Encode(f, img)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "memplot:", err)
		os.Exit(1)
	}
}

func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	n := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= n; i++ {
		img.Set(x0+(x1-x0)*i/n, y0+(y1-y0)*i/n, c)
	}
}

func label(img *image.RGBA, x, y int, s string, c color.RGBA) {
	for _, r := range s {
		g := font3x5[r]
		for row := 0; row < 5; row++ {
			for col := 0; col < 3; col++ {
				if g[row][col] == '#' {
					img.Set(x+2*col, y+2*row, c)
					img.Set(x+2*col+1, y+2*row, c)
					img.Set(x+2*col, y+2*row+1, c)
					img.Set(x+2*col+1, y+2*row+1, c)
				}
			}
		}
		x += 8
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
