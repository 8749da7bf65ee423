package encode

// Trim drops k's per-DIE arrays (the keys Unit returned too) if they
// were sized for more than max DIEs: a worker keeps them from unit to
// unit, and above one job each worker would hold enough for the largest
// unit it met (~27 bytes a DIE: ~1.9 MB for the 70k DIEs of the 6.12
// vmlinux's largest) until the end, when the table is largest.
func (k *ClosureKeys) Trim(max int) {
	if cap(k.keys) <= max {
		return
	}
	// Everything but the per-abbreviation plans, the mode and the count.
	*k = ClosureKeys{plans: k.plans, ops: k.ops, noPlans: k.noPlans, Unkeyed: k.Unkeyed}
}
