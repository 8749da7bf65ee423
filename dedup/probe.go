package dedup

// Resolutions returns how many forward declarations the table has
// resolved so far (they are never undone): a bench (bench/skipmeasure)
// uses it to tell whether a class recorded for a closure holding
// declarations may have changed since.
func (d *Incremental) Resolutions() int { return len(d.fwdLog) }
