package dwarfread

// HasIndirect reports whether the unit's abbreviation table has an
// attribute of form DW_FORM_indirect, whose DIEs each name the form of
// that value: then the forms DIE.AttrAt reports for one DIE of an
// abbreviation need not be those of the others (one scan of the table).
func (cu *CU) HasIndirect() bool {
	for i := range cu.table.specs {
		if cu.table.specs[i].form == formIndirect {
			return true
		}
	}
	return false
}
