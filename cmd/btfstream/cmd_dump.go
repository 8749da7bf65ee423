package main

// runDump is not written yet; its owner replaces this file.
func runDump(args []string) int {
	return fail(2, "dump: not implemented yet")
}
