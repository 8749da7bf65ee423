package main

// runEncode is not written yet; its owner replaces this file.
func runEncode(args []string) int {
	return fail(2, "encode: not implemented yet")
}
