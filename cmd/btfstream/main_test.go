package main

import (
	"os"
	"testing"
)

// TestMain lets tests run the command in a child process: the test binary
// with BTFSTREAM_TEST_MAIN=1 in its environment is btfstream (os.Args[1:]
// are the command's arguments), with its signal handling.
func TestMain(m *testing.M) {
	switch os.Getenv("BTFSTREAM_TEST_MAIN") {
	case "1":
		main()
	case "hold":
		holdOutput() // signals_test.go
	}
	os.Exit(m.Run())
}
