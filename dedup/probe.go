package dedup

// Resolutions returns how many forward declarations the table has
// resolved so far (they are never undone): the merger (closure skipping)
// and bench/skipmeasure use it to tell whether a class recorded for a
// closure holding declarations may have changed since.
func (d *Incremental) Resolutions() int { return len(d.fwdLog) }
