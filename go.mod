module github.com/btfstream/btfstream

go 1.25.0

require (
	github.com/cilium/ebpf v0.22.0
	github.com/klauspost/compress v1.20.3
	github.com/spf13/pflag v1.0.10
	golang.org/x/sys v0.43.0
)
