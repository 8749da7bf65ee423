//go:build !linux

package main

// isTerminal is false where btfstream does not know how to ask: no
// progress line unless --progress=always.
func isTerminal(fd int) bool { return false }
