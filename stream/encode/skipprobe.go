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
