package stream

// The default memory budget: the one place that finds the limits the
// process is under (issue 19). The plan (newMemPlan) reads DefaultBudget
// when EncodeOptions.MemLimit is 0; nothing else looks at the host.
//
// A limit and the budget it leaves:
//
//   - cgroup v2 memory.max, cgroup v1 memory.limit_in_bytes of the
//     process's own cgroup and its ancestors (/proc/self/cgroup, the
//     hierarchy's mount from /proc/self/mountinfo): three quarters of it,
//     the rest for what the budget does not see (the binary, the page
//     cache the cgroup is charged for, a little slack above the budget);
//   - RLIMIT_AS (ulimit -v), RLIMIT_DATA (ulimit -d): half of what the
//     process has not mapped yet (VmSize, VmData), since the Go runtime
//     reserves address space well beyond what it touches (on 32-bit its
//     heap reservation counts as room: reservedRoom);
//   - physical RAM: half of it;
//   - never more than 1 GiB, which every input here fits in.
//
// The tightest wins; HostBudget says which.

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// HostBudget is the default budget and the limit that set it.
type HostBudget struct {
	Budget int64  // bytes
	Limit  int64  // the limit itself (the 1 GiB cap: the same)
	From   string // e.g. "cgroup v1 memory.limit_in_bytes", "RLIMIT_AS", "RAM", "cap"
}

// String says where the budget came from, for --help and --summary:
// "3/4 of cgroup v2 memory.max 64M".
func (h HostBudget) String() string {
	if h.From == "cap" {
		return "the 1G cap"
	}
	share := "1/2"
	if strings.HasPrefix(h.From, "cgroup") {
		share = "3/4"
	}
	what := h.From + " " + formatMiB(h.Limit)
	if strings.HasPrefix(h.From, "RLIMIT") {
		what += " less what is mapped"
	}
	return share + " of " + what
}

func formatMiB(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + "M"
	}
	return strconv.FormatInt(n, 10)
}

// defaultCap is the budget when no limit is tighter.
const defaultCap = 1 << 30

// minBudget is the budget of a limit that leaves nothing: the plan then
// refuses it, naming the floor, rather than run without a budget.
const minBudget = 1 << 20

// noLimit: values at or above it are "unlimited" (v1 writes 2^63 rounded
// down to a page, rlimits RLIM_INFINITY).
const noLimit = 1 << 62

// hostProbe is where the limits are read: root prefixes /proc and /sys
// paths (tests use a fake tree), rlimit returns a resource's soft limit.
type hostProbe struct {
	root    string
	rlimit  func(resource int) uint64
	ptrSize int // 4 on 32-bit hosts (reservedRoom)
}

var (
	hostOnce   sync.Once
	hostBudget HostBudget
)

// DefaultBudget is the budget EncodeOptions.MemLimit 0 means here, found
// once per process.
func DefaultBudget() HostBudget {
	hostOnce.Do(func() {
		hostBudget = hostProbe{root: "/", rlimit: getrlimit, ptrSize: int(unsafe.Sizeof(uintptr(0)))}.budget()
	})
	return hostBudget
}

func getrlimit(resource int) uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(resource, &r); err != nil {
		return ^uint64(0)
	}
	return uint64(r.Cur)
}

// limits returns every limit found, with the budget each leaves.
func (p hostProbe) limits() []HostBudget {
	var out []HostBudget
	add := func(from string, limit, budget int64) {
		if limit > 0 && limit < noLimit {
			out = append(out, HostBudget{Budget: max(budget, minBudget), Limit: limit, From: from})
		}
	}
	for _, c := range p.cgroups() {
		add(c.From, c.Limit, c.Limit/4*3)
	}
	status := p.read("proc/self/status")
	// A 32-bit Go runtime reserves its heap's address space up front (128
	// or 512 MiB, as the limit allows): that reservation is room, not use.
	heapReserved := int64(0)
	if p.ptrSize == 4 {
		heapReserved = p.reservedRoom()
	}
	for _, r := range []struct {
		name, mapped string
		resource     int
	}{{"RLIMIT_AS", "VmSize:", syscall.RLIMIT_AS}, {"RLIMIT_DATA", "VmData:", syscall.RLIMIT_DATA}} {
		if v := p.rlimit(r.resource); v < noLimit {
			add(r.name, int64(v), (int64(v)-kBField(status, r.mapped)+heapReserved)/2)
		}
	}
	if ram := kBField(p.read("proc/meminfo"), "MemTotal:"); ram > 0 {
		add("RAM", ram, ram/2)
	}
	return out
}

// budget is the tightest of limits and the cap.
func (p hostProbe) budget() HostBudget {
	best := HostBudget{Budget: defaultCap, Limit: defaultCap, From: "cap"}
	for _, l := range p.limits() {
		if l.Budget < best.Budget {
			best = l
		}
	}
	return best
}

// reservedRoom is the largest anonymous PROT_NONE mapping in
// /proc/self/maps ("a000-b000 ---p 00000000 00:00 0"): on 32-bit, the
// runtime's heap reservation. (On 64-bit the large ones are the
// runtime's sparse tables, never filled: they count as used.)
func (p hostProbe) reservedRoom() int64 {
	var best int64
	sc := bufio.NewScanner(bytes.NewReader(p.read("proc/self/maps")))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 5 || f[1] != "---p" {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if ok && err1 == nil && err2 == nil && b > a && int64(b-a) > best {
			best = int64(b - a)
		}
	}
	return best
}

func (p hostProbe) read(path string) []byte {
	b, _ := os.ReadFile(filepath.Join(p.root, path))
	return b
}

// kBField returns the "Name:   123 kB" field of a /proc file in bytes (0
// if absent).
func kBField(b []byte, name string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}

// cgroups returns the memory limits of the process's cgroups, v2 and v1:
// for each hierarchy with a memory controller, the smallest limit on the
// path from its cgroup up to the hierarchy's mount.
func (p hostProbe) cgroups() []HostBudget {
	var out []HostBudget
	mounts := p.cgroupMounts()
	sc := bufio.NewScanner(bytes.NewReader(p.read("proc/self/cgroup")))
	for sc.Scan() {
		// "0::/user.slice/x" (v2), "4:memory:/docker/abc" (v1)
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		var m cgroupMount
		var file, from string
		switch {
		case f[0] == "0" && f[1] == "":
			m, file, from = mounts.v2, "memory.max", "cgroup v2 memory.max"
		case hasWord(f[1], "memory"):
			m, file, from = mounts.v1, "memory.limit_in_bytes", "cgroup v1 memory.limit_in_bytes"
		default:
			continue
		}
		if m.point == "" {
			continue
		}
		if lim := p.pathLimit(m, f[2], file); lim > 0 {
			out = append(out, HostBudget{Limit: lim, From: from})
		}
	}
	return out
}

// pathLimit is the smallest limit in file from the cgroup at path (as
// /proc/self/cgroup names it) up to the mount (0: none).
func (p hostProbe) pathLimit(m cgroupMount, path, file string) int64 {
	rel, ok := strings.CutPrefix(path, m.root)
	if m.root == "/" {
		rel, ok = path, true
	}
	if !ok { // a cgroup namespace or a bind mount of another subtree
		rel = "/"
	}
	dir := filepath.Join(p.root, m.point, rel)
	top := filepath.Join(p.root, m.point)
	var best int64
	for {
		b := strings.TrimSpace(string(p.readAbs(filepath.Join(dir, file))))
		if v, err := strconv.ParseInt(b, 10, 64); err == nil && v > 0 && v < noLimit && (best == 0 || v < best) {
			best = v
		}
		if dir == top || len(dir) <= len(top) {
			return best
		}
		dir = filepath.Dir(dir)
	}
}

func (p hostProbe) readAbs(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

// cgroupMount is where a cgroup hierarchy is mounted (point) and which of
// its cgroups is the mount's root.
type cgroupMount struct{ point, root string }

// cgroupMounts finds the v2 hierarchy and the v1 memory hierarchy in
// /proc/self/mountinfo: "36 25 0:31 / /sys/fs/cgroup/memory rw - cgroup
// cgroup rw,memory".
func (p hostProbe) cgroupMounts() (m struct{ v1, v2 cgroupMount }) {
	sc := bufio.NewScanner(bytes.NewReader(p.read("proc/self/mountinfo")))
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 1 {
			continue
		}
		mnt := cgroupMount{point: unescapeMount(f[4]), root: unescapeMount(f[3])}
		switch {
		case g[0] == "cgroup2" && m.v2.point == "":
			m.v2 = mnt
		case g[0] == "cgroup" && len(g) >= 3 && hasWord(g[2], "memory") && m.v1.point == "":
			m.v1 = mnt
		}
	}
	return m
}

// hasWord reports whether the comma-separated list has w.
func hasWord(list, w string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == w {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
