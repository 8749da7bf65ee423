// Command testreport reads `go test -json` on stdin and prints what a CI
// log needs: each package's result line, the output of every failed test
// (with -v, every test's output as it comes, like go test -v), the skip
// reasons, and one count line. scripts/test.sh runs every go test step
// through it.
//
//	go test -json ./... | go run ./scripts/testreport -step amd64 -summary FILE
//
// Tests are counted with their subtests: each test or subtest that ends
// is one that ran, and passed, failed or skipped. Under CI=true a test
// skipped because a tool is missing ("not installed" in its skip message)
// counts as failed: CI installs every tool, so that skip means the
// install failed. The exit status is 1 if any test or package failed, 2 if
// the input held no test at all.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type key struct{ pkg, test string }

func main() {
	step := flag.String("step", "tests", "step name for the count line")
	summary := flag.String("summary", "", "append 'STEP RAN PASSED FAILED SKIPPED SECONDS' to this file")
	verbose := flag.Bool("v", false, "print every test's output, not only failures'")
	flag.Parse()
	os.Exit(report(os.Stdin, os.Stdout, *step, *summary, *verbose, ciMode()))
}

func ciMode() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false":
		return false
	}
	return true
}

type counts struct{ passed, failed, skipped, missingTool int }

func report(in io.Reader, out io.Writer, step, summary string, verbose, ci bool) int {
	start := time.Now()
	var c counts
	buf := map[key][]string{}
	skipReasons := map[string]int{}
	var failedTests, failedPkgs []string
	var nonJSON []string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// go vet or build errors arrive as plain text.
			fmt.Fprintln(out, string(line))
			nonJSON = append(nonJSON, string(line))
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "output":
			if verbose {
				fmt.Fprint(out, e.Output)
			} else {
				buf[k] = append(buf[k], e.Output)
			}
		case "pass", "fail", "skip":
			if e.Test == "" { // the package's result
				if e.Action == "fail" {
					failedPkgs = append(failedPkgs, e.Package)
				}
				switch {
				case verbose:
				case e.Action == "fail":
					fmt.Fprint(out, strings.Join(buf[k], ""))
				default:
					printPkgLine(out, e, buf[k])
				}
				delete(buf, k)
				continue
			}
			switch e.Action {
			case "pass":
				c.passed++
			case "fail":
				c.failed++
				failedTests = append(failedTests, e.Package+" "+e.Test)
				if !verbose {
					fmt.Fprint(out, strings.Join(buf[k], ""))
				}
			case "skip":
				reason := skipReason(buf[k], e.Test)
				if verbose {
					reason = "" // already printed
				}
				if ci && strings.Contains(strings.Join(buf[k], ""), "not installed") {
					c.missingTool++
					failedTests = append(failedTests, e.Package+" "+e.Test+" (skipped: tool not installed, CI=true)")
					if !verbose {
						fmt.Fprint(out, strings.Join(buf[k], ""))
					}
				} else {
					c.skipped++
				}
				skipReasons[strings.TrimPrefix(e.Package, "github.com/btfstream/btfstream/")+": "+reason]++
			}
			delete(buf, k)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "testreport: reading go test -json: %v\n", err)
		failedPkgs = append(failedPkgs, "(input)")
	}

	ran := c.passed + c.failed + c.skipped + c.missingTool
	if len(skipReasons) > 0 {
		fmt.Fprintf(out, "--- %s: skipped tests by package and reason:\n", step)
		var rs []string
		for r, n := range skipReasons {
			rs = append(rs, fmt.Sprintf("    %4d  %s", n, r))
		}
		sort.Strings(rs)
		fmt.Fprintln(out, strings.Join(rs, "\n"))
	}
	if len(failedTests) > 0 {
		fmt.Fprintf(out, "--- %s: failed tests:\n    %s\n", step, strings.Join(failedTests, "\n    "))
	}
	if len(failedPkgs) > 0 {
		fmt.Fprintf(out, "--- %s: failed packages: %s\n", step, strings.Join(failedPkgs, " "))
	}
	failed := c.failed + c.missingTool
	fmt.Fprintf(out, "%s: ran %d tests: %d passed, %d failed, %d skipped\n", step, ran, c.passed, failed, c.skipped)
	if summary != "" {
		if f, err := os.OpenFile(summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %d %d %d %d %.0f\n", step, ran, c.passed, failed, c.skipped, time.Since(start).Seconds())
			f.Close()
		}
	}
	switch {
	case failed > 0 || len(failedPkgs) > 0:
		return 1
	case ran == 0:
		fmt.Fprintf(out, "%s: no test ran\n", step)
		return 2
	}
	return 0
}

// printPkgLine prints go test's own result line for a package ("ok ...",
// "FAIL ...", "?  ... [no test files]") from its buffered output, or makes
// one.
func printPkgLine(out io.Writer, e event, lines []string) {
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "FAIL\t") || strings.HasPrefix(l, "?   \t") || strings.HasPrefix(l, "ok\t") {
			fmt.Fprint(out, l)
			return
		}
	}
	fmt.Fprintf(out, "%-4s %s %.3fs\n", strings.ToUpper(e.Action), e.Package, e.Elapsed)
}

// skipReason is the message a skipped test gave: its last output line
// other than the "--- SKIP" line, without the file:line prefix.
func skipReason(lines []string, test string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if _, after, ok := strings.Cut(l, ": "); ok && strings.Contains(l[:len(l)-len(after)], ".go:") {
			l = after
		}
		if len(l) > 100 {
			l = l[:100] + "..."
		}
		return l
	}
	return "(no message) " + test
}
