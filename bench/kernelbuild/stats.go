package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// median returns the median of xs (the mean of the two middle values for
// an even count); NaN for none. xs is not changed.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := sorted(xs)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile returns the nearest-rank p-th percentile of xs (0 < p <=
// 100): the smallest value with at least p% of the values at or below it.
// NaN for none. xs is not changed.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := sorted(xs)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(s) {
		rank = len(s)
	}
	return s[rank-1]
}

// argmax returns the index of the largest value of xs (the first on a
// tie), -1 for none.
func argmax(xs []float64) int {
	best := -1
	for i, x := range xs {
		if best < 0 || x > xs[best] {
			best = i
		}
	}
	return best
}

// ratio returns a/b, NaN when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

func sorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

// toolFlag is a repeatable -tool NAME=PATH flag: the btfstream binaries
// to measure, in order.
type toolFlag []tool

func (f *toolFlag) String() string {
	var parts []string
	for _, t := range *f {
		parts = append(parts, t.name+"="+t.path)
	}
	return strings.Join(parts, ",")
}

func (f *toolFlag) Set(v string) error {
	t, err := parseTool(v)
	if err != nil {
		return err
	}
	for _, o := range *f {
		if o.name == t.name {
			return fmt.Errorf("tool %q given twice", t.name)
		}
	}
	*f = append(*f, t)
	return nil
}

// parseTool parses NAME=PATH: NAME is a short label (letters, digits, '-',
// '_', '.'; not "pahole", which is the reference), PATH a btfstream binary.
func parseTool(v string) (tool, error) {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return tool{}, fmt.Errorf("-tool %q: want NAME=PATH", v)
	}
	if name == "pahole" {
		return tool{}, fmt.Errorf("-tool %q: the name pahole is the reference's", v)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return tool{}, fmt.Errorf("-tool %q: name may hold only letters, digits, '-', '_' and '.'", v)
		}
	}
	return tool{name: name, path: path}, nil
}

// moduleName returns a module's name as the kernel knows it: the file
// name without .ko, '-' as '_' (e.g. .../nf_tables.ko -> nf_tables).
func moduleName(path string) string {
	base := path[strings.LastIndexByte(path, '/')+1:]
	base = strings.TrimSuffix(base, ".ko")
	return strings.ReplaceAll(base, "-", "_")
}

// sample returns n of items spread evenly (first, then every len/n-th),
// all of them for n <= 0 or n >= len(items).
func sample[T any](items []T, n int) []T {
	if n <= 0 || n >= len(items) {
		return items
	}
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, items[i*len(items)/n])
	}
	return out
}
