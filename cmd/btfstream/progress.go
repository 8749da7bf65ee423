package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressLine draws one status line on a terminal while an encoding runs:
//
//	btfstream: vmlinux: 1234/2980 units, 110.3 MiB read, 4.2s
//
// It is redrawn in place (carriage return, erase to end of line) at most
// every interval, and erased by done, so nothing of it stays in the
// terminal's scrollback or in a log. Update may be called from any
// goroutine, as often as a unit finishes.
type progressLine struct {
	w        io.Writer
	name     string
	start    time.Time
	interval time.Duration

	mu    sync.Mutex
	last  time.Time
	drawn bool
}

func newProgressLine(w io.Writer, name string) *progressLine {
	return &progressLine{w: w, name: name, start: time.Now(), interval: 200 * time.Millisecond}
}

// Update reports done of total units finished and read bytes of input read.
func (p *progressLine) Update(done, total int, read int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.drawn && now.Sub(p.last) < p.interval && done != total {
		return
	}
	p.last, p.drawn = now, true
	units := fmt.Sprintf("%d/%d", done, total)
	if total == 0 {
		units = fmt.Sprint(done) // a compressed .debug_info: the count is unknown
	}
	fmt.Fprintf(p.w, "\rbtfstream: %s: %s units, %.1f MiB read, %.1fs\x1b[K", p.name, units,
		float64(read)/(1<<20), now.Sub(p.start).Seconds())
}

// done erases the line.
func (p *progressLine) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// active is the line on screen, which fail and the signal handler erase
// before they print.
var active struct {
	sync.Mutex
	line *progressLine
}

// showProgress makes line the active one (nil: erase the active line).
func showProgress(line *progressLine) {
	active.Lock()
	defer active.Unlock()
	if active.line != nil && line == nil {
		active.line.done()
	}
	active.line = line
}

// wantProgress decides --progress: auto draws only when stderr is a
// terminal (not in kbuild's logs, not through a pipe), and never with -q.
func wantProgress(when string, quiet bool) bool {
	switch {
	case quiet || when == "never":
		return false
	case when == "always":
		return true
	}
	return isTerminal(2)
}
