package stream

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The default budget follows the tightest limit, read from fake /proc and
// /sys trees: cgroup v1 and v2 (own cgroup or an ancestor; a mount whose
// root is a sub-cgroup, as in a container), rlimits less what is mapped,
// RAM, the 1G cap.
func TestHostBudget(t *testing.T) {
	const mib = 1 << 20
	const hybridMounts = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	const v2Mount = "30 23 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	const v1Unlimited = "9223372036854771712\n"
	for _, c := range []struct {
		name   string
		files  map[string]string
		rlim   map[int]uint64
		budget int64
		from   string
		ptr4   bool
	}{
		{name: "RAM only", files: map[string]string{"proc/meminfo": "MemTotal:     1048576 kB\n"},
			budget: 512 * mib, from: "RAM"},
		{name: "cap", files: map[string]string{"proc/meminfo": "MemTotal:     16777216 kB\n"},
			budget: 1 << 30, from: "cap"},
		{name: "v1 own cgroup", files: map[string]string{
			"proc/self/cgroup":    "8:pids:/\n4:memory:/process_api/abc\n0::/\n",
			"proc/self/mountinfo": hybridMounts,
			"proc/meminfo":        "MemTotal:     8388608 kB\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                 v1Unlimited,
			"sys/fs/cgroup/memory/process_api/memory.limit_in_bytes":     v1Unlimited,
			"sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "67108864\n",
		}, budget: 48 * mib, from: "cgroup v1 memory.limit_in_bytes"},
		{name: "v1 ancestor tighter", files: map[string]string{
			"proc/self/cgroup":                               "4:memory:/a/b\n",
			"proc/self/mountinfo":                            hybridMounts,
			"sys/fs/cgroup/memory/a/memory.limit_in_bytes":   "134217728\n",
			"sys/fs/cgroup/memory/a/b/memory.limit_in_bytes": v1Unlimited,
		}, budget: 96 * mib, from: "cgroup v1 memory.limit_in_bytes"},
		{name: "v2", files: map[string]string{
			"proc/self/cgroup":                                   "0::/system.slice/run-u1.scope\n",
			"proc/self/mountinfo":                                v2Mount,
			"sys/fs/cgroup/system.slice/memory.max":              "max\n",
			"sys/fs/cgroup/system.slice/run-u1.scope/memory.max": "268435456\n",
			"proc/meminfo":                                       "MemTotal:     4194304 kB\n",
		}, budget: 192 * mib, from: "cgroup v2 memory.max"},
		{name: "v2 max everywhere", files: map[string]string{
			"proc/self/cgroup":           "0::/a\n",
			"proc/self/mountinfo":        v2Mount,
			"sys/fs/cgroup/a/memory.max": "max\n",
			"proc/meminfo":               "MemTotal:     1048576 kB\n",
		}, budget: 512 * mib, from: "RAM"},
		{name: "v2 container: mount root is the cgroup", files: map[string]string{
			"proc/self/cgroup":         "0::/docker/c1\n",
			"proc/self/mountinfo":      "30 23 0:27 /docker/c1 /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n",
			"sys/fs/cgroup/memory.max": "100663296\n",
		}, budget: 72 * mib, from: "cgroup v2 memory.max"},
		{name: "v2 namespace: path outside the mount root", files: map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"proc/self/mountinfo":      "30 23 0:27 /../.. /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n",
			"sys/fs/cgroup/memory.max": "100663296\n",
		}, budget: 72 * mib, from: "cgroup v2 memory.max"},
		{name: "mount point with a space", files: map[string]string{
			"proc/self/cgroup":    "0::/a\n",
			"proc/self/mountinfo": `30 23 0:27 / /cg\040two rw - cgroup2 cgroup2 rw` + "\n",
			"cg two/a/memory.max": "33554432\n",
		}, budget: 24 * mib, from: "cgroup v2 memory.max"},
		{name: "RLIMIT_AS less VmSize", files: map[string]string{
			"proc/self/status": "VmPeak:\t  300000 kB\nVmSize:\t  204800 kB\nVmData:\t   10240 kB\n",
			"proc/meminfo":     "MemTotal:     8388608 kB\n",
		}, rlim: map[int]uint64{syscall.RLIMIT_AS: 600 * mib}, budget: 200 * mib, from: "RLIMIT_AS"},
		{name: "RLIMIT_DATA less VmData", files: map[string]string{
			"proc/self/status": "VmSize:\t  204800 kB\nVmData:\t   10240 kB\n",
		}, rlim: map[int]uint64{syscall.RLIMIT_AS: 2000 * mib, syscall.RLIMIT_DATA: 110 * mib}, budget: 50 * mib, from: "RLIMIT_DATA"},
		{name: "32-bit: the heap reservation is room", ptr4: true, files: map[string]string{
			"proc/self/status": "VmSize:\t  174080 kB\n",
			"proc/self/maps": "08048000-08800000 r-xp 00000000 08:01 123 /usr/bin/btfstream\n" +
				"40000000-48000000 ---p 00000000 00:00 0\n" + // 128 MiB reserved heap
				"48000000-48400000 rw-p 00000000 00:00 0\n" +
				"f7000000-f7100000 ---p 00000000 00:00 0\n",
		}, rlim: map[int]uint64{syscall.RLIMIT_AS: 192 * mib}, budget: (192*mib - 170*mib + 128*mib) / 2, from: "RLIMIT_AS"},
		{name: "64-bit: reservations are used", files: map[string]string{
			"proc/self/status": "VmSize:\t  174080 kB\n",
			"proc/self/maps":   "40000000-48000000 ---p 00000000 00:00 0\n",
		}, rlim: map[int]uint64{syscall.RLIMIT_AS: 192 * mib}, budget: 11 * mib, from: "RLIMIT_AS"},
		{name: "rlimit below what is mapped", files: map[string]string{
			"proc/self/status": "VmSize:\t  204800 kB\n",
		}, rlim: map[int]uint64{syscall.RLIMIT_AS: 100 * mib}, budget: minBudget, from: "RLIMIT_AS"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range c.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := hostProbe{root: root, ptrSize: 8, rlimit: func(r int) uint64 {
				if v, ok := c.rlim[r]; ok {
					return v
				}
				return ^uint64(0)
			}}
			if c.ptr4 {
				p.ptrSize = 4
			}
			got := p.budget()
			if got.Budget != c.budget || got.From != c.from {
				t.Errorf("budget %d from %q (%s), want %d from %q", got.Budget, got.From, got, c.budget, c.from)
			}
			if s := got.String(); !strings.Contains(s, strings.TrimPrefix(c.from, "cap")) {
				t.Errorf("String %q does not name %q", s, c.from)
			}
		})
	}
}

// The process's own budget is at most the cap and names what set it.
func TestDefaultBudgetHere(t *testing.T) {
	b := DefaultBudget()
	if b.Budget <= 0 || b.Budget > defaultCap || b.From == "" || DefaultMemLimit() != b.Budget {
		t.Fatalf("DefaultBudget() = %+v", b)
	}
	t.Logf("here: %s, %s", formatMiB(b.Budget), b)
}
