// Package outfile writes output files that never outlive the process
// half-written, and temporary files that never outlive it at all.
//
// # Role
//
// Every file btfstream writes (an ELF file rewritten in place by -J, a
// detached .btf, `dedup -o`, spill files) is created here. A File is
// filled, then Commit makes it appear at its path in one rename; Abort, an
// error, a signal or a crash leave the path as it was and nothing beside it.
//
// On Linux a File is an unnamed file (open(2) with O_TMPFILE) in the
// directory of its path: it has no name while it is written, so even
// SIGKILL or a power cut leave nothing. Commit links it into place: straight
// at the path when none exists, else at a temporary name renamed over the
// path (the only moment a second name exists, microseconds long). Where
// O_TMPFILE is not available (other systems, file systems without it, no
// /proc) a File is a named temporary file ".NAME.btfstream-XXXXXXXX" in the
// same directory, which Abort removes and which a signal handler removes
// through Cleanup.
//
// # Invariants
//
//   - The path is never written before Commit's rename: readers see the old
//     file or the new one, whole.
//   - Errors name the user's path, never a temporary name or /proc/self/fd.
//   - Cleanup (for SIGINT, SIGTERM, SIGHUP handlers) removes every named
//     temporary file, waits for a Commit in its critical section, and makes
//     later Commits fail: after it returns nothing of this package's
//     remains on disk and nothing will be renamed.
//
// # Imports
//
// Standard library and golang.org/x/sys/unix (O_TMPFILE, linkat, statfs,
// which package syscall lacks). Nothing of btfstream: every writer may use
// it.
package outfile
