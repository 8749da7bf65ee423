# foreign_ref.s: a unit whose pointer refers to a base type of the unit
# before it (DW_FORM_ref_addr), as dwz's partial units and LTO write them.
# pahole 1.32 loads such files as one unit; btfstream encodes one unit at a
# time and must fail on it with ErrUnsupported, not write a pointer to
# void (TestEncodeForeignRef). The pointer to its own unit's int, also
# through DW_FORM_ref_addr, is fine. Not a golden fixture: regen.sh only
# assembles it, for amd64.
	.section	.debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1		# compile_unit
	.uleb128 0x11
	.byte	1
	.uleb128 0x13
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x8
	.byte	0, 0
	.uleb128 2		# base_type
	.uleb128 0x24
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x8
	.byte	0, 0
	.uleb128 3		# pointer_type, DW_FORM_ref_addr
	.uleb128 0xf
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x10
	.byte	0, 0
	.byte	0

	.section	.debug_info,"",@progbits
.Linfo:
.Lcu1:
	.long	.Lcu1_end - .Lcu1_ver
.Lcu1_ver:
	.value	4
	.long	.Labbrev
	.byte	8
	.uleb128 1
	.byte	0x1d
	.string	"one.c"
.Llong:
	.uleb128 2
	.byte	8, 5
	.string	"long int"
	.byte	0
.Lcu1_end:
.Lcu2:
	.long	.Lcu2_end - .Lcu2_ver
.Lcu2_ver:
	.value	4
	.long	.Labbrev
	.byte	8
	.uleb128 1
	.byte	0x1d
	.string	"two.c"
.Lint:
	.uleb128 2
	.byte	4, 5
	.string	"int"
	.uleb128 3
	.byte	8
	.long	.Lint - .Linfo
	.uleb128 3
	.byte	8
	.long	.Llong - .Linfo
	.byte	0
.Lcu2_end:
