# dwarf_misc.s: DWARF that pahole 1.32's dwarf_loader reads differently
# from 1.31, written by hand (DWARF 4, x86_64; regen.sh assembles it with
# gcc -c for amd64 only):
#   gv8, gv4: variables at DW_OP_addr + DW_OP_plus_uconst, as LLVM's
#     GlobalMerge writes them (4783a4dd); gv0: the same with a third
#     operation (the offset is not added);
#   enum E: a DW_TAG_subprogram among its enumerators (a2f7af87), with an
#     ELF symbol and a struct declared in its body;
#   struct V: a DW_TAG_variant_part with two variants (117201b3).
	.text
	.globl	f
	.type	f, @function
f:
	movl	%edi, %eax
	ret
.Lf_end:
	.size	f, .-f
	.globl	em
	.type	em, @function
em:
	xorl	%eax, %eax
	ret
.Lem_end:
	.size	em, .-em

	.data
	.type	merged, @object
	.size	merged, 16
merged:
	.quad	0, 0
	.globl	gv0
	.set	gv0, merged
	.type	gv0, @object
	.size	gv0, 4
	.globl	gv4
	.set	gv4, merged + 4
	.type	gv4, @object
	.size	gv4, 4
	.globl	gv8
	.set	gv8, merged + 8
	.type	gv8, @object
	.size	gv8, 8

	.section	.debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1		# compile_unit
	.uleb128 0x11
	.byte	1
	.uleb128 0x25
	.uleb128 0x8
	.uleb128 0x13
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
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
	.uleb128 3		# variable
	.uleb128 0x34
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x3f
	.uleb128 0x19
	.uleb128 0x2
	.uleb128 0x18
	.byte	0, 0
	.uleb128 4		# enumeration_type
	.uleb128 0x4
	.byte	1
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.byte	0, 0
	.uleb128 5		# enumerator
	.uleb128 0x28
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x1c
	.uleb128 0xb
	.byte	0, 0
	.uleb128 6		# subprogram
	.uleb128 0x2e
	.byte	1
	.uleb128 0x3f
	.uleb128 0x19
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x27
	.uleb128 0x19
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x40
	.uleb128 0x18
	.byte	0, 0
	.uleb128 7		# formal_parameter
	.uleb128 0x5
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x18
	.byte	0, 0
	.uleb128 8		# structure_type
	.uleb128 0x13
	.byte	1
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0xb
	.uleb128 0xb
	.byte	0, 0
	.uleb128 9		# member
	.uleb128 0xd
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x38
	.uleb128 0xb
	.byte	0, 0
	.uleb128 10		# variant_part
	.uleb128 0x33
	.byte	1
	.uleb128 0x15		# discr
	.uleb128 0x13
	.byte	0, 0
	.uleb128 11		# variant
	.uleb128 0x19
	.byte	1
	.uleb128 0x16		# discr_value
	.uleb128 0xb
	.byte	0, 0
	.uleb128 12		# pointer_type
	.uleb128 0xf
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x49
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
	.string	"GNU C17 16.2.0 (hand-written)"
	.byte	0x1d
	.string	"dwarf_misc.c"
	.quad	f
	.quad	.Lem_end - f
.Lint:
	.uleb128 2
	.byte	4, 5
	.string	"int"
.Llong:
	.uleb128 2
	.byte	8, 5
	.string	"long int"
.Lshort:
	.uleb128 2
	.byte	2, 5
	.string	"short int"
	.uleb128 3
	.string	"gv8"
	.long	.Llong - .Lcu
	.uleb128 11
	.byte	0x3
	.quad	merged
	.byte	0x23, 8		# DW_OP_plus_uconst 8
	.uleb128 3
	.string	"gv4"
	.long	.Lint - .Lcu
	.uleb128 11
	.byte	0x3
	.quad	merged
	.byte	0x23, 4
	.uleb128 3
	.string	"gv0"
	.long	.Lint - .Lcu
	.uleb128 12
	.byte	0x3
	.quad	merged
	.byte	0x23, 4		# with the nop: three operations, no offset
	.byte	0x96		# DW_OP_nop
.LE:
	.uleb128 4
	.string	"E"
	.byte	4
	.long	.Lint - .Lcu
	.uleb128 5
	.string	"EA"
	.byte	1
	.uleb128 6
	.string	"em"
	.long	.Lint - .Lcu
	.quad	em
	.quad	.Lem_end - em
	.uleb128 1
	.byte	0x9c
	.uleb128 7
	.string	"self"
	.long	.LE - .Lcu
	.uleb128 1
	.byte	0x55
	.uleb128 8		# a type declared in em's body
	.string	"Inner"
	.byte	4
	.uleb128 9
	.string	"i"
	.long	.Lint - .Lcu
	.byte	0
	.byte	0
	.byte	0
	.uleb128 5
	.string	"EB"
	.byte	2
	.byte	0
.LV:
	.uleb128 8
	.string	"V"
	.byte	12
.LV_tag:
	.uleb128 9
	.string	"tag"
	.long	.Lint - .Lcu
	.byte	0
	.uleb128 10
	.long	.LV_tag - .Lcu
	.uleb128 11
	.byte	0
	.uleb128 9
	.string	"x"
	.long	.Lint - .Lcu
	.byte	4
	.byte	0
	.uleb128 11
	.byte	1
	.uleb128 9
	.string	"y"
	.long	.Lshort - .Lcu
	.byte	4
	.byte	0
	.byte	0
	.uleb128 9
	.string	"after"
	.long	.Lint - .Lcu
	.byte	8
	.byte	0
	.uleb128 6
	.string	"f"
	.long	.Lint - .Lcu
	.quad	f
	.quad	.Lf_end - f
	.uleb128 1
	.byte	0x9c
	.uleb128 7
	.string	"e"
	.long	.LE - .Lcu
	.uleb128 1
	.byte	0x55
	.uleb128 7
	.string	"v"
	.long	.LVp - .Lcu
	.uleb128 1
	.byte	0x54
	.byte	0
.LVp:
	.uleb128 12
	.byte	8
	.long	.LV - .Lcu
	.byte	0
.Lcu_end:
