# annot_cycle.s: DW_AT_GNU_annotation chains that loop (A -> B -> A), on a
# pointer (btf_type_tag) and on a struct (btf_decl_tag). pahole 1.32 never
# returns on this file; btfstream must (TestEncodeAnnotationCycle). Not a
# golden fixture: regen.sh only assembles it, for amd64.
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
	.uleb128 3		# pointer_type with a chain
	.uleb128 0xf
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 4		# GNU_annotation, chained on
	.uleb128 0x6001
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x1c
	.uleb128 0x8
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 5		# structure_type with a chain
	.uleb128 0x13
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.byte	0

	.section	.debug_info,"",@progbits
.Lcu:
	.long	.Lcu_end - .Lcu_ver
.Lcu_ver:
	.value	4
	.long	.Labbrev
	.byte	8
	.uleb128 1
	.byte	0x1d
	.string	"annot_cycle.c"
.Lint:
	.uleb128 2
	.byte	4, 5
	.string	"int"
	.uleb128 3
	.byte	8
	.long	.Lint - .Lcu
	.long	.LTA - .Lcu
	.uleb128 5
	.string	"S"
	.byte	0
	.long	.LDA - .Lcu
.LTA:
	.uleb128 4
	.string	"btf_type_tag"
	.string	"a"
	.long	.LTB - .Lcu
.LTB:
	.uleb128 4
	.string	"btf_type_tag"
	.string	"b"
	.long	.LTA - .Lcu
.LDA:
	.uleb128 4
	.string	"btf_decl_tag"
	.string	"da"
	.long	.LDB - .Lcu
.LDB:
	.uleb128 4
	.string	"btf_decl_tag"
	.string	"db"
	.long	.LDA - .Lcu
	.byte	0
.Lcu_end:
