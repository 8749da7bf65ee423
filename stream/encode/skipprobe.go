package encode

import "github.com/btfstream/btfstream/btf"

// DIETypes returns, per DIE of the unit last encoded (by its index in the
// unit), the batch type the DIE became (0: none; for an array of several
// dimensions, the outermost ARRAY). It aliases the worker's state: valid
// until the next Encode. It is for measuring what units repeat
// (bench/skipmeasure).
func (w *Worker) DIETypes() []btf.TypeID {
	if w.conv == nil {
		return nil
	}
	return w.conv.idOf
}

// ReEmit converts the last unit's type DIEs again, into scratch (emptied),
// leaving out the DIEs skip says (nil: none): so a bench can time what
// skipping them would save of the types' conversion (the walk that finds
// them, functions and variables are not redone). The unit must not have
// been released; the batch Encode returned is not touched.
func (w *Worker) ReEmit(skip []bool, scratch *btf.Spec) error {
	c := w.conv
	if c == nil {
		return nil
	}
	scratch.Reset()
	scratch.Strings().Reset()
	out, index := c.out, c.index
	c.index.Arrays = nil
	c.out = scratch
	w.names.next() // the cached batch offsets are the real batch's
	defer func() { c.out, c.index = out, index; w.names.next() }()
	strs := scratch.Strings()
	for _, i := range c.order {
		if i < 0 {
			c.emitTypeTag(int(-i-1), strs)
			continue
		}
		if skip != nil && skip[i] {
			continue
		}
		if err := c.emitOne(i, strs); err != nil {
			return err
		}
	}
	return nil
}
